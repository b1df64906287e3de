"""A call with a made-up value: a required argument holds a number or a name the conversation never wrote.

Measured on BFCL's irrelevance cases (a question none of the offered functions can answer):
the 1.5B calls a function anyway, about half the time, and fills the arguments it has no
value for with values of its own — `regression_model.predict(features=[100000, 2000, …])` for
"the average house price in California", `probability_coin_toss_heads(coin_tosses=52)` for a
face card in a deck, `grocery_store.item_details(store_location="New York")` for the calories
in a tomato. A value the user never wrote, no tool returned and no earlier call used is one
the model invented; a tool run with it answers a question nobody asked. So the server's help
(`chat.Turn`, under `tool_choice` "auto") does not return such a call, and when no call is
left it asks the model once more without tools (`note` says why).

What counts as written: every number in the conversation's text — user, system and tool
messages, the assistant's text and its earlier calls' arguments — in digits ("1,500", "2.5",
"50%" also as 0.5, a sign ignored, "$1.2M" also as 1200000) or as a common word ("two",
"dozen", "half", 两); a period also writes its length ("next week" 7, "a decade" 10). Only
*required* arguments are checked (an optional one the model fills is the tool's default at
worst). Numbers are judged in arguments whose schema allows more than a string or a boolean
(`made_up`). Strings (`made_up_names`) only where a fair rewording cannot be told from an
invention by the letters alone is ruled out: a name in Latin letters is written when one of its
words starts a word of the conversation ("tomatoes", "the local store"; "GBP" by "pounds",
`more_calls.Written`; words such as "the" and "of" do not count, so "The Old Man with the
Garden" is not written by "the year of a painting"), a description of five words or more
(digits allowed) when at least half of its words are, a `YYYY-MM-DD` date when its year is; an
enum's value, shorter text with digits or symbols (an expression), text in Chinese or Japanese
(a translated name: the course's tools take "北京" for Beijing) and any conversation with such
text are not judged. What this module
does NOT do: check the arithmetic of a value the model computed from written numbers (a
converted unit is dropped too), or know the world ("AAPL" for Apple, California for San
Francisco are dropped: the price of these rules, measured on BFCL's simple and multiple cases
in `benchmarks/results/bfcl_notes.md`), or judge types or the choice of tool.
Introduced in notebook 09 (the server's help); the pieces are pure, `chat.Turn` runs them.
"""
from __future__ import annotations

import json
import re
from typing import Any

from reactlab.server.more_calls import Written, leaves, question_numbers
from reactlab.server.parameters import properties_of, required_names
from reactlab.server.template import content_text

MAX_TEXT = 200_000  # characters of the conversation read for numbers (a bound)
DESCRIPTION_WORDS = 5  # words (not counting "the", "of", …) that make text a description

_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
    "million": 1_000_000, "billion": 1_000_000_000, "dozen": 12, "half": 0.5,
    "quarter": 0.25, "once": 1, "twice": 2, "double": 2, "triple": 3, "pair": 2, "couple": 2,
    "single": 1, "first": 1, "second": 2, "third": 3,
}
_WORD = re.compile(r"\b(" + "|".join(sorted(_WORDS, key=len, reverse=True)) + r")s?\b",
                   re.IGNORECASE)
# a number with a magnitude after it ("$1.2M", "5k", "3 billion") also writes the product
_SCALED = re.compile(r"(\d+(?:\.\d+)?)\s*(k|m|mm|b|bn|thousand|million|billion|trillion)\b",
                     re.IGNORECASE)
_SCALES = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mm": 1e6, "million": 1e6, "b": 1e9,
           "bn": 1e9, "billion": 1e9, "trillion": 1e12}
# a period names its length in the next smaller units ("next week" -> 7 days)
_PERIODS = {"minute": (60,), "hour": (60,), "day": (24,), "week": (7,), "fortnight": (14,),
            "month": (30, 4), "quarter": (3,), "year": (12, 52, 365), "decade": (10,),
            "century": (100,)}
_PERIOD = re.compile(r"\b(" + "|".join(_PERIODS) + r")(?:s|ly)?\b", re.IGNORECASE)
_CHINESE = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
            "七": 7, "八": 8, "九": 9, "十": 10, "百": 100, "千": 1000, "万": 10_000,
            "半": 0.5}


