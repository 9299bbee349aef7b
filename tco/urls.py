from __future__ import annotations

from django.urls import path

from tco import views

app_name = "tco"
urlpatterns = [
    path("", views.home, name="home"),
]
