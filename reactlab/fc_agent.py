"""Native function calling: `tools=` in, `tool_calls` out, `role: "tool"` back.

Like the ReAct step in `react_agent`, this is one protocol step on top of the loop in
`reactlab.loop`, except that the provider (or reactlab's server) has already turned the
model's text into structured `tool_calls`, so there is nothing to parse:

1. send the question with the registry's tools (`tools=registry.openai_tools()`);
2. if the reply has `tool_calls`, echo the assistant message with exactly those calls, run
   them (`reactlab.tools.execute_calls`: concurrently when independent, results in call order)
   and answer every call id with exactly one `role: "tool"` message before the next request;
3. a reply without tool calls is the answer — unless it is empty (re-ask with a nudge), or a
   plan that names one of the tools ("I'll call get_today first…"): that is a format error
   (`Guards.narrated_calls`), since nothing ran; the next request requires the call, and a
   second plan is followed by one request without tools, so the model can only answer.
   With `Guards.pending_call` (off by default) the call asked for is a named tool that has
   not run yet, and a second plan naming one gets that call instead of the answer-only request.

Arguments that are not JSON, unknown tools and tools that raise become tool messages that say
what went wrong. DeepSeek's `reasoning_content` goes back on assistant messages that carry
tool calls (its API requires it); `<think>…</think>` blocks are stripped and never taken as the
answer. `stream=True` runs the same loop over SSE chunks.

It deliberately does NOT parse tool calls out of text (the server or provider does that — see
`reactlab.server`), retry provider errors (a run ends with status "provider_error"), or run
async. Introduced in notebook 05 (native calls, streamed deltas, parallel calls).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from reactlab.completion import Reply
from reactlab.folding import HELD_BACK_OPENING, steps_summary
from reactlab.guards import Guards
from reactlab.loop import EmptyReply, FormatError, as_registry, run_loop, run_tools
from reactlab.prompts import load_template, render_template
from reactlab.runlog import ANSWER_ONLY, RunResult, Step
from reactlab.tools import ToolRegistry

DEFAULT_SYSTEM_PROMPT = load_template("native_system")

_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)


def split_think(text: str | None) -> tuple[str, str]:
    """(answer text, thinking) — `<think>` blocks removed, an unclosed one runs to the end.

    A lone `</think>` (templates that open the block inside the prompt) ends the thinking too.
    Example: split_think("<think>先查日期</think>今天是 3 月 1 日") -> ("今天是 3 月 1 日", "先查日期")
    """
    text = text or ""
    thoughts = [m.group(0) for m in _THINK.finditer(text)]
    rest = _THINK.sub("", text)
    if "</think>" in rest.lower():
        cut = rest.lower().rindex("</think>")
        thoughts.insert(0, rest[:cut])
        rest = rest[cut + len("</think>"):]
    thinking = "\n".join(re.sub(r"</?think>", "", t, flags=re.IGNORECASE).strip()
                         for t in thoughts).strip()
    return rest.strip(), thinking


@dataclass
class NativeStep:
    """The native protocol: render messages from the steps, run the reply's tool calls."""

    registry: ToolRegistry
    guards: Guards
    question: str
    system_prompt: str | None = DEFAULT_SYSTEM_PROMPT
    history: tuple[dict, ...] = ()
    stream: bool = False
    parallel: bool = True
    temperature: float = 0.0
    max_tokens: int = 512
    tool_choice: Any = "auto"
    name: str = "function_calling"
    narrations: int = field(default=0, repr=False)  # plans that named a tool, sent back so far

    # --- what goes out -------------------------------------------------------------------

    def request(self, messages: list[dict], with_tools: bool,
                require_call: str | None = None, own_server: bool = False) -> dict:
        kw: dict[str, Any] = {"messages": messages, "temperature": self.temperature,
                              "max_tokens": self.max_tokens}
        tools = self.registry.openai_tools() if with_tools else None
        if tools:  # tool_choice without tools is a 400 on most servers
            kw["tools"], kw["tool_choice"] = tools, self.tool_choice
            if require_call and self.tool_choice == "auto":  # a guard asked for a call
                kw["tool_choice"] = ("required" if require_call not in self.registry else
                                     {"type": "function", "function": {"name": require_call}})
        return kw

    def render(self, steps: list[Step], folded: int, closing: str | None) -> list[dict]:
        """[system], earlier turns, the question, then each step's messages."""
        messages = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        messages += [dict(m) for m in self.history]
        messages.append({"role": "user", "content": self.question})
        if folded:
            messages.append({"role": "user", "content": steps_summary(steps[:folded])})
        for step in steps[folded:]:
            messages += self._turn(step)
        if closing:
            messages.append({"role": "user", "content": closing})
        return messages

    def _turn(self, step: Step) -> list[dict]:
        messages: list[dict] = []
        if step.tool_calls:
            echo: dict[str, Any] = {"role": "assistant", "content": step.text or None,
                                    "tool_calls": [_wire(c) for c in step.tool_calls]}
            if step.reasoning:  # DeepSeek thinking mode: required back on tool-call turns
                echo["reasoning_content"] = step.reasoning
            messages.append(echo)
            messages += [{"role": "tool", "tool_call_id": c.id, "content": c.observation}
                         for c in step.tool_calls]
        elif step.kind not in ("empty", "ungrounded"):  # a rejected draft is not shown again
            messages += self.said(step)
        if step.feedback:  # after every tool message: nothing may come between calls and results
            messages.append({"role": "user", "content": step.feedback})
        return messages

    def said(self, step: Step) -> list[dict]:
        answer, _ = split_think(step.text)
        return [{"role": "assistant", "content": answer}] if answer else []

    # --- what comes back -----------------------------------------------------------------

    def read(self, reply: Reply, step: Step, steps: list[Step] = ()) -> str | None:
        answer, thinking = split_think(reply.content)
        step.reasoning = reply.reasoning
        step.thought = reply.reasoning or thinking or None
        if reply.tool_calls:
            step.thought = step.thought or answer or None  # text beside the calls is a thought
            run_tools(self.registry, reply.tool_calls, self.guards, step, parallel=self.parallel,
                      question=self.question, earlier=list(steps))
            return None
        again = self.narrations == 1 and self.guards.quiet_retry  # a second plan gets one more try
        named = self.guards.narrated(answer, self.registry.names()) if (
            not self.narrations or again) else []
        # `pending_call`: the named tools that have not run (never called, or held back); a plan
        # naming a tool that ran (days_between) beside one held back (calculator) asks for that
        # (a reply naming every tool lists them rather than plans: t48 named all five)
        pending = [n for n in named if n not in _ran(steps)] if (
            self.guards.pending_call and len(named) < len(self.registry.names())) else []
        if named and (not self.narrations or pending):
            # A plan that names a tool is not an answer: nothing ran. The next request
            # requires the call: by name when the plan named one tool (one still to run).
            ask = pending or named
            self.narrations += 1
            raise FormatError(error=f"the reply names {', '.join(named)} but makes no tool call",
                              feedback=render_template("narrated_call", names=", ".join(named),
                                                       first=ask[0]),
                              require_call=ask[0] if len(ask) == 1 else "any")
        if named:
            # A plan again, after the call it asked for ran: the next request goes without
            # tools, so the model can only answer from the results. The bound is two extra
            # steps per run; a third plan is taken as the answer.
            self.narrations = 2
            raise FormatError(error=f"the reply names {', '.join(named)} again instead of "
                                    "answering", feedback=load_template("narrated_again"),
                              require_call=ANSWER_ONLY)
        if not answer:  # common on the 1.5B right after a tool result
            raise EmptyReply(feedback=load_template("empty_reply"))
        step.kind = "final"
        return answer

    def read_closing(self, reply: Reply, step: Step) -> str | None:
        answer, thinking = split_think(reply.content)
        step.reasoning = reply.reasoning
        step.thought = reply.reasoning or thinking or None
        if reply.tool_calls:  # asked for tools anyway: recorded, never run
            step.events.append(f"ignored {len(reply.tool_calls)} tool call(s) in the final request")
        return answer


