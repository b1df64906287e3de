# %% [markdown]
# # 07 · Pitfalls
# *Six ways a working agent goes wrong in practice — each provoked on the real model, then fenced in.*
#
# **After this notebook you can:**
# - see context bloat coming (one tool result larger than the rest of the conversation) and cut it with head + tail compaction;
# - provoke a dead loop, detect it from the calls alone, and stop it with an intervention message;
# - turn tool exceptions into observations the model can correct itself from;
# - choose a temperature for tool calling, write the "do not invent tool results" rule, and handle reasoning models' `<think>` / `reasoning_content`.
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

# %% [markdown]
# ## Setup

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

# %%
# NBVAL_IGNORE_OUTPUT
from reactlab.guards import Guards

docs_only = ToolRegistry([course.get("search_docs")])
bloat_q = "在广州喝早茶有什么讲究？请先用 search_docs 查资料再回答。"
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
# search itself is in the first call). Uncut, the whole result rides along in that prompt and every later one;
# the seconds are the bill, since the engine must read every prompt token it has not cached.
# Were the result larger than the model's context window (8,192 tokens here), the request would
# fail outright. Cut, the prompt grows by roughly the 2,000 characters we allowed.
#
# Read the answers and their verdicts too. Compaction fixes the bill and the context window, not
# the reading: a 1.5B model may fail to use the search result either way (and a cut may remove
# the very paragraph the question needed — exercise 1 looks at that). The grader checks figures,
# names and comparisons against the tool results; an answer here has few figures, so a ✔ only
# says nothing in it contradicts the search — whether it answers the question, read it.

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

# %%
from reactlab.compaction import compact_observation

print(compact_observation(observation, 2000) == head_and_tail(observation, 2000))

# %% [markdown]
# ## 2. Dead loops
#
# A tool that never gives a useful answer invites the model to try again, and again. Here is one:
# a report that is always "still running". The question asks to keep checking until it is done,
# and — like the bare loop of notebook 05 — there is no system prompt to say when to stop.

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
# call, fewer tokens, a last request for an answer instead of a silent budget end. It does not
# make the answer right. If the verdict says ✘, what the run ended with is not the job's status
# — the guard made the failure shorter, not correct.
#
# ## 3. Tool exceptions become observations
#
# Models send bad arguments. `get_weather` takes *one* city; a model asked about two cities
# sometimes sends both at once. Called directly, the tool raises — and a loop that calls tools
# directly dies with it:

# %%
try:
    course.get("get_weather")(location="北京和广州")
except ValueError as err:
    print("ValueError:", err)

# %% [markdown]
# The fix: catch it and hand the message to the model as the observation. The error
# text is then the most useful thing the model reads — it says what to do instead.
# `ToolRegistry.run` does exactly that and never raises:

# %%
print(course.run("get_weather", {"location": "北京和广州"}))
print(course.run("get_weather", {"city": "北京"}))

# %% [markdown]
# Now on the real model, with the question that invites exactly that mistake. Notebook 05
# sent "北京和广州今天天气怎么样？" once, with no system prompt, and looked at the first reply; here
# the same request starts a loop, so we also see what the model does *after* an error comes back
# (if one does).

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
# after the tool results; the loop nudges it once with a short user message.) Without the error
# *as an observation* the only possible outcome would have been a crash. The verdict judges
# where the run ended, not the recovery: a model can fix its call and still run out of steps, or
# paste the raw observations as its answer.
#
# ## 4. Temperature
#
# Tool calling wants the same call for the same situation, so agents usually run at 0–0.1.
# Three samples of the same request at each temperature:

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
# or whether a tool is called at all. Whatever the counts above, a difference at temperature 0
# would be rare, while at 1.2 it is allowed. Every agent in this series runs at 0.
#
# ## 5. "Do not invent tool results"
#
# A common fix is one sentence in the system prompt: do not make up tool results. The test
# below gives the model a question it can only half answer — `get_closing_price` knows
# 贵州茅台 but not 五粮液 — and checks the answer for numbers no tool returned.

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
# the wrong name. A sentence such as "五粮液和贵州茅台的收盘价分别是1488.21" names both stocks in
# one clause, and neither check guesses which stock such a figure belongs to — a reader must.
# A reply cut off at `max_tokens` shows a `truncated` event. Whatever this run shows, one run per prompt proves
# little: the rule lowers the rate of invented results, it does not make them impossible. The
# guarantee, if you need one, belongs in code — for example, refuse to display a figure that
# does not appear in any observation.
#
# ## 6. Reasoning models: `<think>` and `reasoning_content`
#
# Models such as DeepSeek-R1, QwQ or Qwen3 in thinking mode write a long deliberation before the
# answer. The local Qwen2.5-Coder is **not** such a model, so this section uses two **simulated**
# examples in the shapes those providers use — labelled as such, not recorded from a real run.
#
# **Shape 1: thinking inline, in `<think>…</think>`** (common with open models served by
# Ollama, vLLM or llama.cpp). A ReAct parser that reads the whole content may find an action
# the model only *considered*:

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
# Each pitfall has a small, mechanical guard. What the guards did in this notebook's runs, and
# what the grader made of the answers they ended with:

# %%
# NBVAL_IGNORE_OUTPUT
ended = {  # label: (run, what the grader was told above)
    "1 context bloat, cut": (runs["guards on"], None),
    "2 dead loop, detector on": (guarded, None),
    "3 tool error as observation": (two, Expected(parts=("北京", "广州"))),
    "5 the rule, default guards": (priced["with the rule"],
                                   Expected(figures=("1488.21",), parts=("贵州茅台",))),
}
for label, (r, expected) in ended.items():
    events = [e.split(":")[0] for s in r.steps for e in s.events]
    print(f"{label:<28} status {r.status:<10} events {events or '-'}")
    print(f"{'':<28} {grade(r, expected)}")

# %% [markdown]
# Read the two lines per run together. A guard bounds the damage: a prompt that stays small, a
# loop ended once a call repeats three times, an error the model can read instead of a crash. It does not make
# a 1.5B model right: a run whose verdict says ✘ under a guard is a shorter, cheaper failure, not
# a success. Getting the answer right is still the model's and the prompt's job (a stronger
# model, a narrower question, a tool that returns less); the guards make sure that when it goes
# wrong, it goes wrong within bounds you chose.
#
# | term | meaning |
# |---|---|
# | context bloat | tool results piling up in the prompt until it is slow, costly, or too long |
# | compaction | cutting one observation to head + tail with a visible marker |
# | history compression | folding old steps into a one-line summary each (`Guards(compress_after=…)`, `reactlab.folding`) |
# | dead loop | the same call (or A B A B) again and again without progress |
# | intervention | a `user` message telling the model to stop repeating and answer |
# | tool error as observation | the exception's message sent to the model instead of crashing |
# | temperature | sampling randomness; 0 = always the most likely token |
# | invented tool result | a figure in the answer that no tool returned |
# | `<think>` / `reasoning_content` | a reasoning model's deliberation, inline or in its own field |
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
#    section 5's runs (`priced`). `answer_4`: the function itself.

# %%
from reactlab.exercises.nb07 import check_1, check_2, check_3, check_4

answer_1 = None  # your code: the RunResult of section 1's question, cut to 300 characters

# %%
check_1(answer_1)

# %%
answer_2 = None  # your code: ToolRegistry([ask_sales, ask_support])
run_2 = None  # your code: the run_function_calling(...) run with those tools and Guards.on()

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
