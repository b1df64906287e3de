# %% [markdown]
# # 06 · Under the hood
# *Native tool calling is a chat template on the way in and a parser on the way out — here is the local server doing both, and the two protocols measured side by side.*
#
# **After this notebook you can:**
# - show the exact prompt a model reads for a request with `tools` — and where the tool list and the call format went;
# - read the raw text the model wrote and explain how a lenient parser turned it into `tool_calls`;
# - explain what `tool_choice="required"` changes: constrained decoding against a JSON schema;
# - compare text ReAct and native calls on the same tasks with numbers (tokens, steps, parse failures), not slogans.
#
# **Where we are:** notebook 05 used `tools=` and `tool_calls` as the API presents them. Now we
# open the box. The local server has a teaching switch: `"reactlab_debug": true` in a request
# makes the reply carry what the model really saw and said. We import the agents of 04 and 05
# (`run_react`, `run_function_calling`) for the comparison.
#
# > 模型本身只会"续写文本"。所谓原生工具调用，就是服务器把 tools 写进提示词（聊天模板），
# > 再把模型写出的文本解析回 tool_calls。看清这两步，就知道 Function Calling 和 ReAct 的差别在哪里。

# %% [markdown]
# ## Setup

# %%
# NBVAL_IGNORE_OUTPUT
import os
import json
import re
import time
from collections import Counter
from pathlib import Path

from IPython.display import Markdown, display

import reactlab
from reactlab.fc_agent import run_function_calling
from reactlab.grader import Expected, grade
from reactlab.react_agent import run_react
from reactlab.tools import ToolRegistry, default_registry

os.environ["REACTLAB_TODAY"] = "2026-03-01"  # pin "today" (notebook 00 explains; delete this line to unpin)
conn = reactlab.connect()
course = default_registry()
weather_only = ToolRegistry([course.get("get_weather")])
LOCAL = conn.provider == "local"  # the debug view exists only on reactlab's own server
print("debug view available:", LOCAL)

# %%
def ask(messages, tools=None, **params):
    """One request with the debug switch on; returns (response, debug dict or {})."""
    kwargs = dict(model=conn.model, messages=messages, temperature=0, max_tokens=200, **params)
    if tools:
        kwargs["tools"] = tools
    if LOCAL:
        kwargs["extra_body"] = {"reactlab_debug": True}
    response = conn.client.chat.completions.create(**kwargs)
    return response, (response.model_extra or {}).get("reactlab", {})

# %% [markdown]
# ## 1. What the model reads
#
# The request of notebook 05, section 2: one user message and one tool. The SDK sends JSON. The
# model cannot read JSON messages — it reads one long string. **Predict** what that string holds
# besides the question.

# %%
# NBVAL_IGNORE_OUTPUT
question = "北京今天天气怎么样？"
messages = [{"role": "user", "content": question}]
resp, dbg = ask(messages, tools=weather_only.openai_tools())
print(dbg.get("prompt", "(no debug view: not the local server)"))

# %% [markdown]
# Things to notice, all added by the **chat template** (a Jinja program shipped inside the model
# file):
#
# - a default system turn appeared, though we sent none;
# - our tool schema was pasted, as JSON text, between `<tools></tools>` in that system turn;
# - an instruction tells the model to answer with `<tool_call>{"name": …, "arguments": …}</tool_call>`;
# - every turn is wrapped in `<|im_start|>role … <|im_end|>`, and the string ends with an open
#   assistant turn for the model to continue.
#
# So "native" tool calling is still a prompt. The model was *trained* on this exact layout: that
# is the argument for native calls — a format the model has seen in training instead of one we
# invent. Whether it *works* better on a given model is a measurement, not a given (section 5:
# on this 1.5B model the invented text format did better). Either way the tokens are there and
# you pay for them:

# %%
# NBVAL_IGNORE_OUTPUT
plain, _ = ask(messages)  # the same question without tools
print("prompt tokens without tools:", plain.usage.prompt_tokens)
print("prompt tokens with 1 tool:  ", resp.usage.prompt_tokens)
print("template origin:", dbg.get("template"))