def _ran(steps: Any) -> set[str]:
    """Names of the tools that ran in `steps`, with or without an error: a call the guards
    held back ("Not run: …") did not run."""
    return {c.name for s in steps for c in s.tool_calls
            if not c.observation.startswith(HELD_BACK_OPENING)}


def _wire(call: Any) -> dict:
    """A recorded call as it goes back on the echoed assistant message: the model's own text."""
    args = call.raw_arguments
    if args is None:
        args = call.arguments if isinstance(call.arguments, str) else json.dumps(
            call.arguments, ensure_ascii=False)
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": args}}


def run_function_calling(question: str, tools: Any = None, conn: Any = None, max_steps: int = 6,
                         *, guards: Guards | None = None, stream: bool = False,
                         parallel: bool = True, temperature: float = 0.0, max_tokens: int = 512,
                         tool_choice: Any = "auto", system_prompt: str | None = DEFAULT_SYSTEM_PROMPT,
                         history: list | None = None, verbose: bool = False,
                         on_step: Callable[[Step], Any] | None = None) -> RunResult:
    """Answer `question` with native tool calls; never raises because the model or provider
    misbehaved.

    `max_steps` (model calls, not counting the closing final request) overrides
    `guards.max_steps`; `guards=None` means `Guards.on()`. `history` is inserted between the
    system prompt and the question (earlier turns).

    Example: r = run_function_calling("今天是几号？到 2027-01-01 还有多少天？如果这些天每天存 5 元，"
             "一共能存多少？"); [c.name for s in r.steps for c in s.tool_calls]
             -> ['get_today', 'days_between', 'calculator'] (on a model that plans well)
    """
    g = (guards or Guards.on()).fresh(max_steps)
    history = [dict(m) for m in history or []]
    protocol = NativeStep(as_registry(tools), g, question, system_prompt=system_prompt,
                          history=tuple(history), stream=stream, parallel=parallel,
                          temperature=temperature, max_tokens=max_tokens, tool_choice=tool_choice)
    meta = {"question_at": (1 if system_prompt else 0) + len(history)}
    return run_loop(protocol, question, conn, g, verbose=verbose, on_step=on_step, meta=meta)


__all__ = ["DEFAULT_SYSTEM_PROMPT", "NativeStep", "run_function_calling", "split_think"]
