"""The BFCL harness (benchmarks/bfcl*.py, llamacpp_server.py), without a model or network.

Tests marked by the `bfcl` fixture need bfcl-eval's data and checker: install the `bench`
extra, or set BFCL_EVAL_DIR to an environment that holds it; otherwise they are skipped. The
rest (output conversion, irrelevance rules, sampling, resuming, the report, the llama.cpp
launcher) run everywhere. The end-to-end tests go through reactlab's replay server and the
openai SDK on loopback.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import bfcl, bfcl_data, bfcl_report, llamacpp_server
from reactlab.server.replay import ReplayEngine, serve_replay

# A copy of the part of BFCL's GORILLA_TO_OPENAPI that the hand-made docs below use.
MAPPING = {"integer": "integer", "float": "number", "string": "string", "boolean": "boolean",
           "array": "array", "tuple": "array", "dict": "object", "any": "string"}


@pytest.fixture(scope="module")
def bfcl_dir():
    if not os.environ.get("BFCL_EVAL_DIR"):
        pytest.importorskip("bfcl_eval", reason="bfcl-eval is not installed: pip install -e "
                            "'.[bench]', or set BFCL_EVAL_DIR to an environment holding it")
    try:
        return bfcl_data.bfcl_root()
    except bfcl_data.BfclMissing as e:
        pytest.skip(str(e))


def case_by_id(case_id: str) -> dict:
    category = next(k for k, v in bfcl_data.CATEGORIES.items()
                    if re.fullmatch(rf"{v}_\d+", case_id))
    return next(c for c in bfcl_data.load_cases(category) if c["id"] == case_id)


def call(name: str, **args) -> dict:
    return {"name": name, "arguments": json.dumps(args)}


def oracle(case: dict) -> list[dict]:
    """The calls BFCL's first possible answer describes, with names escaped as for OpenAI."""
    calls = []
    for answer in case["ground_truth"]:
        (name, params), = answer.items()
        args = {k: v[0] for k, v in params.items() if v[0] != ""}  # "" marks "may be omitted"
        calls.append(call(name.replace(".", "_"), **args))
    return calls


# --- output conversion and the irrelevance rules (no bfcl-eval needed) -----------------------

def test_to_model_output_decodes_arguments_like_bfcl():
    assert bfcl.to_model_output([call("f", x=1), {"name": "g", "arguments": ""}]) == [
        {"f": {"x": 1}}, {"g": {}}]
    assert bfcl.to_model_output([]) == []


def test_to_model_output_rejects_broken_and_non_object_arguments():
    with pytest.raises(ValueError):
        bfcl.to_model_output([{"name": "f", "arguments": '{"x": '}])
    with pytest.raises(TypeError, match="not a JSON object"):
        bfcl.to_model_output([{"name": "f", "arguments": "[1, 2]"}])


@given(st.text(max_size=60))
def test_to_model_output_on_any_text_raises_only_decode_errors(text):
    try:
        out = bfcl.to_model_output([{"name": "f", "arguments": text}])
    except (ValueError, TypeError):
        return
    assert isinstance(out[0]["f"], dict)


@given(st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=8), max_size=4))
def test_to_model_output_round_trips_objects(args):
    assert bfcl.to_model_output([{"name": "f", "arguments": json.dumps(args)}]) == [{"f": args}]


def test_irrelevance_succeeds_only_without_a_decodable_call():
    case = {"category": "irrelevance", "id": "irrelevance_0"}
    assert bfcl.score(case, []) == (True, None, None)
    assert bfcl.score(case, [{"name": "f", "arguments": "{not json"}]) == (True, None, None)
    ok, error, kind = bfcl.score(case, [call("determine_body_mass_index", weight=1, height=2)])
    assert not ok and kind == "irrelevance_error:decoder_success" and "should not" in error


def test_broken_arguments_fail_before_the_checker():
    case = {"category": "simple", "id": "simple_python_0"}
    ok, error, kind = bfcl.score(case, [{"name": "f", "arguments": "{"}])
    assert not ok and kind == "ast_decoder:decoder_failed" and "Failed to decode" in error


