"""The client against the real server: every capture lookup through a test's own namespace, so
the tests run in parallel on one sandbox without seeing each other's mail."""

from __future__ import annotations

import pytest

from pigeonhole import ExpectationFailed, Inbox, Message, Pigeonhole, PigeonholeError, TooFewMessages, TooManyMessages, WaitTimeout

SIGN_IN = '<p>Your sign-in code is <b>731904</b>.</p><p><a href="https://app.example/login?t=xyz&amp;n=1">Sign in</a></p>'


def test_wait_answers_the_capture_with_bodies_links_and_codes(pigeonhole_inbox: Inbox, send) -> None:
    ada = pigeonhole_inbox.address("ada")
    sent = send.api(ada, "Your sign-in code", SIGN_IN, plain_body="Your sign-in code is 731904.")
    mail = pigeonhole_inbox.wait(subject="sign-in")
    assert isinstance(mail, Message)
    assert mail.id == sent
    assert mail.subject == "Your sign-in code"
    assert mail.codes == ["731904"]
    assert mail.links == ["https://app.example/login?t=xyz&n=1"]
    assert mail.link("sign in") == "https://app.example/login?t=xyz&n=1"
    assert mail.html is not None and "<b>731904</b>" in mail.html
    assert mail.text == "Your sign-in code is 731904."
    assert mail.text_derived is False
    assert mail.recipients == [ada]
    assert mail.namespace == pigeonhole_inbox.namespace
    assert mail.source == "api"
    assert mail.sender is not None


def test_smtp_to_cc_and_bcc_land_in_the_namespace_of_the_first_tagged_address(pigeonhole_inbox: Inbox, send) -> None:
    ada, bob, eve = (pigeonhole_inbox.address(name) for name in ("ada", "bob", "eve"))
    sent = send.smtp([ada], "Team invite", "Join us: https://app.example/invite/42", cc=[bob], bcc=[eve])
    [mail] = pigeonhole_inbox.expect(count=1)
    assert mail.id == sent
    assert mail.source == "smtp"
    assert mail.namespace == pigeonhole_inbox.namespace
    assert set(mail.recipients) == {ada, bob, eve}
    assert mail.links == ["https://app.example/invite/42"]
    # Each address finds it, in any case.
    assert pigeonhole_inbox.wait(recipient=bob.upper()).id == sent


def test_expect_counts_exactly_what_arrived_over_the_api_and_smtp(pigeonhole_inbox: Inbox, send) -> None:
    ada = pigeonhole_inbox.address("ada")
    sent = {send.api(ada, "Receipt 1", "<p>one</p>"), send.api(ada, "Receipt 2", "<p>two</p>"), send.smtp([ada], "Receipt 3", "three")}
    found = pigeonhole_inbox.expect(count=3, subject="receipt")
    assert {m.id for m in found} == sent
    assert pigeonhole_inbox.expect(count=1, subject="receipt 3")[0].source == "smtp"


def test_expect_fails_at_once_with_the_captures_when_more_matched(pigeonhole_inbox: Inbox, send) -> None:
    ada = pigeonhole_inbox.address("ada")
    sent = {send.api(ada, "Welcome", "<p>hi</p>"), send.smtp([ada], "Welcome", "hi")}
    with pytest.raises(TooManyMessages) as failure:
        pigeonhole_inbox.expect(count=1, subject="welcome")
    assert failure.value.status == 409
    assert failure.value.expected == 1
    assert failure.value.count == 2
    assert {m.id for m in failure.value.messages} == sent
    assert isinstance(failure.value, ExpectationFailed) and isinstance(failure.value, AssertionError)


def test_expect_fails_when_fewer_arrived_within_the_time(pigeonhole_inbox: Inbox, send) -> None:
    sent = send.api(pigeonhole_inbox.address("ada"), "Only one", "<p>1</p>")
    with pytest.raises(TooFewMessages) as failure:
        pigeonhole_inbox.expect(count=2, within=0.3)
    assert failure.value.status == 408
    assert failure.value.count == 1
    assert [m.id for m in failure.value.messages] == [sent]


def test_expect_none_passes_on_silence_and_names_the_offending_capture(pigeonhole_inbox: Inbox, send) -> None:
    pigeonhole_inbox.expect_none(within=0.2)
    sent = send.smtp([pigeonhole_inbox.address("ada")], "Unwanted", "should not be sent")
    pigeonhole_inbox.expect_none(within=0.2, subject="something else")
    with pytest.raises(ExpectationFailed) as failure:
        pigeonhole_inbox.expect_none(within=5)
    assert failure.value.status == 409
    assert [m.id for m in failure.value.messages] == [sent]


