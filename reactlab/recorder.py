"""The recorder: grade a run that some other code drove (LangChain, smolagents, an Agents SDK).

A framework's agent does not return a `RunResult`, and each keeps its history in its own
shape. What every one of them does is call *our* Python functions. So `ToolRecorder.wrap`
gives a framework the course tool with the same name, signature and docstring (their
decorators read those to build the tool's schema), and writes down each call it makes:
arguments, the result the model was shown, or the error. `result(question, answer)` then
builds the `RunResult` the grader reads, one "action" step per call and a "final" step with
the framework's answer:

    rec = ToolRecorder()
    weather = rec.wrap(get_weather)            # give `weather` to the framework's tool decorator
    answer = …framework run…
    print(grade(rec.result("广州现在多少度？", answer, framework="langchain")))

Deliberately NOT here: calling a model, knowing any framework's classes (the notebook and the
tests import those), or the model's own text between calls (only the tools are witnessed; a
framework's own trace has that). A simplification: calls are one step each, in the order
they ran, even when the model asked for two at once. Introduced in notebook 09 (frameworks).
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

from reactlab.loop_detector import canonical_args
from reactlab.runlog import RunResult, Step, ToolCallRecord


class ToolRecorder:
    """Wrap tools, let a framework call them, then build a RunResult from what happened.

    Example: rec = ToolRecorder(); w = rec.wrap(get_weather); w("广州") -> "广州: 24.2°C …";
             rec.calls[0].arguments -> {"location": "广州"}
    """

    def __init__(self):
        self.calls: list[ToolCallRecord] = []
        self._lock = threading.Lock()  # frameworks may run two tools at once, in threads

    def wrap(self, tool: Any) -> Callable:
        """A plain function that behaves like `tool` (a reactlab Tool or a function) and records.

        The wrapper has `tool`'s name, docstring, annotations and signature, so LangChain's
        `@tool`, smolagents' `@tool` and the Agents SDK's `function_tool` describe it exactly
        as they would describe the original. A tool error is recorded, then re-raised for the
        framework to handle (each shows the model its own error message).
        """
        func = getattr(tool, "func", tool)  # a reactlab Tool keeps the function in .func
        signature = inspect.signature(func)
        name = getattr(tool, "name", None) or func.__name__

        def recorded(*args, **kwargs):
            arguments = dict(signature.bind(*args, **kwargs).arguments)
            try:
                out = func(*args, **kwargs)
            except Exception as exc:
                self._add(ToolCallRecord(name, arguments, f"{type(exc).__name__}: {exc}",
                                         error=True))
                raise
            self._add(ToolCallRecord(name, arguments, str(out)))
            return out

        recorded = functools.update_wrapper(recorded, func)
        # No __wrapped__: smolagents would read the original's source and warn about its
        # decorator; an explicit signature keeps the parameters visible to everyone else.
        del recorded.__wrapped__
        recorded.__signature__ = signature
        return recorded

    def _add(self, record: ToolCallRecord) -> None:
        with self._lock:
            record.id = f"call_{len(self.calls)}"
            self.calls.append(record)

    def clear(self) -> None:
        """Forget the calls so far (one recorder, several runs)."""
        with self._lock:
            self.calls = []

    def repeats(self) -> dict[str, int]:
        """Calls made more than once with the same arguments: "name(args)" -> how many times.

        Example: three get_weather("广州") -> {'get_weather({"location":"广州"})': 3}
        """
        counts = Counter(f"{c.name}({canonical_args(c.arguments)})" for c in self.calls)
        return {call: n for call, n in counts.items() if n > 1}

    def result(self, question: str, answer: str | None, *, framework: str = "",
               status: str | None = None, error: str | None = None) -> RunResult:
        """The RunResult of the run these calls belong to, for `grade`.

        `answer` is the framework's final text. None means it raised: pass the status that
        fits ("max_steps" for a turn limit; the default "provider_error" for a failed
        request) and the `error`. Example: rec.result("广州现在多少度？", "广州现在 24.2°C。")
        .status -> "final"
        """
        steps = [Step(i + 1, "action", tool_calls=[call]) for i, call in enumerate(self.calls)]
        final = Step(len(steps) + 1, "final", text=answer or "")
        final.events += [f"the same call ran {n} times: {call}"
                         for call, n in self.repeats().items()]
        steps.append(final)
        return RunResult(question, answer, status or ("final" if answer is not None
                                                         else "provider_error"),
                         steps=steps, protocol=framework, error=error,
                         meta={"framework": framework} if framework else {})