def test_to_tools_maps_bfcl_types_and_escapes_names():
    doc = [{"name": "geo.distance", "description": "Distance.",
            "parameters": {"type": "dict", "required": ["a"], "properties": {
                "a": {"type": "tuple", "items": {"type": "float"}, "description": "Point A."},
                "scale": {"type": "float", "description": "Scale."},
                "opts": {"type": "dict", "description": "Options.",
                         "properties": {"deep": {"type": "boolean", "description": "Deep."}}},
                "rows": {"type": "array", "description": "Rows.",
                         "items": {"type": "array", "items": {"type": "integer"}}},
                "what": {"description": "No type given."},
                "odd": {"type": "HashSet", "description": "A type BFCL does not map."}}}}]
    before = json.dumps(doc)
    (tool,) = bfcl.to_tools(doc, MAPPING)
    fn = tool["function"]
    assert tool["type"] == "function" and fn["name"] == "geo_distance"
    assert fn["description"].endswith("Note that the provided function is in Python 3 syntax.")
    props = fn["parameters"]["properties"]
    assert fn["parameters"]["type"] == "object" and fn["parameters"]["required"] == ["a"]
    assert props["a"] == {"type": "array", "items": {"type": "number"}, "description": "Point A."}
    assert props["scale"] == {"type": "number", "format": "float",
                              "description": "Scale. This is a float type value."}
    assert props["opts"]["type"] == "object"
    assert props["opts"]["properties"]["deep"]["type"] == "boolean"
    assert props["rows"]["items"] == {"type": "array", "items": {"type": "integer"}}
    assert props["what"]["type"] == "string" and props["odd"]["type"] == "string"
    assert json.dumps(doc) == before  # the case itself is untouched


# --- finding bfcl-eval, sampling, resuming ---------------------------------------------------

def test_a_missing_bfcl_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setenv("BFCL_EVAL_DIR", str(tmp_path))
    with pytest.raises(bfcl_data.BfclMissing, match="BFCL_EVAL_DIR=.*pip install"):
        bfcl_data.bfcl_root()
    assert bfcl.main(["--out", str(tmp_path / "runs.jsonl")]) == 2


def test_unknown_categories_are_refused(capsys):
    with pytest.raises(ValueError, match="choose from simple"):
        bfcl_data.load_cases("live_simple")
    with pytest.raises(SystemExit):
        bfcl.main(["--categories", "simple,java"])
    assert "unknown categories ['java']" in capsys.readouterr().err


def test_sample_is_fixed_by_the_seed_and_keeps_bfcl_order():
    cases = [{"id": f"multiple_{i}", "category": "multiple"} for i in range(200)]
    a, b = bfcl_data.sample(cases, 20, seed=0), bfcl_data.sample(cases, 20, seed=0)
    assert a == b and len(a) == 20
    assert [c["id"] for c in a] == [c["id"] for c in cases if c in a]
    assert bfcl_data.sample(cases, 20, seed=1) != a
    assert bfcl_data.sample(cases[:5], 20) == cases[:5]


def test_recorded_skips_answered_cases_of_this_label_only(tmp_path):
    out = tmp_path / "runs.jsonl"
    assert bfcl.recorded(out, "reactlab") == set()
    rows = [{"label": "reactlab", "id": "a"}, {"label": "llamacpp", "id": "c"},
            {"label": "reactlab", "id": "b", "request_error": "x"}]
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert bfcl.recorded(out, "reactlab") == {"a"}


def test_wait_for_polls_until_the_endpoint_answers(monkeypatch):
    monkeypatch.setattr(bfcl.time, "sleep", lambda s: None)
    answers = iter([ConnectionError("down"), ConnectionError("down"), "up"])

    def models_list():
        a = next(answers)
        if isinstance(a, Exception):
            raise a
        return a

    client = types.SimpleNamespace(models=types.SimpleNamespace(list=models_list))
    bfcl.wait_for(client, "http://x/v1", 60)
    assert next(answers, "used up") == "used up"


def test_wait_for_names_the_endpoint_that_never_came_up():
    def down():
        raise ConnectionError("refused")

    client = types.SimpleNamespace(models=types.SimpleNamespace(list=down))
    with pytest.raises(bfcl.EndpointDown, match=r"127.0.0.1:9/v1 did not answer .*make start"):
        bfcl.wait_for(client, "http://127.0.0.1:9/v1", 0)


# --- real BFCL entries (need bfcl-eval) ------------------------------------------------------

