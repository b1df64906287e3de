# %% [markdown]
# # 07 · Pitfalls
# *Seven ways a working agent goes wrong in practice — each provoked on the real model, then fenced in.*
#
# **After this notebook you can:**
# - see context bloat coming (one tool result larger than the rest of the conversation) and cut it with head + tail compaction;
# - provoke a dead loop, detect it from the calls alone, and stop it with an intervention message;
# - turn tool exceptions into observations the model can correct itself from;
# - choose a temperature for tool calling, write the "do not invent tool results" rule, and handle reasoning models' `<think>` / `reasoning_content`;
# - let the grader check a draft answer before the loop accepts it, and say why the model reads a correction instead of its own draft.
#
# **Where we are:** notebook 06 looked inside the server and measured text ReAct against native
# calls. Both loops meet the same troubles. We use the native loop (`run_function_calling`)
# throughout, build each guard by hand before importing it from `reactlab.guards`, and print
# the grader's verdict (notebooks 00 and 04) under every live run: a guard can end a run
# sooner and cheaper, and the verdict says whether what it ended with is right.
#
# > Agent 的几个常见坑：上下文膨胀、死循环、工具异常、模型编造结果。这里每一个都先在真实
# > 模型上复现（模型怎么做，代码就打印什么），再用 `reactlab.guards` 兜住；每次运行后都打印
# > 判分结果（verdict），看护栏兜住之后答案到底对不对。

# %% [markdown] lang="zh-CN"
# # 07 · 常见的坑
# *一个能跑通的智能体，在实际使用中会以七种方式出错——每一种都先在真实模型上复现，再用护栏兜住。*
#
# **学完这一课，你能：**
# - 提前看出上下文膨胀（某一个工具结果比对话其余部分加起来还大），并用“保留头尾”的压缩把它截短；
# - 故意制造一次死循环，只凭调用序列把它检测出来，再用一条干预消息让它停下；
# - 把工具抛出的异常变成观察结果，让模型据此自我纠正；
# - 为工具调用选定温度，写好“不要编造工具结果”这条规则，并处理推理模型的 `<think>` / `reasoning_content`；
# - 让评分器在循环接受答案之前检查草稿，并说明为什么模型读到的是一条更正，而不是它自己的草稿。
#
# **我们在哪儿：** 第 06 课深入服务器内部，实测对比了文本 ReAct 和原生工具调用。两种循环会碰到同样的麻烦。本课全程使用原生循环（`run_function_calling`），每个护栏都先手写一遍，再从 `reactlab.guards` 导入现成的；每次真实运行下面都打印评分器的判定（见第 00 课和第 04 课）：护栏能让一次运行结束得更早、更省，而判定告诉你它最后给出的东西对不对。
#
# > 一句话概括：智能体的几个常见坑——上下文膨胀、死循环、工具异常、模型编造结果——这里每一个都先在真实模型上复现（模型怎么做，代码就打印什么），再用 `reactlab.guards` 兜住；每次运行后都打印判定（verdict），看护栏兜住之后答案到底对不对。

# %% [markdown]
# ## Setup

# %% [markdown] lang="zh-CN"
# ## 准备工作

# %%
# NBVAL_IGNORE_OUTPUT
import json
import os
import re
import time

import reactlab
from reactlab.fc_agent import DEFAULT_SYSTEM_PROMPT, run_function_calling
from reactlab.grader import Expected, grade
from reactlab.report import format_step
from reactlab.tools import ToolRegistry, default_registry, tool

os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
conn = reactlab.connect()
course = default_registry()


def show(run) -> None:
    """Print a run's steps, status and answer (the record every later section reads)."""
    for step in run.steps:
        print(format_step(step))
    print(f"-> status: {run.status} | answer: {run.answer!r}")

# %% [markdown]
# ## 1. Context bloat
#
# Every tool result is appended to the conversation and re-read by the model at every later
# step. One large result is paid for again and again. `search_docs` is the course's
# deliberately greedy tool: it returns whole sections of its documents.

# %% [markdown] lang="zh-CN"
# ## 1. 上下文膨胀
#
# 每个工具结果都会追加到对话里，之后的每一步模型都要把它重新读一遍。一个大结果，就要一次又一次地为它买单。`search_docs` 是本课程故意设计得很“贪心”的工具：它返回的是文档里的整节内容。

# %%
for q in ["故宫 门票", "battery", "早茶"]:
    print(f"search_docs({q!r}): {len(course.call('search_docs', {'query': q})):,} characters")

observation = course.call("search_docs", {"query": "早茶"})
print()
print(observation[:400], "…")

# %% [markdown]
# The fix is to cut. Keep the *head* (tools put the headline first) and the *tail*
# (totals and error messages tend to come last), and say in the text how much was removed, so the
# model knows it is not seeing everything. Written by hand:

# %% [markdown] lang="zh-CN"
# 解决办法就是截断。保留*开头*（工具通常把最关键的内容放在最前面）和*结尾*（合计数和错误信息往往在最后），并在文本里注明删掉了多少，让模型知道自己看到的不是全部。手写版本如下：

# %%
def head_and_tail(text: str, max_chars: int = 2000) -> str:
    if len(text) <= max_chars:
        return text
    head, tail = max_chars // 2, max_chars - max_chars // 2
    return f"{text[:head]}\n[… {len(text) - max_chars:,} characters cut …]\n{text[-tail:]}"


short = head_and_tail(observation)
print(len(observation), "->", len(short), "characters")
print(short[900:1150])

# %% [markdown]
# ### Watch it break: the same question with and without the cut
#
# `reactlab.guards.Guards` bundles every limit a run obeys. `Guards.off()` is the naive
# loop (only a step budget); `Guards.on()` cuts each observation to 2,000 characters. Two short
# runs on the same question with a budget of one step. The first request names the tool
# (`tool_choice`, enforced by constrained decoding as notebook 06 showed), so the model has to
# search — left to itself, the 1.5B sometimes just replies "OK, let me search" and stops. Then
# the budget is spent and a last request (without tools) asks it to answer from what it has: two
# model calls per run, and the second one reads the search result.

# %% [markdown] lang="zh-CN"
# ### 亲眼看它出问题：同一个问题，截断与不截断
#
# `reactlab.guards.Guards` 把一次运行要遵守的所有限制打包在一起。`Guards.off()` 是朴素循环（只有步数预算）；`Guards.on()` 会把每条观察截到 2,000 个字符。用同一个问题跑两次短运行，预算都是一步。第一次请求指定了工具（`tool_choice`，如第 06 课所示，由约束解码强制执行），所以模型必须去搜索——要是放任它自己决定，1.5B 模型有时只回一句“好的，我来搜索一下”就停了。随后预算用完，最后一次请求（不带工具）让它根据手头已有的信息作答：每次运行调用模型两次，第二次会读到搜索结果。

# %%
# NBVAL_IGNORE_OUTPUT
from reactlab.guards import Guards

docs_only = ToolRegistry([course.get("search_docs")])
bloat_q = "喝早茶有什么讲究？请先用 search_docs 查资料再回答。"
runs = {}
for label, guards in [("guards off", Guards.off()), ("guards on", Guards.on())]:
    t0 = time.perf_counter()
    # max_steps given explicitly: the agent's own max_steps argument overrides the guards' value
    runs[label] = run_function_calling(bloat_q, tools=docs_only, conn=conn, guards=guards,
                                       max_steps=1, max_tokens=200,
                                       tool_choice={"type": "function",
                                                    "function": {"name": "search_docs"}})
    r = runs[label]
    print(f"== {label}: status={r.status}, {len(r.steps)} model calls, "
          f"{time.perf_counter() - t0:.0f} s, prompt tokens per call "
          f"{[s.prompt_tokens for s in r.steps]}")
    print("   events:", [e for s in r.steps for e in s.events] or "none")
    print("   answer:", (r.answer or "")[:150])
    if r.error:
        print("   error:", r.error)
    print("  ", grade(r))

