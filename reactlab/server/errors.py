"""Errors in OpenAI's shape: `{"error": {"message", "type", "param", "code"}}`.

Every failure the server reports goes through `APIError`, so a client written for OpenAI
(the `openai` SDK included) raises the matching exception (`BadRequestError` for 400,
`NotFoundError` for 404, `InternalServerError` for 500) with our sentence as its message.
413 (body too large, see `limits`) and 408 (upload too slow) are raised while `app` reads
the body; `headers` lets the 408 close its connection.

This module does not decide *when* a request is wrong: `validate` and `app` do.
Introduced in notebook 05 (a tool message sent without its assistant message).
"""

from __future__ import annotations

TYPES = {400: "invalid_request_error", 401: "invalid_request_error",
         404: "invalid_request_error", 408: "invalid_request_error",
         413: "invalid_request_error", 500: "server_error"}


class APIError(Exception):
    """A request the server refuses or could not serve, with the HTTP status to send.

    Example: APIError(400, "'temperature' must be a number", param="temperature")
    """

    def __init__(self, status: int, message: str, param: str | None = None,
                 code: str | None = None, type: str | None = None,
                 headers: dict[str, str] | None = None):
        super().__init__(message)
        self.headers = headers  # e.g. {"Connection": "close"} when the body was not read
        self.status = status
        self.message = message
        self.param = param
        self.code = code
        self.type = type or TYPES.get(status, "invalid_request_error")

    def body(self) -> dict:
        """Example: {"error": {"message": "…", "type": "invalid_request_error", "param": "model",
        "code": "model_not_found"}}"""
        return {"error": {"message": self.message, "type": self.type,
                          "param": self.param, "code": self.code}}


def bad_request(message: str, param: str | None = None, code: str | None = None) -> APIError:
    return APIError(400, message, param=param, code=code)
