# %% [markdown]
# # 03 · Parsing ReAct with regular expressions
# *The model writes text; the program needs a tool name and a dict of arguments. Build the
# parser one regex at a time, then break it on real replies.*
#
# **After this notebook you can:**
# - pull the Final Answer, the tool name and the arguments out of a reply in either ReAct style
#   (the JSON blob of the weather agent, the `Action:` / `Action Input:` lines of the stock agent);
# - run a parser over a pile of real replies and read off where and why it fails;
# - harden it against what models write and what a parser must survive (fences, full-width
#   colons, Python dicts, an invented Observation with an answer after it);
# - write parse errors as messages the *model* can act on, and use `reactlab.parsing.parse_react`.
#
# **Where we are:** notebook 02 stopped the model after its Action (`stop=["Observation:"]`)
# and cleaned the end of a reply (`cut_at_stop`, `strip_invented_observation`). We import both.
#
# > 正则表达式是 ReAct 的"耳朵"：模型说的每一句，程序只能靠它听懂。耳朵太挑剔，Agent 就会卡住；
# > 耳朵太随便，就会把模型编出来的内容当真。

# %% [markdown] lang="zh-CN"
# # 03 · 用正则表达式解析 ReAct
# *模型写出来的是文本，程序要的却是一个工具名和一个参数字典。我们一次加一条正则，把解析器搭起来，再拿真实的回复去把它弄坏。*
#
# **学完本篇，你可以：**
# - 从两种 ReAct 风格的回复里取出 Final Answer、工具名和参数（天气智能体的 JSON 块，股票智能体的 `Action:` / `Action Input:` 行）；
# - 把解析器跑在一大堆真实回复上，看出它在哪里失败、为什么失败；
# - 让它扛得住模型会写出来的、以及解析器必须挺过去的东西（代码围栏、全角冒号、Python 字典、编造的 Observation 后面还跟着一个答案）；
# - 把解析错误写成*模型*能照着改的消息，并使用 `reactlab.parsing.parse_react`。
#
# **当前进度：** 第 02 篇让模型写完 Action 就停下（`stop=["Observation:"]`），还清理了回复的结尾（`cut_at_stop`、`strip_invented_observation`）。这两个函数我们直接导入。
#
# > 正则表达式是 ReAct 的"耳朵"：模型说的每一句，程序只能靠它听懂。耳朵太挑剔，Agent 就会卡住；
# > 耳朵太随便，就会把模型编出来的内容当真。

# %% [markdown]
# ## Setup

# %% [markdown] lang="zh-CN"
# ## 环境准备

# %%
# NBVAL_IGNORE_OUTPUT
import ast
import json
import os
import re
from collections import Counter
from pathlib import Path

import reactlab
from reactlab.parsing import (
    Action, FinalAnswer, ReActParseError, cut_at_stop, parse_react, strip_invented_observation,
)
from reactlab.prompts import react_system_prompt, react_user_message
from reactlab.tools import ToolRegistry, get_closing_price, get_weather

os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
conn = reactlab.connect()
conn

# %% [markdown]
# ## 1. A pile of real replies
#
# A parser is only as good as the replies it has seen. We collect three kinds, all written by
# real models:
#
# - **this run**: three fresh replies from the model behind `conn` — the weather question in the
#   JSON style with `stop`, the same without `stop` (the messy case from notebook 02), and the
#   stock agent's question in the `Action Input` style;
# - **the recorded agents**: replies recorded from the weather agent (JSON-blob ReAct, DeepSeek-V3)
#   and the stock agent (`Action` / `Action Input` lines);
# - **the corpus**: replies collected by the project in `tests/data/react_outputs.json` (in a
#   checkout of the repository; the installed package does not ship it): recorded replies of the
#   local model, and a few *handmade* shapes that other models are known
#   to write. Handmade entries are labelled `handmade:` — they test the parser, but they are not
#   evidence of what a model did.

# %% [markdown] lang="zh-CN"
# ## 1. 一堆真实的回复
#
# 解析器好不好，取决于它见过哪些回复。我们收集三类回复，全部出自真实模型之手：
#
# - **本次运行**：`conn` 背后的模型现场写的三条回复——用 JSON 风格、带 `stop` 问天气；同样的问题不带 `stop`（第 02 篇里那个乱糟糟的情况）；再用 `Action Input` 风格问股票智能体的问题；
# - **录制的智能体回复**：天气智能体（JSON 块风格的 ReAct，DeepSeek-V3）和股票智能体（`Action` / `Action Input` 行）录制下来的回复；
# - **语料库**：项目收集在 `tests/data/react_outputs.json` 里的回复（只有从 Git 克隆的源码仓库里才有，pip 安装的包不含此文件）：本地模型的录制回复，外加几条*手写*的格式——已知其他模型会写出这种样子。手写条目都标着 `handmade:`：它们用来测试解析器，但不能当作模型做过什么的证据。

# %%
# NBVAL_IGNORE_OUTPUT
weather_q, stock_q = "北京和广州的天气怎么样？", "青岛啤酒和贵州茅台的收盘价哪个贵？"


