"""Owned and secondary prefill: docs/money-math.md's typical 8x H100 SXM server figures."""

from __future__ import annotations

from decimal import Decimal

from tco.prefill import owned_prefill


def _h100(*, secondary: bool = False, count: int = 8):
    return owned_prefill(
        gpu_name="H100 SXM", gpu_count=count, tdp_watts=700, server_capex_per_gpu=Decimal("35625"), secondary=secondary
    )


def test_an_8x_h100_server_draws_10_2_kw_at_full_load_and_2_5_idle():
    values = _h100().values
    assert values["power_kw"] == Decimal("10.2")
    assert values["idle_power_kw"] == Decimal("2.5")


def test_new_capex_is_the_server_plus_spares_installation_and_fabric():
    server = 285_000  # docs/money-math.md: $285k for 8 GPUs, configured
    expected = server + server * 0.05 + 12_750 + 12_000
    assert _h100().values["capex"] == Decimal(str(expected))


def test_running_costs_follow_the_prefill_table():
    values = _h100().values
    assert values["facility_per_year"] == Decimal("23868.00")  # 10.2 kW x $195/kW-month x 12
    assert values["support_per_year"] == Decimal("28500.00")  # 10 % of $285k
    assert values["operations_per_year"] == Decimal("54000.00")  # 0.25 FTE x $216k
    assert (values["pue"], values["electricity_per_kwh"]) == (Decimal("1.4"), Decimal("0.12"))
    assert (values["useful_life_years"], values["cost_of_capital"]) == (Decimal(5), Decimal("0.08"))


def test_secondary_hardware_costs_55_percent_of_a_new_server_and_lives_shorter():
    values = _h100(secondary=True).values
    server = 285_000 * 0.55
    assert values["capex"] == Decimal(str(server + server * 0.05 + 12_750 + 12_000))
    assert values["useful_life_years"] == Decimal(3)


def test_figures_scale_per_gpu_for_other_counts():
    assert _h100(count=4).values["power_kw"] == Decimal("5.1")


def test_every_prefilled_figure_is_marked_as_an_assumption():
    prefill = _h100()
    assert set(prefill.assumed_fields) == set(prefill.values) - {"gpu_count"}
    assert "not a quote" in prefill.note


def test_capex_and_power_are_for_the_whole_option_as_its_labels_say():
    """The engine takes capex (C) and power (P_max, P_idle) for the whole option (docs/money-math.md); the prefill fills
    them for all its GPUs, its note says so, and so do the labels of those inputs."""
    from tco.engine.catalogue import OPTION_FIELD

    eight, sixty_four = _h100().values, _h100(count=64).values
    for key in ("capex", "power_kw", "idle_power_kw"):
        assert sixty_four[key] == eight[key] * 8, key
    for key in ("capex", "power_kw", "idle_power_kw"):
        assert "whole option" in OPTION_FIELD[key].label
    assert "for the whole option: all 64 GPUs (8 servers of 8)" in _h100(count=64).note