def _texts(messages: list[dict]) -> list[str]:
    """Every text of the conversation, as the model reads it, and its calls' arguments."""
    out = []
    for m in messages:
        if not isinstance(m, dict):
            continue
        out.append(content_text(m.get("content")))
        for call in m.get("tool_calls") or []:
            args = (call.get("function") or {}).get("arguments") if isinstance(call, dict) else None
            if isinstance(args, str):
                out.append(args)
    return out


def written_numbers(messages: list[dict]) -> set[float]:
    """The numbers the conversation writes, as values (at most MAX_TEXT characters read).

    Example: written_numbers([{"role": "user", "content": "two tickets at 1,500 yuan, 5% off"}])
             -> {2.0, 1500.0, 5.0, 0.05}
    """
    out: set[float] = set()
    left = MAX_TEXT
    for text in _texts(messages):
        text = text[:left]
        left -= len(text)
        out |= question_numbers(text, limit=MAX_TEXT)
        out |= {float(_WORDS[w.group(1).lower()]) for w in _WORD.finditer(text)}
        out |= {round(float(m.group(1)) * _SCALES[m.group(2).lower()], 9)
                for m in _SCALED.finditer(text)}
        out |= {float(n) for m in _PERIOD.finditer(text) for n in _PERIODS[m.group(1).lower()]}
        out |= {float(v) for ch, v in _CHINESE.items() if ch in text}
        if left <= 0:
            break
    return out


def _numbers(value: Any) -> list[int | float]:
    """The numbers inside an argument value (booleans are not numbers here).
    Example: _numbers({"a": [1, "x", True, 2.5]}) -> [1, 2.5]"""
    return [v for v in leaves(value) if isinstance(v, (int, float)) and not isinstance(v, bool)]


def required_of(tools: list[dict], name: str) -> list[str]:
    """The required arguments of tool `name` in a request's `tools` that may hold a number:
    those whose schema type is not only "string" or "boolean" ([] if none or unknown).

    Example: required_of([{"type": "function", "function": {"name": "f", "parameters":
             {"type": "object", "properties": {"x": {"type": "integer"}, "s": {"type":
             "string"}}, "required": ["x", "s"]}}}], "f") -> ["x"]
    """
    props = properties_of(tools, name)
    out = []
    for r in required_names(tools, name):
        kind = (props.get(r) or {}).get("type") if isinstance(props.get(r), dict) else None
        kinds = set(kind) if isinstance(kind, list) else {kind}
        if not kinds <= {"string", "boolean", "null"}:
            out.append(r)
    return out


def made_up(arguments: str, required: list[str], written: set[float]) -> list[tuple[str, Any]]:
    """The (argument, number) pairs of a call's required arguments that are not `written`.

    Example: made_up('{"coin_tosses": 52, "coin_type": "fair"}', ["coin_tosses"], {1.0})
             -> [("coin_tosses", 52)]
    """
    try:
        args = json.loads(arguments) if arguments.strip() else {}
    except (ValueError, RecursionError):
        return []  # not JSON: the parser's business, not this rule's
    if not isinstance(args, dict):
        return []
    out = []
    for name in required:
        for n in _numbers(args.get(name)):
            try:
                key = round(abs(float(n)), 9)
            except (OverflowError, ValueError):
                key = None
            if key not in written:
                out.append((name, n))
    return out


def text_required_of(tools: list[dict], name: str) -> dict[str, frozenset[str]]:
    """The required arguments of tool `name` that may hold a string (a string or a list of
    them), each with its enum's values ({} if none or unknown).

    Example: text_required_of([{"type": "function", "function": {"name": "f", "parameters":
             {"type": "object", "properties": {"city": {"type": "string"}, "n": {"type":
             "integer"}}, "required": ["city", "n"]}}}], "f") -> {"city": frozenset()}
    """
    props = properties_of(tools, name)
    out = {}
    for r in required_names(tools, name):
        prop = props.get(r)
        if not isinstance(prop, dict):
            continue
        items = prop.get("items") if isinstance(prop.get("items"), dict) else {}
        kinds = {str(k) for k in _listed(prop.get("type"))}
        if "string" in kinds or ("array" in kinds and "string" in _listed(items.get("type"))):
            enum = [*_listed(prop.get("enum")), *_listed(items.get("enum"))]
            out[r] = frozenset(str(e) for e in enum if e is not None)
    return out


def _listed(value: Any) -> list:
    return value if isinstance(value, list) else [value]


