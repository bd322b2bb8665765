"""Pigeonhole's Python client and pytest plugin (standard library only).

    from pigeonhole import Pigeonhole
    ph = Pigeonhole("http://localhost:8025")
    inbox = ph.inbox()                       # a fresh namespace
    signup(inbox.address("ada"))             # your application sends to ada+<tag>@example.com
    mail = inbox.wait(subject="Confirm")
    mail.link("Confirm"), mail.codes[0]
"""

from .client import Clock, Page, Pigeonhole
from .errors import ExpectationFailed, PigeonholeError, SandboxUnreachable, TooFewMessages, TooManyMessages, WaitTimeout
from .inbox import Inbox, new_namespace
from .message import Link, Message
from .sandbox import Sandbox, SandboxError, start_sandbox

__all__ = [
    "Clock",
    "ExpectationFailed",
    "Inbox",
    "Link",
    "Message",
    "Page",
    "Pigeonhole",
    "PigeonholeError",
    "Sandbox",
    "SandboxError",
    "SandboxUnreachable",
    "TooFewMessages",
    "TooManyMessages",
    "WaitTimeout",
    "new_namespace",
    "start_sandbox",
]
__version__ = "0.1.0"
