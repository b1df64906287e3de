"""The rules a conversation must follow before the model sees it.

Roles, contents, and the pairing that trips most hand-written agents: a `tool` message must
come right after the assistant message whose `tool_calls` it answers, and every call id must
be answered before the conversation moves on (OpenAI's API enforces the same). Each error names
the message (`messages[2].tool_call_id`), says what was found and what to do instead.

This module does not check the other request fields (`validate` does) and does not render
anything. Introduced in notebook 05 (the 400 you get when the assistant message is left out).
"""

from __future__ import annotations

from reactlab.server.errors import bad_request

ROLES = ("system", "developer", "user", "assistant", "tool")


def _a(word: str) -> str:
    return ("an '" if word == "assistant" else "a '") + word + "'"  # roles only: user, tool, …


def _content(m: dict, where: str, required: bool) -> None:
    content = m.get("content")
    if content is None:
        if required:
            raise bad_request(f"{where} (role '{m['role']}') has no 'content': give its text as a "
                              f"string.", f"{where}.content", "missing_content")
        return
    if isinstance(content, str):
        return
    if not isinstance(content, list):
        raise bad_request(f"{where}.content must be a string or a list of text parts, got "
                          f"{type(content).__name__}.", f"{where}.content", "invalid_type")
    for j, part in enumerate(content):
        if not (isinstance(part, dict) and part.get("type") == "text"
                and isinstance(part.get("text"), str)):
            raise bad_request(f"{where}.content[{j}] is not a text part: this local model reads "
                              f"text only ({{\"type\": \"text\", \"text\": \"…\"}}).",
                              f"{where}.content", "unsupported_content")


def _tool_calls(m: dict, where: str) -> list[str]:
    calls = m.get("tool_calls")
    if calls is None:
        return []
    if not isinstance(calls, list):
        raise bad_request(f"{where}.tool_calls must be a list.", f"{where}.tool_calls")
    ids: dict[str, None] = {}  # ordered and O(1) to look up: a reply may hold many calls
    for j, call in enumerate(calls):
        w = f"{where}.tool_calls[{j}]"
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise bad_request(f"{w} must look like {{\"id\": \"call_…\", \"type\": \"function\", "
                              f"\"function\": {{\"name\": …, \"arguments\": \"{{…}}\"}}}}.", w)
        if not isinstance(fn.get("arguments", ""), (str, dict)):
            raise bad_request(f"{w}.function.arguments must be a JSON string.", w)
        if not isinstance(call.get("id"), str) or not call["id"]:
            raise bad_request(f"{w} has no 'id': echo the assistant message exactly as the "
                              f"response gave it, ids included.", f"{w}.id")
        if call["id"] in ids:
            raise bad_request(f"{w}.id {call['id']!r} is used twice in one message.", f"{w}.id")
        ids[call["id"]] = None
    return list(ids)


def check_messages(messages) -> list[dict]:
    """Check roles, contents and the tool-call / tool-result pairing; return the messages.

    Example: [user, tool] -> 400 "messages[1] is a 'tool' message, but the message before it
    is a 'user' message, not an assistant message with 'tool_calls'. …"
    """
    if not isinstance(messages, list) or not messages:
        raise bad_request("'messages' must be a non-empty list of {\"role\": …, \"content\": …} "
                          "objects.", "messages", "missing_messages")
    asked: dict | None = None       # call ids of the assistant message tool results may answer
    pending: dict[str, None] = {}   # those of them not answered yet, in order (dict: O(1) pop)
    asked_at = 0
    for i, m in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(m, dict):
            raise bad_request(f"{where} must be an object with 'role' and 'content', got "
                              f"{type(m).__name__}.", where)
        role = m.get("role")
        if role not in ROLES:
            raise bad_request(f"{where}.role is {role!r}; use one of {', '.join(ROLES)}.",
                              f"{where}.role", "invalid_role")
        if role == "tool":
            _check_tool_message(messages, i, asked, pending, asked_at)
            del pending[m["tool_call_id"]]
            continue
        if pending:
            raise bad_request(f"messages[{asked_at}] asked for tool calls that were never "
                              f"answered before {where}: {', '.join(pending)}. Add one 'tool' "
                              f"message per call id right after that assistant message.",
                              "messages", "unanswered_tool_calls")
        _content(m, where, required=role != "assistant")
        ids = _tool_calls(m, where) if role == "assistant" and m.get("tool_calls") else []
        asked = dict.fromkeys(ids) if ids else None
        pending, asked_at = dict.fromkeys(ids), (i if ids else asked_at)
    if pending:
        raise bad_request(f"messages[{asked_at}] asked for tool calls that have no 'tool' message "
                          f"yet: {', '.join(pending)}. Run the tools and append their results "
                          f"before asking the model again.", "messages", "unanswered_tool_calls")
    return messages


def _check_tool_message(messages: list, i: int, asked: dict | None, pending: dict,
                        asked_at: int) -> None:
    m, where = messages[i], f"messages[{i}]"
    tid = m.get("tool_call_id")
    if asked is None:
        before = messages[i - 1].get("role") if i else None
        raise bad_request(
            f"{where} is a 'tool' message, but the message before it is "
            + (f"{_a(str(before))} message" if before else "missing")
            + ", not an assistant message with 'tool_calls'. A tool result must come right after "
            "the assistant message that asked for it: append the assistant message from the "
            "previous response (with its tool_calls) to messages, then one 'tool' message per "
            "call id.", f"{where}.role", "tool_without_call")
    if not isinstance(tid, str) or tid not in asked:
        raise bad_request(f"{where}.tool_call_id {tid!r} does not answer any call of the "
                          f"assistant message messages[{asked_at}] (its call ids: "
                          f"{', '.join(asked)}).", f"{where}.tool_call_id",
                          "unknown_tool_call_id")
    if tid not in pending:
        raise bad_request(f"{where} answers {tid!r} a second time; send one 'tool' message per "
                          f"call id.", f"{where}.tool_call_id", "duplicate_tool_result")
    _content(m, where, required=True)
