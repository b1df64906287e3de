"""Two levers for BFCL's parallel and irrelevance cases, tried on the engine directly.

1. `--shapes`: which constraint under `tool_choice="auto"` lets the 1.5B choose well between an
   answer and calls? Each BFCL case is rendered with the server's chat template and generated
   under each shape: `array` (an answer object or a list of calls), `object_or_array` (the same
   plus one call object: what `"reactlab_choice": true` sends now), `wrapped` (an answer object
   or `{"tool_calls": [...]}`) and `none` (no constraint: today's `auto`).
2. `--continue`: after one complete call, written back in the template's own
   `<tool_call>` tags, does the model write a second call when the question needs one? It
   prints the probability the model gives to ending its turn right after the first call.
3. `--force`: the same, but the next `<tool_call>` is opened for the model, so it must write
   a call: a repeat (or no call) ends the turn. Scored twice: every new call kept (`forced`),
   and only calls whose new values all appear in the question (`forced+grounded`, `grounded`).

Scored with BFCL's own checker (`bfcl.score`), like `bfcl.py`. It loads the model in this
process: stop any local server first (one model at a time on 2 cores). Measures only; it
changes nothing in the server. Results: `results/bfcl_notes.md`.

    BFCL_EVAL_DIR=~/bfcl-venv .venv/bin/python benchmarks/bfcl_shapes.py --shapes --per-category 5
    BFCL_EVAL_DIR=~/bfcl-venv .venv/bin/python benchmarks/bfcl_shapes.py --continue --per-category 5
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bfcl import score, to_tools
from benchmarks.bfcl_data import load_cases, sample
from reactlab.server import assist
from reactlab.server.constrain import ANSWER_SCHEMA, call_schema, choice_schema
from reactlab.server.toolcalls import parse_tool_calls

CATEGORIES = ("parallel", "parallel_multiple", "simple", "irrelevance")


def shapes(tools: list[dict]) -> dict[str, dict | None]:
    """The constraints tried, by name. Example: shapes(tools)["none"] -> None"""
    one = [call_schema(t) for t in tools]
    call = one[0] if len(one) == 1 else {"anyOf": one}
    many = {"type": "array", "items": call, "minItems": 1, "maxItems": 8}
    wrapped = {"type": "object", "properties": {"tool_calls": many}, "required": ["tool_calls"],
               "additionalProperties": False}
    return {"array": {"anyOf": [ANSWER_SCHEMA, many]},
            "object_or_array": choice_schema(tools),  # what the server's option sends
            "wrapped": {"anyOf": [ANSWER_SCHEMA, wrapped]}, "none": None}


def calls_in(text: str, names: list[str], constrained: bool) -> list[dict]:
    """The calls a reply makes, as BFCL's scorer takes them ([] for an answer object)."""
    if constrained and assist.read_answer(text) is not None:
        return []
    return [{"name": c.name, "arguments": c.arguments}
            for c in parse_tool_calls(text, names).calls]


def tags(calls: list[dict]) -> str:
    """Calls written back the way the chat template teaches them."""
    return "".join("<tool_call>\n" + json.dumps({"name": c["name"],
                                                   "arguments": json.loads(c["arguments"])},
                                                  ensure_ascii=False) + "\n</tool_call>\n"
                   for c in calls)


def _leaves(value) -> list:
    """Every scalar inside an argument value. Example: _leaves({"a": [1, "x"]}) -> [1, "x"]"""
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def grounded(call: dict, earlier: list[dict], question: str) -> bool:
    """Is every value of `call` that no earlier call has written found in the question? (a
    "San Francisco, CA" counts when "San Francisco" is there). The filter of `--force`.

    Example: grounded({"name": "w", "arguments": '{"city": "San Francisco, CA"}'},
             [{"name": "w", "arguments": '{"city": "Boston, MA"}'}],
             "weather in Boston and in San Francisco?") -> True
    """
    seen = {json.dumps(v) for c in earlier for v in _leaves(json.loads(c["arguments"]))}
    text = question.casefold()
    new = [v for v in _leaves(json.loads(call["arguments"])) if json.dumps(v) not in seen]
    return bool(new) and all(str(v).split(",")[0].strip().casefold() in text for v in new
                             if not isinstance(v, bool))