def test_the_five_categories_load_with_their_answers(bfcl_dir):
    sizes = {cat: len(bfcl_data.load_cases(cat)) for cat in bfcl_data.CATEGORIES}
    assert sizes == {"simple": 400, "multiple": 200, "parallel": 200, "parallel_multiple": 200,
                     "irrelevance": 240}
    for cat in ("simple", "multiple", "parallel", "parallel_multiple"):
        assert all(c["ground_truth"] for c in bfcl_data.load_cases(cat))


def _types(schema: dict):
    yield schema.get("type")
    for sub in (schema.get("properties") or {}).values():
        yield from _types(sub)
    if isinstance(schema.get("items"), dict):
        yield from _types(schema["items"])


def test_real_function_docs_become_json_schema(bfcl_dir):
    json_types = {"object", "array", "string", "integer", "number", "boolean"}
    for cat in bfcl_data.CATEGORIES:
        for case in bfcl_data.load_cases(cat):
            for tool in bfcl.to_tools(case["function"]):
                fn = tool["function"]
                assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", fn["name"]), fn["name"]
                assert set(_types(fn["parameters"])) <= json_types, case["id"]
    (tool,) = bfcl.to_tools(case_by_id("simple_python_1")["function"])
    assert tool["function"]["name"] == "math_factorial"
    assert tool["function"]["parameters"]["properties"]["number"]["type"] == "integer"


def test_to_tools_matches_bfcls_own_converter(bfcl_dir):
    """In bfcl-eval's own environment (its converter imports tree-sitter and more)."""
    try:
        n, differ = bfcl.differences_from_bfcl()
    except ImportError as e:
        # bfcl_dir is <venv>/lib/pythonX.Y/site-packages/bfcl_eval when it lives elsewhere
        python = bfcl_dir.parents[3] / "bin" / "python"
        if not python.is_file():
            pytest.skip(f"BFCL's converter cannot be imported here ({e}) and no interpreter "
                        f"sits next to {bfcl_dir}")
        code = ("import json; from benchmarks.bfcl import differences_from_bfcl; "
                "print(json.dumps(differences_from_bfcl()))")
        done = subprocess.run([str(python), "-c", code], capture_output=True, text=True,
                              check=False, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
        if done.returncode != 0 and "ImportError" in done.stderr + done.stdout:
            pytest.skip(f"BFCL's converter cannot be imported in {python} either")
        assert done.returncode == 0, done.stderr[-2000:]
        n, differ = json.loads(done.stdout.splitlines()[-1])
    assert n == 1240 and differ == []


def test_bfcls_checker_scores_right_and_wrong_calls(bfcl_dir):
    fact = case_by_id("simple_python_1")  # math.factorial(number=5)
    assert bfcl.score(fact, [call("math_factorial", number=5)]) == (True, None, None)
    ok, error, kind = bfcl.score(fact, [call("math_factorial", number=6)])
    assert not ok and "Expected one of [5]" in error and kind.startswith("value_error")
    ok, _, kind = bfcl.score(fact, [call("math.factorial", number=5)])  # not escaped
    assert not ok and kind == "simple_function_checker:wrong_func_name"
    ok, _, kind = bfcl.score(fact, [call("math_factorial", number=5, base=10)])
    assert not ok and kind == "simple_function_checker:unexpected_param"
    ok, error, _ = bfcl.score(fact, [call("math_factorial")])
    assert not ok and "Missing required parameter" in error
    assert not bfcl.score(fact, [])[0]
    assert not bfcl.score(fact, [call("math_factorial", number="5")])[0]  # a string is no int

    play = case_by_id("parallel_0")  # Taylor Swift 20 min and Maroon 5 15 min, any order
    swift, maroon = (call("spotify_play", artist="Taylor Swift", duration=20),
                     call("spotify_play", artist="Maroon 5", duration=15))
    assert bfcl.score(play, [maroon, swift])[0] and bfcl.score(play, [swift, maroon])[0]
    ok, _, kind = bfcl.score(play, [swift])
    assert not ok and kind == "parallel_function_checker_no_order:wrong_count"
    for case_id in ("multiple_0", "parallel_multiple_0", "simple_python_0"):
        case = case_by_id(case_id)
        assert bfcl.score(case, oracle(case)) == (True, None, None), case_id


# --- end to end through reactlab's replay server and the openai SDK --------------------------

def test_run_scores_a_simple_and_an_irrelevance_case_end_to_end(bfcl_dir, tmp_path, capsys):
    simple = bfcl_data.sample(bfcl_data.load_cases("simple"), 1, seed=7)[0]
    (right,) = oracle(simple)
    blob = f'{{"name": "{right["name"]}", "arguments": {right["arguments"]}}}'
    reply = f"<tool_call>\n{blob}\n</tool_call>"
    # the server opens another call after the first (more calls, on by default): the model
    # writes the same call again there, which is how it says "nothing more"
    again = blob.removeprefix('{"name": "')
    engine = ReplayEngine([reply, again, "None of these tools can answer that."])
    out = tmp_path / "runs.jsonl"
    with serve_replay(engine) as url:
        new = bfcl.run(url, "qwen2.5-coder-1.5b-instruct", "unused", "replay", 1, 7, out,
                       ("simple", "irrelevance"), wait=5)
        assert [r["ok"] for r in new] == [True, True]
        assert new[0]["calls"] == [{"name": right["name"], "arguments": right["arguments"]}]
        assert new[1]["calls"] == [] and new[1]["content"].startswith("None of these")
        # the model saw BFCL's question and the converted tools
        assert simple["question"][0][0]["content"] in engine.calls[0]["prompt"]
        assert right["name"] in engine.calls[0]["prompt"]
        # resumable: nothing is sent again (the script is used up, a request would fail)
        assert bfcl.run(url, "m", "unused", "replay", 1, 7, out, ("simple", "irrelevance")) == []
    assert "2 already recorded, 0 to run" in capsys.readouterr().out
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["category"] for r in lines] == ["simple", "irrelevance"]
    assert all(r["label"] == "replay" and r["latency_s"] >= 0 for r in lines)


