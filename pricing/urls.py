"""The Market's URLs."""

from __future__ import annotations

from django.urls import path

from pricing import views

app_name = "pricing"
urlpatterns = [
    path("", views.market, name="market"),
    path("trend/", views.price_trend, name="price_trend"),
    path("history/<int:pk>/", views.price_history, name="price_history"),
    path("import/", views.price_import, name="price_import"),
    path("import/template.csv", views.price_import_template, name="price_import_template"),
    path("snapshots/", views.snapshot_list, name="snapshot_list"),
    path("snapshots/diff/", views.snapshot_diff, name="snapshot_diff"),
    path("snapshots/<int:pk>/", views.snapshot_detail, name="snapshot_detail"),
    path("snapshots/<int:pk>/status/", views.snapshot_status, name="snapshot_status"),
    path("throughput/", views.throughput_library, name="throughput_library"),
    path("throughput/import/", views.throughput_import, name="throughput_import"),
    path("throughput/imports/<int:pk>/", views.throughput_import_detail, name="throughput_import_detail"),
]
