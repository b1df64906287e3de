"""Run BFCL's non-live categories against any OpenAI-compatible endpoint; score with BFCL's checker.

The Berkeley Function Calling Leaderboard (package `bfcl-eval`) ships test cases (a question,
function docs, and the possible answers) and an AST checker that decides whether a call
matches. This harness takes a fixed, seeded sample of five categories (simple, multiple,
parallel, parallel_multiple, irrelevance), sends each question once to `/chat/completions`
with `tools=` converted the way BFCL converts them for OpenAI-style models, reads `tool_calls`,
and scores them with BFCL's own `ast_checker`. Irrelevance cases succeed when no call is made.
One JSON line per case goes to `--out`; a rerun skips the cases already recorded for a label.

What it deliberately does NOT do: run BFCL's own pipeline (its handlers import dozens of
provider SDKs and torch; only the data files and the checker module are used here), the live,
multi-turn, Java or JavaScript categories, or retries within a run (a request error is recorded
and sent again by the next run). The function docs are converted here
(`to_tools`, a transcription of BFCL's `convert_to_tool` for OpenAI chat completions), because
BFCL's converter module imports its whole parser stack; `differences_from_bfcl` compares the
two in bfcl-eval's own environment (1,240 cases, no difference; run by tests/test_bfcl.py).

bfcl-eval is found without importing the package (benchmarks/bfcl_data.py): set BFCL_EVAL_DIR
to its folder (or to a virtual environment holding it), or install the `bench` extra. reactlab
itself never needs it. No notebook uses this harness.

Usage (from the repository root; it waits up to --wait s for the server to answer):
    .venv/bin/python benchmarks/bfcl.py --label reactlab                 # 20 per category
    .venv/bin/python benchmarks/bfcl.py --base-url http://127.0.0.1:18766/v1 --label llamacpp
    .venv/bin/python benchmarks/bfcl.py --report                         # results/bfcl.md
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bfcl_data import (
    CATEGORIES,
    BfclMissing,
    bfcl_module,
    load_cases,
    read_jsonl,
    sample,
)

RESULTS = ROOT / "benchmarks" / "results"
DEFAULT_OUT = RESULTS / "bfcl_runs.jsonl"
DEFAULT_BASE_URL = "http://127.0.0.1:18765/v1"
CHECKER_MODEL = "openai-compatible"  # only used by BFCL to decide how names were escaped


# --- BFCL function docs -> OpenAI tools, and tool_calls -> BFCL's model output ---------------

def _cast_types(properties: dict, mapping: dict) -> dict:
    """BFCL's `_cast_to_openai_type`: BFCL type names ("dict", "float", "tuple") -> JSON schema."""
    for value in properties.values():
        if "type" not in value:
            value["type"] = "string"
        else:
            if value["type"] == "float":
                value["format"] = "float"
                value["description"] += " This is a float type value."
            value["type"] = mapping.get(value["type"], "string")
        if value["type"] in ("array", "object"):
            if "properties" in value:
                value["properties"] = _cast_types(value["properties"], mapping)
            elif "items" in value:
                items = value["items"]
                items["type"] = mapping[items["type"]]
                if items["type"] == "array" and "items" in items:
                    items["items"]["type"] = mapping[items["items"]["type"]]
                elif items["type"] == "object" and "properties" in items:
                    items["properties"] = _cast_types(items["properties"], mapping)
    return properties


def to_tools(functions: list[dict], mapping: dict | None = None) -> list[dict]:
    """BFCL function docs -> OpenAI `tools=`, as BFCL prepares them for an OpenAI FC model.

    It adds BFCL's language hint to each description, writes "." in names as "_" (OpenAI names
    allow only [a-zA-Z0-9_-]) and maps BFCL's types to JSON schema. The input is not changed.
    Example: to_tools([{"name": "math.hypot", "parameters": {"type": "dict", ...}, ...}])
             -> [{"type": "function", "function": {"name": "math_hypot", "parameters":
                 {"type": "object", ...}, ...}}]
    """
    if mapping is None:
        mapping = bfcl_module("constants.type_mappings").GORILLA_TO_OPENAPI
    tools = []
    for item in copy.deepcopy(functions):
        item["description"] += " Note that the provided function is in Python 3 syntax."
        item["name"] = item["name"].replace(".", "_")
        item["parameters"]["type"] = "object"
        item["parameters"]["properties"] = _cast_types(item["parameters"]["properties"], mapping)
        tools.append({"type": "function", "function": item})
    return tools


