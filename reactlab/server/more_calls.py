"""More calls after a complete one: the server opens the next `<tool_call>` for the model.

Measured on BFCL's parallel cases: the 1.5B writes one call and ends its turn, with a
probability of 0.98–1.00 of ending right after the first call, on questions that need two
calls and on questions that need one alike ("What's the weather like in Boston and in San
Francisco?" gets Boston only). Waiting for a second call gets nothing. So, where a request
allows parallel calls, the server writes the template's own `<tool_call>` opening after the
model's calls and lets the model fill it in. It is part of the server's help (`assist`): on
unless the request says `"reactlab_more_calls": false` or `"reactlab_help": false`, or the server
was started with `--no-more-calls` or `--no-help`; a request with the help off may still ask for
it with `"reactlab_more_calls": true` (the course's native agent does under `Guards.more_calls`).
Given that opening, the model often writes the rest of its calls at once (a call, a stray
fence closing, then one fenced call after another); each is kept, in order, only if

- it parses as a call of one of the request's tools (when the token cap cut the opened text,
  its last parsed call is dropped: it may be a cut one the parser repaired),
- it is not one the reply already has (a repeat is how the model says "nothing more"), and
- every value in it that the reply's earlier calls did not write appears in the last user
  message (`grounded`: "San Francisco, CA" counts when the question says San Francisco; text
  is compared as BFCL's checker compares it, so "total_points" counts for "total points"; an
  ISO date counts for the date however the question writes it, "USD" for "US dollars"; a
  number counts by its value, not as text: "50%" grounds 0.5 and "- 7" grounds -7, but the
  "1" inside "10" grounds nothing). A function the reply has not called yet is judged by the
  new values of its required arguments, so an optional `"lang": "English"` does not sink a
  right call; one made only of earlier values is kept when the question asks for it (a word of
  its name, `asked_for`) and writes its required values (the Fibonacci count after the primes
  up to the same 150). A function the reply has
  called already is judged whole: a new combination of earlier values is how the model pads a
  finished reply, unless the combination is another function's earlier call (`paired`: the
  angle of the second pair of points after their distance).

It stops at the first call it does not keep, and at the request's cap on calls; when every call
in an opened tag was kept, it opens the next one. The last rule is what separates a second
city the question names from a value the model makes up when it is pushed to write a call no
question asked for. What this module does NOT do: decide when to try (`chat.Turn`: only under
`tool_choice` "auto" without `reactlab_choice`, with `parallel_tool_calls` true, after a reply
that made a call), or check argument types (the schema does not constrain the continuation). Measured in
`benchmarks/results/bfcl_notes.md` (BFCL's parallel cases: 0/24 without it, 11/24 with it, at
about 1.7 times the time per case; 15/24 with the spelling and required-argument rules and
`unpack`; 17/24 with the asked-for and paired rules and dotted names) and `frameworks.md`. The course's agents switch the
help off, so their runs never meet it; the raw requests of notebooks 05–07 do (05's parallel
calls meet it, and notebook 09 lists it with the rest of the help).
"""

from __future__ import annotations

import json
import re
from typing import Any

from reactlab.server.template import content_text

OPEN = "<tool_call>\n"
# written after OPEN too: with only the tag opened, the 1.5B ends its turn at once (BFCL's
# parallel cases: an empty reply in the opened tag), so the call's first key is written for it
PREFILL = '{"name": "'
CLOSE = "</tool_call>"
MAX_QUESTION = 20_000  # characters of the last user message compared against (a bound)
MAX_TOKENS = 384  # per opened call (the model may write the rest of its calls in it)
# a number in the question, and whether a percent sign or word follows it
_GROUPED = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_NUMBER = re.compile(r"(\d[\d,]*(?:\.\d+)?|\.\d+)\s*(%|percent\b)?", re.IGNORECASE)
_STANDARD = re.compile(r"[\s,./\-_*^]")  # what BFCL's checker ignores in a string
_ORDINAL = re.compile(r"(\d)(?:st|nd|rd|th)\b", re.IGNORECASE)  # "18th" is 18
_NAME_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")  # "angleToXAxis": angle, To, X, Axis
_TOOL_VERBS = frozenset({"get", "set", "find", "fetch", "calculate", "calc", "compute", "search",
                         "retrieve", "lookup", "info", "details", "data"})
_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"]
# a currency code is a fair rewording of the currency's name (the names as regex word starts)
_CURRENCIES = {"usd": ("dollar", "us\\$"), "eur": ("euro",), "gbp": ("pound", "sterling"),
               "jpy": ("yen",), "cny": ("yuan", "renminbi", "rmb"), "inr": ("rupee",),
               "cad": ("canadian dollar",), "aud": ("australian dollar",),
               "chf": ("swiss franc",), "mxn": ("peso",), "rub": ("ruble", "rouble")}


