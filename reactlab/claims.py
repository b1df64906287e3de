"""Claims: whom an answer's figures are about, and which comparisons it states.

The run says what each name's data is: a tool result opens with its subject ("北京: 23.4°C …",
"青岛啤酒 (600600.SH) closing price: 67.92 CNY …") and the call's arguments give more
spellings ("Guangzhou"); the course's bundled teaching data adds English names and aliases.
With that, `misattributed` finds a clause about 广州 that carries figures only 北京's result
gives, and `comparison` checks "更高 / higher / warmer / 更便宜 / better …" against the
readings (temperature, humidity, closing price, AQI; a lower AQI is better).

Deliberately NOT here: parsing grammar. A clause is text between punctuation, a clause naming
nobody continues the one before it, a clause naming two names is not checked, the claimed
side of a comparison is the name before the word ("A 比 B 高", "A is higher than B"),
negation is only "not / n't / 不 / 没" right before the word. Used by `reactlab.grader`, which
notebook 04 introduces, and by `reactlab.correction`. About 350 lines: attribution and
comparison share the clause splitting, so they stay in one module.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from pathlib import Path

from reactlab.figures import Pool, figure_spans, figures, normalise, value
from reactlab.runlog import RunResult

_DATA = Path(__file__).parent / "data"
# the subject of a tool result: "北京: 23.4°C …", "青岛啤酒 (600600.SH) closing price: …"
_SUBJECT = re.compile(r"^\s*([^\s\d:：(（\[{][^:：(（\[{\n]{0,24}?)\s*[:：(（]")
# a full stop ends a sentence, except inside "67.92" or "600600.SH"
_SENTENCE = re.compile(r"[。！？!?\n]+|\.(?![\dA-Za-z])\s*")
_CLAUSE = re.compile(r"[，,；;：:、]")
_ERROR_PREFIX = re.compile(r"^(?:\s*(?:Error|[\w.]+ failed|\w*Error|\w*Exception)\s*:\s*)+")


# the bundled teaching data: (file, the key of its names, the tool whose result covers them)
COURSE_DATA = (("weather_snapshot.json", "cities", "get_weather"),
               ("closing_prices.json", "stocks", "get_closing_price"))


@cache
def course_entries() -> dict[str, tuple[str, dict]]:
    """name -> (the tool whose result covers it, its entry) from the bundled teaching data; a
    file that cannot be read is left out. Example: course_entries()["广州"][0] -> "get_weather"
    """
    out: dict[str, tuple[str, dict]] = {}
    for file, key, tool in COURSE_DATA:
        try:
            data = json.loads((_DATA / file).read_text(encoding="utf-8"))[key]
            out.update({name: (tool, info) for name, info in data.items()
                        if isinstance(info, dict)})
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue  # the grader still works from the names in the run
    return out


@cache
def course_names() -> dict[str, tuple[str, ...]]:
    """name -> spellings from the bundled teaching data. Example: "广州" -> ("广州", "Guangzhou", …)

    Short latin aliases ("sh", "gz") are left out: "600519.SH" is not 上海.
    """
    out: dict[str, tuple[str, ...]] = {}
    for name, (_, info) in course_entries().items():
        spellings = [name, str(info.get("en") or ""), *map(str, info.get("aliases", []))]
        out[name] = tuple(s for s in spellings if len(s) >= (4 if s.isascii() else 2))
    return out


@dataclass
class Subject:
    """What the run fetched about one name: its tool results (normalised)."""

    name: str
    spellings: set[str] = field(default_factory=set)
    texts: list[str] = field(default_factory=list)

    @property
    def pool(self) -> Pool:
        return Pool({value(f) for t in self.texts for f in figures(t)})

    def gist(self) -> str:
        """The first result's opening, without its provenance tail.

        Example: "广州: 24.2°C (feels like 27.1°C), humidity 79%"
        """
        text = ", ".join(self.texts[0].split(" [")[0].split(", ")[:2])
        return text if len(text) <= 70 else text[:69] + "…"


def subjects(result: RunResult) -> dict[str, Subject]:
    """The names the run fetched data about, from its successful tool results."""
    out: dict[str, Subject] = {}
    for step in result.steps or []:
        for call in step.tool_calls or []:
            obs = normalise(call.observation or "")
            match = None if call.error else _SUBJECT.match(obs)
            if not match or match.group(1).strip() in (call.name, "Error", "error"):
                continue
            sub = out.setdefault(match.group(1).strip(), Subject(match.group(1).strip()))
            sub.texts.append(obs)
            args = call.arguments.values() if isinstance(call.arguments, dict) else []
            sub.spellings |= {n for a in args if (n := _name_arg(a))}
    return out


def _name_arg(arg) -> str | None:
    """A call argument that reads as a name ("广州", "Tsingtao Brewery"), stripped; None for a
    date, an expression, JSON, an identifier such as a tool's name (days_between(date2=
    "get_today"), the tenth round's t56) or anything too short or long.
    Example: _name_arg(" 北京 ") -> "北京"
    """
    name = arg.strip() if isinstance(arg, str) else ""
    return name if (2 <= len(name) <= 30 and not re.search(r"[\d{}\"]", name)
                    and not re.fullmatch(r"\w+_\w+", name, re.ASCII)) else None


def _key(name: str) -> str:
    return normalise(name).strip().casefold().removesuffix("市")


def names(subs: dict[str, Subject], extra: list[str | tuple[str, ...]] = ()) -> dict[str, set[str]]:
    """name -> spellings: the course's names, the run's subjects, and `extra` names (each a
    name or a tuple of spellings; joined to a known name when a spelling matches)."""
    out = {n: set(s) for n, s in course_names().items()}
    for sub in subs.values():
        out.setdefault(sub.name, set()).update({sub.name, *sub.spellings})
    for part in extra:
        home(part, out)
    # a spelling two names share ("Tsingtao": the city 青岛 and the stock) goes to the one the
    # run fetched
    taken = {_key(s) for n in subs for s in out[n] | {n}}
    return {n: {s for s in spellings | {n} if len(s.strip()) >= 2
                and (n in subs or n == s or _key(s) not in taken)}
            for n, spellings in out.items()}


def home(part: str | tuple[str, ...], known: dict[str, set[str]]) -> str:
    """The known name one of `part`'s spellings belongs to (added to `known` if new)."""
    spellings = {s for s in ([part] if isinstance(part, str) else part) if str(s).strip()}
    keys = {_key(s) for s in spellings}
    found = next((n for n, s in known.items() if keys & {_key(x) for x in s | {n}}), None)
    name = found or (part if isinstance(part, str) else next(iter(sorted(spellings)), ""))
    known.setdefault(name, set()).update(spellings)
    return name