# %% [markdown]
# ### Rendering it ourselves
#
# The server renders with `reactlab.server.template.ChatTemplate`, built from the template stored
# in the GGUF file. We can do the same without the server:

# %%
# NBVAL_IGNORE_OUTPUT
from reactlab.server.gguf import chat_template
from reactlab.server.template import ChatTemplate
from reactlab.server.weights import ensure_model

gguf_path = ensure_model("qwen2.5-coder-1.5b-instruct", progress=False)
template = ChatTemplate.from_gguf(gguf_path)
ours = template.render(messages, tools=weather_only.openai_tools())
print("same string as the server's:", ours == dbg.get("prompt", ours))

# %% [markdown]
# ### Watch it break: the template in the 1.5B model file
#
# `from_gguf` says "repaired". Render the template exactly as stored in the file and look at the
# line that shows the model how to write a call:

# %%
raw_template = ChatTemplate(chat_template(gguf_path), origin="as stored in the GGUF")
as_stored = raw_template.render(messages, tools=weather_only.openai_tools())
for label, text in [("as stored", as_stored), ("repaired ", ours)]:
    line = next((ln for ln in text.splitlines() if '"name"' in ln and "<function-name>" in ln), "")
    print(f"{label}: {line}")

# %% [markdown]
# The stored template writes its example call with doubled braces, `{{"name": …}}` — not valid
# JSON, and an example the model would copy. `reactlab.server.template.repair` rewrites that one
# string; the 0.5B model's template never had the bug. Small, silent bugs like this one are why
# "the model is bad at tool calling" deserves a look at the prompt before a verdict.
#
# ## 2. What the model wrote
#
# The reply's `tool_calls` are the server's interpretation. The debug view keeps the text the
# model actually produced and says where the parser found each call:

# %%
# NBVAL_IGNORE_OUTPUT
print("raw text:", repr(dbg.get("raw_text")))
for call in dbg.get("parsed_tool_calls", []):
    print(f"parsed:   {call['function']['name']}({call['function']['arguments']})  "
          f"found as: {call['source']}")
print("returned: finish_reason =", resp.choices[0].finish_reason, "| content =",
      repr(resp.choices[0].message.content))

# %% [markdown]
# `source` is `tag` when the model used the `<tool_call>` tags it was asked for, `fence` for a
# fenced ```` ```json ```` block, and `json` for bare JSON. This 1.5B model often skips the tags
# (the `source` above says what it did this time).
#
# ## 3. The parser
#
# A parser that follows the template's instructions literally looks for the tags and nothing
# else — roughly what llama.cpp's own Qwen parser does. Written by hand:

# %%
TAG = re.compile(r"<tool_call>\s*(\{.*?\})\s*</tool_call>", re.S)


def parse_tags_only(text: str) -> list[dict]:
    calls = []
    for blob in TAG.findall(text or ""):
        try:
            obj = json.loads(blob)
        except ValueError:
            continue
        calls.append({"name": obj.get("name"), "arguments": json.dumps(obj.get("arguments", {}),
                                                                        ensure_ascii=False)})
    return calls


# %% [markdown]
# ### Watch it break
#
# Collect a few real raw texts — the reply above plus two more requests (two cities at once, and
# a greeting that needs no tool) — and run the tags-only parser on each:

# %%
# NBVAL_IGNORE_OUTPUT
samples = {"北京天气": dbg.get("raw_text", "")}
replies = {}
for label, text in [("北京和广州", "北京和广州今天天气怎么样？"), ("打招呼", "你好，请用一句话介绍你自己。")]:
    replies[label] = ask([{"role": "user", "content": text}], tools=weather_only.openai_tools())
    samples[label] = replies[label][1].get("raw_text", "")
for label, text in samples.items():
    print(f"{label:<6} raw: {text[:110]!r}")
    print(f"{'':<6} tags-only parser -> {parse_tags_only(text) or 'no call'}")

# %% [markdown]
# Where the model wrote the tags, the strict parser works. Where it wrote a fenced block or bare
# JSON, the strict parser finds no call and the JSON would reach the user as the "answer". The
# server's parser is lenient in a controlled way: tags first, then fenced blocks, then bare JSON
# — and outside the tags, only JSON that names one of the request's tools counts as a call, so a
# JSON *answer* is not mistaken for one.
#
# ### This now lives in the package
#
# `reactlab.server.toolcalls.parse_tool_calls` is that parser (the server runs it on every reply
# when tools were sent). On the same real texts, and on a few shapes written by hand:

# %%
from reactlab.server.toolcalls import parse_tool_calls

hand_written = {  # written by hand to show each rule, not model output
    "fenced": 'Let me check.\n```json\n{"name": "get_weather", "arguments": {"location": "广州"}}\n```',
    "tag, brace missing": '<tool_call>\n{"name": "get_weather", "arguments": {"location": "北京"}\n</tool_call>',
    "two bare calls": '{"name": "get_weather", "arguments": {"location": "北京"}}\n'
                      '{"name": "get_weather", "arguments": {"location": "广州"}}',
    "JSON answer, no call": '{"name": "张三", "age": 30}',
}
for label, text in {**samples, **hand_written}.items():
    parsed = parse_tool_calls(text, tool_names=["get_weather"])
    calls = [f"{c.name}({c.arguments}) [{c.source}]" for c in parsed.calls]
    print(f"{label:<22} calls: {calls or 'none'}; content: {parsed.content!r:.50}")

# %% [markdown]
# ### The same model behind a strict parser (recorded by the BFCL benchmark, not live)
#
# How much does the lenient parser matter? The project's BFCL run (Berkeley Function-Calling
# Leaderboard cases, scored by BFCL's own checker) sent the same requests to two servers
# loading **the same GGUF file**: reactlab's server, and llama.cpp's own OpenAI-compatible
# server with its own Qwen tool-call parser. We do not start a second model here; the cell reads
# the benchmark's records, `benchmarks/results/bfcl_runs.jsonl` (in a checkout of the
# repository). They were produced by
#
# ```
# .venv/bin/python benchmarks/llamacpp_server.py --port 18766 &
# BFCL_EVAL_DIR=<venv with bfcl-eval> .venv/bin/python benchmarks/bfcl.py \
#     --base-url http://127.0.0.1:18766/v1 --label llamacpp --per-category 12
# ```
#
# (and the same without `--base-url`, `--label reactlab`, for reactlab's server; see
# `benchmarks/README.md`).

# %%
runs_file = Path(reactlab.__file__).resolve().parents[1] / "benchmarks" / "results" / "bfcl_runs.jsonl"
rows = [json.loads(line) for line in runs_file.open(encoding="utf-8")] if runs_file.is_file() else []
calling = [r for r in rows if r["category"] != "irrelevance"]  # cases that need a call
for label in ("llamacpp", "reactlab"):
    mine = [r for r in calling if r["label"] == label]
    print(f"{label:<9} {sum(bool(r['calls']) for r in mine)} of {len(mine)} replies came back with "
          f"tool_calls; finish_reason: {dict(Counter(r['finish_reason'] for r in mine))}")
case = next((r for r in calling if r["label"] == "llamacpp" and not r["calls"]), None)
if case:
    twin = next(r for r in rows if r["label"] == "reactlab" and r["id"] == case["id"])
    print(f"\nRECORDED, case {case['id']} — llama.cpp's server: finish_reason="
          f"{case['finish_reason']!r}, tool_calls={case['calls']}, content:\n{case['content'][:300]}")
    print(f"\nreactlab's server, same case: finish_reason={twin['finish_reason']!r}, "
          f"tool_calls={twin['calls']}")
else:
    print("No BFCL records here (benchmarks/results/bfcl_runs.jsonl is missing).")

# %% [markdown]
# The model wrote its call as a fenced ```` ```json ```` block — the shape section 2 saw. A parser
# that only accepts `<tool_call>` tags hands that back as plain `content` with `finish_reason`
# `"stop"`, so an agent on that server sees an "answer" that is a JSON blob and never runs the
# tool. Nothing was wrong with the model's choice of tool or arguments: reactlab's server, reading
# fences and bare JSON that name a known tool, turned the same text into a call. That is why the
# series' server parses leniently — and why "this model cannot call tools" is sometimes a
# statement about the parser. (BFCL's own summary is in `benchmarks/results/bfcl.md`; the
# parallel categories fail on both servers, because the model writes one call and stops.)

