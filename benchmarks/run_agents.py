"""Run the task suite under agent configurations; append one JSONL record per run (resumable).

A configuration is: protocol (text ReAct in the JSON-blob or Action/Action Input style, or
native tool calls) x guards (off/on/levers, or "next": levers plus `more_calls`, the one
measured `Guards` field still off by default) x constrained decoding (off/on) x model (local 1.5B, local
0.5B, or the provider configured in `.env`). Every run pins `REACTLAB_TODAY` and the weather
snapshot, temperature 0, max 6 steps, so two runs of the same configuration see the same tools.

What "constrained decoding on" means (neither agent takes it as an argument, so a thin
connection wrapper adds it to the requests, see `ConstrainedConnection`):
- native: `tool_choice="required"` on the first request of a run (no tool result yet): the
  local server then decodes the call under a JSON schema, so the first step is a valid call to
  a real tool by construction; later requests are `auto`, so the model can still answer. Cost:
  a task that needs no tool is forced to call one anyway.
- ReAct, JSON-blob style: every request carries `response_format` = a JSON schema of one step,
  `{"action": <a tool name or "Final Answer">, "action_input": <that tool's arguments, or the
  answer text>}`; `parse_react` reads that blob like any other. The Thought is lost: JSON
  schema cannot allow free text before the blob.
- native, "cd-choice" (`--configs "native|guards-levers|cd-choice|1.5b"`): every request with
  `tool_choice="auto"` also carries `"reactlab_choice": true`, reactlab's server option that
  constrains the reply to an answer object or calls valid for their tool's schema (a list:
  the model decides how many). Nothing is forced: a task that needs no tool can answer.
- ReAct, Action/Action Input style: not applicable. The format is not JSON and the server
  offers only JSON-schema constraints (no GBNF grammar), so these configurations are not run.

Usage (from the repository root):
    .venv/bin/python benchmarks/run_agents.py               # the default configurations
    .venv/bin/python benchmarks/run_agents.py --quick       # 11 tasks x 2 configurations
    .venv/bin/python benchmarks/run_agents.py --configs extended --tasks quick  # contrasts
    .venv/bin/python benchmarks/run_agents.py --configs all # the whole matrix (hours on 2 cores)
    .venv/bin/python benchmarks/run_agents.py --list        # show configurations and exit
Interrupt at any time; the next call skips the runs already recorded (a changed task or a
provider error is run again).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.scoring import record
from benchmarks.tasks import QUICK_IDS, TASKS, TASKS_BY_ID, TODAY, registry_for

RESULTS = ROOT / "benchmarks" / "results"
DEFAULT_OUT = RESULTS / "agents_runs.jsonl"
MAX_STEPS = 6
MODELS = {"1.5b": "qwen2.5-coder-1.5b-instruct", "0.5b": "qwen2.5-coder-0.5b-instruct"}


@dataclass(frozen=True)
class Config:
    protocol: str  # "react-json" | "react-action_input" | "native"
    guards: str = "on"  # "on" | "off" | "levers" (on + the grader's corrections + quiet retry + hold back: the defaults since the levers were kept) | "grounding"
    constrained: bool = False
    model: str = "1.5b"  # "1.5b" | "0.5b" | "provider"
    prompt: str = "base"  # "base" (the agents' defaults) | "worked" (PROMPT_LEVERS)
    choice: bool = False  # native: the server's answer-or-calls constraint under "auto"
    steps: int = MAX_STEPS  # the step budget (max_steps); the id names it only when not 6

    @property
    def id(self) -> str:
        cd = "choice" if self.choice else "on" if self.constrained else "off"
        base = f"{self.protocol}|guards-{self.guards}|cd-{cd}|{self.model}"
        if self.prompt != "base":
            base += f"|prompt-{self.prompt}"
        return base if self.steps == MAX_STEPS else f"{base}|steps-{self.steps}"

    @property
    def applicable(self) -> bool:
        return not ((self.constrained and self.protocol == "react-action_input")
                    or (self.choice and self.protocol != "native"))

    @classmethod
    def parse(cls, text: str) -> Config:
        """Example: Config.parse("native|guards-on|cd-on|1.5b|prompt-worked|steps-8")."""
        try:
            protocol, guards, cd, model, *rest = text.split("|")
            steps = int(rest.pop().removeprefix("steps-")) if rest and rest[-1].startswith(
                "steps-") else MAX_STEPS
            prompt = rest.pop().removeprefix("prompt-") if rest else "base"
            if rest or prompt not in PROMPT_LEVERS or not 1 <= steps <= 20:
                raise ValueError(text)
            if cd not in ("cd-on", "cd-off", "cd-choice"):
                raise ValueError(text)
            return cls(protocol, guards.removeprefix("guards-"), cd == "cd-on", model, prompt,
                       choice=cd == "cd-choice", steps=steps)
        except ValueError:
            raise SystemExit(f"Cannot read the configuration {text!r}: write it like "
                             f"'native|guards-on|cd-off|1.5b' (see --list).") from None


# The prompt lever: "worked" swaps in the rule list and the worked example written for the
# 1.5B's failures (today's date first, one city per call, the calculator for every sum, compare
# before naming a winner) -- template names for (ReAct instructions, native system prompt).
PROMPT_LEVERS = {"base": (None, None),
                 "worked": ("react_instructions_worked", "native_system_worked")}

PROTOCOLS = ("react-json", "react-action_input", "native")
ALL = [Config(p, g, c, m) for m in ("1.5b", "0.5b") for p in PROTOCOLS for g in ("off", "on")
       for c in (False, True) if Config(p, g, c, m).applicable]
# The default set: text ReAct (JSON-blob style) vs native calls with the agents' defaults
# (guards "levers" = Guards.on()), the offline 1.5B, all 72 tasks: the comparison a teacher
# needs first. 144 runs; ~12 s per run on an otherwise idle 2-core machine, so ~30 minutes.
DEFAULT = [
    Config("react-json", "levers", False, "1.5b"),
    Config("native", "levers", False, "1.5b"),
]
# The contrasts, one factor changed at a time from a default configuration: the other ReAct
# prompt style, constrained decoding on, guards off, the 0.5B. `--tasks quick` keeps it short.
EXTENDED = [
    Config("react-action_input", "on", False, "1.5b"),
    Config("native", "on", True, "1.5b"),
    Config("react-json", "on", True, "1.5b"),
    Config("native", "off", False, "1.5b"),
    Config("react-json", "off", False, "1.5b"),
    Config("react-json", "on", False, "0.5b"),
    Config("native", "on", False, "0.5b"),
]
QUICK = [Config("react-json", "levers", False, "1.5b"), Config("native", "levers", False, "1.5b")]
PROVIDER = [Config("react-json", "levers", False, "provider"),
            Config("react-action_input", "levers", False, "provider"),
            Config("native", "levers", False, "provider")]


# --- constrained decoding -----------------------------------------------------------------

def react_step_schema(registry: Any) -> dict:
    """The JSON schema of one ReAct step (JSON-blob style): a tool call or the final answer.

    The calls are `react_agent.action_schema`'s (the agents' required Action); this adds the
    final answer as one more option.
    Example: react_step_schema(default_registry())["anyOf"][0]["properties"]["action"]
             -> {"const": "get_weather"}
    """
    from reactlab.react_agent import action_schema

    options = action_schema(registry)["anyOf"]
    # No "thought" key: with one, the 1.5B wrote its answer into the thought and copied the
    # question into action_input (measured); deciding the action first avoids that.
    options.append({"type": "object", "properties": {
        "action": {"const": "Final Answer"}, "action_input": {"type": "string"}},
        "required": ["action", "action_input"], "additionalProperties": False})
    return {"anyOf": options}


class ConstrainedConnection:
    """Wraps a Connection; adds the constraint of `Config.constrained` to each request.

    Looks like a Connection to the agents (`.model`, `.client.chat.completions.create`).
    """

    def __init__(self, conn: Any, protocol: str, registry: Any, choice: bool = False):
        self._conn, self._protocol, self._choice = conn, protocol, choice
        self.model, self.provider = conn.model, getattr(conn, "provider", "")
        self._schema = react_step_schema(registry) if protocol == "react-json" else None
        self.client = self  # .client.chat.completions.create -> self.create
        self.chat = self
        self.completions = self

    def create(self, **kw: Any) -> Any:
        if self._choice:  # the server option, on every request that lets the model choose
            if kw.get("tools") and kw.get("tool_choice", "auto") == "auto":
                kw["extra_body"] = {**(kw.get("extra_body") or {}), "reactlab_choice": True}
        elif self._protocol == "react-json":
            kw["response_format"] = {"type": "json_schema", "json_schema": {
                "name": "react_step", "schema": self._schema}}
        elif self._protocol == "native" and kw.get("tools"):
            answered = any((m.get("role") if isinstance(m, dict) else getattr(m, "role", None))
                           == "tool" for m in kw.get("messages", []))
            if not answered:
                kw["tool_choice"] = "required"
        return self._conn.client.chat.completions.create(**kw)


# --- one run ------------------------------------------------------------------------------

def run_one(config: Config, task, conn: Any) -> dict:
    """Run `task` under `config` on `conn`; return its JSONL record."""
    from reactlab.fc_agent import run_function_calling
    from reactlab.guards import Guards
    from reactlab.prompts import load_template
    from reactlab.react_agent import run_react

    registry = registry_for(task)
    # "on" is the defaults as they were before the levers ("basic"); "levers" is Guards.on() now
    guards = {"on": Guards.basic, "off": Guards.off, "levers": Guards.levers,
              "grounding": lambda n: replace(Guards.on(n), grounding=True),
              # the defaults plus the server's more calls (native, reactlab's server): the one
              # eleventh-round lever left off; the round's other four are in Guards.on() now
              "next": lambda n: replace(Guards.on(n), more_calls=True),
              # the defaults plus the narrated-plan guard asking for a named tool not yet run
              "pending": lambda n: replace(Guards.on(n), pending_call=True),
              # the defaults plus the per-day hint (the calculator over the days, once)
              "perday": lambda n: replace(Guards.on(n), per_day_hints=True),
              # the defaults plus the days correction (a day count from nowhere: days_between named)
              "days": lambda n: replace(Guards.on(n), days_correction=True),
              # the conclusion correction (a comparison left unconcluded): the defaults since
              # the twentieth round, kept as a name; "noconclude" is the defaults without it
              "conclude": lambda n: replace(Guards.on(n), conclude=True),
              "noconclude": lambda n: replace(Guards.on(n), conclude=False),
              # the defaults plus the settled comparison's own wording (twenty-second round)
              "settled": lambda n: replace(Guards.on(n), settled_wording=True),
              }[config.guards](config.steps)
    use = (ConstrainedConnection(conn, config.protocol, registry, choice=config.choice)
           if config.constrained or config.choice else conn)
    react_name, native_name = PROMPT_LEVERS[config.prompt]
    t0 = time.perf_counter()
    if config.protocol == "native":
        extra = {"system_prompt": load_template(native_name)} if native_name else {}
        result = run_function_calling(task.question, tools=registry, conn=use,
                                      max_steps=config.steps, guards=guards, **extra)
    else:
        style = config.protocol.removeprefix("react-")
        extra = {"instructions": load_template(react_name)} if react_name else {}
        result = run_react(task.question, tools=registry, conn=use, max_steps=config.steps,
                           style=style, guards=guards, **extra)
    wall = time.perf_counter() - t0
    rec = record(task, result, wall)
    rec.update(config=config.id, **{f"cfg_{k}": v for k, v in asdict(config).items()},
               provider=getattr(conn, "provider", ""), model=getattr(conn, "model", rec["model"]),
               today=os.environ.get("REACTLAB_TODAY"),
               finished_at=time.strftime("%Y-%m-%dT%H:%M:%S"))
    return rec


def load_records(path: Path) -> list[dict]:
    """Every record in a JSONL file (a half-written last line is skipped)."""
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def done_keys(records: list[dict]) -> set[tuple[str, str, str]]:
    """(config, task, task digest) of runs that need no re-run (provider errors are re-run)."""
    return {(r["config"], r["task"], r["task_digest"]) for r in records
            if r.get("mode") != "provider_error"}


def provider_configured() -> bool:
    from reactlab.config import load_settings

    try:
        return not load_settings().is_local
    except Exception:  # noqa: BLE001 - a broken .env means "no provider" here
        return False


def connect_for(config: Config) -> Any:
    import reactlab

    if config.model == "provider":
        return reactlab.connect(quiet=True)
    from reactlab.connection import refuse_stale

    refuse_stale()  # figures from a server started before an edit would measure old code
    return reactlab.connect(provider="local", model=MODELS[config.model], quiet=True)


def pick_configs(spec: str | None, quick: bool) -> list[Config]:
    if quick:
        configs = list(QUICK)
    elif spec in (None, "default"):
        configs = list(DEFAULT)
    elif spec == "extended":
        configs = list(EXTENDED)
    elif spec == "all":
        configs = list(ALL)
    else:
        configs = [Config.parse(s.strip()) for s in spec.split(",") if s.strip()]
    if (spec in (None, "default", "all") and not quick) and provider_configured():
        configs += PROVIDER
    bad = [c.id for c in configs if not c.applicable]
    if bad:
        raise SystemExit(f"Not applicable (no JSON form to constrain): {', '.join(bad)}.")
    return configs


def pin_environment() -> None:
    """Same tools for every run: the pinned date and the bundled weather snapshot."""
    os.environ["REACTLAB_TODAY"] = TODAY
    os.environ["REACTLAB_WEATHER"] = "snapshot"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--configs", help="'default', 'extended', 'all' or comma-separated ids")
    ap.add_argument("--quick", action="store_true", help="11 tasks x 2 configurations")
    ap.add_argument("--tasks", help="'quick', 'all' (default) or comma-separated task ids")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSONL file to append to")
    ap.add_argument("--order", choices=("config", "task"), default="config",
                    help="config: one configuration after the other (keeps the prompt cache "
                    "warm); task: each task under every configuration in turn (a run cut short "
                    "leaves every configuration with the same tasks done)")
    ap.add_argument("--max-minutes", type=float, default=None,
                    help="stop starting new runs after this long (resume later)")
    ap.add_argument("--list", action="store_true", help="list configurations and tasks, then exit")
    args = ap.parse_args(argv)

    configs = pick_configs(args.configs, args.quick)
    if args.tasks == "quick" or (args.quick and not args.tasks):
        ids = list(QUICK_IDS)
    elif args.tasks in (None, "all"):
        ids = [t.id for t in TASKS]
    else:
        ids = [t.strip() for t in args.tasks.split(",") if t.strip()]
    unknown = [i for i in ids if i not in TASKS_BY_ID]
    if unknown:
        raise SystemExit(f"Unknown task id(s): {', '.join(unknown)}. See --list.")
    tasks = [TASKS_BY_ID[i] for i in ids]
    if args.list:
        print("configurations:\n  " + "\n  ".join(c.id for c in configs))
        print("all applicable:\n  " + "\n  ".join(c.id for c in ALL))
        print("tasks:\n  " + "\n  ".join(f"{t.id:<26} {t.kind:<10} {t.question}" for t in tasks))
        return 0

    pin_environment()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = done_keys(load_records(args.out))
    pairs = ([(c, t) for c in configs for t in tasks] if args.order == "config"
             else [(c, t) for t in tasks for c in configs])
    todo = [(c, t) for c, t in pairs if (c.id, t.id, t.digest()) not in done]
    print(f"{len(configs)} configurations x {len(tasks)} tasks: {len(todo)} runs to do, "
          f"{len(configs) * len(tasks) - len(todo)} already in {args.out}", flush=True)
    if not todo:
        return 0

    from tqdm import tqdm

    started = time.monotonic()
    solved = 0
    conns: dict[str, Any] = {}
    bar = tqdm(todo, unit="run", dynamic_ncols=True, mininterval=1.0)
    with args.out.open("a", encoding="utf-8") as out:
        for config, task in bar:
            if args.max_minutes and time.monotonic() - started > args.max_minutes * 60:
                bar.write(f"stopping after {args.max_minutes:g} minutes; run again to resume")
                break
            bar.set_description(f"{config.id} {task.id}")
            if config.model not in conns:
                conns[config.model] = connect_for(config)
            rec = run_one(config, task, conns[config.model])
            solved += rec["success"]
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
            out.flush()
            os.fsync(out.fileno())
            bar.set_postfix(solved=solved, last=f"{rec['mode']} {rec['wall_s']:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
