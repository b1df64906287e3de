"""Prompt templates: strict rendering, both ReAct styles, tools taken from the registry."""

from __future__ import annotations

import pytest

from reactlab.prompts import (
    TemplateError,
    format_chat_history,
    list_templates,
    placeholders,
    react_system_prompt,
    react_user_message,
    render_template,
)


class FakeRegistry:
    """Only what the prompts need: names() and describe()."""

    def __init__(self, tools: dict[str, str]):
        self.tools = tools

    def names(self):
        return list(self.tools)

    def describe(self, style="text"):
        return "\n".join(self.tools.values())


REG = FakeRegistry({
    "get_weather": "get_weather(location: string) — Get the current weather of a Chinese city.",
    "get_today": "get_today() — takes no arguments. Return today's date.",
})


def test_templates_exist_with_expected_placeholders():
    assert {"react_json_system", "react_json_user", "react_action_input_system",
            "react_action_input_user"} <= set(list_templates())
    assert placeholders("react_json_system") == ["instructions", "tool_descriptions",
                                                 "tool_names"]
    assert placeholders("react_action_input_user") == ["chat_history", "question", "scratchpad"]


def test_missing_placeholder_raises_and_names_it():
    with pytest.raises(TemplateError, match="scratchpad"):
        render_template("react_json_user", chat_history="", question="q")


def test_unused_value_raises_and_names_it():
    with pytest.raises(TemplateError, match="scratchpd"):
        render_template("react_json_user", chat_history="", question="q", scratchpad="",
                        scratchpd="typo")


def test_unknown_template_lists_the_available_ones():
    with pytest.raises(TemplateError, match="react_json_system"):
        render_template("nope")


def test_values_are_inserted_once_not_re_rendered():
    text = render_template("react_json_user", chat_history="", question="{scratchpad}",
                           scratchpad="X")
    assert text == "Question: {scratchpad}\n\nX"


def test_json_braces_in_templates_need_no_escaping():
    # LangChain-style `{{{{` escaping bugs cannot happen: JSON examples are plain text.
    prompt = react_system_prompt(REG, style="json")
    assert '{"action": "tool_name", "action_input": {"argument_name": "value"}}' in prompt
    assert "{{" not in prompt and "{instructions}" not in prompt


def test_json_style_system_prompt_lists_tools_from_the_registry():
    prompt = react_system_prompt(REG, style="json")
    assert "get_weather(location: string)" in prompt
    assert "get_today() — takes no arguments" in prompt
    assert "The only allowed values are: get_weather, get_today" in prompt
    assert "Final Answer:" in prompt and "Observation" in prompt


def test_action_input_style_has_the_do_i_need_a_tool_variant():
    prompt = react_system_prompt(REG, style="action_input", instructions="你是一个股票助手")
    assert prompt.startswith("你是一个股票助手")
    assert "Thought: Do I need to use a tool? Yes" in prompt
    assert "Thought: Do I need to use a tool? No" in prompt
    assert "Action: the tool to use, one of [get_weather, get_today]" in prompt
    assert "Action Input:" in prompt


def test_unknown_style_is_a_clear_error():
    with pytest.raises(ValueError, match="action_input"):
        react_system_prompt(REG, style="xml")


def test_empty_registry_says_so():
    prompt = react_system_prompt(FakeRegistry({}), style="json")
    assert "(no tools are available)" in prompt


def test_user_message_json_style_matches_seed_000_shape():
    assert react_user_message("北京和广州天气怎么样") == "Question: 北京和广州天气怎么样\n\n"
    pad = "Thought: x\nAction: y\nObservation: z\n"
    assert react_user_message("q", pad).endswith("Question: q\n\n" + pad)


def test_user_message_action_input_style_carries_chat_history():
    history = format_chat_history([{"role": "user", "content": "你好"},
                                   {"role": "assistant", "content": "你好！"}])
    msg = react_user_message("青岛啤酒和贵州茅台的收盘价哪个贵？", style="action_input",
                             chat_history=history)
    assert "Previous conversation history:\nHuman: 你好\nAI: 你好！" in msg
    assert "New input: 青岛啤酒和贵州茅台的收盘价哪个贵？" in msg
    assert "(none)" in react_user_message("q", style="action_input")


def test_real_registry_renders_if_available():
    tools = pytest.importorskip("reactlab.tools")
    try:
        reg = tools.default_registry()
    except ImportError:
        pytest.skip("the course tools are not importable yet")
    for style in ("json", "action_input"):
        prompt = react_system_prompt(reg, style=style)
        for name in reg.names():
            assert name in prompt
