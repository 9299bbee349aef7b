"""Choice fields whose refusal quotes the posted value cut short, for both apps' forms.

Django's "Select a valid choice. %(value)s is not one of the available choices." echoes the posted value whole
into the page: a hostile or mistaken post of 100,000 characters came back as 100,000 characters. These fields
cut it to its first characters, an ellipsis and its length."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError

ECHO_LIMIT = 40


def shortened(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` as a message quotes it: whole when short, else its start, an ellipsis and its length."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


class ShortEcho:
    """Mixed into a choice field: its ``invalid_choice`` message quotes the value shortened."""

    def clean(self, value: Any) -> Any:
        try:
            return super().clean(value)  # type: ignore[misc]
        except ValidationError as error:
            _shorten_params(error)
            raise


def _shorten_params(error: ValidationError) -> None:
    for each in error.error_list if hasattr(error, "error_list") else [error]:
        if each.code == "invalid_choice" and isinstance(each.params, dict) and "value" in each.params:
            each.params["value"] = shortened(str(each.params["value"]))


class ChoiceField(ShortEcho, forms.ChoiceField):
    pass


class TypedChoiceField(ShortEcho, forms.TypedChoiceField):
    pass


class MultipleChoiceField(ShortEcho, forms.MultipleChoiceField):
    pass
