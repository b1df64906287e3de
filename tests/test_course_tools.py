"""Tests for the course tools: reactlab.tools.weather, prices, dates, docs and course.

The course's headline tasks are named tests: test_weather_beijing_guangzhou (北京 and 广州),
test_closing_prices_qingdao_vs_moutai (青岛啤酒 vs 贵州茅台) and, through the registry,
test_savings_question_end_to_end_through_the_registry (今天是几号…每天存 5 元). The calculator
itself is tested in tests/test_calculator.py. Live weather is tested against a local
http.server on 127.0.0.1 serving CMA-shaped JSON (also one that drips its answer byte by byte);
no test touches the internet. Timings are never asserted.
"""

from __future__ import annotations

import datetime as dt
import json
import socket
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from reactlab.tools import (
    bundled,
    days_between,
    default_registry,
    docs,
    get_closing_price,
    get_today,
    get_weather,
    search_docs,
    weather,
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    """Tests must not depend on the developer's shell (live weather, pinned dates)."""
    for name in ("REACTLAB_WEATHER", "REACTLAB_WEATHER_URL", "REACTLAB_WEATHER_TIMEOUT",
                 "REACTLAB_TODAY"):
        monkeypatch.delenv(name, raising=False)


# --- get_weather ----------------------------------------------------------------------------

def test_weather_beijing_guangzhou():
    """The headline weather task: the weather of 北京 and 广州, one call per city."""
    reg = default_registry()
    beijing, err1 = reg.run("get_weather", {"location": "北京"})
    guangzhou, err2 = reg.run("get_weather", {"location": "广州"})
    assert not err1 and not err2
    # the figures of the bundled CMA snapshot (2025/04/26 15:00)
    for fragment in ("北京: 23.4°C", "feels like 23.1°C", "humidity 43%", "西南风 2.7 m/s (微风)",
                     "pressure 1005 hPa"):
        assert fragment in beijing
    for fragment in ("广州: 24.2°C", "feels like 27.1°C", "humidity 79%", "东北风 1.3 m/s (微风)"):
        assert fragment in guangzhou
    for answer in (beijing, guangzhou):
        assert "[snapshot of 2025-04-26 15:00, bundled teaching data, not live weather]" in answer


def test_snapshot_covers_the_required_cities_and_labels_every_answer():
    cities = json.loads(bundled.data("weather_snapshot.json"))["cities"]
    required = ["北京", "广州", "上海", "深圳", "杭州", "成都", "武汉", "西安", "南京", "重庆",
                "天津", "青岛"]
    assert set(required) <= set(cities) and len(cities) >= 12
    for city, info in cities.items():
        answer = get_weather(city)
        assert answer.startswith(f"{city}: ") and "snapshot of 2025-04-26 15:00" in answer
        assert get_weather(info["en"]) == answer


@pytest.mark.parametrize("name, city", [
    ("Beijing", "北京"), ("beijing", "北京"), ("BEIJING", "北京"), (" 北京市 ", "北京"),
    ("Beijing City", "北京"), ("Peking", "北京"), ("北京市朝阳区", "北京"), ("guangzhou", "广州"),
    ("廣州", "广州"), ("Canton", "广州"), ("Xi'an", "西安"), ("xian", "西安"), ("XI AN", "西安"),
    ("Ｓｈａｎｇｈａｉ", "上海"), ("青島", "青岛"), ("Chongqing, China", "重庆"),
])
def test_weather_accepts_chinese_pinyin_and_english_names(name, city):
    assert get_weather(name).startswith(f"{city}: ")


def test_weather_unknown_city_lists_the_known_ones():
    with pytest.raises(ValueError) as err:
        get_weather("Atlantis")
    assert "unknown city 'Atlantis'" in str(err.value)
    assert "北京 (Beijing)" in str(err.value) and "青岛 (Qingdao)" in str(err.value)


@pytest.mark.parametrize("location", ["北京和广州", "Beijing and Guangzhou", "北京,广州"])
def test_weather_refuses_two_cities_in_one_call(location):
    with pytest.raises(ValueError, match="ONE city per call"):
        get_weather(location)


@pytest.mark.parametrize("location", ["", "   ", None])
def test_weather_needs_a_name(location):
    with pytest.raises(ValueError, match="city name"):
        get_weather(location)


def test_weather_skips_missing_cma_readings():
    now = {"temperature": 9999, "feelst": 9999.0, "humidity": 50.0, "windDirection": "",
           "windSpeed": 9999, "windScale": "", "precipitation": None, "pressure": 1000.0}
    assert weather._format_weather("X", now, "t") == "X: humidity 50%, pressure 1000 hPa [t]"
    assert weather._format_weather("X", {}, "t") == "X: no readings [t]"


# --- live weather against a local CMA-shaped server -----------------------------------------

class _CMA(BaseHTTPRequestHandler):
    """Answers like weather.cma.cn: /api/autocomplete?q=… and /api/now/<station>."""

    stations: ClassVar[dict] = {"北京": "54511|北京|Beijing|中国", "苏州": "58349|苏州|Suzhou|中国"}
    mode = "ok"  # ok | error_code | http_500 | bad_json | slow | empty | drip_body | drip_headers
    seen: ClassVar[list[str]] = []
    drip_gap = 0.05  # seconds between two bytes of a dripped answer (always below the timeout)

    def log_message(self, *args):  # keep pytest output clean
        pass

    def do_GET(self):
        type(self).seen.append(urllib.parse.unquote(self.path))
        url = urllib.parse.urlsplit(self.path)
        if self.mode == "slow":
            time.sleep(1.5)
        if self.mode.startswith("drip"):
            return self._drip()
        if self.mode == "http_500":
            return self._send(500, b"server error")
        if self.mode == "bad_json":
            return self._send(200, b"<html>not json</html>")
        if self.mode == "error_code":
            return self._send(200, json.dumps({"msg": "fail", "code": 1, "data": []}).encode())
        if url.path == "/api/autocomplete":
            q = urllib.parse.parse_qs(url.query).get("q", [""])[0]
            data = [] if self.mode == "empty" else [
                entry for name, entry in self.stations.items() if q in name]
            return self._json({"msg": "success", "code": 0, "data": data})
        if url.path.startswith("/api/now/"):
            station = url.path.rsplit("/", 1)[1]
            name = {"54511": "北京", "58349": "苏州"}[station]
            return self._json({"msg": "success", "code": 0, "data": {
                "location": {"id": station, "name": name, "path": f"中国, {name}"},
                "now": {"precipitation": 0.5, "temperature": 18.5, "pressure": 1011.0,
                        "humidity": 55.0, "windDirection": "北风", "windDirectionDegree": 2.0,
                        "windSpeed": 4.2, "windScale": "3级", "feelst": 17.0},
                "alarm": [], "jieQi": "", "lastUpdate": "2026/03/01 10:00"}})
        return self._send(404, b"not found")

    def _drip(self):
        """One byte at a time, each well inside the socket timeout, the whole far beyond it."""
        body = json.dumps({"msg": "success", "code": 0, "data": ["54511|北京|Beijing|中国"]},
                          ensure_ascii=False).encode() + b" " * 2_000
        head = (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Pad: {'x' * 20}"
                f"\r\nContent-Length: {len(body)}\r\n\r\n").encode()
        if self.mode == "drip_body":
            self.wfile.write(head)
            head = b""
        try:
            for i in range(len(head + body)):
                self.wfile.write((head + body)[i:i + 1])
                self.wfile.flush()
                time.sleep(self.drip_gap)
        except OSError:  # the client gave up: that is the point
            pass

    def _json(self, payload):
        self._send(200, json.dumps(payload, ensure_ascii=False).encode("utf-8"))

    def _send(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # a client that gave up (timeouts, the dripping tests) is expected here


@pytest.fixture
def cma(monkeypatch):
    """A CMA-shaped server on a free loopback port, with live mode switched on."""
    server = _QuietServer(("127.0.0.1", 0), _CMA)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    _CMA.mode, _CMA.seen = "ok", []
    monkeypatch.setenv("REACTLAB_WEATHER", "live")
    monkeypatch.setenv("REACTLAB_WEATHER_URL", f"http://127.0.0.1:{server.server_address[1]}/")
    monkeypatch.setenv("REACTLAB_WEATHER_TIMEOUT", "5")
    yield _CMA
    server.shutdown()
    server.server_close()


def test_live_weather_follows_autocomplete_station_now(cma):
    answer = get_weather("北京")
    assert cma.seen == ["/api/autocomplete?q=北京", "/api/now/54511"]
    assert answer.startswith("北京: 18.5°C (feels like 17.0°C), humidity 55%, wind 北风 4.2 m/s")
    assert "live from the China Meteorological Administration, station 54511" in answer
    assert "updated 2026/03/01 10:00" in answer and "snapshot" not in answer


def test_live_weather_resolves_pinyin_before_asking(cma):
    assert get_weather("Beijing").startswith("北京: 18.5°C")
    assert cma.seen[0] == "/api/autocomplete?q=北京"


def test_live_weather_reaches_cities_outside_the_snapshot(cma):
    assert get_weather("苏州").startswith("苏州: 18.5°C")


@pytest.mark.parametrize("mode, reason", [
    ("empty", "LookupError: the CMA API knows no place called '北京'"),
    ("error_code", "LookupError: the CMA API answered 'fail' instead of success"),
    ("http_500", "HTTPError: HTTP Error 500"),
    ("bad_json", "JSONDecodeError"),
])
def test_live_weather_falls_back_to_the_snapshot_with_a_note(cma, mode, reason):
    cma.mode = mode
    answer = get_weather("北京")
    assert answer.startswith("(live weather failed: ")
    assert reason in answer
    assert "showing the bundled snapshot) 北京: 23.4°C" in answer
    assert answer.endswith("not live weather]")


def test_live_weather_times_out_then_falls_back(cma, monkeypatch):
    cma.mode = "slow"
    monkeypatch.setenv("REACTLAB_WEATHER_TIMEOUT", "0.2")
    answer = get_weather("广州")
    assert answer.startswith("(live weather failed: ") and "timed out" in answer
    assert "广州: 24.2°C" in answer


@pytest.mark.parametrize("mode", ["drip_body", "drip_headers"])
@pytest.mark.timeout(60)  # a hang guard only: the deadline is what ends the call (no timing assert)
def test_live_weather_has_one_deadline_for_the_whole_lookup(cma, monkeypatch, mode):
    """A server that drips a byte every 0.05 s never trips a 0.5 s per-read timeout; the
    answer would take minutes. The total deadline ends the call and the snapshot answers."""
    cma.mode = mode
    monkeypatch.setenv("REACTLAB_WEATHER_TIMEOUT", "0.5")
    answer = get_weather("北京")
    assert answer.startswith("(live weather failed: TimeoutError: timed out: the CMA API did "
                             "not answer within 0.5 s; showing the bundled snapshot) 北京: 23.4°C")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_live_weather_offline_falls_back(monkeypatch):
    monkeypatch.setenv("REACTLAB_WEATHER", "LIVE")
    monkeypatch.setenv("REACTLAB_WEATHER_URL", f"http://127.0.0.1:{_closed_port()}")
    answer = get_weather("北京")
    assert answer.startswith("(live weather failed: URLError") and "北京: 23.4°C" in answer
    with pytest.raises(ValueError) as err:
        get_weather("苏州")  # not in the snapshot either: nothing to fall back to
    assert "live weather for '苏州' failed" in str(err.value)
    assert "Known cities: 北京 (Beijing)" in str(err.value)


def test_live_mode_is_off_by_default(cma, monkeypatch):
    monkeypatch.delenv("REACTLAB_WEATHER")
    assert "snapshot of 2025-04-26" in get_weather("北京")
    assert cma.seen == []  # the URL was set, but nothing was asked


def test_live_weather_still_refuses_two_cities(cma):
    with pytest.raises(ValueError, match="ONE city"):
        get_weather("北京和广州")
    assert cma.seen == []


# --- closing prices -------------------------------------------------------------------------

def test_closing_prices_qingdao_vs_moutai():
    """The headline stock task: 青岛啤酒 vs 贵州茅台, with the bundled example figures."""
    reg = default_registry()
    qingdao, _ = reg.run("get_closing_price", {"name": "青岛啤酒"})
    moutai, _ = reg.run("get_closing_price", {"name": "贵州茅台"})
    assert "青岛啤酒 (600600.SH) closing price: 67.92 CNY" in qingdao
    assert "贵州茅台 (600519.SH) closing price: 1488.21 CNY" in moutai
    assert "not live market data" in qingdao
    assert reg.run("calculator", {"expression": "1488.21 - 67.92"}) == ("1420.29", False)


@pytest.mark.parametrize("name, close", [
    ("贵州茅台", "1488.21"), ("貴州茅台", "1488.21"), ("茅台", "1488.21"), ("600519", "1488.21"),
    ("600519.SH", "1488.21"), ("sh600519", "1488.21"), ("Kweichow Moutai", "1488.21"),
    ("青岛啤酒", "67.92"), ("青島啤酒", "67.92"), ("Tsingtao", "67.92"), (600600, "67.92"),
])
def test_closing_price_accepts_names_and_codes(name, close):
    assert f": {close} CNY" in get_closing_price(name)


def test_closing_price_unknown_stock():
    with pytest.raises(ValueError) as err:
        get_closing_price("苹果")
    assert "Known stocks: 青岛啤酒 (600600), 贵州茅台 (600519)" in str(err.value)


# --- dates ----------------------------------------------------------------------------------

def test_get_today_is_the_real_date_with_weekday():
    before = dt.date.today()
    answer = get_today()
    assert answer[:10] in {before.isoformat(), dt.date.today().isoformat()}
    assert answer.endswith(")") and "星期" in answer


@pytest.mark.parametrize("pinned, expected", [
    ("2026-03-01", "2026-03-01 (Sunday, 星期日)"),
    ("2025-06-27", "2025-06-27 (Friday, 星期五)"),
    (" 2024-02-29 ", "2024-02-29 (Thursday, 星期四)"),
])
def test_get_today_pinned_by_env(monkeypatch, pinned, expected):
    monkeypatch.setenv("REACTLAB_TODAY", pinned)
    assert get_today() == expected


def test_get_today_bad_env_says_how_to_fix(monkeypatch):
    monkeypatch.setenv("REACTLAB_TODAY", "next friday")
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        get_today()


@pytest.mark.parametrize("date1, date2, days", [
    ("2026-03-01", "2027-01-01", 306),
    ("2027-01-01", "2026-03-01", 306),  # order does not matter
    ("2026/3/1", "2027.1.1", 306),
    ("2026年3月1日", "2027年01月01号", 306),
    ("２０２６－０３－０１", "20270101", 306),
    ("2026-03-01 (Sunday, 星期日)", "2027-01-01", 306),  # a copied get_today() answer
    ("2026-03-01T08:30:00", "2027-01-01", 306),
    ("2024-02-28", "2024-03-01", 2),
])
def test_days_between_formats(date1, date2, days):
    assert days_between(date1, date2) == days


@pytest.mark.parametrize("date1, message", [
    ("today", "call get_today() first"),
    ("今天", "call get_today() first"),
    ("2026-02-30", "not a real date"),
    ("12月31日", "write it as YYYY-MM-DD"),
    ("next week", "write it as YYYY-MM-DD"),
    ("", "write it as YYYY-MM-DD"),
])
def test_days_between_errors(date1, message):
    with pytest.raises(ValueError) as err:
        days_between(date1, "2027-01-01")
    assert message in str(err.value)


# --- calculator (its own tests: tests/test_calculator.py) ----------------------------------

def test_savings_question_end_to_end_through_the_registry(monkeypatch):
    monkeypatch.setenv("REACTLAB_TODAY", "2026-03-01")
    reg = default_registry()
    today, _ = reg.run("get_today", {})
    days, _ = reg.run("days_between", {"date1": today[:10], "date2": "2027-01-01"})
    total, _ = reg.run("calculator", {"expression": f"{days} * 5"})
    assert (today[:10], days, total) == ("2026-03-01", "306", "1530")


# --- search_docs ----------------------------------------------------------------------------

def test_search_docs_returns_long_whole_sections():
    answer = search_docs("dim sum")
    assert len(answer) >= 10_000  # deliberately big: the context-bloat lesson
    assert answer.startswith("search_docs: ")
    assert "=== Guangzhou (广州) City Guide — a reactlab sample document › Morning tea and dim sum" \
        in answer
    assert "Shrimp dumplings, har gow (虾饺)" in answer  # whole sections, not snippets


def test_search_docs_chinese_query_finds_the_chinese_guide():
    answer = search_docs("故宫")
    assert "=== 北京城市旅行指南（reactlab 示例文档） › 故宫与天安门一带 ===" in answer
    assert "参观故宫需要提前在官方渠道实名预约购票" in answer  # the whole section
    assert len(answer) > 5_000  # ~5,000 Chinese characters: about as many tokens as 15,000 English


def test_search_docs_is_deterministic_and_bundles_tens_of_thousands_of_characters():
    assert search_docs("typhoon battery") == search_docs("typhoon battery")
    total = sum(len(text) for _, _, text in docs.sections())
    assert total > 40_000


def test_search_docs_no_match_and_empty_query():
    assert search_docs("zzzzqqq").startswith("No section matched 'zzzzqqq'")
    with pytest.raises(ValueError, match="no searchable words"):
        search_docs("  ? ! ")


# --- length bounds --------------------------------------------------------------------------

@pytest.mark.parametrize("name, args", [
    ("search_docs", {"query": "故宫 " * 50_000}),
    ("get_weather", {"location": "北京" * 50_000}),
    ("get_closing_price", {"name": "茅台" * 50_000}),
    ("days_between", {"date1": "2026-03-01" * 10_000, "date2": "2027-01-01"}),
    ("calculator", {"expression": "1+" * 50_000 + "1"}),
])
def test_course_tools_refuse_a_100k_character_argument(name, args):
    text, is_error = default_registry().run(name, args)
    assert is_error and f"Error: {name}: argument " in text and "is too long" in text
    assert "the limit is 2,000" in text or (name == "calculator" and "limit is 1,000" in text)


def test_every_course_tool_with_a_text_argument_is_bounded():
    for t in default_registry():
        if t.parameters["properties"]:
            assert t.max_chars is not None and t.max_chars <= bundled.MAX_INPUT_CHARS, t.name
    # at the bound the tool runs as usual
    text, is_error = default_registry().run("search_docs", {"query": ("dim sum " * 250)[:2000]})
    assert not is_error and text.startswith("search_docs: ")


def test_days_between_refuses_the_same_date_twice_and_says_what_to_do():
    # the 1.5B's real call for "今天距离2026年10月1日还有多少天？": the target date twice
    with pytest.raises(ValueError, match="call get_today first"):
        days_between("2026-10-01", "2026年10月1日")