def test_the_request_is_bfcls_question_with_auto_tools_at_temperature_0(bfcl_dir):
    sent = []
    fn = types.SimpleNamespace(name="math_factorial", arguments='{"number": 5}')
    message = types.SimpleNamespace(content=None, tool_calls=[types.SimpleNamespace(function=fn)])
    reply = types.SimpleNamespace(choices=[types.SimpleNamespace(message=message,
                                                                 finish_reason="tool_calls")],
                                  usage=types.SimpleNamespace(prompt_tokens=90,
                                                              completion_tokens=12))

    def create(**kwargs):
        sent.append(kwargs)
        return reply

    client = types.SimpleNamespace(chat=types.SimpleNamespace(
        completions=types.SimpleNamespace(create=create)))
    case = case_by_id("simple_python_1")
    rec = bfcl.run_case(client, "m", case, max_tokens=300)
    (kw,) = sent
    assert kw["messages"] == case["question"][0] and kw["tools"] == bfcl.to_tools(case["function"])
    assert (kw["tool_choice"], kw["temperature"], kw["parallel_tool_calls"],
            kw["max_tokens"]) == ("auto", 0, True, 300)
    assert rec["ok"] and rec["tokens"] == [90, 12] and rec["finish_reason"] == "tool_calls"
    assert "extra_body" not in kw  # plain OpenAI unless a server option is asked for
    bfcl.run_case(client, "m", case, extra_body={"reactlab_choice": True})
    assert sent[1]["extra_body"] == {"reactlab_choice": True}


def test_a_request_error_is_recorded_and_run_again(bfcl_dir, tmp_path):
    out = tmp_path / "runs.jsonl"
    with serve_replay(ReplayEngine([RuntimeError("engine died")])) as url:
        (rec,) = bfcl.run(url, "qwen2.5-coder-1.5b-instruct", "unused", "x", 1, 0, out,
                          ("irrelevance",))
    assert not rec["ok"] and rec["request_error"].startswith("InternalServerError")
    assert bfcl.recorded(out, "x") == set()


# --- the report ------------------------------------------------------------------------------

def _rec(label, cat, i, ok, **extra):
    return {"label": label, "model": "m", "base_url": f"http://{label}", "category": cat,
            "id": f"{cat}_{i}", "ok": ok, "latency_s": 2.0,
            "error_type": None if ok or "request_error" in extra else "value_error:others",
            **extra}


