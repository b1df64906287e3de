"""Find the JSON objects and lists written inside free text, in time linear in the text.

The tool-call parser (`toolcalls`) looks for bare JSON calls anywhere in a model's reply, so it
must try to decode a value at every `{` and `[`. Done naively that is quadratic twice over: a
failed `raw_decode` over the rest of the text may read to its end, and every JSONDecodeError
counts the lines before its position. So `json_values`

- skips braces that cannot start a value (`{` not followed by a key, `[` by a value);
- decodes a small window first, growing it eightfold only when the error could be the
  window's cut (see `_decode_at`);
- spends at most `SCAN_BUDGET` decoded characters per character of text, then stops: a
  simplification, on purpose. A reply that exhausts it (100k `{`, `[{[{…`) is garbage; a call
  inside it in a tag or a fence is still found by `toolcalls`.

This module knows nothing about tool calls; it does not decide what a value means.
Not shown in the notebooks; notebook 06 introduces the parser (`toolcalls`) it serves.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator

# Where a JSON object or list may start: `{` then a key (or `}`), `[` then a value (or `]`).
# Any other brace fails to decode at once, so skipping it changes nothing but the time.
_VALUE_START = re.compile(r'\{\s*["}]|\[\s*[\[\]{"\-\dtfnNI]')
_DECODER = json.JSONDecoder()
SCAN_BUDGET = 8    # characters decoded per character of text
WINDOW = 256       # characters first decoded at each brace (see _decode_at)


class Spans:
    """Disjoint (start, end) spans kept sorted, with overlap checks in O(log n).

    Example: s = Spans(); s.add(5, 9); s.free(0, 5) -> True; s.free(8, 12) -> False
    """

    def __init__(self):
        self.starts: list[int] = []
        self.ends: list[int] = []

    def free(self, start: int, end: int) -> bool:
        k = bisect.bisect_left(self.starts, end)  # spans starting before `end`
        return k == 0 or self.ends[k - 1] <= start

    def add(self, start: int, end: int) -> None:
        k = bisect.bisect_left(self.starts, start)
        self.starts.insert(k, start)
        self.ends.insert(k, end)

    def end_containing(self, i: int) -> int | None:
        k = bisect.bisect_right(self.starts, i)
        return self.ends[k - 1] if k and self.ends[k - 1] > i else None


def _decode_at(text: str, i: int) -> tuple[object, int | None, int]:
    """(value, end, cost) for the JSON value starting at text[i]; end None if there is none.

    Decodes a window that grows eightfold until the answer cannot depend on what lies beyond
    it: decoding the whole rest of the text at every brace would cost O(n) per brace, since a
    JSONDecodeError counts the lines before its position. `cost` is the characters read.
    Example: _decode_at('x {"a": 1} y', 2) -> ({"a": 1}, 10, 8)
    """
    size, cost = WINDOW, 0
    while True:
        window = text[i:i + size]
        last = i + size >= len(text)
        try:
            value, end = _DECODER.raw_decode(window)
            return value, i + end, cost + end
        except json.JSONDecodeError as exc:
            # Cut by the window: an error at its very end (a value, a number or an escape
            # left unfinished) or an unterminated string; any other error is the text's own.
            cut = exc.pos >= len(window) - 16 or exc.msg.startswith("Unterminated")
            if last or not cut:
                return None, None, cost + (len(window) if cut else exc.pos + 1)
        except RecursionError:  # the window alone nests too deeply: so does the text
            return None, None, cost + len(window)
        cost += len(window)
        size *= 8


def json_values(text: str, skip: Spans) -> Iterator[tuple[int, int, object]]:
    """(start, end, value) for each JSON object or list in `text` outside the `skip` spans.

    A decoded value's inner braces are not searched again. Bounded work (see the module).
    Example: list(json_values('a {"x": 1} b [2]', Spans())) -> [(2, 10, {"x": 1}), (13, 16, [2])]
    """
    pos, budget = 0, SCAN_BUDGET * len(text) + 1000
    while budget > 0 and (m := _VALUE_START.search(text, pos)):
        i = m.start()
        inside = skip.end_containing(i)
        if inside is not None:  # already claimed (a tag, a fence): its braces are not bare JSON
            pos = inside
            continue
        value, end, cost = _decode_at(text, i)
        budget -= cost
        if end is None:
            pos = i + 1
            continue
        yield i, end, value
        pos = end