def mentions(text: str, known: dict[str, set[str]]) -> list[tuple[int, int, str]]:
    """(start, end, name) of every mention in normalise(text), longest first, no overlaps:
    "青岛啤酒" is the stock, not the city 青岛."""
    text = normalise(text)
    hits = []
    for name, spellings in known.items():
        for s in map(normalise, spellings):
            pattern = rf"(?<![A-Za-z]){re.escape(s)}(?![A-Za-z])" if s.isascii() else re.escape(s)
            hits += [(m.start(), m.end(), name)
                     for m in re.finditer(pattern, text, re.IGNORECASE)]
    out, end = [], -1
    for start, stop, name in sorted(hits, key=lambda h: (h[0], h[0] - h[1])):
        if start >= end:
            out.append((start, stop, name))
            end = stop
    return out


# a name joined to a known one: "青岛啤酒和宁德时代的收盘价", "Kweichow Moutai and Ping An Insurance?"
_AND_ZH = re.compile(r"\s*(?:和|与|跟|及|、)\s*([\u4e00-\u9fff]{2,6}?)(?=的|现在|今天|昨天|目前|，|,|？|\?|。|哪|分别|两|$)")
_AND_EN = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+)((?:[A-Z][\w.&-]*)(?:\s+[A-Z][\w.&-]*){0,3})"
                     r"(?=\s*(?:'s\b|’s\b|\?|,|\.|$)|\s+(?:right|now|today|yesterday|stock|shares?|closing)\b)")

