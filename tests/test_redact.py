"""reactlab.redact: which names and shapes count as credentials, and what replaces them."""

import pytest

from reactlab.redact import MARK, Redactor, is_secret_field, is_secret_header, scrub_text


@pytest.mark.parametrize("name", [
    "Authorization", "Proxy-Authorization", "api-key", "X-Api-Key", "x-goog-api-key",
    "Ocp-Apim-Subscription-Key", "X-Auth", "X-AuthToken", "XAPIKEY", "X-DashScope-Token",
    "X-Amz-Security-Token", "X-Amz-Signature", "X-Sig", "Cookie", "X-Secret", "X-Password",
    "X-Session-Id", "X-Credential"])
def test_secret_header_names(name):
    assert is_secret_header(name)


@pytest.mark.parametrize("name", ["Content-Type", "Accept", "User-Agent", "X-Request-Id",
                                  "Keep-Alive", "X-Design", "OpenAI-Organization"])
def test_innocent_header_names(name):
    assert not is_secret_header(name)


@pytest.mark.parametrize("name, secret", [
    ("api_key", True), ("apiKey", True), ("APIKEY", True), ("key", True), ("token", True),
    ("access_token", True), ("accessToken", True), ("sig", True), ("X-Amz-Signature", True),
    ("client_secret", True), ("password", True), ("subscription-key", True),
    ("max_tokens", False), ("keyword", False), ("monkey", False), ("design", False),
    ("prompt_tokens", False), ("model", False), ("tokenizer", False), ("", False)])
def test_secret_field_names_are_whole_words(name, secret):
    assert is_secret_field(name) is secret


def test_header_keeps_the_scheme_and_remembers_the_credential():
    r = Redactor()
    assert r.header("Authorization", "Bearer abc-1234-xyz") == f"Bearer {MARK}"
    assert r.header("X-Auth", "  raw-value-1  ") == MARK
    assert r.header("X-Auth", "") == ""  # nothing to hide
    assert r.header("Accept", "Bearer lookalike") == "Bearer lookalike"  # scrub's job
    assert r.scrub("copy: abc-1234-xyz and raw-value-1") == f"copy: {MARK} and {MARK}"


def test_url_userinfo_and_parameters():
    r = Redactor()
    assert r.url("https://bob:pw@h/p?key=k1&max_tokens=5#access_token=t1&x=1") == (
        f"https://bob:{MARK}@h/p?key={MARK}&max_tokens=5#access_token={MARK}&x=1")
    assert r.url("https://tok@h/") == f"https://{MARK}@h/"
    assert r.url("https://h/p?key=&a") == "https://h/p?key=&a"  # an empty value hides nothing
    assert r.url("//u:p@h/#sig=s") == f"//u:{MARK}@h/#sig={MARK}"


def test_values_found_by_name_are_hidden_in_every_form():
    r = Redactor()
    r.url("https://h/?api_key=a%2Fb%2Bc%3D0123")
    text = "raw a/b+c=0123, encoded a%2Fb%2Bc%3D0123"
    assert r.scrub(text) == f"raw {MARK}, encoded {MARK}"
    r.header("X-Auth", "short")  # under MIN_KNOWN: hidden where found, not elsewhere
    assert r.scrub("a short text") == "a short text"


def test_body_hides_string_values_of_secret_fields_only():
    r = Redactor()
    body = r.body({"api_key": "k", "keys": ["a"], "api_keys": ["a", "b"], "max_tokens": 5,
                   "token": 123, "auth": {"password": "p", "user": "bob"}, 7: {1, 2}})
    assert body == {"api_key": MARK, "keys": [MARK], "api_keys": [MARK, MARK], "max_tokens": 5,
                    "token": 123, "auth": {"password": MARK, "user": "bob"}, "7": "{1, 2}"}


@pytest.mark.parametrize("text", [
    "sk-abcdefgh12345678", "sk-ant-api03-abcdefghijk", "sk_live_abcdefgh1234",
    "ghp_abcdefghijklmnop1234", "hf_abcdefghijklmnopqrst", "xoxb-1234567890-abc",
    "AKIAABCDEFGHIJKLMNOP", "AIza" + "a" * 35, "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc",
    "gsk_abcdefghijklmnop1234"])
def test_key_shapes(text):
    assert scrub_text(f"x {text} y") == "x [hidden key] y"


@pytest.mark.parametrize("text", ["task-0123456789", "ask-questions-now", "the bearer instrument",
                                  "sk-short", "Bearer of news", "call_0123456789abcdef"])
def test_ordinary_text_is_not_a_key(text):
    assert scrub_text(text) == text


def test_bearer_tokens_in_text_keep_the_scheme():
    assert scrub_text("got Bearer abc123def456 back") == "got Bearer [hidden key] back"


def test_credential_parameters_in_free_text():
    said = "Max retries exceeded with url: /v1/chat?api_key=abc&model=m (Caused by refused)"
    assert scrub_text(said) == ("Max retries exceeded with url: /v1/chat?api_key=[hidden key]"
                                "&model=m (Caused by refused)")
    assert scrub_text("a=b&c=d, x?max_tokens=5") == "a=b&c=d, x?max_tokens=5"
    assert scrub_text(scrub_text(said)) == scrub_text(said)  # scrubbing twice changes nothing
