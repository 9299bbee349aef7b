"""The current-price table (pricing.models.CurrentPrice): each offering's latest observation, kept by the imports.

Called inside the import's transaction, so the table and the observations change together. One portable upsert
(SQLite and PostgreSQL) whose condition keeps the newest observation, so an older catalog imported after a newer
one changes nothing, and two imports committing at once cannot leave the older price current.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection

from pricing.models import CurrentPrice, PriceObservation

# One current price per offering and feed: two feeds pricing one offering differently are both current.
OFFERING_COLUMNS = ("provider_id", "offering", "gpu_model_id", "gpus_per_instance", "region", "pricing_term", "feed")
# A model API's offering has no GPU: its key is that of the second, partial unique index (NULLs are never equal).
API_OFFERING_COLUMNS = ("provider_id", "offering", "region", "pricing_term", "feed")
COPIED_COLUMNS = (
    "observation_id",
    "observed_on",
    "price_per_gpu_hour",
    "price_per_million_input_tokens",
    "price_per_million_output_tokens",
    "currency",
)
UPSERT_BATCH_SIZE = 500  # rows per statement: 6,000 parameters, within SQLite's and PostgreSQL's limits


def _upsert_sql(rows: int, *, per_token: bool) -> str:
    table = CurrentPrice._meta.db_table
    key, index_condition = (API_OFFERING_COLUMNS, "IS NULL") if per_token else (OFFERING_COLUMNS, "IS NOT NULL")
    columns = (*OFFERING_COLUMNS, *COPIED_COLUMNS)
    values = ", ".join(["(" + ", ".join(["%s"] * len(columns)) + ")"] * rows)
    newer = (
        f"excluded.observed_on > {table}.observed_on OR (excluded.observed_on = {table}.observed_on "
        f"AND excluded.observation_id > {table}.observation_id)"
    )
    return (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES {values} "
        f"ON CONFLICT ({', '.join(key)}) WHERE gpu_model_id {index_condition} DO UPDATE SET "
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
    with connection.cursor() as cursor:
        for per_token in (False, True):
            rows = [
                (*key, o.pk, *(getattr(o, column) for column in COPIED_COLUMNS[1:]))
                for key, o in newest.items()
                if (o.gpu_model_id is None) == per_token
            ]
            for start in range(0, len(rows), UPSERT_BATCH_SIZE):
                batch = rows[start : start + UPSERT_BATCH_SIZE]
                sql = _upsert_sql(len(batch), per_token=per_token)
                cursor.execute(sql, [value for row in batch for value in row])
    return len(newest)
