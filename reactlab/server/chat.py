"""One chat completion, end to end: template in, engine, parser out, OpenAI JSON or SSE.

    messages + tools --(chat template)--> prompt --(engine)--> raw text
        --(toolcalls parser)--> content + tool_calls --> chat.completion / chunks

`Turn` holds one request's plan (the rendered prompt, the stop strings, the json_schema for a
forced call) and builds the response from the engine's `Generation`. With `tools` present
and `tool_choice` not `none`, the prompt lists the tools and the reply is parsed for calls;
`tool_choice="none"` renders the prompt *without* tools (a model cannot call what it does not
see). `<tool_response>` is an extra stop string when tools are shown: the model sometimes
starts writing the tool's answer itself, and that text is never a real result. Whatever else
the model writes after its first call is dropped by the parser (`toolcalls`), in both the
non-stream and the streamed reply; `debug()` shows it as `dropped_text`. At most
`max_tool_calls` calls (`limits`, default 8) reach the client, one when `parallel_tool_calls`
is false; `debug()` lists the others as `calls_dropped`. A reply that has written calls again twice is
stopped right there (`repeat_stop`), help or not: the rest would only be thrown away.

After tool results, `Turn` also helps a small model (`assist`): a call the conversation
already has a result for is not returned again (the model writes once more, constrained to an
answer or a different call, then if need be without tools), and an empty reply or a plan that
names a tool instead of using its result is retried once without tools. At any turn, a call
whose required argument holds a number or a name the conversation never wrote (`invented`) is
not returned, and when no call is left the model is asked once more without tools. Where
parallel calls are allowed, the next `<tool_call>` is opened after the model's calls
(`more_calls`: part of the help unless the request or the server says otherwise), and a call
that packs several values into a one-value argument is split into a call per value (`unpack`). With the help
on, a reply right after tool results streams in one piece at the end (held back whole, so a
retry never has to take back text already sent).

`Turn.debug()` is the teaching view: the exact prompt, the raw text, what the parser made of
it, and under `help` every intervention with what the model first wrote (see
"reactlab_debug" in `reactlab.server.app`). This module does not do HTTP or queueing.
Introduced in notebook 06 (under the hood).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time

from reactlab.server import assist, invented, more_calls, parameters, unpack
from reactlab.server.constrain import choice_schema, tool_call_schema
from reactlab.server.engines import Generation
from reactlab.server.holdback import HoldBack
from reactlab.server.limits import Limits
from reactlab.server.repeat_stop import RepeatStop
from reactlab.server.toolcalls import (
    ParsedCall,
    ParsedReply,
    clean_content,
    new_call_id,
    parse_tool_calls,
)
from reactlab.server.validate import ChatRequest

TOOL_RESPONSE = "<tool_response>"
ARG_FRAGMENT = 16  # characters per streamed arguments fragment


def to_json(obj, separators: tuple[str, str] | None = None) -> str:
    """JSON text with Chinese kept as Chinese, and always encodable as UTF-8.

    A lone surrogate (never valid UTF-8) is escaped as JSON allows, instead of failing while
    the response is written. Example: to_json({"城市": "北京"}) -> '{"城市": "北京"}'
    """
    text = json.dumps(obj, ensure_ascii=False, separators=separators)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(obj, separators=separators)  # \uXXXX escapes outside ASCII
    return text


def _calls(calls) -> str:
    """Example: [ParsedCall("get_weather", '{"location": "广州"}', "tag")] -> 'get_weather({…})'"""
    return ", ".join(f"{c.name}({c.arguments})" for c in calls)


class Retry(str):
    """Sent through `on_text` when the server starts a new attempt: the stream starts over."""


def sse(obj) -> str:
    """Example: sse({"a": 1}) -> 'data: {"a": 1}\\n\\n'"""
    return f"data: {to_json(obj)}\n\n"


class Turn:
    """The plan and the reply of one /v1/chat/completions request."""

    def __init__(self, req: ChatRequest, engine, max_tool_calls: int = Limits.max_tool_calls,
                 help: bool = True, more: bool = True):
        self.req = req
        self.max_tool_calls = max_tool_calls
        self.engine = engine
        self.id = "chatcmpl-" + secrets.token_hex(12)
        self.created = int(time.time())
        self.use_tools = bool(req.tools) and req.tool_choice != "none"
        self.prompt = engine.template.render(req.messages, req.tools if self.use_tools else None)
        self.mode = "normal"             # "choice", or "answer_or_call" / "plain" on a retry
        if req.tool_choice in ("required", "named"):
            self.schema = tool_call_schema(req.tools, req.tool_name, req.parallel_tool_calls)
        elif req.choice and self.use_tools:  # auto, constrained to an answer or valid calls
            self.schema = choice_schema(req.tools, req.parallel_tool_calls, max_tool_calls)
            self.mode = "choice"
        else:
            self.schema = req.response_schema
        self.stop = [*req.stop, TOOL_RESPONSE] if self.use_tools else list(req.stop)
        self.raw_text = ""
        self.parsed: ParsedReply | None = None
        self.tool_calls: list[dict] = []
        self.calls_dropped: list = []    # parsed calls not sent: over the cap, or not parallel
        self.content: str | None = None  # all content sent to the client
        self.generation: Generation | None = None
        # Help only where the model chose freely between calling and answering (see `assist`).
        self.help = help and req.help and self.use_tools and req.tool_choice == "auto"
        self.answered = assist.answered_calls(req.messages) if self.help else {}
        self.note: dict | None = None    # the system note added for the retry
        self.repeats_dropped: list = []  # repeated calls not sent (help on)
        self.made_up_dropped: list = []  # calls with a number nobody wrote, not sent (help on)
        self.unpacked: list[dict] = []   # calls split into one per packed value (`unpack`)
        self._written: set[float] | None = None  # the conversation's numbers (`invented`)
        self._text: invented.Written | None = None  # and its text
        self.interventions: list[dict] = []
        # More calls after a complete one (`more_calls`): part of the help (unless the server
        # was started without them, `more`=False) where the request says nothing of them
        # ("reactlab_more_calls"), and only where it allows parallel calls.
        asked = (self.help and more) if req.more_calls is None else req.more_calls
        self.more = (asked and self.use_tools and req.parallel_tool_calls
                     and req.tool_choice == "auto" and self.mode == "normal")
        self.opened: list[dict] = []     # each <tool_call> opened for the model, and its fate
        self.attempts: list[dict] = []
        self.repeat_stops = 0            # attempts ended at a repeated call (`repeat_stop`)
        self._usage_so_far = [0, 0]      # prompt, completion tokens over all attempts

    def _attempt(self, on_text) -> Generation:
        r = self.req
        # A reply the model writes freely with tools shown ends at its second repeated call.
        watch = RepeatStop(r.tool_names) if self.use_tools and self.schema is None else None
        g = self.engine.generate(self.prompt, max_tokens=r.max_tokens,
                                 temperature=r.temperature, top_p=r.top_p, seed=r.seed,
                                 stop=self.stop, json_schema=self.schema,
                                 cache_prompt=r.cache_prompt,
                                 on_text=watch.wrap(on_text) if watch else on_text)
        if watch and watch.stopped and g.finish_reason == "cancelled":
            g.finish_reason = "stop"  # ended at the repeats, as if the model had stopped there
            self.repeat_stops += 1
        self.attempts.append({"mode": self.mode, "raw_text": g.text, "json_schema": self.schema,
                              "tools_shown": self.use_tools, "note": self.note,
                              "finish_reason": g.finish_reason,
                              "repeat_stop": bool(watch and watch.stopped)})
        self._usage_so_far[0] += g.prompt_tokens
        self._usage_so_far[1] += g.completion_tokens
        return g

    def _retry(self, mode: str, keys: list, on_text, note: dict | None = None) -> None:
        """Set up the next attempt: the note (`note`, or one naming the calls `keys`,
        `assist.call_key`s, and their results), the prompt, the constraint; restart the stream."""
        self.mode, self.use_tools = mode, mode == "answer_or_call"
        self.note = note or assist.note(keys, self.answered, constrained=self.use_tools)
        messages = [*self.req.messages, self.note]
        self.prompt = self.engine.template.render(messages, self.req.tools if self.use_tools
                                                  else None)
        self.schema = assist.answer_or_call_schema(self.req.tools) if self.use_tools else None
        self.stop = [*self.req.stop, TOOL_RESPONSE] if self.use_tools else list(self.req.stop)
        on_text(Retry())

    def _intervene(self, rule: str, wrote: str, why: str, action: str) -> None:
        self.interventions.append({"rule": rule, "model_wrote": wrote, "why": why,
                                   "action": action})

    def generate(self, on_text) -> Generation:
        """Run the engine, and retry as `assist` says (blocking: runs in the worker thread).

        Usage counts the tokens of every attempt.
        """
        first = g = self._attempt(on_text)
        if self.help and g.finish_reason == "stop":
            parsed, repeats = self._split(g.text)
            made_up = self._made_up([c for c in parsed.calls if c not in repeats])
            if parsed.calls and len(repeats) == len(parsed.calls):
                self._intervene("repeat_call", g.text, f"the conversation already has a result "
                                f"for {_calls(repeats)}", "asked again, constrained to "
                                '{"answer": …} or a call, with a note of the known result')
                keys = [assist.call_key(c.name, c.arguments) for c in repeats]
                self._retry("answer_or_call", keys, on_text)
                g = self._attempt(on_text)
                again, still = self._split(g.text)
                empty = not again.calls and not again.content
                if g.finish_reason == "stop" and (empty or len(still) == len(again.calls) > 0):
                    self._intervene("repeat_call", g.text, "the constrained retry was "
                                    + ("empty" if empty else "the same call again"),
                                    "asked a last time without tools (as tool_choice none)")
                    self._retry("plain", keys, on_text)
                    g = self._attempt(on_text)
            elif made_up and len(repeats) + len(made_up) == len(parsed.calls):
                values = "; ".join(f"{c.name}: " + ", ".join(f"{a} = {v}" for a, v in vals)
                                   for c, vals in made_up)
                self._intervene("made_up_value", g.text, "every call has a required value "
                                f"written nowhere in the conversation ({values})",
                                "asked again without tools (as tool_choice none), with a note "
                                "of the calls not made")
                self._retry("plain", [], on_text, note=invented.note(
                    [(c.name, c.arguments, vals) for c, vals in made_up]))
                g = self._attempt(on_text)
            elif (not parsed.calls and not parsed.content
                  and assist.after_tool_results(self.req.messages)):
                self._intervene("empty_reply", g.text, "no content and no call right after "
                                "tool results", "asked again without tools (as tool_choice none)")
                self._retry("plain", [], on_text)
                g = self._attempt(on_text)
            elif (not parsed.calls and assist.after_tool_results(self.req.messages)
                  and assist.narrates(parsed.content, self.req.tools, list(self.answered.values()))):
                self._intervene("narrated_call", g.text, "a plan that names a tool, no call and "
                                "none of the results' figures, right after tool results",
                                "asked again without tools (as tool_choice none), with a note "
                                "of the known results")
                self._retry("plain", list(self.answered), on_text)
                g = self._attempt(on_text)
        if self.more and self.mode == "normal" and g.finish_reason == "stop":
            g = self._more_calls(g, on_text)
        if g is first:
            return g
        # One reply for the client, usage summed over the attempts (each was generated).
        used = self._usage_so_far
        return Generation(g.text, g.finish_reason, prompt_tokens=used[0],
                          completion_tokens=used[1], cached_tokens=g.cached_tokens,
                          timings=g.timings)

    def _more_calls(self, g: Generation, on_text) -> Generation:
        """The reply with the calls the model writes when the next `<tool_call>` is opened for
        it, each kept only as `more_calls` says; `g` itself when it made no call or none was kept.
        """
        r, names = self.req, self.req.tool_names
        first = parse_tool_calls(g.text, names).calls
        if not first:
            return g
        keys = {assist.call_key(c.name, c.arguments) for c in first}
        made, text = [(c.name, c.arguments) for c in first], g.text.rstrip()
        question = more_calls.question_text(r.messages)
        while len(keys) < self.max_tool_calls:
            c = self.engine.generate(self.prompt + text + "\n" + more_calls.OPEN
                                     + more_calls.PREFILL,
                                     max_tokens=min(r.max_tokens, more_calls.MAX_TOKENS),
                                     temperature=r.temperature, top_p=r.top_p, seed=r.seed,
                                     stop=[more_calls.CLOSE, TOOL_RESPONSE],
                                     cache_prompt=r.cache_prompt)
            self._usage_so_far[0] += c.prompt_tokens
            self._usage_so_far[1] += c.completion_tokens
            body = more_calls.PREFILL + c.text
            found = parse_tool_calls(more_calls.wrap(body), names).calls
            if c.finish_reason != "stop":  # cut off: its last call may be cut too
                found = found[:-1]
            opened = {"model_wrote": body, "finish_reason": c.finish_reason, "kept": 0}
            self.opened.append(opened)
            if not found:
                opened["why"] = "no complete call"
                break
            # The model may write the rest of its calls in one opened tag (a call, then more
            # fenced ones): each is kept in order, up to the first that is not.
            for call in found:
                if len(keys) >= self.max_tool_calls:
                    opened["why"] = "the request's cap on calls"
                    break
                if assist.call_key(call.name, call.arguments) in keys:
                    opened["why"] = "a call the reply already has: nothing more to call"
                    break
                # A function the reply has not called yet is judged by its required values
                # (BFCL's parallel_multiple: an optional "lang": "English" no question names);
                # one it has called, whole, or as the next cell of a table the question asks
                # for (parallel_multiple_61: the angle of the second pair of points).
                required = parameters.required_names(r.tools, call.name)
                earlier = [a for _, a in made]
                called = {n for n, _ in made}
                judged = None if call.name in called else required or None
                asked = judged is not None and more_calls.asked_for(call.name, called, question)
                if not (more_calls.grounded(call.arguments, earlier, question, judged, asked)
                        or (judged is None and more_calls.paired(
                            call.arguments, earlier, [a for n, a in made if n != call.name],
                            required, question))):
                    opened["why"] = "a value in it is neither in an earlier call nor in the question"
                    break
                piece = more_calls.wrap(more_calls.call_text(call.name, call.arguments))
                opened["kept"] += 1
                text += piece
                on_text(piece)
                keys.add(assist.call_key(call.name, call.arguments))
                made.append((call.name, call.arguments))
            else:
                opened["why"] = ("every call in it is new and its new values are in the "
                                 "question" + ("" if c.finish_reason == "stop" else
                                               "; cut off at the token cap"))
                if c.finish_reason == "stop":
                    continue
            break
        if text == g.text.rstrip():
            return g
        return Generation(text, "stop", prompt_tokens=g.prompt_tokens,
                          completion_tokens=g.completion_tokens, cached_tokens=g.cached_tokens,
                          timings=g.timings)

    def _made_up(self, calls) -> list:
        """(call, [(argument, value), …]) for each of `calls` whose required arguments hold
        a number or a name the conversation never wrote (`invented`); [] with the help off."""
        if not (self.help and calls):
            return []
        if self._written is None:
            self._written = invented.written_numbers(self.req.messages)
            self._text = invented.written_text(self.req.messages)
        out = []
        for c in calls:
            vals = invented.made_up(c.arguments, invented.required_of(self.req.tools, c.name),
                                    self._written)
            vals += invented.made_up_names(c.arguments,
                                           invented.text_required_of(self.req.tools, c.name),
                                           self._text, self._written)
            if vals:
                out.append((c, vals))
        return out

    def _unpack(self, calls: list) -> list:
        """`calls` with each one that packs several values into a one-value argument split
        into a call per value (`unpack`), without repeats; the split ones go to the debug view."""
        out, keys = [], set()
        for c in calls:
            parts = unpack.unpacked(c.arguments, parameters.properties_of(self.req.tools, c.name),
                                    self.max_tool_calls)
            if parts:
                self.unpacked.append({"name": c.name, "arguments": c.arguments})
            for piece in [ParsedCall(c.name, a, c.source) for a in parts] if parts else [c]:
                key = assist.call_key(piece.name, piece.arguments)
                if key not in keys:
                    keys.add(key)
                    out.append(piece)
        return out

    def _split(self, text: str):
        """(ParsedReply, the calls in it that repeat an answered call) for this attempt."""
        if not self.use_tools:
            return ParsedReply(text if self.mode == "normal" else clean_content(text), []), []
        answer = assist.read_answer(text) if self.mode in ("answer_or_call", "choice") else None
        if answer is not None:
            return ParsedReply(clean_content(answer), []), []
        parsed = parse_tool_calls(text, self.req.tool_names)
        repeats = [c for c in parsed.calls if assist.call_key(c.name, c.arguments) in self.answered]
        return parsed, repeats

    def interpret(self, text: str) -> ParsedReply:
        """Split raw text into content + calls, keep at most the allowed number, give ids.

        CPU-bound (linear in the text): the server calls it in a worker thread.
        """
        parsed, repeats = self._split(text)
        if repeats:  # help on: a call already answered is not sent again
            parsed.calls = [c for c in parsed.calls if c not in repeats]
            self.repeats_dropped = repeats
        if self.mode in ("normal", "choice"):  # help on: nor one with a made-up number
            made_up = [c for c, _ in self._made_up(parsed.calls)]
            if made_up and len(made_up) < len(parsed.calls):  # all of them: generate() retried
                parsed.calls = [c for c in parsed.calls if c not in made_up]
                self.made_up_dropped = made_up
        if self.more and parsed.calls:  # more calls on: a packed call is several calls
            parsed.calls = self._unpack(parsed.calls)
        if parsed.calls:
            keep = self.max_tool_calls if self.req.parallel_tool_calls else 1
            parsed.calls, self.calls_dropped = parsed.calls[:keep], parsed.calls[keep:]
        self.parsed = parsed
        self.tool_calls = [{"id": new_call_id(), "type": "function",
                            "function": {"name": c.name, "arguments": c.arguments}}
                           for c in parsed.calls]
        return parsed

    def finish_reason(self) -> str:
        # As OpenAI does: running out of max_tokens wins, even when complete calls were parsed
        # before the cut (the client should know the reply may be missing a call).
        if self.generation and self.generation.finish_reason == "length":
            return "length"
        return "tool_calls" if self.tool_calls else "stop"

    def usage(self) -> dict:
        g = self.generation
        return {"prompt_tokens": g.prompt_tokens, "completion_tokens": g.completion_tokens,
                "total_tokens": g.prompt_tokens + g.completion_tokens,
                "prompt_tokens_details": {"cached_tokens": g.cached_tokens}}

    def debug(self) -> dict:
        """What the model saw and said, and what the parser made of it."""
        g = self.generation
        return {"id": self.id, "model": self.engine.model, "engine": self.engine.kind,
                "template": self.engine.template.origin, "prompt": self.prompt,
                "raw_text": self.raw_text, "json_schema": self.schema,
                "stop": self.stop, "tools_shown": self.use_tools,
                "parsed_tool_calls": [{**tc, "source": c.source} for tc, c in
                                      zip(self.tool_calls, self.parsed.calls if self.parsed else [])],
                "content": self.content,
                "dropped_text": self.parsed.dropped_text if self.parsed else None,
                "duplicate_calls_dropped": self.parsed.duplicates_dropped if self.parsed else 0,
                "calls_dropped": [{"name": c.name, "arguments": c.arguments, "source": c.source}
                                  for c in self.calls_dropped],
                "max_tool_calls": self.max_tool_calls,
                "help": {"on": self.help, "interventions": self.interventions,
                         "repeated_calls_dropped": [{"name": c.name, "arguments": c.arguments}
                                                    for c in self.repeats_dropped],
                         "made_up_calls_dropped": [{"name": c.name, "arguments": c.arguments}
                                                   for c in self.made_up_dropped],
                         "unpacked": self.unpacked,
                         "attempts": self.attempts if self.interventions else []},
                "more_calls": {"on": self.more, "opened": self.opened},
                "repeat_stop": self.repeat_stops > 0,
                "finish_reason": self.finish_reason(), "engine_finish_reason": g.finish_reason if g
                else None, "usage": self.usage() if g else None, "timings": g.timings if g else {}}

    def _head(self, obj: str) -> dict:
        return {"id": self.id, "object": obj, "created": self.created, "model": self.engine.model,
                "system_fingerprint": f"reactlab-{self.engine.kind}"}

    def completion(self, generation: Generation) -> dict:
        """The non-stream `chat.completion` object."""
        self.generation = generation
        self.raw_text = generation.text
        parsed = self.interpret(generation.text)
        message = {"role": "assistant", "content": parsed.content}
        if self.tool_calls:
            message["tool_calls"] = self.tool_calls
        elif message["content"] is None:
            message["content"] = ""
        self.content = message["content"]
        out = {**self._head("chat.completion"),
               "choices": [{"index": 0, "message": message, "logprobs": None,
                            "finish_reason": self.finish_reason()}],
               "usage": self.usage()}
        if self.req.debug:
            out["reactlab"] = self.debug()
        return out

    def _chunk(self, delta: dict, finish_reason: str | None = None, **extra) -> str:
        out = {**self._head("chat.completion.chunk"),
               "choices": [{"index": 0, "delta": delta, "logprobs": None,
                            "finish_reason": finish_reason}]}
        if self.req.include_usage:
            out["usage"] = None  # OpenAI's shape: null on every chunk but the last
        return sse({**out, **extra})

    async def stream(self, events):
        """SSE lines for the engine's ("text", piece) … ("done", Generation) events."""
        yield self._chunk({"role": "assistant", "content": ""})
        hold = HoldBack(active=self.use_tools)
        if self.help and assist.after_tool_results(self.req.messages):
            # the help may retry a reply it has seen whole (an empty reply, a plan): hold it
            # all, so nothing is sent that a retry would have to take back (a simplification:
            # a helped answer after tool results streams as one piece)
            hold.holding = True
        if self.mode == "choice":  # JSON by construction: its answer goes out once parsed
            hold.holding = True
        pieces, sent, before = [], [], 0  # before: content sent by earlier attempts
        async for kind, value in events:
            if kind == "text" and isinstance(value, Retry):
                # A new attempt (help, see `assist`): hold all of it, send its content at the end.
                pieces, before, hold = [], sum(map(len, sent)), HoldBack()
                hold.holding = True
                continue
            if kind == "text":
                pieces.append(value)
                safe = hold.feed(value)
                if safe:
                    sent.append(safe)
                    yield self._chunk({"content": safe})
                continue
            self.generation, self.raw_text = value, "".join(pieces)
        # Parse the whole reply, exactly as the non-stream path does, then send only the part
        # of its content the client has not had yet. What can be taken back: nothing already
        # sent. The hold-back stops releasing at the first thing that may start a call, so in
        # the common case (preamble, call, invented text) only the preamble went out, and the
        # calls and the dropped text are the same as without streaming. What cannot: a call in
        # a shape the hold-back does not recognise (`{ "name"` in mid-line) streams as content,
        # with whatever followed it; the client still gets the calls, and debug() shows in
        # `content` everything that was sent.
        parsed = await asyncio.to_thread(self.interpret, self.raw_text)
        released = sum(map(len, sent)) - before
        end = len(self.raw_text) if parsed.calls_start is None else parsed.calls_start
        if self.mode != "normal":
            rest = parsed.content  # a retry: nothing of it was sent yet
        else:
            rest = clean_content(self.raw_text[released:end]) if released < end else None
        if rest:
            sent.append(rest)
            yield self._chunk({"content": rest})
        self.content = "".join(sent) or (None if self.tool_calls else "")
        for index, call in enumerate(self.tool_calls):
            fn = call["function"]
            yield self._chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                               "function": {"name": fn["name"], "arguments": ""}}]})
            args = fn["arguments"]
            for i in range(0, len(args), ARG_FRAGMENT):
                yield self._chunk({"tool_calls": [{"index": index, "function": {
                    "arguments": args[i:i + ARG_FRAGMENT]}}]})
        extra = {"reactlab": self.debug()} if self.req.debug else {}
        yield self._chunk({}, self.finish_reason(), **extra)
        if self.req.include_usage:
            yield sse({**self._head("chat.completion.chunk"), "choices": [],
                       "usage": self.usage()})
        yield "data: [DONE]\n\n"
