"""OpenRouter's model list (`GET https://openrouter.ai/api/v1/models`) and one model's endpoints
(`GET /api/v1/models/{author}/{slug}/endpoints`), as saved JSON responses.

Prices are strings in $ per token. No dates: the caller gives the day. Decisions, so a price shown can be traced:
- The model list is OpenRouter's own price of each model: provider OpenRouter, offering the model id
  (`gryphe/mythomax-l2-13b`), on demand; `prompt`, `completion` and `input_cache_read` are the input, output and
  cached-input prices. A free model (`"0"`) is kept at 0.
- An endpoints response lists the providers serving one model through OpenRouter, each at its own price: the
  provider is the endpoint's `provider_name` (`PROVIDERS` names them as the Market does), OpenRouter the channel,
  the offering the model id.
- `"-1"` is a variable price (a router choosing the model per request): skipped with that reason, never stored.
  An entry without a prompt or completion price is skipped; a price that is not a decimal string, or is negative
  other than -1, rejects the file.
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
    ProviderRef,
    RowError,
    RowRefused,
    Skip,
    per_million,
)

OPENROUTER = "OpenRouter"
VARIABLE = "-1"
FIELDS = ("prompt", "completion", "input_cache_read")
# OpenRouter's names of the providers behind its endpoints, as the Market names them (the LiteLLM importer's names).
PROVIDERS = {
    "Amazon Bedrock": "Amazon Bedrock",
    "Azure": "Azure OpenAI",
    "Google": "Google Vertex AI",
    "Google Vertex": "Google Vertex AI",
    "Google AI Studio": "Google AI Studio",
}
_DECIMAL = re.compile(r"^-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]{1,3})?$", re.ASCII)


def sniff(text: str) -> str | None:
    start = text.lstrip()[:8000]
    if not (start.startswith("{") and '"data"' in start and '"pricing"' in start and '"prompt"' in start):
        return None
    return "openrouter-endpoints" if '"endpoints"' in start else "openrouter"


def _prices(pricing: object, line: int, name: str) -> list[Decimal | None] | str:
    """Input, output and cached-input prices per million tokens, or the reason the entry has none."""
    if not isinstance(pricing, dict):
        return "no pricing"
    if VARIABLE in (pricing.get("prompt"), pricing.get("completion")):
        return "a variable price (-1: the model is chosen per request), not a price to compare"
    found: list[Decimal | None] = []
    for field in FIELDS:
        raw = pricing.get(field)
        if raw is None or raw == "":
            found.append(None)
            continue
        if not isinstance(raw, str | int) or isinstance(raw, bool) or not _DECIMAL.match(str(raw)):
            raise RowRefused(RowError(line, f"pricing.{field}", name, f"not a decimal price: {raw!r}"))
        price = per_million(Decimal(str(raw)))
        if price < 0 or price >= MAX_PRICE:
            raise RowRefused(RowError(line, f"pricing.{field}", name, f"{raw} per token is negative or too large"))
        found.append(price)
    if found[0] is None or found[1] is None:
        return "no prompt and completion price"
    return found


def parse(text: str, context: ParseContext) -> ParseResult:
    assert context.observed_on is not None  # the registry says the caller gives the date
    result = ParseResult(format=context.variant or "openrouter")
    try:
        document = read_json(text, parse_float=Decimal)
    except JSONTextError as exc:
        result.errors.append(RowError(exc.line, "", "", f"not valid JSON ({exc})"))
        return result
    data = document.get("data") if isinstance(document, dict) else None
    providers = ApiProviders(context, result)
    if isinstance(data, list):
        entries = [(entry, entry.get("id", "") if isinstance(entry, dict) else "", False) for entry in data]
    elif isinstance(data, dict) and isinstance(data.get("endpoints"), list):
        entries = [(endpoint, data.get("id", ""), True) for endpoint in data["endpoints"]]
    else:
        result.errors.append(RowError(0, "", "", "expected OpenRouter's {\"data\": [models]} or a model's endpoints"))
        return result
    seen: dict[tuple, int] = {}
    for line, (entry, model, endpoint) in enumerate(entries, start=1):
        if not result.count_row(line, context.max_rows, "entries"):
            return result
        try:
            _entry(result, providers, seen, context, line, entry, model, endpoint)
        except RowRefused as broken:
            result.errors.append(broken.error)
    return result


def _entry(result, providers, seen, context, line: int, entry: object, model: object, endpoint: bool) -> None:
    """One model of the list, or (`endpoint`) one provider's endpoint of a model, sold through OpenRouter."""
    if not isinstance(entry, dict) or not isinstance(model, str) or not model or len(model) > 200:
        result.skipped.append(Skip(line, "not a model entry (no id of at most 200 characters)"))
        return
    channel = None
    if not endpoint:
        name, label = OPENROUTER, model
    else:
        raw = entry.get("provider_name")
        if not isinstance(raw, str) or not raw:
            result.skipped.append(Skip(line, "an endpoint without its provider_name", model))
            return
        name, label = PROVIDERS.get(raw, raw), str(entry.get("name") or raw)
        channel = providers.get(OPENROUTER)
    prices = _prices(entry.get("pricing"), line, label)
    if isinstance(prices, str):
        result.skipped.append(Skip(line, prices, label))
        return
    provider: ProviderRef | None = providers.get(name)
    if provider is None:
        result.held_back.append(Skip(line, providers.not_an_api(name), label, name=name, kind="provider"))
        return
    row = PriceRow(
        line,
        provider.id,
        model,
        None,
        None,
        "",
        "on_demand",
        context.observed_on,
        None,
        None,
        "USD",
        context.source_url,
        channel_id=channel.id if channel is not None else None,
        price_per_million_input_tokens=prices[0],
        price_per_million_output_tokens=prices[1],
        price_per_million_cached_input_tokens=prices[2],
    )
    first = seen.setdefault(row.key(), line)
    if first != line:
        result.skipped.append(Skip(line, f"the same model and provider as entry {first}", label))
        return
    result.rows.append(row)