def ask(question, tools, style, stop):
    messages = [{"role": "system", "content": react_system_prompt(ToolRegistry(tools), style=style)},
                {"role": "user", "content": react_user_message(question, style=style)}]
    reply = conn.client.chat.completions.create(model=conn.model, messages=messages,
                                                max_tokens=200, temperature=0, stop=stop)
    return reply.choices[0].message.content or ""


live = {
    "live: weather, json, stop": ask(weather_q, [get_weather], "json", ["Observation:"]),
    "live: weather, json, no stop": ask(weather_q, [get_weather], "json", None),
    "live: stock, action_input, stop": ask(stock_q, [get_closing_price], "action_input",
                                           ["Observation:"]),
}
for name, text in live.items():
    print(f"===== {name}\n{text}\n")

# %% [markdown]
# The two agents' replies, as recorded:

# %% [markdown] lang="zh-CN"
# 两个智能体的回复，原样录制：

# %%
recorded = {
    "weather agent #1": "Thought: 我需要获取北京和广州的天气信息。首先，我将获取北京的天气。\n\nAction:\n```\n"
                   "{\n  \"action\": \"get_weather\",\n  \"action_input\": {\n    \"location\": \"北京\"\n  }\n}\n```",
    "weather agent #2": "Thought: 我已经获取了北京的天气信息。接下来，我将获取广州的天气信息。\n\nAction:\n```\n"
                   "{\n\"action\": \"get_weather\",\n\"action_input\": {\n\"location\": \"广州\"\n}\n}\n```\nObservation",
    "weather agent #3": "Thought: 我已经获取了北京和广州的天气信息，现在可以回答用户的问题了。\n\n"
                   "Final Answer: 北京的天气温度为23.4°C，湿度为43%，风向为西南风，风速为2.7米/秒。"
                   "广州的天气温度为24.2°C，湿度为79%，风向为东北风，风速为1.3米/秒。",
    "stock agent #1": "Thought: Do I need to use a tool? Yes\nAction: get_closing_price\n"
                   "Action Input: {\"name\": \"青岛啤酒\"}",
    "stock agent #2": "Thought: Do I need to use a tool? Yes\nAction: get_closing_price\n"
                   "Action Input: {\"name\": \"贵州茅台\"}",
    "stock agent #3": "Thought: Do I need to use a tool? No\nFinal Answer: 贵州茅台的收盘价为1488.21元，"
                   "青岛啤酒的收盘价为67.92元，因此贵州茅台的收盘价比青岛啤酒贵。",
}

# %% [markdown]
# And the recorded corpus, if this is a checkout of the repository:

# %% [markdown] lang="zh-CN"
# 如果你是在克隆下来的仓库里运行，再加上录制的语料库：

# %%
def find_corpus() -> Path | None:
    for folder in [Path.cwd(), *Path.cwd().parents]:
        path = folder / "tests" / "data" / "react_outputs.json"
        if path.exists():
            return path
    return None


def load_corpus(path: Path | None) -> dict[str, str]:
    """{label: reply} from the corpus; its DeepSeek-V3 transcripts are skipped (the two agents'
    replies are above).

    Entries marked `handmade` are not model output: shapes other models are known to write,
    typed in by hand. They are labelled as such and never used as evidence of what a model did.
    """
    if path is None:
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    out = {}
    for item in data.get("entries", []):
        source = item.get("source", "?")
        # local-model replies and handmade shapes; the DeepSeek-V3 transcripts are above
        if (source.startswith("local") or source == "handmade") and isinstance(item.get("text"), str):
            out[f"{source}: {item.get('id', len(out))}"] = item["text"]
    return out


# %%
# NBVAL_IGNORE_OUTPUT
corpus = load_corpus(find_corpus())
replies = {**live, **recorded, **corpus}
print(f"{len(live)} live + {len(recorded)} recorded + {len(corpus)} corpus replies = {len(replies)}")


def show(text: str, width: int = 70) -> str:
    """One line per reply in tables: newlines as ⏎, long text cut in the middle."""
    one = text.replace("\n", "⏎")
    return one if len(one) <= width else one[: width - 25] + " … " + one[-22:]

# %% [markdown]
# ## 2. The two agents' parsers, as they were written
#
# Both agents parse with two or three regular expressions. The weather agent (JSON blob):
#
# ```python
# final  = re.search(r"\nFinal Answer:\s*(.*)", content)
# action = re.compile(r"\nAction:\n`{3}(?:json)?\n(.*?)`{3}.*?$", re.DOTALL).search(content)
# obj = json.loads(action.group(1)); obj["action"], obj["action_input"]
# ```
#
# The stock agent (`Action` / `Action Input` lines):
#
# ```python
# final  = re.search(r'Final Answer:\s*(.*)', text)
# action = re.search(r'Action:\s*(\w+)', text)
# action_input = re.search(r'Action Input:\s*({.*?}|".*?")', text, re.DOTALL)
# params = json.loads(action_input.group(1))
# ```
#
# Both check `Final Answer` **first**, and both let an exception from `json.loads` escape.
# Here they are as functions that return what the agent's loop would have done:

