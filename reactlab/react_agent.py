"""The text ReAct loop: ask the model, parse its reply, run the tool, show it the Observation.

Two ways to lay out the conversation, both from the seeds:
- "scratchpad" (seed 000): a system prompt and ONE user message holding the question and the
  growing Thought/Action/Observation text, rebuilt for every request.
- "chat" (seed 002): the model's replies become assistant messages, and each result comes back
  as a user message "Observation: …".

`stop=("Observation:",)` keeps the model from inventing tool results; `client_stop=True` cuts
the reply ourselves for providers that refuse `stop`. Whatever the model does, `run_react`
returns a `RunResult`: parse errors and tool errors go back to the model as observations, the
budgets in `reactlab.guards` end runaway loops (with one last "answer now" request), and
provider failures end the run with status "error".

It does not stream, and it runs exactly one tool per step (ReAct has no parallel calls; the
native loop in `fc_agent` does). Introduced in notebook 04; the guards in notebook 07.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from reactlab.guards import EMPTY_REPLY_NUDGE, Guards, budget_status, format_call
from reactlab.parsing import (
    FINAL,
    Action,
    FinalAnswer,
    ReActParseError,
    cut_at_stop,
    parse_react,
    strip_invented_observation,
)
from reactlab.prompts import (
    format_chat_history,
    react_system_prompt,
    react_user_message,
)
from reactlab.runlog import RunResult, Step, ToolCallRecord, add_usage, format_step

MESSAGES_STYLES = ("scratchpad", "chat")
SUMMARY_HEADER = "Summary of earlier steps (folded to save context):"


class ProviderFailure(Exception):
    """The request itself failed (network, HTTP status, malformed response)."""


def run_react(question: str, tools: Any = None, conn: Any = None, max_steps: int | None = 6, *,
              style: str = "json", messages_style: str = "scratchpad",
              stop: str | Iterable[str] | None = ("Observation:",), client_stop: bool = False,
              guards: Guards | None = None, temperature: float = 0.0, max_tokens: int = 512,
              history: list[dict] | None = None, instructions: str | None = None,
              verbose: bool = False, on_step: Callable[[Step], Any] | None = None) -> RunResult:
    """Answer `question` with text ReAct; never raises because the model misbehaved.

    tools: a ToolRegistry, a list of functions/Tools, or None for default_registry().
    max_steps overrides guards.max_steps (pass None to keep the guards' value).
    history: earlier turns as [{"role": "user"|"assistant", "content": …}].
    Example: run_react("北京和广州天气怎么样").status -> "final"
    """
    if messages_style not in MESSAGES_STYLES:
        raise ValueError(f"messages_style must be 'scratchpad' (seed 000) or 'chat' (seed 002), "
                         f"not {messages_style!r}.")
    registry = _as_registry(tools)
    g = (guards or Guards.on()).fresh(max_steps)
    stops = [stop] if isinstance(stop, str) else list(stop or ())
    system = react_system_prompt(registry, style=style, instructions=instructions)
    convo = _Conversation(system, question, style, messages_style, history)
    result = RunResult(question, None, "max_steps", protocol="react",
                       meta={"style": style, "messages_style": messages_style,
                             "client_stop": client_stop, "stop": stops})
    if conn is None:
        try:
            import reactlab

            conn = reactlab.connect()
        except Exception as exc:  # noqa: BLE001 - no server, no weights, bad .env: all mean
            # "the provider failed", which a run reports instead of raising
            return _fail(result, f"Could not connect to a model ({type(exc).__name__}: {exc}).")
    result.model = str(getattr(conn, "model", ""))

    def ask(messages: list[dict], number: int, kind: str) -> tuple[Step, str]:
        """One request; returns the step (text = raw reply) and the reply cut at the stops."""
        kw: dict[str, Any] = {"model": conn.model, "messages": messages,
                              "temperature": temperature, "max_tokens": max_tokens}
        if stops and not client_stop:
            kw["stop"] = stops
        start = time.perf_counter()
        response = _create(conn, kw, number)
        latency = (time.perf_counter() - start) * 1000
        raw, finish = _reply(response, number)
        tokens = add_usage({}, getattr(response, "usage", None))
        add_usage(result.usage, getattr(response, "usage", None))
        step = Step(number, kind, text=raw, latency_ms=latency,
                    prompt_tokens=tokens.get("prompt_tokens", 0),
                    completion_tokens=tokens.get("completion_tokens", 0),
                    cached_tokens=tokens.get("cached_tokens", 0))
        if finish == "length":
            step.events.append(f"truncated: the reply hit max_tokens={max_tokens}")
        return step, cut_at_stop(raw, stops) if client_stop else raw

    def record(step: Step) -> None:
        result.steps.append(step)
        if verbose:
            print(format_step(step))
        if on_step is not None:
            on_step(step)

    parse_errors = 0
    try:
        while True:
            status = budget_status(g, len(result.steps), parse_errors,
                                   result.usage.get("total_tokens", 0))
            if status:
                break
            messages, event = convo.messages(g)
            step, text = ask(messages, len(result.steps) + 1, "action")
            if event:
                step.events.append(event)
            clean = strip_invented_observation(text)
            if not clean.strip():
                step.kind = "empty"
                parse_errors += convo.last_was_empty  # a second empty reply in a row is an error
                convo.add_note(EMPTY_REPLY_NUDGE, empty=True)
                record(step)
                continue
            try:
                parsed = parse_react(text, style=style)
            except ReActParseError as exc:
                parse_errors += 1
                step.kind, step.error = "parse_error", str(exc)
                convo.add_step(clean, str(exc), "(a reply that could not be parsed)")
                record(step)
                continue
            step.thought = parsed.thought
            if isinstance(parsed, FinalAnswer):
                step.kind, result.answer, result.status = "final", parsed.answer, "final"
                convo.add_reply(clean)
                record(step)
                result.messages = convo.sent + [{"role": "assistant", "content": clean}]
                return result
            _run_tool(parsed, registry, g, step)
            final_after = FINAL.search(clean)  # the action won; drop an invented answer after it
            reply = clean[: final_after.start()].rstrip() if final_after else clean
            call = step.tool_calls[0]
            convo.add_step(reply, call.observation, format_call(call.name, call.arguments))
            if step.events and step.events[-1].startswith("loop") and not g.loop_exhausted:
                convo.add_note(g.loop.message)
            record(step)

        # A budget ran out: one last request without tools, "answer with what you have".
        result.status = status
        messages, _ = convo.messages(g)
        messages = messages + [{"role": "user", "content": g.final_request}]
        convo.sent = messages
        step, text = ask(messages, len(result.steps) + 1, "final_request")
        clean = strip_invented_observation(text)
        try:
            parsed = parse_react(text, style=style)
            answer = parsed.answer if isinstance(parsed, FinalAnswer) else clean.strip()
            step.thought = parsed.thought
        except ReActParseError:
            answer = clean.strip()
        result.answer = answer or None
        record(step)
        result.messages = messages + [{"role": "assistant", "content": clean}]
        return result
    except ProviderFailure as exc:
        result.messages = convo.sent
        return _fail(result, str(exc))


def _run_tool(action: Action, registry: Any, g: Guards, step: Step) -> None:
    """Run one tool call through the guards and record it on the step."""
    start = time.perf_counter()
    output, is_error = registry.run(action.tool, action.args)
    latency = (time.perf_counter() - start) * 1000
    shown, full, event = g.observe(output)
    step.tool_calls.append(ToolCallRecord(action.tool, action.args, shown, full, None, is_error,
                                          latency))
    if event:
        step.events.append(event)
    loop_event = g.check_call(action.tool, action.args)
    if loop_event:
        step.events.append(loop_event)


class _Conversation:
    """The messages of one run, in either layout. `messages()` is what the next request sends."""

    def __init__(self, system: str, question: str, style: str, layout: str,
                 history: list[dict] | None):
        self.system, self.question, self.style, self.layout = system, question, style, layout
        self.entries: list[tuple[str, str]] = []  # scratchpad: (text, one-line summary)
        self.last_was_empty = False
        history = [dict(m) for m in history or []]
        if layout == "chat":
            first = react_user_message(question, style=style,
                                       chat_history="(the messages above)" if history else "")
            self.chat = [{"role": "system", "content": system}, *history,
                         {"role": "user", "content": first}]
            self.start = len(self.chat)  # where the steps begin (for history compression)
            self.history_text = ""
        else:
            self.chat = []
            self.history_text = format_chat_history(history)
        self.sent: list[dict] = []

    def messages(self, g: Guards) -> tuple[list[dict], str | None]:
        event = None
        if self.layout == "chat":
            self.chat, event = g.maybe_compress(self.chat, self.start)
            self.sent = list(self.chat)
        else:
            event = self._fold(g)
            pad = "".join(text for text, _ in self.entries)
            user = react_user_message(self.question, pad, style=self.style,
                                      chat_history=self.history_text)
            self.sent = [{"role": "system", "content": self.system},
                         {"role": "user", "content": user}]
        return self.sent, event

    def add_step(self, reply: str, observation: str, summary: str) -> None:
        """The model's reply and what came back (a tool result or a parse error)."""
        self.last_was_empty = False
        if self.layout == "chat":
            self.chat += [{"role": "assistant", "content": reply},
                          {"role": "user", "content": f"Observation: {observation}"}]
        else:
            self.entries.append((f"{reply.rstrip()}\nObservation: {observation}\n",
                                 f"{summary} -> {_one_line(observation)}"))

    def add_note(self, text: str, empty: bool = False) -> None:
        """A message from us to the model (a nudge, the loop intervention)."""
        self.last_was_empty = empty
        if self.layout == "chat":
            self.chat.append({"role": "user", "content": text})
        else:  # kept inside the scratchpad, so it stays in order with the steps
            self.entries.append((f"({text})\n", f"note: {_one_line(text)}"))

    def add_reply(self, reply: str) -> None:
        if self.layout == "chat":
            self.chat.append({"role": "assistant", "content": reply})

    def _fold(self, g: Guards) -> str | None:
        """compress_after for the scratchpad: older entries become one summary line each."""
        if g.compress_after is None or len(self.entries) <= g.compress_after:
            return None
        keep = max(g.keep_last, 0)
        old, kept = self.entries[: len(self.entries) - keep], self.entries[len(self.entries) - keep:]
        lines = [s for text, s in old]
        before = sum(len(t) for t, _ in self.entries)
        folded = (f"{SUMMARY_HEADER}\n" + "\n".join(f"- {s}" for s in lines) + "\n\n", "")
        self.entries = [folded, *kept]
        after = sum(len(t) for t, _ in self.entries)
        return f"compressed: folded {len(old)} entries into a summary ({before} -> {after} chars)"


def _one_line(text: str, limit: int = 120) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _as_registry(tools: Any) -> Any:
    from reactlab.tools import ToolRegistry, default_registry

    if tools is None:
        return default_registry()
    if isinstance(tools, ToolRegistry):
        return tools
    return ToolRegistry(tools)


def _create(conn: Any, kw: dict, number: int) -> Any:
    """conn.client.chat.completions.create, with provider failures turned into one sentence."""
    import httpx
    import openai

    try:
        return conn.client.chat.completions.create(**kw)
    except openai.APIStatusError as exc:
        raise ProviderFailure(f"The provider answered step {number} with HTTP "
                              f"{exc.status_code}: {_provider_message(exc)}") from exc
    except (openai.APIError, httpx.HTTPError, OSError) as exc:
        raise ProviderFailure(f"The request for step {number} failed ({type(exc).__name__}: "
                              f"{exc}). Is the server running and reachable?") from exc


def _provider_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
    return str(getattr(exc, "message", exc))


def _reply(response: Any, number: int) -> tuple[str, str | None]:
    choices = getattr(response, "choices", None)
    if not choices:
        raise ProviderFailure(f"The provider's response to step {number} had no choices; "
                              f"nothing to parse.")
    choice = choices[0]
    message = getattr(choice, "message", None)
    return (getattr(message, "content", None) or ""), getattr(choice, "finish_reason", None)


def _fail(result: RunResult, message: str) -> RunResult:
    result.status, result.error = "error", message
    return result
