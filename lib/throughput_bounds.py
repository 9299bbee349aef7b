"""The bounds of a measured throughput row, shared by the sizing engine (which refuses a row outside them) and the
throughput library's parsers (which refuse such a record at import), so every imported row is one the sizing takes.
"""

from __future__ import annotations

MAX_TP = 1024
MAX_CONCURRENCY = 10_000_000
MAX_TOKENS = 10_000_000
MIN_OUTPUT_TOKENS_PER_SECOND_PER_GPU = 0.001
MAX_OUTPUT_TOKENS_PER_SECOND_PER_GPU = 100_000_000.0
MAX_LATENCY_MS = 100_000_000.0
MAX_SOURCE_LENGTH = 1000