def written_text(messages: list[dict]) -> Written:
    """The conversation's text (`_texts`, at most MAX_TEXT characters), for `made_up_names`."""
    return Written("\n".join(_texts(messages)), limit=MAX_TEXT)


def made_up_names(arguments: str, required: dict[str, frozenset[str]], written: Written,
                  numbers: set[float]) -> list[tuple[str, str]]:
    """The (argument, text) pairs of a call's required string arguments that name what the
    conversation never wrote: a name in Latin letters none of whose words (their first four
    letters; "the", "of" and the like not counted) starts a word of the conversation, a
    description (DESCRIPTION_WORDS such words or more, digits and symbols allowed) most of whose
    words start none, or a `YYYY-MM-DD` date whose year is not among its `numbers`. Not judged:
    an enum's value, text with CJK characters (a translated name, "北京" for Beijing), shorter
    text with digits or symbols (an expression), and everything in a conversation that has CJK
    text.

    Example: made_up_names('{"item_name": "tomato", "store_location": "New York"}',
             {"item_name": frozenset(), "store_location": frozenset()},
             Written("How many calories are in a tomato?"), set())
             -> [("store_location", "New York")]
    """
    try:
        args = json.loads(arguments) if arguments.strip() else {}
    except (ValueError, RecursionError):
        return []
    if not isinstance(args, dict) or _CJK.search(written.words):
        return []
    out = []
    for name, enum in required.items():
        for value in leaves(args.get(name)):
            if isinstance(value, str) and value not in enum and not _named(value, written, numbers):
                out.append((name, value))
    return out


def _named(value: str, written: Written, numbers: set[float]) -> bool:
    text = value.strip()[:200]
    date = _ISO.fullmatch(text)
    if date:
        return float(date.group(1)) in numbers
    if _CJK.search(text) or written.has(text):
        return True
    found = _NAME_WORD.findall(text)
    words = [w for w in found if w.casefold() not in _FUNCTION_WORDS]
    seen = sum(bool(re.search(r"\b" + re.escape(w[:4].casefold()), written.words)) for w in words)
    if _NAME.fullmatch(text):  # a name or a kind: one written word of it is enough
        return seen > 0 or (bool(found) and not words)  # "The Who": nothing left to judge
    # a description, digits allowed: made up when most of its words are new; shorter text
    # with digits or symbols (an expression, a code) is not judged
    return len(words) < DESCRIPTION_WORDS or 2 * seen >= len(words)


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_ISO = re.compile(r"(\d{4})-\d{1,2}-\d{1,2}")
_NAME = re.compile(r"[^\W\d_]+(?:[ _'\-.&]+[^\W\d_]+){0,7}")  # words only: a name, a kind
_NAME_WORD = re.compile(r"[^\W\d_]{3,}")
# words that name nothing: "The Old Man with the Garden" is not written by "the year of a painting"
_FUNCTION_WORDS = frozenset({
    "the", "and", "for", "nor", "but", "yet", "with", "without", "from", "into", "onto", "upon",
    "that", "this", "these", "those", "its", "our", "your", "their", "his", "her", "hers",
    "him", "she", "they", "them", "you", "are", "was", "were", "been", "being", "has", "have",
    "had", "does", "did", "not", "all", "any", "some", "what", "which", "who", "whom", "whose",
    "how", "when", "where", "why", "per", "via", "than", "then", "there", "here", "also",
    "about", "over", "under", "after", "before", "between", "each", "every", "other", "such",
    "only", "just", "can", "will", "may", "might", "shall", "should", "would", "could", "out",
    "off", "own", "same", "very"})


def note(calls: list[tuple[str, str, list[tuple[str, Any]]]]) -> dict:
    """The system message added before the retry without tools.

    Example: note([("f", '{"x": 52}', [("x", 52)])])["content"]
             -> 'The call f({"x": 52}) was not made: x = 52 is written nowhere in the …'
    """
    said = " ".join(
        f"The call {name}({args}) was not made: "
        + ", ".join(f"{arg} = {value}" for arg, value in values)
        + " is written nowhere in the conversation." for name, args, values in calls)
    return {"role": "system", "content": f"{said} Answer the user in plain text without "
            "calling a tool; if a value you need is missing, ask the user for it."}


__all__ = ["DESCRIPTION_WORDS", "MAX_TEXT", "made_up", "made_up_names", "note", "required_of",
           "text_required_of", "written_numbers", "written_text"]