def test_report_side_by_side_with_intervals_ratio_and_reference():
    recs = ([_rec("reactlab", "simple", i, i < 15) for i in range(20)]
            + [_rec("llamacpp", "simple", i, i < 10) for i in range(20)]
            + [_rec("reactlab", "irrelevance", 0, False, request_error="boom")]
            + [_rec("reactlab", "irrelevance", 0, True)])  # the rerun replaces the error
    text = bfcl_report.build(recs)
    row = next(x for x in text.splitlines() if x.startswith("| simple |"))
    assert row == "| simple | 75 % (15/20) [53–89] | 50 % (10/20) [30–70] | 1.50 |"
    assert "| reactlab | llamacpp | reactlab / llamacpp |" in text
    assert "| irrelevance | 100 % (1/1) [21–100] | — | — |" in text
    assert "non-live AST 79.1 %, live 64.8 %, irrelevance 62.7 %" in text
    assert "- llamacpp: value_error:others 10" in text
    flipped = bfcl_report.build(recs, ["llamacpp", "reactlab"])
    assert "| simple | 75 % (15/20) [53–89] | 50 % (10/20) [30–70] | 0.67 |" in flipped
    with pytest.raises(ValueError, match="only the labels reactlab, llamacpp"):
        bfcl_report.build(recs, ["reactlab", "openai"])


def test_report_says_on_which_days_each_label_ran():
    recs = ([_rec("a", "simple", i, True, at=f"2026-12-0{1 + i}T10:00:00") for i in range(3)]
            + [_rec("b", "simple", 0, True, at="2026-12-07T15:20:36"),
               _rec("c", "simple", 0, True)])
    text = bfcl_report.build(recs)
    assert "| run (UTC) |" in text and "compare times only between labels run together" in text
    rows = {x.split(" | ")[0]: x for x in text.splitlines() if x.startswith("| ")}
    assert "| 2026-12-01 – 2026-12-03 |" in rows["| a"]
    assert "| 2026-12-07 |" in rows["| b"]
    assert "| — |" in rows["| c"]


def test_report_states_the_sample_size_it_was_built_from():
    twelve = [_rec("a", cat, i, i % 2 == 0) for cat in ("simple", "irrelevance") for i in range(12)]
    assert "with 12 cases per category an interval spans about ±28 points" in (
        bfcl_report.build(twelve))
    uneven = twelve + [_rec("a", "parallel", i, True) for i in range(20)]
    assert "with 12–20 cases per category an interval spans ±22 points or more" in (
        bfcl_report.build(uneven))


def test_report_keeps_a_request_error_until_an_answer_exists():
    recs = [_rec("a", "simple", 0, True), _rec("a", "simple", 0, False, request_error="late")]
    assert bfcl_report.latest(recs)["a"]["simple_0"]["ok"] is True
    only = bfcl_report.build([_rec("a", "simple", 0, False, request_error="boom")])
    assert "request error 1" in only and "/" not in only.splitlines()[4]  # one label: no ratio


def test_report_helpers():
    assert bfcl_report.cell(0, 0) == "—"
    assert bfcl_report.ratio((3, 10), (0, 10)) == "—"
    assert bfcl_report.accuracy([{"ok": True}, {"ok": False}, {}]) == (1, 3)


def test_report_command_writes_the_file(tmp_path, capsys):
    runs, md = tmp_path / "runs.jsonl", tmp_path / "bfcl.md"
    with pytest.raises(SystemExit, match="No records"):
        bfcl.main(["--report", "--out", str(runs), "--report-file", str(md)])
    runs.write_text(json.dumps(_rec("reactlab", "parallel", 1, True)) + "\n")
    assert bfcl.main(["--report", "--out", str(runs), "--report-file", str(md)]) == 0
    assert "| parallel | 100 % (1/1)" in md.read_text()


# --- the llama.cpp launcher (a fake xllamacpp: the real one would load the model) ------------

def test_llamacpp_server_settings_and_url(monkeypatch, tmp_path, capsys):
    made = []

    class FakeServer:
        def __init__(self, p):
            made.append(p)

    def fake_params():
        ns = types.SimpleNamespace
        return ns(model=ns(), cpuparams=ns(), cpuparams_batch=ns())

    monkeypatch.setitem(sys.modules, "xllamacpp",
                        types.SimpleNamespace(CommonParams=fake_params, Server=FakeServer))
    gguf = tmp_path / "m.gguf"
    monkeypatch.setattr(llamacpp_server, "ensure_model", lambda name: gguf)
    url = llamacpp_server.serve("1.5b", port=18799, wait=lambda: None)
    assert url == "http://127.0.0.1:18799/v1" and url in capsys.readouterr().out
    (p,) = made
    assert p.model.path == str(gguf) and p.model_alias == {"qwen2.5-coder-1.5b-instruct"}
    assert (p.n_ctx, p.cpuparams.n_threads, p.cpuparams_batch.n_threads) == (8192, 2, 2)
    assert p.use_jinja is True and p.hostnames == ["127.0.0.1"] and p.port == 18799


