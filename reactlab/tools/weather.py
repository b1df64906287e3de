"""The weather tool: one Chinese city's current weather, from a bundled snapshot or live.

`get_weather` answers from a bundled, clearly labelled snapshot (reactlab/data/
weather_snapshot.json, the China Meteorological Administration figures of 2025-04-26 15:00 for
北京, 广州 and ten more cities). Live mode is opt-in: set `REACTLAB_WEATHER=live` and it asks
the CMA API (`/api/autocomplete?q=<city>` -> station id -> `/api/now/<id>`), falling back to
the snapshot with a visible note when that fails. `REACTLAB_WEATHER_URL` replaces the base
URL (tests point it at a local server), `REACTLAB_WEATHER_TIMEOUT` is the deadline in seconds
(5) for the whole lookup, both requests included: a server that drips one byte at a time cannot
hold a call longer than that.

Deliberately NOT here: forecasts, several cities per call (the model must make one call per
city), caching of live answers, retries. Simplification: a live lookup that misses its deadline
is abandoned, not cancelled; its daemon thread ends at its own next socket timeout.
First used in notebook 02.
"""

from __future__ import annotations

import ipaddress
import json
import os
import threading
import time
import urllib.parse
import urllib.request
from functools import cache

from reactlab.tools.bundled import MAX_INPUT_CHARS, json_data, key
from reactlab.tools.registry import tool

CMA_BASE_URL = "http://weather.cma.cn"
LIVE_TIMEOUT = 5.0  # seconds for a whole live lookup; a class on a dead network must not hang
MAX_RESPONSE_BYTES = 1_000_000


def _snapshot() -> dict:
    return json_data("weather_snapshot.json")


@cache
def _city_index() -> dict[str, str]:
    index = {}
    for name, city in _snapshot()["cities"].items():
        for alias in [name, city["en"], *city.get("aliases", [])]:
            index[key(alias)] = name
    return index


def _known_cities() -> str:
    return ", ".join(f"{n} ({c['en']})" for n, c in _snapshot()["cities"].items())


def _find_city(location: str) -> str | None:
    """Snapshot city for a name; ValueError if it names two cities. Example: "Guangzhou" -> "广州"."""
    wanted = key(location)
    index = _city_index()
    if wanted in index:
        return index[wanted]
    named = sorted({city for alias, city in index.items() if len(alias) >= 2 and alias in wanted})
    if len(named) > 1:
        raise ValueError(f"get_weather takes ONE city per call, but {location!r:.80} names "
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


# --- live mode ------------------------------------------------------------------------------

def _get_json(url: str, deadline: float) -> dict:
    """GET one CMA URL and decode its JSON, giving up at `deadline` (a time.monotonic value)."""
    host = urllib.parse.urlsplit(url).hostname or ""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    # a local test server must never be sent through an HTTP proxy from the environment
    opener = urllib.request.build_opener(*([urllib.request.ProxyHandler({})] if loopback else []))
    request = urllib.request.Request(url, headers={"User-Agent": "reactlab (teaching)",
                                                   "Accept": "application/json"})
    body = b""
    with opener.open(request, timeout=max(deadline - time.monotonic(), 0.01)) as response:
        while len(body) < MAX_RESPONSE_BYTES:
            # read1: at most one read from the socket, so the deadline is checked between reads
            chunk = response.read1(65_536)
            if not chunk:
                break
            body += chunk
            if time.monotonic() > deadline:
                raise TimeoutError("the CMA API answered too slowly")
    data = json.loads(body[:MAX_RESPONSE_BYTES].decode("utf-8"))
    if not isinstance(data, dict) or data.get("code") != 0:
        msg = data.get("msg") if isinstance(data, dict) else data
        raise LookupError(f"the CMA API answered {msg!r:.80} instead of success")
    return data


def _live_lookup(name: str, base: str, deadline: float) -> str:
    """One CMA lookup: autocomplete -> station id -> now."""
    found = _get_json(f"{base}/api/autocomplete?q={urllib.parse.quote(name)}", deadline)
    station = None
    for entry in found.get("data") or []:  # entries look like "54511|北京|Beijing|中国"
        fields = str(entry).split("|")
        names = fields[1:3]
        if len(fields) >= 2 and (name in (fields[1], fields[1] + "市")
                                 or key(name) in {key(n) for n in names}):
            station = fields[0]
            break
    if station is None:
        raise LookupError(f"the CMA API knows no place called {name!r}")
    data = _get_json(f"{base}/api/now/{urllib.parse.quote(station)}", deadline)["data"]
    place = data.get("location", {}).get("name") or name
    tail = (f"live from the China Meteorological Administration, station {station}, "
            f"updated {data.get('lastUpdate') or 'unknown'}")
    return _format_weather(place, data["now"], tail)


def _live_weather(name: str) -> str:
    """`_live_lookup` under one total deadline, in a daemon thread the caller stops waiting for.

    A socket timeout only bounds each read; the thread bounds the whole lookup.
    """
    base = os.environ.get("REACTLAB_WEATHER_URL", CMA_BASE_URL).rstrip("/")
    timeout = float(os.environ.get("REACTLAB_WEATHER_TIMEOUT", LIVE_TIMEOUT))
    deadline = time.monotonic() + timeout
    outcome: dict = {}

    def work() -> None:
        try:
            outcome["answer"] = _live_lookup(name, base, deadline)
        except BaseException as exc:  # noqa: BLE001  (handed to the waiting caller)
            outcome["error"] = exc

    worker = threading.Thread(target=work, name="reactlab-live-weather", daemon=True)
    worker.start()
    worker.join(timeout)
    if "answer" in outcome:
        return outcome["answer"]
    # A TimeoutError in the worker is this deadline too (the socket's timeout is what is left of
    # it, and a dripping body is cut at it): one deadline, one message, whichever thread saw
    # it first.
    if "error" in outcome and not isinstance(outcome["error"], TimeoutError):
        raise outcome["error"]
    raise TimeoutError(f"timed out: the CMA API did not answer within {timeout:g} s")


@tool(max_chars=MAX_INPUT_CHARS)
def get_weather(location: str) -> str:
    """Get the current weather of ONE Chinese city (temperature, humidity, wind).

    Args:
        location: one city name in Chinese or pinyin, e.g. 北京, 广州 or Shanghai

    Example: get_weather("北京") -> "北京: 23.4°C (feels like 23.1°C), humidity 43%, …
             [snapshot of 2025-04-26 15:00, bundled teaching data, not live weather]"
    """
    if not isinstance(location, str) or not location.strip():
        raise ValueError(f"location must be a city name such as 北京, got {location!r:.80}.")
    city = _find_city(location)
    if os.environ.get("REACTLAB_WEATHER", "snapshot").strip().lower() != "live":
        if city is None:
            raise ValueError(f"unknown city {location!r:.80}. Known cities: {_known_cities()}.")
        return _snapshot_answer(city)
    try:
        return _live_weather(city or location.strip())
    except Exception as exc:  # offline, timeout, API change: the lesson must go on
        reason = f"{type(exc).__name__}: {exc}"
        if city is None:
            raise ValueError(f"live weather for {location!r:.80} failed ({reason}) and it is not "
                             f"in the bundled snapshot. Known cities: {_known_cities()}.") from exc
        return f"(live weather failed: {reason}; showing the bundled snapshot) " + \
            _snapshot_answer(city)
