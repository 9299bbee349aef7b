"""The model catalogue's checks: a shape sizing cannot use is refused at its field, in words."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from pricing.models import LanguageModel


def llama_70b(**changes) -> LanguageModel:
    fields = {
        "name": "Llama-3.1-70B",
        "params_billion": Decimal("70.554"),
        "layers": 80,
        "attention_heads": 64,
        "kv_heads": 8,
        "head_dim": 128,
    }
    return LanguageModel(**(fields | changes))


def errors_of(model: LanguageModel) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as caught:
        model.full_clean()
    return caught.value.message_dict


@pytest.mark.django_db
def test_a_published_shape_passes():
    llama_70b().full_clean()


@pytest.mark.django_db
def test_zero_layers_is_refused_at_the_layers_field():
    errors = errors_of(llama_70b(layers=0))
    assert list(errors) == ["layers"]
    assert "at least one" in errors["layers"][0]


@pytest.mark.django_db
def test_heads_not_divisible_by_kv_heads_is_refused_in_words():
    errors = errors_of(llama_70b(kv_heads=6))
    assert errors["kv_heads"] == [
        "The 64 attention heads do not divide into groups of 6 KV heads: the KV heads must divide the attention heads."
    ]


@pytest.mark.django_db
def test_more_kv_heads_than_heads_is_refused():
    assert "more than the 64 attention heads" in errors_of(llama_70b(kv_heads=128))["kv_heads"][0]


@pytest.mark.django_db
def test_latent_attention_needs_both_its_sizes():
    errors = errors_of(llama_70b(kv_lora_rank=512))
    assert "qk_rope_head_dim" in errors


@pytest.mark.django_db
def test_active_parameters_cannot_exceed_all_parameters():
    errors = errors_of(llama_70b(active_params_billion=Decimal("80")))
    assert "active_params_billion" in errors
