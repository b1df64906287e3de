"""The agent loop, written once: budget → protocol step → record → loop check → final.

Both agents are this loop with a different *protocol step* on top (`react_agent.ReActStep`
for text ReAct, `fc_agent.NativeStep` for native tool calls). A protocol knows three things:
how to render the next request's messages from the steps so far, how to read one reply into a
`Step` (running the tools it asks for), and how to read the closing reply. The loop knows the
rest, the same for both:

    while no budget has run out:                 # guards.budget: steps, parse errors, tokens, loop
        render the messages from the steps       # folding old steps when guards say so
        one model call                           # completion.complete: the provider boundary
        the protocol reads the reply             # final answer, tool calls run, or an AgentError
        record the step; check it for a loop     # the loop intervention is the step's feedback
    one closing request: "answer with what you have"   # asked once more if that is no answer

Errors caused by the model are `AgentError`s, caught in one place and fed back; a provider
failure ends the run with status "provider_error"; nothing raises out of `run_loop`.
It deliberately does NOT stream to the learner (the native step can), retry the provider, or
run async. On reactlab's own server it asks for the model's replies as they are
(`"reactlab_help": false`): the guards are the lesson, and the server's help for frameworks
(notebook 09) would hide the failures they catch. Introduced in notebook 04; the guards in
notebook 07.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any, Protocol

from reactlab.completion import Reply, complete
from reactlab.config import CLASSROOM
from reactlab.connection import connect
from reactlab.guards import Guards, budget_event, correction_text, count_parse_errors
from reactlab.hints import (
    AGGREGATE_EVENT,
    DONE_EVENT,
    FETCH_EVENT,
    INSIDE_EVENT,
    PER_DAY_EVENT,
    TODAY_EVENT,
    aggregate_hint,
    date_hint,
    done_note,
    fetch_hint,
    inside_hint,
    per_day_hint,
    today_hint,
)
from reactlab.hints import EVENT as HINT_EVENT
from reactlab.http import ProviderError
from reactlab.prompts import render_template
from reactlab.report import format_step
from reactlab.runlog import ANSWER_ONLY, RunResult, Step, ToolCallRecord
from reactlab.tools import ToolRegistry, default_registry, execute_calls
from reactlab.tools.execute import CallOutcome, decode_arguments


class AgentError(Exception):
    """A reply the loop cannot use, caused by the model. It becomes the step's record:
    `kind` names the step, `error` (if any) says why, `feedback` (if any) is what we tell
    the model next. Example: raise EmptyReply(feedback="Your reply was empty. …")"""

    kind = "parse_error"

    def __init__(self, error: str | None = None, feedback: str | None = None,
                 require_call: str | None = None):
        super().__init__(error or feedback or self.kind)
        self.error, self.feedback, self.require_call = error, feedback, require_call


class EmptyReply(AgentError):
    """The model said nothing (common on small models right after a tool result)."""

    kind = "empty"


class FormatError(AgentError):
    """The reply could not be read as a step of the protocol (a ReAct parse error, a plan
    that names a tool without calling it)."""


class Ungrounded(AgentError):
    """A final answer the run does not support (a figure no tool gave, a comparison the
    fetched data contradicts): not accepted; the model gets a correction instead."""

    kind = "ungrounded"


class ProtocolStep(Protocol):
    """What a protocol adds on top of the loop (see `react_agent`, `fc_agent`)."""

    name: str  # "react" or "function_calling", RunResult.protocol
    stream: bool

    def render(self, steps: list[Step], folded: int, closing: str | None) -> list[dict]:
        """The next request's messages, rendered from the steps (the first `folded` as a
        summary); `closing` is the final request's text on the closing call."""

    def request(self, messages: list[dict], with_tools: bool,
                require_call: str | None = None, own_server: bool = False) -> dict:
        """The keyword arguments of chat.completions.create for these messages (the loop
        adds `model`); `with_tools=False` on the closing request and after two silences;
        `require_call` (a tool name or "any") when the previous step asks for a call;
        `own_server` on reactlab's own server (local or classroom), which takes a JSON schema
        on any request."""

    def read(self, reply: Reply, step: Step, steps: list[Step]) -> str | None:
        """Fill `step` from the reply (running tools; `steps` are the earlier ones); the
        answer if it is final. Raises AgentError for a reply that cannot be used."""

    def read_closing(self, reply: Reply, step: Step) -> str | None:
        """The answer in the closing reply (tools are never run there)."""

    def said(self, step: Step) -> list[dict]:
        """The assistant message(s) of a final or closing step, to end RunResult.messages."""


def as_registry(tools: Any) -> ToolRegistry:
    """tools=None -> the course tools; a list of functions or Tools -> a registry of them."""
    if tools is None:
        return default_registry()
    return tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools)