# %% [markdown] lang="zh-CN"
# ## 2. 两个智能体原本的解析器
#
# 两个智能体都只用两三条正则来解析。天气智能体（JSON 块）：
#
# ```python
# final  = re.search(r"\nFinal Answer:\s*(.*)", content)
# action = re.compile(r"\nAction:\n`{3}(?:json)?\n(.*?)`{3}.*?$", re.DOTALL).search(content)
# obj = json.loads(action.group(1)); obj["action"], obj["action_input"]
# ```
#
# 股票智能体（`Action` / `Action Input` 行）：
#
# ```python
# final  = re.search(r'Final Answer:\s*(.*)', text)
# action = re.search(r'Action:\s*(\w+)', text)
# action_input = re.search(r'Action Input:\s*({.*?}|".*?")', text, re.DOTALL)
# params = json.loads(action_input.group(1))
# ```
#
# 两者都**先**检查 `Final Answer`，也都任由 `json.loads` 抛出的异常漏出去。下面把它们写成函数，返回智能体的循环原本会做的事：

# %%
def weather_agent_parse(text):
    final = re.search(r"\nFinal Answer:\s*(.*)", text)
    if final:
        return ("final", final.group(1))
    m = re.compile(r"\nAction:\n`{3}(?:json)?\n(.*?)`{3}.*?$", re.DOTALL).search(text)
    if not m:
        return ("invalid response", None)  # the agent prints an error and gives up
    obj = json.loads(m.group(1))           # may raise: the agent would crash
    return ("action", obj["action"], obj["action_input"])


def stock_agent_parse(text):
    final = re.search(r"Final Answer:\s*(.*)", text)
    if final:
        return ("final", final.group(1))
    action = re.search(r"Action:\s*(\w+)", text)
    action_input = re.search(r'Action Input:\s*({.*?}|".*?")', text, re.DOTALL)
    if not (action and action_input):
        return ("nothing", None)  # the agent's while-True loop just asks again: a possible endless loop
    return ("action", action.group(1), json.loads(action_input.group(1)))


# %%
def attempt(parser, text):
    try:
        return parser(text)
    except Exception as exc:  # noqa: BLE001 - we want to see every way it fails
        return ("CRASH", f"{type(exc).__name__}: {exc}"[:60])

# %% [markdown]
# Run each agent's parser on the replies written in *its* style (the weather agent's parser on
# JSON-blob replies, the stock agent's parser on `Action Input` replies), and look at the column on the right:

# %% [markdown] lang="zh-CN"
# 让每个智能体的解析器只处理*它自己那种*风格的回复（天气智能体的解析器处理 JSON 块回复，股票智能体的解析器处理 `Action Input` 回复），然后看右边那一列：

# %%
# NBVAL_IGNORE_OUTPUT
def style_of(text: str) -> str:
    return "action_input" if re.search(r"Action\s*Input", text, re.I) or "tool?" in text else "json"


agent_results = {}
for name, text in replies.items():
    parser = stock_agent_parse if style_of(text) == "action_input" else weather_agent_parse
    agent_results[name] = attempt(parser, text)
    if name in live or name in recorded:  # the corpus is tallied below, not listed
        print(f"{name:<34} {parser.__name__:<19} -> {str(agent_results[name])[:60]}")
tally = Counter(agent_results[n][0] for n in corpus)
print(f"\nthe {len(corpus)} corpus replies:", dict(tally))

# %% [markdown]
# **Watch it break.** The next cell picks out the replies where the agents' parsers did something
# a loop cannot use: crashed, found nothing, or returned a `final` answer although the reply
# also contains an Action (that answer was written *before any tool ran*). The list depends on
# what the models wrote; the cell prints it, whatever it is.

# %% [markdown] lang="zh-CN"
# **看它出错。** 下一个单元格把这样的回复挑出来：智能体的解析器在它们身上给出了循环没法接着用的结果——崩溃了、什么都没找到，或者回复里明明还有 Action，却返回了 `final` 答案（这个答案是在*任何工具运行之前*写下的）。列出哪些回复取决于模型写了什么；不管结果如何，单元格都会把它打印出来。

# %%
# NBVAL_IGNORE_OUTPUT
def is_trouble(name):
    kind = agent_results[name][0]
    text = replies[name]
    answered_early = kind == "final" and re.search(r"Action\s*[:：]", text) and \
        text.find("Action") < text.find("Final Answer")
    return kind in ("CRASH", "nothing", "invalid response") or bool(answered_early)


trouble = [n for n in replies if is_trouble(n)]
real = [n for n in trouble if not n.startswith("handmade")]
print(f"{len(trouble)} of {len(replies)} replies trip the agents' parsers; "
      f"{len(real)} of them were written by a model:\n")
for name in real:
    print(f"--- {name}: {str(agent_results[name])[:70]}\n    {show(replies[name], 110)}")
print("handmade shapes that trip them too:", [n for n in trouble if n not in real])