def differences_from_bfcl() -> tuple[int, list[str]]:
    """(cases compared, ids where to_tools differs from BFCL's own converter).

    Needs the environment bfcl-eval was installed into: its converter imports its parsers
    (tree-sitter, tenacity), so it raises ImportError elsewhere. Example: -> (1240, [])
    """
    utils = bfcl_module("model_handler.utils")
    hints = bfcl_module("utils")
    style = bfcl_module("constants.enums").ModelStyle.OPENAI_COMPLETIONS
    mapping = bfcl_module("constants.type_mappings").GORILLA_TO_OPENAPI
    n, differ = 0, []
    for category in CATEGORIES:
        for case in load_cases(category):
            docs = hints._func_doc_language_specific_pre_processing(
                copy.deepcopy(case["function"]), case["bfcl_category"])
            n += 1
            if to_tools(case["function"], mapping) != utils.convert_to_tool(docs, mapping, style):
                differ.append(case["id"])
    return n, differ


def to_model_output(calls: list[dict]) -> list[dict]:
    """OpenAI tool calls -> BFCL's model output, as BFCL decodes an FC model's reply.

    Raises ValueError for broken JSON and TypeError for JSON that is not an object (BFCL
    counts both as "failed to decode AST").
    Example: to_model_output([{"name": "f", "arguments": '{"x": 1}'}]) -> [{"f": {"x": 1}}]
    """
    out = []
    for call in calls:
        args = json.loads(call["arguments"] or "{}")
        if not isinstance(args, dict):
            raise TypeError(f"The arguments of {call['name']} are {type(args).__name__}, "
                             f"not a JSON object.")
        out.append({call["name"]: args})
    return out


def score(case: dict, calls: list[dict]) -> tuple[bool, str | None, str | None]:
    """(ok, error text, error type) for one case, decided by BFCL's rules and checker."""
    try:
        output = to_model_output(calls)
    except (ValueError, TypeError) as e:  # json.JSONDecodeError is a ValueError
        if case["category"] == "irrelevance":
            return True, None, None  # BFCL: nothing decodable is "no call"
        return False, f"Invalid syntax. Failed to decode AST. {e}", "ast_decoder:decoder_failed"
    if case["category"] == "irrelevance":
        if not output or output == [{}]:
            return True, None, None
        return (False, "Valid syntax. Successfully decode AST when it should not.",
                "irrelevance_error:decoder_success")
    checker = bfcl_module("eval_checker.ast_eval.ast_checker")
    language = bfcl_module("constants.enums").Language.PYTHON
    result = checker.ast_checker(case["function"], output, case["ground_truth"], language,
                                 case["bfcl_category"], CHECKER_MODEL)
    if result["valid"]:
        return True, None, None
    error = result.get("error")
    if isinstance(error, list) and all(isinstance(e, str) for e in error):
        text = " ".join(error)
    else:
        text = error if isinstance(error, str) else json.dumps(error, ensure_ascii=False,
                                                               default=str)
    return False, text[:2000], result.get("error_type")


# --- running ---------------------------------------------------------------------------------

def run_case(client, model: str, case: dict, max_tokens: int = 512,
             extra_body: dict | None = None) -> dict:
    """Send one case, score the reply; the record always has ok (False on a request error).

    `extra_body`: server options sent with the request, e.g. {"reactlab_choice": true}; with
    {"reactlab_debug": true} reactlab's debug view is kept as `help` (the calls its help
    dropped) and `more` (each `<tool_call>` it opened and why it stopped)."""
    rec = {"category": case["category"], "id": case["id"], "calls": [], "content": None,
           "ok": False, "error": None, "error_type": None, "request_error": None}
    start = time.perf_counter()
    try:
        resp = client.chat.completions.create(
            model=model, messages=case["question"][0], tools=to_tools(case["function"]),
            tool_choice="auto", temperature=0, max_tokens=max_tokens,
            # OpenAI's default, sent explicitly: some llama.cpp versions default to false and
            # would then keep only the first call of a parallel case.
            parallel_tool_calls=True, **({"extra_body": extra_body} if extra_body else {}))
    except Exception as e:  # noqa: BLE001 - any client error is recorded and retried next run
        rec.update(latency_s=round(time.perf_counter() - start, 2),
                   request_error=f"{type(e).__name__}: {e}"[:1000])
        return rec
    rec["latency_s"] = round(time.perf_counter() - start, 2)
    choice = resp.choices[0]
    rec["calls"] = [{"name": c.function.name, "arguments": c.function.arguments}
                    for c in (choice.message.tool_calls or [])]
    rec["content"] = choice.message.content
    rec["finish_reason"] = choice.finish_reason
    if resp.usage is not None:
        rec["tokens"] = [resp.usage.prompt_tokens, resp.usage.completion_tokens]
    debug = (getattr(resp, "model_extra", None) or {}).get("reactlab")
    if isinstance(debug, dict):  # reactlab's debug view, sent when the request asks for it
        rec["help"], rec["more"] = debug.get("help"), debug.get("more_calls")
    rec["ok"], rec["error"], rec["error_type"] = score(case, rec["calls"])
    return rec