# the same, the unknown name first, at the start of the question or of a clause:
# "五粮液和贵州茅台的收盘价分别是多少？", "…of Ping An Insurance and Kweichow Moutai?"
_BEFORE_ZH = re.compile(r"(?:^|[，,。；;：:？?！!\s]|请问|比较|对比)([\u4e00-\u9fff]{2,6})\s*(?:和|与|跟|及|、)\s*$")
_BEFORE_EN = re.compile(r"(?:^|\b(?:of|between|for|about|compare|and|or)\s+|,\s*)"
                        r"((?:[A-Z][\w.&-]*)(?:\s+[A-Z][\w.&-]*){0,3})\s*(?:,\s*|\s+and\s+|\s+or\s+)$")

# words that open a question, not a name: cut from the front of a name found before a known one
_OPENER = re.compile(r"^(?:请问|比较一下|比较|对比|查一下|查询|告诉我|"
                     r"(?:What|Which|Who|How|Is|Are|Was|Were|Do|Does|Compare|Tell|Give|Between|"
                     r"Of|For|About|Please)\b\s*)+")

_NOT_A_NAME = re.compile(r"今|明|昨|前天|后天|现在|目前|这|那|其|别|所有|全部|平均|哪|(?i:the\b|today|now)")


def partners(question: str, known: dict[str, set[str]]) -> list[str]:
    """Names the question joins to a known name that are not known themselves: the stock the
    course has no data for ("青岛啤酒和宁德时代的收盘价分别是多少？" -> ["宁德时代"]), so an answer that
    covers only 青岛啤酒 has skipped a part even though no tool was ever asked about 宁德时代.

    It reads a name right after a known one and "和/与/、/and/or", or right before one when
    that name opens the question or a clause ("五粮液和贵州茅台…"); a list of unknown names is NOT
    found. Example: partners("What were the closing prices of Kweichow Moutai and Ping An
    Insurance?", names({})) -> ["Ping An Insurance"]
    """
    text = normalise(question)
    keys = {_key(s) for n, spellings in known.items() for s in spellings | {n}}
    out = []
    for start, end, _ in mentions(text, known):
        before = _BEFORE_ZH.search(text, 0, start) or _BEFORE_EN.search(text, 0, start)
        after = _AND_ZH.match(text, end) or _AND_EN.match(text, end)
        for name in (_OPENER.sub("", before.group(1)) if before else "",
                     after.group(1) if after else ""):
            if (len(name) >= 2 and _key(name) not in keys and not mentions(name, known)
                    and not _NOT_A_NAME.match(name)):
                out.append(name)
    return list(dict.fromkeys(out))


def asked(question: str, known: dict[str, set[str]]) -> list[str]:
    """The names a question asks about, in order, once each: its mentions of known names, then
    the `partners` joined to them. Example: asked("青岛啤酒和宁德时代的收盘价分别是多少？",
    names({})) -> ["青岛啤酒", "宁德时代"]"""
    return list(dict.fromkeys([*(n for _, _, n in mentions(question, known)),
                               *partners(question, known)]))


def asked_homes(question: str, known: dict[str, set[str]]) -> list[str]:
    """`asked`, each name as its entry in `known` (`home`); a partner, which has none, as it is.
    Example: asked_homes("Which is colder, Tianjin or Chengdu?", names({})) -> ["天津", "成都"]"""
    return [n if n in known else home(n, known) for n in asked(question, known)]


def spans(pattern: re.Pattern, text: str, offset: int = 0) -> list[tuple[int, int]]:
    """Cut `text` after each match of `pattern`: [(start, end), …] covering all of it."""
    cuts = [0, *(m.end() for m in pattern.finditer(text)), len(text)]
    return [(a + offset, b + offset) for a, b in itertools.pairwise(cuts) if b > a]


def clauses(text: str) -> list[tuple[int, int, tuple[int, int]]]:
    """(start, end, sentence span) of each clause of `text`."""
    return [(a, b, sent) for sent in spans(_SENTENCE, text)
            for a, b in spans(_CLAUSE, text[sent[0]:sent[1]], sent[0])]