# %% [markdown]
# What to look for, read straight off the regexes — each one too strict or too loose somewhere:
#
# - `\nFinal Answer:` needs a newline *before* the label: a reply that starts with it is missed;
#   `(.*)` stops at the first newline, so a multi-line answer is cut.
# - ``\nAction:\n``` `` wants the fence on the very next line: `` Action: ```json `` on one line, or no
#   fence at all, is "invalid".
# - `{.*?}` is lazy: it stops at the *first* `}`, so a nested object is cut in half.
# - `Final Answer` checked first: a reply with an Action *and* an invented Final Answer (notebook
#   02, no `stop`) is taken as finished — with the invented answer.
#
# Now we build our own, one regex at a time, each tested on the pile.

# %% [markdown] lang="zh-CN"
# 要注意什么，直接从正则本身就能读出来——每一条都在某处太严或太松：
#
# - `\nFinal Answer:` 要求标签*前面*有换行：以它开头的回复会被漏掉；`(.*)` 遇到第一个换行就停，多行的答案会被截断。
# - `` \nAction:\n``` `` 要求代码围栏紧跟在下一行：`` Action: ```json `` 写在同一行，或者干脆没有围栏，都会被判为 "invalid"。
# - `{.*?}` 是惰性的：它在*第一个* `}` 处就停，嵌套的对象会被拦腰截断。
# - 先查 `Final Answer`：一条既有 Action *又*有编造的 Final Answer 的回复（第 02 篇，不带 `stop`）会被当成已经结束——用的还是编造的答案。
#
# 接下来我们自己写一个，一次一条正则，每条都拿这堆回复来测。

# %% [markdown]
# ## 3. Rule 1: cut what the model must not write
#
# Notebook 02 already gave us this: everything from the first line starting with `Observation`
# belongs to us, not to the model, and a dangling `Observation` at the end is stop residue.

# %% [markdown] lang="zh-CN"
# ## 3. 规则 1：切掉模型不该写的内容
#
# 这一步第 02 篇已经给了我们：从第一个以 `Observation` 开头的行起，后面的一切都归我们，不归模型；结尾处孤零零的一个 `Observation` 是停止序列的残留。

# %%
# NBVAL_IGNORE_OUTPUT
for name, text in replies.items():
    kept = strip_invented_observation(text)
    if kept != text.rstrip():
        print(f"{name:<34} cut {len(text) - len(kept):>4} chars, now ends {show(kept[-30:], 32)!r}")

# %% [markdown]
# ## 4. Labels: which comes first?
#
# One pattern per label. Two choices make them tolerant: `\s*` before the colon, and a
# character class `[:：]` that takes the full-width colon a model writing Chinese may use.

# %% [markdown] lang="zh-CN"
# ## 4. 标签：谁先出现？
#
# 每个标签一条模式。有两处设计让它们更宽容：冒号前的 `\s*`，以及字符类 `[:：]`——用中文写作的模型可能会用全角冒号，这样也能匹配上。

# %%
FINAL_RE = re.compile(r"Final Answer\s*[:：]")
ACTION_RE = re.compile(r"(?<!\w)Action\s*[:：]")           # not the "Action" of "Action Input"
ACTION_INPUT_RE = re.compile(r"Action\s*Input\s*[:：]")

print(FINAL_RE.search("Thought: 好了\nFinal Answer：北京晴"))  # full-width colon
print(ACTION_RE.search("Action Input: {}"))                     # None: that is not an Action label

# %% [markdown]
# The decision rule: **whichever label comes first wins.** An Action before any Final Answer
# means "run this tool" — a Final Answer after it was written without the tool's result, so we
# ignore it. A Final Answer before any Action means the model is done.

# %% [markdown] lang="zh-CN"
# 判定规则：**哪个标签先出现，就听哪个的。** 出现在任何 Final Answer 之前的 Action 表示"运行这个工具"——它后面的 Final Answer 是在没有工具结果的情况下写的，所以我们忽略它。出现在任何 Action 之前的 Final Answer 表示模型已经答完了。

# %%
def first_label(text):
    """'final', 'action' or None — whichever label appears first.

    Example: first_label("Action: a\\nFinal Answer: b") -> 'action'
    """
    f, a = FINAL_RE.search(text), ACTION_RE.search(text)
    if f and (not a or f.start() < a.start()):
        return "final"
    return "action" if a else None

# %%
# NBVAL_IGNORE_OUTPUT
labels = {name: first_label(strip_invented_observation(text)) for name, text in replies.items()}
for kind in ("action", "final", None):
    names = [n for n, k in labels.items() if k == kind]
    print(f"{str(kind):>6}: {len(names):>2} replies" + (f"  {names}" if kind is None else ""))
print("\nthe no-stop reply of this run:", labels["live: weather, json, no stop"],
      "(the weather agent's parser said:", agent_results["live: weather, json, no stop"][0] + ")")

# %% [markdown]
# ## 5. The Final Answer: everything after the label
#
# `(.*)` without flags stops at a newline. With `re.DOTALL` the dot also matches newlines, so
# the answer is everything after the label (what is left after rule 1 cut any invented
# Observation).