# %% [markdown]
# ## 4. `tool_choice="required"`: constrained decoding
#
# With `tool_choice="auto"` the parser takes whatever the model wrote. With `"required"` (or a
# named function) the client insists on a call, and hoping is not enough: the server passes a
# JSON schema to the engine, and at every token the sampler may only pick tokens that keep the
# text valid against it. The reply is a well-formed call to a real tool by construction.
# **Predict** what happens to the greeting from section 3 under `required`.

# %%
# NBVAL_IGNORE_OUTPUT
greeting = [{"role": "user", "content": "你好，请用一句话介绍你自己。"}]
for choice in ("auto", "required"):
    if choice == "auto":
        r, d = replies["打招呼"]  # section 3 already sent this request with the default "auto"
    else:
        r, d = ask(greeting, tools=weather_only.openai_tools(), tool_choice=choice)
    m = r.choices[0].message
    print(f"tool_choice={choice!r}: finish_reason={r.choices[0].finish_reason}")
    print("   raw text:", repr(d.get("raw_text", ""))[:120])
    print("   calls:   ", [f"{c.function.name}({c.function.arguments})" for c in m.tool_calls or []])
    if d.get("json_schema"):
        print("   schema:  ", json.dumps(d["json_schema"], ensure_ascii=False)[:200], "…")

# %% [markdown]
# Under `required` the reply is a call by construction — the schema allows nothing else — so
# the only choice left to the model was *which* call to make for a greeting that needs no
# weather (see its arguments above). That is the trade: `required` removes the "forgot to call the tool" and
# "broken JSON" failures, and adds the "called a tool it did not need" one. Use it when you know
# a call must come next (the first step of a task that always starts with a look-up), or name the
# function outright. The schema itself is plain JSON Schema, built by
# `reactlab.server.constrain.tool_call_schema`:

# %%
from reactlab.server.constrain import tool_call_schema

print(json.dumps(tool_call_schema(weather_only.openai_tools(), name="get_weather"),
                 ensure_ascii=False, indent=1))

# %% [markdown]
# ## 5. Text ReAct vs native calls, measured
#
# The usual comparison goes: function calling needs no format prompt and spends fewer tokens
# but hides the reasoning; ReAct needs a long prompt but works with any model and shows its
# thoughts. Those are claims. Here are two of the series' tasks — the stock agent's question and
# the savings agent's — under both loops: same model, same tools, same budget (`max_steps=5`,
# `max_tokens=200`, temperature 0), each run graded by `grade` against what the notebook knows
# is right (1420.29 and 贵州茅台; 1530 元 with today pinned). The cell prints how long the four
# runs took.

# %%
today = course.call("get_today", {})
days = int(course.call("days_between", {"date1": today, "date2": "2027-01-01"}))

tasks = [  # (name, question, tools, what the right answer must state)
    ("stocks", "青岛啤酒和贵州茅台的收盘价哪个更高？高多少？", ["get_closing_price", "calculator"],
     Expected(figures=("1420.29",), winner="贵州茅台", parts=("青岛啤酒", "贵州茅台"))),
    ("savings", "今天是几号？到 2027-01-01 还有多少天？如果这些天每天存 5 元，一共能存多少？",
     ["get_today", "days_between", "calculator"], Expected(figures=(str(days * 5),))),
]
for name, q, tools, _ in tasks:
    print(f"{name:<8} {q}  tools: {', '.join(tools)}")
print(f"\nexpected: 1488.21 − 67.92 = 1420.29 (贵州茅台 higher); today {today[:10]}, "
      f"{days} days, {days} × 5 = {days * 5}")

# %% [markdown]
# A parse failure is a reply the loop could not use as written: for ReAct a step the parser
# rejected, for native calls a tool call whose arguments were not valid JSON.

# %%
def parse_failures(run) -> int:
    if run.protocol == "react":
        return sum(s.kind == "parse_error" for s in run.steps)
    return sum(isinstance(c.arguments, str) for s in run.steps for c in s.tool_calls)


