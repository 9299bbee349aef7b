from __future__ import annotations

from django.urls import path, re_path

from tco.web import compare, currency, decision_panel, editing, option_views, overview, pages, uncertainty

app_name = "tco"
urlpatterns = [
    path("", overview.home, name="home"),
    path("scenarios/", pages.scenario_list, name="scenario_list"),
    path("scenarios/new/", pages.scenario_new, name="scenario_new"),
    path("scenarios/import/", pages.scenario_import, name="scenario_import"),
    path("scenarios/compare/", compare.compare_view, name="scenario_compare"),
    path("scenarios/<int:pk>/", pages.scenario_detail, name="scenario_detail"),
    path("scenarios/<int:pk>/export/", pages.scenario_export, name="scenario_export"),
    path("scenarios/<int:pk>/clone/", pages.scenario_clone_view, name="scenario_clone"),
    path("scenarios/<int:pk>/delete/", pages.scenario_delete_view, name="scenario_delete"),
    path("scenarios/<int:pk>/field/", editing.scenario_field_view, name="scenario_field"),
    path("scenarios/<int:pk>/currency/", currency.scenario_currency_view, name="scenario_currency"),
    path("scenarios/<int:pk>/forecast/", editing.forecast_view, name="scenario_forecast"),
    path("scenarios/<int:pk>/history/", pages.scenario_history_view, name="scenario_history"),
    path("scenarios/<int:pk>/results/", editing.results_view, name="scenario_results"),
    path("scenarios/<int:pk>/runs/<int:run_pk>/break-even-map/", editing.break_even_map_view, name="break_even_map"),
    path("scenarios/<int:pk>/runs/<int:run_pk>/figures-<int:stamp>.json", editing.run_figures_view, name="run_figures"),
    path("scenarios/<int:pk>/options/add/", option_views.option_add_view, name="option_add"),
    path("scenarios/<int:pk>/options/<int:option_pk>/field/", editing.option_field_view, name="option_field"),
    path("scenarios/<int:pk>/options/<int:option_pk>/delete/", option_views.option_delete_view, name="option_delete"),
    path("scenarios/<int:pk>/options/<int:option_pk>/prices/", option_views.price_picker_view, name="price_picker"),
    path("scenarios/<int:pk>/options/<int:option_pk>/pick/", option_views.option_pick_view, name="option_pick"),
    path("scenarios/<int:pk>/checklist/<int:item_pk>/", option_views.diligence_view, name="diligence_update"),
    # Decisions under uncertainty: input ranges and the simulation job (tco/web/uncertainty.py).
    path("scenarios/<int:pk>/ranges/", uncertainty.input_range_view, name="input_range"),
    path("scenarios/<int:pk>/ranges/editor/", uncertainty.input_range_editor_view, name="input_range_editor"),
    path("scenarios/<int:pk>/uncertainty/", uncertainty.uncertainty_panel_view, name="uncertainty_panel"),
    path("scenarios/<int:pk>/uncertainty/run/", uncertainty.uncertainty_run_view, name="uncertainty_run"),
    path(
        "scenarios/<int:pk>/uncertainty/<int:run_pk>/cancel/",
        uncertainty.uncertainty_cancel_view,
        name="uncertainty_cancel",
    ),
    # Decisions: brief, decision records, links and exports (tco/web/decision_panel.py).
    path("scenarios/<int:pk>/decisions/", decision_panel.decision_panel_view, name="decision_panel"),
    path("scenarios/<int:pk>/share/", decision_panel.link_create_view, name="link_create"),
    path("scenarios/<int:pk>/links/<int:link_pk>/revoke/", decision_panel.link_revoke_view, name="link_revoke"),
    path("scenarios/<int:pk>/decide/", decision_panel.decide_view, name="decide"),
    path("scenarios/<int:pk>/reopen/", decision_panel.reopen_view, name="reopen"),
    path("scenarios/<int:pk>/brief/", decision_panel.brief_view, name="brief_update"),
    re_path(
        r"^scenarios/(?P<pk>\d+)/export/(?P<what>options\.csv|monthly\.csv|simulation\.csv|tornado\.csv|results\.xlsx)$",
        decision_panel.scenario_export_view,
        name="scenario_export_results",
    ),
]
