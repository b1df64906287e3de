"""Turn one agent run into one benchmark record: success, failure mode, counts, a short trace.

Failure modes (exactly one per failed run, decided in this order from the RunResult):

| mode | precise rule |
|---|---|
| `provider_error` | `status` is `"provider_error"` (the request failed: network, HTTP, server, a reply that is not a chat completion) or `"error"` (reactlab itself failed) |
| `loop` | `status == "loop"`: the loop detector fired twice |
| `format_error` | the "answer" is a tool call written out as a JSON blob (`{"action": "get_…", "action_input": …}`), whatever the checker says; or `status == "parse_errors"`; or a step/token budget ran out while at least half of the model's steps (the closing final request excluded) were unparsable or empty replies |
| `step_limit` | `status` is `"max_steps"` or `"max_tokens"` (the other budget ends) |
| `invented_data` | the model ended with an answer that states a figure no tool result and not the question gives (compared by value, roundings allowed: `reactlab.figures`), although a fact the task needs never came back from a successful tool call (`Task.needs`); or a reply carried an `Observation:` line the model wrote itself |
| `incomplete` | a needed fact never came back, but every figure the answer states did come from a tool result or the question (or rounds one): the model answered part of the question and stopped — nothing invented |
| `wrong_answer` | everything else: the facts were fetched (or none were needed) and the answer is still wrong — bad arithmetic, one city's number copied to the other, a missing part — or the answer states no number at all (empty, "<tools></tools>") |

Success is the task's anchors in `RunResult.answer` (`tasks.check`) AND the grader's verdict
on it (`verdict`: `reactlab.grader.grade` with the task's figures, winner and parts), whatever
the status: an answer given in the closing "answer with what you have" request after a budget
ran out counts if it is right (`record["after_budget"]` marks it). An answer with its anchors
that the grader rejects (a backwards comparison, a figure about the wrong name, an invented
price, its own Observation line) fails with the grader's mode and reasons. The mode names,
their order and the figure, status and Observation rules come from `reactlab.grader`; each
record carries the verdict's line (`record["verdict"]`). This module does not call a model; it
is tested on fake RunResults in tests/test_benchmarks.py.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from benchmarks.tasks import TASKS_BY_ID, Task, check, expected
from reactlab import claims, figures, grader
from reactlab.grader import CALL_AS_ANSWER, OWN_OBSERVATION, Verdict, grade
from reactlab.runlog import RunResult, Step, ToolCallRecord

MODES = grader.MODES  # the grader's names, in its order (the report reads them from here)
BUDGET_ENDS = grader.BUDGET_ENDS

MODE_TEXT = {
    "provider_error": "the request failed (network, HTTP or server error)",
    "loop": "the loop detector fired twice: the same call over and over",
    "format_error": "replies the parser could not read, or empty replies",
    "step_limit": "the step (or token) budget ran out",
    "invented_data": "stated a figure it never fetched (or wrote its own Observation)",
    "incomplete": "answered before fetching every fact it needed; its figures are real",
    "wrong_answer": "had the facts (or needed none) and answered wrongly, incompletely or "
                    "with no figure at all",
}


def _get(obj: Any, key: str, default: Any = None) -> Any:
    return obj.get(key, default) if isinstance(obj, dict) else getattr(obj, key, default)


def needs_met(task: Task, steps: list) -> list[str]:
    """The needed facts the model was never shown by a successful call; [] when all were.

    Example: a t13 run that only fetched 北京 -> ["get_weather:广州"]
    """
    unmet = []
    for tool, text in task.needs:
        found = False
        for step in steps:
            for call in _get(step, "tool_calls", []) or []:
                if _get(call, "name") != tool or _get(call, "error"):
                    continue
                # what the model was SHOWN: a fact cut out by observation compaction never
                # reached it (measured: the 2,000-character cut hid "3 × AA" in t27)
                if text in (_get(call, "observation") or ""):
                    found = True
        if not found:
            unmet.append(f"{tool}:{text}")
    return unmet


def wrote_own_observation(steps: list) -> bool:
    """A reply (not a tool result) with an `Observation:` line: the model made one up."""
    return any(_get(s, "kind") in ("action", "final", "parse_error")
               and OWN_OBSERVATION.search(_get(s, "text") or "") for s in steps)


def unsupported_figures(answer: str | None, sources: list[str]) -> list[str]:
    """Figures in `answer` that none of `sources` (observations, the question) gives, compared
    by value as the grader does (`reactlab.figures`): "1,530" is 1530, 1488 is a rounding of
    1488.21, but "2" is not in "2026". Example: unsupported_figures("北京 23.4°C，广州 25°C",
    ["北京: 23.4°C"]) -> ["25"]

    No arithmetic is credited here: the stored traces do not keep the tools' inputs, so a
    product of a made-up price (200 × 12.50 -> 2500) would pass as derived.
    """
    run = RunResult(question="", answer=answer, status="final", steps=[Step(1, "action", tool_calls=[
        ToolCallRecord(name="source", arguments={}, observation=s or "") for s in sources])])
    return figures.unsupported_figures(answer, run, steps=0)


def observations(steps: list) -> list[str]:
    """Every tool result the model was shown in `steps` (RunResult steps or their dicts)."""
    return [_get(c, "observation") or "" for s in steps for c in _get(s, "tool_calls", []) or []]


def _run(result: Any) -> RunResult:
    return result if isinstance(result, RunResult) else RunResult.from_dict(result)


def _without(text: str, names: tuple[str, ...]) -> str:
    """`text` with every spelling of `names` cut out.

    Example: _without("上海 (Shanghai) 天气？", ("上海",)) -> "  ( ) 天气？"
    """
    spellings = {s for n in names for s in (n, *claims.course_names().get(n, ()))}
    for s in sorted(spellings, key=len, reverse=True):
        text = re.sub(re.escape(s), " ", text or "", flags=re.IGNORECASE)
    return text


def verdict(task: Task, result: Any) -> Verdict:
    """The grader's verdict on the run's answer, told the task's figures, winner and parts.

    The run is judged as if it had ended with its answer (status "final"): as for the checker,
    an answer after a budget ran out counts. Also vouched for: the answer's figures that a
    failed call's message gives ("Known stocks: 青岛啤酒 (600600)" is no invention); the
    `unavailable` names are cut out of the question, so they are not parts to cover. A task
    that needs no tool is judged without the run's tool calls, all its figures vouched for
    (common knowledge the grader cannot check; the anchors check what the task asks).

    Example: t14 after 67.92 and 1488.21, "青岛啤酒 67.92，贵州茅台 1488.21，青岛啤酒更贵"
    -> verdict ✘ (wrong_answer): the comparison is backwards.
    """
    run = dataclasses.replace(_run(result), question=task.question)
    if run.status not in ("provider_error", "error"):
        run = dataclasses.replace(run, status="final")
    if task.unavailable:  # told no parts, the grader takes the question's names as the parts
        run = dataclasses.replace(run, question=_without(run.question, task.unavailable))
    if task.calls == 0:  # judged on its own words: a call it did not need is no evidence
        run = dataclasses.replace(run, steps=[dataclasses.replace(s, tool_calls=[])
                                              for s in run.steps or []])
    stated = figures.figures(run.answer)
    failed = figures.Pool({figures.value(f) for s in run.steps or [] for c in s.tool_calls or []
                           if c.error for f in figures.figures(c.observation)})
    vouched = stated if task.calls == 0 else [f for f in stated
                                               if failed.supports(figures.value(f))]
    return grade(run, expected(task, run.answer, tuple(vouched)))


def classify(task: Task, result: Any) -> tuple[bool, str, list[str]]:
    """(success, mode, what is missing or wrong); mode is "solved" on success.

    `result` is a RunResult or its to_dict(). Example: a final answer "北京 23.4°C" for t05
    -> (True, "solved", [])
    """
    steps = _get(result, "steps", []) or []
    return decide(task, _get(result, "status"), _get(result, "answer"),
                  [(_get(s, "kind"), _get(s, "text") or "") for s in steps],
                  needs_met(task, steps), observations(steps), verdict(task, result))


def decide(task: Task, status: str, answer: str | None, steps: list[tuple[str, str]],
           unmet: list[str], shown: list[str] | None = None,
           judged: Verdict | None = None) -> tuple[bool, str, list[str]]:
    """The failure-mode rules on plain data: steps as (kind, raw text), unmet needs, the tool
    results the model was shown (`shown`; None = unknown, then any figure counts as invented
    when a need is unmet, the rule of the first benchmark runs) and the grader's verdict
    (`judged`; None = anchors only, the rule before the grader).

    Also used by the report to re-classify stored records (see `reclassify`).
    """
    ok, missing = check(task, answer)
    if status in ("provider_error", "error"):
        return False, "provider_error", missing
    if ok and CALL_AS_ANSWER.search(answer or ""):
        # a tool call written out as the "answer" (seen under constrained decoding, where the
        # closing request still got a blob): the checker's names may sit in its arguments
        return False, "format_error", missing
    states_figure = bool(re.search(r"\d", answer or ""))
    if ok and (judged is None or judged.ok):
        # the grader is told the anchors' figures, so it credits a right figure the model
        # never fetched: a lucky guess while a needed fact never came back is invented
        if states_figure and unmet and shown is not None and unsupported_figures(
                answer, [*shown, task.question]):
            why = f"a right figure from no tool result: {', '.join(unmet)} never came back"
            return False, "invented_data", [why]
        return True, "solved", []
    if ok:  # the anchors are there, but the answer is not what the run supports
        if states_figure and unmet and (shown is None or unsupported_figures(
                answer, [*shown, task.question])):
            return False, "invented_data", judged.reasons
        return False, judged.mode or "wrong_answer", judged.reasons
    if status == "loop":
        return False, "loop", missing
    model_steps = [k for k, _ in steps if k != "final_request"]
    bad = sum(k in ("parse_error", "empty") for k in model_steps)
    if status == "parse_errors" or (status in BUDGET_ENDS and model_steps
                                    and bad * 2 >= len(model_steps)):
        return False, "format_error", missing
    if status in BUDGET_ENDS:
        return False, "step_limit", missing
    own_observation = any(k in ("action", "final", "parse_error") and OWN_OBSERVATION.search(t)
                          for k, t in steps)
    # Invented data states a figure: an answer with no number at all ("<tools></tools>",
    # "I cannot tell") is a wrong answer, not an invention.
    if states_figure and own_observation:
        return False, "invented_data", missing
    if states_figure and unmet:
        if shown is None or unsupported_figures(answer, [*shown, task.question]):
            return False, "invented_data", missing
        return False, "incomplete", missing
    return False, "wrong_answer", missing


_CUT = re.compile(r" …\[\d+ more\]$")  # the tail `_short` gives a cut text


def _call_of(stored: list) -> ToolCallRecord:
    """A trace's [name, arguments, observation, error] as a ToolCallRecord. An observation the
    trace cut (only search_docs results are that long) is fetched again: the course tools
    answer from bundled data, so the call gives what it gave in the run (or more, where the
    run's compaction hid a part: the grader then errs on the side of the model)."""
    name, args, obs, error = stored
    args = args if isinstance(args, (dict, str)) else {}
    if obs and _CUT.search(obs) and not error:
        from reactlab.tools import default_registry

        again, failed = default_registry().run(name, args)
        obs = obs if failed else again
    return ToolCallRecord(name=name, arguments=args, observation=obs or "", error=bool(error))


def from_record(task: Task, rec: dict) -> RunResult:
    """A stored record's run, rebuilt from its trace for the grader: each reply's first 700
    characters, each tool result (see `_call_of`), the task's question."""
    steps = [Step(s.get("n") or i, s.get("kind") or "", text=s.get("text") or "",
                  tool_calls=[_call_of(c) for c in s.get("calls", [])])
             for i, s in enumerate(rec.get("trace", []), 1)]
    return RunResult(question=task.question, answer=rec.get("answer"),
                     status=rec.get("status") or "", steps=steps)


def reclassify(rec: dict) -> tuple[bool, str]:
    """(success, mode) of a stored record under the current rules (None task: unchanged)."""
    task = TASKS_BY_ID.get(rec.get("task"))
    if task is None or "trace" not in rec:
        return rec["success"], rec["mode"]
    ok, mode, _ = decide(task, rec.get("status"), rec.get("answer"),
                         [(s.get("kind"), s.get("text") or "") for s in rec["trace"]],
                         rec.get("needs_unmet", []),
                         [c[2] or "" for s in rec["trace"] for c in s.get("calls", [])],
                         verdict(task, from_record(task, rec)))
    return ok, mode


def _short(value: Any, limit: int) -> Any:
    if isinstance(value, str) and len(value) > limit:
        return value[: limit - 20] + f" …[{len(value) - limit + 20} more]"
    return value


def trace(steps: list, limit: int = 700) -> list[dict]:
    """A compact copy of the steps for the JSONL record (texts cut to `limit` characters)."""
    out = []
    for s in steps:
        out.append({
            "n": _get(s, "number"), "kind": _get(s, "kind"), "text": _short(_get(s, "text"), limit),
            "calls": [[_get(c, "name"), _short(_get(c, "arguments"), 300),
                       _short(_get(c, "observation"), 240), bool(_get(c, "error"))]
                      for c in _get(s, "tool_calls", []) or []],
            "error": _short(_get(s, "error"), 300), "events": _get(s, "events", []),
            "pt": _get(s, "prompt_tokens", 0), "ct": _get(s, "completion_tokens", 0),
            "cached": _get(s, "cached_tokens", 0), "ms": round(_get(s, "latency_ms", 0) or 0),
        })
    return out


def record(task: Task, result: Any, wall_s: float) -> dict:
    """Everything the report needs about one run (config fields are added by the runner)."""
    steps = _get(result, "steps", []) or []
    usage = _get(result, "usage", {}) or {}
    success, mode, missing = classify(task, result)
    calls = [c for s in steps for c in (_get(s, "tool_calls", []) or [])]
    pt, ct = int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))
    return {
        "task": task.id, "task_digest": task.digest(), "lang": task.lang, "kind": task.kind,
        "calls_needed": task.calls, "success": success, "mode": mode, "missing": missing,
        "status": _get(result, "status"), "after_budget": success and _get(result, "status") != "final",
        "answer": _short(_get(result, "answer"), 1500), "error": _get(result, "error"),
        "steps": len(steps), "tool_calls": len(calls),
        "tool_errors": sum(bool(_get(c, "error")) for c in calls),
        "parse_errors": sum(_get(s, "kind") == "parse_error" for s in steps),
        "empty_replies": sum(_get(s, "kind") == "empty" for s in steps),
        "needs_unmet": needs_met(task, steps),
        "guard_events": [e for s in steps for e in (_get(s, "events", []) or [])],
        "prompt_tokens": pt, "completion_tokens": ct,
        "cached_tokens": int(usage.get("cached_tokens", 0)), "total_tokens": pt + ct,
        "wall_s": round(wall_s, 2), "model": _get(result, "model"),
        "verdict": str(verdict(task, result)),
        "trace": trace(steps),
    }
