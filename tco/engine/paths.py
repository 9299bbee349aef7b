"""Paths into a ``tco-scenario/1`` document, one pattern each: what a problem, a range, a sweep's axis or a
variant names (``options[2].capex``, ``workload.acceptance_rate``, ``utilization[4]``)."""

from __future__ import annotations

import re

# A path into an option: ``options[2]`` or ``options[2].capex`` (group 1: the index, group 2: the field or None).
# ``match`` finds the option a longer path starts with (``options[0].price_source.provider``); ``fullmatch`` with a
# field is a path to one numeric input (the sweep's axes).
OPTION_PATH = re.compile(r"options\[(\d+)\](?:\.(\w+))?")
# A workload input: ``workload.acceptance_rate`` (group 1: its key).
WORKLOAD_PATH = re.compile(r"workload\.(\w+)")
# One month of the utilization forecast: ``utilization[4]`` (group 1: the month's index from 0).
MONTH_PATH = re.compile(r"utilization\[(\d+)\]")
