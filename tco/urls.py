"""The scenario and Overview URLs, and the public decision links (``/d/<token>``, outside the namespace)."""

from __future__ import annotations

from django.urls import path, re_path

from tco.web.views import (
    actuals,
    compare,
    currency,
    decision_links,
    decision_panel,
    editing,
    options,
    overview,
    results,
    scenarios,
    sizing,
    uncertainty,
)

app_name = "tco"
# Every view is named for its URL: the view of ``name`` is ``<name>_view`` in a module of tco/web/views/.
urlpatterns = [
    path("", overview.home_view, name="home"),
    path("scenarios/", scenarios.scenario_list_view, name="scenario_list"),
    path("scenarios/new/", scenarios.scenario_new_view, name="scenario_new"),
    path("scenarios/import/", scenarios.scenario_import_view, name="scenario_import"),
    path("scenarios/compare/", compare.scenario_compare_view, name="scenario_compare"),
    path("scenarios/<int:pk>/", scenarios.scenario_detail_view, name="scenario_detail"),
    path("scenarios/<int:pk>/export/", scenarios.scenario_export_view, name="scenario_export"),
    path("scenarios/<int:pk>/clone/", scenarios.scenario_clone_view, name="scenario_clone"),
    path("scenarios/<int:pk>/delete/", scenarios.scenario_delete_view, name="scenario_delete"),
    path("scenarios/<int:pk>/field/", editing.scenario_field_view, name="scenario_field"),
    path("scenarios/<int:pk>/currency/", currency.scenario_currency_view, name="scenario_currency"),
    path("scenarios/<int:pk>/forecast/", editing.scenario_forecast_view, name="scenario_forecast"),
    path("scenarios/<int:pk>/history/", scenarios.scenario_history_view, name="scenario_history"),
    path("scenarios/<int:pk>/results/", results.scenario_results_view, name="scenario_results"),
    path("scenarios/<int:pk>/runs/<int:run_pk>/break-even-map/", results.break_even_map_view, name="break_even_map"),
    path("scenarios/<int:pk>/runs/<int:run_pk>/figures-<int:stamp>.json", results.run_figures_view, name="run_figures"),
    path("scenarios/<int:pk>/options/add/", options.option_add_view, name="option_add"),
    path("scenarios/<int:pk>/options/<int:option_pk>/field/", editing.option_field_view, name="option_field"),
    path("scenarios/<int:pk>/options/<int:option_pk>/restore/", editing.option_restore_view, name="option_restore"),
    path("scenarios/<int:pk>/options/<int:option_pk>/delete/", options.option_delete_view, name="option_delete"),
    path("scenarios/<int:pk>/options/<int:option_pk>/prices/", options.price_picker_view, name="price_picker"),
    path("scenarios/<int:pk>/options/<int:option_pk>/pick/", options.option_pick_view, name="option_pick"),
    path(
        "scenarios/<int:pk>/options/<int:option_pk>/price-trend/",
        options.option_price_trend_view,
        name="option_price_trend",
    ),
    # Start from the workload: the serving configuration, its sizing and applying it (tco/web/views/sizing.py).
    path("scenarios/<int:pk>/sizing/", sizing.scenario_sizing_view, name="scenario_sizing"),
    path("scenarios/<int:pk>/sizing/serving/", sizing.sizing_serving_view, name="sizing_serving"),
    path("scenarios/<int:pk>/sizing/run/", sizing.sizing_run_view, name="sizing_run"),
    path("scenarios/<int:pk>/sizing/apply/", sizing.sizing_apply_view, name="sizing_apply"),
    path("scenarios/<int:pk>/checklist/<int:item_pk>/", options.diligence_update_view, name="diligence_update"),
    # Decisions under uncertainty: input ranges and the simulation job (tco/web/views/uncertainty.py).
    path("scenarios/<int:pk>/ranges/", uncertainty.input_range_view, name="input_range"),
    path("scenarios/<int:pk>/ranges/editor/", uncertainty.input_range_editor_view, name="input_range_editor"),
    path("scenarios/<int:pk>/uncertainty/", uncertainty.uncertainty_panel_view, name="uncertainty_panel"),
    path("scenarios/<int:pk>/uncertainty/run/", uncertainty.uncertainty_run_view, name="uncertainty_run"),
    path(
        "scenarios/<int:pk>/uncertainty/<int:run_pk>/cancel/",
        uncertainty.uncertainty_cancel_view,
        name="uncertainty_cancel",
    ),
    # Decisions: brief, decision records, links and exports (tco/web/views/decision_panel.py).
    path("scenarios/<int:pk>/decisions/", decision_panel.decision_panel_view, name="decision_panel"),
    path("scenarios/<int:pk>/share/", decision_panel.link_create_view, name="link_create"),
    path("scenarios/<int:pk>/links/<int:link_pk>/revoke/", decision_panel.link_revoke_view, name="link_revoke"),
    path("scenarios/<int:pk>/decide/", decision_panel.decide_view, name="decide"),
    path("scenarios/<int:pk>/reopen/", decision_panel.reopen_view, name="reopen"),
    path("scenarios/<int:pk>/brief/", decision_panel.brief_update_view, name="brief_update"),
    # Decisions against actuals (tco/web/views/actuals.py).
    path("scenarios/<int:pk>/actuals/", actuals.scenario_actuals_view, name="scenario_actuals"),
    path("scenarios/<int:pk>/actuals/attach/", actuals.actuals_attach_view, name="actuals_attach"),
    path("scenarios/<int:pk>/actuals/rules/", actuals.actuals_rule_add_view, name="actuals_rule_add"),
    path(
        "scenarios/<int:pk>/actuals/rules/<int:rule_pk>/delete/",
        actuals.actuals_rule_delete_view,
        name="actuals_rule_delete",
    ),
    path("scenarios/<int:pk>/actuals/upload/", actuals.actuals_upload_view, name="actuals_upload"),
    path("scenarios/<int:pk>/actuals/reforecast/", actuals.actuals_reforecast_view, name="actuals_reforecast"),
    re_path(
        r"^scenarios/(?P<pk>\d+)/export/(?P<what>options\.csv|monthly\.csv|simulation\.csv|tornado\.csv|results\.xlsx)$",
        decision_panel.scenario_export_results_view,
        name="scenario_export_results",
    ),
]

# Decision links: public, read-only, one frozen snapshot per token (tco/web/views/decision_links.py). Outside the
# ``tco`` namespace, at the site's root (config/urls.py includes them), so a link reads ``/d/<token>``.
decision_link_urlpatterns = [
    path("d/<str:token>", decision_links.decision_page_view, name="decision_page"),
    re_path(
        r"^d/(?P<token>[^/]+)/(?P<what>options\.csv|monthly\.csv|simulation\.csv|tornado\.csv|results\.xlsx|snapshot\.json)$",
        decision_links.decision_export_view,
        name="decision_export",
    ),
    re_path(r"^d(?:/.*)?$", decision_links.decision_not_found_view, name="decision_not_found"),
]
