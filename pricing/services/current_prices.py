"""The current-price table (pricing.models.CurrentPrice): each offering's latest observation, kept by the imports.

Called inside the import's transaction, so the table and the observations change together. One portable upsert
(SQLite and PostgreSQL) whose condition keeps the newest observation, so an older catalog imported after a newer
one changes nothing, and two imports committing at once cannot leave the older price current.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection

from pricing.models import CurrentPrice, PriceObservation

OFFERING_COLUMNS = ("provider_id", "offering", "gpu_model_id", "gpus_per_instance", "region", "pricing_term")
COPIED_COLUMNS = ("observation_id", "observed_on", "price_per_gpu_hour", "currency")
UPSERT_BATCH_SIZE = 500  # rows per statement: 5,000 parameters, within SQLite's and PostgreSQL's limits


def _upsert_sql(rows: int) -> str:
    table = CurrentPrice._meta.db_table
    columns = (*OFFERING_COLUMNS, *COPIED_COLUMNS)
    values = ", ".join(["(" + ", ".join(["%s"] * len(columns)) + ")"] * rows)
    newer = (
        f"excluded.observed_on > {table}.observed_on OR (excluded.observed_on = {table}.observed_on "
        f"AND excluded.observation_id > {table}.observation_id)"
    )
    return (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES {values} "
        f"ON CONFLICT ({', '.join(OFFERING_COLUMNS)}) DO UPDATE SET "
        + ", ".join(f"{column} = excluded.{column}" for column in COPIED_COLUMNS)
        + f" WHERE {newer}"
    )


def current_prices_record(*, observations: Iterable[PriceObservation]) -> int:
    """Make each of `observations` (stored, with their ids) its offering's current price unless a newer one is.
    Returns how many offerings the observations touched."""
    newest: dict[tuple, PriceObservation] = {}
    for observation in observations:
        key = tuple(getattr(observation, column) for column in OFFERING_COLUMNS)
        kept = newest.get(key)
        if kept is None or (observation.observed_on, observation.pk) > (kept.observed_on, kept.pk):
            newest[key] = observation  # one row per offering in a statement: PostgreSQL refuses two
    rows = [(*key, o.pk, o.observed_on, o.price_per_gpu_hour, o.currency) for key, o in newest.items()]
    with connection.cursor() as cursor:
        for start in range(0, len(rows), UPSERT_BATCH_SIZE):
            batch = rows[start : start + UPSERT_BATCH_SIZE]
            cursor.execute(_upsert_sql(len(batch)), [value for row in batch for value in row])
    return len(rows)
