"""Sample tools for the tests of reactlab.tools: schemas are built from them, registries hold them.

`lookup` has every kind of parameter a course tool uses (a required string, an int default, a
Literal, a bool, an Optional) and a docstring with a multi-line argument; `ping` has no
parameters and side effects. Test-only; no notebook introduces it (pytest puts tests/ on
sys.path, hence `from sample_tools import …`).
"""

from __future__ import annotations

from typing import Literal, Optional

from reactlab.tools import tool

COURSE = ["get_weather", "get_closing_price", "get_today", "days_between", "calculator",
          "search_docs"]


@tool
def lookup(city: str, days: int = 3, units: Literal["metric", "imperial"] = "metric",
           detailed: bool = False, note: Optional[str] = None) -> dict:  # noqa: UP045  (on purpose)
    """Look up a forecast.

    This second paragraph is for people and must not reach the model.

    Args:
        city: the city, e.g. 北京
        days (int): how many days,
            between 1 and 7
        units: unit system
        detailed: include hourly data
        note: free text

    Returns:
        a dict
    """
    return {"city": city, "days": days, "units": units, "detailed": detailed, "note": note}


@tool(name="ping", side_effects=True)
def ping() -> str:
    """Say pong."""
    return "pong"

