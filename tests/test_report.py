"""Unit tests for reactlab.report: step lines, tables, the context-growth chart."""

from __future__ import annotations

import matplotlib
import pytest
from sample_runs import sample_run

from reactlab.report import (
    compare_table,
    format_step,
    markdown_table,
    plot_context_growth,
    step_rows,
    summary_table,
)
from reactlab.runlog import RunResult, Step


@pytest.fixture
def plt():
    """pyplot on the Agg backend: no display in tests."""
    matplotlib.use("Agg")
    from matplotlib import pyplot

    yield pyplot
    pyplot.close("all")


def test_step_rows_count_shown_and_full_observation():
    rows = step_rows(sample_run())
    assert [r["step"] for r in rows] == [1, 2, 3]
    assert rows[0]["obs_full"] == 50_000 and rows[0]["obs_shown"] < 2100
    assert rows[1]["obs_shown"] == rows[1]["obs_full"] == len("北京: 晴 | 3°C")
    assert rows[2]["tool_calls"] == "" and rows[0]["latency_ms"] == 812


def test_summary_table_one_row_per_step_plus_total():
    table = summary_table(sample_run())
    assert "**Status:** final (the model gave a final answer)" in table
    rows = [ln for ln in table.splitlines() if ln.startswith("| ")]
    assert rows[0].startswith("| step | kind | tool calls | obs shown/full | ms | prompt")
    assert len(rows) == 1 + 3 + 1
    assert "search_docs({'query': '长文'})" in rows[1] and "/50000" in rows[1]
    assert "compacted: 50000 chars" in rows[1] and "repeated 3 times" in rows[2]
    assert "北京: 晴 \\| 3°C" not in table  # observations are not in the table, only lengths
    assert rows[-1].startswith("| **total** |") and "2 calls" in rows[-1] and "2 events" in rows[-1]
    assert "| 1512 | 2100 | 47 | 280 |" in rows[-1]  # ms, prompt, completion, cached summed


def test_summary_table_shows_errors_and_missing_answers():
    run = RunResult("q", None, "error", error="The model provider failed at step 1 (HTTP 500).")
    table = summary_table(run)
    assert "**Answer:** (none)" in table and "HTTP 500" in table
    assert table.splitlines()[-1].startswith("| **total** |")


def test_compare_table_side_by_side():
    table = compare_table({"guards on": sample_run(), "guards off": sample_run(growth=9000)})
    lines = table.splitlines()
    assert len(lines) == 4
    assert lines[2].startswith("| guards on | function_calling | final | 3 | 2 |")
    assert "| 18300 |" in lines[3]  # peak prompt of the run without guards


def test_markdown_table_escapes_pipes_and_newlines():
    assert markdown_table(["a"], [["x | y\nz"]]).splitlines()[-1] == "| x \\| y z |"


def test_format_step_shows_compaction_and_events():
    text = format_step(sample_run().steps[0])
    assert text.startswith("[1] action       Thought: 先查文档")
    assert "(shown 2,029 of 50,000 chars)" in text
    assert "guard: compacted: 50000 chars" in text
    assert "(812 ms, 300+20 tok, 0 cached)" in text
    final = format_step(sample_run().steps[2])
    assert "北京晴，3°C。" in final


def test_format_step_says_rejected_for_an_answer_the_grader_caught():
    # 04's real run_react step: the grader caught 广州 given 北京's figures
    step = Step(3, "ungrounded", text="Thought: I now know the final answer",
                error="广州 is given 北京's figures (23.4, 23.1): no tool result for 广州 came back")
    assert "rejected: 广州 is given 北京's figures" in format_step(step)
    assert "parse error: x" in format_step(Step(2, "parse_error", error="x"))


def test_plot_context_growth_draws_one_line_per_run(plt):
    _, ax = plt.subplots()
    out = plot_context_growth({"guards on": sample_run(), "guards off": sample_run(growth=9000)},
                              ax=ax)
    assert out is ax
    lines = ax.get_lines()
    assert [list(line.get_ydata()) for line in lines] == [[300, 700, 1100], [300, 9300, 18300]]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["guards on (final)", "guard event", "guards off (final)"]
    assert ax.get_ylabel() == "prompt tokens"


def test_plot_context_growth_accepts_a_single_run_without_an_axes(plt):
    ax = plot_context_growth(sample_run("react"))
    assert ax.get_legend().get_texts()[0].get_text() == "react (final)"
