"""Request headers have a deadline: connections that never finish them are closed.

uvicorn alone keeps such a connection open for ever; `deadline.DeadlineProtocol` closes it
after `upload_timeout` (0.3 s here), and never cuts a request that is being served.
"""

from __future__ import annotations

import socket

import httpx
import openai
import pytest

from reactlab.server.deadline import DeadlineProtocol, protocol
from reactlab.server.limits import Limits
from reactlab.server.replay import ReplayEngine, serve_replay

MODEL = "qwen2.5-coder-1.5b-instruct"
ASK = [{"role": "user", "content": "北京今天天气怎么样？"}]


@pytest.fixture
def small():
    engine = ReplayEngine([])
    with serve_replay(engine, limits=Limits(upload_timeout=0.3)) as url:
        yield engine, url


def connect(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").removesuffix("/v1").split(":")
    return socket.create_connection((host, int(port)), timeout=30)


def read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_protocol_makes_a_class_with_the_timeout():
    cls = protocol(2.5)
    assert issubclass(cls, DeadlineProtocol) and cls.header_timeout == 2.5
    assert DeadlineProtocol.header_timeout == Limits().upload_timeout


def test_late_request_headers_close_the_connection(small):
    engine, url = small
    engine.reset(["ok"])
    socks = [connect(url) for _ in range(50)]
    for i, sock in enumerate(socks):
        if i % 2:  # half send part of a request line, half nothing at all
            sock.sendall(b"POST /v1/chat/comp")
    assert [read_all(sock) for sock in socks] == [b""] * 50  # closed, nothing to answer
    for sock in socks:
        sock.close()
    client = openai.OpenAI(base_url=url, api_key="x", max_retries=0)
    assert client.chat.completions.create(model=MODEL, messages=ASK).choices[
        0].message.content == "ok"


def test_headers_dribbled_after_a_response_have_the_deadline_too(small):
    # Every byte would reset uvicorn's own keep-alive timer: only the deadline closes this.
    _, url = small
    sock = connect(url)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = b""
    while not answer.endswith(b"}"):  # the whole /health response, headers and JSON body
        answer += sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 200")
    sock.settimeout(0.1)
    closed = False
    for byte in b"GET /health HTTP/1.1\r\nHost: x":  # 3 s of dribble, ten deadlines
        try:
            sock.sendall(bytes([byte]))
            closed = sock.recv(1) == b""
        except TimeoutError:
            continue
        except OSError:  # reset: closed
            closed = True
        if closed:
            break
    sock.close()
    assert closed


def test_a_slow_generation_is_not_cut_by_the_header_deadline(small):
    # ~25 pieces at 20 ms: longer than the 0.3 s deadline, on one keep-alive connection
    engine, url = small
    text = " ".join(f"w{i}" for i in range(12))
    engine.reset([text, text], delay=0.02)
    pool = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    with httpx.Client(limits=pool, timeout=30) as http:
        client = openai.OpenAI(base_url=url, api_key="x", max_retries=0, http_client=http)
        assert client.chat.completions.create(model=MODEL, messages=ASK).choices[
            0].message.content == text
        chunks = list(client.chat.completions.create(model=MODEL, messages=ASK, stream=True))
        assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == text
