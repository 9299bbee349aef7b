from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path

from config import health
from config.login_throttle import LoginView, ThrottledAdminAuthenticationForm
from tco.web import decision_links

admin.site.login_form = ThrottledAdminAuthenticationForm
handler500 = "lib.statement_timeout.server_error"

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("accounts/login/", LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("market/", include("pricing.urls")),
    # Decision links: public, read-only, one frozen snapshot per token (tco/web/decision_links.py).
    path("d/<str:token>", decision_links.decision_page, name="decision_page"),
    re_path(
        r"^d/(?P<token>[^/]+)/(?P<what>options\.csv|monthly\.csv|simulation\.csv|tornado\.csv|results\.xlsx|snapshot\.json)$",
        decision_links.decision_export,
        name="decision_export",
    ),
    re_path(r"^d(?:/.*)?$", decision_links.decision_not_found),
    path("", include("tco.urls")),
]
