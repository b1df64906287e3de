"""Three agent frameworks on the local server, with and without the server's help.

LangChain (`ChatOpenAI.bind_tools` in a hand-written loop), smolagents (`ToolCallingAgent` +
`OpenAIServerModel`) and the OpenAI Agents SDK (`OpenAIChatCompletionsModel`, tracing off) each
run a handful of seed tasks of the suite (`tasks.py`: weather, prices, a comparison, the
savings question), once with the server's help for small models on (the default) and once with
`"reactlab_help": false` in every request (`--settings`; `one-call` is the help without its more
calls, `"reactlab_more_calls": false`). The tools are the course tools, wrapped by
`reactlab.recorder.ToolRecorder`; each run is scored exactly like the agents' runs
(`scoring.classify`: anchors + the grader's verdict). Temperature 0, the date pinned.

One server for the whole run: this script starts `python -m reactlab.server` on a free
loopback port, and stops it by its PID at the end. `--replay` starts it on the replay engine
instead (scripted texts, no model: a smoke test of the script, its numbers mean nothing).

Usage (from the repository root; needs the `frameworks` extra):
    .venv/bin/python benchmarks/frameworks.py                 # the local 1.5B, 5 tasks x 3 x 2
    .venv/bin/python benchmarks/frameworks.py --replay        # smoke test, no model
    .venv/bin/python benchmarks/frameworks.py --tasks t05_weather_bj_zh --frameworks langchain
    .venv/bin/python benchmarks/frameworks.py --settings on,one-call,off
Writes benchmarks/results/frameworks.md (and frameworks_runs.jsonl, one record per run).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.scoring import classify
from benchmarks.tasks import TASKS_BY_ID, TODAY, registry_for
from reactlab.config import DEFAULT_MODEL
from reactlab.recorder import ToolRecorder
from reactlab.server.engines import free_port

RESULTS = ROOT / "benchmarks" / "results"
SEED_TASKS = ("t05_weather_bj_zh", "t07_price_qd_zh", "t13_weather_bj_gz_zh", "t14_qd_vs_mt_zh",
              "t19_savings_zh")
FRAMEWORKS = ("langchain", "smolagents", "openai-agents")
# what each setting adds to every request's body
SETTINGS = {"on": {}, "one-call": {"reactlab_more_calls": False}, "off": {"reactlab_help": False}}
MAX_STEPS = 6
MAX_TOKENS = 400
KEY = "not-needed"
# The replay engine's script for --replay: a call, then an answer, over and over (it ignores
# the prompt, so most runs come out wrong; the point is that every path runs).
REPLAY_TEXTS = [('<tool_call>\n{"name": "get_weather", "arguments": {"location": "北京"}}\n'
                '</tool_call>'), "北京现在 23.4°C。"] * 400


# --- one run per framework ------------------------------------------------------------------

def run_langchain(url: str, model: str, question: str, tools: list, extra: dict) -> str:
    """bind_tools and the round trip of notebook 05, written out; the last content."""
    from langchain_core.messages import HumanMessage
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI

    by_name = {t.name: t for t in map(tool, tools)}
    llm = ChatOpenAI(base_url=url, api_key=KEY, model=model, temperature=0, max_retries=0,
                     max_tokens=MAX_TOKENS, extra_body=extra).bind_tools(list(by_name.values()))
    messages = [HumanMessage(question)]
    for _ in range(MAX_STEPS):
        ai = llm.invoke(messages)
        messages.append(ai)
        if not ai.tool_calls:
            return ai.content if isinstance(ai.content, str) else str(ai.content)
        for call in ai.tool_calls:
            known = by_name.get(call["name"])
            try:  # a tool that raises becomes a message the model reads, as in our loop
                messages.append(known.invoke(call) if known else _unknown(call))
            except Exception as exc:  # noqa: BLE001
                messages.append(_failed(call, exc))
    raise StepLimit(f"no answer within {MAX_STEPS} model calls")


def _failed(call: dict, exc: Exception):
    from langchain_core.messages import ToolMessage
    return ToolMessage(f"Error: {type(exc).__name__}: {exc}", tool_call_id=call["id"])


def _unknown(call: dict):
    from langchain_core.messages import ToolMessage

    return ToolMessage(f"There is no tool named {call['name']!r}.", tool_call_id=call["id"])


def run_smolagents(url: str, model: str, question: str, tools: list, extra: dict) -> str:
    from smolagents import OpenAIServerModel, ToolCallingAgent, tool

    llm = OpenAIServerModel(model_id=model, api_base=url, api_key=KEY, temperature=0,
                            max_tokens=MAX_TOKENS, extra_body=extra)
    agent = ToolCallingAgent(tools=[tool(t) for t in tools], model=llm, max_steps=MAX_STEPS,
                             verbosity_level=-1)  # LogLevel.OFF: the records say what happened
    return str(agent.run(question))


def run_openai_agents(url: str, model: str, question: str, tools: list, extra: dict) -> str:
    from agents import (
        Agent,
        ModelSettings,
        OpenAIChatCompletionsModel,
        Runner,
        function_tool,
        set_tracing_disabled,
    )
    from agents.exceptions import MaxTurnsExceeded
    from openai import AsyncOpenAI

    set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=url, api_key=KEY, max_retries=0)
    agent = Agent(name="assistant", instructions="Answer the user's question. Use the tools.",
                  tools=[function_tool(t) for t in tools],
                  model=OpenAIChatCompletionsModel(model=model, openai_client=client),
                  model_settings=ModelSettings(temperature=0, max_tokens=MAX_TOKENS,
                                               extra_body=extra or None))
    try:
        result = Runner.run_sync(agent, question, max_turns=MAX_STEPS)
    except MaxTurnsExceeded as exc:
        raise StepLimit(str(exc)) from None
    return str(result.final_output or "")


RUNNERS = {"langchain": run_langchain, "smolagents": run_smolagents,
           "openai-agents": run_openai_agents}


class StepLimit(Exception):
    """The framework's budget ran out before an answer."""


