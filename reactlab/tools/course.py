"""The course's tool set: the six tools every notebook and benchmark starts from.

`default_registry()` is a fresh `ToolRegistry` with get_weather, get_closing_price, get_today,
days_between, calculator and search_docs, in that order (the order of the tool list in every
prompt). Fresh on each call, so a notebook that registers its own tool changes no other run.

Deliberately NOT here: the tools themselves (one module each: `weather`, `prices`, `dates`,
`calculator`, `docs`) or any way to pick tools per question. Introduced in notebook 04.
"""

from __future__ import annotations

from reactlab.tools.calculator import calculator
from reactlab.tools.dates import days_between, get_today
from reactlab.tools.docs import search_docs
from reactlab.tools.prices import get_closing_price
from reactlab.tools.registry import Tool, ToolRegistry
from reactlab.tools.weather import get_weather

COURSE_TOOLS: tuple[Tool, ...] = (get_weather, get_closing_price, get_today, days_between,
                                  calculator, search_docs)
COURSE_TOOL_NAMES = tuple(t.name for t in COURSE_TOOLS)


def default_registry() -> ToolRegistry:
    """A fresh registry with the course tools.

    Example: default_registry().names()[0] -> "get_weather"
    """
    return ToolRegistry(COURSE_TOOLS)
