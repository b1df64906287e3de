"""Folding: older steps (or turns) become one summary message, one line each.

The agents render every request from their step records; when `Guards.fold_point` says the
first N steps are folded, the protocol puts `summary(steps[:N])` where those steps' messages
would have been. Both message layouts (ReAct's scratchpad and chat, native tool calls) use the
same lines, and multi-turn memory folds old question/answer turns with `turns_summary`.

Example line: "step 1: get_weather({'location': '北京'}) -> 北京: 晴, 3.1°C, humidity 20 % …"

It deliberately does NOT call a model to summarise (the lines are text surgery: cheap,
predictable, lossy), re-read messages, or decide *when* to fold (that is `guards`).
Introduced in notebook 07 (history compression); the memory side in notebook 08.
"""

from __future__ import annotations

from reactlab.compaction import shorten
from reactlab.loop_detector import format_call
from reactlab.prompts import render_template
from reactlab.runlog import Step

HELD_BACK_OPENING = "Not run:"  # how the held_back templates open (loop._held)


def step_line(step: Step) -> str:
    """One step as one line: its calls and what came back, or what it said, plus our note.

    Example: step_line(Step(1, "empty", feedback="Your reply was empty. …"))
             -> "(empty reply); [note: Your reply was empty. If a part of the question s…]"
    """
    parts = [f"{format_call(c.name, c.arguments)} -> {shorten(c.observation, 80)}"
             for c in step.tool_calls]
    if not parts:
        if step.kind == "parse_error":
            parts.append(f"an unreadable reply -> {shorten(step.error, 80)}")
        elif step.text.strip():
            parts.append(f"replied: {shorten(step.text, 100)}")
        else:
            parts.append("(empty reply)")
    if step.feedback:
        parts.append(f"[note: {shorten(step.feedback, 50)}]")
    return "; ".join(parts)


def steps_summary(steps: list[Step]) -> str:
    """The summary message that stands in for `steps` (the steps_summary template).

    Example: steps_summary([s1, s2]) -> "Summary of earlier steps (…):\\nstep 1: …\\nstep 2: …"
    """
    lines = [f"step {s.number}: {step_line(s)}" for s in steps]
    return render_template("steps_summary", lines="\n".join(lines))


def results_list(steps: list[Step], chars: int = 2000) -> str:
    """Every call that ran in `steps`, one line each with what came back (calls the guards held
    back are left out: they never ran); "(none)" when nothing ran. Used by the plain closing
    request (`Guards.plain_closing`).

    Example: results_list([s1]) -> "- get_weather({'location': '北京'}) -> 北京: 23.4°C, …"
    """
    lines = [f"- {format_call(c.name, c.arguments)} -> {shorten(c.observation, chars)}"
             for s in steps for c in s.tool_calls
             if not str(c.observation).startswith(HELD_BACK_OPENING)]
    return "\n".join(lines) or "(none)"


def turns_summary(turns: list[tuple[str, str]], chars: int = 80) -> str:
    """Folded chat turns, each question and answer shortened (the turns_summary template).

    Example: turns_summary([("北京天气？", "晴，3°C")]) -> "Summary of our earlier conversation
             (older turns, shortened):\\n- Q: 北京天气？ → A: 晴，3°C"
    """
    lines = [f"- Q: {shorten(q, chars)} → A: {shorten(a, chars)}" for q, a in turns]
    return render_template("turns_summary", lines="\n".join(lines))