# %% [markdown] lang="zh-CN"
# ## 5. Final Answer：标签之后的全部内容
#
# 不加标志的 `(.*)` 遇到换行就停。加上 `re.DOTALL` 之后点号也能匹配换行，于是答案就是标签之后的全部内容（也就是规则 1 切掉编造的 Observation 之后剩下的部分）。

# %%
def final_answer(text):
    m = re.search(r"Final Answer\s*[:：]\s*(.*)", text, re.DOTALL)
    return m.group(1).strip() if m else None


print(final_answer("Thought: done\nFinal Answer: 北京晴。\n广州多云。"))

# %% [markdown]
# ## 6. The JSON blob: find the object, do not regex it
#
# The weather agent's regex tries to find the JSON by its fence. But a regex cannot match balanced
# braces, and fences vary (```` ``` ````, ```` ```json ````, none at all). A sturdier plan:
# find the first `{` after `Action:` and let the JSON decoder itself say where the object ends —
# `json.JSONDecoder().raw_decode(text, i)` returns the object and the index after it, and
# ignores whatever follows (a closing fence, a sentence, …).

# %% [markdown] lang="zh-CN"
# ## 6. JSON 块：找到对象，别用正则去匹配它
#
# 天气智能体的正则想靠代码围栏找到 JSON。可是正则匹配不了成对的花括号，围栏的写法也五花八门（```` ``` ````、```` ```json ````，或者根本没有）。更稳妥的办法是：找到 `Action:` 之后的第一个 `{`，让 JSON 解码器自己告诉我们对象在哪里结束——`json.JSONDecoder().raw_decode(text, i)` 返回解码出的对象和它结束之后的位置，后面跟着什么都不管（结尾的围栏、一句话……）。

# %%
def first_object(text, start=0):
    """The first JSON object at or after `start`, decoded; ValueError if none decodes.

    Example: first_object('Action: ```json {"a": 1}``` thanks') -> {'a': 1}
    """
    i = text.find("{", start)
    if i == -1:
        raise ValueError("no '{' found: the arguments must be a JSON object")
    try:
        return json.JSONDecoder().raw_decode(text, i)[0]
    except json.JSONDecodeError as exc:
        # Small models sometimes write a Python dict: {'location': '北京'}. literal_eval reads
        # Python literals only (it never runs code), so it is safe to try.
        end = text.rfind("}") + 1
        try:
            value = ast.literal_eval(text[i:end])
        except (ValueError, SyntaxError):
            raise ValueError(f"the JSON is not valid: {exc.msg} at character {exc.pos - i}") from None
        if not isinstance(value, dict):
            raise ValueError("the arguments must be a JSON object") from None
        return value


print(first_object('Action:\n```json\n{"action": "get_weather", "action_input": {"location": "北京"}}\n```'))
print(first_object("Action: {'action': 'get_weather', 'action_input': {'location': '广州'}}"))

# %% [markdown]
# The blob names the tool under `action` (some models write `name`, as in native tool calls)
# and the arguments under `action_input` (or `arguments`):

# %% [markdown] lang="zh-CN"
# JSON 块用 `action` 给出工具名（有些模型写成 `name`，和原生工具调用一样），用 `action_input`（或 `arguments`）给出参数：

# %%
def json_action(text):
    """(tool, args) from a JSON-blob Action; ValueError with a reason otherwise."""
    label = ACTION_RE.search(text)
    blob = first_object(text, label.end() if label else 0)
    tool = blob.get("action", blob.get("name"))
    if not isinstance(tool, str):
        raise ValueError('the JSON blob needs an "action" key with the tool name')
    return tool, blob.get("action_input", blob.get("arguments", {}))

# %%
# NBVAL_IGNORE_OUTPUT
for name, text in replies.items():
    text = strip_invented_observation(text)
    if first_label(text) == "action" and style_of(text) == "json":
        try:
            print(f"{name:<34} {json_action(text)}")
        except ValueError as exc:
            print(f"{name:<34} ERROR {exc}")

# %% [markdown]
# ## 7. `Action:` / `Action Input:` lines
#
# The tool name is the rest of the `Action:` line; the input is everything after
# `Action Input:`. The input is usually a JSON object, but a model may write a bare value such
# as `北京` — keep it as a string then (the package's tool registry, `reactlab.tools.registry`,
# which the agents use from notebook 04 on, maps a bare value to a one-parameter tool).

# %% [markdown] lang="zh-CN"
# ## 7. `Action:` / `Action Input:` 行
#
# 工具名是 `Action:` 这一行余下的部分；输入是 `Action Input:` 之后的全部内容。输入通常是一个 JSON 对象，但模型也可能只写一个裸值，比如 `北京`——这时就把它当作字符串保留（包里的工具注册表 `reactlab.tools.registry`——从第 04 篇起智能体都用它——会把裸值映射到只有一个参数的工具上）。