def run_loop(protocol: ProtocolStep, question: str, conn: Any, guards: Guards, *,
             verbose: bool = False, on_step: Callable[[Step], Any] | None = None,
             meta: dict | None = None) -> RunResult:
    """Run `protocol` until an answer or a budget end; never raises.

    Example: run_loop(ReActStep(...), "北京天气？", conn, Guards.on()).status -> "final"
    """
    result = RunResult(question, None, "max_steps", protocol=protocol.name, meta=dict(meta or {}))
    steps = result.steps
    try:
        conn = connect() if conn is None else conn
    except Exception as exc:  # noqa: BLE001 - no server, no weights, a bad .env: all "no provider"
        return _fail(result, "provider_error", f"Could not connect to a model "
                                               f"({type(exc).__name__}: {exc}).")
    result.model = str(getattr(conn, "model", "") or "")

    def record(step: Step) -> None:
        steps.append(step)
        if verbose:
            print(format_step(step))
        if on_step is not None:
            on_step(step)

    def ask(step: Step, closing: str | None) -> tuple[list[dict], Reply]:
        folded = guards.fold_point(len(steps))
        messages = protocol.render(steps, folded, closing)
        before = guards.fold_point(len(steps) - 1) if steps else 0
        if folded > before:  # this request is the one that folds: say so in the log
            unfolded = protocol.render(steps, before, closing)
            step.events.append(f"compressed: folded {folded - before} steps into a summary "
                               f"({_chars(unfolded)} -> {_chars(messages)} chars)")
        result.messages = messages
        with_tools = closing is None and not guards.without_tools(steps)
        if closing is None and not with_tools:
            step.events.append("asked without tools after " + (
                "a second plan that named a tool" if steps[-1].require_call == ANSWER_ONLY
                else "two empty replies"))
        must = steps[-1].require_call if steps and with_tools else None
        own = getattr(conn, "provider", None) in ("local", CLASSROOM)
        request = {"model": conn.model, **protocol.request(messages, with_tools, must, own)}
        if must and "response_format" in request:  # text ReAct on reactlab's server
            step.events.append(f"constrained to an Action ({must}): JSON schema")
        if "tools" in request and own:
            request["extra_body"] = {"reactlab_help": False}  # see the module docstring
            if guards.more_calls:  # the server opens the next <tool_call> (server.more_calls)
                request["extra_body"]["reactlab_more_calls"] = True
        reply = complete(conn, request, stream=protocol.stream, echo=verbose)
        _fill(step, reply, request.get("max_tokens"))
        return messages, reply

    status: str | None = None
    try:
        while (status := guards.budget(steps, result.usage.get("total_tokens", 0))) is None:
            step = Step(len(steps) + 1, "action")
            messages, reply = ask(step, None)
            _add_usage(result, reply)
            try:
                answer = protocol.read(reply, step, steps)
                if step.kind == "final" and (echo := guards.echoed(question, answer, steps)):
                    raise FormatError(error=f"the reply repeats {echo} instead of answering",
                                      feedback=render_template("echoed_reply", what=echo))
                fix = guards.ground(question, answer, [*steps, step]) if (
                    step.kind == "final") else None
                if fix:  # the grader, used as a guard: a correction instead of the draft
                    raise Ungrounded(error=fix.reasons,
                                     feedback=correction_text(fix, question, guards.settled_wording),
                                     require_call=fix.required)
            except AgentError as exc:  # the model's mistake: recorded, fed back next request
                step.kind, step.error, step.feedback = exc.kind, exc.error, exc.feedback
                step.require_call = exc.require_call
                answer = None
            guards.check_step(step)
            record(step)
            if step.kind == "final":
                result.answer, result.status = answer, "final"
                result.messages = messages + protocol.said(step)
                return result

        # A budget ran out: one last request without tools, "answer with what you have".
        result.status = status
        step = Step(len(steps) + 1, "final_request")
        step.events.append(budget_event(guards, status, guards.counted(steps), count_parse_errors(steps),
                                        result.usage.get("total_tokens", 0)))
        messages, reply = ask(step, guards.final_request)
        _add_usage(result, reply)
        result.answer = protocol.read_closing(reply, step) or None
        unusable = guards.closing(question, result.answer, [*steps, step])
        if unusable:  # asked once more (the unusable reply left out), with what was wrong
            step.error, step.feedback = unusable
            again = Step(len(steps) + 2, "final_request")
            again.events.append("closing request again: " + step.error)
            retry, reply = ask(again, f"{step.feedback}\n\n{guards.final_request}")
            _add_usage(result, reply)
            answer = protocol.read_closing(reply, again) or None
            record(step)
            if answer is not None:  # the second reply is taken as it is; an empty one is not
                result.answer, messages, step = answer, retry, again
            record(again)
        else:
            record(step)
        result.messages = messages + protocol.said(step)
        return result
    except ProviderError as exc:
        where = f"at step {len(steps) + 1}"
        return _fail(result, "provider_error", str(ProviderError.from_exception(exc, where)))
    except Exception as exc:  # noqa: BLE001 - a bug in reactlab or in a registry: report it
        where = traceback.extract_tb(exc.__traceback__)[-1]
        return _fail(result, "error", f"{type(exc).__name__}: {exc} (at {where.filename}:"
                                      f"{where.lineno}; please report this)")


