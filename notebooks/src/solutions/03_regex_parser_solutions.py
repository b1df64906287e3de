# %% [markdown]
# # 03 · Parsing ReAct with regular expressions — solutions
# *Worked solutions to the exercises of [03 · Parsing ReAct](../03_regex_parser.ipynb). No model
# calls here: parsers are tested on text.*
#
# First, `parse_step` from the notebook, unchanged, so this notebook runs on its own:

# %% [markdown] lang="zh-CN"
# # 03 · 用正则表达式解析 ReAct —— 参考答案
# *[03 · 用正则表达式解析 ReAct](../03_regex_parser.ipynb) 各道练习的完整解答。这里不调用模型：解析器都拿文本来测试。*
#
# 首先是 notebook 里的 `parse_step`，原样照搬，这样本 notebook 可以独立运行：

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

# %% [markdown] lang="zh-CN"
# ## 1. `Action: get_weather(location="北京")`
#
# 一条正则找到紧跟在标签后面的 `name(`；`ast.parse` 把括号里的内容当作一个 Python 调用来读（它只做解析，不运行任何东西），再由 `ast.literal_eval` 把每个参数变成值。

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

# %% [markdown] lang="zh-CN"
# 遇到 `get_weather(北京 天气)` 这样的内容，`ast.parse` 会抛出 `SyntaxError`——真正的解析器也应该把它转成一个带有给模型看的消息的 `ValueError`。
#
# ## 2. 对 `parse_step` 做模糊测试
#
# 用关键片段随机拼出字符串。除了返回结果或抛出 `ValueError`，其他任何情况都是 bug。

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

# %% [markdown] lang="zh-CN"
# `json.JSONDecodeError` 是 `ValueError` 的子类，`ReActParseError` 也是：所以"只抛 `ValueError`"这个承诺很容易守住——只要没有 `KeyError` 或 `AttributeError` 漏出来（比如 JSON 块是一个列表而不是字典）。包里的基于属性的测试（`tests/test_parsing.py`）用 `hypothesis` 对 `parse_react` 检查同样的承诺。
#
# ## 3. 两个解析器的分歧
#
# 小模型会写出的三种格式，以及两个解析器各自的处理结果：

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

# %% [markdown] lang="zh-CN"
# 谁是对的？对于加粗的标签，`parse_step` 在工具名里留下了一个多余的空格，还把 `**` 留在了输入里，于是输入不再是 JSON——这是错的（注册表随后会拒绝 `' get_weather'`）。对于裸字符串，两者都把 `北京` 保留为字符串：注册表会把它映射到这个工具唯一的参数上。对于没有标签的 JSON 块，`parse_react` 接受它，因为意图很明确；`parse_step` 拒绝它——也说得过去，但模型就得为一个格式错误多花一步。
#
# ## 4. 一个不存在的工具

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

# %% [markdown] lang="zh-CN"
# 这条消息说明了哪里错了，给出了可能的正确名字，并列出了现有的工具：模型修正下一个 Action 所需的一切都在里面。解析器说不出这些——它不知道有哪些工具；注册表知道。
#
# ---
# 返回 [03 · 用正则表达式解析 ReAct](../03_regex_parser.ipynb) | 目录：[README](../../../README.zh-CN.md)
