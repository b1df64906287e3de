"""Find the credentials in a request — headers, URL, JSON body — and put a marker in their place.

`reactlab.http.to_curl` prints a request for a human to paste somewhere; everything that could
be a key must be gone from that text. Two rules, both applied everywhere:

- by *name*: a header whose name suggests a key, token, auth, secret, password, signature,
  cookie, credential or session (`Authorization`, `api-key`, `Ocp-Apim-Subscription-Key`,
  `X-Auth`, …); a query parameter or JSON field named like one (`api_key`, `key`, `token`,
  `access_token`, `sig`, `client_secret`, …); the userinfo of a URL (`https://user:pw@host`).
  Every value found this way is also hidden wherever else it appears (URL path, other
  headers, the body, percent-encoded or not).
- by *shape*: values that look like a key under any name (`sk-…`, `Bearer <token>`, GitHub,
  Hugging Face, Slack, AWS and Google key formats, JWTs), and `?key=…`-style parameters
  inside free text (a URL quoted in an error message).

Deliberately NOT done: guessing from entropy. A key of an unknown shape, under an innocent
name, that never appears under a credential name, is not recognised. Names err on the side of
hiding (`Idempotency-Key` is hidden too). Values found by name are hidden elsewhere only when
they are at least 8 characters long (shorter ones would blot out ordinary text).

The marker `MARK` is one private-use character; `to_curl` turns it into `"$OPENAI_API_KEY"`.
Introduced in notebook 01 (through `to_curl`).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, quote_plus, unquote, unquote_plus

MARK = "\ue000"  # stands where a credential was; never produced by JSON or HTTP text
MIN_KNOWN = 8  # a credential found by name is also hidden elsewhere from this length on

# Header names: substrings, because header names glue words together ("XAPIKEY", "X-AuthToken").
_HEADER_NAME = re.compile(r"auth|key|token|secret|passw|pwd|signature|cookie|credential|session"
                          r"|(?:^|[-_])sig(?:$|[-_])", re.IGNORECASE)
# JSON fields and query parameters: whole words, so "max_tokens" and "keyword" stay visible.
# ("tokens" is not one: max_tokens, stop tokens.)
_SECRET_WORDS = {"key", "keys", "apikey", "token", "secret", "secrets", "password", "passwd",
                 "pwd", "pw", "passphrase", "auth", "authorization", "credential",
                 "credentials", "signature", "sig", "cookie", "accesskey", "secretkey",
                 "privatekey"}
_SECRET_SUFFIXES = ("apikey", "apikeys", "token", "secret", "password")
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")

# A key by its shape. The look-behind keeps "task-0123456789" from matching as "sk-…".
_KEY_SHAPE = re.compile(
    r"(?<![A-Za-z0-9])(?:"
    r"sk-[A-Za-z0-9_\-]{8,}"                          # OpenAI, DeepSeek, DashScope, Anthropic
    r"|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{8,}"    # Stripe style
    r"|gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}"
    r"|hf_[A-Za-z0-9]{16,}|gsk_[A-Za-z0-9]{16,}|r8_[A-Za-z0-9]{16,}"
    r"|xox[abposr]-[A-Za-z0-9\-]{10,}"
    r"|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{30,}"
    r"|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*"  # a JWT
    r")")
# "Bearer <token>" anywhere; the token must hold a digit, so prose ("bearer instrument") stays.
_SCHEME_TOKEN = re.compile(r"\b(bearer|basic|token)(\s+)((?=[A-Za-z._~+/=\-]*\d)"
                           r"[A-Za-z0-9._~+/=\-]{8,})", re.IGNORECASE)
_SCHEMES = {"bearer", "basic", "token", "digest", "apikey", "api-key", "key", "hmac",
            "aws4-hmac-sha256", "sharedaccesssignature", "negotiate", "ntlm"}
_USERINFO = re.compile(r"^((?:[A-Za-z][A-Za-z0-9+.\-]*:)?//)([^/?#]*)@")
_PARAM = re.compile(r"(^|[&;])([^=&;]*)=([^&;]*)")
# name=value after ? & ; # in free text (a URL quoted in an error message)
_TEXT_PARAM = re.compile(r"(?<=[?&;#])([^=&;#?\s]+)=(?!\[hidden)([^&;#\s]+)")


def is_secret_header(name: str) -> bool:
    """Does this header name suggest a credential? Example: is_secret_header("X-Auth") -> True"""
    return bool(_HEADER_NAME.search(name))


def is_secret_field(name: str) -> bool:
    """Does this JSON field or query parameter name a credential (by whole words)?

    Example: is_secret_field("access_token") -> True; is_secret_field("max_tokens") -> False
    """
    words = [w.lower() for w in _WORD.findall(name)]
    return any(w in _SECRET_WORDS or w.endswith(_SECRET_SUFFIXES) for w in words)


class Redactor:
    """Hide the credentials of one request; remembers what it hid to hide it everywhere.

    Use it in two passes: `header`, `url`, `body` hide credentials by name (and remember
    them), then `scrub` each resulting text to hide remembered values and key shapes.
    Example: r = Redactor(); h = r.header("X-Auth", "k-123456789"); r.scrub(h) -> MARK
    """

    def __init__(self) -> None:
        self.known: set[str] = set()

    def _remember(self, value: str) -> None:
        for form in (value, unquote(value), unquote_plus(value), quote(value, safe=""),
                     quote_plus(value)):
            if len(form) >= MIN_KNOWN:
                self.known.add(form)

    def header(self, name: str, value: str) -> str:
        """The value with the credential replaced (an auth scheme such as `Bearer` is kept)."""
        if not value.strip() or not is_secret_header(name):
            return value
        scheme, sep, cred = value.strip().partition(" ")
        if sep and cred.strip() and scheme.lower() in _SCHEMES:
            self._remember(cred.strip())
            return f"{scheme} {MARK}"
        self._remember(value.strip())
        return MARK

    def url(self, url: str) -> str:
        """The URL with its userinfo and credential query (or fragment) parameters replaced."""
        def userinfo(m: re.Match) -> str:
            user, sep, password = m.group(2).partition(":")
            if sep and password:
                self._remember(password)
                return f"{m.group(1)}{user}:{MARK}@"
            self._remember(m.group(2))
            return f"{m.group(1)}{MARK}@"

        def param(m: re.Match) -> str:
            if not m.group(3) or not is_secret_field(unquote_plus(m.group(2))):
                return m.group(0)
            self._remember(m.group(3))
            return f"{m.group(1)}{m.group(2)}={MARK}"

        url = _USERINFO.sub(userinfo, url, count=1)
        head, sep, rest = url.partition("?")
        if not sep:
            head, sep, rest = url.partition("#")
        return head + sep + "#".join(_PARAM.sub(param, part) for part in rest.split("#"))

    def body(self, obj: Any, secret: bool = False) -> Any:
        """A JSON-ready copy: string values under credential-named fields replaced.

        Anything JSON cannot write becomes its str(); dict keys become strings.
        Example: r.body({"api_key": "abc", "n": 1}) -> {"api_key": MARK, "n": 1}
        """
        if isinstance(obj, dict):
            return {str(k): self.body(v, is_secret_field(str(k))) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return [self.body(v, secret) for v in obj]  # "api_keys": [...] hides each one
        if isinstance(obj, str):
            if secret and obj:
                self._remember(obj)
                return MARK
            return obj
        if obj is None or isinstance(obj, (bool, int, float)):
            return obj
        return str(obj)

    def scrub(self, text: str) -> str:
        """Hide every remembered credential and every key-shaped value in free text."""
        for secret in sorted(self.known, key=len, reverse=True):
            text = text.replace(secret, MARK)
        text = _SCHEME_TOKEN.sub(lambda m: f"{m.group(1)}{m.group(2)}{MARK}", text)
        text = _TEXT_PARAM.sub(lambda m: f"{m.group(1)}={MARK}" if is_secret_field(
            unquote_plus(m.group(1))) else m.group(0), text)
        return _KEY_SHAPE.sub(MARK, text)

    def scrub_json(self, obj: Any) -> Any:
        """`scrub` applied to every string (keys too) of a `body()` result."""
        if isinstance(obj, dict):
            return {self.scrub(k): self.scrub_json(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self.scrub_json(v) for v in obj]
        return self.scrub(obj) if isinstance(obj, str) else obj


def scrub_text(text: str, replacement: str = "[hidden key]") -> str:
    """Hide key-shaped values in a message (e.g. a provider error that echoes the key).

    Example: scrub_text("Invalid key sk-live0123456789") -> "Invalid key [hidden key]"
    """
    return Redactor().scrub(text).replace(MARK, replacement)


__all__ = ["MARK", "Redactor", "is_secret_field", "is_secret_header", "scrub_text"]
