"""Checks for the notebooks' exercises: one module per notebook (`nb01` … `nb09`).

Every exercise in a notebook ends with a check cell, `check_N(...)` from that notebook's module.
A check verifies the result, never the wording, and answers in one line:

- `✔ exercise N: …` when the result is right;
- `… exercise N: not attempted yet — …` when it is given `None` (the notebook's starting
  value), so a notebook run top to bottom, as CI does, passes before anyone has tried;
- an `ExerciseNotDone` (an AssertionError) whose message says what is still wrong otherwise.

The solutions notebooks run the same checks on their answers, and `make test` executes them.
Deliberately NOT here: the answers themselves (they are in `notebooks/solutions/`), grading
prose, or anything that needs the model (a check reads what a learner's code returned).
Notebook 01 introduces the first check.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ExerciseNotDone", "passed", "pending", "require"]


class ExerciseNotDone(AssertionError):
    """The exercise's result is not right yet; the message says what to change."""


def pending(number: int, what: str) -> None:
    """Say an exercise has not been tried. Example: pending(2, "set `reply` to ...")."""
    print(f"… exercise {number}: not attempted yet — {what}")


def passed(number: int, why: str) -> bool:
    """Say an exercise is done. Example: passed(1, "the stop word cut the reply") -> True."""
    print(f"✔ exercise {number}: {why}")
    return True


def require(number: int, condition: Any, message: str) -> None:
    """Raise ExerciseNotDone(message) unless `condition` holds.

    Example: require(3, "1530" in answer, "the answer should state 1530 元 (306 days × 5 元)")
    """
    if not condition:
        raise ExerciseNotDone(f"exercise {number}: {message}")
