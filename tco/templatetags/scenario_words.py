"""Template filters that put a stored option in words with tco.presentation's rules: ``{% load scenario_words %}``."""

from __future__ import annotations

from django import template

from pricing.models import pricing_term_words
from tco.presentation import life_note

register = template.Library()
register.filter("term_words", pricing_term_words)


@register.filter
def option_life_note(option, scenario) -> str:
    """The option card's note when its hardware's useful life ends inside the horizon ("" otherwise)."""
    life = getattr(option, "useful_life_years", None)
    document_option = {"name": option.name, "kind": option.kind, "useful_life_years": life}
    return life_note(document_option, scenario.horizon_months)
