"""Memory for a multi-turn chat: keep what was concluded, drop how it was found.

A `Conversation` runs each turn through an agent function (`run_function_calling` or
`run_react`, passed in) and hands the next turn only plain messages: every earlier
question as a `user` message and its final answer as an `assistant` message. The tool calls,
observations and nudges of earlier turns are dropped: they answered *that* question and
would only distract (and cost tokens) on the next one. Optionally the oldest turns are folded
into one summary message, by truncation (no model call) or by a function you plug in.

Approximations, on purpose:
- `estimate_tokens` is a rule of thumb (about 4 characters per token for English, 1 per
  Chinese character, plus 4 per message for the chat template). Good for comparing two
  histories; for exact counts read `usage["prompt_tokens"]` of a real run.
- The "full" history (`Conversation.full_history`) is rebuilt from each run's messages as
  the agent sent them: observations are counted as shown (compacted if guards were on). In
  the ReAct scratchpad layout a turn's single user message also holds the history it was
  given, so there "full" is slightly overstated.
- The truncation summary keeps the first ~80 characters of each question and answer.

It deliberately does NOT store conversations on disk, embed or search old turns, or trim a
single long run (that is `Guards(compress_after=…)` with `folding`). Introduced in notebook 08.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from reactlab.compaction import shorten
from reactlab.connection import connect
from reactlab.folding import turns_summary
from reactlab.prompts import load_template
from reactlab.report import markdown_table
from reactlab.runlog import RunResult, as_dict

# The header line of every turns summary (the turns_summary template's first line).
SUMMARY_PREFIX = load_template("turns_summary").splitlines()[0]
_CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")

# A summary function gets the folded turns as (question, answer) pairs and returns text.
Summarizer = Callable[[list[tuple[str, str]]], str]


def estimate_tokens(text: str) -> int:
    """Rough token count: 1 per CJK character, 1 per 4 other characters.

    Example: estimate_tokens("北京天气") -> 4; estimate_tokens("weather in Beijing") -> 5
    """
    text = text or ""
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)


def _get(m: Any, key: str) -> Any:
    m = as_dict(m)
    return m.get(key) if isinstance(m, dict) else getattr(m, key, None)


def history_tokens(messages: list) -> int:
    """Estimated tokens of a message list: contents, tool-call arguments, 4 per message.

    Example: history_tokens([{"role": "user", "content": "北京天气"}]) -> 8
    """
    total = 0
    for m in messages:
        total += 4 + estimate_tokens(str(_get(m, "content") or ""))
        for call in _get(m, "tool_calls") or []:
            fn = _get(call, "function") or {}
            total += 4 + estimate_tokens(f"{_get(fn, 'name') or ''}{_get(fn, 'arguments') or ''}")
    return total


# The default way to fold old turns: one shortened line per question and answer, no model call.
truncation_summary = turns_summary


def model_summarizer(conn: Any = None, max_tokens: int = 150) -> Summarizer:
    """A summary function that asks the model (one short call per fold) and falls back to
    `truncation_summary` if the call fails or says nothing. Example:
    Conversation(run_react, keep_turns=2, summarize=model_summarizer(conn))
    """
    instruction = ("Summarise this conversation in at most five short lines. Keep every fact, "
                   "number and name the user may ask about again. Write in the user's language.")

    def summarize(turns: list[tuple[str, str]]) -> str:
        nonlocal conn
        text = "\n".join(f"Q: {q}\nA: {a}" for q, a in turns)
        try:
            if conn is None:
                conn = connect()
            reply = conn.client.chat.completions.create(
                model=conn.model, temperature=0, max_tokens=max_tokens,
                messages=[{"role": "system", "content": instruction},
                          {"role": "user", "content": text}])
            summary = (reply.choices[0].message.content or "").strip()
        except Exception:  # noqa: BLE001 - a failed summary must not end the chat
            summary = ""
        return f"{SUMMARY_PREFIX}\n{summary}" if summary else truncation_summary(turns)

    return summarize


@dataclass
class Turn:
    """One question, its final answer, the full run, and the history the run was given."""

    question: str
    answer: str
    result: RunResult
    history_sent: list[dict] = field(default_factory=list)


def answer_text(result: RunResult) -> str:
    """What to remember of a run: its answer, or a note saying why there is none."""
    if result.answer is not None and result.answer.strip():
        return result.answer.strip()
    return f"(no answer: the run ended with status {result.status!r})"


class Conversation:
    """A chat whose memory keeps questions and final answers, not tool traffic.

    agent: `run_function_calling` or `run_react` (anything called as
    `agent(question, history=[…], **agent_kwargs)` that returns a RunResult).
    keep_turns: keep this many recent turns verbatim and fold older ones into one summary
    message (None = keep all). summarize: the folding function (default: truncation).
    Example: chat = Conversation(run_function_calling, tools=default_registry(), conn=conn)
             chat.ask("北京今天天气怎么样？"); chat.ask("那广州呢？"); print(chat.report())
    """

    def __init__(self, agent: Callable[..., RunResult], *, keep_turns: int | None = None,
                 summarize: Summarizer | None = None, **agent_kwargs: Any):
        if keep_turns is not None and keep_turns < 0:
            raise ValueError("keep_turns must be 0 or more (or None to keep every turn).")
        self.agent = agent
        self.keep_turns = keep_turns
        self.summarize = summarize or truncation_summary
        self.agent_kwargs = agent_kwargs
        self.turns: list[Turn] = []
        self._summaries: dict[int, str] = {}  # folded-turn count -> summary (one call per fold)

    def ask(self, question: str, **kwargs: Any) -> RunResult:
        """Run one turn with the remembered history; remember its answer; return the run."""
        history = self.history
        result = self.agent(question, history=[dict(m) for m in history],
                            **{**self.agent_kwargs, **kwargs})
        self.turns.append(Turn(question, answer_text(result), result, history))
        return result

    @property
    def history(self) -> list[dict]:
        """The messages the next turn gets: [summary], then user/assistant pairs."""
        turns = self.turns
        folded: list[Turn] = []
        if self.keep_turns is not None and len(turns) > self.keep_turns:
            cut = len(turns) - self.keep_turns
            folded, turns = turns[:cut], turns[cut:]
        messages: list[dict] = []
        if folded:
            if len(folded) not in self._summaries:
                self._summaries[len(folded)] = self.summarize(
                    [(t.question, t.answer) for t in folded])
            messages.append({"role": "user", "content": self._summaries[len(folded)]})
        for t in turns:
            messages += [{"role": "user", "content": t.question},
                         {"role": "assistant", "content": t.answer}]
        return messages

    def full_history(self) -> list:
        """What naive memory would carry: every turn's messages, tool traffic included
        (system prompts left out). Used to show what `history` saves."""
        out: list = []
        for t in self.turns:
            out += _traffic(t)
        return out

    def savings(self) -> dict[str, Any]:
        """Estimated tokens of the remembered history vs the naive full one.

        Example: {"turns": 3, "memory_tokens": 120, "full_tokens": 910, "saved_tokens": 790,
                  "saved_pct": 86.8}
        """
        memory, full = history_tokens(self.history), history_tokens(self.full_history())
        saved = full - memory
        return {"turns": len(self.turns), "memory_tokens": memory, "full_tokens": full,
                "saved_tokens": saved, "saved_pct": round(100 * saved / full, 1) if full else 0.0}

    def report(self) -> str:
        """A Markdown table, one row per turn: what each turn was given and what it cost.

        "history tok" is the estimate for the history this turn received, "naive tok" what
        carrying all earlier traffic would have cost, "prompt tok (1st call)" the real
        prompt size of the turn's first model call (system prompt and tools included).
        """
        rows = []
        for i, t in enumerate(self.turns):
            naive = [m for u in self.turns[:i] for m in _traffic(u)]
            first = t.result.steps[0].prompt_tokens if t.result.steps else 0
            rows.append([i + 1, shorten(t.question, 40), t.result.status, len(t.result.steps),
                         len(t.history_sent), history_tokens(t.history_sent),
                         history_tokens(naive), first, shorten(t.answer, 50)])
        return markdown_table(["turn", "question", "status", "steps", "history msgs",
                               "history tok", "naive tok", "prompt tok (1st call)", "answer"],
                              rows)

    def reset(self) -> None:
        """Forget every turn."""
        self.turns.clear()
        self._summaries.clear()


def _traffic(turn: Turn) -> list:
    """One turn's own messages: from its question on, without system prompt or history.

    The agents record where they put the question (`meta["question_at"]`); nothing is searched.
    """
    msgs = list(turn.result.messages)
    start = turn.result.meta.get("question_at", 0)
    out = [m for m in msgs[start:] if _get(m, "role") != "system"]
    if not out or _get(out[-1], "role") != "assistant":
        # The run ended without a reply in its messages (a failed run): remember the note.
        out.append({"role": "assistant", "content": turn.answer})
    return out