# %% [markdown]
# Read the numbers above rather than trusting a story: the prompt of the call *after* the search
# is where the two runs part (the `events` line shows whether the guards cut the result; the
# search itself is in the first call; the model picks its own query, so the size in `events` can
# differ from the 早茶 search above). Uncut, the whole result rides along in that prompt and every later one;
# the prompt tokens are the bill: a provider charges for each, and the engine must read every
# one it has not cached (the seconds printed for each run include that reading; over many steps
# it adds up).
# Were the result larger than the model's context window (8,192 tokens per request with the
# local server's default context size, `reactlab serve --ctx 8192`), the request would fail outright. Cut, the prompt grows by roughly the 2,000 characters we allowed
# (plus the line that says how much was cut).
#
# Read the answers and their verdicts too. Compaction fixes the bill and the context window, not
# the reading: a 1.5B model may fail to use the search result either way (and a cut may remove
# the very paragraph the question needed — exercise 1 looks at that). Both verdicts are ✘ by
# construction: a budget of one step always ends with `max_steps`, and the grader never passes a
# run the budget stopped. So the verdicts here say nothing about the answers: read them. (With
# a larger budget, a ✔ would only say that nothing in the answer contradicts the search, since an
# answer like this has few figures to check.)

# %% [markdown] lang="zh-CN"
# 看上面的数字，别轻信一个故事：两次运行的分歧出现在搜索*之后*那次调用的提示词里（`events` 一行显示护栏有没有截断结果；搜索本身发生在第一次调用中；查询词是模型自己选的，所以 `events` 里的长度可能和上面“早茶”那次搜索不同）。不截断时，完整的结果会跟着进入那次提示词以及之后的每一次；提示词 token 就是账单：服务商按 token 收费，引擎也必须读完每一个没有命中缓存的提示词 token（每次运行打印的秒数里就包含了这部分读取时间；步数一多，差距会累积起来）。如果结果比模型的上下文窗口（本地服务器的默认上下文大小，即 `reactlab serve --ctx 8192`，每个请求 8,192 个 token）还大，请求会直接失败。截断之后，提示词大约只增长我们允许的那 2,000 个字符（外加一行说明删掉了多少）。
#
# 答案和它们的判定也要看。压缩解决的是账单和上下文窗口的问题，解决不了阅读理解的问题：无论截不截断，1.5B 模型都可能用不好搜索结果（而且截断可能恰好删掉问题所需的那一段——练习 1 会研究这一点）。两个判定都是 ✘，这是设定决定的：只有一步预算的运行必然以 `max_steps` 结束，而评分器从不放行被预算叫停的运行。所以这里的判定对答案本身什么也没说：答案得你自己读。（预算更大时，✔ 也只说明答案里没有与搜索结果相矛盾的内容，因为这类答案几乎没有数字可查。）

# %%
# NBVAL_IGNORE_OUTPUT
from reactlab.report import plot_context_growth

ax = plot_context_growth(runs, title="search_docs: prompt tokens per step")

# %% [markdown]
# ### This now lives in the package
#
# `compact_observation` is the hand-written cut above; the agents apply it to every observation
# when `guards.observation_chars` is set, and keep the full text in the run record
# (`ToolCallRecord.full_observation`) so nothing is lost for *you*:

# %% [markdown] lang="zh-CN"
# ### 这部分现在已经放进包里了
#
# `compact_observation` 就是上面手写的截断；只要设置了 `guards.observation_chars`，智能体就会对每条观察应用它，同时在运行记录里保留全文（`ToolCallRecord.full_observation`），所以对*你*来说什么都没丢：

# %%
from reactlab.compaction import compact_observation

print(compact_observation(observation, 2000) == head_and_tail(observation, 2000))

# %% [markdown]
# ## 2. Dead loops
#
# A tool that never gives a useful answer invites the model to try again, and again. Here is one:
# a report that is always "still running". The question asks to keep checking until it is done,
# and — like the bare loop of notebook 05 — there is no system prompt to say when to stop.

# %% [markdown] lang="zh-CN"
# ## 2. 死循环
#
# 一个永远给不出有用答案的工具，会引得模型一试再试。下面就是这样一个工具：一份永远“仍在运行”的报表。问题要求一直查到完成为止，而且——和第 05 课的裸循环一样——没有系统提示词告诉它什么时候该停。

# %%
@tool
def check_report(job_id: str) -> str:
    """Check whether a report job has finished; returns its status and, when done, a download link.

    Args:
        job_id: the job's id, e.g. job-42
    """
    return f"{job_id}: still running (0 of 1 files ready). Check again later."


stuck = ToolRegistry([check_report])
loop_q = "请查询报表任务 job-42 的状态，一直查到它完成为止，然后把下载链接给我。"

# %% [markdown]
# ### Watch it break
#
# With only a step budget (`Guards.off`), what did the model do with four steps?

# %% [markdown] lang="zh-CN"
# ### 亲眼看它出问题
#
# 只有步数预算（`Guards.off`）时，模型用这四步做了些什么？

# %%
# NBVAL_IGNORE_OUTPUT
# demo: break
naive = run_function_calling(loop_q, tools=stuck, conn=conn, guards=Guards.off(), max_steps=4,
                             system_prompt=None, max_tokens=120)
show(naive)
print(grade(naive))

# %% [markdown]
# Count the `check_report` calls above. If the model called it again and again with the same
# argument, the step budget was the only thing that ended the run — the agent "钻牛角尖" (bores
# into the tip of a horn). If it gave up on its own, this model was sensible this time; the
# detector below is still the cheap insurance a real agent needs. (The report never finishes, so
# the only right answer is "still running, no link yet". The verdict checks that the run ended
# with an answer resting on what the tool returned — job-42's status — so read the answer too.)
#
# A detector needs only the sequence of calls: the same tool with the same arguments N times in
# a row. By hand:

# %% [markdown] lang="zh-CN"
# 数一数上面 `check_report` 被调用了几次。如果模型用同样的参数一遍又一遍地调用它，那么结束这次运行的就只有步数预算——智能体在“钻牛角尖”。如果它自己放弃了，说明这次模型还算明智；但下面的检测器依然是真实智能体需要的一份廉价保险。（报表永远不会完成，所以唯一正确的答案是“仍在运行，还没有下载链接”。判定检查的是这次运行是否以一个基于工具返回内容——job-42 的状态——的答案结束，所以答案本身也要读一读。）
#
# 检测器只需要看调用序列：同一个工具、同样的参数，连续出现 N 次。手写版本：

# %%
def repeats(calls: list[tuple[str, str]], n: int = 3) -> bool:
    """True when the last n calls are identical (same tool, same arguments)."""
    return len(calls) >= n and len(set(calls[-n:])) == 1


seen = [(c.name, json.dumps(c.arguments, sort_keys=True, ensure_ascii=False))
        for s in naive.steps for c in s.tool_calls]
for i in range(1, len(seen) + 1):
    print(i, seen[i - 1], "-> loop!" if repeats(seen[:i]) else "")

# %% [markdown]
# ### This now lives in the package
#
# `LoopDetector` does this (plus ping-pong, A B A B) with arguments compared canonically. In an
# agent, its first trigger appends an intervention as a **user** message — small models tend to
# take a user-role nudge more seriously than a system one — and a second trigger ends the run
# with status `"loop"`, after one last request for an answer without tools.

# %% [markdown] lang="zh-CN"
# ### 这部分现在已经放进包里了
#
# `LoopDetector` 做的就是这件事（外加乒乓式循环，即 A B A B），并以规范化的方式比较参数。在智能体里，它第一次触发时会以 **user** 消息的形式追加一条干预——比起 system 角色的提醒，小模型往往更把 user 角色的提醒当回事——第二次触发则以状态 `"loop"` 结束运行，结束前还会再发一次不带工具的请求，要一个答案。

