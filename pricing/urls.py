from __future__ import annotations

from django.urls import path

from pricing import views

app_name = "pricing"
urlpatterns = [
    path("", views.market, name="market"),
]
