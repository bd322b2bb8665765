"""Helpers that stand in for the application under test: it sends through the emulated /v1 API
(as the service's client libraries do) or over SMTP. The sandbox and the namespaces come from the
plugin's documented fixtures only (`pigeonhole`, `pigeonhole_inbox`)."""

from __future__ import annotations

import json
import re
import smtplib
import urllib.request
from email.message import EmailMessage
from typing import Dict, Iterable, Optional, Tuple

import pytest

from pigeonhole import Pigeonhole

pytest_plugins = ["pytester"]

# bulk-key: the sample configuration's sender without a daily limit. test-key allows 100 emails a
# day, which a parallel suite sharing one sandbox would use up (a namespace reset does not give
# the day's count back: the limit is the sender's).
API_KEY = "bulk-key"


class Mailer:
    """Sends as an application would, to the sandbox the `pigeonhole` fixture points at."""

    def __init__(self, client: Pigeonhole) -> None:
        self.client = client

    def api(self, recipient: str, subject: str, body: str, api_key: str = API_KEY, **fields: object) -> str:
        """POST /v1/email/send/ with urllib, as JSON; answers the capture id."""
        data = json.dumps({"recipient": recipient, "subject": subject, "body": body, **fields}).encode()
        request = urllib.request.Request(
            self.client.url + "/v1/email/send/",
            data=data,
            method="POST",
            headers={"Authorization": f"Api-Key {api_key}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 200, response.status
            return str(json.loads(response.read())["id"])

    def smtp(
        self,
        to: Iterable[str],
        subject: str,
        text: str,
        html: Optional[str] = None,
        cc: Iterable[str] = (),
        bcc: Iterable[str] = (),
    ) -> str:
        """One message over SMTP with smtplib (no login); answers the capture id from the DATA reply."""
        to, cc, bcc = list(to), list(cc), list(bcc)
        message = EmailMessage()
        message["From"] = "app@example.com"
        message["To"] = ", ".join(to)
        if cc:
            message["Cc"] = ", ".join(cc)
        message["Subject"] = subject
        message.set_content(text)
        if html is not None:
            message.add_alternative(html, subtype="html")
        host, port = self.client.smtp
        with smtplib.SMTP(host, port, timeout=30) as session:
            session.ehlo()
            session.mail("app@example.com")
            for address in [*to, *cc, *bcc]:
                code, reply = session.rcpt(address)
                assert code == 250, (code, reply)
            code, reply = session.data(message.as_bytes())
            assert code == 250, (code, reply)
        match = re.search(rb"Captured as (\w+)", reply)
        assert match, reply
        return match.group(1).decode()

    def refused_at_rcpt(self, address: str, code: int = 550, text: str = "5.1.1 No such user") -> Dict[str, Tuple[int, bytes]]:
        """A message over SMTP to `address` that a fault rule refuses at RCPT TO (the rule removed
        after); answers what smtplib's SMTPRecipientsRefused says of each recipient."""
        rule = self.client.faults.add(
            {"target": "smtp", "match": {"stage": "rcpt", "recipient": address}, "action": {"type": "smtp_reply", "code": code, "message": text}}
        )
        try:
            with smtplib.SMTP(*self.client.smtp, timeout=30) as session:
                with pytest.raises(smtplib.SMTPRecipientsRefused) as failure:
                    session.sendmail("app@example.com", [address], b"Subject: x\r\n\r\nx\r\n")
            return dict(failure.value.recipients)
        finally:
            self.client.faults.remove(rule)


@pytest.fixture
def send(pigeonhole: Pigeonhole) -> Mailer:
    return Mailer(pigeonhole)