def run_one(framework: str, task, url: str, model: str, setting: str) -> dict:
    """One task under one framework and one of SETTINGS: the scored record."""
    rec = ToolRecorder()
    tools = [rec.wrap(t) for t in registry_for(task)]
    extra = dict(SETTINGS[setting])
    start = time.perf_counter()
    status, answer, error = "final", None, None
    try:
        answer = RUNNERS[framework](url, model, task.question, tools, extra)
    except StepLimit as exc:
        status, error = "max_steps", str(exc)
    except Exception as exc:  # noqa: BLE001 — a framework's failure is a result, not a crash
        status, error = "provider_error", f"{type(exc).__name__}: {str(exc)[:300]}"
    wall = time.perf_counter() - start
    run = rec.result(task.question, answer, framework=framework, status=status, error=error)
    ok, mode, missing = classify(task, run)
    return {"framework": framework, "setting": setting, "task": task.id, "ok": ok, "mode": mode, "missing": missing, "answer": answer,
            "status": status, "error": error,
            "calls": [f"{c.name}({json.dumps(c.arguments, ensure_ascii=False)})"
                      for c in rec.calls],
            "repeats": sum(n - 1 for n in rec.repeats().values()), "wall_s": round(wall, 2)}


# --- the server, started and stopped by PID -------------------------------------------------

def start_server(replay: bool, model: str) -> tuple[subprocess.Popen, str, Path | None]:
    port = free_port()
    cmd = [sys.executable, "-m", "reactlab.server", "--host", "127.0.0.1", "--port", str(port),
           "--model", model]
    script = None
    if replay:
        fd, name = tempfile.mkstemp(suffix=".json", prefix="reactlab-frameworks-")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(REPLAY_TEXTS, f, ensure_ascii=False)
        script = Path(name)
        cmd += ["--engine", "replay", "--replay-file", name]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH",
                                                                                  "")])}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=env)
    url = f"http://127.0.0.1:{port}"
    import httpx

    deadline = time.monotonic() + (30 if replay else 300)  # the model loads in seconds to minutes
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"The server stopped at start-up: {proc.stderr.read().decode()[-500:]}")
        try:
            if httpx.get(url + "/health", timeout=2).status_code == 200:
                return proc, url + "/v1", script
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    stop_server(proc, script)
    raise SystemExit("The server did not answer /health in time.")


def stop_server(proc: subprocess.Popen, script: Path | None) -> None:
    """Stop the server this script started (its PID only), then remove the replay script."""
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)
    if script:
        script.unlink(missing_ok=True)