# %%
# NBVAL_IGNORE_OUTPUT
results = []
t_all = time.perf_counter()
for name, q, tool_names, expected in tasks:
    registry = ToolRegistry([course.get(n) for n in tool_names])
    for protocol, agent in [("react", run_react), ("native", run_function_calling)]:
        t0 = time.perf_counter()
        run = agent(q, tools=registry, conn=conn, max_steps=5, max_tokens=200)
        verdict = grade(run, expected)
        results.append({"task": name, "protocol": protocol, "run": run, "verdict": verdict,
                        "seconds": time.perf_counter() - t0})
        print(f"{name:<8} {protocol:<7} {run.status:<12} {len(run.steps)} steps "
              f"{time.perf_counter() - t0:4.0f} s  answer: {(run.answer or '')[:70]!r}")
        print(f"{'':<17}{verdict}"[:200])
print(f"all runs: {time.perf_counter() - t_all:.0f} s")

# %%
# NBVAL_IGNORE_OUTPUT
header = ["task", "protocol", "status", "verdict", "steps", "tool calls", "prompt tok",
          "compl tok", "first prompt", "parse failures", "seconds"]
lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
for r in results:
    run = r["run"]
    lines.append("| " + " | ".join(str(v) for v in [
        r["task"], r["protocol"], run.status,
        "✔" if r["verdict"].ok else f"✘ {r['verdict'].mode}", len(run.steps),
        sum(len(s.tool_calls) for s in run.steps), run.usage.get("prompt_tokens", 0),
        run.usage.get("completion_tokens", 0), run.steps[0].prompt_tokens if run.steps else 0,
        parse_failures(run), f"{r['seconds']:.0f}"]) + " |")
for protocol in ("react", "native"):
    mine = [r for r in results if r["protocol"] == protocol]
    lines.append(f"| **{protocol} total** | | | {sum(r['verdict'].ok for r in mine)}/{len(mine)} ✔ | "
                 f"{sum(len(r['run'].steps) for r in mine)} | | "
                 f"{sum(r['run'].usage.get('prompt_tokens', 0) for r in mine)} | "
                 f"{sum(r['run'].usage.get('completion_tokens', 0) for r in mine)} | | "
                 f"{sum(parse_failures(r['run']) for r in mine)} | "
                 f"{sum(r['seconds'] for r in mine):.0f} |")
comparison = "\n".join(lines)
display(Markdown(comparison))

# %% [markdown]
# How to read it — whatever the numbers in this run:
#
# - **first prompt** is the size of the very first request: the ReAct system prompt (format
#   rules, tool list, example) against the chat template's tool block. The difference is the
#   fixed price of each protocol per step; **prompt tok** is that price summed over the steps.
# - **steps** and **tool calls** differ when one loop can batch (native parallel calls) and the
#   other cannot (ReAct runs one action per step).
# - **verdict** is the grader's, against the tools' data and the expected facts, not the
#   model's confidence; ✘ names the failure (`wrong_answer`, `incomplete`, `invented_data`, …)
#   and the run's own verdict line above gives the reason. A run can end with status `final`
#   and still be ✘ — an answer such as "青岛啤酒的收盘价更高" after fetching 67.92 and 1488.21: the
#   figures are right, the comparison is backwards. (A substring check for "1420.29" would have
#   called that answer correct.)
# - Two tasks, one run each, temperature 0: enough to see the mechanics, far too few to rank
#   the protocols. That is what the benchmark suite of section 6 is for.
#
# One failure has a name thanks to section 1: an "answer" that is nothing but a tag from the
# chat template, such as `<tools></tools>`. The model copied a piece of its own prompt instead
# of writing a call or an answer; the reply held no call, so the loop took it as final. This cell
# lists the runs where that happened (if any):

# %%
# NBVAL_IGNORE_OUTPUT
def only_tags(text: str | None) -> bool:
    """True for replies such as "<tools></tools>" (a cut-off "<tool" at the end included)."""
    rest = re.sub(r"</?(?:tools|tool_call|tool_response)>|<[\w/]*$", "", text or "")
    return "<tool" in (text or "") and not rest.strip()


echoed = [f"{r['task']} / {r['protocol']}" for r in results if only_tags(r["run"].answer)]
print("answers that are only template tags:", echoed or "none in this run")

