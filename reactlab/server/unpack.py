"""A call that packs several values into one argument, split into one call per value.

Asked for several things of one function, the 1.5B sometimes writes a single call with lists
where its schema takes one value: BFCL's parallel_33 ("Who were the president and the vice
president in 1980 and 2016, and in 1975 and 2011?") gets
`get_president_and_vp(year=[1980, 2016, 1975, 2011], position=["president", …])`, though
`year` is an integer. The tool would be run with a list it cannot take, and the client, who
allowed parallel calls, gets one call for four. So where the server gives more calls
(`more_calls`: part of its help, under `tool_choice` "auto" with `parallel_tool_calls` true;
off with `"reactlab_more_calls": false`), `chat.Turn` splits such a call: every argument whose
schema does not allow an array but whose value is a list (two or more items, all the lists of
one length) gives its i-th item to the i-th call; the other arguments are copied into each.

What this module does NOT do: split text ("北京, 广州" is one string, which a tool may take),
guess a type the schema does not state, or split lists of unequal length (which item goes with which is then unknown). The
debug view lists each split call under `help.unpacked`. Introduced in notebook 09 (the
server's help); the piece is pure, `chat.Turn` runs it.
"""

from __future__ import annotations

import json
from typing import Any

MAX_ITEMS = 8  # a packed list longer than this is left alone (the server's cap on calls)


def _types(schema: Any) -> set[str] | None:
    """The JSON types a property's schema names, or None when it names none."""
    if not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list) and all(isinstance(k, str) for k in kind) and kind:
        return set(kind)
    return None


def unpacked(arguments: str, properties: dict, limit: int = MAX_ITEMS) -> list[str] | None:
    """The arguments (JSON texts) of the calls a packed call stands for, or None if it is not one.

    Example: unpacked('{"year": [1980, 2016], "full": true}', {"year": {"type": "integer"}})
             -> ['{"year": 1980, "full": true}', '{"year": 2016, "full": true}']
    """
    try:
        args = json.loads(arguments) if arguments.strip() else {}
    except (ValueError, RecursionError):
        return None
    if not isinstance(args, dict) or not isinstance(properties, dict):
        return None
    packed = [k for k, v in args.items() if isinstance(v, list)
              and (kinds := _types(properties.get(k))) is not None and "array" not in kinds]
    sizes = {len(args[k]) for k in packed}
    if not packed or len(sizes) != 1 or not 2 <= (n := sizes.pop()) <= limit:
        return None
    return [json.dumps({k: (v[i] if k in packed else v) for k, v in args.items()},
                       ensure_ascii=False) for i in range(n)]


__all__ = ["MAX_ITEMS", "unpacked"]