def test_a_namespace_reset_leaves_other_namespaces_alone(pigeonhole: Pigeonhole, pigeonhole_inbox: Inbox, send) -> None:
    other = pigeonhole.inbox()
    try:
        send.api(pigeonhole_inbox.address("ada"), "Mine", "<p>mine</p>")
        kept = send.api(other.address("ada"), "Theirs", "<p>theirs</p>")
        pigeonhole_inbox.expect(count=1)
        removed = pigeonhole_inbox.reset()
        assert removed["removed"]["messages"] == 1
        pigeonhole_inbox.expect_none(within=0.1)
        assert [m.id for m in other.expect(count=1)] == [kept]
    finally:
        other.reset()


def test_latest_search_messages_get_raw_and_extract(pigeonhole: Pigeonhole, pigeonhole_inbox: Inbox, send) -> None:
    assert pigeonhole_inbox.latest() is None
    ada = pigeonhole_inbox.address("ada")
    first = send.api(ada, "Order shipped", '<p>Track it: <a href="https://ship.example/t/1">track</a></p>')
    second = send.api(ada, "Order delivered", "<p>Your verification code: 552817</p>")
    pigeonhole_inbox.expect(count=2)
    newest = pigeonhole_inbox.latest()
    assert newest is not None and newest.id == second and newest.codes == ["552817"]
    page = pigeonhole_inbox.search(subject="order", limit=1)
    assert (page.total, len(page), page.messages[0].id) == (2, 1, second)
    listed = pigeonhole_inbox.messages()
    assert [m.id for m in listed] == [second, first]
    # A summary from the list reads its bodies on use.
    assert listed.messages[1].links == ["https://ship.example/t/1"]
    assert pigeonhole.get(first).html == '<p>Track it: <a href="https://ship.example/t/1">track</a></p>'
    assert b"Subject: Order shipped" in pigeonhole.raw(first)
    assert pigeonhole.extract(second) == {"links": [], "codes": ["552817"]}


def test_wait_gives_up_with_a_timeout_that_is_an_assertion(pigeonhole_inbox: Inbox) -> None:
    with pytest.raises(WaitTimeout) as failure:
        pigeonhole_inbox.wait(timeout=0.2, subject="never sent")
    assert failure.value.status == 408
    assert isinstance(failure.value, AssertionError)
    assert "never sent" in str(failure.value)


def test_an_unknown_filter_is_a_type_error_not_a_silent_match(pigeonhole: Pigeonhole) -> None:
    with pytest.raises(TypeError, match="subjet"):
        pigeonhole.wait(subjet="typo")


def test_a_bad_value_is_the_servers_400(pigeonhole: Pigeonhole) -> None:
    with pytest.raises(PigeonholeError) as failure:
        pigeonhole.messages(source="fax")
    assert failure.value.status == 400
    assert failure.value.detail is not None and "source" in failure.value.detail


def test_fault_rules_for_the_namespace_make_api_and_smtp_fail(pigeonhole: Pigeonhole, pigeonhole_inbox: Inbox, send) -> None:
    glob = f"*+{pigeonhole_inbox.namespace}@example.com"
    http = pigeonhole.faults.add(target="http", match={"route": "/v1/email/send/", "recipient": glob}, action={"type": "status", "status": 503}, times=1)
    smtp = pigeonhole.faults.add(
        target="smtp", match={"stage": "rcpt", "recipient": glob}, action={"type": "smtp_reply", "code": 451, "message": "4.7.1 Try again later"}, times=1
    )
    try:
        ada = pigeonhole_inbox.address("ada")
        with pytest.raises(PigeonholeError) as failure:
            pigeonhole.send_email("bulk-key", ada, "Down", "<p>x</p>")
        assert (failure.value.status, failure.value.body) == (503, {"detail": "Service temporarily unavailable, try again later."})
        with pytest.raises(AssertionError, match="451"):
            send.smtp([ada], "Refused", "x")
        assert {r["id"]: r["fired"] for r in pigeonhole.faults.list() if r["id"] in (http["id"], smtp["id"])} == {http["id"]: 1, smtp["id"]: 1}
        # Both rules are spent: the next sends are captured.
        sent = {pigeonhole.send_email("bulk-key", ada, "Up", "<p>x</p>")["id"], send.smtp([ada], "Up", "x")}
        assert {m.id for m in pigeonhole_inbox.expect(count=2, subject="up")} == sent
        pigeonhole_inbox.expect_none(within=0.1, subject="down")
    finally:
        pigeonhole.faults.remove(http)
        pigeonhole.faults.remove(smtp["id"])
    assert not {r["id"] for r in pigeonhole.faults.list()} & {http["id"], smtp["id"]}