def question_text(messages: list[dict]) -> str:
    """The text of the last user message as the model reads it (`template.content_text`: text
    parts joined as they are), at most MAX_QUESTION characters.

    Example: question_text([{"role": "user", "content": [{"type": "text", "text": "Hi"}]}])
             -> "Hi"
    """
    for m in reversed(messages):
        if m.get("role") != "user":
            continue
        return content_text(m.get("content"))[:MAX_QUESTION]
    return ""


def leaves(value: Any, depth: int = 0) -> list[Any]:
    """Every scalar inside an argument value, to a depth of 20.
    Example: leaves({"a": [1, "x"]}) -> [1, "x"]"""
    if depth > 20:
        return []
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in leaves(v, depth + 1)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in leaves(v, depth + 1)]
    return [value]


def _arguments(text: str) -> Any:
    try:
        return json.loads(text) if text.strip() else {}
    except (ValueError, RecursionError):
        return None


def _filled(value: Any) -> list[Any]:
    """The leaves of `value` that say something: not a flag, not null, not blank text."""
    return [v for v in leaves(value) if not isinstance(v, bool) and v is not None
            and str(v).strip()]


def _seen(earlier: list[str]) -> set[str]:
    """Every leaf of the `earlier` calls' arguments (JSON texts), as JSON text."""
    return {json.dumps(v) for e in earlier if (a := _arguments(e)) is not None
            for v in leaves(a)}


def grounded(arguments: str, earlier: list[str], question: str,
             judged: list[str] | None = None, asked: bool = False) -> bool:
    """Does every value of `arguments` (JSON text) that none of the `earlier` calls' arguments
    wrote appear in `question` (as `Written.has` reads it)? False when nothing in it is new, or it is not
    JSON. With `judged` (argument names) holding a new value, only the new values under those
    arguments must be in the question: the caller passes the required arguments of a function
    the reply has not called yet (BFCL's parallel_multiple_158: `get_song_lyrics` with an
    optional "lang": "English" no question names). When they only repeat earlier values, the
    whole call is judged (multiple_70: `get_culture` padded with "aspect": "literature"); a
    call with no new value at all is then grounded when the question asks for the function
    (`asked`, the caller's `asked_for`) and writes every value of its required arguments
    (parallel_multiple_6: `get_fibonacci_sequence(count=150)` after `find_prime_numbers(start=50,
    end=150)` for "… primes between 50 and 150. Then get the fibonacci series upto 150.", but
    not parallel_multiple_10's `concert_ticket_buy(artist="Mamma Mia")` after a musical's
    ticket). The same function again with only earlier values, a new combination of them, is
    not grounded: that is how the model pads a finished reply.

    Example: grounded('{"city": "San Francisco, CA"}', ['{"city": "Boston, MA"}'],
             "What's the weather like in Boston and in San Francisco?") -> True
    """
    args = _arguments(arguments)
    if args is None:
        return False
    seen = _seen(earlier)

    def new_in(value: Any) -> list[Any]:
        return [v for v in _filled(value) if json.dumps(v) not in seen]

    written = Written(question)
    if judged is not None and isinstance(args, dict):
        required = [args[k] for k in judged if k in args]
        new = new_in(required)
        if new:
            return all(written.has(v) for v in new)
        if not new_in(args):  # only earlier values: another function asked for with them?
            if not asked:
                return False
            values = _filled(required)
            return bool(values) and all(written.has(v) for v in values)
    new = new_in(args)
    return bool(new) and all(written.has(v) for v in new)


def name_words(name: str) -> set[str]:
    """The words of a function's name (snake_case or camelCase), lower case, 3 letters or more,
    without the verbs most tools' names share ("get", "calculate", …).
    Example: name_words("angleToXAxis_calculate") -> {"angle", "axis"}"""
    return {w.casefold() for w in _NAME_PART.findall(name) if len(w) >= 3} - _TOOL_VERBS


def asked_for(name: str, called: set[str], question: str) -> bool:
    """Does `question` ask for function `name` beside the functions already `called`: does a
    word of its name that theirs do not have start a word of the question?
    Example: asked_for("store_count", {"average_price"}, "how many stores carry it") -> True
    """
    own = name_words(name) - {w for c in called for w in name_words(c)}
    words = question[:MAX_QUESTION].casefold()
    return any(re.search(r"\b" + re.escape(w), words) for w in own)


