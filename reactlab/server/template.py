"""The chat template: how `messages` + `tools` become the one string the model reads.

Native function calling starts here. The model never sees JSON messages: a Jinja template
(shipped inside the GGUF file) lays them out as ChatML turns, lists the tools between
`<tools></tools>` in the system turn, asks for calls inside `<tool_call></tool_call>`, and
wraps tool results in `<tool_response>` inside a user turn. We render it ourselves, the way
Hugging Face `transformers` does (sandboxed Jinja, `tojson` keeping Chinese as Chinese), so the
exact prompt can be shown to a learner (`reactlab_debug`, see `reactlab.server.app`).

The 1.5B GGUF's template has a bug: its tool instructions say `{{"name": …}}` with doubled
braces, so the model is shown an example call that is not JSON. `repair()` fixes that one
string; the 0.5B's template is already correct and `qwen2_5_chat.jinja` (kept in the package)
is that correct text, used when no GGUF is at hand (the replay engine).

This module does not tokenize, count tokens or check message order (`validate` does that).
Introduced in notebook 06 (under the hood).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from jinja2.exceptions import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from reactlab.server.gguf import chat_template

END_OF_TURN = "<|im_end|>"  # Qwen2.5 ends every turn with it: always a stop string
_BROKEN = '{{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}}'
_FIXED = '{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}'
PACKAGED = "qwen2_5_chat.jinja"


def repair(source: str) -> str:
    """Fix the doubled braces of the 1.5B's tool instructions; other templates pass unchanged.

    Example: the rendered line `{{"name": <function-name>, …}}` becomes `{"name": <function-name>, …}`.
    """
    return source.replace(_BROKEN, _FIXED)


def _tojson(value, indent=None, separators=None, sort_keys=False) -> str:
    # Like transformers: no HTML escaping and no \uXXXX, so 北京 reaches the model as 北京.
    return json.dumps(value, ensure_ascii=False, indent=indent, separators=separators,
                      sort_keys=sort_keys)


def _raise(message: str):
    raise TemplateError(message)


def content_text(content) -> str:
    """Message content as the model reads it: None -> "", a list of text parts -> their
    concatenation (also what `invented` reads numbers from)."""
    if content is None:
        return ""
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


def prepare_messages(messages: list[dict]) -> list[dict]:
    """Copy OpenAI-style messages into the shape the Qwen template expects.

    - content None or a list of text parts becomes a string;
    - `developer` (OpenAI's newer name for system) becomes `system`;
    - tool-call `arguments`, a JSON *string* on the wire, is decoded to an object, because
      the template applies `tojson` to it (a string would be shown to the model double-encoded).

    Example: {"arguments": "{\\"location\\": \\"北京\\"}"} -> {"arguments": {"location": "北京"}}
    """
    out = []
    for message in messages:
        m = dict(message)
        m["role"] = "system" if m.get("role") == "developer" else m.get("role")
        m["content"] = content_text(m.get("content"))
        if m["role"] == "assistant" and m.get("tool_calls"):  # the template shows no others
            calls = []
            for call in m["tool_calls"]:
                function = dict(call.get("function") or {})
                args = function.get("arguments")
                if isinstance(args, str):
                    try:
                        function["arguments"] = json.loads(args) if args.strip() else {}
                    except ValueError:
                        pass  # broken JSON stays a string: the model sees what it wrote
                calls.append({**call, "function": function})
            m["tool_calls"] = calls
        out.append(m)
    return out


class ChatTemplate:
    """A compiled chat template and where it came from.

    Example: ChatTemplate.packaged().render([{"role": "user", "content": "hi"}])
             -> "<|im_start|>system\\nYou are Qwen, … <|im_start|>assistant\\n"
    """

    def __init__(self, source: str, origin: str = "string"):
        self.source = source
        self.origin = origin
        env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                            extensions=["jinja2.ext.loopcontrols"])
        env.filters["tojson"] = _tojson
        env.globals["raise_exception"] = _raise
        self._template = env.from_string(source)

    @classmethod
    def packaged(cls) -> ChatTemplate:
        """The correct Qwen2.5 template kept in the package (no model file needed)."""
        text = resources.files("reactlab.server").joinpath(PACKAGED).read_text(encoding="utf-8")
        return cls(text, origin=f"reactlab/server/{PACKAGED}")

    @classmethod
    def from_gguf(cls, path: str | Path) -> ChatTemplate:
        """The template embedded in the model file, repaired. Raises gguf.GGUFError."""

        source = chat_template(path)
        fixed = repair(source)
        origin = f"{Path(path).name} (tokenizer.chat_template" + (", repaired)" if fixed != source
                                                                 else ")")
        return cls(fixed, origin=origin)

    def render(self, messages: list[dict], tools: list[dict] | None = None,
               add_generation_prompt: bool = True) -> str:
        """The prompt string for `messages` (OpenAI shape) and optional OpenAI-style `tools`."""
        return self._template.render(messages=prepare_messages(messages), tools=tools or None,
                                     add_generation_prompt=add_generation_prompt)
