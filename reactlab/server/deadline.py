"""uvicorn's HTTP/1.1 protocol with a deadline for a request's headers.

uvicorn closes a keep-alive connection left idle after a response, but a client that connects
and never finishes its request line and headers (or dribbles them a byte at a time) is held
open for ever: each such connection costs a socket and a little memory, and enough of them
exhaust the process. `DeadlineProtocol` gives every request `header_timeout` seconds for its
headers, counted from the connection or from the previous response; a connection that misses
it is closed without an answer (there is no request to answer yet). The body has a deadline of
its own, enforced by `app` (a 408 in OpenAI's shape).

A simplification, on purpose: one deadline (`limits.upload_timeout`) serves both phases.
This module knows nothing about the API. It relies on uvicorn's h11 protocol internals
(`cycle`, `loop`, `on_response_complete`), so uvicorn is pinned in pyproject.toml and
`tests/test_server_deadline.py` checks the behaviour. Imported only when a server starts.
"""

from __future__ import annotations

from uvicorn.protocols.http.h11_impl import H11Protocol


class DeadlineProtocol(H11Protocol):
    """H11Protocol that closes a connection whose next request's headers are late."""

    header_timeout = 30.0  # seconds; `protocol(timeout)` makes a class with another value

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def _arm(self) -> None:
        self.loop.call_later(self.header_timeout, self._expire, self.cycle)

    def _expire(self, before) -> None:
        # Still the same cycle, and it is not a request in progress: no headers came in time.
        waiting = self.cycle is before and (before is None or before.response_complete)
        if waiting and not self.transport.is_closing():
            self.transport.close()


def protocol(header_timeout: float) -> type[DeadlineProtocol]:
    """The protocol class for uvicorn's `Config(http=…)`.

    Example: uvicorn.Config(app, http=protocol(30.0))
    """
    return type("DeadlineProtocol", (DeadlineProtocol,), {"header_timeout": header_timeout})