# %%
from reactlab.loop_detector import LoopDetector

detector = LoopDetector(repeat=3)
print([detector.check("check_report", {"job_id": "job-42"}) for _ in range(3)])
print("intervention text:", detector.message)

# %%
# NBVAL_IGNORE_OUTPUT
guarded = run_function_calling(loop_q, tools=stuck, conn=conn, guards=Guards.on(), max_steps=6,
                               system_prompt=None, max_tokens=120)
show(guarded)
events = [e for s in guarded.steps for e in s.events]
print("\nguard events:", events or "none")
print(grade(guarded))

# %% [markdown]
# What happened is in the record: a `guard: loop …` line marks where the detector fired; if the
# model obeyed the nudge, the next step answers; if it repeated itself once more, the status is
# `loop` and the last step is the `final_request`. If no event fired, the model never repeated
# a call three times in this run — compare the call counts of the two runs.
#
# Then read the verdict. When it fires, the detector bounds the damage: no fourth identical
# call, fewer tokens, and an answer asked for at once instead of after the whole budget. It does not
# make the answer right. If the verdict says ✘, what the run ended with is not the job's status
# — the guard made the failure shorter, not correct.
#
# ## 3. Tool exceptions become observations
#
# Models send bad arguments. `get_weather` takes *one* city; a model asked about two cities
# sometimes sends both at once. Called directly, the tool raises — and a loop that calls tools
# directly dies with it:

# %% [markdown] lang="zh-CN"
# 发生了什么，记录里都有：`guard: loop …` 一行标出了检测器触发的位置；如果模型听从了提醒，下一步就会作答；如果它又重复了一次，状态就是 `loop`，最后一步是 `final_request`。如果没有任何事件触发，说明这次运行中模型从没把同一个调用重复过三次——对比一下两次运行的调用次数。
#
# 然后读判定。检测器一旦触发，就能把损失控制住：不会有第四次相同的调用，token 更少，而且立刻要求作答，而不是等整个预算用完。但它不能让答案变对。如果判定显示 ✘，说明这次运行最后给出的并不是任务的状态——护栏让失败变短了，而不是变对了。
#
# ## 3. 工具异常变成观察
#
# 模型会传错参数。`get_weather` 只接受*一个*城市；问到两个城市时，模型有时会一次把两个都传进去。直接调用时工具会抛出异常——而直接调用工具的循环也会跟着崩掉：

# %%
try:
    course.get("get_weather")(location="北京和广州")
except ValueError as err:
    print("ValueError:", err)

# %% [markdown]
# The fix: catch it and hand the message to the model as the observation. The error
# text is then the most useful thing the model reads — it says what to do instead.
# `ToolRegistry.run` does exactly that and never raises:

# %% [markdown] lang="zh-CN"
# 解决办法：捕获异常，把错误信息作为观察交给模型。这样一来，错误文本就成了模型读到的最有用的东西——它告诉模型该怎么改。`ToolRegistry.run` 正是这么做的，而且从不抛异常：

# %%
print(course.run("get_weather", {"location": "北京和广州"}))
print(course.run("get_weather", {"city": "北京"}))

# %% [markdown]
# Now on the real model, with the question that invites exactly that mistake. Notebook 05
# sent "北京和广州今天天气怎么样？" by hand, with no system prompt, and sent the tool's error back
# once; here the same request starts the agent's loop, which runs until an answer, so we see
# everything the model does *after* an error comes back (if one does).

# %% [markdown] lang="zh-CN"
# 现在换到真实模型上，用一个恰好容易诱发这种错误的问题。第 05 课手工发送过“北京和广州今天天气怎么样？”，不带系统提示词，并把工具的报错发回去了一次；这里同样的请求启动的是智能体的循环，一直跑到作答为止，所以错误返回*之后*（如果真有错误返回的话）模型做的每一步我们都能看到。

# %%
# NBVAL_IGNORE_OUTPUT
weather_only = ToolRegistry([course.get("get_weather")])
two = run_function_calling("北京和广州今天天气怎么样？", tools=weather_only, conn=conn,
                           system_prompt=None, max_steps=4, max_tokens=150)
show(two)
print(grade(two, Expected(parts=("北京", "广州"))))
calls = [c for s in two.steps for c in s.tool_calls]
failed = [c for c in calls if c.error]
after = [c for c in calls[calls.index(failed[0]) + 1:] if not c.error] if failed else []
print(f"\n{len(calls)} call(s), {len(failed)} failed; "
      + (f"after the first error the model made {len(after)} successful call(s): "
         f"{[c.arguments for c in after]}" if failed else "no call failed in this run."))

# %% [markdown]
# Read the record above. A `[tool error]` line is the error text the model was shown; the steps
# after it show whether it corrected itself — one city per call, as the message said — or
# repeated the mistake, or gave up and answered. (An `empty` step is the model saying nothing
# after the tool results; the loop nudges it once with a short user message. A `fetch hint`
# event under an error means the guards also named the next call, "Call get_weather for 北京
# now": section 6 shows the hints. And if the record has more model steps than `max_steps=4`,
# that is the guards too: up to four fetches a hint asked for do not count against the step
# budget, section 6, `Guards.counted`.) Without the error
# *as an observation* the only possible outcome would have been a crash. The verdict judges
# where the run ended, not the recovery: a model can fix its call and still run out of steps,
# paste the raw observations as its answer, or only promise one ("I will now provide the
# weather…") — a ✔ then says only that nothing in it contradicts the tool results; it is still
# no answer. And a closing answer that says there is no information about the weather although
# results for both cities came back contradicts its own run: whatever its verdict names, that
# answer is wrong.
#
# ## 4. Temperature
#
# Tool calling wants the same call for the same situation, so agents usually run at 0–0.1.
# Three samples of the same request at each temperature:

# %% [markdown] lang="zh-CN"
# 读一读上面的记录。`[tool error]` 一行就是模型看到的错误文本；它后面的步骤说明了模型是自我纠正了——照错误信息说的，每次调用只查一个城市——还是重复同样的错误，又或者干脆放弃、直接作答。（`empty` 步骤表示模型拿到工具结果后什么也没说；循环会用一条简短的 user 消息提醒它一次。错误下面如果有 `fetch hint` 事件，说明护栏还点出了下一次该做的调用，“Call get_weather for 北京 now”：第 6 节会讲这些提示。如果记录里的模型步数比 `max_steps=4` 多，那也是护栏的缘故：按提示做的取数最多有四次不计入步数预算，见第 6 节的 `Guards.counted`。）如果不把错误*作为观察*返回，唯一可能的结局就是崩溃。判定评判的是运行最终停在哪里，而不是纠错过程：模型可能修正了调用却用完了步数，也可能把原始观察直接粘贴成答案，或者只是许诺要回答（"I will now provide the weather…"）——这时的 ✔ 只说明答案里没有与工具结果相矛盾的内容，它仍然不是答案。而如果收尾的答案说“没有天气信息”，可两个城市的结果明明都已经返回了，它就和自己这次运行相矛盾：不管判定写的是什么理由，这个答案都是错的。
#
# ## 4. 温度
#
# 工具调用要求同样的情况给出同样的调用，所以智能体通常在 0–0.1 的温度下运行。在每个温度下对同一个请求采样三次：

# %%
# NBVAL_IGNORE_OUTPUT
def one_reply(temperature: float) -> str:
    r = conn.client.chat.completions.create(
        model=conn.model, messages=[{"role": "user", "content": "北京和广州今天天气怎么样？"}],
        tools=weather_only.openai_tools(), temperature=temperature, max_tokens=80)
    m = r.choices[0].message
    calls = [f"{c.function.name}({c.function.arguments})" for c in m.tool_calls or []]
    return " + ".join(calls) if calls else f"text: {(m.content or '')[:60]!r}"


