"""Help for a small model after tool results: no repeated call, no empty reply.

A framework (LangChain, the OpenAI Agents SDK, …) sends the conversation back after running a
tool and trusts the next reply. The 1.5B model sometimes answers a tool result by asking for
*the same call again* (same name, same arguments), or by writing nothing at all. reactlab's own
agents catch both (`reactlab.guards`, `reactlab.loop_detector`); a framework on top of the
server gets no such help, so the server gives it, in three rules:

1. **A repeated call is not returned.** A call identical to one the conversation already has
   a result for is dropped. If nothing else is left, the model writes again, once, under a
   `json_schema` constraint (`constrain`): `{"answer": "…"}` or a call. If that is still the same
   call (or an empty answer), the server asks a third time without tools (as `tool_choice:
   "none"`), so the reply is plain text.
2. **An empty reply right after tool results is retried once**, without tools, so the model
   must write text.
3. **A plan instead of an answer right after tool results is retried once**, without tools: a
   reply that names one of the tools, makes no call and uses none of the results' figures
   ("you can use the `get_weather` function…"), measured on the OpenAI Agents SDK.

(A fourth rule acts at any turn, not only after tool results: a call with a made-up number,
in `reactlab.server.invented`. A fifth adds rather than retries: where parallel calls are
allowed, the next `<tool_call>` is opened after the model's calls, `reactlab.server.more_calls`.)

Each retry adds a short system note at the end of the conversation saying what is already
known (`note`). What this module holds: the pure pieces (which calls are answered, the
schema, the note, reading `{"answer": …}`); `chat.Turn` runs the attempts and records every
intervention for the debug view. It does not help when the client forced a call
(`tool_choice` required or named) or hid the tools, and it does not judge an answer's truth.
Off per request with `"reactlab_help": false`, or for the whole server with `--no-help`
(`REACTLAB_SERVER_HELP=0`). Introduced in notebook 09 (frameworks).
"""

from __future__ import annotations

import json
import re

from reactlab.server.constrain import ANSWER_SCHEMA, call_schema
from reactlab.server.template import content_text


def call_key(name: str, arguments) -> tuple[str, str]:
    """A call as a comparable pair; arguments compared as JSON with sorted keys.

    Example: call_key("get_weather", '{"location": "广州"}') == call_key("get_weather",
             {"location": "广州"}) -> True
    """
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except (ValueError, RecursionError):
            return name, " ".join(arguments.split())  # broken JSON: only the same text repeats
    try:
        return name, json.dumps(arguments, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return name, repr(arguments)


def answered_calls(messages: list[dict]) -> dict[tuple[str, str], str]:
    """The calls the conversation already has a tool result for: call_key -> result text.

    Example: [user, assistant(get_weather 广州), tool("24.2 °C")]
             -> {("get_weather", '{"location": "广州"}'): "24.2 °C"}
    """
    asked: dict[str, tuple[str, str]] = {}
    out: dict[tuple[str, str], str] = {}
    for m in messages:
        if m.get("role") == "assistant":
            for call in m.get("tool_calls") or []:
                fn = call.get("function") or {}
                asked[call.get("id")] = call_key(fn.get("name", ""), fn.get("arguments", ""))
        elif m.get("role") == "tool" and m.get("tool_call_id") in asked:
            out[asked[m["tool_call_id"]]] = content_text(m.get("content"))
    return out


def after_tool_results(messages: list[dict]) -> bool:
    """True when the last message is a tool result (the model's turn to use it)."""
    return bool(messages) and messages[-1].get("role") == "tool"


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def narrates(content: str | None, tools: list[dict], results: list[str]) -> bool:
    """True for a reply that talks about a tool instead of using its result: it names one of
    `tools`, and holds none of the numbers in `results` (a simplification: an answer without
    figures that happens to name a tool is retried too).

    Example: narrates("You can use the `get_weather` function.", [get_weather], ["24.2 °C"])
             -> True
    """
    text = content or ""
    names = [(t.get("function") or {}).get("name") or "" for t in tools]
    if not any(n and re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", text) for n in names):
        return False
    seen = {n for r in results for n in _NUMBER.findall(r)}
    return not (seen & set(_NUMBER.findall(text)))


def answer_or_call_schema(tools: list[dict]) -> dict:
    """The constraint of the regeneration: an answer object, or one call to one of `tools`.

    Example: answer_or_call_schema([get_weather])["anyOf"][0] -> ANSWER_SCHEMA
    """
    return {"anyOf": [ANSWER_SCHEMA, *(call_schema(t) for t in tools)]}


def read_answer(text: str) -> str | None:
    """The answer in a constrained reply, or None if it is a call (or not JSON).

    Example: read_answer('{"answer": "广州 24.2 °C"}') -> "广州 24.2 °C"
    """
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, dict) and isinstance(value.get("answer"), str):
        return value["answer"]
    return None


def note(repeated: list[tuple[str, str]], answered: dict[tuple[str, str], str],
         constrained: bool) -> dict:
    """The system message added before a retry: what is known, what to write.

    Example: note([("get_weather", '{"location": "广州"}')], {…: "24.2 °C"}, False)["content"]
             -> 'You already called get_weather({"location": "广州"}) and got: 24.2 °C. …'
    """
    known = " ".join(f"You already called {name}({args}) and got: {answered.get((name, args), '')}."
                     for name, args in repeated)
    if constrained:
        ask = ('Do not repeat that call. Reply with {"answer": "<your answer to the user>"} '
               'using the results above, or call a different tool if something is still missing.')
    else:
        ask = "Now answer the user's question in plain text, using the tool results above."
    return {"role": "system", "content": f"{known} {ask}".strip()}
