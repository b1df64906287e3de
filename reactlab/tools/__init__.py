"""Tools an agent can call: how a Python function becomes something a model can ask for.

Reading order:

1. `schema`     — the JSON schema of a function, from its type hints and docstring
2. `registry`   — `@tool`, `Tool`, `ToolRegistry` (describe, validate, run) and `ToolError`
3. `execute`    — run the calls of one model reply, concurrently when independent, in order
4. the course tools, one module each: `weather` (get_weather), `prices` (get_closing_price),
   `dates` (get_today, days_between), `calculator` (a safe calculator, never `eval`) and
   `docs` (search_docs, the long-document tool), with what they share in `bundled`
5. `course`     — `default_registry()`: the six course tools together

Everything a notebook needs is importable from here: `from reactlab.tools import
default_registry, tool, calculator`. Note that `reactlab.tools.calculator` is the calculator
*tool* (callable like the function); its module's constants are imported from it by name:
`from reactlab.tools.calculator import MAX_EXPRESSION_CHARS`.

Deliberately NOT here: tools that are not part of the course, and agents (`reactlab.react_agent`,
`reactlab.fc_agent`). First imported in notebook 02; explained in notebook 04 (tools are data
plus a function).
"""

from reactlab.tools.calculator import calculator
from reactlab.tools.course import COURSE_TOOL_NAMES, COURSE_TOOLS, default_registry
from reactlab.tools.dates import days_between, get_today
from reactlab.tools.docs import search_docs
from reactlab.tools.execute import CallOutcome, decode_arguments, execute_calls, run_one
from reactlab.tools.prices import get_closing_price
from reactlab.tools.registry import Tool, ToolError, ToolRegistry, tool
from reactlab.tools.weather import get_weather

__all__ = [
    "COURSE_TOOLS",
    "COURSE_TOOL_NAMES",
    "CallOutcome",
    "Tool",
    "ToolError",
    "ToolRegistry",
    "calculator",
    "days_between",
    "decode_arguments",
    "default_registry",
    "execute_calls",
    "get_closing_price",
    "get_today",
    "get_weather",
    "run_one",
    "search_docs",
    "tool",
]