for temperature in (0.0, 1.2):
    replies = [one_reply(temperature) for _ in range(3)]
    print(f"temperature {temperature}: {len(set(replies))} distinct of 3")
    for text in replies:
        print("   ", text)

# %% [markdown]
# At 0 the engine picks the most likely token every time, so repeats are (almost always)
# identical; at higher temperatures the samples may differ in the arguments, the number of calls,
# or whether a tool is called at all — allowed to, not bound to: three samples of a reply the
# model is very sure of can all come out the same (the counts above say whether they did).
# Whatever the counts, a difference at temperature 0 would be rare, while at 1.2 it is allowed.
# Every agent in this series runs at 0.
#
# ## 5. "Do not invent tool results"
#
# A common fix is one sentence in the system prompt: do not make up tool results. The test
# below gives the model a question it can only half answer — `get_closing_price` knows
# 贵州茅台 but not 五粮液 — and checks the answer for numbers no tool returned.

# %% [markdown] lang="zh-CN"
# 温度为 0 时，引擎每次都选概率最高的 token，所以重复请求的结果（几乎总是）完全一样；温度更高时，采样结果可能在参数、调用次数，甚至是否调用工具上有所不同——是“可以”不同，不是“一定”不同：模型非常有把握的回复，采三次也可能完全一样（上面的计数说明了这次是否如此）。不管计数如何，温度 0 下出现差异是罕见的，而在 1.2 下则完全正常。本系列的所有智能体都以温度 0 运行。
#
# ## 5. “不要编造工具结果”
#
# 常见的补救办法是在系统提示词里加一句：不要编造工具结果。下面的测试给模型一个只能回答一半的问题——`get_closing_price` 知道贵州茅台，却不知道五粮液——然后检查答案里有没有哪个工具都没返回过的数字。

# %%
def invented_numbers(run) -> list[str]:
    """Numbers in the answer that appear in no observation and not in the question."""
    seen_text = run.question + " ".join(c.observation for s in run.steps for c in s.tool_calls)
    found = re.findall(r"\d+(?:\.\d+)?", (run.answer or "").replace(",", ""))
    return [n for n in found if n not in seen_text.replace(",", "")]


prices = ToolRegistry([course.get("get_closing_price")])
price_q = "五粮液和贵州茅台的收盘价分别是多少？"
print("the package's default system prompt:\n" + DEFAULT_SYSTEM_PROMPT)

# %%
# NBVAL_IGNORE_OUTPUT
priced = {}
for label, system in [("no system prompt", None), ("with the rule", DEFAULT_SYSTEM_PROMPT)]:
    r = priced[label] = run_function_calling(price_q, tools=prices, conn=conn, max_steps=3,
                                             max_tokens=200, system_prompt=system)
    calls = [f"{c.name}({c.arguments}){' [error]' if c.error else ''}"
             for s in r.steps for c in s.tool_calls]
    print(f"== {label}: status {r.status}; calls: {calls}")
    answer = r.answer or ""
    print("   answer:", repr(answer[:200]) + (f" … ({len(answer)} characters)" if len(answer) > 200 else ""))
    print("   events:", [e for st in r.steps for e in st.events] or "none")
    print("   numbers no tool returned:", invented_numbers(r) or "none")
    print("  ", grade(r, Expected(figures=("1488.21",), parts=("贵州茅台",))))

# %% [markdown]
# The check is crude (a date or a count in the answer also counts as "a number no tool
# returned"); the verdict line is the grader's stricter version (figures compared by value,
# the run's status, the expected 1488.21 for 贵州茅台). Read the answers too — an answer can also
# fail without inventing a number: one stock silently left out, or a real figure attached to
# the wrong name. A sentence such as "五粮液和贵州茅台的收盘价分别是1488.21" (an example, not one
# of the runs above) after only 贵州茅台 was looked up reads as if the one price belonged to both;
# read as the question asks, it is wrong: 五粮液 has no price here, and the answer should say so.
# The course's data does not know 五粮液, but the guards' grader still counts it as a part of
# the question, because the question joins it to a stock it knows with 和. (The verdict lines
# above are given `parts=("贵州茅台",)`, the one part the data can answer, so they do not name
# 五粮液.) With the guards on (the default, section 6), a draft answer that
# leaves 五粮液 out goes back with a request to look 五粮液 up; that lookup fails, and the answer
# should then say 五粮液 was not found. Whether the runs above got that far, their calls and
# events say: a run that repeats one call or spends its step budget ends with `max_steps`, its
# closing answer is taken as it is, and the verdict names the budget first. Check each answer
# against its own calls too: an answer that says it has no price for a stock whose price came
# back contradicts its own run, whatever the verdict's first reason.
# A reply cut off at `max_tokens` shows a `truncated` event. Whatever this run shows, one run per prompt proves
# little: the rule lowers the rate of invented results, it does not make them impossible. The
# guarantee, if you need one, belongs in code — for example, refuse to display a figure that
# does not appear in any observation.

# %% [markdown] lang="zh-CN"
# 这个检查很粗糙（答案里的日期或计数也会被算作“没有工具返回过的数字”）；判定那一行是评分器更严格的版本（按数值比较数字，检查运行状态，以及贵州茅台的预期值 1488.21）。答案也要读——一个答案即使没编数字，也可能出错：悄悄漏掉一只股票，或者把真实的数字安到了错误的名字上。只查了贵州茅台之后，像“五粮液和贵州茅台的收盘价分别是1488.21”这样的句子（只是举例，不是上面哪次运行写的），读起来好像这一个价格属于两只股票；按问题的意思读，它是错的：这里没有五粮液的价格，答案应该明说。课程数据里没有五粮液，但护栏用的评分器仍然把它算作问题的一部分，因为问题用“和”把它和一只认识的股票连在一起。（上面的判定行给了 `parts=("贵州茅台",)`，也就是数据能回答的那一部分，所以它们不会提到五粮液。）护栏开着时（默认如此，见第 6 节），漏掉五粮液的答案草稿会被退回，并要求去查五粮液；这次查询会失败，答案随后应该说明没找到五粮液。上面的运行有没有走到这一步，看它们的调用和事件就知道：反复发同一个调用、或者用完步数预算的运行会以 `max_steps` 结束，收尾的答案按原样接受，判定的第一条理由就是预算。还要拿每个答案去对照它自己的调用：如果某只股票的价格明明已经返回，答案却说没有它的价格，那就和自己这次运行相矛盾，不管判定的第一条理由是什么。在 `max_tokens` 处被截断的回复会显示一个 `truncated` 事件。无论这次运行结果如何，每个提示词只跑一次说明不了什么：这条规则降低的是编造结果的概率，并不能杜绝它。如果你需要保证，就得写进代码里——比如，拒绝展示任何观察中都没出现过的数字。

