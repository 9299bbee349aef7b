"""Field helpers shared by the scenario models.

Every number the engine reads is a Decimal with the same generous precision, so a scenario
document (JSON floats) round-trips through the database exactly as long as each value has at most
15 significant digits and 10 decimal places (SQLite keeps 15; imports refuse anything finer).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db import models

from tco.engine.catalogue import OPTION_FIELD, SCENARIO_FIELD

CHOICE_MAX_LENGTH = 10
TEXT_MAX_LENGTH = 100  # a catalogue name (pricing.LanguageModel.name is as long)
SMALL_INTEGER_MAX = 32_767  # PositiveSmallIntegerField's largest value on every database Django supports

DECIMAL_MAX_DIGITS = 24
DECIMAL_PLACES = 10
SIGNIFICANT_DIGITS = 15
STORED_LIMIT = Decimal(10) ** (DECIMAL_MAX_DIGITS - DECIMAL_PLACES)  # every stored number is smaller than this
# The largest whole number every database keeps and reads back (SQLite's 15 significant digits would read
# 99,999,999,999,999.99 back as 10^14, which the column cannot hold).
LARGEST_STORED = STORED_LIMIT - 1


def decimal_field(
    verbose_name: str = "", *, help_text: str = "", required: bool = False, **kwargs: Any
) -> models.DecimalField:
    """A Decimal input of the scenario; nullable (= omitted from the document) unless required."""
    return models.DecimalField(
        verbose_name or None,
        max_digits=DECIMAL_MAX_DIGITS,
        decimal_places=DECIMAL_PLACES,
        null=not required,
        blank=not required,
        help_text=help_text,
        **kwargs,
    )


def option_model_field(name: str) -> models.Field:
    """The model field of one catalogued option input, its verbose name and help text taken from the catalogue."""
    entry = OPTION_FIELD[name]
    if entry.value_type == "count":
        return models.PositiveIntegerField(entry.label, null=True, blank=True, help_text=entry.help)
    if entry.value_type == "choice":
        choices = list(entry.choices)
        longest = max(CHOICE_MAX_LENGTH, *(len(value) for value, _ in choices))
        return models.CharField(entry.label, max_length=longest, choices=choices, blank=True, help_text=entry.help)
    if entry.value_type == "list":  # a resale curve's [age, share] points, a price path's yearly changes
        return models.JSONField(entry.label, null=True, blank=True, help_text=entry.help)
    return decimal_field(entry.label, help_text=entry.help)


def scenario_model_field(name: str) -> models.Field:
    """The model field of one catalogued scenario, workload, forecast or serving number, choice, name or list: its
    verbose name, help text and default (a required input's ``initial``) taken from the catalogue. Nullable unless
    required."""
    entry = SCENARIO_FIELD[name]
    required = entry.never_blank
    options: dict[str, Any] = {"help_text": entry.help}
    if required and entry.initial is not None:
        options["default"] = entry.initial
    if entry.value_type == "text":  # a name from a catalogue (the serving configuration's language model)
        return models.CharField(entry.label, max_length=TEXT_MAX_LENGTH, blank=True, **options)
    if entry.value_type == "list":  # the serving configuration's traffic buckets, as the sizing document lists them
        return models.JSONField(entry.label, default=list, blank=True, **options)
    if entry.value_type == "choice":
        return models.CharField(
            entry.label, max_length=CHOICE_MAX_LENGTH, choices=list(entry.choices), blank=not required, **options
        )
    if entry.value_type == "count":
        small = entry.check is None or (entry.check.hi is not None and entry.check.hi <= SMALL_INTEGER_MAX)
        integer = models.PositiveSmallIntegerField if small else models.PositiveIntegerField
        return integer(entry.label, null=not required, blank=not required, **options)
    return decimal_field(entry.label, required=required, **options)
