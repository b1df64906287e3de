"""The texts the model reads from us: plain text files in this folder, rendered strictly.

A template is a `.txt` file; a placeholder is a lowercase name in single braces, `{question}`.
Nothing else is special, so JSON examples such as `{"action": "get_weather"}` or `{}` are
written as they are, with no brace doubling (LangChain-style `{{{{ … }}}}` escaping is easy to
get wrong). Rendering is strict: a missing value and an unused value both raise
`TemplateError`, so a typo never silently ships a prompt with a hole in it.

Templates (see README.md next to them):
- `react_json_system`          the JSON-blob style: Action + {"action", "action_input"}
- `react_json_user`            "Question: …" followed by the growing scratchpad
- `react_action_input_system`  the `Action:` / `Action Input:` style with "Do I need to use a
                               tool?"
- `react_action_input_user`    chat history, "New input: …" and the scratchpad
- `native_system`              the native agent's system prompt (notebook 05)
- `empty_reply`, `narrated_call`, `narrated_again`, `loop_intervention`, `final_request`
                               what the loop tells the model after an empty reply, a plan
                               without a call ({names}, {first}), a second such plan, a
                               repeated call, and when a budget ran out
- `grounding_missing`, `grounding_compute`, `grounding_fact`, `grounding_settled`,
  `grounding_cover`, `held_back`, `held_back_beside`
                               the corrections that replace a draft the grader rejects
                               (a name to fetch, a figure to compute, the checked fact, every
                               reading when one was left out) and
                               the result of a call held back ({tool}, {figures}: made-up
                               figures, or a calculator too early; on by default, off with
                               `Guards.basic()`)
- `closing_plain_system`, `closing_plain_user`
                               the ReAct closing request as plain chat, the results listed
                               ({question}, {results}, {closing}; `Guards.plain_closing`)
- `steps_summary`, `turns_summary`
                               the header of folded steps and of folded chat turns ({lines})

This module does not parse replies (`reactlab.parsing`), decide when a text is sent
(`reactlab.guards`, `reactlab.loop`) or run the loop. Introduced in notebook 02.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from typing import Any

# `{name}` with a lowercase identifier; `{"…"}` and `{}` are left alone on purpose.
PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")

STYLES = ("json", "action_input")

DEFAULT_INSTRUCTIONS = (
    "Answer the following question as well as you can. Use the tools below whenever you need "
    "facts you do not have (weather, prices, today's date) or exact arithmetic."
)


class TemplateError(ValueError):
    """A template was rendered with a missing or an unexpected value, or does not exist."""


@cache
def load_template(name: str) -> str:
    """The raw text of template `name` (file `<name>.txt`, final newline dropped)."""
    try:
        text = resources.files(__name__).joinpath(f"{name}.txt").read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TemplateError(f"There is no prompt template called {name!r}; available: "
                            f"{', '.join(list_templates())}.") from None
    return text.removesuffix("\n")


def list_templates() -> list[str]:
    """Example: list_templates() -> ['react_action_input_system', 'react_action_input_user', …]"""
    return sorted(p.name[:-4] for p in resources.files(__name__).iterdir()
                  if p.name.endswith(".txt"))


def placeholders(name: str) -> list[str]:
    """Example: placeholders("react_json_user") -> ['chat_history', 'question', 'scratchpad']"""
    return sorted(set(PLACEHOLDER.findall(load_template(name))))


def render_template(name: str, **values: Any) -> str:
    """Fill every `{placeholder}` of template `name`; values are inserted with str() as-is.

    Example: render_template("react_json_user", chat_history="", question="北京天气？",
             scratchpad="") -> "Question: 北京天气？\\n\\n"
    """
    text = load_template(name)
    wanted = set(PLACEHOLDER.findall(text))
    missing = sorted(wanted - values.keys())
    if missing:
        raise TemplateError(f"Template {name!r} needs {', '.join(missing)}, which you did not "
                            f"pass. It uses: {', '.join(sorted(wanted))}.")
    unused = sorted(values.keys() - wanted)
    if unused:
        raise TemplateError(f"Template {name!r} has no placeholder for {', '.join(unused)} "
                            f"(check the spelling). It uses: {', '.join(sorted(wanted))}.")
    # One pass: a value that itself contains "{question}" is not expanded again.
    return PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), text)


def _check_style(style: str) -> str:
    if style not in STYLES:
        raise ValueError(f"Unknown ReAct style {style!r}: use 'json' (the JSON-blob style) or "
                         f"'action_input' (the Action / Action Input lines).")
    return style


def react_system_prompt(registry: Any, style: str = "json",
                        instructions: str | None = None) -> str:
    """The system prompt for a ReAct run: instructions, the registry's tools and the format.

    Example: react_system_prompt(default_registry(), style="action_input") -> "Answer the …
             TOOLS … Action: the tool to use, one of [get_weather, get_closing_price, …] …"
    """
    _check_style(style)
    names = list(registry.names())
    return render_template(
        f"react_{style}_system",
        instructions=instructions or DEFAULT_INSTRUCTIONS,
        tool_descriptions=registry.describe() if names else "(no tools are available)",
        tool_names=", ".join(names) if names else "(none)",
    )


def format_chat_history(history: list[dict] | None) -> str:
    """Earlier turns as plain text for a scratchpad prompt.

    Example: format_chat_history([{"role": "user", "content": "你好"},
             {"role": "assistant", "content": "你好！"}]) -> "Human: 你好\\nAI: 你好！"
    """
    who = {"user": "Human", "assistant": "AI", "system": "System"}
    return "\n".join(f"{who.get(m.get('role', ''), m.get('role', '?'))}: {m.get('content') or ''}"
                     for m in history or [])


def react_user_message(question: str, scratchpad: str = "", *, style: str = "json",
                       chat_history: str = "") -> str:
    """The user message holding the question (and, in scratchpad mode, the steps so far).

    `chat_history` is already-formatted text (see format_chat_history), "" for none.
    Example: react_user_message("北京天气？") -> "Question: 北京天气？\\n\\n"
    """
    if _check_style(style) == "json":
        history = f"Previous conversation:\n{chat_history}\n\n" if chat_history else ""
    else:
        history = chat_history or "(none)"
    return render_template(f"react_{style}_user", chat_history=history, question=question,
                           scratchpad=scratchpad)
