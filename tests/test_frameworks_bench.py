"""benchmarks/frameworks.py: the report's shape, and one smoke run on the replay engine.

The smoke run starts the script's own server process (replay engine, no model) and checks that
it is stopped and the report written; the numbers of a replay run mean nothing.
"""

from __future__ import annotations

import pytest

from benchmarks import frameworks as fw
from benchmarks.tasks import TASKS_BY_ID


def test_the_report_counts_each_framework_and_help_setting():
    tasks = [TASKS_BY_ID["t05_weather_bj_zh"], TASKS_BY_ID["t07_price_qd_zh"]]
    records = [{"framework": "langchain", "setting": "on" if h else "off", "task": t.id,
                "ok": h or t.id == "t07_price_qd_zh", "mode": "solved" if h else "wrong_answer",
                "repeats": 0 if h else 2, "wall_s": 1.0}
               for h in (True, False) for t in tasks]
    text = fw.report(records, tasks, ["langchain"], replay=False, model="m", seconds=60)
    assert "| langchain | on | 2/2 | 0 | 1.0 |" in text
    assert "| langchain | off | 1/2 | 4 | 1.0 |" in text
    assert "| t05_weather_bj_zh | ✔ | wrong_answer |" in text


def test_the_report_has_a_column_per_setting_run():
    tasks = [TASKS_BY_ID["t05_weather_bj_zh"]]
    records = [{"framework": "langchain", "setting": s, "task": tasks[0].id,
                "ok": s == "one-call", "mode": "wrong_answer", "repeats": 0, "wall_s": 1.0}
               for s in ("one-call", "on")]
    text = fw.report(records, tasks, ["langchain"], replay=False, model="m", seconds=60)
    assert "| langchain | on | 0/1 |" in text and "| langchain | one-call | 1/1 |" in text
    assert "| task | langchain on | langchain one-call |" in text  # in SETTINGS' order
    assert "| t05_weather_bj_zh | wrong_answer | ✔ |" in text and "off" not in text.split("\n")[2]


def test_an_unknown_setting_is_refused():
    with pytest.raises(SystemExit):
        fw.main(["--replay", "--settings", "on,sometimes"])


def test_the_seed_tasks_exist():
    assert 4 <= len(fw.SEED_TASKS) <= 6
    assert all(t in TASKS_BY_ID for t in fw.SEED_TASKS)


def test_a_replay_smoke_run_writes_the_report_and_stops_its_server(tmp_path, monkeypatch):
    pytest.importorskip("langchain_openai")
    started = []
    real_start = fw.start_server
    monkeypatch.setattr(fw, "start_server", lambda *a: started.append(real_start(*a)) or started[-1])
    out = tmp_path / "frameworks.md"
    assert fw.main(["--replay", "--tasks", "t05_weather_bj_zh", "--frameworks", "langchain",
                    "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "replay engine" in text and "| langchain | on |" in text and "| langchain | off |" in text
    assert (tmp_path / "frameworks_runs.jsonl").read_text(encoding="utf-8").count("\n") == 2
    proc, _, script = started[0]
    assert proc.poll() is not None and not script.exists()  # stopped by its PID, script removed


def test_an_unknown_framework_is_refused():
    with pytest.raises(SystemExit):
        fw.main(["--replay", "--frameworks", "crewai"])
