"""Stop a reply that has started writing its calls round and round.

The 1.5B sometimes writes its calls and then the same calls again, round and round, until
`max_tokens` (seen: `days_between` and one `calculator` call repeated for 512 tokens, about 40
seconds of generation on two CPU cores). The parser keeps a repeated call once
(`toolcalls._unique`): once the model goes round, the rest of the reply is generated only to be
thrown away. `RepeatStop` watches the text as it is generated and stops the engine as soon as
the text holds `REPEATS` (2) complete calls identical (same name, same arguments as JSON) to
ones written earlier in the same reply. One repeat is let through: a model that writes 北京 twice
and then 广州 still gets its 广州 call. The reply then ends there, as if the model had stopped: the
distinct calls before the cut are the reply's calls, its `finish_reason` is `tool_calls`, and
the server's help (`assist`) judges it like any reply that ended by itself.

What it does not do: it never stops a reply over a call the *conversation* already has a
result for (that is `assist`'s repeat rule, after the reply), nor over a call that differs in
any argument, nor in the text protocol (no `tools` shown: the agent's stop word `Observation:`
already ends a ReAct step). It watches only a reply the model writes freely (not one
constrained by a JSON schema). It is not part of the server's help (`assist`): with
`"reactlab_help": false`, as the course's agents ask, a looping reply is still cut, because
the client gets the same calls either way, only sooner (and without a `length` finish it never
reached). `chat.Turn` uses it; `debug()` says whether it stopped the reply (`repeat_stop`).
Notebook 06 (under the hood) shows the debug view.
"""

from __future__ import annotations

from reactlab.server.toolcalls import parse_tool_calls

REPEATS = 2  # repeated calls in one reply before it is stopped


class RepeatStop:
    """Wraps an engine's `on_text` callback. Example:

        watch = RepeatStop({"get_weather"})
        engine.generate(prompt, …, on_text=watch.wrap(on_text))
        watch.stopped  # True when the engine was stopped at the second repeated call
    """

    def __init__(self, tool_names=None):
        self.names = set(tool_names) if tool_names else None
        self.text = ""
        self.stopped = False

    def feed(self, piece: str) -> bool:
        """Add a generated piece; True once the text so far holds `REPEATS` repeated calls.

        Only a piece that can close a call (`}`, `>` or a backtick) triggers a parse, so the
        cost is a few parses of at most `max_tokens` tokens of text per reply.
        """
        self.text += piece
        if self.stopped or not any(ch in piece for ch in "}>`"):
            return self.stopped
        if parse_tool_calls(self.text, self.names).duplicates_dropped >= REPEATS:
            self.stopped = True
        return self.stopped

    def wrap(self, on_text):
        """`on_text` that also stops at a repeat. The piece is passed on first (the engine has
        already counted it in its text), then checked; `on_text` returning True (a streaming
        client went away) still cancels as before."""

        def watched(piece: str) -> bool:
            gone = on_text(piece) if on_text is not None else False
            return bool(gone) or self.feed(piece)

        return watched
