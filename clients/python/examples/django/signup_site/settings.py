"""A tiny Django project whose sign-up emails a confirmation link, sent to Pigeonhole.

The mail settings are the point of the recipe: in development they point at a sandbox started
with `npm start` (http://localhost:8025, SMTP on 1025); the tests point them at the sandbox of
the pytest plugin instead (conftest.py).
"""

import os

BASE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECRET_KEY = "recipe-only-not-a-secret"
DEBUG = True
ALLOWED_HOSTS = ["localhost", "127.0.0.1", "testserver"]
INSTALLED_APPS = ["django.contrib.auth", "django.contrib.contenttypes", "signup_site"]
MIDDLEWARE = ["django.middleware.common.CommonMiddleware"]
ROOT_URLCONF = "signup_site.urls"
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ.get("SIGNUP_DB", ":memory:")}}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
USE_TZ = True
DEFAULT_FROM_EMAIL = "Acme <hello@acme.example>"

# The service's Django backend, pointed at the sandbox: the real package takes a base URL (without
# /v1) and an API key from its settings. Its wire behaviour (form-encoded, the first "to" only, a
# send counts only on a 200 with a string id) is what signup_site/service_backend.py does, a
# stand-in for this recipe (the package is not installable here). With the real package, set
# EMAIL_BACKEND to its backend and its two settings to these values.
EMAIL_BACKEND = "signup_site.service_backend.ServiceEmailBackend"
EMAIL_SERVICE_BASE_URL = os.environ.get("PIGEONHOLE_URL", "http://localhost:8025")
EMAIL_SERVICE_API_KEY = "test-key"

# Or Django's own SMTP backend, to the sandbox's SMTP capture (no TLS, no login needed):
# EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
EMAIL_HOST = "127.0.0.1"
EMAIL_PORT = 1025
