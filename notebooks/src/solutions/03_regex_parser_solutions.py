# %% [markdown]
# # 03 · Parsing ReAct with regular expressions — solutions
# *Worked solutions to the exercises of [03 · Parsing ReAct](../03_regex_parser.ipynb). No model
# calls here: parsers are tested on text.*
#
# First, `parse_step` from the notebook, unchanged, so this notebook runs on its own:

# %%
import ast
import json
import random
import re

from reactlab.exercises.nb03 import check_1, check_2, check_3, check_4
from reactlab.parsing import ReActParseError, parse_react, strip_invented_observation
from reactlab.tools import ToolRegistry, get_weather

FINAL_RE = re.compile(r"Final Answer\s*[:：]")
ACTION_RE = re.compile(r"(?<!\w)Action\s*[:：]")
ACTION_INPUT_RE = re.compile(r"Action\s*Input\s*[:：]")


def first_label(text):
    f, a = FINAL_RE.search(text), ACTION_RE.search(text)
    if f and (not a or f.start() < a.start()):
        return "final"
    return "action" if a else None


def final_answer(text):
    m = re.search(r"Final Answer\s*[:：]\s*(.*)", text, re.DOTALL)
    return m.group(1).strip() if m else None


# %%
def first_object(text, start=0):
    i = text.find("{", start)
    if i == -1:
        raise ValueError("no '{' found: the arguments must be a JSON object")
    try:
        return json.JSONDecoder().raw_decode(text, i)[0]
    except json.JSONDecodeError as exc:
        end = text.rfind("}") + 1
        try:
            value = ast.literal_eval(text[i:end])
        except (ValueError, SyntaxError):
            raise ValueError(f"the JSON is not valid: {exc.msg} at character {exc.pos - i}") from None
        if not isinstance(value, dict):
            raise ValueError("the arguments must be a JSON object") from None
        return value


# %%
def json_action(text):
    label = ACTION_RE.search(text)
    blob = first_object(text, label.end() if label else 0)
    tool = blob.get("action", blob.get("name"))
    if not isinstance(tool, str):
        raise ValueError('the JSON blob needs an "action" key with the tool name')
    return tool, blob.get("action_input", blob.get("arguments", {}))


def action_input_action(text):
    name = re.search(r"(?<!\w)Action\s*[:：]\s*([^\n]+)", text)
    inp = ACTION_INPUT_RE.search(text)
    if not name or not inp:
        raise ValueError("write `Action: <tool name>` and, on the next line, `Action Input: {...}`")
    tool = name.group(1).strip().strip("`*[]\"'")
    raw = text[inp.end():].strip()
    args = first_object(raw) if raw.startswith("{") else raw.strip("\"'` ")
    return tool, args


# %%
def parse_step(text):
    text = strip_invented_observation(text)
    label = first_label(text)
    if label == "final":
        answer = final_answer(text)
        if not answer:
            raise ValueError("`Final Answer:` is empty; write the answer right after it")
        return ("final", answer)
    if label == "action":
        if len(ACTION_RE.findall(text)) > 1:
            raise ValueError("there is more than one Action; write exactly one and stop")
        find = action_input_action if ACTION_INPUT_RE.search(text) else json_action
        return ("action", *find(text))
    raise ValueError("no `Action:` and no `Final Answer:` found")

# %% [markdown]
# ## 1. `Action: get_weather(location="北京")`
#
# One regex finds `name(` right after the label; `ast.parse` reads what is inside the
# parentheses as a Python call (it parses, it does not run anything), and `ast.literal_eval`
# turns each argument into a value.

# %%
CALL_RE = re.compile(r"(?<!\w)Action\s*[:：]\s*`?([A-Za-z_]\w*)\((.*)\)`?\s*$", re.DOTALL)


