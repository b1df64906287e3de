"""Text ReAct: the model writes Thought / Action / Observation, we parse it and run the tool.

Like the native step in `fc_agent`, this is one protocol step on top of the loop in
`reactlab.loop`, except that the tool call arrives as *text*: `parse_react` reads it, and the
tool's result goes back as an `Observation:` line. Two ways to lay out the conversation:
- "scratchpad": a system prompt and ONE user message holding the question and the growing
  Thought/Action/Observation text, rebuilt for every request (the JSON-blob agent's layout);
- "chat": the model's replies become assistant messages, and each result comes back as a user
  message "Observation: …" (the Action / Action Input agent's layout).
Both are rendered from the run's steps, so folding old steps works the same in either.

`stop=("Observation:",)` keeps the model from inventing tool results; `client_stop=True` cuts
the reply ourselves for providers that refuse `stop`. When a guard requires a call (the grader
found a name never fetched, or a figure worked out in the head), reactlab's own server gets a
JSON schema for that one reply (`action_schema`): an Action, no Final Answer. It does not
stream, and it runs exactly one tool per step (ReAct has no parallel calls; the native step does). Introduced in
notebook 04; the guards in notebook 07.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from reactlab.completion import Reply
from reactlab.folding import results_list, steps_summary
from reactlab.guards import Guards
from reactlab.loop import EmptyReply, FormatError, as_registry, run_loop, run_tools
from reactlab.parsing import (
    FINAL,
    FinalAnswer,
    ReActParseError,
    cut_at_stop,
    parse_react,
    strip_invented_observation,
)
from reactlab.prompts import (
    format_chat_history,
    load_template,
    react_system_prompt,
    react_user_message,
    render_template,
)
from reactlab.runlog import RunResult, Step
from reactlab.tools import ToolRegistry

MESSAGES_STYLES = ("scratchpad", "chat")


@dataclass
class ReActStep:
    """The text protocol: render the prompt from the steps, parse each reply, run its Action."""

    registry: ToolRegistry
    guards: Guards
    question: str
    style: str = "json"
    layout: str = "scratchpad"
    stops: tuple[str, ...] = ("Observation:",)
    client_stop: bool = False
    temperature: float = 0.0
    max_tokens: int = 512
    instructions: str | None = None
    history: tuple[dict, ...] = ()
    name: str = "react"
    stream: bool = False

    def __post_init__(self) -> None:
        self.system = react_system_prompt(self.registry, style=self.style,
                                          instructions=self.instructions)

    # --- what goes out -------------------------------------------------------------------

    def request(self, messages: list[dict], with_tools: bool,
                require_call: str | None = None, own_server: bool = False) -> dict:
        kw: dict[str, Any] = {"messages": messages, "temperature": self.temperature,
                              "max_tokens": self.max_tokens}
        if self.stops and not self.client_stop:
            kw["stop"] = list(self.stops)
        if require_call and with_tools and own_server:
            # A text protocol has no tool_choice. reactlab's own server takes a JSON schema
            # instead: this one reply can only be an Action, with arguments valid for the tool.
            # Elsewhere the correction's words ask for the Action.
            kw["response_format"] = {"type": "json_schema", "json_schema": {
                "name": "react_action", "schema": action_schema(self.registry, require_call)}}
        return kw

    def render(self, steps: list[Step], folded: int, closing: str | None) -> list[dict]:
        """Scratchpad: [system, user(question + pad)]; chat: one message per turn. The
        closing request with `Guards.plain_closing`: no ReAct format at all, the results
        listed (`_plain_closing`)."""
        if closing and self.guards.plain_closing:
            return self._plain_closing(steps, closing)
        summary = steps_summary(steps[:folded]) if folded else None
        if self.layout == "chat":
            first = react_user_message(self.question, style=self.style,
                                       chat_history="(the messages above)" if self.history else "")
            messages = [{"role": "system", "content": self.system}, *map(dict, self.history),
                        {"role": "user", "content": first}]
            if summary:
                messages.append({"role": "user", "content": summary})
            for step in steps[folded:]:
                messages += self._chat_turn(step)
            if closing:
                messages.append({"role": "user", "content": closing})
            return messages
        pad = f"{summary}\n\n" if summary else ""
        pad += "".join(self._pad_entry(step) for step in steps[folded:])
        user = react_user_message(self.question, pad, style=self.style,
                                  chat_history=format_chat_history(list(self.history)))
        messages = [{"role": "system", "content": self.system}, {"role": "user", "content": user}]
        if closing:  # the closing request: our note after the pad, as one more message
            messages.append({"role": "user", "content": closing})
        return messages

    def _plain_closing(self, steps: list[Step], closing: str) -> list[dict]:
        """The closing request as plain chat: a system message that asks for the answer only,
        then the question, every result that came back, and our closing note. Asked inside
        the scratchpad, the 1.5B sometimes starts the pad again (the question, a Thought, an
        Action) instead of answering, and does so again when asked once more."""
        user = render_template("closing_plain_user", question=self.question,
                               results=results_list(steps), closing=closing)
        return [{"role": "system", "content": load_template("closing_plain_system")},
                *map(dict, self.history), {"role": "user", "content": user}]

    def _reply_text(self, step: Step) -> str:
        """What the model said, as it goes back: cut at the stops, no invented Observation,
        and after an Action no invented Final Answer either."""
        text = cut_at_stop(step.text, list(self.stops)) if self.client_stop else step.text
        clean = strip_invented_observation(text)
        if step.kind == "action":
            after = FINAL.search(clean)  # the action won; drop an invented answer after it
            clean = clean[: after.start()].rstrip() if after else clean
        return clean

    def _observation(self, step: Step) -> str | None:
        """What comes back after the reply as its Observation: the tool result or the parse
        error."""
        if step.kind == "action":
            return step.tool_calls[0].observation
        return step.error if step.kind == "parse_error" else None

    def _note(self, step: Step) -> str | None:
        """Our note after the step (for an answer sent back, the correction: its draft is
        not shown again)."""
        return step.feedback

    def _pad_entry(self, step: Step) -> str:
        entry = ""
        observation = self._observation(step)
        if observation is not None:
            entry = f"{self._reply_text(step).rstrip()}\nObservation: {observation}\n"
        if self._note(step):  # kept inside the scratchpad, so it stays in order with the steps
            entry += f"({step.feedback})\n"
        return entry

    def _chat_turn(self, step: Step) -> list[dict]:
        messages = []
        observation = self._observation(step)
        if observation is not None:
            messages += [{"role": "assistant", "content": self._reply_text(step)},
                         {"role": "user", "content": f"Observation: {observation}"}]
        if self._note(step):
            messages.append({"role": "user", "content": step.feedback})
        return messages

    def said(self, step: Step) -> list[dict]:
        return [{"role": "assistant", "content": self._reply_text(step)}]

    # --- what comes back -----------------------------------------------------------------

    def read(self, reply: Reply, step: Step, steps: list[Step] = ()) -> str | None:
        text = cut_at_stop(reply.content, list(self.stops)) if self.client_stop else reply.content
        if not strip_invented_observation(text).strip():
            raise EmptyReply(feedback=load_template("empty_reply"))
        try:
            parsed = parse_react(text, style=self.style)
        except ReActParseError as exc:  # goes back as the Observation, so the model can fix it
            if exc.code == "no_step" and _answers_correction(steps):
                step.kind = "final"  # we asked "answer the question with that": it did
                step.events.append("read as the Final Answer: plain text right after a "
                                   "correction that asked for an answer")
                return strip_invented_observation(text).strip()
            raise FormatError(error=str(exc)) from exc
        step.thought = parsed.thought
        if isinstance(parsed, FinalAnswer):
            step.kind = "final"
            return parsed.answer
        # One call, through the same executor as native calls. No id: the arguments are the
        # parser's, already decoded (a plain "北京" stays a string for a one-parameter tool).
        call = {"id": None, "function": {"name": parsed.tool, "arguments": parsed.args}}
        run_tools(self.registry, [call], self.guards, step, question=self.question,
                  earlier=list(steps))
        return None

    def read_closing(self, reply: Reply, step: Step) -> str | None:
        text = cut_at_stop(reply.content, list(self.stops)) if self.client_stop else reply.content
        clean = strip_invented_observation(text)
        try:
            parsed = parse_react(text, style=self.style)
            step.thought = parsed.thought
            return parsed.answer if isinstance(parsed, FinalAnswer) else clean.strip()
        except ReActParseError:
            return clean.strip()


def _answers_correction(steps: Iterable[Step]) -> bool:
    """Was the last step an answer the grader sent back with "answer again" (a `fact`
    correction, which requires no call)? Then a reply in plain prose is that answer: the
    1.5B often drops the `Final Answer:` label here, and a format error would cost a step.
    The loop grades it like any other final answer."""
    steps = list(steps)
    return bool(steps) and steps[-1].kind == "ungrounded" and not steps[-1].require_call


def action_schema(registry: ToolRegistry, require_call: str = "any") -> dict:
    """The JSON schema of one ReAct Action (JSON-blob style) and no Final Answer: a call of the
    named tool, or of any tool, with arguments valid for its parameters (types, enums,
    required). The parser reads the reply like any JSON-blob Action.

    Example: action_schema(default_registry(), "get_weather")["anyOf"][0]["properties"]["action"]
             -> {"const": "get_weather"}
    """
    options = []
    for entry in registry.openai_tools():
        fn = entry["function"]
        if require_call in registry and fn["name"] != require_call:
            continue
        params = dict(fn.get("parameters") or {"type": "object", "properties": {}})
        params.setdefault("additionalProperties", False)
        options.append({"type": "object", "properties": {
            "action": {"const": fn["name"]}, "action_input": params},
            "required": ["action", "action_input"], "additionalProperties": False})
    return {"anyOf": options}


def run_react(question: str, tools: Any = None, conn: Any = None, max_steps: int | None = 6, *,
              style: str = "json", messages_style: str = "scratchpad",
              stop: str | Iterable[str] | None = ("Observation:",), client_stop: bool = False,
              guards: Guards | None = None, temperature: float = 0.0, max_tokens: int = 512,
              history: list[dict] | None = None, instructions: str | None = None,
              verbose: bool = False, on_step: Callable[[Step], Any] | None = None) -> RunResult:
    """Answer `question` with text ReAct; never raises because the model or provider misbehaved.

    tools: a ToolRegistry, a list of functions/Tools, or None for default_registry().
    max_steps overrides guards.max_steps (pass None to keep the guards' value).
    history: earlier turns as [{"role": "user"|"assistant", "content": …}].
    Example: run_react("北京和广州天气怎么样").status -> "final"
    """
    if messages_style not in MESSAGES_STYLES:
        raise ValueError(f"messages_style must be 'scratchpad' (one growing user message) or "
                         f"'chat' (one message per turn), not {messages_style!r}.")
    g = (guards or Guards.on()).fresh(max_steps)
    stops = (stop,) if isinstance(stop, str) else tuple(stop or ())
    protocol = ReActStep(as_registry(tools), g, question, style=style, layout=messages_style,
                         stops=stops, client_stop=client_stop, temperature=temperature,
                         max_tokens=max_tokens, instructions=instructions,
                         history=tuple(dict(m) for m in history or []))
    meta = {"style": style, "messages_style": messages_style, "client_stop": client_stop,
            "stop": list(stops), "question_at": 1 if messages_style == "scratchpad"
            else 1 + len(history or [])}
    return run_loop(protocol, question, conn, g, verbose=verbose, on_step=on_step, meta=meta)
