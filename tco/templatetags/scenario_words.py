"""Template filters that put a stored option in words with tco.presentation's rules: ``{% load scenario_words %}``."""

from __future__ import annotations

from django import template

from lib.terms import term_label
from pricing.models import pricing_term_words
from tco.presentation import life_note, price_path_words
from tco.presentation.sizing import sized_note

register = template.Library()
register.filter("term_label", term_label)  # a Market price's pricing term in words ("Spot", "Reserved 1 year")
register.filter("term_words", pricing_term_words)  # the same, as a sentence reads it ("on demand")
register.filter("sized_note", sized_note)  # figures sizing wrote, with their GPU and measured rows


@register.filter
def option_life_note(option, scenario) -> str:
    """The option card's note when its hardware's useful life ends inside the horizon ("" otherwise)."""
    life = getattr(option, "useful_life_years", None)
    document_option = {"name": option.name, "kind": option.kind, "useful_life_years": life}
    return life_note(document_option, scenario.horizon_months, getattr(scenario, "refresh_policy", None))


@register.filter
def price_path_note(source) -> str:
    """A rental's price path in words when it follows the Market's trend ("" for a typed-in change per year)."""
    if not source:
        return ""
    term = source.get("pricing_term", "")
    label = term_label(str(term)).lower()
    return price_path_words(source, term_label=label)
