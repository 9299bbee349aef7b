"""Finance-depth scenario documents for the answer's tests: taxed, leased, borrowed, replaced and committed."""

from __future__ import annotations

from tests.engine.docs import owned, rental, scenario


def finance_document(**fields) -> dict:
    """A taxed scenario (21 %) with a cost of debt: an owned unit replaced every 2 years on MACRS 5-year, a returned
    3-year lease, a 2-year loan, an on-demand rental and a 1-year half-upfront commitment of 4 GPUs."""
    base = {"tax_rate": 0.21, "cost_of_debt": 0.055, "refresh_policy": "replace", "horizon_months": 48}
    return scenario(
        owned(name="Own 8x H100", tax_depreciation="macrs_5", useful_life_years=2, capex_change_per_year=-0.2),
        owned(name="Lease 8x H100", financing="lease", lease_payment=7000.0, lease_term_months=36, useful_life_years=3),
        owned(
            name="Loan 8x H100",
            financing="loan",
            loan_apr=0.07,
            loan_term_months=24,
            down_payment_share=0.2,
            useful_life_years=5,
        ),
        rental(name="Lambda"),
        rental(
            name="Lambda 1-year",
            billing="committed",
            committed_gpus=4,
            commitment_term_months=12,
            upfront_share=0.5,
            price_per_gpu_hour=2.6,
            on_demand_price_per_gpu_hour=3.99,
        ),
        **{**base, **fields},
    )
