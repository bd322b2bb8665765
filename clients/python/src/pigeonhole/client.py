"""The client of Pigeonhole's sandbox API (/api), in the standard library only (urllib and json).

It mirrors the TypeScript client (client/pigeonhole-client.ts) in Python's terms: keyword
filters, durations in seconds, exceptions for the answers a test has to tell apart, and
`Message` objects for captures.

    from pigeonhole import Pigeonhole
    ph = Pigeonhole("http://localhost:8025")
    mail = ph.wait(recipient="ada+t1@example.com", subject="Confirm")
    mail.codes[0], mail.link("Confirm")
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from .errors import PigeonholeError, SandboxUnreachable, TooFewMessages, TooManyMessages, WaitTimeout
from .hello import read_hello
from .message import Message

if TYPE_CHECKING:
    from .inbox import Inbox

DEFAULT_URL = "http://localhost:8025"

# `expect_none`'s `within` when none is given, in seconds: the same in the TypeScript client, the
# MCP tool and the API (docs/testing.md, "Expecting no email").
EXPECT_NONE_WITHIN_S = 1.0

# The capture filters of the sandbox API (docs/sandbox-api.md, "Filters"), and `namespace`.
FILTERS = frozenset(
    {"recipient", "subject", "q", "sender", "team", "source", "status", "since", "after", "namespace", "blocked", "redirected", "read"}
)

# Added to a server-side hold (wait, expect) for the HTTP request's own timeout: the server
# answers at the end of the hold, this is only there so a dead connection does not hang a test.
_NETWORK_MARGIN_S = 30.0

FilterValue = Union[str, bool, datetime, Message, None]


@dataclass(frozen=True)
class Page:
    """A page of captures, newest first: `total` is the count of every match, not of this page."""

    total: int
    offset: int
    limit: int
    messages: List[Message]

    def __len__(self) -> int:
        return len(self.messages)

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages)


@dataclass(frozen=True)
class Clock:
    """The sandbox clock: `now` on it, how far it is ahead of real time, and whether it is real time."""

    now: datetime
    offset_ms: int
    real_time: bool


class _Section:
    def __init__(self, client: "Pigeonhole") -> None:
        self._client = client


class ClockApi(_Section):
    """The sandbox clock (flow waits, delivery delays, the daily limit's day): docs/flows.md."""

    def get(self) -> Clock:
        return _clock(self._client._call("GET", "/api/clock"))

    def advance(self, duration: str) -> Clock:
        """Moves the clock forward by a duration such as `30s`, `15m`, `2h`, `1d` or `1d12h`, running what falls due."""
        return _clock(self._client._call("POST", "/api/clock/advance", body={"duration": duration}))

    def set(self, at: Union[datetime, str]) -> Clock:
        """Moves the clock forward to an instant (never backwards: that is a 400)."""
        return _clock(self._client._call("POST", "/api/clock/set", body={"at": _query_value(at)}))

    def reset(self) -> Clock:
        """Back to real time."""
        return _clock(self._client._call("POST", "/api/clock/reset"))


class FaultsApi(_Section):
    """Fault rules: make /v1 or SMTP fail, delay or throttle (docs/sandbox-api.md, "Fault rules")."""

    def list(self) -> List[Dict[str, Any]]:
        return list(self._client._call("GET", "/api/faults")["faults"])

    def add(self, rule: Optional[Mapping[str, Any]] = None, **fields: Any) -> Dict[str, Any]:
        """Adds a rule (a dict, or its fields as keywords: `target`, `match`, `action`, `times`, ...); answers it with its `id`."""
        return dict(self._client._call("POST", "/api/faults", body={**(rule or {}), **fields}))

    def get(self, rule_id: str) -> Dict[str, Any]:
        return dict(self._client._call("GET", f"/api/faults/{_segment(rule_id)}"))

    def remove(self, rule: Union[str, Mapping[str, Any]]) -> None:
        """Removes one rule, given its id or the rule `add` answered."""
        rule_id = rule if isinstance(rule, str) else str(rule["id"])
        self._client._call("DELETE", f"/api/faults/{_segment(rule_id)}")

    def clear(self) -> None:
        """Removes every rule, the configured ones too (a reset brings those back)."""
        self._client._call("DELETE", "/api/faults")


class RequestsApi(_Section):
    """The /v1 request log, newest first."""

    def list(self, **filters: Any) -> Dict[str, Any]:
        return dict(self._client._call("GET", "/api/requests", query=filters))

    def clear(self) -> None:
        self._client._call("DELETE", "/api/requests")


class TemplatesApi(_Section):
    """Each sender's account template, edited live: the version in use, new versions, revert, and
    captures re-wrapped in a draft (docs/sandbox-api.md, "Templates"). Version 0 is the
    configuration file's; a save is used from the next send on."""

    def get(self, sender: str) -> Dict[str, Any]:
        """The version in use: `version`, `html` (None for a sender configured without one), `saved_at`."""
        return dict(self._client._call("GET", f"/api/senders/{_segment(sender)}/template"))

    def save(self, sender: str, html: str) -> Dict[str, Any]:
        """Saves a new version (it must contain `{{content}}`: a 400 PigeonholeError otherwise) and uses it."""
        return dict(self._client._call("PUT", f"/api/senders/{_segment(sender)}/template", body={"html": html}))

    def versions(self, sender: str) -> Dict[str, Any]:
        """`current` and every version, 0 first."""
        return dict(self._client._call("GET", f"/api/senders/{_segment(sender)}/template/versions"))

    def revert(self, sender: str, version: Optional[int] = None) -> Dict[str, Any]:
        """Uses an earlier version again; without one, the configuration file's."""
        return dict(self._client._call("POST", f"/api/senders/{_segment(sender)}/template/revert", body={} if version is None else {"version": version}))

    def rewrap(self, sender: str, html: Optional[str] = None, ids: Optional[Sequence[Union[str, Message]]] = None) -> List[Dict[str, Any]]:
        """Captures' bodies as sent wrapped in a draft template (None: the version in use); `ids` default to the sender's newest 20."""
        body: Dict[str, Any] = {}
        if html is not None:
            body["html"] = html
        if ids is not None:
            body["ids"] = [_id(i) for i in ids]
        return list(self._client._call("POST", f"/api/senders/{_segment(sender)}/template/rewrap", body=body)["captures"])


class Pigeonhole:
    """A client of one sandbox. `url` is its base URL (no `/api`); a `user:password@` in it, or
    `auth="user:password"`, logs in to a sandbox started with `--auth`. `smtp` is `(host, port)`
    of its SMTP capture when the one it announces is not the one to use (a mapped port).

    Durations are seconds. Filters are keywords: recipient, subject, q, sender, team, source,
    status, since (a datetime or ISO text), after (a capture id or Message), namespace, and for
    `messages()` blocked, redirected, read. An unknown filter is a TypeError, not a filter
    silently ignored.
    """

    def __init__(self, url: str = DEFAULT_URL, auth: Optional[str] = None, smtp: Optional[Sequence[Any]] = None) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL of a sandbox: {url!r}")
        login = auth
        if parts.username is not None and login is None:
            login = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
        netloc = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
        if parts.port is not None:
            netloc += f":{parts.port}"
        self.url = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))
        self._authorization = "Basic " + base64.b64encode(login.encode()).decode() if login else None
        self._host = parts.hostname
        self._smtp: Optional[Tuple[str, int]] = (str(smtp[0]), int(smtp[1])) if smtp else None
        self.clock = ClockApi(self)
        self.faults = FaultsApi(self)
        self.requests = RequestsApi(self)
        self.templates = TemplatesApi(self)

    def __repr__(self) -> str:
        return f"Pigeonhole({self.url!r})"

    @property
    def smtp(self) -> Tuple[str, int]:
        """Where the sandbox takes SMTP, `(host, port)`: as given, else the port the sandbox
        announces (its live push's hello frame, asked once) on the URL's host."""
        if self._smtp is None:
            port = read_hello(self.url, self._authorization).get("smtp_port")
            if port is None:
                raise PigeonholeError(0, None, f"the sandbox at {self.url} announces no SMTP port")
            self._smtp = (self._host, int(port))
        return self._smtp

    # -- captures --------------------------------------------------------------------------

    def wait(self, timeout: float = 10.0, **filters: FilterValue) -> Message:
        """The newest capture matching the filters, held server-side until one is stored.

        A capture that already matches is answered at once. Raises WaitTimeout after `timeout`
        seconds (the server's 408).
        """
        query = {**_filters(filters), "timeout": _ms(timeout, "timeout")}
        try:
            return self._message(self._call("GET", "/api/messages/wait", query=query, hold=timeout))
        except PigeonholeError as error:
            if error.status == 408:
                text = f"no email matching {_describe(filters)} arrived within {timeout:g} s"
                # The server's sentence names the sends that would have matched but were refused
                # (through /v1 or over SMTP).
                if (error.refused or error.smtp_refused) and error.detail:
                    text += f" ({error.detail})"
                raise WaitTimeout(error.status, error.body, f"{text} (GET {error.url})", error.url) from None
            raise

    def expect(self, count: int = 1, within: float = 10.0, settle: Optional[float] = None, **filters: FilterValue) -> List[Message]:
        """Exactly `count` captures matching the filters (newest first, at most 50 listed).

        Answers once `count` match and no further one arrives within `settle` seconds (the
        server's default, 0.25, when not given; never more than `within`). Raises TooManyMessages
        (409) as soon as more match, TooFewMessages (408) when fewer had matched after `within`
        seconds; both are ExpectationFailed. `count=0` is `expect_none`.
        """
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise ValueError(f"count must be a whole number (0 or more), not {count!r}")
        query = {**_filters(filters), "count": str(count), "within": _ms(within, "within")}
        if settle is not None:
            query["settle"] = _ms(settle, "settle")
        try:
            body = self._call("GET", "/api/messages/expect", query=query, hold=within + (settle or 0.0))
        except PigeonholeError as error:
            if error.status in (408, 409) and isinstance(error.body, dict) and "count" in error.body:
                found = [self._message(m) for m in error.body.get("messages") or []]
                failure = TooManyMessages if error.status == 409 else TooFewMessages
                raise failure(error.status, error.body, count, found, error.url) from None
            raise
        return [self._message(m) for m in body.get("messages") or []]

    def expect_none(self, within: float = EXPECT_NONE_WITHIN_S, **filters: FilterValue) -> None:
        """No capture matches the filters, stored already or arriving within `within` seconds
        (default 1: a passing check waits all of it).

        Raises ExpectationFailed (409) with the offending captures as soon as one matches.
        """
        self.expect(0, within=within, **filters)

    def latest(self, **filters: FilterValue) -> Optional[Message]:
        """The newest capture matching the filters (with bodies, links and codes), or None."""
        try:
            return self._message(self._call("GET", "/api/messages/latest", query=_filters(filters)))
        except PigeonholeError as error:
            if error.status == 404:
                return None
            raise

    def search(self, limit: Optional[int] = None, offset: Optional[int] = None, **filters: FilterValue) -> Page:
        """Matching captures, newest first, each with its links and codes (bodies are fetched on use)."""
        return self._page(self._call("GET", "/api/messages/search", query={**_filters(filters), "limit": limit, "offset": offset}))

    def messages(self, limit: Optional[int] = None, offset: Optional[int] = None, **filters: FilterValue) -> Page:
        """The inbox list, newest first (summaries; bodies are fetched on use)."""
        return self._page(self._call("GET", "/api/messages", query={**_filters(filters), "limit": limit, "offset": offset}))

    def get(self, message_id: Union[str, Message]) -> Message:
        """One capture whole: bodies, text view, links, codes, headers, attachments, the API record."""
        return self._message(self._call("GET", f"/api/messages/{_segment(_id(message_id))}"))

    def raw(self, message_id: Union[str, Message]) -> bytes:
        """The capture's RFC 5322 message (.eml) as stored."""
        return self._request("GET", f"/api/messages/{_segment(_id(message_id))}/raw")

    def extract(self, message_id: Union[str, Message]) -> Dict[str, Any]:
        """`{"links": [{"href", "text"}], "codes": [...]}` of one capture."""
        return dict(self._call("GET", f"/api/messages/{_segment(_id(message_id))}/extract"))

    def set_status(self, message_id: Union[str, Message], status: str) -> Message:
        """Forces `delivered`, `bounced`, `complained` or `failed` (a bounce or complaint blocks the recipient)."""
        return self._message(self._call("POST", f"/api/messages/{_segment(_id(message_id))}/status", body={"status": status}))

    def release(self, message_id: Union[str, Message], to: Sequence[str]) -> Dict[str, Any]:
        """Relays a capture to real inboxes through the sandbox's --relay (only to addresses --relay-allow
        lets through); its message unchanged but for the envelope's recipients. A PigeonholeError
        otherwise: 409 without a relay, 403 for an address not allowed, 502 when the relay refuses."""
        return dict(self._call("POST", f"/api/messages/{_segment(_id(message_id))}/release", body={"to": list(to)}))

    def delete(self, message_id: Union[str, Message]) -> None:
        self._call("DELETE", f"/api/messages/{_segment(_id(message_id))}")

    def check(self, message_id: Union[str, Message], platforms: Optional[Sequence[str]] = None) -> Dict[str, Any]:
        """The designers' check of a capture: compatibility, size, accessibility, dark mode, headers, spam."""
        query = {"platform": ",".join(platforms) if platforms else None}
        return dict(self._call("GET", f"/api/messages/{_segment(_id(message_id))}/check", query=query))

    def render(self, message_id: Union[str, Message], client: str, mode: Optional[str] = None) -> Dict[str, Any]:
        """A capture as an email client would show it, approximately: `client` is one of
        gmail-web, gmail-app, outlook-windows, outlook-com, apple-mail, yahoo, images-off; `mode`
        light (default), dark or inverted. Answers `client`, `fidelity`, `html` and `removed`
        (what went, by which rule, with the check finding it answers to)."""
        query = {"client": client, "mode": mode}
        return dict(self._call("GET", f"/api/messages/{_segment(_id(message_id))}/render", query=query))

    # -- the sandbox -----------------------------------------------------------------------

    def inbox(self, namespace: Optional[str] = None) -> "Inbox":
        """A namespace of this sandbox as an inbox of its own (a fresh one unless named)."""
        from .inbox import Inbox

        return Inbox(self, namespace)

    def reset(self, namespace: Optional[str] = None, team: Optional[str] = None, restore_fixtures: Optional[bool] = None) -> Dict[str, Any]:
        """Empties the sandbox; with `namespace`, only that namespace's captures (and its
        addresses' recipient records); with `team`, only that team's. Answers what was removed."""
        body = {"namespace": namespace, "team": team, "restore_fixtures": restore_fixtures}
        return dict(self._call("POST", "/api/reset", body={k: v for k, v in body.items() if v is not None}))

    def reset_daily_counts(self, sender: Optional[str] = None, team: Optional[str] = None) -> int:
        """Starts the senders' counts against their daily limit over (every sender's, or one
        `sender`'s, id or API key, or one `team`'s): for a shared sandbox, once before a run.
        Answers how many had a count."""
        return int(self._call("DELETE", "/api/senders/daily-counts", query={"sender": sender, "team": team})["daily_counters"])

    def senders(self) -> List[Dict[str, Any]]:
        """The configured senders with their API keys (and `sent_today`)."""
        return list(self._call("GET", "/api/senders")["senders"])

    def recipients(self, **filters: Any) -> Dict[str, Any]:
        """Every team's recipients (`team`, `q`, `limit`, `offset`), newest first."""
        return dict(self._call("GET", "/api/recipients", query=filters))

    def subscriptions(self, **filters: Any) -> Dict[str, Any]:
        """Flow subscriptions with their step timelines (`team`, `email`, `status`, `limit`, `offset`)."""
        return dict(self._call("GET", "/api/subscriptions", query=filters))

    def blocks(self, team: Optional[str] = None) -> List[Dict[str, Any]]:
        return list(self._call("GET", "/api/blocks", query={"team": team})["blocks"])

    def block(self, team: str, email: str) -> Dict[str, Any]:
        return dict(self._call("POST", "/api/blocks", body={"team": team, "email": email}))

    def unblock(self, team: str, email: str) -> None:
        self._call("DELETE", "/api/blocks", query={"team": team, "email": email})

    def ready(self) -> bool:
        """True when /readyz answers 200."""
        return self.not_ready() is None

    def not_ready(self) -> Optional[str]:
        """None when /readyz answers 200; else what was answered, naming the URL and what to change."""
        try:
            self._request("GET", "/readyz", timeout=5.0)
            return None
        except PigeonholeError as error:
            return str(error)
        except OSError as error:
            return f"{self.url}/readyz: {error}"

    # -- the emulated API ------------------------------------------------------------------

    def send_email(self, api_key: str, recipient: str, subject: str, body: str, **fields: Any) -> Dict[str, Any]:
        """Sends through the emulated /v1 API with an API key, as an application would; answers
        `{"id": ...}`. Other fields (`plain_body`, `first_name`, `flags`, ...) as keywords."""
        payload = {"recipient": recipient, "subject": subject, "body": body, **fields}
        data = json.dumps(payload).encode()
        headers = {"Authorization": f"Api-Key {api_key}", "Content-Type": "application/json"}
        return dict(_json(self._request("POST", "/v1/email/send/", data=data, headers=headers, login=False)))

    # -- plumbing --------------------------------------------------------------------------

    def _message(self, data: Any) -> Message:
        return Message(data, self)

    def _page(self, body: Any) -> Page:
        return Page(int(body["total"]), int(body["offset"]), int(body["limit"]), [self._message(m) for m in body["messages"]])

    def _call(self, method: str, path: str, query: Optional[Mapping[str, Any]] = None, body: Optional[Mapping[str, Any]] = None, hold: float = 0.0) -> Any:
        if query:
            pairs = {name: _query_value(value) for name, value in query.items() if value is not None}
            if pairs:
                path += "?" + urllib.parse.urlencode(pairs)
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        return _json(self._request(method, path, data=data, headers=headers, timeout=hold + _NETWORK_MARGIN_S))

    def _request(
        self,
        method: str,
        path: str,
        data: Optional[bytes] = None,
        headers: Optional[Dict[str, str]] = None,
        timeout: float = _NETWORK_MARGIN_S,
        login: bool = True,
    ) -> bytes:
        url = self.url + path
        request = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
        if login and self._authorization:
            request.add_header("Authorization", self._authorization)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return bytes(response.read())
        except urllib.error.HTTPError as error:
            text = error.read()
            error.close()
            try:
                answer: Any = json.loads(text) if text else None
            except ValueError:
                answer = text.decode("utf-8", "replace")
            message = f"Pigeonhole answered {error.code} to {method} {url}: {json.dumps(answer) if isinstance(answer, (dict, list)) else repr(answer)}"
            raise PigeonholeError(error.code, answer, message + self._hint(error.code), url) from None
        except urllib.error.URLError as error:
            raise SandboxUnreachable(url, getattr(error.reason, "strerror", None) or error.reason) from None
        except OSError as error:  # a timeout or a connection reset mid-answer
            raise SandboxUnreachable(url, error) from None

    def _hint(self, status: int) -> str:
        """What to change when a 404 shows the base URL is wrong: one ending in /v1 or /api."""
        prefix = urllib.parse.urlsplit(self.url).path.rstrip("/").rsplit("/", 1)[-1]
        if status != 404 or prefix not in ("v1", "api"):
            return ""
        root = self.url[: -len(prefix) - 1]
        return f". The base URL {self.url} ends in /{prefix}: give the sandbox's root instead ({root}), without /{prefix}."


def _json(text: bytes) -> Any:
    return json.loads(text) if text else None


def _filters(filters: Mapping[str, FilterValue]) -> Dict[str, Any]:
    unknown = sorted(set(filters) - FILTERS)
    if unknown:
        raise TypeError(f"unknown filter(s) {', '.join(unknown)}; the filters are {', '.join(sorted(FILTERS))}")
    return {name: (value.id if isinstance(value, Message) else value) for name, value in filters.items()}


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return str(value)


def _ms(seconds: float, name: str) -> str:
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds < 0:
        raise ValueError(f"{name} is in seconds (0 or more), not {seconds!r}")
    return str(round(seconds * 1000))


def _id(message: Union[str, Message]) -> str:
    return message.id if isinstance(message, Message) else message


def _segment(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def _describe(filters: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={_query_value(v.id if isinstance(v, Message) else v)}" for k, v in filters.items()) or "any filter"


def _clock(body: Any) -> Clock:
    return Clock(datetime.fromisoformat(str(body["now"]).replace("Z", "+00:00")), int(body["offset_ms"]), bool(body["real_time"]))