def run_tools(registry: ToolRegistry, calls: list[dict], guards: Guards, step: Step,
              parallel: bool = False, question: str = "", earlier: list[Step] = ()) -> None:
    """Run one reply's calls and record each on the step, compacted as the model will see it.

    Calls the guards hold back (`Guards.held_back`: fed figures not seen yet) are recorded with
    an observation that names those figures instead of running."""
    held = guards.held_back(question, list(earlier), [_name_args(c) for c in calls])
    ran = iter(execute_calls(registry, [c for i, c in enumerate(calls) if i not in held],
                             parallel=parallel))
    for i, call in enumerate(calls):
        outcome = _held(call, held[i]) if i in held else next(ran)
        shown, full, event = guards.observe(outcome.observation)
        # The model's own text is kept for the echo of a native call; a ReAct call (no id)
        # carries the parser's already-decoded arguments, which are not wire text.
        raw = (call.get("function") or {}).get("arguments") if call.get("id") is not None else None
        step.tool_calls.append(ToolCallRecord(
            name=outcome.name, arguments=outcome.arguments, observation=shown,
            full_observation=full, id=outcome.id, error=outcome.error,
            latency_ms=outcome.latency_ms, bad_json=outcome.bad_json,
            raw_arguments=raw if isinstance(raw, str) else None))
        if event:
            step.events.append(event)
    if held:
        step.events.append(f"held back {len(held)} call(s) fed figures no earlier result gives")
    if guards.date_hints and (hint := date_hint(question, [*earlier, step])):
        # get_today has answered what a failed date call lacked: name the call, require it
        step.feedback, step.require_call = hint
        step.events.append(f"{HINT_EVENT}: {hint[1]} with today's date required")
    elif guards.date_hints and (hint := today_hint([*earlier, step], registry.names())):
        # the same, before get_today has answered: ask for today's date first
        step.feedback, step.require_call = hint
        step.events.append(f"{TODAY_EVENT}: get_today required")
    elif guards.fetch_hints and (hint := inside_hint([*earlier, step])):
        # a calculator called a tool inside its expression, and those results are in now
        step.feedback, step.require_call = hint
        step.events.append(f"{INSIDE_EVENT}: calculator with the results' figures required")
    elif guards.aggregate_hints and (hint := aggregate_hint(question, [*earlier, step])):
        # a calculator failed or was held back, and every reading of the asked mean/total is in
        step.feedback, step.require_call = hint
        step.events.append(f"{AGGREGATE_EVENT}: calculator over the readings required")
    elif guards.per_day_hints and (hint := per_day_hint(question, [*earlier, step])):
        # a calculator failed or was held back, the question counts an amount a day, the days are in
        step.feedback, step.require_call = hint
        step.events.append(f"{PER_DAY_EVENT}: calculator over the days required")
    elif guards.fetch_hints and (hint := fetch_hint(question, [*earlier, step],
                                                    registry.names(), guards.fetch_chain)):
        # a call failed or was held back while a name the question asks about has no result
        step.feedback, step.require_call, name = hint
        step.events.append(f"{FETCH_EVENT}: {step.require_call} for {name}")
    elif (guards.date_hints or guards.fetch_hints) and (
            note := done_note(question, [*earlier, step])):
        # the hinted call has run: without this the hint stays the last word ("make that call")
        step.feedback = note
        step.events.append(f"{DONE_EVENT}: {earlier[-1].require_call} ran; back to the question")


def _name_args(call: dict) -> tuple[str, Any]:
    fn = call.get("function") or {}
    args, _ = decode_arguments(fn.get("arguments"))  # text that is not JSON stays text
    return str(fn.get("name") or ""), args


def _held(call: dict, figures: list[str]) -> CallOutcome:
    name, args = _name_args(call)
    text = (render_template("held_back", tool=name, figures=", ".join(figures)) if figures
            else render_template("held_back_beside", tool=name))
    return CallOutcome(name=name, arguments=args, id=call.get("id"), error=True, observation=text)


def _fill(step: Step, reply: Reply, max_tokens: Any) -> None:
    step.text = reply.content
    step.latency_ms = reply.latency_ms
    step.prompt_tokens = reply.usage.get("prompt_tokens", 0)
    step.completion_tokens = reply.usage.get("completion_tokens", 0)
    step.cached_tokens = reply.usage.get("cached_tokens", 0)
    if reply.finish_reason == "length":
        step.events.append(f"truncated: the reply hit max_tokens={max_tokens} "
                           "(finish_reason=length)")


def _add_usage(result: RunResult, reply: Reply) -> None:
    for key, value in reply.usage.items():
        result.usage[key] = result.usage.get(key, 0) + value


def _chars(messages: list[dict]) -> int:
    """Characters of content and tool-call arguments: what folding saves, roughly."""
    return sum(len(str(m.get("content") or "")) +
               sum(len(str(c["function"]["arguments"])) for c in m.get("tool_calls") or [])
               for m in messages)


def _fail(result: RunResult, status: str, message: str) -> RunResult:
    result.status, result.error = status, message
    return result