# %%
def action_input_action(text):
    """(tool, args) from `Action: tool` + `Action Input: …` lines."""
    name = re.search(r"(?<!\w)Action\s*[:：]\s*([^\n]+)", text)
    inp = ACTION_INPUT_RE.search(text)
    if not name or not inp:
        raise ValueError("write `Action: <tool name>` and, on the next line, `Action Input: {...}`")
    tool = name.group(1).strip().strip("`*[]\"'")
    raw = text[inp.end():].strip()
    args = first_object(raw) if raw.startswith("{") else raw.strip("\"'` ")
    return tool, args

# %%
# NBVAL_IGNORE_OUTPUT
for name, text in replies.items():
    text = strip_invented_observation(text)
    if first_label(text) == "action" and style_of(text) == "action_input":
        try:
            print(f"{name:<34} {action_input_action(text)}")
        except ValueError as exc:
            print(f"{name:<34} ERROR {exc}")

# %% [markdown]
# ## 8. Put together
#
# Cut, find the first label, dispatch on the style. Anything else is a `ValueError` whose text
# says what to write instead.

# %% [markdown] lang="zh-CN"
# ## 8. 组装起来
#
# 先切，再找第一个标签，然后按风格分派。其他情况一律抛出 `ValueError`，错误文本会说明应该改写成什么样。

# %%
def parse_step(text):
    """('final', answer) or ('action', tool, args); ValueError saying what to fix.

    Example: parse_step('Action: get_weather\\nAction Input: {"location": "北京"}')
             -> ('action', 'get_weather', {'location': '北京'})
    """
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


# %%
def attempt_parse_step(text):
    try:
        return parse_step(text)
    except ValueError as exc:
        return ("ERROR", str(exc))

# %%
# NBVAL_IGNORE_OUTPUT
mine = {name: attempt_parse_step(text) for name, text in replies.items()}
changed = [n for n in replies if mine[n][0] != agent_results[n][0]]  # the verdict changed
for name in changed[:25]:
    print(f"{name[:34]:<34} {str(agent_results[name])[:26]:<27} -> {str(mine[name])[:50]}")
print(f"({len(changed)} of {len(replies)} replies changed kind; the other "
      f"{len(replies) - len(changed)} read the same way" + (", first 25 shown)" if len(changed) > 25 else ")"))
print(f"\nagents' parsers in trouble: {len(trouble)}; parse_step errors: "
      f"{sum(r[0] == 'ERROR' for r in mine.values())} of {len(replies)}")

# %% [markdown]
# Only the replies whose outcome changed are listed. Columns: the reply, the agent's parser's result, ours. Where ours still says `ERROR`, read
# that reply in the "Watch it break" list above: sometimes the reply really has no usable step, and then an error is the right answer —
# as long as it is a good one.

# %% [markdown] lang="zh-CN"
# 这里只列出结果变了的回复。三列依次是：回复、智能体解析器的结果、我们的结果。我们的解析器仍然给出 `ERROR` 的地方，去上面“看它出错”那份列表里读一读那条回复：有时回复里确实没有可用的步骤，这时报错就是正确的结果——只要这个错误写得好。

# %% [markdown]
# ## 9. Errors are messages for the model
#
# In an agent, a parse error is not the end: the loop sends it back to the model as the next
# Observation and lets it try again (notebook 04). So the message has one reader who matters:
# the model. "invalid response" (the weather agent) tells it nothing. A useful message says **what was
# wrong** and **the exact format to use**. Compare ours with the package's on a few broken
# replies — one of them is a Python call, a shape our `parse_step` does not know:

# %% [markdown] lang="zh-CN"
# ## 9. 错误是写给模型看的消息
#
# 在智能体里，解析错误不是终点：循环会把它作为下一条 Observation 发回给模型，让它再试一次（第 04 篇）。所以这条消息真正要紧的读者只有一个：模型。"invalid response"（天气智能体的做法）对它毫无帮助。有用的消息要说清**哪里错了**，以及**应该使用的确切格式**。在几条有问题的回复上，把我们的错误信息和包里的比较一下——其中一条是 Python 调用，这种格式我们的 `parse_step` 不认识：

# %%
broken = {
    "two actions": 'Action: get_weather\nAction Input: {"location": "北京"}\n'
                   'Action: get_weather\nAction Input: {"location": "广州"}',
    "bad JSON": 'Action:\n```\n{"action": "get_weather", "action_input": {"location": 北京}}\n```',
    "no step": "Thought: 我需要先查一下北京的天气。",
    "python call": 'Action: get_weather(location="北京")',
}
shown_in_full = False
for name, text in broken.items():
    print(f"=== {name}\n  parse_step : {attempt_parse_step(text)}")
    try:
        print(f"  parse_react: {parse_react(text)!r}")
    except ReActParseError as exc:  # the whole message once; then its first line
        message = str(exc) if not shown_in_full else str(exc).splitlines()[0] + " …"
        shown_in_full = True
        print("  parse_react: ReActParseError\n    " + message.replace("\n", "\n    "))

