"""The course tools: weather, closing prices, dates, a safe calculator and a long-document search.

They reproduce the seeds' examples offline and deterministically: 北京 and 广州 weather
(seed 000), 青岛啤酒 vs 贵州茅台 closing prices (seed 002) and the savings question
"今天是几号…每天存 5 元" (get_today -> days_between -> calculator, seed 001).

- `get_weather` answers from a bundled, clearly labelled snapshot (reactlab/data/
  weather_snapshot.json). Live mode is opt-in: set the environment variable
  `REACTLAB_WEATHER=live` and it asks the China Meteorological Administration API as seed 000
  does (`/api/autocomplete?q=<city>` -> station id -> `/api/now/<id>`), falling back to the
  snapshot with a visible note when that fails. `REACTLAB_WEATHER_URL` replaces the base URL
  (tests point it at a local server), `REACTLAB_WEATHER_TIMEOUT` the timeout in seconds (5).
- `get_today` is the real date unless `REACTLAB_TODAY=YYYY-MM-DD` pins it (reproducible runs).
- `calculator` is `reactlab.calculator.calculator` registered as a tool: it never calls eval
  and takes + - * / // % **, parentheses and max, min, abs, round; any input of <= 1000
  characters ends quickly with a number or a ValueError (see that module for the bounds).
- `search_docs` returns whole Markdown sections from three bundled documents (~50,000
  characters): 10,000+ characters for an English query, 5,000+ for a Chinese one (about as
  many tokens). That is on purpose: it is the tool of the context-bloat lesson (notebook 07),
  and `reactlab.guards.compact_observation` is the fix.

Deliberately NOT here: forecasts, real stock quotes, time zones (dates are the machine's
local date), caching of live answers, retries. Introduced in notebook 04 (weather, prices);
the savings chain get_today -> days_between -> calculator is in notebook 05.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import os
import re
import unicodedata
import urllib.parse
import urllib.request
from functools import cache
from importlib import resources

from reactlab.calculator import calculator as _calculate
from reactlab.tools import tool

CMA_BASE_URL = "http://weather.cma.cn"  # the API seed 000 calls
LIVE_TIMEOUT = 5.0  # seconds per request; a class waiting on a dead network must not hang


@cache
def _data(name: str) -> str:
    return resources.files("reactlab.data").joinpath(name).read_text(encoding="utf-8")


def _key(text: str) -> str:
    """Lookup key for a name. Example: " Xi'an City " -> "xian"."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"[\s'’`·\-_.,，]+", "", text)
    return re.sub(r"(市|city|shi|china|中国)+$", "", text) or text


# --- weather --------------------------------------------------------------------------------

@cache
def _snapshot() -> dict:
    return json.loads(_data("weather_snapshot.json"))


@cache
def _city_index() -> dict[str, str]:
    index = {}
    for name, city in _snapshot()["cities"].items():
        for alias in [name, city["en"], *city.get("aliases", [])]:
            index[_key(alias)] = name
    return index


def _known_cities() -> str:
    return ", ".join(f"{n} ({c['en']})" for n, c in _snapshot()["cities"].items())


def _find_city(location: str) -> str | None:
    """Snapshot city for a name; ValueError if it names two cities. Example: "Guangzhou" -> "广州"."""
    key = _key(location)
    index = _city_index()
    if key in index:
        return index[key]
    named = sorted({city for alias, city in index.items() if len(alias) >= 2 and alias in key})
    if len(named) > 1:
        raise ValueError(f"get_weather takes ONE city per call, but {location!r} names "
                         f"{' and '.join(named)}. Call get_weather once for each city.")
    return named[0] if named else None


def _format_weather(name: str, now: dict, tail: str) -> str:
    def val(field: str) -> float | None:
        v = now.get(field)
        # CMA writes 9999 for a missing reading
        return None if not isinstance(v, (int, float)) or abs(v) >= 9999 else v

    parts = []
    if val("temperature") is not None:
        feels = f" (feels like {val('feelst')}°C)" if val("feelst") is not None else ""
        parts.append(f"{val('temperature')}°C{feels}")
    if val("humidity") is not None:
        parts.append(f"humidity {val('humidity'):g}%")
    if now.get("windDirection") or val("windSpeed") is not None:
        wind = " ".join(str(x) for x in (now.get("windDirection"),
                        f"{val('windSpeed')} m/s" if val("windSpeed") is not None else None,
                        f"({now['windScale']})" if now.get("windScale") else None) if x)
        parts.append(f"wind {wind}")
    if val("precipitation") is not None:
        parts.append(f"precipitation {val('precipitation')} mm")
    if val("pressure") is not None:
        parts.append(f"pressure {val('pressure'):g} hPa")
    return f"{name}: {', '.join(parts) or 'no readings'} [{tail}]"


def _snapshot_answer(city: str) -> str:
    snap = _snapshot()
    tail = f"snapshot of {snap['observed_at']}, bundled teaching data, not live weather"
    return _format_weather(city, snap["cities"][city]["now"], tail)


def _get_json(url: str, timeout: float) -> dict:
    host = urllib.parse.urlsplit(url).hostname or ""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    # a local test server must never be sent through an HTTP proxy from the environment
    opener = urllib.request.build_opener(*([urllib.request.ProxyHandler({})] if loopback else []))
    request = urllib.request.Request(url, headers={"User-Agent": "reactlab (teaching)",
                                                   "Accept": "application/json"})
    with opener.open(request, timeout=timeout) as response:
        data = json.loads(response.read(1_000_000).decode("utf-8"))
    if not isinstance(data, dict) or data.get("code") != 0:
        msg = data.get("msg") if isinstance(data, dict) else data
        raise LookupError(f"the CMA API answered {msg!r} instead of success")
    return data


def _live_weather(name: str) -> str:
    """One CMA lookup as in seed 000: autocomplete -> station id -> now."""
    base = os.environ.get("REACTLAB_WEATHER_URL", CMA_BASE_URL).rstrip("/")
    timeout = float(os.environ.get("REACTLAB_WEATHER_TIMEOUT", LIVE_TIMEOUT))
    found = _get_json(f"{base}/api/autocomplete?q={urllib.parse.quote(name)}", timeout)
    station = None
    for entry in found.get("data") or []:  # entries look like "54511|北京|Beijing|中国"
        fields = str(entry).split("|")
        names = fields[1:3]
        if len(fields) >= 2 and (name in (fields[1], fields[1] + "市")
                                 or _key(name) in {_key(n) for n in names}):
            station = fields[0]
            break
    if station is None:
        raise LookupError(f"the CMA API knows no place called {name!r}")
    data = _get_json(f"{base}/api/now/{urllib.parse.quote(station)}", timeout)["data"]
    place = data.get("location", {}).get("name") or name
    tail = (f"live from the China Meteorological Administration, station {station}, "
            f"updated {data.get('lastUpdate') or 'unknown'}")
    return _format_weather(place, data["now"], tail)


@tool
def get_weather(location: str) -> str:
    """Get the current weather of ONE Chinese city (temperature, humidity, wind).

    Args:
        location: one city name in Chinese or pinyin, e.g. 北京, 广州 or Shanghai

    Example: get_weather("北京") -> "北京: 23.4°C (feels like 23.1°C), humidity 43%, …
             [snapshot of 2025-04-26 15:00, bundled teaching data, not live weather]"
    """
    if not isinstance(location, str) or not location.strip():
        raise ValueError(f"location must be a city name such as 北京, got {location!r}.")
    city = _find_city(location)
    if os.environ.get("REACTLAB_WEATHER", "snapshot").strip().lower() != "live":
        if city is None:
            raise ValueError(f"unknown city {location!r}. Known cities: {_known_cities()}.")
        return _snapshot_answer(city)
    try:
        return _live_weather(city or location.strip())
    except Exception as exc:  # offline, timeout, API change: the lesson must go on
        reason = f"{type(exc).__name__}: {exc}"
        if city is None:
            raise ValueError(f"live weather for {location!r} failed ({reason}) and it is not in "
                             f"the bundled snapshot. Known cities: {_known_cities()}.") from exc
        return f"(live weather failed: {reason}; showing the bundled snapshot) " + \
            _snapshot_answer(city)


# --- closing prices -------------------------------------------------------------------------

@cache
def _prices() -> dict:
    return json.loads(_data("closing_prices.json"))


@tool
def get_closing_price(name: str) -> str:
    """Get the closing price of a Chinese stock by name, e.g. 青岛啤酒 or 贵州茅台.

    Args:
        name: the stock's name (or its code), e.g. 贵州茅台 / 600519

    Example: get_closing_price("青岛啤酒") -> "青岛啤酒 (600600.SH) closing price: 67.92 CNY
             [example figure from the course's source article, not live market data]"
    """
    data = _prices()
    wanted = _key(str(name))
    for stock, info in data["stocks"].items():
        codes = [info["code"], f"{info['code']}.{info['exchange']}",
                 f"{info['exchange']}{info['code']}"]
        if wanted in {_key(a) for a in [stock, info["en"], *info["aliases"], *codes]}:
            return (f"{stock} ({info['code']}.{info['exchange']}) closing price: {info['close']} "
                    f"{data['currency']} [example figure from the course's source article, "
                    "not live market data]")
    known = ", ".join(f"{s} ({i['code']})" for s, i in data["stocks"].items())
    raise ValueError(f"no closing price for {name!r}. Known stocks: {known}. "
                     "Ask for one stock per call.")


# --- dates ----------------------------------------------------------------------------------

_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _today() -> dt.date:
    pinned = os.environ.get("REACTLAB_TODAY", "").strip()
    if not pinned:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(pinned)
    except ValueError:
        raise ValueError(f"REACTLAB_TODAY={pinned!r} is not a date: set it as YYYY-MM-DD, "
                         "e.g. 2025-06-27, or unset it to use the real date.") from None


@tool
def get_today() -> str:
    """Get today's date as YYYY-MM-DD with its weekday. Use it whenever a question says 今天 / today.

    Example: get_today() -> "2026-03-01 (Sunday, 星期日)"
    """
    d = _today()
    return f"{d.isoformat()} ({_WEEKDAYS[d.weekday()]}, 星期{'一二三四五六日'[d.weekday()]})"


_DATE = re.compile(r"(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*[日号號]?")


def _parse_date(text: object, arg: str) -> dt.date:
    """A date from ISO or Chinese forms. Example: "2025年12月31日" -> date(2025, 12, 31)."""
    raw = unicodedata.normalize("NFKC", str(text)).strip()
    m = _DATE.fullmatch(raw) or re.fullmatch(r"(\d{4})(\d{2})(\d{2})", raw)
    # a copied get_today() answer or an ISO timestamp: "2026-03-01 (Sunday, 星期日)"
    m = m or re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})(?:[T ]\d[\d:.+Z-]*|\s*\(.*\))", raw)
    if m:
        try:
            return dt.date(*(int(g) for g in m.groups()))
        except ValueError as exc:
            raise ValueError(f"{arg}={text!r} is not a real date ({exc}).") from None
    if re.search(r"今天|今日|today|now|现在", raw, re.IGNORECASE):
        raise ValueError(f"{arg}={text!r} is not a date: call get_today() first, then pass "
                         "its YYYY-MM-DD date.")
    raise ValueError(f"{arg}={text!r} is not a date I can read: write it as YYYY-MM-DD, "
                     "e.g. 2025-12-31 (2025年12月31日 also works).")


