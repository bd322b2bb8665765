"""The exceptions of the client: one per answer a test has to tell apart."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional

if TYPE_CHECKING:
    from .message import Message


class PigeonholeError(Exception):
    """A non-2xx answer from the sandbox: the HTTP status and the body it sent (JSON when it was),
    and `url`, the URL it answered (when the client asked it)."""

    def __init__(self, status: int, body: Any, message: Optional[str] = None, url: Optional[str] = None) -> None:
        self.status = status
        self.body = body
        self.url = url
        super().__init__(message or f"Pigeonhole answered {status}{f' to {url}' if url else ''}: {body!r}")

    @property
    def refused(self) -> List[Dict[str, Any]]:
        """Sends through /v1 that would have matched a failed wait or expectation but were refused
        (the daily limit, a wrong key, ...): the request log's word for why the mail never came."""
        refused = self.body.get("refused") if isinstance(self.body, dict) else None
        return list(refused) if isinstance(refused, list) else []

    @property
    def smtp_refused(self) -> List[Dict[str, Any]]:
        """SMTP commands the sandbox refused that could have carried the message of a failed wait or
        expectation (a failed AUTH, a size limit, a fault rule's reply): for applications that send
        over SMTP, why the mail never came."""
        refused = self.body.get("smtp_refused") if isinstance(self.body, dict) else None
        return list(refused) if isinstance(refused, list) else []

    @property
    def detail(self) -> Optional[str]:
        """The sandbox API's `detail` text, when the body has one."""
        if isinstance(self.body, dict) and isinstance(self.body.get("detail"), str):
            return str(self.body["detail"])
        return None


class SandboxUnreachable(PigeonholeError, ConnectionError):
    """No answer at all from the sandbox (connection refused, unknown host, a timeout): `url` is
    what was asked, `reason` why. Also a ConnectionError (an OSError), as urllib's own error was."""

    def __init__(self, url: str, reason: Any) -> None:
        self.reason = reason
        super().__init__(
            0,
            None,
            f"cannot reach the sandbox at {url}: {reason}. Is it running, and is this its base URL (http://host:port, the port of its HTTP server)?",
            url,
        )


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

    def __init__(self, status: int, body: Any, expected: int, messages: List["Message"], url: Optional[str] = None) -> None:
        self.expected = expected
        self.count: int = int(body.get("count", len(messages))) if isinstance(body, dict) else len(messages)
        self.messages = messages
        detail = body.get("detail") if isinstance(body, dict) else None
        seen = "; ".join(f"{m.id} {m.subject!r} to {', '.join(m.recipients)}" for m in messages)
        text = f"expected {expected} email(s), {self.count} matched" + (f" ({detail})" if detail else "")
        asked = f" (GET {url})" if url else ""
        super().__init__(status, body, text + (f": {seen}" if seen else "") + asked, url)


class TooManyMessages(ExpectationFailed):
    """More captures matched than expected (409), raised as soon as the extra one was captured."""


class TooFewMessages(ExpectationFailed):
    """Fewer captures matched than expected by the end of `within` (408)."""
