"""Checks for notebook 02's exercises (the stop token). They read replies the learner got and
functions the learner wrote; none calls the model.

Example: check_4(find_invented_observation) runs the function on six fixed strings.
"""

from __future__ import annotations

import re
from typing import Any

from reactlab.exercises import passed, pending, require

__all__ = ["check_1", "check_2", "check_3", "check_4"]

OBSERVATION_LINE = re.compile(r"^[ \t>*]*Observation\b", re.MULTILINE)


def check_1(answer: Any) -> bool | None:
    """`answer`: (reply text, invented) — the stock question's reply without `stop`, and your
    reading of it: True if it contains an Observation the model wrote itself."""
    if answer is None:
        return pending(1, "set `answer_1 = (text, invented)`: the reply, and True/False")
    require(1, isinstance(answer, (tuple, list)) and len(answer) == 2
            and isinstance(answer[0], str) and isinstance(answer[1], bool),
            "answer_1 should be (the reply's text, True or False)")
    text, invented = answer
    require(1, text.strip(), "the reply is empty; send the stock question with no `stop`")
    really = bool(OBSERVATION_LINE.search(text))
    require(1, invented == really,
            "look again: the reply " + ("has" if really else "has no")
            + " line starting with `Observation`")
    prices = [p for p in ("67.92", "1488.21") if p in text]
    return passed(1, ("it invented an Observation" if really else "no invented Observation")
                  + (f"; real prices in the text: {', '.join(prices)}" if prices else
                     "; neither real price (67.92, 1488.21) is in the text"))


def check_2(replies: Any) -> bool | None:
    """`replies`: {"Observation": text, "\\nObservation": text}, the weather question sent with
    each stop string."""
    if replies is None:
        return pending(2, 'set `answer_2 = {"Observation": text1, "\\nObservation": text2}`')
    require(2, isinstance(replies, dict) and {"Observation", "\nObservation"} <= set(replies),
            'answer_2 should be a dict with the keys "Observation" and "\\nObservation"')
    require(2, all(isinstance(replies[k], str) for k in ("Observation", "\nObservation")),
            "each value should be the reply's text (a str)")
    require(2, "Observation" not in replies["Observation"],
            'with stop=["Observation"] the word cannot be in the reply: was the stop sent?')
    require(2, "\nObservation" not in replies["\nObservation"],
            'with stop=["\\nObservation"] no line can start with it: was the stop sent?')
    return passed(2, "both stop strings cut where they should; \"Observation\" also fires "
                     "inside a sentence, \"\\nObservation\" only at a line start")


def check_3(kept: Any) -> bool | None:
    """`kept`: what cut_at_stop leaves of the weather agent's last reply with
    stop=["Final Answer:"]."""
    if kept is None:
        return pending(3, 'set `answer_3 = cut_at_stop(reply, ["Final Answer:"])`, with `reply` '
                          "the weather agent's last reply quoted in exercise 3")
    require(3, isinstance(kept, str), "answer_3 should be the text cut_at_stop returned")
    require(3, "Final Answer" not in kept and "23.4" not in kept,
            "the text still holds the answer: cut it with stop=[\"Final Answer:\"]")
    require(3, kept.strip(), "nothing is left: cut the weather agent's last reply (quoted in "
                             "exercise 3)")
    return passed(3, f"only {kept.strip()[:30]!r}… is left: the answer itself is gone")


CASES = [  # (text, should it be found?)
    ("Action: get_weather\nObservation: 晴", True),
    ("Action: get_weather\n观察：晴，25°C", True),
    ("Action: get_weather\n观察: 晴", True),
    ("Thought: 我观察到北京需要查询。\nAction: get_weather", False),
    ('Action:\n```\n{"action": "get_weather"}\n```', False),
    ("Thought: the Observation above shows 晴", False),
]


def check_4(find: Any) -> bool | None:
    """`find`: your find_invented_observation; it must return a position (int) for a line that
    starts with Observation or 观察 and None otherwise."""
    if find is None:
        return pending(4, "set `answer_4` to your improved find_invented_observation")
    require(4, callable(find), "answer_4 should be the function itself")
    for text, expected in CASES:
        try:
            got = find(text)
        except Exception as exc:  # noqa: BLE001
            require(4, False, f"it raised {type(exc).__name__} on {text!r}")
        found = got is not None and got is not False
        require(4, found == expected, f"on {text!r} it returned {got!r}; expected "
                + ("a position" if expected else "None (no line starts with an Observation)"))
    return passed(4, f"right on all {len(CASES)} test strings, 观察： included")