def forced(engine, prompt: str, calls: list[dict], names: list[str], question: str,
           most: int = 4) -> tuple[list[dict], list[dict]]:
    """Open one more `<tool_call>` after the model's own calls, up to `most` calls in all.

    Returns (every new call the model wrote, the new calls `grounded` keeps); stops at the
    first reply that is no call or repeats one."""
    every, kept = list(calls), list(calls)
    while len(every) < most:
        g = engine.generate(prompt + tags(every) + "<tool_call>\n", max_tokens=200,
                            temperature=0, stop=["</tool_call>"])
        found = parse_tool_calls("<tool_call>\n" + g.text + "\n</tool_call>", names).calls
        if not found:
            break
        try:
            args = json.loads(found[0].arguments)
        except ValueError:
            break
        call = {"name": found[0].name, "arguments": found[0].arguments}
        if any(c["name"] == call["name"] and json.loads(c["arguments"]) == args for c in every):
            break
        if grounded(call, kept, question):
            kept.append(call)
        every.append(call)
    return every, kept


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", action="store_true")
    ap.add_argument("--continue", dest="cont", action="store_true")
    ap.add_argument("--force", action="store_true",
                    help="after the model's calls, open another <tool_call> and score that too")
    ap.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    ap.add_argument("--per-category", type=int, default=5)
    ap.add_argument("--categories", default=",".join(CATEGORIES))
    args = ap.parse_args(argv)
    from reactlab.server.engines import XllamacppEngine

    engine = XllamacppEngine(args.model)
    totals: dict[tuple[str, str], list[bool]] = {}
    for cat in args.categories.split(","):
        for case in sample(load_cases(cat), args.per_category, 0):
            tools = to_tools(case["function"])
            names = [t["function"]["name"] for t in tools]
            prompt = engine.template.render(case["question"][0], tools)
            for name, schema in (shapes(tools) if args.shapes else {"none": None}).items():
                g = engine.generate(prompt, max_tokens=512, temperature=0, json_schema=schema,
                                    stop=["<tool_response>"])
                calls = calls_in(g.text, names, schema is not None)
                ok = score(case, calls)[0]
                totals.setdefault((cat, name), []).append(ok)
                print(f"{case['id']:24} {name:16} {'ok ' if ok else 'no '} {g.text[:90]!r}")
                if args.force and calls and schema is None:
                    every, kept = forced(engine, prompt, calls, names, case["question"][0][-1]["content"])
                    for label, more in (("forced", every), ("forced+grounded", kept)):
                        ok = score(case, more)[0]
                        totals.setdefault((cat, label), []).append(ok)
                        print(f"{'':24} {label:16} {'ok ' if ok else 'no '} "
                              f"{[(c['name'], c['arguments'][:40]) for c in more[len(calls):]]}")
                elif args.force and schema is None:
                    for label in ("forced", "forced+grounded"):
                        totals.setdefault((cat, label), []).append(ok)
                if args.cont and calls:
                    # the first token after the first call, with the model's top probabilities
                    r = engine._server.handle_completions({
                        "prompt": prompt + tags(calls[:1]), "max_tokens": 1, "temperature": 0,
                        "n_probs": 5, "cache_prompt": True})
                    top = r["choices"][0]["logprobs"]["content"][0]["top_logprobs"]
                    end = sum(math.exp(t["logprob"]) for t in top if t["id"] in (151643, 151645))
                    print(f"{'':24} after one call: P(end of turn) = {end:.3f}")
    for (cat, name), oks in totals.items():
        print(f"{cat:18} {name:16} {sum(oks)}/{len(oks)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
