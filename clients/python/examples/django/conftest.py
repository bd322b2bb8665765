"""Django in pytest without pytest-django: set Django up once, migrate the in-memory database,
and point the project's mail settings at the pytest plugin's sandbox (`pigeonhole` fixture),
once for each way of sending: the service's backend (/v1) and Django's SMTP backend."""

import os

import django
import pytest

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "signup_site.settings")
django.setup()

from django.core.management import call_command  # noqa: E402  (after django.setup())
from django.test import Client  # noqa: E402
from django.test.utils import override_settings  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def database():
    call_command("migrate", verbosity=0)


@pytest.fixture(params=["service", "smtp"])
def mail_to_sandbox(request, pigeonhole):
    """The project's mail settings pointed at the test session's sandbox."""
    if request.param == "service":
        mail = {"EMAIL_BACKEND": "signup_site.service_backend.ServiceEmailBackend", "EMAIL_SERVICE_BASE_URL": pigeonhole.url}
    else:
        host, port = pigeonhole.smtp
        mail = {"EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend", "EMAIL_HOST": host, "EMAIL_PORT": port}
    with override_settings(**mail):
        yield request.param


@pytest.fixture
def client():
    return Client()