class EndpointDown(RuntimeError):
    """The endpoint did not answer GET /models in time; the message names it."""


def wait_for(client, base_url: str, seconds: float) -> None:
    """Poll GET {base_url}/models until it answers, e.g. while a server is still loading."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            client.models.list()
            return
        except Exception as e:  # noqa: BLE001 - any failure means "not up yet"
            if time.monotonic() >= deadline:
                raise EndpointDown(f"{base_url} did not answer GET /models within {seconds:.0f} s "
                                   f"({type(e).__name__}). Start the server first (make start, "
                                   f"or benchmarks/llamacpp_server.py), or raise --wait.") from None
            time.sleep(1.0)


def recorded(out: Path, label: str) -> set[str]:
    """Ids already run for this label (request errors are run again)."""
    if not out.is_file():
        return set()
    return {r["id"] for r in read_jsonl(out)
            if r.get("label") == label and not r.get("request_error")}


def run(base_url: str, model: str, api_key: str, label: str, per_category: int, seed: int,
        out: Path, categories=tuple(CATEGORIES), max_tokens: int = 512,
        timeout: float = 300.0, wait: float = 0.0, extra_body: dict | None = None) -> list[dict]:
    """Run the sample against one endpoint, appending to `out`; return the new records."""
    from openai import OpenAI

    client = OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0)
    cases = [c for cat in categories for c in sample(load_cases(cat), per_category, seed)]
    done = recorded(out, label)
    todo = [c for c in cases if c["id"] not in done]
    print(f"{label}: {len(cases)} cases, {len(cases) - len(todo)} already recorded, "
          f"{len(todo)} to run against {base_url}", flush=True)
    if todo:
        wait_for(client, base_url, wait)
        local = re.match(r"https?://(?:127\.0\.0\.1|localhost):(\d+)", base_url)
        if local:  # a reactlab server started before an edit would measure old code
            from reactlab.connection import refuse_stale

            refuse_stale(int(local.group(1)))
    out.parent.mkdir(parents=True, exist_ok=True)
    new = []
    for i, case in enumerate(todo, 1):
        rec = {"label": label, "model": model, "base_url": base_url, "seed": seed,
               "max_tokens": max_tokens, **({"extra_body": extra_body} if extra_body else {}),
               **run_case(client, model, case, max_tokens, extra_body),
               "at": time.strftime("%Y-%m-%dT%H:%M:%S")}
        with open(out, "a", encoding="utf-8") as f:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
        new.append(rec)
        verdict = "request error" if rec["request_error"] else ("ok" if rec["ok"] else "wrong")
        print(f"[{i}/{len(todo)}] {case['id']}: {verdict} ({rec['latency_s']:.1f} s)", flush=True)
    return new


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base-url", default=DEFAULT_BASE_URL)
    ap.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    ap.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY") or "unused")
    ap.add_argument("--label", default="reactlab", help="name of this endpoint in the report")
    ap.add_argument("--per-category", type=int, default=20,
                    help="cases per category (default 20: 100 cases, ~30 min at 15-20 s each)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--categories", default=",".join(CATEGORIES))
    ap.add_argument("--max-tokens", type=int, default=512)
    ap.add_argument("--wait", type=float, default=300.0,
                    help="seconds to wait for the endpoint to come up (default 300)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSONL records (resumable)")
    ap.add_argument("--report", action="store_true",
                    help="write results/bfcl.md from --out and stop")
    ap.add_argument("--report-file", type=Path, default=RESULTS / "bfcl.md")
    ap.add_argument("--ratio", nargs=2, metavar=("A", "B"), help="labels for the A/B column")
    ap.add_argument("--extra-body", type=json.loads, default=None, metavar="JSON",
                    help='server options sent with every request, e.g. \'{"reactlab_choice": '
                         'true}\' (reactlab\'s answer-or-calls constraint); give it its own --label')
    args = ap.parse_args(argv)
    if args.report:
        from benchmarks.bfcl_report import write_report

        write_report(args.out, args.report_file, args.ratio)
        print(f"wrote {args.report_file}")
        return 0
    categories = [c.strip() for c in args.categories.split(",") if c.strip()]
    unknown = [c for c in categories if c not in CATEGORIES]
    if unknown:
        ap.error(f"unknown categories {unknown}: choose from {', '.join(CATEGORIES)}")
    from reactlab.connection import ServerError

    try:
        run(args.base_url, args.model, args.api_key, args.label, args.per_category, args.seed,
            args.out, categories, args.max_tokens, wait=args.wait, extra_body=args.extra_body)
    except (BfclMissing, EndpointDown) as e:
        print(e, file=sys.stderr)
        return 2
    except ServerError as e:  # a stale local reactlab server
        print(e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
