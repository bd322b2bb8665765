"""The exceptions of the client: one per answer a test has to tell apart."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional

if TYPE_CHECKING:
    from .message import Message


class PigeonholeError(Exception):
    """A non-2xx answer from the sandbox: the HTTP status and the body it sent (JSON when it was)."""

    def __init__(self, status: int, body: Any, message: Optional[str] = None) -> None:
        self.status = status
        self.body = body
        super().__init__(message or f"Pigeonhole answered {status}: {body!r}")

    @property
    def detail(self) -> Optional[str]:
        """The sandbox API's `detail` text, when the body has one."""
        if isinstance(self.body, dict) and isinstance(self.body.get("detail"), str):
            return str(self.body["detail"])
        return None


class WaitTimeout(PigeonholeError, AssertionError):
    """`wait` gave up: no capture matched the filters within the timeout (the server's 408).

    An AssertionError too, so pytest reports it as a failed expectation, not an error.
    """


class ExpectationFailed(PigeonholeError, AssertionError):
    """`expect` or `expect_none` did not see exactly the expected number of captures.

    `status` is 409 when more matched than expected (TooManyMessages, raised as soon as the
    extra one was captured) and 408 when fewer had matched by the end of `within`
    (TooFewMessages). `expected` is the count asked for, `count` the number that matched,
    `messages` the matches (newest first, at most 50).
    """

    def __init__(self, status: int, body: Any, expected: int, messages: List["Message"]) -> None:
        self.expected = expected
        self.count: int = int(body.get("count", len(messages))) if isinstance(body, dict) else len(messages)
        self.messages = messages
        detail = body.get("detail") if isinstance(body, dict) else None
        seen = "; ".join(f"{m.id} {m.subject!r} to {', '.join(m.recipients)}" for m in messages)
        text = f"expected {expected} email(s), {self.count} matched" + (f" ({detail})" if detail else "")
        super().__init__(status, body, text + (f": {seen}" if seen else ""))


class TooManyMessages(ExpectationFailed):
    """More captures matched than expected (409), raised as soon as the extra one was captured."""


class TooFewMessages(ExpectationFailed):
    """Fewer captures matched than expected by the end of `within` (408)."""
