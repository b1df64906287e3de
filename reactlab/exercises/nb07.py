"""Checks for notebook 07's exercises (pitfalls). Each `check_N(None)` says "not attempted yet".

check_1(run): section 1's question re-run with `Guards(observation_chars=300)`: the search
result the model was shown is cut to about 300 characters, the full text kept beside it.
check_2(teams, run=None): `ask_sales` and `ask_support`, each sending you to the other team;
with the run, it also says which detector fired (or that none did: the model may stop first).
check_3(registry): a raising `convert_to_cny` and a returning `convert_to_cny_soft`.
check_4(flag_invented): the fence marks exactly the numbers no tool returned.
None of them calls the model: they read what your code returned, or call your function on
a hand-made run.
"""

from __future__ import annotations

import re
from typing import Any

from reactlab.exercises import passed, pending, require
from reactlab.grader import grade
from reactlab.runlog import RunResult, Step, ToolCallRecord

__all__ = ["check_1", "check_2", "check_3", "check_4"]


def check_1(run: RunResult | None) -> bool | None:
    """The run's search_docs result was compacted to about 300 characters."""
    if run is None:
        return pending(1, "set `answer_1` to the run of section 1's question with "
                          "Guards(observation_chars=300)")
    require(1, isinstance(run, RunResult), "`answer_1` should be the RunResult that "
            "run_function_calling returned")
    searches = [c for s in run.steps for c in s.tool_calls if c.name == "search_docs" and not c.error]
    require(1, searches, "the run made no successful search_docs call: pass tool_choice as "
            "section 1 does, so the first request must search")
    cut = [c for c in searches if c.full_observation and len(c.observation) < len(c.full_observation)]
    require(1, cut, "the search result was not cut: pass guards=Guards(observation_chars=300)")
    shown, full = len(cut[0].observation), len(cut[0].full_observation)
    require(1, shown <= 400, f"the model was shown {shown} characters; with "
            "observation_chars=300 it should be about 300 (plus the cut marker)")
    return passed(1, f"the model saw {shown:,} of the result's {full:,} characters; the rest is in "
                     "full_observation, where you can look for the etiquette the answer needed\n"
                     f"   the run's {grade(run)}")


def _text(result: Any) -> tuple[str, bool]:
    return (str(result[0]), bool(result[1])) if isinstance(result, tuple) else (str(result), False)


def check_2(teams: Any, run: RunResult | None = None) -> bool | None:
    """Two tools that send you to each other; with a run, the detector that fired."""
    if teams is None:
        return pending(2, "set `answer_2` to a ToolRegistry of ask_sales and ask_support")
    require(2, hasattr(teams, "run") and hasattr(teams, "names"),
            "`answer_2` should be a ToolRegistry([ask_sales, ask_support])")
    require(2, {"ask_sales", "ask_support"} <= set(teams.names()),
            f"the registry holds {teams.names()}; it needs ask_sales and ask_support")
    others = {"ask_sales": ("support", "售后", "客服", "支持"), "ask_support": ("sales", "销售")}
    for name, words in others.items():
        schema = teams.get(name).parameters.get("properties", {})
        args = {k: "我的订单 A-1001 能退款吗？" for k in schema}
        text, error = _text(teams.run(name, args))
        require(2, not error, f"{name}({args}) failed: {text}")
        require(2, any(w in text.lower() for w in words),
                f"{name} answered {text!r}; it should send you to the other team")
    why = "each tool sends you to the other team"
    if run is not None:
        require(2, isinstance(run, RunResult), "`run` should be the RunResult of the agent run")
        events = [e for s in run.steps for e in s.events if e.startswith("loop")]
        why += (f"; the detector fired: {events[0]}" if events else
                f"; no detector fired in this run (status {run.status!r}: read its steps to "
                "see how it ended)")
        why += f"\n   the run's {grade(run)}"
    return passed(2, why)


def check_3(registry: Any) -> bool | None:
    """convert_to_cny raises on 美元 (a tool error); convert_to_cny_soft returns an error dict."""
    if registry is None:
        return pending(3, "set `answer_3` to ToolRegistry([convert_to_cny, convert_to_cny_soft])")
    require(3, hasattr(registry, "run") and hasattr(registry, "names"),
            "`answer_3` should be a ToolRegistry holding both versions")
    require(3, {"convert_to_cny", "convert_to_cny_soft"} <= set(registry.names()),
            f"the registry holds {registry.names()}; it needs convert_to_cny and "
            "convert_to_cny_soft")
    for name in ("convert_to_cny", "convert_to_cny_soft"):
        text, error = _text(registry.run(name, {"amount": 100, "currency": "USD"}))
        require(3, not error and "710" in text.replace(",", ""),
                f"{name}(100, 'USD') gave {text!r}; at the rate 7.1 it should say 710")
    strict, strict_error = _text(registry.run("convert_to_cny", {"amount": 100, "currency": "美元"}))
    require(3, strict_error, f"convert_to_cny(100, '美元') came back as a success ({strict!r}); "
            "it should raise, so the registry reports a tool error")
    soft, soft_error = _text(registry.run("convert_to_cny_soft", {"amount": 100, "currency": "美元"}))
    require(3, not soft_error and "error" in soft.lower(),
            f"convert_to_cny_soft(100, '美元') gave {soft!r} (error flag {soft_error}); it should "
            "return {'error': …}, a successful call whose text says error")
    return passed(3, "the raising version is flagged is_error=True in the log; the returning one "
                     "is a success whose text says error: the model reads both, a dashboard "
                     "counts only the first")


def _sample() -> RunResult:
    obs = "贵州茅台 (600519.SH) closing price: 1488.21 CNY on 2025-04-25"
    answer = "贵州茅台的收盘价是1488.21元，五粮液的收盘价是150.2元。"
    call = ToolCallRecord("get_closing_price", {"name": "贵州茅台"}, obs)
    return RunResult("五粮液和贵州茅台的收盘价分别是多少？", answer, "final",
                     [Step(1, "action", tool_calls=[call]), Step(2, "final", text=answer)])


def check_4(flag_invented: Any) -> bool | None:
    """flag_invented(run) marks 150.2 (no tool returned it) and leaves 1488.21 alone."""
    if flag_invented is None:
        return pending(4, "set `answer_4` to your function flag_invented")
    require(4, callable(flag_invented), "`answer_4` should be the function itself "
            "(flag_invented, without calling it)")
    run = _sample()
    out = flag_invented(run)
    require(4, isinstance(out, str), f"flag_invented returned {type(out).__name__}; it should "
            "return the answer text with the marks")
    require(4, out.replace("[?]", "") == run.answer,
            f"apart from the [?] marks the answer should be unchanged; got {out!r}")
    near = re.compile(r"\[\?\]\s*150\.2|150\.2\s*\[\?\]")
    require(4, near.search(out), f"150.2 comes from no tool result but is not marked: {out!r}")
    require(4, out.count("[?]") == 1, f"only 150.2 is invented (1488.21 is the tool's): {out!r}")
    return passed(4, f"on a made-up run it gives {out!r}")
