"""What the course tools share: their bundled data files, one way to match names, one bound.

`data(name)` reads a file of `reactlab/data` (the weather snapshot, the closing prices and
the long documents), `key(text)` is the lookup key that lets " Beijing City ", "beijing" and
"北京市" find the same entry, and `MAX_INPUT_CHARS` is the longest text argument a course tool
accepts through the registry (2,000 characters: a city, a stock, a date or a few keywords are
far shorter, and a 100,000-character query must not keep the agent busy).

Deliberately NOT here: the tools themselves (`weather`, `prices`, `dates`, `docs`, and the
`calculator`) or any fuzzy matching beyond case, width, spaces and a few suffixes.
The course tools appear in notebook 02 (get_weather) and are listed together in notebook 04.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import cache
from importlib import resources

MAX_INPUT_CHARS = 2_000


@cache
def data(name: str) -> str:
    """The text of one bundled file. Example: data("closing_prices.json") -> '{"currency": …'."""
    return resources.files("reactlab.data").joinpath(name).read_text(encoding="utf-8")


@cache
def json_data(name: str) -> dict:
    """One bundled JSON file, decoded once. Example: json_data("weather_snapshot.json")["cities"]"""
    return json.loads(data(name))


def key(text: str) -> str:
    """Lookup key for a name. Example: " Xi'an City " -> "xian"."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"[\s'’`·\-_.,，]+", "", text)
    return re.sub(r"(市|city|shi|china|中国)+$", "", text) or text
