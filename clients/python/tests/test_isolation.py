"""No cross-talk: 25 tests, each in its own namespace, each sending a different number of emails
through /v1 and SMTP and asserting the exact count, while every fifth one resets its namespace
half-way. Under `-n 4` on one shared sandbox (PIGEONHOLE_URL) they run side by side; a count off
by one anywhere is mail that leaked between namespaces or a reset that reached too far."""

from __future__ import annotations

import pytest

from pigeonhole import Inbox

CASES = range(25)


@pytest.mark.parametrize("case", CASES)
def test_each_namespace_sees_exactly_its_own_mail(case: int, pigeonhole_inbox: Inbox, send) -> None:
    api_count, smtp_count = 1 + case % 3, case % 2
    ada = pigeonhole_inbox.address("ada")
    if case % 5 == 0:
        send.api(ada, f"Before reset {case}", "<p>gone soon</p>")
        send.smtp([pigeonhole_inbox.address("bob")], f"Before reset {case}", "gone soon")
        pigeonhole_inbox.expect(count=2)
        pigeonhole_inbox.reset()
        pigeonhole_inbox.expect_none(within=0.05)
    sent = {send.api(ada, f"Case {case} api {n}", f"<p>Your code: {100000 + case * 10 + n}</p>") for n in range(api_count)}
    sent |= {send.smtp([ada], f"Case {case} smtp {n}", f"hello {n}") for n in range(smtp_count)}
    found = pigeonhole_inbox.expect(count=api_count + smtp_count)
    assert {m.id for m in found} == sent
    assert all(m.namespace == pigeonhole_inbox.namespace for m in found)
    assert all(m.subject.startswith(f"Case {case} ") for m in found)
    codes = sorted(code for m in found for code in m.codes)
    assert codes == [str(100000 + case * 10 + n) for n in range(api_count)]