def paired(arguments: str, earlier: list[str], others: list[str], required: list[str],
           question: str) -> bool:
    """Is this call of a function the reply has called already the next cell of a table the
    question asks for: the values of its `required` arguments (all written in `question`) are
    those of an earlier call of another function (`others`, their arguments), and every other
    value in it is in an `earlier` call or the question?

    BFCL's parallel_multiple_61 asks for the distance and the angle of two pairs of points; after
    distance(A), angle(A) and distance(B), `angleToXAxis_calculate(B)` holds only earlier values
    in a new combination, which `grounded` refuses (that is also how the model pads a finished
    reply: the same points swapped). Here it is the values of distance(B), under the same
    names. False when `required` is empty or an argument is not a JSON object.

    Example: paired('{"city": "NY"}', [...], ['{"city": "NY", "product": "guitar"}'], ["city"],
                    "guitars in Austin and NY") -> True
    """
    args = _arguments(arguments)
    if not isinstance(args, dict) or not required or any(k not in args for k in required):
        return False
    written = Written(question)
    if not all(written.has(v) for v in leaves([args[k] for k in required])
               if not isinstance(v, bool) and v is not None):
        return False
    same = [o for o in map(_arguments, others) if isinstance(o, dict)
            and all(k in o and o[k] == args[k] for k in required)]
    if not same:
        return False
    seen = _seen(earlier)
    rest = [args[k] for k in args if k not in required]
    return all(json.dumps(v) in seen or written.has(v) for v in _filled(rest))


class Written:
    """The question, read once for `grounded`: its numbers, and its text as BFCL's checker
    compares strings (case, spaces and ",./-_*^" ignored: "total_points" is written by "total
    points", "Jan 18, 2021" by "January 18th, 2021")."""

    def __init__(self, question: str, limit: int = MAX_QUESTION) -> None:
        question = question[:limit]
        self.numbers = question_numbers(question, limit)
        self.words = question.casefold()
        self.text = standard(_ORDINAL.sub(r"\1", question), limit)

    def has(self, value: Any) -> bool:
        if isinstance(value, (int, float)):
            return _key(abs(value)) in self.numbers
        text = str(value).split(",")[0].strip()  # "San Francisco, CA": San Francisco
        if standard(text) and standard(text) in self.text:
            return True
        date = _DATE.fullmatch(str(value).strip())
        if date:
            return any(standard(d) in self.text for d in date_spellings(*map(int, date.groups())))
        names = _CURRENCIES.get(text.casefold())
        return bool(names) and any(re.search(r"\b" + n, self.words) for n in names)


def standard(text: str, limit: int = MAX_QUESTION) -> str:
    """`text` (its first `limit` characters) as BFCL's checker compares strings: lower case,
    without spaces or ",./-_*^".
    Example: standard("Total_Points, 2021-01-18") -> 'totalpoints20210118'"""
    return _STANDARD.sub("", text[:limit]).casefold()


def date_spellings(year: int, month: int, day: int) -> list[str]:
    """How a question may write the date an ISO value ("2021-01-18") names; [] if none.
    Example: date_spellings(2021, 1, 18)[:2] -> ["January 18 2021", "Jan 18 2021"]"""
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return []
    name = _MONTHS[month - 1]
    return [f"{name} {day} {year}", f"{name[:3]} {day} {year}", f"{day} {name} {year}",
            f"{day} {name[:3]} {year}", f"{month:02d}/{day:02d}/{year}", f"{month}/{day}/{year}",
            f"{day:02d}/{month:02d}/{year}", f"{day}/{month}/{year}", f"{year}/{month:02d}/{day:02d}"]


def _key(x: float) -> float:
    return round(float(x), 9)


def question_numbers(question: str, limit: int = MAX_QUESTION) -> set[float]:
    """The numbers the question writes, as values: "1,000,000" is 1000000, "50%" is 50 and
    0.5, "- 7" is 7 (a number argument is compared by its absolute value); the first `limit`
    characters are read.

    Example: question_numbers("a 60% chance, 10 shots") -> {60.0, 0.6, 10.0}
    """
    out: set[float] = set()
    for m in _NUMBER.finditer(question[:limit]):
        digits, percent = m.group(1), m.group(2)
        grouped = _GROUPED.fullmatch(digits)  # "1,000,000" is one number, "45,60" two
        pieces = [digits.replace(",", "")] if grouped else [p for p in digits.split(",") if p]
        for piece in pieces:
            try:
                n = float(piece)
            except ValueError:
                continue
            out.add(_key(n))
            if percent:
                out.add(_key(n / 100))
    return out


def call_text(name: str, arguments: str) -> str:
    """A parsed call written back as the template writes one, for the reply's text.
    Example: call_text("f", '{"x": 1}') -> '{"name": "f", "arguments": {"x": 1}}'"""
    args = _arguments(arguments)
    return json.dumps({"name": name, "arguments": arguments if args is None else args},
                      ensure_ascii=False)


def wrap(body: str) -> str:
    """The text a kept call adds to the reply: the opening, the model's call, the closing."""
    return "\n" + OPEN + body.strip() + "\n" + CLOSE


__all__ = ["CLOSE", "MAX_QUESTION", "MAX_TOKENS", "OPEN", "PREFILL", "Written", "asked_for",
           "call_text", "date_spellings", "grounded", "leaves", "name_words", "paired",
           "question_numbers", "question_text", "standard", "wrap"]
