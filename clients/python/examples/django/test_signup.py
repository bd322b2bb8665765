"""The recipe's test: sign up, follow the link in the email the sandbox caught, and the account
is open. Each test has its own namespace (`pigeonhole_inbox`), so these run in parallel with
any other test on the same sandbox."""

from urllib.parse import urlsplit

from django.contrib.auth import get_user_model


def test_signing_up_emails_a_link_that_opens_the_account(client, pigeonhole_inbox, mail_to_sandbox):
    email = pigeonhole_inbox.address("ada")
    response = client.post("/signup/", {"email": email, "password": "correct horse battery"})
    assert response.status_code == 201

    [mail] = pigeonhole_inbox.expect(count=1, subject="Confirm your account")
    assert mail.recipients == [email]
    assert mail.source == ("api" if mail_to_sandbox == "service" else "smtp")
    link = mail.link("Confirm your account")
    assert link.startswith("http://testserver/confirm/")

    assert not get_user_model().objects.get(username=email).is_active
    response = client.get(urlsplit(link).path)
    assert (response.status_code, response.content) == (200, b"Account confirmed.")
    assert get_user_model().objects.get(username=email).is_active
    # The link works once.
    assert client.get(urlsplit(link).path).status_code == 400


def test_a_refused_signup_sends_nothing(client, pigeonhole_inbox, mail_to_sandbox):
    response = client.post("/signup/", {"email": "not an address", "password": "x"})
    assert response.status_code == 400
    taken = pigeonhole_inbox.address("bob")
    assert client.post("/signup/", {"email": taken, "password": "x"}).status_code == 201
    assert client.post("/signup/", {"email": taken, "password": "y"}).status_code == 400
    pigeonhole_inbox.expect(count=1, within=1.0)
