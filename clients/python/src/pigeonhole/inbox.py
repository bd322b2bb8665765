"""A namespace of the sandbox as a test's own inbox: addresses that land in it, and every capture
lookup narrowed to it. Mail to `ada+<tag>@example.com` is captured in namespace `<tag>`."""

from __future__ import annotations

import re
import secrets
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from .client import EXPECT_NONE_WITHIN_S
from .message import Message

if TYPE_CHECKING:
    from .client import FilterValue, Page, Pigeonhole

# A tag is 1-64 letters, digits, `-` or `_` (docs/testing.md, "Namespaces"); a new one is kept
# short so an address stays well inside the 64 characters of a local part.
_TAG = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def new_namespace(label: str = "") -> str:
    """A fresh namespace tag: up to 15 characters of `label` (slugged) and 8 random hex digits."""
    slug = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")[:15].strip("-")
    token = secrets.token_hex(4)
    return f"{slug}-{token}" if slug else f"t{token}"


class Inbox:
    """The captures of one namespace. `address("ada")` is `ada+<namespace>@example.com`."""

    def __init__(self, client: "Pigeonhole", namespace: Optional[str] = None) -> None:
        tag = namespace if namespace is not None else new_namespace()
        if not _TAG.match(tag):
            raise ValueError(f"a namespace is 1-64 letters, digits, '-' or '_', not {tag!r}")
        self.client = client
        self.namespace = tag.lower()

    def __repr__(self) -> str:
        return f"<Inbox {self.namespace} on {self.client.url}>"

    def address(self, local: str = "user", domain: str = "example.com") -> str:
        """An address whose mail lands in this inbox: `<local>+<namespace>@<domain>`."""
        if "+" in local or "@" in local or not local:
            raise ValueError(f"give the local part without '+' or '@': {local!r}")
        return f"{local}+{self.namespace}@{domain}"

    def wait(self, timeout: float = 10.0, **filters: "FilterValue") -> Message:
        """The newest capture of this inbox matching the filters, waiting up to `timeout` s (WaitTimeout)."""
        return self.client.wait(timeout, namespace=self.namespace, **filters)

    def expect(self, count: int = 1, within: float = 10.0, settle: Optional[float] = None, **filters: "FilterValue") -> List[Message]:
        """Exactly `count` captures in this inbox matching the filters (ExpectationFailed otherwise)."""
        return self.client.expect(count, within, settle, namespace=self.namespace, **filters)

    def expect_none(self, within: float = EXPECT_NONE_WITHIN_S, **filters: "FilterValue") -> None:
        """No capture in this inbox matches the filters, now or within `within` s (ExpectationFailed)."""
        self.client.expect_none(within, namespace=self.namespace, **filters)

    def latest(self, **filters: "FilterValue") -> Optional[Message]:
        return self.client.latest(namespace=self.namespace, **filters)

    def messages(self, **filters: Any) -> "Page":
        return self.client.messages(namespace=self.namespace, **filters)

    def search(self, **filters: Any) -> "Page":
        return self.client.search(namespace=self.namespace, **filters)

    def reset(self) -> Dict[str, Any]:
        """Removes this inbox's captures (and its addresses' recipient records); nothing else."""
        return self.client.reset(namespace=self.namespace)