# --- attribution --------------------------------------------------------------------------

# between a figure and the name it belongs to, when the name comes after: "22.7°C in Wuhan"
# the tail between a figure and "in City": its unit, then either a bracket of its own or the
# end of the bracket it stands in ("15.6°C (feels like 14.2°C) in Qingdao": both are Qingdao's)
_FIGURE_IN = re.compile(r"\s*(?:°C|℃|%|度|元|CNY)?\s*(?:\([^()]{0,40}\)|\))?\s*(?:in|at|for)\s+",
                        re.IGNORECASE)


def misattributed(answer: str, result: RunResult, subs: dict[str, Subject],
                  known: dict[str, set[str]]) -> list[tuple[str, str, list[str]]]:
    """(name, figure, owners): a clause about `name` carrying a figure that only other names'
    tool results give. Example: "广州 23.4°C" after "北京: 23.4°C …" -> [("广州", "23.4", ["北京"])]
    """
    text = normalise(answer)
    said, spans_ = mentions(text, known), figure_spans(text)
    mine = {t for s in subs.values() for t in s.texts}
    rest = [normalise(c.observation or "") for st in result.steps or [] for c in st.tool_calls
            or [] if not c.error]
    general = Pool({value(f) for t in [*rest, result.question or ""] if t not in mine
                    for f in figures(t)})  # the question, calculator and date results
    pools = {n: s.pool for n, s in subs.items()}
    found, owner, sentence = [], None, None
    for start, end, sent in clauses(text):
        if re.search(r"分别|respectively", text[sent[0]:sent[1]], re.IGNORECASE):
            continue  # "北京、上海、广州分别是23.4°C、19.8°C和24.2°C": names and figures in order
        named = {n for a, _, n in said if start <= a < end}
        if sent != sentence:
            owner, sentence = None, sent  # a clause naming nobody continues the one before
        before = owner  # figures ahead of the clause's name still belong to the one before:
        # "Chengdu is colder, with 20.3°C (feels like 20.6°C) compared to Tianjin's 21.2°C"
        first = min((a for a, _, n in said if start <= a < end), default=end)
        owner = next(iter(named)) if len(named) == 1 else (owner if not named else None)
        if re.search(r"\d\s*[-+*/×÷=]\s*[\d(]", text[start:end]):
            continue  # "(23.4 + 19.8 + 24.2) / 3": a calculation's operands belong to many
        if re.search(r"\d\s*(?:对|vs\.?|versus|比)\s*\d", text[start:end], re.IGNORECASE):
            continue  # "（1488.21 对 67.92）": two sides of a comparison, side by side
        for a, b, fig in spans_:
            v = value(fig)
            whose = before if a < first else owner
            if a < first and _FIGURE_IN.fullmatch(text[b:first]):
                whose = next(n for x, _, n in said if x == first)  # "22.7°C in Wuhan"
            if not start <= a < end or whose is None or general.supports(v):
                continue
            if whose in pools and pools[whose].supports(v):
                continue
            owners = [n for n, p in pools.items() if n != whose and p.supports(v)]
            if owners:
                found.append((whose, fig, owners))
    return found


def lookup_errors(result: RunResult, subs: dict[str, Subject]) -> dict[str, list[str]]:
    """name -> the error of each of its lookups, for a name every lookup of which failed: the
    string argument of a call that raised (an unknown stock, a tool down for good), when no
    successful result is about that name. A call held back ("Not run: …") is not a lookup.

    Example: get_weather("上海") failing twice -> {"上海": ["the data service is down …", "…"]}
    """
    fetched = {_key(s) for sub in subs.values() for s in sub.spellings | {sub.name}}
    out: dict[str, list[str]] = {}
    for step in result.steps or []:
        for call in step.tool_calls or []:
            obs = (call.observation or "").strip()
            if not call.error or obs.startswith("Not run") or not isinstance(call.arguments, dict):
                continue
            why = _ERROR_PREFIX.sub("", obs)  # "Error: get_closing_price failed: ValueError: "
            why = re.split(r"(?<=[.。])\s", why, maxsplit=1)[0].rstrip(".。")[:80]
            for arg in call.arguments.values():
                if (name := _name_arg(arg)) and _key(name) not in fetched:
                    out.setdefault(name, []).append(why)
    return out


