"""The plugin's fixtures as a test suite sees them, and the plugin loaded into a pytest run of
its own (pytester): `-p pigeonhole.pytest_plugin`, the namespace cleared at teardown."""

from __future__ import annotations

import os
import re
import socket

import pytest

from pigeonhole import Inbox, Pigeonhole, PigeonholeError, start_sandbox


def test_the_session_client_knows_its_sandbox(pigeonhole: Pigeonhole) -> None:
    if os.environ.get("PIGEONHOLE_URL"):
        assert pigeonhole.url == os.environ["PIGEONHOLE_URL"].rstrip("/")
    else:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", pigeonhole.url)
    assert pigeonhole.ready()
    host, port = pigeonhole.smtp
    with socket.create_connection((host, port), timeout=10) as connection:
        assert connection.recv(3) == b"220"
    # Given only the URL, a client asks the sandbox for its SMTP port (the live push's hello).
    assert Pigeonhole(pigeonhole.url, auth=os.environ.get("PIGEONHOLE_AUTH")).smtp == pigeonhole.smtp


def test_each_test_gets_a_fresh_namespace_and_addresses_in_it(pigeonhole: Pigeonhole, pigeonhole_inbox: Inbox, request: pytest.FixtureRequest) -> None:
    tag = pigeonhole_inbox.namespace
    assert re.fullmatch(r"each-test-gets-[0-9a-f]{8}", tag)
    assert pigeonhole_inbox.address("ada") == f"ada+{tag}@example.com"
    assert pigeonhole_inbox.address("bob", "acme.test") == f"bob+{tag}@acme.test"
    assert pigeonhole.inbox().namespace != tag
    with pytest.raises(ValueError):
        pigeonhole_inbox.address("ada+x")


INNER = '''
import json, os

def test_sends(pigeonhole, pigeonhole_inbox):
    with open(os.environ["NAMESPACE_FILE"], "w") as out:
        out.write(pigeonhole_inbox.namespace)
    pigeonhole.send_email("bulk-key", pigeonhole_inbox.address("ada"), "Inner", "<p>inner</p>")
    assert pigeonhole_inbox.expect(count=1)[0].subject == "Inner"
'''


def test_loaded_with_dash_p_it_clears_the_namespace_at_teardown(pytester: pytest.Pytester, pigeonhole: Pigeonhole, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_inner=INNER)
    namespace_file = pytester.path / "namespace.txt"
    monkeypatch.setenv("NAMESPACE_FILE", str(namespace_file))
    monkeypatch.setenv("PIGEONHOLE_URL", pigeonhole.url)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_subprocess("-p", "pigeonhole.pytest_plugin", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    tag = namespace_file.read_text()
    assert pigeonhole.messages(namespace=tag).total == 0


def test_start_sandbox_gives_separate_sandboxes_and_stop_frees_them() -> None:
    first, second = start_sandbox(auth="ci:pass word"), start_sandbox()
    try:
        assert len({first.url, second.url}) == 2 and first.smtp != second.smtp
        # The first has a login: its client logs in, a client without it is refused.
        with pytest.raises(PigeonholeError) as refused:
            Pigeonhole(first.url).messages()
        assert refused.value.status == 401
        assert Pigeonhole(first.url.replace("http://", "http://ci:pass%20word@")).smtp == first.smtp
        first.client.send_email("bulk-key", "ada@example.com", "Only in the first", "<p>1</p>")
        assert first.client.expect(count=1, recipient="ada@example.com")[0].subject == "Only in the first"
        second.client.expect_none(within=0.1)
    finally:
        second.stop()
        first.stop()
    for sandbox in (first, second):
        assert sandbox.process.returncode == 0
        assert not sandbox.data_dir.exists()
        with pytest.raises(OSError):
            socket.create_connection(sandbox.smtp, timeout=5).close()