# %% [markdown]
# ## 10. This now lives in the package
#
# `reactlab.parsing.parse_react` follows the same rules — cut the invented Observation, strip
# the residue, first label wins, decode the blob with fallbacks — and knows more shapes:
# `tool(...)` and `tool[...]` calls, `Finish[...]`, markdown bold labels, fenced Action Inputs, a
# blob with no label at all. It returns `Action(tool, args, thought)` or
# `FinalAnswer(answer, thought)`, and raises `ReActParseError` (a `ValueError`) with a message
# for the model. On our pile, do the two agree where both succeed? The cell prints every
# difference with both readings — read which one is right: a tool named `'Final Answer'` comes
# from a JSON blob that answers through its `action` field, and a name with `**` in it from
# markdown-bold labels, shapes only the package knows, so our `parse_step` "succeeds" with
# garbage there:

# %% [markdown] lang="zh-CN"
# ## 10. 这些现在都在包里了
#
# `reactlab.parsing.parse_react` 遵循同样的规则——切掉编造的 Observation、去掉残留、先出现的标签说了算、解码 JSON 块时带回退方案——而且认识更多格式：`tool(...)` 和 `tool[...]` 形式的调用、`Finish[...]`、markdown 加粗的标签、带代码围栏的 Action Input、完全没有标签的 JSON 块。它返回 `Action(tool, args, thought)` 或 `FinalAnswer(answer, thought)`，解析失败时抛出 `ReActParseError`（一种 `ValueError`），附带一条给模型看的消息。在我们这堆回复上，两者都解析成功时结果一致吗？单元格会把每一处不一致连同两种解析结果一起打印出来——读一读哪个是对的：名叫 `'Final Answer'` 的工具，来自一个通过 `action` 字段作答的 JSON 块；名字里带 `**` 的工具，来自 markdown 加粗的标签；这些格式只有包里的解析器认识，所以我们的 `parse_step` 在那里“成功”地返回了一堆垃圾：

# %%
# NBVAL_IGNORE_OUTPUT
def as_tuple(parsed):
    if isinstance(parsed, FinalAnswer):
        return ("final", parsed.answer)
    return ("action", parsed.tool, parsed.args)


# %%
# NBVAL_IGNORE_OUTPUT
agree = differ = only_package = only_ours = both_fail = 0
for name, text in replies.items():
    try:
        theirs = as_tuple(parse_react(text))
    except ReActParseError as exc:
        theirs = ("ERROR", exc.code)
    ours = mine[name]
    if ours[0] == "ERROR" and theirs[0] == "ERROR":
        both_fail += 1
    elif theirs[0] == "ERROR":
        only_ours += 1
        print(f"only parse_step reads {name}: {str(ours)[:70]}")
    elif ours[0] == "ERROR":
        only_package += 1
        print(f"only parse_react reads {name}: {str(theirs)[:70]}")
    elif ours == theirs:
        agree += 1
    else:
        differ += 1
        print(f"differ on {name}:\n   ours    {str(ours)[:80]}\n   package {str(theirs)[:80]}")
print(f"\nagree {agree}, differ {differ}, only the package parses {only_package}, "
      f"only ours parses {only_ours}, both fail {both_fail}  (of {len(replies)})")

# %% [markdown]
# From notebook 04 on we import `parse_react` and never redefine it.
#
# ## Recap
#
# - Parse in a fixed order: cut the invented Observation and the stop residue, find the first
#   label, then read that label's content.
# - Regexes are right for labels; they are wrong for JSON. Find the `{` and let the decoder say
#   where the object ends; fall back to `ast.literal_eval` for Python dicts.
# - An Action before a Final Answer wins: an answer written before the tool ran is invented.
# - A parse error is a message to the model: what was wrong, and the format to use.
#
# | term | 中文 | meaning |
# |---|---|---|
# | regular expression | 正则表达式 | a pattern for text; `re.search` finds its first match |
# | greedy / lazy | 贪婪 / 惰性 | `.*` takes as much as it can, `.*?` as little as it can |
# | `re.DOTALL` | 点号匹配换行 | lets `.` match a newline too |
# | label | 标签 | a fixed word that starts a part of the reply: `Thought:`, `Action:`, `Final Answer:` |
# | full-width colon | 全角冒号 | `：`, the colon of Chinese text; looks like `:` and is a different character |
# | `raw_decode` | 从指定位置解码 | decodes one JSON value at a position and says where it ended |
# | `ast.literal_eval` | 字面量求值 | reads Python literals (dicts, strings, numbers) safely, without running code |
# | parse error (for the model) | （给模型看的）解析错误 | the text sent back as Observation when a reply cannot be read |
#
# ## Exercises
#
# 1. Teach `parse_step` the call syntax `Action: get_weather(location="北京")`. (Hint: one
#    regex for `name(`, then `ast.parse`.) The check calls your function on four replies: two
#    calls, one `Action Input`, one `Final Answer`.
# 2. Feed `parse_step` 1,000 random strings built from the pieces `"Action:"`, `"Final Answer:"`,
#    `"{"`, `"}"`, `"\n"`, `"北京"`. Does it ever raise anything but `ValueError`? (The check
#    fuzzes the function you give it with its own seeded strings, brackets and quotes included.)
# 3. Pick a reply where `parse_step` and `parse_react` differ (or construct one). Who is right?
#    (The check confirms they really differ; who is right is yours to argue.)
# 4. The parser does not know which tools exist. What should the loop tell the model when it
#    asks for `get_wether`? Try `ToolRegistry([get_weather]).run("get_wether", {"location": "北京"})`.