def failed_lookups(result: RunResult, subs: dict[str, Subject]) -> dict[str, str]:
    """name -> the error of its first lookup, for a name every lookup of which failed
    (`lookup_errors`).

    Example: get_closing_price("宁德时代") -> "Error: … no closing price for '宁德时代'. …"
             -> {"宁德时代": "no closing price for '宁德时代'"}
    """
    return {name: errors[0] for name, errors in lookup_errors(result, subs).items()}


def failed_names(result: RunResult, subs: dict[str, Subject],
                 known: dict[str, set[str]]) -> dict[str, list[str]]:
    """`lookup_errors` keyed by known name: a call's argument is matched to the known name it
    spells ("Kweichow Moutai" -> 贵州茅台); an argument that spells none stays as it is."""
    out: dict[str, list[str]] = {}
    for arg, errors in lookup_errors(result, subs).items():
        hit = mentions(arg, known)
        whole = len(hit) == 1 and hit[0][1] - hit[0][0] >= len(normalise(arg).strip()) - 1
        out.setdefault(hit[0][2] if whole else arg, []).extend(errors)
    return out


def unfetched(answer: str, result: RunResult, subs: dict[str, Subject],
              known: dict[str, set[str]]) -> list[tuple[str, str, str]]:
    """(name, figure, error): a figure the answer gives a name whose lookup failed, when the
    question does not give it. A calculation does not make it that name's reading:
    "青岛啤酒和宁德时代的收盘价分别是67.92和33.96" after get_closing_price("宁德时代") failed and
    calculator("(67.92 + 0) / 2") -> [("宁德时代", "33.96", "no closing price for '宁德时代'")]

    A clause's figures go to the nearest name before them; names listed first and figures after
    ("A and B were x and y", "A、B分别是x和y") are paired in order.
    """
    failed = failed_lookups(result, subs)
    if not failed:
        return []
    text = normalise(answer)
    table = {n: set(s) for n, s in known.items()}
    # a failed spelling joined to a known name; none when that name's data came back under
    # another spelling ("Tsingtao Brewery" timed out, then "青岛啤酒" answered)
    homes = {h: n for n in failed if (h := home(n, table)) not in subs}
    given = Pool({value(f) for f in figures(result.question or "")})
    said, spans_ = mentions(text, table), figure_spans(text)
    found = []
    for sent in spans(_SENTENCE, text):
        named = [(a, n) for a, _, n in said if sent[0] <= a < sent[1]]
        figs = [(a, f) for a, _, f in spans_ if sent[0] <= a < sent[1]]
        if not named or not figs or not any(n in homes for _, n in named):
            continue
        last = max(b for a, b, _ in said if sent[0] <= a < sent[1])
        items = listed(text, last, sent[1]) if len(named) > 1 and figs[0][0] >= last else []
        if len(named) > 1 and len(figs) == len(named) and figs[0][0] > named[-1][0]:
            pairs = [(n, f) for (_, n), (_, f) in zip(named, figs, strict=True)]
        elif len(items) == len(named):  # "分别是67.92 CNY和没有数据": an item without a figure
            pairs = [(n, f) for (_, n), (a, b) in zip(named, items, strict=True)
                     for at, f in figs if a <= at < b]
        else:  # each figure belongs to the last name before it in its clause
            pairs = []
            for start, end, _ in clauses(text[sent[0]:sent[1]]):
                start, end = start + sent[0], end + sent[0]
                owner = None
                for a, kind, item in sorted([(a, 0, n) for a, n in named if start <= a < end]
                                            + [(a, 1, f) for a, f in figs if start <= a < end]):
                    if kind == 0:
                        owner = item
                    elif owner is not None:
                        pairs.append((owner, item))
        for n, f in pairs:
            if n in homes and not given.supports(value(f)):
                found.append((homes[n], f, failed[homes[n]]))
    return list(dict.fromkeys(found))


