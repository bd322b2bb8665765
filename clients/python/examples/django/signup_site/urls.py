from django.urls import path

from . import views

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("confirm/<uidb64>/<token>/", views.confirm, name="confirm"),
]
