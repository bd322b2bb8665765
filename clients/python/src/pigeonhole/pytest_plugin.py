"""The pytest plugin: registered through the `pytest11` entry point (loaded by pytest once the
package is installed), or loaded with `-p pigeonhole.pytest_plugin`.

Fixtures:
- `pigeonhole` (session): a `Pigeonhole` client with `.url` and `.smtp` (host, port). With
  `--pigeonhole-url` or `PIGEONHOLE_URL` it is that running sandbox (its SMTP port the one it
  announces, or `PIGEONHOLE_SMTP_PORT` when set; its login `PIGEONHOLE_AUTH`). Otherwise the plugin starts a sandbox on free ports with a temporary data
  directory on first use (`--pigeonhole-command` or `PIGEONHOLE_COMMAND` says which server,
  see `pigeonhole.sandbox`) and stops it at the end of the session. Under pytest-xdist each
  worker starts its own: nothing is shared between processes, and a worker that never asks for
  the fixture starts nothing.
- `pigeonhole_inbox` (function): a fresh namespace for the test. `.address("ada")` is
  `ada+<namespace>@example.com`; `.wait(**filters)`, `.expect(count=N)`,
  `.expect_none(within=seconds)`, `.latest()`, `.messages()` look only at its captures; its
  captures are removed when the test ends. Tests in other namespaces never see its mail, so
  tests can share one sandbox, in parallel too. When a test using it fails, its report gets a
  section listing the namespace's captures (before they are removed).
"""

from __future__ import annotations

import os
import urllib.parse
from typing import Generator, Iterator, Optional

import pytest

from .client import Pigeonhole
from .inbox import Inbox, new_namespace
from .sandbox import SandboxError, start_sandbox


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pigeonhole", "Pigeonhole email sandbox")
    group.addoption(
        "--pigeonhole-url",
        default=None,
        help="a running sandbox to use (default: $PIGEONHOLE_URL; without either, one is started for the session)",
    )
    group.addoption(
        "--pigeonhole-command",
        default=None,
        help="the command that starts a sandbox when none is given, e.g. 'npx pigeonhole' (default: $PIGEONHOLE_COMMAND, "
        "else the repository or npm package found from the current directory)",
    )


def _running(url: str) -> Pigeonhole:
    # SMTP: PIGEONHOLE_SMTP_PORT on the URL's host when set (a port mapped to another), else the
    # port the sandbox announces.
    port = os.environ.get("PIGEONHOLE_SMTP_PORT")
    smtp = (urllib.parse.urlsplit(url).hostname or "127.0.0.1", int(port)) if port else None
    client = Pigeonhole(url, auth=os.environ.get("PIGEONHOLE_AUTH") or None, smtp=smtp)
    why = client.not_ready()
    if why is not None:
        raise SandboxError(f"the sandbox at {client.url} (from --pigeonhole-url or PIGEONHOLE_URL) is not ready: {why}")
    return client


@pytest.fixture(scope="session")
def pigeonhole(request: pytest.FixtureRequest) -> Iterator[Pigeonhole]:
    """The sandbox client for the session (see the module's docstring for which sandbox)."""
    url: Optional[str] = request.config.getoption("pigeonhole_url") or os.environ.get("PIGEONHOLE_URL")
    if url:
        yield _running(url)
        return
    command: Optional[str] = request.config.getoption("pigeonhole_command") or None
    sandbox = start_sandbox(command)
    try:
        yield sandbox.client
    finally:
        sandbox.stop()


@pytest.fixture
def pigeonhole_inbox(pigeonhole: Pigeonhole, request: pytest.FixtureRequest) -> Iterator[Inbox]:
    """A fresh namespace for this test, its captures removed at teardown."""
    inbox = Inbox(pigeonhole, new_namespace(request.node.name.removeprefix("test_")))
    yield inbox
    inbox.reset()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, None, None]:
    """A failed test's report lists what its inbox caught, while the captures are still there."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    inbox = getattr(item, "funcargs", {}).get("pigeonhole_inbox")
    if not isinstance(inbox, Inbox) or report.when != "call" or not report.failed:
        return
    try:
        page = inbox.messages(limit=20)
    except Exception as error:  # the report must not fail because the sandbox is gone
        text = f"(could not list the captures: {error})"
    else:
        lines = [f"{m.created_at:%H:%M:%S} {m.id} {m.source:4} {m.subject!r} to {', '.join(m.recipients)}" for m in page]
        more = f"\n... and {page.total - len(page)} more" if page.total > len(page) else ""
        text = "\n".join(lines) + more if lines else "(no captures)"
    # The inbox page filtered to the namespace (docs/testing.md), to open while the sandbox runs.
    report.sections.append((f"pigeonhole inbox {inbox.client.url}/?namespace={inbox.namespace}", text))
