"""A hand-made run shared by the runlog and report tests: three steps, one of each kind of
event (a compacted observation, a loop event, a final answer). Test-only."""

from __future__ import annotations

from reactlab.runlog import RunResult, Step, ToolCallRecord, add_usage

BIG = "文" * 50_000


def sample_run(protocol: str = "function_calling", growth: int = 400) -> RunResult:
    """A three-step run: a compacted huge observation, a loop event, a final answer."""
    shown = BIG[:1000] + "\n[… 48,000 characters cut …]\n" + BIG[:1000]
    steps = [
        Step(1, "action", text="", thought="先查文档", latency_ms=812.4, prompt_tokens=300,
             completion_tokens=20, cached_tokens=0,
             tool_calls=[ToolCallRecord("search_docs", {"query": "长文"}, shown, BIG, "call_1")],
             events=[f"compacted: 50000 chars -> {len(shown)} chars"]),
        Step(2, "action", prompt_tokens=300 + growth, completion_tokens=18, cached_tokens=280,
             latency_ms=400,
             tool_calls=[ToolCallRecord("get_weather", '{"location": "北京"}', "北京: 晴 | 3°C",
                                        id="call_2")],
             events=["loop: get_weather({'location': '北京'}) repeated 3 times"]),
        Step(3, "final", text="北京晴，3°C。", prompt_tokens=300 + 2 * growth,
             completion_tokens=9, latency_ms=300),
    ]
    usage: dict = {}
    for s in steps:
        add_usage(usage, {"prompt_tokens": s.prompt_tokens,
                          "completion_tokens": s.completion_tokens,
                          "prompt_tokens_details": {"cached_tokens": s.cached_tokens}})
    return RunResult("北京今天天气怎么样？", "北京晴，3°C。", "final", steps, usage,
                     messages=[{"role": "user", "content": "北京今天天气怎么样？"}],
                     protocol=protocol, model="qwen2.5-coder-1.5b-instruct")
