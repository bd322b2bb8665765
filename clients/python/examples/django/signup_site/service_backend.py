"""A stand-in for the service's Django email backend, as Pigeonhole's docs/api-contract.md
describes what it sends: POST {base_url}/v1/email/send/ form-encoded with `Authorization:
Api-Key <key>`, the first "to" address only, the HTML alternative (or the plain body) in `body`,
and a send counted as done only on a 200 whose JSON has a string `id`."""

import json
import urllib.error
import urllib.parse
import urllib.request

from django.conf import settings
from django.core.mail.backends.base import BaseEmailBackend


class ServiceEmailBackend(BaseEmailBackend):
    def send_messages(self, email_messages):
        sent = 0
        for message in email_messages:
            if not message.to:
                continue
            html = next((content for content, mimetype in getattr(message, "alternatives", []) if mimetype == "text/html"), None)
            fields = {"recipient": message.to[0], "subject": message.subject, "body": html or message.body}
            if html:
                fields["plain_body"] = message.body
            request = urllib.request.Request(
                settings.EMAIL_SERVICE_BASE_URL.rstrip("/") + "/v1/email/send/",
                data=urllib.parse.urlencode(fields).encode(),
                headers={"Authorization": f"Api-Key {settings.EMAIL_SERVICE_API_KEY}"},
            )
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    ok = response.status == 200 and isinstance(json.loads(response.read()).get("id"), str)
            except (urllib.error.URLError, ValueError):
                if not self.fail_silently:
                    raise
                ok = False
            sent += ok
        return sent