# --- the report -----------------------------------------------------------------------------

def report(records: list[dict], tasks: list, frameworks: list[str], replay: bool,
           model: str, seconds: float) -> str:
    settings = [s for s in SETTINGS if any(r["setting"] == s for r in records)]
    lines = ["# Agent frameworks on the local server, with and without its help", "",
             (f"Model: {'the replay engine (smoke test: these numbers mean nothing)' if replay else model}"
             f"; {len(tasks)} tasks x {len(frameworks)} frameworks x help {'/'.join(settings)}; "
             "temperature 0, "
             f"max {MAX_STEPS} steps; {seconds / 60:.1f} min in all. Written by "
             "`benchmarks/frameworks.py`; scored like the agents' runs (anchors + the grader)."),
             "", "| framework | help | solved | repeated calls | mean s per task |",
             "|---|---|---|---|---|"]
    for fw in frameworks:
        for setting in settings:
            rows = [r for r in records if r["framework"] == fw and r["setting"] == setting]
            if not rows:
                continue
            solved = sum(r["ok"] for r in rows)
            lines.append(f"| {fw} | {setting} | {solved}/{len(rows)} | "
                         f"{sum(r['repeats'] for r in rows)} | "
                         f"{sum(r['wall_s'] for r in rows) / len(rows):.1f} |")
    lines += ["", "Per task (✔ solved, else the failure mode):", "",
              "| task | " + " | ".join(f"{fw} {s}" for fw in frameworks for s in settings) + " |",
              "|---|" + "---|" * (len(settings) * len(frameworks))]
    for task in tasks:
        cells = []
        for fw in frameworks:
            for setting in settings:
                r = next((r for r in records if r["framework"] == fw and r["setting"] == setting
                          and r["task"] == task.id), None)
                cells.append("" if r is None else "✔" if r["ok"] else r["mode"])
        lines.append(f"| {task.id} | " + " | ".join(cells) + " |")
    lines += ["", ("\"repeated calls\": tool calls made again with the same arguments in one run "
              "(the server's help drops such a call when the model asks for it after its "
              "result). smolagents sends `tool_choice=\"required\"` and its results as text, so "
              "the help never acts on it: its rows differ only by chance. `one-call`: the help "
              "without its more calls (`\"reactlab_more_calls\": false`)."), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replay", action="store_true", help="the replay engine: no model")
    ap.add_argument("--tasks", default=",".join(SEED_TASKS), help="comma-separated task ids")
    ap.add_argument("--frameworks", default=",".join(FRAMEWORKS), help="comma-separated")
    ap.add_argument("--settings", default="on,off",
                    help=f"comma-separated, from {', '.join(SETTINGS)}")
    ap.add_argument("--model", default=DEFAULT_MODEL)
    ap.add_argument("--out", type=Path, default=RESULTS / "frameworks.md")
    args = ap.parse_args(argv)
    tasks = [TASKS_BY_ID[t] for t in args.tasks.split(",")]
    frameworks = [f for f in args.frameworks.split(",") if f]
    unknown = [f for f in frameworks if f not in RUNNERS]
    if unknown:
        ap.error(f"unknown framework(s) {unknown}; choose from {', '.join(FRAMEWORKS)}")
    settings = [s for s in args.settings.split(",") if s]
    if not settings or any(s not in SETTINGS for s in settings):
        ap.error(f"--settings: choose from {', '.join(SETTINGS)}")
    os.environ["REACTLAB_TODAY"], os.environ["REACTLAB_WEATHER"] = TODAY, "snapshot"
    start = time.perf_counter()
    proc, url, script = start_server(args.replay, args.model)
    records = []
    try:
        for fw in frameworks:
            for setting in settings:
                for task in tasks:
                    r = run_one(fw, task, url, args.model, setting)
                    records.append(r)
                    print(f"{fw:14} help {setting:8} {task.id:24} "
                          f"{'✔' if r['ok'] else '✘ ' + r['mode']} ({r['wall_s']} s)", flush=True)
    finally:
        stop_server(proc, script)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report(records, tasks, frameworks, args.replay, args.model,
                               time.perf_counter() - start), encoding="utf-8")
    runs = args.out.with_name(args.out.stem + "_runs.jsonl")
    runs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                    encoding="utf-8")
    print(f"wrote {args.out} and {runs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