# one item of a list: 和/与/、/及/以及, "and", "or", a comma not inside a number, a semicolon
_ITEM = re.compile(r"以及|(?<!暖)和|[与、；;]|,(?!\d)|，|\s+(?:and|or)\s+", re.IGNORECASE)


def listed(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The items of the list in text[start:end], as spans: "的收盘价分别是67.92 CNY和没有数据"
    -> two items, the second without a figure. Empty items are dropped."""
    return [(a, b) for a, b in spans(_ITEM, text[start:end], start) if text[a:b].strip(" ,，、和与")]


# --- comparisons --------------------------------------------------------------------------

_WORDS = {
    "up": ["more expensive", "pricier", "higher", "greater", "larger", "bigger", "warmer",
           "hotter", "more humid", "highest", "most expensive", "warmest", "hottest",
           "most humid", "largest", "更高", "较高", "高于", "更贵", "较贵", "更暖和", "更暖",
           "更温暖", "更热", "较热", "更潮湿", "更湿", "更大", "最高", "最贵", "最热", "最暖和",
           "最暖", "最温暖", "最潮湿"],
    "down": ["less expensive", "cheaper", "lower", "smaller", "colder", "cooler", "less humid",
             "drier", "lowest", "cheapest", "coldest", "coolest", "driest", "更低", "较低",
             "低于", "更便宜", "较便宜", "更冷", "较冷", "更凉", "更干燥", "更小", "最低",
             "最便宜", "最冷", "最干燥"],
    "better": ["better", "best", "更好", "较好", "好于", "更优", "更佳", "更清新", "最好", "最佳"],
    "worse": ["worse", "worst", "更差", "较差", "差于", "更糟", "最差"],
}
BI_ADJ = {"高": "up", "贵": "up", "暖和": "up", "温暖": "up", "暖": "up", "热": "up",
           "潮湿": "up", "湿": "up", "低": "down", "便宜": "down", "冷": "down", "凉": "down",
           "干燥": "down", "好": "better", "差": "worse"}
_COMPARE = re.compile("|".join(map(re.escape, sorted(itertools.chain(*_WORDS.values()),
                                                     key=len, reverse=True))), re.IGNORECASE)
_BI = re.compile(r"比([^，,。；;！!？?\n]{1,24}?)(?:更|还|要)?("
                 + "|".join(sorted(BI_ADJ, key=len, reverse=True)) + ")")
# a bare adjective after the quantity, at the end of a clause: "青岛啤酒的收盘价贵。" (not
# "收盘价高1420.29", a difference, and never the 贵 of 贵州)
_BARE = re.compile(r"(?:收盘价|价格|股价|气温|温度|湿度)(?:要)?(贵|便宜|高|低|暖和|冷|热)"
                   r"(?=[，,。；;！!\s]|$|了|一些|些)")
# quantity -> (words that name it, how to read it from a tool result)
QUANTITIES = {
    "AQI": (r"AQI|air|空气|污染", r"AQI\s*[:：]?\s*(\d+(?:\.\d+)?)"),
    "humidity": (r"humid|dri|湿|干燥", r"(?:humidity|湿度)\s*[:：]?\s*(\d+(?:\.\d+)?)\s*%"),
    "temperature": (r"temperat|warm|hot|cold|cool|degree|°C|气温|温度|暖|热|冷|凉",
                    r"(-?\d+(?:\.\d+)?)\s*°C"),
    "closing price": (r"pric|expensive|cheap|cost|价|贵|便宜",
                      r"(?:closing price|收盘价)\s*[:：]?\s*(\d+(?:\.\d+)?)"),
}


def _direction(word: str) -> str:
    """The direction (a key of _WORDS) of a comparison word _COMPARE found. Example:
    _direction("Colder") -> "down"
    """
    return next(d for d, ws in _WORDS.items() if word.casefold() in ws)


def _winner(values, direction: str) -> str | None:
    """The one name whose reading wins in `direction` ("higher" wins with the larger value; on
    the AQI scale "better" with the smaller), or None when two tie.
    Example: _winner((("北京", 23.4), ("上海", 19.8)), "down") -> "上海"
    """
    best = (max if direction in ("up", "worse") else min)(v for _, v in values)
    winners = [n for n, v in values if v == best]
    return winners[0] if len(winners) == 1 else None


def quantity(*texts: str) -> str | None:
    """The first quantity the texts name. Example: quantity("更高", "收盘价更高") -> "closing price"."""
    for text in texts:
        for q, (words, _) in QUANTITIES.items():
            if re.search(words, text or "", re.IGNORECASE):
                return q
    return None


def reading(sub: Subject, q: str | None) -> Decimal | None:
    """A subject's value of quantity `q` (None: the first figure after its name's colon)."""
    pattern = QUANTITIES[q][1] if q else r"[:：]\s*(-?\d+(?:\.\d+)?)"
    for text in sub.texts:
        m = re.search(pattern, text, re.IGNORECASE)
        if m:
            return Decimal(m.group(1))
    return None


def claims(text: str, known: dict[str, set[str]]):
    """(claimed name, other names, direction, word, clause) for each comparison stated.

    Example: "青岛啤酒的收盘价更高" -> ("青岛啤酒", [], "up", "更高", "青岛啤酒的收盘价更高")
    """
    said = mentions(text, known)
    for c0, c1, (s0, s1) in clauses(text):
        if text[s0:s1 + 1].rstrip().endswith(("?", "？")):
            continue  # a question echoed back claims nothing
        clause, in_sent = text[c0:c1], [(a, n) for a, _, n in said if s0 <= a < s1]
        found = [(m.start(), m.end(), m.group(2), BI_ADJ[m.group(2)], m.group(1))
                 for m in _BI.finditer(clause)]
        covered = [(a, b) for a, b, *_ in found]
        found += [(m.start(), m.end(), m.group(), _direction(m.group()), None)
                  for m in _COMPARE.finditer(clause)
                  if not any(a <= m.start() < b for a, b in covered)]
        found += [(m.start(1), m.end(1), m.group(1), BI_ADJ[m.group(1)], None)
                  for m in _BARE.finditer(clause)
                  if not any(a <= m.start(1) < b for a, b, *_ in found)]
        for start, end, word, direction, middle in found:
            if re.search(r"(?:\bnot|n't|不|没有?)\s*\S{0,2}$", clause[:start], re.IGNORECASE):
                continue
            if middle is not None:  # A 比 B 高: A is claimed, B is the other
                others = [n for _, _, n in mentions(middle, known)]
                if not others:
                    continue  # 比较 ("rather"), 比起来: there is no B
            else:
                than = re.search(r"\bthan\b(.*)", clause[end:], re.IGNORECASE)
                others = [n for _, _, n in mentions(than.group(1), known)] if than else []
            near = [n for a, n in in_sent if c0 <= a < c0 + start and n not in others]
            before = [n for a, n in in_sent if a < c0 + start and n not in others]
            after = [n for a, n in in_sent if a >= c0 + end and n not in others]
            claimed = (near or before)[-1] if near or before else (after or [None])[0]
            if middle is None and re.search(r"\bthan\b", clause[:start], re.IGNORECASE):
                # "warmer than the coldest city (Nanjing)": the word after "than" describes
                # the other side, the name that follows it
                claimed = after[0] if after else None
            if re.search(r"前者|the former", clause, re.IGNORECASE) and before:
                claimed = before[0]  # "A …, B …, 前者更高": A
            if claimed is not None:
                others = [n for n in dict.fromkeys(others or [n for _, n in in_sent])
                          if n != claimed]
                yield claimed, others, direction, word, clause


@dataclass(frozen=True)
class Contradiction:
    """A comparison the fetched readings contradict: `claimed` is said to be `word`, but
    `values` (name, reading) say otherwise; `winner` is who is, when exactly one name is.
    `missing` lists compared names with no tool result (then `values` is empty)."""

    claimed: str
    word: str
    quantity: str | None = None
    values: tuple[tuple[str, Decimal], ...] = ()
    winner: str | None = None
    missing: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.missing:
            return (f'the answer says {self.claimed} is "{self.word}", but no tool result for '
                    f"{' or '.join(self.missing)} came back")
        mine, *theirs = self.values
        got = ", ".join(f"{n} {v}" for n, v in theirs)
        tail = " (a lower AQI is better)" if self.quantity == "AQI" else ""
        if self.winner:  # a small model told only "your comparison is wrong" repeats it
            tail += f', so it is {self.winner}, not {self.claimed}, that is "{self.word}"'
        return (f'the answer says {self.claimed} is "{self.word}" '
                f"({self.quantity or 'the first figure'}), but the tool results give "
                f"{self.claimed} {mine[1]} and {got}{tail}")


# a question that asks which one: 哪个/哪里/哪座…, 谁, which, whose, who
_WHICH = re.compile(r"哪|\b(?:which|whose|who)\b|谁", re.IGNORECASE)


def asked_comparison(question: str, subs: dict[str, Subject],
                     known: dict[str, set[str]]) -> Contradiction | None:
    """The comparison a "which one" question asks, settled by the fetched readings: the
    question's first comparison word, the names it asks about (at least two, each with a
    reading of that quantity) and the one they make the winner; None when the question asks
    no such thing, a reading is missing, or two names tie.

    Example: asked_comparison("北京和上海现在哪个更冷？", subs after 北京 23.4 and 上海 19.8, known)
             -> Contradiction("上海", "更冷", "temperature", (("北京", 23.4), ("上海", 19.8)), "上海")
    """
    text = normalise(question or "")
    word = _COMPARE.search(text)
    if not word or not _WHICH.search(text):
        return None
    direction = _direction(word.group())
    q = quantity(word.group(), text)
    if direction in ("better", "worse") and q != "AQI":
        return None  # "better" needs a scale that says which way is better
    asked_here = asked_homes(text, known)
    if len(asked_here) < 2 or any(n not in subs for n in asked_here):
        return None
    values = tuple((n, reading(subs[n], q)) for n in asked_here)
    if any(v is None for _, v in values) or (winner := _winner(values, direction)) is None:
        return None
    return Contradiction(winner, word.group(), q, values, winner)


def comparison(answer: str, result: RunResult, subs: dict[str, Subject],
               known: dict[str, set[str]]) -> str | None:
    """The first comparison of `answer` that the fetched readings contradict, in words."""
    found = contradiction(answer, result, subs, known)
    return str(found) if found else None


def contradiction(answer: str, result: RunResult, subs: dict[str, Subject],
                  known: dict[str, set[str]]) -> Contradiction | None:
    """The first comparison of `answer` that the fetched readings contradict, or None.

    A claim that names no other side ("Tianjin is colder") is compared with the other names the
    question asks about, when the claimed name is one of them and another was fetched; with
    every other fetched name otherwise. Measured on the suite's native t38 ("天津和成都…哪个更冷",
    北京 fetched by mistake before 天津): "the city with the higher temperature is Tianjin" is
    right between the two asked about, and was failed against 北京's reading.
    """
    asked_here = asked_homes(result.question or "", known)
    for claimed, others, direction, word, clause in claims(normalise(answer), known):
        q = quantity(word, clause, result.question or "")
        if direction in ("better", "worse") and q != "AQI":
            continue  # "better" needs a scale that says which way is better
        missing = [n for n in [claimed, *others] if n not in subs]
        if missing:
            return Contradiction(claimed, word, q, missing=tuple(missing))
        mine = reading(subs[claimed], q)
        rest = [n for n in subs if n != claimed]
        if claimed in asked_here and (in_question := [n for n in rest if n in asked_here]):
            rest = in_question
        theirs = [(n, reading(subs[n], q)) for n in others or rest]
        theirs = [(n, v) for n, v in theirs if v is not None]
        if mine is None or not theirs:
            continue
        # "higher" wins with the larger value; on the AQI scale "better" wins with the smaller
        larger = direction in ("up", "worse")
        if any(v >= mine if larger else v <= mine for _, v in theirs):
            values = ((claimed, mine), *theirs)
            return Contradiction(claimed, word, q, values, _winner(values, direction))
    return None