# %% [markdown]
# ## 6. The grader as a guard
#
# The grader of notebook 04 is that code. Before the loop accepts a final answer, the guards
# grade the draft against the run's own tool results (`Guards.ground`). A draft the grader
# rejects for one of the reasons in the table below is not accepted (any other ✘ — an answer
# that uses nothing the tools returned, say — stands with its verdict) — and, a measured
# detail, it is not shown back to the model either:
# told "your answer says 北京 is colder, but 北京 23.4 > 上海 19.8", this 1.5B model repeated its
# draft or went silent; given only the checked fact after the tool results, it answered right
# in three cases out of three. So the model reads a *correction* instead
# (`reactlab.correction`), one of seven kinds:
#
# | correction | when | the next request |
# |---|---|---|
# | missing | a name the question asks about has no tool result (a name the course data knows, or one the question joins to it: 宁德时代 in "青岛啤酒和宁德时代") | must make a tool call (`tool_choice="required"`; text ReAct on reactlab's server: a JSON schema that allows only an Action) |
# | compute | a figure that no tool result or calculation gives, or a total the answer misses for "还有多少天？如果每天存 10 元，一共能存多少钱？" (then the expression is named: `193 * 10`, the days times 10 元) | must make a tool call; the calculator itself when the expression is named |
# | aggregate | a mean or a total that is not the mean or the sum of the asked names' readings, even one a calculator gave (`(23.4 + 19.8 + 19.8) / 3` before 广州 was fetched) | the expression over the readings, then a tool call: the calculator |
# | difference | a mean or a sum called a difference (相差, higher by) | what the calculator computed, then a tool call: the difference |
# | fact | a backwards comparison, one name given another's figures, a figure for a name whose lookup failed, a name looked up twice in vain (then: say it was not found), or a day count the question asks for left out | the checked fact, then a new answer (for a left-out day count: the count, and the total too when the question counts an amount a day) |
# | cover | one asked name's figures given, another fetched name left out; or, when the question asks for each one's figure (分别, each), any of them left out (the mean alone) | every asked name's reading, then a new answer |
# | days | a day count the question settles stated wrong before `days_between` has run ("还有 0 天" for the 306 days to 2027-01-01, once get_today has said 2026-03-01) | the `days_between` call with today's date; must call `days_between` |
#
# At most two corrections per run: the third draft is accepted as it is, and its verdict still
# says what is wrong. A "final answer" that only repeats the question, or a message the loop
# sent, word for word, is not graded at all: it goes back like an unreadable reply
# (`Guards.echoed`; measured on the suite, the 1.5B hands back a message now and then), and the
# grader fails it if it ends a run (a copied correction carries the right figures, but it is
# the loop's text, not the model's answer). The
# reply to the closing request after a budget end gets one check of its own (`Guards.closing`):
# when it is empty, a tool call written out, an echo, or an answer a `fact` or `cover`
# correction would fix, the closing request is sent once more with that said first, and the
# second reply is taken as it is. *Hints* work on calls, not answers (`reactlab.hints`). Each follows a
# call that failed or was *held back* (not run by the guards, because its arguments hold a
# figure no earlier result gave — a price guessed before it was fetched; its observation says
# so), names the call to make, and the next request requires that tool:
#
# | hint | after | the model reads |
# |---|---|---|
# | today | a date call, before `get_today` has answered | call get_today first |
# | date | the same, once `get_today` has answered | the call with today's date in it |
# | fetch | any call, while a city or stock the question asks about has no result; and right after a hinted fetch, while another still has none | "Call get_weather for 深圳 now" (once per name) |
# | inside | a calculator that called a tool inside its expression, once those tools answered | the expression with their figures in place |
# | aggregate | a calculator call that failed or was held back, once every reading of an asked mean or total is in | the calculator call over the readings, e.g. `(26.1 + 21.5 + 20.3 + 20.9) / 4` |
# | per-day | the same, once `days_between` has given the days of a question that counts an amount a day | the calculator call over the days, e.g. `306 * 5` |
#
# Up to four fetches a hint asked for, and calls a correction asked for (`days_between`, the
# calculator on the expression it gave, the fetch for a name the draft had no result for), do not count against the step budget
# (`Guards.counted`): measured on averages over four cities, the budget used to run out on the
# fetches, before the calculator; replayed on notebook 05's savings question, on the days correction's
# call and the calculator, before the answer. And when a ReAct run's budget does run out, the closing request goes as plain
# chat — the question and every tool result listed, no Thought or Action format
# (`Guards.plain_closing`) — because asked inside the scratchpad, the 1.5B now and then began a
# new Action instead of answering.
#
# Once the call a date, inside, aggregate or per-day hint asked for has run, that step ends with a short note
# instead (not after a fetch hint: measured, the note made the model start over): the call has run, do
# not make it again, go on with the question. Without it, a native request's last message still
# said "make that call now", and the model made the same call again until the loop detector
# stopped it.
#
# Three wrong answers of the kinds the series has met (a backwards comparison, a city left out,
# a mean called a difference), and what the model would read instead of each (no model
# involved here):

# %% [markdown] lang="zh-CN"
# ## 6. 把评分器当护栏
#
# 第 04 课的评分器就是这样的代码。循环接受最终答案之前，护栏会拿这次运行自己的工具结果给草稿打分（`Guards.ground`）。因下表中某一种原因被评分器拒绝的草稿不会被接受（其他的 ✘——比如答案没用上任何工具返回的内容——会带着它的判定保留下来）——而且（这是实测出来的细节）也不会再发回给模型：告诉这个 1.5B 模型“你的答案说北京更冷，但北京 23.4 > 上海 19.8”，它会照抄原来的草稿，或者干脆不出声；只在工具结果之后给出核对过的事实，三个例子里它三次都答对了。所以模型读到的是一条*更正*（`reactlab.correction`），分七种：
#
# | 更正 | 何时 | 下一次请求 |
# |---|---|---|
# | missing（缺数据） | 问题问到的某个名字没有工具结果（课程数据认识的名字，或者问题里和它并列的名字：“青岛啤酒和宁德时代”里的宁德时代） | 必须调用工具（`tool_choice="required"`；在 reactlab 自己的服务器上，文本 ReAct 用一个只允许 Action 的 JSON schema） |
# | compute（要计算） | 某个数字既不来自工具结果，也不来自计算；或者像“还有多少天？如果每天存 10 元，一共能存多少钱？”这样的问题，答案没给出总数（这时会点出算式，如 `193 * 10`：天数乘以 10 元） | 必须调用工具；点出了算式时必须调用计算器本身 |
# | aggregate（平均或总和） | 说出的平均数或总和不是问题问到的那几个名字读数的平均或总和，哪怕是计算器算出来的（还没查广州就算了 `(23.4 + 19.8 + 19.8) / 3`） | 点出按读数列的算式，然后必须调用工具：计算器 |
# | difference（不是差） | 把平均数或总和说成了差（相差、高多少） | 说明计算器算的是什么，然后必须调用工具：算差 |
# | fact（核对事实） | 比较方向反了；把一个名字的数字安到了另一个名字上；给一个没查到的名字安了数字；一个名字查了两次都失败（这时：说没查到）；或者漏答了问题问的天数 | 给出核对过的事实，再重新作答（漏答天数时：给出天数；问题还按天累计一个数额时，连同总数一起给出） |
# | cover（漏答） | 给出了一个名字的数字，却漏掉了另一个已经查到的名字；或者问题要每个名字的数字（“分别”），答案却漏掉了其中任何一个（比如只给平均数） | 给出每个名字的读数，再重新作答 |
# | days（天数） | `days_between` 还没运行，答案却说错了问题所确定的天数（get_today 已经说了 2026-03-01，到 2027-01-01 是 306 天，答案却说“还有 0 天”） | 填上今天日期的 `days_between` 调用；必须调用 `days_between` |
#
# 每次运行最多更正两次：第三份草稿按原样接受，它的判定照样会指出错在哪里。只是把问题、或者循环发出的某条消息原样交回来的“最终答案”根本不评分：它会像一条读不懂的回复那样被退回（`Guards.echoed`；在任务集上实测，1.5B 偶尔会把一条消息原样交回来）；如果运行就以它结束，评分器判它 ✘（照抄来的更正里数字都对，但那是循环的话，不是模型的答案）。预算耗尽后，对最终请求的回复另有一道检查（`Guards.closing`）：如果它是空的、写出来的工具调用、原样交回的消息，或者是一条 `fact`、`cover` 更正就能改对的答案，最终请求会再发一次，前面先说明哪里不对；第二次的回复按原样接受。*提示*（hint）针对的是调用而不是答案（`reactlab.hints`）。每个提示都跟在一次失败或*被扣下*的调用之后（被扣下：护栏没有执行它，因为它的参数里有一个之前的结果从没给过的数字——比如还没查就猜了一个价格；它的观察会说明这一点），点出该做的调用，并要求下一次请求调用那个工具：
#
# | 提示 | 出现在 | 模型读到的 |
# |---|---|---|
# | today（今天） | 一次日期调用之后，`get_today` 还没回答 | 先调用 get_today |
# | date（日期） | 同上，`get_today` 已经回答 | 填上今天日期的那次调用 |
# | fetch（取数） | 任何调用之后，问题问到的某个城市或股票还没有结果；以及一次按提示取数刚执行完、还有别的名字没有结果时 | “Call get_weather for 深圳 now”（每个名字最多一次） |
# | inside（代入） | 计算器表达式里调用了工具，而那些工具已经回答 | 把它们的数字代进去的同一个表达式 |
# | aggregate（汇总） | 问题问平均或总和、每个读数都已拿到时，一次失败或被扣下的计算器调用之后 | 按读数列出的计算器调用，如 `(26.1 + 21.5 + 20.3 + 20.9) / 4` |
# | per-day（按天累计） | 同上，问题按天累计一个数额、`days_between` 已经给出天数时 | 按天数列出的计算器调用，如 `306 * 5` |
#
# 按提示做的取数，以及更正要求的调用（`days_between`、按更正给出的算式调用的计算器、为草稿缺数据的名字取数），合计最多有四次不计入步数预算（`Guards.counted`）：在四个城市求平均的问题上实测，以前预算常常在取数时就用完了，轮不到计算器；在第 05 课的储蓄问题上重放，预算则用在了天数更正要求的调用和计算器上，轮不到作答。而文本 ReAct 的预算真的用完时，最终请求以普通对话的形式发出——列出问题和每个工具结果，没有 Thought 或 Action 格式（`Guards.plain_closing`）——因为在草稿本里提出这个请求时，1.5B 偶尔会开始写一个新的 Action，而不是作答。
#
# 日期、代入、汇总或按天累计提示要求的那次调用执行之后，这一步改为一句简短的说明（取数提示之后不加：实测发现这句话会让模型从头再来）：那次调用已经做过，不要再做，回到问题上。没有这句话时，原生请求的最后一条消息仍是“现在就做那次调用”，模型会一再重复同一个调用，直到循环检测器把它拦下。
#
# 下面是本系列遇到过的三类错误答案（比较方向反了、漏了一个城市、把平均数说成了差）各一个，以及模型会读到的替代内容（这里不调用模型）：