def parse_step_v2(text):
    m = CALL_RE.search(strip_invented_observation(text))
    if m and first_label(text) == "action":
        call = ast.parse(f"f({m.group(2)})", mode="eval").body
        if call.args:
            raise ValueError("name the arguments: get_weather(location=\"北京\")")
        return ("action", m.group(1), {k.arg: ast.literal_eval(k.value) for k in call.keywords})
    return parse_step(text)


print(parse_step_v2('Thought: 查北京\nAction: get_weather(location="北京")'))
print(parse_step_v2('Action: get_weather\nAction Input: {"location": "广州"}'))
answer_1 = parse_step_v2
check_1(answer_1)

# %% [markdown]
# `ast.parse` raises `SyntaxError` for something like `get_weather(北京 天气)` — a real parser
# would turn that into a `ValueError` with a message for the model, too.
#
# ## 2. Fuzzing `parse_step`
#
# Random strings from the pieces that matter. Anything other than a result or a `ValueError`
# is a bug.

# %%
random.seed(7)
pieces = ["Action:", "Final Answer:", "{", "}", "\n", "北京", '"', "Action Input:", "```", " "]
other = []
for _ in range(1000):
    s = "".join(random.choice(pieces) for _ in range(random.randint(0, 12)))
    try:
        parse_step(s)
    except ValueError:
        pass
    except Exception as exc:  # noqa: BLE001 - that is what we are looking for
        other.append((s, type(exc).__name__))
print(f"{len(other)} of 1000 raised something other than ValueError")
for s, name in other[:5]:
    print(f"  {name}: {s!r}")
answer_2 = parse_step
check_2(answer_2)  # the check fuzzes it again with its own seeded strings

# %% [markdown]
# `json.JSONDecodeError` is a subclass of `ValueError`, and so is `ReActParseError`: that is
# why "raise only ValueError" is an easy promise to keep — as long as no `KeyError` or
# `AttributeError` slips through (e.g. a blob that is a list, not a dict). The package's
# property tests (`tests/test_parsing.py`) check the same promise for `parse_react` with
# `hypothesis`.
#
# ## 3. Where the two parsers differ
#
# Three shapes small models write, and what each parser makes of them:

# %%
cases = {
    "bold labels": '**Action:** get_weather\n**Action Input:** {"location": "北京"}',
    "bare string input": "Action: get_weather\nAction Input: 北京",
    "blob without label": '```json\n{"action": "get_weather", "action_input": {"location": "广州"}}\n```',
}
for name, text in cases.items():
    try:
        ours = parse_step(text)
    except ValueError as exc:
        ours = ("ERROR", str(exc))
    try:
        theirs = parse_react(text)
    except ReActParseError as exc:
        theirs = ("ERROR", exc.code)
    print(f"{name}\n  parse_step : {ours}\n  parse_react: {theirs}")

# %%
bold = cases["bold labels"]
try:
    answer_3 = {"reply": bold, "ours": parse_step(bold)}
except ValueError as exc:
    answer_3 = {"reply": bold, "ours": ("ERROR", str(exc))}
check_3(answer_3)

# %% [markdown]
# Who is right? For the bold labels, `parse_step` keeps a stray space in the tool name and the
# `**` in the input, so the input is no longer JSON — wrong (the registry would then reject
# `' get_weather'`).
# For the bare string, both keep `北京` as a string: the registry maps it onto the tool's only
# parameter. For the unlabelled blob, `parse_react` accepts it because the intent is
# unambiguous; `parse_step` refuses it — defensible, but the model then spends a step on a
# format error.
#
# ## 4. A tool that does not exist

# %%
answer_4 = ToolRegistry([get_weather]).run("get_wether", {"location": "北京"})
print(answer_4)
check_4(answer_4)

# %% [markdown]
# The message says what is wrong, suggests the likely name and lists what exists: everything
# the model needs to fix its next Action. The parser could not have said this — it does not
# know the tools; the registry does.
#
# ---
# Back to [03 · Parsing ReAct](../03_regex_parser.ipynb) | Index: [README](../../README.md)
