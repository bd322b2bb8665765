"""Sign up with an email address; the account opens when the emailed link is followed."""

from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.http import HttpResponse, HttpResponseBadRequest
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.html import escape
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST


@csrf_exempt
@require_POST
def signup(request):
    email = request.POST.get("email", "").strip()
    try:
        validate_email(email)
    except ValidationError:
        return HttpResponseBadRequest("Enter a valid email address.")
    user_model = get_user_model()
    if user_model.objects.filter(username=email).exists():
        return HttpResponseBadRequest("That address already has an account.")
    user = user_model.objects.create_user(username=email, email=email, password=request.POST.get("password"), is_active=False)
    link = request.build_absolute_uri(reverse("confirm", args=[urlsafe_base64_encode(force_bytes(user.pk)), default_token_generator.make_token(user)]))
    send_mail(
        "Confirm your account",
        f"Welcome! Confirm your account: {link}\n",
        None,
        [email],
        html_message=f'<p>Welcome!</p><p><a href="{escape(link)}">Confirm your account</a></p>',
    )
    return HttpResponse("Check your email.", status=201)


@require_GET
def confirm(request, uidb64, token):
    user_model = get_user_model()
    try:
        user = user_model.objects.get(pk=urlsafe_base64_decode(uidb64).decode())
    except (ValueError, user_model.DoesNotExist):
        return HttpResponseBadRequest("This link is not valid.")
    if user.is_active or not default_token_generator.check_token(user, token):
        return HttpResponseBadRequest("This link is not valid.")
    user.is_active = True
    user.save(update_fields=["is_active"])
    return HttpResponse("Account confirmed.")
