"""The chat template (rendering, the 1.5B's brace repair) and the GGUF metadata reader."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from reactlab.config import reactlab_home
from reactlab.server.gguf import GGUFError, chat_template, read_metadata
from reactlab.server.template import ChatTemplate, prepare_messages, repair

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather of a Chinese city.",
    "parameters": {"type": "object", "properties": {"location": {"type": "string"}},
                   "required": ["location"]}}}
BROKEN_LINE = '{{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}}'


@pytest.fixture(scope="module")
def qwen():
    return ChatTemplate.packaged()


def test_plain_conversation_is_chatml(qwen):
    prompt = qwen.render([{"role": "user", "content": "你好"}])
    assert prompt == ("<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a "
                      "helpful assistant.<|im_end|>\n<|im_start|>user\n你好<|im_end|>\n"
                      "<|im_start|>assistant\n")


def test_headline_tools_are_listed_the_qwen_way(qwen):
    prompt = qwen.render([{"role": "system", "content": "Be brief."},
                          {"role": "user", "content": "北京天气？"}], [WEATHER])
    assert prompt.startswith("<|im_start|>system\nBe brief.\n\n# Tools\n")
    assert ('<tools>\n{"type": "function", "function": {"name": "get_weather", "description": '
            '"Get the current weather of a Chinese city."') in prompt
    # the repaired instruction: a real JSON example, single braces
    assert '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>' \
        in prompt
    assert "{{" not in prompt
    assert prompt.endswith("<|im_start|>user\n北京天气？<|im_end|>\n<|im_start|>assistant\n")


def test_calls_and_results_render_as_tags(qwen):
    messages = [
        {"role": "user", "content": "北京和广州？"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"location": "北京"}'}},
            {"id": "call_2", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"location": "广州"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "晴"},
        {"role": "tool", "tool_call_id": "call_2", "content": "雨"},
    ]
    prompt = qwen.render(messages, [WEATHER])
    assert ('<|im_start|>assistant\n<tool_call>\n{"name": "get_weather", "arguments": '
            '{"location": "北京"}}\n</tool_call>\n<tool_call>\n') in prompt
    # both results in ONE user turn, each in its own <tool_response>
    assert ("<|im_start|>user\n<tool_response>\n晴\n</tool_response>\n<tool_response>\n雨\n"
            "</tool_response><|im_end|>\n<|im_start|>assistant\n") in prompt


def test_prepare_messages_normalises_openai_shapes():
    out = prepare_messages([
        {"role": "developer", "content": [{"type": "text", "text": "a"}, {"type": "text",
                                                                         "text": "b"}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "function": {"name": "f", "arguments": "not json"}}]},
    ])
    assert out[0] == {"role": "system", "content": "ab"}
    assert out[1]["content"] == "" and out[1]["tool_calls"][0]["function"]["arguments"] == "not json"


def test_repair_fixes_only_the_doubled_braces():
    broken = '{{- "\\n<tool_call>\\n' + BROKEN_LINE + '\\n</tool_call>" }}'
    fixed = repair(broken)
    assert "{{\\\"name" not in fixed and '{\\"name\\": <function-name>' in fixed
    assert repair(fixed) == fixed
    assert ChatTemplate(fixed).render([{"role": "user", "content": "x"}]) == \
        '\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'


# --- GGUF metadata ---------------------------------------------------------------------------

def _s(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def write_gguf(path: Path, template: str | None, truncate: int = 0) -> Path:
    """A tiny GGUF v3 file with metadata only (no tensors)."""
    kv = [_s("general.name") + struct.pack("<I", 8) + _s("tiny"),
          _s("qwen2.block_count") + struct.pack("<I", 4) + struct.pack("<I", 28),
          _s("tokenizer.ggml.tokens") + struct.pack("<I", 9) + struct.pack("<IQ", 8, 2)
          + _s("a") + _s("b"),
          _s("tokenizer.ggml.token_type") + struct.pack("<I", 9) + struct.pack("<IQ", 5, 2)
          + struct.pack("<ii", 1, 1)]
    if template is not None:
        kv.append(_s("tokenizer.chat_template") + struct.pack("<I", 8) + _s(template))
    data = b"GGUF" + struct.pack("<IQQ", 3, 0, len(kv)) + b"".join(kv)
    path.write_bytes(data[: len(data) - truncate] if truncate else data)
    return path


def test_read_metadata(tmp_path):
    meta = read_metadata(write_gguf(tmp_path / "m.gguf", "{{ messages }}"))
    assert meta["general.name"] == "tiny" and meta["qwen2.block_count"] == 28
    assert meta["tokenizer.ggml.tokens"] == "<array of 2>"
    assert read_metadata(tmp_path / "m.gguf", keep_arrays=True)["tokenizer.ggml.tokens"] == ["a", "b"]
    assert chat_template(tmp_path / "m.gguf") == "{{ messages }}"


def test_template_from_gguf_is_repaired(tmp_path):
    source = ChatTemplate.packaged().source.replace(
        '{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}', BROKEN_LINE)
    template = ChatTemplate.from_gguf(write_gguf(tmp_path / "m.gguf", source))
    assert template.source == ChatTemplate.packaged().source and "repaired" in template.origin


@pytest.mark.parametrize("make,words", [
    (lambda p: p.write_bytes(b"PK\x03\x04 a zip file"), "not a GGUF"),
    (lambda p: write_gguf(p, "{{ x }}", truncate=5), "truncated"),
    (lambda p: write_gguf(p, None), "no tokenizer.chat_template"),
])
def test_bad_files_say_what_is_wrong(tmp_path, make, words):
    path = tmp_path / "bad.gguf"
    make(path)
    with pytest.raises(GGUFError, match=words):
        chat_template(path)
    with pytest.raises(GGUFError, match="Cannot read"):
        chat_template(tmp_path / "missing.gguf")


@pytest.mark.parametrize("filename,broken", [
    ("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", True),
    ("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", False),
])
def test_real_model_templates_match_the_packaged_one(filename, broken):
    """Reads only the metadata (~0.1 s); skipped when the weights are not assembled."""
    path = reactlab_home() / "models" / filename
    if not path.is_file():
        pytest.skip(f"{path} not assembled")
    source = chat_template(path)
    assert (BROKEN_LINE in source) is broken
    assert repair(source) == ChatTemplate.packaged().source
