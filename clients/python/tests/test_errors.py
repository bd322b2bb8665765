"""Errors that say why (issue 27): a wait that times out names the refused sends that would have
matched, every error names the URL, and a wrong base URL says what to change."""

from __future__ import annotations

import json
import os
import socket
import urllib.error
import urllib.request

import pytest

from pigeonhole import Inbox, Pigeonhole, PigeonholeError, SandboxUnreachable, TooFewMessages, WaitTimeout

# One wrong key for every test: a repeated wrong key is answered 401 each time, never throttled.
WRONG_KEY = "wrong-key-of-the-python-suite"


def refused_send(client: Pigeonhole, recipient: str, subject: str) -> None:
    """A send an application makes with a wrong key: answered 401, nothing captured."""
    request = urllib.request.Request(
        client.url + "/v1/email/send/",
        data=json.dumps({"recipient": recipient, "subject": subject, "body": "<p>x</p>"}).encode(),
        method="POST",
        headers={"Authorization": f"Api-Key {WRONG_KEY}", "Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as answer:
        urllib.request.urlopen(request, timeout=30)
    assert answer.value.code == 401
    answer.value.close()


def test_a_wait_that_times_out_names_the_refused_send(pigeonhole_inbox: Inbox) -> None:
    ada = pigeonhole_inbox.address("ada")
    refused_send(pigeonhole_inbox.client, ada, "Confirm your address")
    with pytest.raises(WaitTimeout) as failure:
        pigeonhole_inbox.wait(timeout=0, subject="confirm")
    message = str(failure.value)
    ns = pigeonhole_inbox.namespace
    assert message.startswith(
        f"no email matching namespace={ns}, subject=confirm arrived within 0 s (No message matching the filters arrived within 0 ms. "
        "1 send that would have matched was refused: 401 unknown API key (Authentication credentials were not provided.), request "
    )
    assert f" to {ada} at " in message
    assert message.endswith(f".) (GET {pigeonhole_inbox.client.url}/api/messages/wait?namespace={ns}&subject=confirm&timeout=0)")
    assert [(r["status"], r["kind"], r["recipient"], r["subject"], r["sender"]) for r in failure.value.refused] == [
        (401, "unauthorized", ada, "Confirm your address", None)
    ]
    with pytest.raises(TooFewMessages) as fewer:
        pigeonhole_inbox.expect(count=1, within=0)
    assert "1 send that would have matched was refused: 401 unknown API key" in str(fewer.value)
    assert [r["kind"] for r in fewer.value.refused] == ["unauthorized"]


def test_a_wait_that_times_out_names_a_refused_smtp_recipient(pigeonhole_inbox: Inbox, send) -> None:
    ada = pigeonhole_inbox.address("ada")
    assert send.refused_at_rcpt(ada) == {ada: (550, b"5.1.1 No such user")}
    with pytest.raises(WaitTimeout) as failure:
        pigeonhole_inbox.wait(timeout=0)
    assert "1 SMTP command that could have carried it was refused: 550 at RCPT TO (5.1.1 No such user) for " + ada in str(failure.value)
    assert [(r["code"], r["kind"], r["stage"], r["mail_from"], r["recipients"]) for r in failure.value.smtp_refused] == [
        (550, "fault", "rcpt", "app@example.com", [ada])
    ]
    assert failure.value.refused == []
    with pytest.raises(TooFewMessages) as fewer:
        pigeonhole_inbox.expect(count=1, within=0)
    assert [r["stage"] for r in fewer.value.smtp_refused] == ["rcpt"]


def test_a_plain_timeout_says_nothing_of_refusals(pigeonhole_inbox: Inbox) -> None:
    with pytest.raises(WaitTimeout) as failure:
        pigeonhole_inbox.wait(timeout=0, subject="never sent")
    ns = pigeonhole_inbox.namespace
    url = f"{pigeonhole_inbox.client.url}/api/messages/wait?namespace={ns}&subject=never+sent&timeout=0"
    assert str(failure.value) == f"no email matching namespace={ns}, subject=never sent arrived within 0 s (GET {url})"
    assert failure.value.refused == []


@pytest.mark.parametrize("prefix", ["v1", "api"])
def test_a_base_url_ending_in_v1_or_api_names_the_404_the_url_and_the_fix(pigeonhole: Pigeonhole, prefix: str) -> None:
    wrong = Pigeonhole(f"{pigeonhole.url}/{prefix}/", auth=os.environ.get("PIGEONHOLE_AUTH") or None)
    with pytest.raises(PigeonholeError) as failure:
        wrong.messages(limit=1)
    assert failure.value.status == 404
    assert str(failure.value) == (
        f'Pigeonhole answered 404 to GET {pigeonhole.url}/{prefix}/api/messages?limit=1: {{"detail": "Not found."}}. '
        f"The base URL {pigeonhole.url}/{prefix} ends in /{prefix}: give the sandbox's root instead ({pigeonhole.url}), without /{prefix}."
    )
    assert failure.value.url == f"{pigeonhole.url}/{prefix}/api/messages?limit=1"
    assert wrong.not_ready() == (
        f'Pigeonhole answered 404 to GET {pigeonhole.url}/{prefix}/readyz: {{"detail": "Not found."}}. '
        f"The base URL {pigeonhole.url}/{prefix} ends in /{prefix}: give the sandbox's root instead ({pigeonhole.url}), without /{prefix}."
    )


def test_no_answer_at_all_names_the_url_and_the_reason() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = Pigeonhole(f"http://127.0.0.1:{port}")
    with pytest.raises(SandboxUnreachable) as failure:
        client.messages(limit=1)
    assert isinstance(failure.value, OSError) and isinstance(failure.value, PigeonholeError)
    assert str(failure.value) == (
        f"cannot reach the sandbox at http://127.0.0.1:{port}/api/messages?limit=1: Connection refused. "
        "Is it running, and is this its base URL (http://host:port, the port of its HTTP server)?"
    )
    assert client.ready() is False


def test_the_plugin_names_what_a_wrong_pigeonhole_url_answered(pytester: pytest.Pytester, pigeonhole: Pigeonhole, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_inner="def test_uses(pigeonhole):\n    pass\n")
    monkeypatch.setenv("PIGEONHOLE_URL", pigeonhole.url + "/v1")
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_subprocess("-p", "pigeonhole.pytest_plugin", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*SandboxError: the sandbox at {pigeonhole.url}/v1 (from --pigeonhole-url or PIGEONHOLE_URL) is not ready: Pigeonhole answered 404 to GET {pigeonhole.url}/v1/readyz*without /v1.*"])


def test_daily_counts_show_and_start_over(pigeonhole: Pigeonhole, pigeonhole_inbox: Inbox) -> None:
    senders = {s["id"]: s for s in pigeonhole.senders()}
    assert isinstance(senders["acme-main"]["sent_today"], int)
    # dev-key: no test of this suite sends with it (the Django example uses test-key, maybe at this moment).
    pigeonhole.send_email("dev-key", pigeonhole_inbox.address("counted"), "Counted", "<p>x</p>")
    assert {s["id"]: s["sent_today"] for s in pigeonhole.senders()}["acme-dev"] >= 1
    assert pigeonhole.reset_daily_counts(sender="dev-key") == 1
    assert {s["id"]: s["sent_today"] for s in pigeonhole.senders()}["acme-dev"] == 0
    with pytest.raises(PigeonholeError) as failure:
        pigeonhole.reset_daily_counts(team="nope")
    assert (failure.value.status, failure.value.detail) == (400, 'team "nope" is not a configured team.')


def test_asking_for_the_smtp_port_of_a_sandbox_not_there_names_the_url() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(SandboxUnreachable) as failure:
        Pigeonhole(f"http://127.0.0.1:{port}").smtp
    assert str(failure.value).startswith(f"cannot reach the sandbox at http://127.0.0.1:{port}/api/events: Connection refused.")