@tool
def days_between(date1: str, date2: str) -> int:
    """Count the days between two dates (order does not matter).

    Args:
        date1: a date as YYYY-MM-DD, e.g. 2025-10-01 (2025年10月1日 also works)
        date2: the other date, e.g. 2027-01-01

    Example: days_between("2026-03-01", "2027-01-01") -> 306
    """
    return abs((_parse_date(date2, "date2") - _parse_date(date1, "date1")).days)


# --- calculator -----------------------------------------------------------------------------

# The calculator lives in reactlab.calculator (it knows nothing about tools); registering it
# here makes it a course tool whose description is the first paragraph of its docstring.
calculator = tool(_calculate, name="calculator")


# --- long documents (the context-bloat lesson) ----------------------------------------------

DOCUMENTS = ("doc_beijing_guide.md", "doc_guangzhou_guide.md", "doc_weather_station_manual.md")
# Whole sections, never snippets: the output is long on purpose. Sections are added best
# first until the answer holds RESULT_CHARS characters (or MAX_SECTIONS sections).
RESULT_CHARS = 10_000
MAX_SECTIONS = 12


@cache
def _sections() -> list[tuple[str, str, str]]:
    """(document title, section heading, section text) for every "## " section."""
    out = []
    for name in DOCUMENTS:
        text = _data(name)
        title = re.search(r"^# (.+)$", text, re.MULTILINE)
        doc_title = title.group(1).strip() if title else name
        for chunk in re.split(r"(?m)^(?=## )", text)[1:]:
            heading = chunk.splitlines()[0][3:].strip()
            out.append((doc_title, heading, chunk.strip()))
    return out


