"""The API tokens page: a signed-in user makes tokens (each shown once) and revokes their own."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from config.models import ApiToken, TokenScope
from config.tokens import EXPIRES_DAYS_MAX, NAME_MAX, TokenError, api_token_create, api_token_revoke


class TokenForm(forms.Form):
    name = forms.CharField(max_length=NAME_MAX, label="Name", help_text="What it is for, e.g. “capacity notebook”.")
    scope = forms.ChoiceField(
        choices=TokenScope.choices,
        initial=TokenScope.READ,
        label="Scope",
        help_text="Write lets the token change scenarios and import prices, as far as your role allows.",
    )
    expires_days = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=EXPIRES_DAYS_MAX,
        initial=90,
        label="Expires after (days)",
        help_text="Blank: never expires.",
    )


@require_http_methods(["GET", "POST"])
def api_tokens_view(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST or None)
    new_token = None
    if request.method == "POST" and form.is_valid():
        try:
            _, new_token = api_token_create(
                user=request.user,
                name=form.cleaned_data["name"],
                scope=form.cleaned_data["scope"],
                expires_days=form.cleaned_data["expires_days"],
            )
        except TokenError as error:
            form.add_error(error.field or None, error.message)
        else:
            form = TokenForm()
    tokens = ApiToken.objects.filter(user=request.user)
    status = 400 if request.method == "POST" and new_token is None else 200
    return render(request, "api_tokens.html", {"form": form, "tokens": tokens, "new_token": new_token}, status=status)


@require_POST
def api_token_revoke_view(request: HttpRequest, pk: int) -> HttpResponse:
    token = ApiToken.objects.filter(pk=pk, user=request.user).first()
    if token is None:  # someone else's token is as good as none (an admin revokes any in /admin/)
        raise Http404("No such token.")
    revoked = api_token_revoke(token=token, by=request.user)
    messages.success(request, f"Revoked “{token.name}”." if revoked else f"“{token.name}” was already revoked.")
    return redirect("api_tokens")