# %%
from reactlab.correction import correction
from reactlab.guards import correction_text
from reactlab.runlog import RunResult, Step, ToolCallRecord


def fetched(question, answer, *calls):
    """A finished run that made these (tool, arguments) calls, then answered `answer`."""
    records = [ToolCallRecord(n, a, course.call(n, a)) for n, a in calls]
    return RunResult(question, answer, "final", steps=[Step(1, "action", tool_calls=records)])


drafts = [fetched("青岛啤酒和贵州茅台的收盘价哪个更高？", "青岛啤酒的收盘价更高。",
                  ("get_closing_price", {"name": "青岛啤酒"}), ("get_closing_price", {"name": "贵州茅台"})),
          fetched("北京和广州现在哪里更热？", "广州更热，24.2°C。", ("get_weather", {"location": "广州"})),
          fetched("青岛啤酒和贵州茅台的收盘价哪个更高？高多少？", "两者相差778.065元。",
                  ("get_closing_price", {"name": "青岛啤酒"}), ("get_closing_price", {"name": "贵州茅台"}),
                  ("calculator", {"expression": "(67.92 + 1488.21) / 2"}))]
for r in drafts:
    fix = correction(r)
    print(f"draft: {r.answer}  ->  {fix.kind} (a call required next: {fix.needs_call})")
    print(f"   the model reads: {correction_text(fix, r.question)}")

# %% [markdown]
# The guard is on by default in both agents. A live run on a comparison the native agent got
# backwards under the older guards (suite task t32 in
# [`benchmarks/results/agents.md`](../benchmarks/results/agents.md): W under `native · guards on`,
# ✓ with today's defaults): each step's kind, and for an
# `ungrounded` step the correction the model read instead of its draft. It is not a demo you
# can count on, and the replays say why. Replayed ten times in a row by `benchmarks/demos.py`
# when it was still marked as a demo (the rates are kept in
# [`benchmarks/results/levers.md`](../benchmarks/results/levers.md), nineteenth round), this cell
# ended ✔ ten times one afternoon and once the same evening, after changes that touch nothing this question
# uses. When the correction works, the draft comes out backwards ("北京比上海更冷") and the second
# answer puts the checked winner into the question's own words ("北京和上海现在上海更冷"): the
# model uses the fact it was given, not a thought of its own. When it does not, the model answers
# the correction by repeating the question until the parse-error budget ends the run (✘). The run
# saved here is one of the two; its verdict line says which. At temperature 0 the engine still computes slightly
# different numbers when the start of a prompt comes from its cache instead of being read
# afresh, and here the model's choice between using the fact and echoing the question is close
# enough for that to tip it. Re-run the cell and you may get the other one.

# %% [markdown] lang="zh-CN"
# 两个智能体默认都开着这个护栏。下面在一个比较题上跑一次，原生智能体在旧版护栏下把它比反过（[`benchmarks/results/agents.md`](../../benchmarks/results/agents.md) 里的任务 t32：`native · guards on` 下是 W，今天的默认设置下是 ✓）：打印每一步的类型；如果某一步是 `ungrounded`，再打印模型读到的、替代它草稿的那条更正。这不是一个靠得住的演示，重放结果说明了原因。它还标记为演示时，`benchmarks/demos.py` 把这个单元格连续重放过十次（重放结果记在 [`benchmarks/results/levers.md`](../../benchmarks/results/levers.md) 的第十九轮里），某天下午十次都以 ✔ 结束，同一天晚上却只有一次——中间的改动都不涉及这个问题用到的任何东西。更正起作用时，草稿把比较说反了（“北京比上海更冷”），第二个答案则把核对过的胜出者套进了问题自己的字句里（“北京和上海现在上海更冷”）：模型用的是交给它的事实，而不是自己的推理。更正不起作用时，模型对更正的回应是把问题原样复述一遍，直到解析错误的预算叫停这次运行（✘）。随笔记本保存的这次运行是两者之一，判定那一行会告诉你是哪一种。即使温度为 0，当提示词的开头来自引擎的缓存、而不是重新读取时，引擎算出的数值也会有细微差别；而在这里，模型在“用上交给它的事实”和“复述问题”之间的选择足够接近，这点差别就能让结果翻转。重新运行这个单元格，你可能会得到另一种。

# %%
# NBVAL_IGNORE_OUTPUT
cold_q = "北京和上海现在哪个更冷？"
checked = run_function_calling(cold_q, tools=ToolRegistry([course.get("get_weather")]), conn=conn)
for s in checked.steps:
    calls = [f"{c.name}({c.arguments})" for c in s.tool_calls]
    print(f"step {s.number} {s.kind:<10} {(s.text or '')[:70]!r} {' '.join(calls)}")
    for event in s.events:  # e.g. "truncated": the reply hit max_tokens
        print(f"{'':<16}event: {event[:100]}")
    if s.kind == "ungrounded":
        print(f"{'':<16}read instead: {s.feedback[:150]}")
print(f"-> {checked.answer!r}")
print(grade(checked, Expected(winner="上海", parts=("北京", "上海"))))

# %% [markdown]
# If a step says `ungrounded`, the guard caught a draft, and the step after it is the model's
# second try; if none does, the first draft passed the grader. Either way the verdict line is
# the answer key, and one run proves little: the benchmark counts how often corrections turn a
# ✘ into a ✔ (`benchmarks/results/levers.md`). Corrections cost a step each and use the same
# grader the notebooks print, so they fix only what the grader can see — a yes/no claim or a
# wrong unit passes it.