def test_llamacpp_params_fit_the_real_xllamacpp(tmp_path):
    pytest.importorskip("xllamacpp", reason="the local extra is not installed")
    p = llamacpp_server.params(tmp_path / "m.gguf", 18766, "qwen2.5-coder-1.5b-instruct")
    assert p.use_jinja and p.hostnames == ["127.0.0.1"] and p.n_ctx == 8192


def test_bfcl_shapes_offers_the_constraints_it_names_and_reads_answers_as_no_call():
    from benchmarks import bfcl_shapes
    tool = {"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}}}
    got = bfcl_shapes.shapes([tool])
    assert got["none"] is None and len(got["object_or_array"]["anyOf"]) == 3
    assert got["array"]["anyOf"][1]["type"] == "array"
    assert bfcl_shapes.calls_in('{"answer": "no tool fits"}', ["f"], True) == []
    assert bfcl_shapes.calls_in('{"name": "f", "arguments": {"x": 1}}', ["f"], True) == [
        {"name": "f", "arguments": '{"x": 1}'}]
    assert bfcl_shapes.tags([{"name": "f", "arguments": '{"x": 1}'}]) == (
        '<tool_call>\n{"name": "f", "arguments": {"x": 1}}\n</tool_call>\n')


def test_debug_run_sends_recorded_cases_again_and_keeps_the_help(bfcl_dir, tmp_path, capsys):
    from benchmarks import bfcl_debug_run

    simple = bfcl_data.sample(bfcl_data.load_cases("simple"), 1, seed=7)[0]
    irrelevant = bfcl_data.sample(bfcl_data.load_cases("irrelevance"), 1, seed=7)[0]
    earlier = tmp_path / "earlier.jsonl"
    earlier.write_text("".join(json.dumps(r) + "\n" for r in [
        {"label": "before", "seed": 7, "category": "irrelevance", "id": irrelevant["id"]},
        {"label": "before", "seed": 7, "category": "simple", "id": simple["id"]},
        {"label": "other", "seed": 7, "category": "simple", "id": "simple_python_0"}]))
    assert bfcl_debug_run.pairs(f"{earlier}:before") == [
        (7, "simple", simple["id"]), (7, "irrelevance", irrelevant["id"])]  # calling first
    (right,) = oracle(simple)
    blob = f'{{"name": "{right["name"]}", "arguments": {right["arguments"]}}}'
    engine = ReplayEngine([f"<tool_call>\n{blob}\n</tool_call>", blob.removeprefix('{"name": "'),
                           "None of these tools can answer that."])
    out = tmp_path / "again.jsonl"
    with serve_replay(engine) as url:
        args = ["--label", "after", "--ids-from", f"{earlier}:before", "--out", str(out),
                "--base-url", url]
        assert bfcl_debug_run.main(args) == 0
        assert bfcl_debug_run.main(args) == 0  # resumable: nothing is sent again
    assert "0 cases to run" in capsys.readouterr().out
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(r["id"], r["ok"]) for r in lines] == [(simple["id"], True), (irrelevant["id"], True)]
    assert lines[0]["help"]["on"] is True  # the debug view: the help, and the opened call
    assert lines[0]["more"]["opened"][0]["why"] == "a call the reply already has: nothing more to call"


def test_report_says_how_the_cases_were_drawn():
    one = [_rec("a", "simple", i, True, seed=5) for i in range(2)]
    text = bfcl_report.build(one)
    assert "a fixed seeded sample per category (seed 5)" in text
    assert "The ratio divides" not in text  # one label: no ratio column
    pooled = one + [_rec("a", "simple", 7, True, seed=2), _rec("a", "simple", 8, True)]
    text = bfcl_report.build(pooled)
    assert "the seeded samples of seeds 0, 2, 5 pooled, a case that two samples drew counted once" in text
    two = one + [_rec("b", "simple", 0, False, seed=5)]
    assert "The ratio divides the two accuracies." in bfcl_report.build(two)
