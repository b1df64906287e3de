"""The native function-calling loop: `tools=` in, `tool_calls` out, `role: "tool"` back.

Seed 001's loop, done right for every provider's habits:

1. send the question with the registry's tools (`tools=registry.openai_tools()`);
2. if the reply has `tool_calls`, echo the assistant message with those calls exactly, run the
   calls (`reactlab.parallel`: concurrently when independent, results in call order) and answer
   every call id with exactly one `role: "tool"` message before the next request;
3. a reply without tool calls is the answer — unless it is empty, then re-ask with a nudge
   (a second empty reply in a row counts toward the parse-error budget), or it is a plan that
   names one of the tools ("I'll call get_today first…"): that is sent back once as a parse
   error (`Guards.narrated_calls`), since nothing ran.

Arguments that are not JSON, unknown tools and tools that raise become tool messages that say
what went wrong. The limits of `reactlab.guards` apply as in the ReAct agent: a budget end
(steps, loop, parse errors, tokens) makes one last request *without* tools. DeepSeek's
`reasoning_content` goes back on assistant messages that carry tool calls (its API requires
it); `<think>…</think>` blocks are stripped and never taken as the answer. `stream=True` runs
the same loop over SSE chunks assembled by `reactlab.streaming.ToolCallAccumulator`.

It deliberately does NOT parse tool calls out of text (the server or provider does that — see
`reactlab.server`), retry provider errors (a run ends with status "error"), or run async.
Introduced in notebook 05; parallel calls in 06; streaming in 07.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from reactlab.guards import EMPTY_REPLY_NUDGE, NARRATED_CALL_NUDGE, Guards, budget_status
from reactlab.runlog import RunResult, Step, ToolCallRecord, add_usage, format_step
from reactlab.streaming import ToolCallAccumulator
from reactlab.tools import execute_calls

DEFAULT_SYSTEM_PROMPT = """\
You are a helpful assistant that solves tasks by calling tools.
- When the question needs facts you do not have (today's date, weather, prices, documents) \
or exact arithmetic, call a tool instead of answering from memory.
- Never invent a tool result: every fact in your answer must come from a tool result or \
from the user.
- If a call needs another call's result (a date from get_today, a number to compute with), \
wait for that result and make the call in your next reply; never guess its arguments.
- If a tool returns an error, read it and fix your call, or tell the user what went wrong; \
after a temporary failure (a timeout), make the same call once more.
- When the tool results are enough, answer every part of the question in plain words, with \
the figures from the tool results, in the same language as the user's question."""

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


class _Reply:
    """One model reply, the same shape whether it came whole or streamed."""

    def __init__(self, content: str | None, tool_calls: list[dict], reasoning: str | None,
                 finish_reason: str | None, usage: Any):
        self.content, self.reasoning, self.finish_reason, self.usage = (
            content, reasoning, finish_reason, usage)
        # Providers that omit ids (or repeat one) get unique ones, so every tool message can
        # answer exactly one call: the echoed assistant message carries the same ids.
        seen: set[str] = set()
        self.tool_calls = []
        for n, call in enumerate(tool_calls):
            call_id = call.get("id") or f"call_{n}"
            while call_id in seen:
                call_id += "_"
            seen.add(call_id)
            fn = call.get("function") or {}
            self.tool_calls.append({"id": call_id, "type": "function", "function": {
                "name": fn.get("name") or "", "arguments": fn.get("arguments") or ""}})


def _dump(obj: Any) -> Any:
    return obj.model_dump() if hasattr(obj, "model_dump") else obj


def _ask(conn, messages: list, tools: list | None, stream: bool, verbose: bool,
         **params: Any) -> _Reply:
    kwargs = dict(model=conn.model, messages=messages, **params)
    if tools:
        kwargs["tools"] = tools
    else:
        kwargs.pop("tool_choice", None)  # tool_choice without tools is a 400 on most servers
    if not stream:
        data = _dump(conn.client.chat.completions.create(**kwargs))
        choice = (data.get("choices") or [{}])[0]
        msg = choice.get("message") or {}
        return _Reply(msg.get("content"), msg.get("tool_calls") or [],
                      msg.get("reasoning_content"), choice.get("finish_reason"), data.get("usage"))
    acc = ToolCallAccumulator()
    for chunk in conn.client.chat.completions.create(
            stream=True, stream_options={"include_usage": True}, **kwargs):
        text = acc.add(chunk)
        if verbose and text:
            print(text, end="", flush=True)
    if verbose and acc.content:
        print()
    return _Reply(acc.content or None, acc.tool_calls, acc.reasoning_content or None,
                  acc.finish_reason, acc.usage)


def _provider_error(exc: Exception, step: int) -> str:
    status = getattr(exc, "status_code", None) or getattr(exc, "status", None)
    body = getattr(exc, "body", None)
    message = getattr(exc, "message", None) or str(exc)
    if isinstance(body, dict):
        err = body.get("error", body)
        message = (err.get("message") if isinstance(err, dict) else str(err)) or message
    where = f"HTTP {status}" if status else type(exc).__name__
    return f"The model provider failed at step {step} ({where}): {message}"


def _as_registry(tools: Any):
    from reactlab.tools import ToolRegistry, default_registry

    if tools is None:
        return default_registry()
    return tools if hasattr(tools, "openai_tools") else ToolRegistry(tools)


def run_function_calling(question: str, tools: Any = None, conn: Any = None, max_steps: int = 6,
                         *, guards: Guards | None = None, stream: bool = False,
                         parallel: bool = True, temperature: float = 0.0, max_tokens: int = 512,
                         tool_choice: Any = "auto", system_prompt: str | None = DEFAULT_SYSTEM_PROMPT,
                         history: list | None = None, verbose: bool = False,
                         on_step: Callable[[Step], Any] | None = None) -> RunResult:
    """Answer `question` with native tool calls; never raises because the model misbehaved.

    `max_steps` (model calls, not counting the closing final request) overrides
    `guards.max_steps`; `guards=None` means `Guards.on()`. `history` is inserted between the
    system prompt and the question (earlier turns).

    Example: r = run_function_calling("今天是几号？到 2027-01-01 还有多少天？如果这些天每天存 5 元，"
             "一共能存多少？"); [c.name for s in r.steps for c in s.tool_calls]
             -> ['get_today', 'days_between', 'calculator'] (on a model that plans well)
    """
    if conn is None:
        from reactlab import connect

        conn = connect()
    registry = _as_registry(tools)
    guards = (guards or Guards.on()).fresh(max_steps)
    messages: list[dict] = [{"role": "system", "content": system_prompt}] if system_prompt else []
    messages += list(history or [])
    messages.append({"role": "user", "content": question})
    start = len(messages)  # where the steps begin (for history compression)
    params = {"temperature": temperature, "max_tokens": max_tokens, "tool_choice": tool_choice}
    steps: list[Step] = []
    usage: dict[str, int] = {}
    parse_errors = 0
    last_was_empty = False
    result = RunResult(question=question, answer=None, status="max_steps", steps=steps,
                       usage=usage, messages=messages, protocol="function_calling",
                       model=getattr(conn, "model", ""))

    def record(step: Step) -> None:
        steps.append(step)
        if verbose:
            print(format_step(step))
        if on_step is not None:
            on_step(step)

    def call_model(number: int, tool_list: list | None) -> tuple[_Reply | None, Step]:
        t0 = time.perf_counter()
        step = Step(number=number, kind="action")
        try:
            reply = _ask(conn, messages, tool_list, stream, verbose, **params)
        except Exception as exc:  # noqa: BLE001 - the provider boundary: network, HTTP, bad reply
            result.status, result.error = "error", _provider_error(exc, number)
            return None, step
        step.latency_ms = (time.perf_counter() - t0) * 1000
        add_usage(usage, reply.usage)
        one = add_usage({}, reply.usage)
        step.prompt_tokens, step.completion_tokens = one.get("prompt_tokens", 0), one.get(
            "completion_tokens", 0)
        step.cached_tokens = one.get("cached_tokens", 0)
        step.text = reply.content or ""
        if reply.finish_reason == "length":
            step.events.append("truncated: the reply hit max_tokens (finish_reason=length)")
        return reply, step

    tool_list = registry.openai_tools() or None
    tool_names = registry.names()
    narration_sent = False
    while True:
        status = budget_status(guards, len(steps), parse_errors, usage.get("total_tokens", 0))
        if status:
            result.status = status
            break
        messages[:], event = guards.maybe_compress(messages, start)
        reply, step = call_model(len(steps) + 1, tool_list)
        if event:
            step.events.append(event)
        if reply is None:
            return result
        answer, thinking = split_think(reply.content)
        step.thought = reply.reasoning or thinking or None

        if not reply.tool_calls:
            named = guards.narrated(answer, tool_names) if not narration_sent else []
            if named:
                # A plan that names a tool is not an answer: nothing ran. Send it back once
                # (a second one is taken as the answer: the bound is one extra step per run).
                step.kind, narration_sent = "parse_error", True
                step.error = f"the reply names {', '.join(named)} but makes no tool call"
                parse_errors += 1
                messages.append({"role": "assistant", "content": answer})
                messages.append({"role": "user", "content": NARRATED_CALL_NUDGE})
                record(step)
                continue
            if answer:
                step.kind = "final"
                messages.append({"role": "assistant", "content": answer})
                result.answer, result.status = answer, "final"
                record(step)
                return result
            # Empty reply (common on the 1.5B right after a tool result): nudge and re-ask.
            # A second empty reply in a row counts as a parse error (as in the ReAct agent),
            # so a model that stays silent ends with "parse_errors", not an endless re-ask.
            step.kind = "empty"
            parse_errors += last_was_empty
            last_was_empty = True
            messages.append({"role": "user", "content": EMPTY_REPLY_NUDGE})
            record(step)
            continue
        last_was_empty = False

        step.thought = step.thought or answer or None  # text beside the calls is a thought
        echo: dict[str, Any] = {"role": "assistant", "content": reply.content,
                                "tool_calls": reply.tool_calls}
        if reply.reasoning:  # DeepSeek thinking mode: required back on tool-call turns
            echo["reasoning_content"] = reply.reasoning
        messages.append(echo)
        loop_fired = False
        for outcome in execute_calls(registry, reply.tool_calls, parallel=parallel):
            shown, full, cut_event = guards.observe(outcome.observation)
            rec = ToolCallRecord(name=outcome.name, arguments=outcome.arguments,
                                 observation=shown, full_observation=full, id=outcome.id,
                                 error=outcome.error, latency_ms=outcome.latency_ms)
            step.tool_calls.append(rec)
            parse_errors += outcome.bad_json
            if cut_event:
                step.events.append(cut_event)
            loop_event = guards.check_call(outcome.name, outcome.arguments)
            if loop_event:
                step.events.append(loop_event)
                loop_fired = True
            messages.append({"role": "tool", "tool_call_id": outcome.id, "content": shown})
        if loop_fired and not guards.loop_exhausted:
            # After every tool message: nothing may come between the calls and their results.
            messages.append({"role": "user", "content": guards.loop.message})
        record(step)

    # A budget ran out: one last request without tools, answered from what is known.
    messages.append({"role": "user", "content": guards.final_request})
    reply, step = call_model(len(steps) + 1, None)
    step.kind = "final_request"
    if reply is None:
        return result
    answer, thinking = split_think(reply.content)
    step.thought = reply.reasoning or thinking or None
    if reply.tool_calls:  # asked for tools anyway: record, but never run them
        step.events.append(f"ignored {len(reply.tool_calls)} tool call(s) in the final request")
    if answer:
        messages.append({"role": "assistant", "content": answer})
    result.answer = answer or None
    record(step)
    return result


__all__ = ["DEFAULT_SYSTEM_PROMPT", "run_function_calling", "split_think"]