# %% [markdown]
# ## 6. The benchmark report
#
# `benchmarks/` runs a larger task suite under many configurations (protocols, guards,
# constrained decoding, model size) and writes its report to `benchmarks/results/agents.md`.
# When the report is present, its success table is quoted here — read at run time, so it is
# whatever the last benchmark run produced:

# %%
# NBVAL_IGNORE_OUTPUT
results_dir = Path(reactlab.__file__).resolve().parents[1] / "benchmarks" / "results"
report = results_dir / "agents.md"
section = None
if report.is_file():
    text = report.read_text(encoding="utf-8")
    found = re.search(r"(?ms)^## Success per configuration[^\n]*\n(.*?)(?=^## |\Z)", text)
    section = found.group(1).strip() if found else None
if section:
    print(f"Quoted from benchmarks/results/{report.name} "
          f"(last modified {time.strftime('%Y-%m-%d %H:%M', time.localtime(report.stat().st_mtime))}):")
    # the report's images sit next to it: point their links there from this folder
    display(Markdown(re.sub(r"!\[([^\]]*)\]\((?!https?:)([^)]+)\)",
                            r"![\1](../benchmarks/results/\2)", section)))
elif report.is_file():
    print(f"benchmarks/results/{report.name} exists but has no 'Success per configuration' "
          "section; open it directly.")
else:
    print(f"No agent benchmark report yet (benchmarks/results/{report.name} is missing): run "
          "`make bench` to produce one. Until then, the two-task table above is all the "
          "evidence in this notebook.")

# %% [markdown]
# The report above may be older than the latest run. The 72-task suite's first run on the
# default configurations (1.5B model, guards on, temperature 0, today pinned; success needs the
# task's facts **and** a ✔ from the grader) is written up in `benchmarks/results/agents_notes.md`,
# produced by
# `.venv/bin/python benchmarks/run_agents.py --configs default --out archive/suite72_default_runs.jsonl`:
#
# | configuration | all 72 tasks | 95 % interval |
# |---|---|---|
# | text ReAct, JSON blob | 43/72 (60 %) | 48–70 % |
# | native `tool_calls` | 25/72 (35 %) | 25–46 % |
#
# By kind of task the gap grows with the number of calls a task needs (three calls: 5/17 against
# 2/17), and native loses most often by answering half the question or answering with a plan.
#
# ### "Function calling first, text ReAct as the fallback"
#
# That is the usual advice: use the provider's native `tool_calls` when the model and server
# support them, and fall back to a text protocol (ReAct with `stop` and your own parser) when
# they do not. The reasons are sound — the model was trained on its template, the server owns
# the parser, and you get a stable API instead of a prompt format to maintain.
#
# This model's own numbers point the other way: on the 1.5B Coder model behind this series, the
# text protocol won, 43/72 against 25/72, and section 5's runs let you look at individual cases.
# Likely reasons, not proven here: a small model follows an explicit format spelled out in the
# prompt better than the tool block its template adds, and ReAct's `Thought:` gives it room to
# plan the next call. The advice comes from models trained hard for tool calls (the large hosted
# ones), and there it is the sensible default. So judge it per model: run both protocols on a handful of your own tasks, grade the
# answers, and keep the one that wins — the agents in this series take either.