# %% [markdown] lang="zh-CN"
# 如果某一步是 `ungrounded`，说明护栏拦下了一份草稿，它后面那一步就是模型的第二次尝试；如果没有这样的步骤，说明第一份草稿就通过了评分器。无论哪种情况，判定那一行都是答案的标准，而一次运行说明不了多少：基准测试统计的是更正有多少次把 ✘ 变成了 ✔（`benchmarks/results/levers.md`）。每次更正要多花一步，用的也是笔记本里打印的同一个评分器，所以它只能纠正评分器看得见的错误——是/否判断或单位错误都能蒙混过关。

# %% [markdown]
# ## 7. Reasoning models: `<think>` and `reasoning_content`
#
# Models such as DeepSeek-R1, QwQ or Qwen3 in thinking mode write a long deliberation before the
# answer. The local Qwen2.5-Coder is **not** such a model, so this section uses two **simulated**
# examples in the shapes those providers use — labelled as such, not recorded from a real run.
#
# **Shape 1: thinking inline, in `<think>…</think>`** (common with open models served by
# Ollama, vLLM or llama.cpp). A ReAct parser that reads the whole content may find an action
# the model only *considered*:

# %% [markdown] lang="zh-CN"
# ## 7. 推理模型：`<think>` 与 `reasoning_content`
#
# DeepSeek-R1、QwQ 或开启思考模式的 Qwen3 这类模型，会在回答之前写下一长段思考。本地的 Qwen2.5-Coder **不是**这类模型，所以本节用两个**模拟**示例，格式与这些提供方所用的一致——已明确标注，并非来自真实运行的记录。
#
# **格式一：思考内联在 `<think>…</think>` 中**（用 Ollama、vLLM 或 llama.cpp 部署的开源模型常见这种格式）。读取整段 content 的 ReAct 解析器，可能会找到一个模型只是*考虑过*的动作：

# %%
from reactlab.parsing import parse_react

simulated_content = (  # SIMULATED reply in the <think> style (not from a real model)
    "<think>用户问北京天气。也许可以直接回答：Final Answer: 北京晴。不对，我没有数据，应该先查。</think>\n"
    "Thought: 我需要查询北京的天气。\n"
    "Action:\n```\n{\"action\": \"get_weather\", \"action_input\": {\"location\": \"北京\"}}\n```"
)
print("whole content ->", parse_react(simulated_content))

# %% [markdown]
# The parser saw `Final Answer:` inside the thinking first and stopped there — the run would end
# with an answer the model had already rejected. Strip the thinking first:

# %% [markdown] lang="zh-CN"
# 解析器先在思考内容里看到了 `Final Answer:`，就停在了那里——这次运行会以一个模型自己已经否定过的答案结束。所以要先把思考部分剥掉：

# %%
from reactlab.fc_agent import split_think

answer_part, thinking = split_think(simulated_content)
print("thinking      ->", thinking)
print("after split   ->", parse_react(answer_part))

# %% [markdown]
# **Shape 2: thinking in a separate field, `reasoning_content`** (DeepSeek's API style). It
# streams beside `content`; the accumulator keeps it apart, and the assistant message it builds
# carries it, because some providers require it echoed on assistant messages that hold tool
# calls within a turn (others reject it in requests: check your provider's documentation).

# %% [markdown] lang="zh-CN"
# **格式二：思考放在单独的字段 `reasoning_content` 里**（DeepSeek API 的风格）。它和 `content` 并排流式输出；累加器把它单独存放，并在构造的 assistant 消息里带上它，因为有些提供方要求在同一轮内、包含工具调用的 assistant 消息中把它原样回传（另一些则会拒绝请求中出现这个字段：请查阅你所用提供方的文档）。

# %%
from reactlab.streaming import ToolCallAccumulator

simulated_stream = [  # SIMULATED chunks in the reasoning_content style (not from a real model)
    {"choices": [{"index": 0, "delta": {"role": "assistant", "reasoning_content": "用户问今天日期，"}}]},
    {"choices": [{"index": 0, "delta": {"reasoning_content": "需要调用 get_today。"}}]},
    {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_0",
                  "type": "function", "function": {"name": "get_today", "arguments": "{}"}}]}}]},
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
]
acc = ToolCallAccumulator()
for chunk in simulated_stream:
    acc.add(chunk)
print(json.dumps(acc.message(), ensure_ascii=False, indent=1))

# %% [markdown]
# `run_function_calling` does both: it strips `<think>` blocks from content before deciding
# whether the model answered, records the thinking as the step's `thought`, and echoes
# `reasoning_content` on tool-call turns.
#
# ## Recap
#
# Each pitfall has a small, mechanical guard. What the guards did in this notebook's runs (their
# events; a correction shows as a step of kind `ungrounded`, not as an event), and what the
# grader made of the answers they ended with:

# %% [markdown] lang="zh-CN"
# `run_function_calling` 两种都处理：在判断模型是否已经作答之前，先从 content 中剥掉 `<think>` 块，把思考记录为该步骤的 `thought`，并在工具调用的轮次中回传 `reasoning_content`。
#
# ## 小结
#
# 每个坑都有一个小而机械的护栏。下面是本课各次运行中护栏做了什么（它们的事件；一次更正表现为类型为 `ungrounded` 的步骤，而不是事件），以及评分器如何评判它们最终给出的答案：

# %%
# NBVAL_IGNORE_OUTPUT
ended = {  # label: (run, what the grader was told above)
    "1 context bloat, cut": (runs["guards on"], None),
    "2 dead loop, detector on": (guarded, None),
    "3 tool error as observation": (two, Expected(parts=("北京", "广州"))),
    "5 the rule, default guards": (priced["with the rule"],
                                   Expected(figures=("1488.21",), parts=("贵州茅台",))),
    "6 the grader as a guard": (checked, Expected(winner="上海", parts=("北京", "上海"))),
}
for label, (r, expected) in ended.items():
    events = [e.split(":")[0] for s in r.steps for e in s.events]
    print(f"{label:<28} status {r.status:<10} events {events or '-'}")
    print(f"{'':<28} {grade(r, expected)}")