def _terms(query: str) -> list[str]:
    """Search terms: latin words and CJK bigrams. Example: "故宫 tickets" -> ["tickets", "故宫"]."""
    q = unicodedata.normalize("NFKC", query).casefold()
    words = [w for w in re.findall(r"[a-z0-9]{2,}", q) if w not in
             {"the", "and", "for", "how", "what", "of", "in", "to", "is", "a", "an", "do"}]
    for run in re.findall(r"[\u3400-\u9fff]+", q):
        words += [run] if len(run) <= 2 else [run[i:i + 2] for i in range(len(run) - 1)]
    return list(dict.fromkeys(words))


@tool
def search_docs(query: str) -> str:
    """Search the bundled guides (北京, 广州 travel) and a weather-station manual; returns whole sections.

    Args:
        query: keywords, e.g. 故宫 门票, dim sum or battery

    Returns the best-matching sections in full, deliberately long (often 10,000+ characters):
    this is the tool of the context-bloat lesson. Example: search_docs("早茶")
    """
    terms = _terms(str(query))
    if not terms:
        raise ValueError("query has no searchable words: pass keywords such as 故宫 or dim sum.")
    scored = []
    for order, (doc, heading, text) in enumerate(_sections()):
        body, head = text.casefold(), heading.casefold()
        score = sum(body.count(t) + 5 * head.count(t) for t in terms)
        if score:
            scored.append((-score, order, doc, heading, text))
    if not scored:
        docs = "; ".join(dict.fromkeys(d for d, _, _ in _sections()))
        return (f"No section matched {query!r}. The bundled documents are: {docs}. "
                "Try other keywords, e.g. 故宫, 早茶, Canton Tower, battery, calibration.")
    best, size = [], 0
    for item in sorted(scored)[:MAX_SECTIONS]:
        if size >= RESULT_CHARS:
            break
        best.append(item)
        size += len(item[-1])
    shown = "\n\n".join(f"=== {doc} › {heading} ===\n{text}" for _, _, doc, heading, text in best)
    return (f"search_docs: {len(scored)} sections matched {query!r}; the best {len(best)} "
            f"follow in full ({len(shown):,} characters, bundled sample documents).\n\n{shown}")
