"""A captured email as the sandbox API describes it, with the fields a test reads as attributes."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Dict, List, NamedTuple, Optional

if TYPE_CHECKING:
    from .client import Pigeonhole


class Link(NamedTuple):
    """A link of a capture: where it goes and the text the reader sees."""

    href: str
    text: str


# Fields only the whole capture (GET /api/messages/<id>, wait, latest, expect) carries; reading
# one on a summary from a list fetches the capture once.
_DETAIL_FIELDS = ("html", "text", "text_derived", "links", "codes", "headers", "attachments")


class Message:
    """One capture. `raw` is the JSON the server sent; the attributes read it.

    Summaries (from `messages()`) have no bodies: reading `html`, `text`, `links`, `codes`,
    `headers` or `attachments` on one fetches the whole capture once.
    """

    def __init__(self, data: Dict[str, Any], client: Optional["Pigeonhole"] = None) -> None:
        self.raw: Dict[str, Any] = dict(data)
        self._client = client

    def __repr__(self) -> str:
        return f"<Message {self.id} {self.subject!r} to {', '.join(self.recipients)}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Message) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __getitem__(self, field: str) -> Any:
        return self._field(field)

    def _field(self, field: str) -> Any:
        if field not in self.raw and field in _DETAIL_FIELDS and self._client is not None:
            self.raw.update(self._client.get(self.id).raw)
        return self.raw.get(field)

    @property
    def id(self) -> str:
        return str(self.raw["id"])

    @property
    def subject(self) -> str:
        return str(self.raw.get("subject", ""))

    @property
    def html(self) -> Optional[str]:
        value = self._field("html")
        return None if value is None else str(value)

    @property
    def text(self) -> Optional[str]:
        """The plain part, or the HTML rendered as text when there is none (see `text_derived`)."""
        value = self._field("text")
        return None if value is None else str(value)

    @property
    def text_derived(self) -> bool:
        return bool(self._field("text_derived"))

    @property
    def links(self) -> List[str]:
        """Every link's href, in reading order (the server's extraction, de-duplicated)."""
        return [link.href for link in self.link_details]

    @property
    def link_details(self) -> List[Link]:
        return [Link(str(link["href"]), str(link.get("text", ""))) for link in self._field("links") or []]

    def link(self, text: str) -> str:
        """The href of the first link whose visible text contains `text` (any case); KeyError if none."""
        for link in self.link_details:
            if text.lower() in link.text.lower():
                return link.href
        raise KeyError(f"no link with the text {text!r} in {self!r}: {self.link_details}")

    @property
    def codes(self) -> List[str]:
        """One-time codes found in the visible text (`482913`, `A1B2C3`), in reading order."""
        return [str(code) for code in self._field("codes") or []]

    @property
    def recipients(self) -> List[str]:
        """Every address on the capture: the one the sender asked for, then To, Cc and Bcc, once each."""
        seen: List[str] = []
        for address in [self.raw.get("recipient"), *self.to, *self.cc, *self.bcc]:
            if address and address not in seen:
                seen.append(str(address))
        return seen

    @property
    def recipient(self) -> str:
        """The address the sender asked for (before a Development Mode redirect)."""
        return str(self.raw.get("recipient", ""))

    @property
    def to(self) -> List[str]:
        return [str(a) for a in self.raw.get("to") or []]

    @property
    def cc(self) -> List[str]:
        return [str(a) for a in self.raw.get("cc") or []]

    @property
    def bcc(self) -> List[str]:
        return [str(a) for a in self.raw.get("bcc") or []]

    @property
    def namespace(self) -> Optional[str]:
        """The capture's namespace: the `+tag` of the first tagged address (None when untagged)."""
        value = self.raw.get("namespace")
        return None if value is None else str(value)

    @property
    def sender(self) -> Optional[str]:
        """The configured sender id (None for anonymous SMTP)."""
        value = self.raw.get("sender")
        return None if value is None else str(value)

    @property
    def from_address(self) -> str:
        return str(self.raw.get("from", ""))

    @property
    def source(self) -> str:
        """`api`, `smtp` or `flow`."""
        return str(self.raw.get("source", ""))

    @property
    def status(self) -> str:
        return str(self.raw.get("status", ""))

    @property
    def created_at(self) -> datetime:
        return datetime.fromisoformat(str(self.raw["created_at"]).replace("Z", "+00:00"))

    @property
    def headers(self) -> List[Dict[str, str]]:
        return list(self._field("headers") or [])

    def header(self, name: str) -> Optional[str]:
        """The first header of that name (any case), decoded, or None."""
        for field in self.headers:
            if field["name"].lower() == name.lower():
                return field["value"]
        return None