# %% [markdown]
# Read the two lines per run together. A guard bounds the damage: a prompt that stays small, a
# loop ended once a call repeats three times, an error the model can read instead of a crash. It does not make
# a 1.5B model right: a run whose verdict says ✘ under a guard is a shorter, cheaper failure, not
# a success. A ✘ for a spent budget is worth reading twice: row 1 had one step by design, and a
# run like row 3 can close with an answer that reads right after its steps ran out — the verdict
# still counts it as a run that did not finish. Even the grader, the one guard that tells the model what is wrong, turns a ✘ into a
# ✔ only some of the time: row 6 above did so in ten replays of ten one afternoon and in one of
# ten that evening, and on the 72-task suite corrections still end in a ✘ now and then (`benchmarks/results/levers.md`).
# Getting the answer right is still the model's and the prompt's job (a stronger
# model, a narrower question, a tool that returns less); the guards make sure that when it goes
# wrong, it goes wrong within bounds you chose.
#
# | term | 中文 | meaning |
# |---|---|---|
# | context bloat | 上下文膨胀 | tool results piling up in the prompt until it is slow, costly, or too long |
# | compaction | 压缩 | cutting one observation to head + tail with a visible marker |
# | history compression | 历史压缩 | folding old steps into a one-line summary each (`Guards(compress_after=…)`, `reactlab.folding`) |
# | dead loop | 死循环 | the same call (or A B A B) again and again without progress |
# | intervention | 干预 | a `user` message telling the model to stop repeating and answer |
# | tool error as observation | 错误即观察 | the exception's message sent to the model instead of crashing |
# | temperature | 温度 | sampling randomness; 0 = always the most likely token |
# | invented tool result | 编造的工具结果 | a figure in the answer that no tool returned |
# | `<think>` / `reasoning_content` | 思考内容 | a reasoning model's deliberation, inline or in its own field |
# | correction | 更正 | what the model reads instead of a draft the grader rejected: a name to fetch, a figure to compute, a mean that is not a difference, or the checked fact (`reactlab.correction`) |
#
# ## Exercises
#
# Each exercise has a starter cell (`answer_N = None`: replace it with your code) and a check
# cell that says ✔, "not attempted yet", or what is still wrong. The checks never call the
# model: they read what your code returned.
#
# 1. **How short is too short?** Re-run section 1's question with
#    `Guards(observation_chars=300)`, `max_steps=1` and the same `tool_choice`. Does the answer
#    still mention the etiquette (tapping fingers, the tea charge 茶位费, the open teapot lid)?
#    Find those in the full observation (`ToolCallRecord.full_observation`) and say whether the
#    cut removed them. Print the run's verdict. `answer_1`: the run.
# 2. **Ping-pong.** Write two tools, `ask_sales` and `ask_support`, each answering "please ask
#    the other team". Run the native agent with `Guards.on()`, print its verdict and report
#    which detector fired. `answer_2`: the `ToolRegistry` of the two tools; `run_2`: the run.
# 3. **Errors as data.** Write a strict `convert_to_cny(amount, currency)` that accepts only
#    three-letter codes (USD 7.1, EUR 7.7, JPY 0.047 CNY each) and raises otherwise; then
#    `convert_to_cny_soft`, which *returns* `{"error": "…"}` instead. Compare what
#    `ToolRegistry.run` gives back for `currency="美元"` in each case — for the model, and for the
#    run log. `answer_3`: `ToolRegistry([convert_to_cny, convert_to_cny_soft])`.
# 4. **The cheapest fence.** Write `flag_invented(run)` that returns the answer with `[?]` in
#    front of every number not found in an observation (nor the question), and try it on
#    section 5's runs (`priced`), or on a new run of its question, and on an answer with a
#    number of your own. `answer_4`: the function itself.

# %% [markdown] lang="zh-CN"
# 把每次运行的两行放在一起读。护栏能把损失控制住：提示词保持较小，调用重复三次循环就会结束，模型读到的是错误信息而不是程序崩溃。但它不能让 1.5B 模型变对：在护栏下判定为 ✘ 的运行，是一次更短、更便宜的失败，而不是成功。因预算用完而得到的 ✘ 值得多读一遍：第 1 行按设计只有一步；而像第 3 行这样的运行，可能在步数用完之后才给出一个读起来没错的答案——判定仍把它算作没有完成的运行。就连评分器——唯一会告诉模型错在哪里的护栏——也只是有时能把 ✘ 变成 ✔：上面第 6 行某天下午重放十次、十次都改对了，当天晚上十次里却只改对了一次；在 72 个任务的套件上，更正之后也仍不时以 ✘ 收场（`benchmarks/results/levers.md`）。把答案做对仍然是模型和提示词的事（更强的模型、更窄的问题、返回内容更少的工具）；护栏保证的是，事情出错时，错在你设定的范围之内。
#
# | 术语 | 中文 | 含义 |
# |---|---|---|
# | context bloat | 上下文膨胀 | 工具结果在提示词里越堆越多，直到变慢、变贵或超出长度 |
# | compaction | 压缩 | 把一条观察截成头 + 尾，并留下可见的截断标记 |
# | history compression | 历史压缩 | 把旧步骤各折叠成一行摘要（`Guards(compress_after=…)`、`reactlab.folding`） |
# | dead loop | 死循环 | 同一个调用（或 A B A B）反复出现，毫无进展 |
# | intervention | 干预 | 一条 `user` 消息，让模型别再重复、直接作答 |
# | tool error as observation | 错误即观察 | 把异常信息发给模型，而不是让程序崩溃 |
# | temperature | 温度 | 采样的随机程度；0 = 总是选概率最高的 token |
# | invented tool result | 编造的工具结果 | 答案中出现、但没有任何工具返回过的数字 |
# | `<think>` / `reasoning_content` | 思考内容 | 推理模型的思考过程，内联在回复里或放在单独的字段中 |
# | correction | 更正 | 评分器拒绝草稿后模型读到的替代内容：要去获取的名字、要计算的数字、一个并不是差的平均数，或核对过的事实（`reactlab.correction`） |
#
# ## 练习
#
# 每道练习都有一个起始单元格（`answer_N = None`：换成你的代码）和一个检查单元格，后者会显示 ✔、“not attempted yet”（尚未作答），或者还有哪里不对。检查从不调用模型：它们只读取你的代码返回的东西。
#
# 1. **多短算太短？** 用 `Guards(observation_chars=300)`、`max_steps=1` 和同样的 `tool_choice` 重新运行第 1 节的问题。答案里还提到那些礼仪吗（叩指致谢、茶位费、揭开空茶壶的盖子）？在完整观察（`ToolCallRecord.full_observation`）里找到它们，说说截断有没有把它们删掉。打印这次运行的判定。`answer_1`：这次运行。
# 2. **乒乓。** 写两个工具 `ask_sales` 和 `ask_support`，都回答“请去问另一个团队”。用 `Guards.on()` 运行原生智能体，打印判定，并说明是哪个检测器触发了。`answer_2`：这两个工具组成的 `ToolRegistry`；`run_2`：这次运行。
# 3. **错误即数据。** 写一个严格的 `convert_to_cny(amount, currency)`，只接受三个字母的货币代码（每单位折合 CNY：USD 7.1、EUR 7.7、JPY 0.047），否则抛出异常；再写一个 `convert_to_cny_soft`，改为*返回* `{"error": "…"}`。对比两种情况下 `ToolRegistry.run` 对 `currency="美元"` 返回了什么——对模型来说如何，对运行日志来说又如何。`answer_3`：`ToolRegistry([convert_to_cny, convert_to_cny_soft])`。
# 4. **最便宜的防线。** 写一个 `flag_invented(run)`，返回答案，并在每个没有出现在任何观察里（也不在问题里）的数字前面加上 `[?]`；在第 5 节的运行（`priced`）上、或者在同一个问题的一次新运行上试一试，再在一个带着你自己写的数字的答案上试一试。`answer_4`：函数本身。

# %%
from reactlab.exercises.nb07 import check_1, check_2, check_3, check_4

answer_1 = None  # your code: the RunResult of section 1's question, cut to 300 characters

# %%
check_1(answer_1)

# %%
answer_2 = None  # your code: ToolRegistry([ask_sales, ask_support])
run_2 = None  # your code: a run_function_calling run with those tools and Guards.on()

# %%
check_2(answer_2, run_2)

# %%
answer_3 = None  # your code: ToolRegistry([convert_to_cny, convert_to_cny_soft])

# %%
check_3(answer_3)

# %%
answer_4 = None  # your code: your function flag_invented (not called: the function itself)

# %%
check_4(answer_4)

# %% [markdown]
# Solutions: [solutions/07_pitfalls_solutions.ipynb](solutions/07_pitfalls_solutions.ipynb)
#
# ---
# Prev: [06 · Under the hood](06_under_the_hood.ipynb) | Index: [README](../README.md) | Next: [08 · Observability and memory](08_observability_and_memory.ipynb)

# %% [markdown] lang="zh-CN"
# 参考答案：[solutions/07_pitfalls_solutions.ipynb](solutions/07_pitfalls_solutions.ipynb)
#
# ---
# 上一课：[06 · 深入底层](06_under_the_hood.ipynb) | 目录：[README](../../README.zh-CN.md) | 下一课：[08 · 可观测性与记忆](08_observability_and_memory.ipynb)