# %% [markdown] lang="zh-CN"
# 从第 04 篇起，我们直接导入 `parse_react`，不再重新定义它。
#
# ## 小结
#
# - 按固定顺序解析：先切掉编造的 Observation 和停止序列残留，再找第一个标签，然后读取这个标签的内容。
# - 正则适合找标签，不适合解析 JSON。找到 `{`，让解码器告诉你对象在哪里结束；遇到 Python 字典时退而使用 `ast.literal_eval`。
# - 出现在 Final Answer 之前的 Action 优先：工具运行之前写下的答案是编造的。
# - 解析错误是写给模型的消息：哪里错了，以及该用什么格式。
#
# | 术语 | 中文 | 含义 |
# |---|---|---|
# | regular expression | 正则表达式 | 描述文本的模式；`re.search` 找到它的第一个匹配 |
# | greedy / lazy | 贪婪 / 惰性 | `.*` 尽可能多地匹配，`.*?` 尽可能少地匹配 |
# | `re.DOTALL` | 点号匹配换行 | 让 `.` 也能匹配换行符 |
# | label | 标签 | 回复中某一部分开头的固定词：`Thought:`、`Action:`、`Final Answer:` |
# | full-width colon | 全角冒号 | `：`，中文文本里的冒号；看起来像 `:`，却是另一个字符 |
# | `raw_decode` | 从指定位置解码 | 从某个位置开始解码一个 JSON 值，并告诉你它在哪里结束 |
# | `ast.literal_eval` | 字面量求值 | 安全地读取 Python 字面量（字典、字符串、数字），不执行任何代码 |
# | parse error (for the model) | （给模型看的）解析错误 | 回复无法读取时，作为 Observation 发回给模型的文本 |
#
# ## 练习
#
# 1. 让 `parse_step` 认识调用语法 `Action: get_weather(location="北京")`。（提示：用一条正则匹配 `name(`，再交给 `ast.parse`。）检查会用四条回复调用你的函数：两条调用、一条 `Action Input`、一条 `Final Answer`。
# 2. 用 `"Action:"`、`"Final Answer:"`、`"{"`、`"}"`、`"\n"`、`"北京"` 这几个片段随机拼出 1,000 个字符串喂给 `parse_step`。它有没有抛出过 `ValueError` 以外的异常？（检查会用它自己生成的字符串对你给的函数做模糊测试，随机数种子固定，字符串里也包括括号和引号。）
# 3. 挑一条 `parse_step` 和 `parse_react` 结果不同的回复（或者自己构造一条）。谁是对的？（检查只确认两者确实不同；谁对谁错，由你来论证。）
# 4. 解析器并不知道有哪些工具。当模型要调用 `get_wether` 时，循环应该告诉它什么？试试 `ToolRegistry([get_weather]).run("get_wether", {"location": "北京"})`。

# %% [markdown]
# Each exercise has a starter cell (`answer_N = None`) and a check cell. The check
# prints "not attempted yet" until you fill in the answer, ✔ when the result is right,
# and otherwise stops with a message saying what is still wrong. It checks what your
# code returned, never your wording, and never calls the model itself.

# %% [markdown] lang="zh-CN"
# 每道练习都有一个起始单元格（`answer_N = None`）和一个检查单元格。在你填入答案之前，检查会打印 "not attempted yet"；结果正确时打印 ✔；否则就停下来，用一条消息说明还有什么不对。它检查的是你的代码返回了什么，从不检查你的措辞，也从不自己调用模型。

# %%
from reactlab.exercises.nb03 import check_1, check_2, check_3, check_4

# %%
answer_1 = None  # your code: a parse_step that also reads Action: get_weather(location="北京")

# %%
check_1(answer_1)

# %%
answer_2 = None  # your code: answer_2 = parse_step (the check fuzzes it with 1,000 strings)

# %%
check_2(answer_2)

# %%
answer_3 = None  # your code: {"reply": text, "ours": attempt_parse_step(text)}

# %%
check_3(answer_3)

# %%
answer_4 = None  # your code: ToolRegistry([get_weather]).run("get_wether", {"location": "北京"})

# %%
check_4(answer_4)

# %% [markdown]
# Solutions: [solutions/03_regex_parser_solutions.ipynb](solutions/03_regex_parser_solutions.ipynb)
#
# ---
# Prev: [02 · The stop token](02_stop_token.ipynb) | Index: [README](../README.md) | Next: [04 · The scratchpad](04_scratchpad.ipynb)

# %% [markdown] lang="zh-CN"
# 参考答案：[solutions/03_regex_parser_solutions.ipynb](solutions/03_regex_parser_solutions.ipynb)
#
# ---
# 上一篇：[02 · 停止序列](02_stop_token.ipynb) | 目录：[README](../../README.zh-CN.md) | 下一篇：[04 · 草稿本](04_scratchpad.ipynb)
