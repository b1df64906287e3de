"""The closing-price tool: 青岛啤酒 and 贵州茅台, by name or by code, from bundled figures.

`get_closing_price` looks a stock up in reactlab/data/closing_prices.json by its Chinese or
English name, an alias or its code (600519, 600519.SH, sh600519), and labels every answer as
an example figure, so nobody mistakes it for market data. It is the tool of the question
"青岛啤酒和贵州茅台的收盘价哪个贵？" (two calls, then a comparison).

Deliberately NOT here: live quotes, dates (there is one close per stock), several stocks per
call, currencies other than the file's one. First used in notebook 03.
"""

from __future__ import annotations

from reactlab.tools.bundled import MAX_INPUT_CHARS, json_data, key
from reactlab.tools.registry import tool


@tool(max_chars=MAX_INPUT_CHARS)
def get_closing_price(name: str) -> str:
    """Get the closing price of a Chinese stock by name, e.g. 青岛啤酒 or 贵州茅台.

    Args:
        name: the stock's name (or its code), e.g. 贵州茅台 / 600519

    Example: get_closing_price("青岛啤酒") -> "青岛啤酒 (600600.SH) closing price: 67.92 CNY
             [example figure from the course's source article, not live market data]"
    """
    data = json_data("closing_prices.json")
    wanted = key(str(name))
    for stock, info in data["stocks"].items():
        codes = [info["code"], f"{info['code']}.{info['exchange']}",
                 f"{info['exchange']}{info['code']}"]
        if wanted in {key(a) for a in [stock, info["en"], *info["aliases"], *codes]}:
            return (f"{stock} ({info['code']}.{info['exchange']}) closing price: {info['close']} "
                    f"{data['currency']} [example figure from the course's source article, "
                    "not live market data]")
    known = ", ".join(f"{s} ({i['code']})" for s, i in data["stocks"].items())
    raise ValueError(f"no closing price for {name!r:.80}. Known stocks: {known}. "
                     "Ask for one stock per call.")
