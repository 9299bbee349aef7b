"""LiteLLM's model price list (github.com/BerriAI/litellm, `model_prices_and_context_window.json`).

One JSON object of model entries keyed by LiteLLM's model name, each with its `litellm_provider` and prices in $ per
token (JSON numbers, read as decimals). No dates: the caller gives the day. Decisions, so a price shown can be traced
back to its entry:
- An entry with both `input_cost_per_token` and `output_cost_per_token` is one on-demand price of one model: $ per
  million input, output and (`cache_read_input_token_cost`) cached-input tokens. Everything else is skipped with its
  reason: the field legend `sample_spec`, models priced per image, pixel, second or character, and keys naming a
  commitment (Bedrock's provisioned throughput, priced per hour of a reserved model unit).
- Batch prices (`*_cost_per_token_batches`) and priority or flex tiers are not read: they are a different product
  (results within a day, another queue), not the model's on-demand price.
- The provider is `PROVIDERS[litellm_provider]` (Bedrock's two LiteLLM routes are one provider), else the name as
  LiteLLM writes it; one the reference data lacks is added as a model API provider. A known provider of another
  kind (a hyperscaler named like a LiteLLM route) is not a model API: its entries are held back.
- The offering is the model as the provider names it: the key without LiteLLM's route prefix (`azure/gpt-4o` is
  Azure OpenAI's `gpt-4o`). A route prefix followed by a region (`azure/eu/...`, `bedrock/us-east-1/...`) gives the
  region; a Bedrock cross-region inference profile (`jp.amazon.nova-2-lite-v1:0`) keeps its id, its geography
  (`jp`) as the region. Two keys naming the same model and region at the same price are one observation (merged);
  at another price the later is skipped.
"""

from __future__ import annotations

import re
from decimal import Decimal

from lib.jsontext import JSONTextError, read_json
from pricing.importers.base import (
    MAX_PRICE,
    ApiProviders,
    ParseContext,
    ParseResult,
    PriceRow,
    RowError,
    RowRefused,
    Skip,
    per_million,
)

LEGEND = "sample_spec"
INPUT, OUTPUT, CACHED = "input_cost_per_token", "output_cost_per_token", "cache_read_input_token_cost"
# LiteLLM's provider names, as the Market shows them. Unlisted names are kept as LiteLLM writes them.
PROVIDERS = {
    "anthropic": "Anthropic",
    "azure": "Azure OpenAI",
    "azure_ai": "Azure AI Foundry",
    "bedrock": "Amazon Bedrock",
    "bedrock_converse": "Amazon Bedrock",
    "cohere": "Cohere",
    "deepinfra": "DeepInfra",
    "deepseek": "DeepSeek",
    "fireworks_ai": "Fireworks AI",
    "gemini": "Google AI Studio",
    "groq": "Groq",
    "mistral": "Mistral AI",
    "openai": "OpenAI",
    "openrouter": "OpenRouter",
    "together_ai": "Together AI",
    "vertex_ai": "Google Vertex AI",
    "xai": "xAI",
}
# Route prefixes of LiteLLM keys: `bedrock/...` for both Bedrock routes, `vertex_ai/...` for its model families.
ROUTES = {"bedrock_converse": "bedrock"}
_REGION = re.compile(r"^(?:[a-z]{2}(?:-gov)?-[a-z]+-[0-9]|eu|us|global|global-standard|global-standard-priority)$")
_PROFILE = re.compile(r"^(us|eu|apac|jp|au|ca|global|us-gov)\.")


def sniff(text: str) -> str | None:
    start = text.lstrip()[:4000]
    return "litellm" if start.startswith("{") and '"litellm_provider"' in start else None


def _provider_name(route: str) -> str:
    if route in PROVIDERS:
        return PROVIDERS[route]
    family = route.split("-", 1)[0]  # vertex_ai-language-models, vertex_ai-anthropic_models, ...
    return PROVIDERS.get(family, route)


def _place(key: str, route: str) -> tuple[str, str] | None:
    """(offering, region) of a key, or None when the key names a commitment."""
    parts = key.split("/")
    prefix = ROUTES.get(route, route.split("-", 1)[0])
    if len(parts) > 1 and parts[0] in (route, prefix):
        parts = parts[1:]
    if any("commitment" in part for part in parts[:-1]):
        return None
    region = ""
    if len(parts) > 1 and _REGION.match(parts[0]):
        region, parts = parts[0], parts[1:]
    offering = "/".join(parts)
    if not region and (profile := _PROFILE.match(offering)):
        region = profile.group(1)
    return offering, region


def _per_million(entry: dict, field: str, line: int, key: str) -> Decimal | None:
    value = entry.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | Decimal):
        raise RowRefused(RowError(line, field, key, f"not a number: {value!r}"))
    price = per_million(Decimal(value))
    if price < 0 or price >= MAX_PRICE:
        raise RowRefused(RowError(line, field, key, f"{value} per token is negative or too large"))
    return price


def parse(text: str, context: ParseContext) -> ParseResult:
    assert context.observed_on is not None  # the registry says the caller gives the date
    result = ParseResult(format="litellm")
    try:
        document = read_json(text, parse_float=Decimal)
    except JSONTextError as exc:
        result.errors.append(RowError(exc.line, "", "", f"not valid JSON ({exc})"))
        return result
    if not isinstance(document, dict):
        result.errors.append(RowError(0, "", "", "expected LiteLLM's object of model entries"))
        return result
    providers = ApiProviders(context, result)
    seen: dict[tuple, PriceRow] = {}
    for line, (key, entry) in enumerate(document.items(), start=1):
        if not result.count_row(line, context.max_rows, "entries"):
            return result
        try:
            _entry(result, providers, seen, context, line, key, entry)
        except RowRefused as broken:
            result.errors.append(broken.error)
    return result


def _entry(result, providers, seen, context, line: int, key: str, entry: object) -> None:
    if key == LEGEND:
        result.skipped.append(Skip(line, "the field legend of the file, not a model", key))
        return
    if not isinstance(entry, dict) or not isinstance(route := entry.get("litellm_provider"), str) or not route:
        result.skipped.append(Skip(line, "not a model entry (no litellm_provider)", key))
        return
    prices = [_per_million(entry, field, line, key) for field in (INPUT, OUTPUT, CACHED)]
    if prices[0] is None or prices[1] is None:
        priced_by = sorted(field for field in entry if "cost_per" in field and "token" not in field)
        by = f" (priced by {', '.join(priced_by)})" if priced_by else ""
        result.skipped.append(Skip(line, f"no per-token input and output price{by}", key))
        return
    place = _place(key, route)
    if place is None:
        result.skipped.append(Skip(line, "a commitment (provisioned throughput), not a per-token price", key))
        return
    name = _provider_name(route)
    provider = providers.get(name)
    if provider is None:
        result.held_back.append(Skip(line, providers.not_an_api(name), key, name=name, kind="provider"))
        return
    offering, region = place
    row = PriceRow(
        line,
        provider.id,
        offering,
        None,
        None,
        region,
        "on_demand",
        context.observed_on,
        None,
        None,
        "USD",
        context.source_url,
        price_per_million_input_tokens=prices[0],
        price_per_million_output_tokens=prices[1],
        price_per_million_cached_input_tokens=prices[2],
    )
    first = seen.setdefault(row.key(), row)
    if first is row:
        result.rows.append(row)
    elif first.prices() == row.prices():
        result.merged.append(Skip(line, f"the same model and price as entry {first.line}", key))
    else:
        result.skipped.append(Skip(line, f"the same model as entry {first.line} at another price", key))