# %% [markdown]
# ## 7. The usual comparison, revisited
#
# | the usual comparison says | what we can now say |
# |---|---|
# | FC needs no system prompt; fewer tokens | the client sends none, but the template writes one: tool JSON plus call instructions (section 1). Compare **first prompt** in the table. |
# | FC needs a model trained for it; output more stable | trained, yes — yet the 1.5B model often skips the tags it was trained on, and a lenient parser or constrained decoding makes up for it (sections 2–4). |
# | FC output is easy to handle | the *server* handles it: template in, parser out. Someone still writes the parser. |
# | FC hides the reasoning | native replies carry little or no text beside the call; ReAct's `Thought:` lines are in the run record (`step.thought`). |
# | ReAct works with weaker models | it needs only text completion and `stop`, and on this 1.5B model it solved more tasks (43/72 against 25/72, section 6) — but its format costs tokens at every step, and its parse failures are the model's to repeat. |
#
# Both protocols are "a prompt in, text out, a parser in between". The difference is who owns
# the format: with ReAct you do (prompt and parser in your code); with native calls the model
# vendor does (template and parser in the server), and you get a stable API in exchange.
#
# ## Recap
#
# - Native tool calling is a chat template on the way in (the tool list pasted into a system
#   turn) and a parser on the way out; the model still only writes text.
# - A strict parser can turn a good call into plain `content`: recorded on BFCL, llama.cpp's
#   parser returned this model's fenced calls as text; reactlab's server parses leniently.
# - `tool_choice="required"` constrains decoding to a call: no broken JSON, but a call even when
#   none is needed.
# - Measured on this model, text ReAct beat native calls (43/72 against 25/72); the usual
#   "function calling first" advice holds for models trained for it. Measure on yours.
#
# **Is an agent a replacement for function calling, or an upgrade of it?** An upgrade — more
# exactly, the loop *around* it. Function calling (native or ReAct text) is one step: the model
# asks for a tool. The agent is the program that runs the tool, sends the result back, repeats
# until the model answers, and guards the loop (a step budget, loop detection, checks on the
# answer). Either protocol can sit inside that loop, which is why `run_react` and
# `run_function_calling` are interchangeable in section 5.
#
# | term | meaning |
# |---|---|
# | chat template | the Jinja program (in the model file) that turns messages + tools into one prompt string |
# | `<tools>` / `<tool_call>` / `<tool_response>` | Qwen2.5's tags for the tool list, a call, and a tool result inside the prompt |
# | raw text | what the model generated, before any parsing |
# | tool-call parser | server code that turns raw text into `tool_calls` (+ leftover `content`) |
# | constrained decoding | sampling restricted to tokens that keep the output valid for a grammar / JSON schema |
# | `tool_choice` | `auto` (parse what comes), `required` / named (constrain to a call) |
#
# ## Exercises
#
# 1. **The second request.** Render, with `template.render`, the prompt of the *second* request of
#    notebook 05 (user, assistant with `tool_calls`, `tool` result). Where did the tool result
#    go, and in which role's turn? (`answer_1`: the rendered string.)
# 2. **Break the parser.** Write three raw texts that a careless model might produce and that
#    `parse_tool_calls` gets wrong or refuses (e.g. single quotes outside a tag, a call to an
#    unknown tool in a fence). Say what you would want it to do instead. (`answer_2`: your
#    texts; at least one must come back without a call.)
# 3. **Name the function.** Force `calculator` on "306 乘以 5 等于多少？" with
#    `tool_choice={"type": "function", "function": {"name": "calculator"}}` and print the
#    `json_schema` and raw text from the debug view. (`answer_3`: the response.)
# 4. **A fourth task.** Add a task that needs no tool at all ("用一句话解释什么是 JSON。") to the
#    comparison. Which protocol spends more tokens on it, and why? (`answer_4`: both runs and
#    your answer; print `grade(run)` under each run.)

# %% [markdown]
# Each exercise has a starter cell (`answer_N = None`) and a check cell. The check
# prints "not attempted yet" until you fill in the answer, ✔ when the result is right,
# and otherwise stops with a message saying what is still wrong. It checks what your
# code returned, never your wording, and never calls the model itself.

# %%
from reactlab.exercises.nb06 import check_1, check_2, check_3, check_4

# %%
answer_1 = None  # your code: template.render(<user, assistant with tool_calls, tool>, tools=...)

# %%
check_1(answer_1)

# %%
answer_2 = None  # your code: {"label": raw_text, ...} — three texts or more

# %%
check_2(answer_2)

# %%
answer_3 = None  # your code: the response of the request with the named tool_choice

# %%
check_3(answer_3)

# %%
answer_4 = None  # your code: {"react": run, "native": run, "more_tokens": "react" or "native"}

# %%
check_4(answer_4)

# %% [markdown]
# Solutions: [solutions/06_under_the_hood_solutions.ipynb](solutions/06_under_the_hood_solutions.ipynb)
#
# ---
# Prev: [05 · Native tool calls](05_native_tool_calls.ipynb) | Index: [README](../README.md) | Next: [07 · Pitfalls](07_pitfalls.ipynb)
