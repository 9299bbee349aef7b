"""The URL map: probes, sign-in, admin, the Market, then tco's decision links and pages (``tco/urls.py``)."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path

from config import health, token_views
from config.api.site import unknown_path
from config.api.site import urls as api_urls
from config.login_throttle import LoginView, ThrottledAdminAuthenticationForm
from tco.urls import decision_link_urlpatterns

admin.site.login_form = ThrottledAdminAuthenticationForm
handler500 = "lib.statement_timeout.server_error"

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("accounts/login/", LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("account/api-tokens/", token_views.api_tokens_view, name="api_tokens"),
    path("account/api-tokens/<int:pk>/revoke/", token_views.api_token_revoke_view, name="api_token_revoke"),
    path("admin/", admin.site.urls),
    path("api/v1/", api_urls()),
    re_path(r"^api/", unknown_path),  # any other API address: a problem+json 404, not the site's page
    path("market/", include("pricing.urls")),
    path("", include(decision_link_urlpatterns)),  # /d/<token>: public, outside the tco namespace
    path("", include("tco.urls")),
]