def test_smtp_refusal_reaches_smtplib_as_a_refused_recipient(pigeonhole: Pigeonhole, pigeonhole_inbox: Inbox, send) -> None:
    ada = pigeonhole_inbox.address("ada")
    assert send.refused_at_rcpt(ada) == {ada: (550, b"5.1.1 No such user")}
    assert all(rule["match"].get("recipient") != ada for rule in pigeonhole.faults.list())
    pigeonhole_inbox.expect_none(within=0.1)


def test_the_clock_reads_advances_and_returns_to_real_time(pigeonhole: Pigeonhole) -> None:
    before = pigeonhole.clock.get()
    ahead = pigeonhole.clock.advance("2h")
    assert ahead.real_time is False
    assert ahead.offset_ms >= before.offset_ms + 2 * 3600 * 1000
    assert (ahead.now - before.now).total_seconds() >= 2 * 3600
    later = pigeonhole.clock.set(ahead.now.replace(year=ahead.now.year + 1))
    assert later.offset_ms > ahead.offset_ms
    with pytest.raises(PigeonholeError) as failure:
        pigeonhole.clock.set(before.now)
    assert failure.value.status == 400
    back = pigeonhole.clock.reset()
    assert (back.real_time, back.offset_ms) == (True, 0)


def test_account_templates_save_wrap_the_next_send_list_rewrap_and_revert(pigeonhole: Pigeonhole, pigeonhole_inbox: Inbox, send) -> None:
    # acme-dev (Development Mode): no other test sends with it, so its template may change while they run.
    draft = '<div class="py">{{content}}</div>'
    saved = pigeonhole.templates.save("acme-dev", draft)
    try:
        assert (saved["version"] >= 1, saved["html"], saved["current"]) == (True, draft, True)
        assert pigeonhole.templates.get("acme-dev")["version"] == saved["version"]
        sent = send.api(pigeonhole_inbox.address("ada"), "Wrapped", "<p>hi</p>", api_key="dev-key")
        mail = pigeonhole.get(sent)
        assert mail.html == '<div class="py"><p>hi</p></div>'
        versions = pigeonhole.templates.versions("acme-dev")
        assert versions["current"] == saved["version"] and versions["versions"][0]["version"] == 0
        [again] = pigeonhole.templates.rewrap("acme-dev", html="<i>{{content}}</i>", ids=[mail])
        assert (again["id"], again["unwrapped_body"], again["html"]) == (sent, "kept", "<i><p>hi</p></i>")
        with pytest.raises(PigeonholeError) as refused:
            pigeonhole.templates.save("acme-dev", "<div></div>")
        assert (refused.value.status, refused.value.body) == (400, {"detail": "html must contain {{content}} where the body goes."})
    finally:
        assert pigeonhole.templates.revert("acme-dev")["version"] == 0
    assert pigeonhole.templates.get("acme-dev")["html"] is None


def test_release_without_a_relay_is_refused_plainly(pigeonhole: Pigeonhole, pigeonhole_inbox: Inbox, send) -> None:
    sent = send.api(pigeonhole_inbox.address("ada"), "Release me", "<p>hi</p>")
    with pytest.raises(PigeonholeError) as refused:
        pigeonhole.release(sent, ["me@example.com"])
    assert refused.value.status == 409
    assert refused.value.body["detail"].startswith("No relay is configured, so nothing can be released: start Pigeonhole with --relay")


def test_render_shows_a_capture_as_a_client_would(pigeonhole: Pigeonhole, pigeonhole_inbox: Inbox, send) -> None:
    ada = pigeonhole_inbox.address("ada")
    sent = send.api(ada, "Views", '<p>Hi</p><svg width="10"><rect width="10" height="10"/></svg>', use_account_template=False)
    view = pigeonhole.render(sent, "gmail-web")
    assert (view["client"], view["fidelity"], view["approximation"], view["mode"]) == ("gmail-web", "medium", True, "light")
    # caniemail: <svg> is not supported by Gmail's web client (its latest test, 2020-02).
    assert [(r["rule"], r["feature"], r["finding"]) for r in view["removed"]] == [("caniemail", "html-svg", "compatibility/html-svg")]
    assert "<svg" not in view["html"] and "<p>Hi</p>" in view["html"]
    with pytest.raises(PigeonholeError) as failure:
        pigeonhole.render(sent, "lotus-notes")
    assert (failure.value.status, failure.value.body) == (
        400,
        {"detail": "client must be one of gmail-web, gmail-app, outlook-windows, outlook-com, apple-mail, yahoo, images-off."},
    )
