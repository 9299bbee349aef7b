"""Units, schema names and the version stamped on every result (docs/money-math.md)."""

from __future__ import annotations

from lib.terms import HOURS_PER_YEAR

ENGINE_VERSION = "1.0.1"
SCENARIO_SCHEMA = "tco-scenario/1"
RESULT_SCHEMA = "tco-result/1"

MONTHS_PER_YEAR = 12.0
HOURS_PER_MONTH = HOURS_PER_YEAR / MONTHS_PER_YEAR  # 730.0
SECONDS_PER_HOUR = 3600.0

# Demand counts as above capacity only when it exceeds it by more than this share, so float noise
# from throughput ratios (e.g. 8 x 730 x 1.0000000000000002) never demands a burst price.
CAPACITY_TOLERANCE = 1e-9
