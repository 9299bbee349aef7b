"""The import formats: one table drives format detection, dispatch, the model's choices and the command's options.

A new format is one module with a `sniff(text) -> variant | None` and a `parse(text, context) -> ParseResult`,
plus one `ImportFormat` entry in `FORMATS`. Detection tries the formats in table order; the last entry
is the fallback and must sniff anything.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pricing.importers import canonical, gpuhunt, litellm, openrouter, skypilot
from pricing.importers.base import ParseContext, ParseResult

AUTO = "auto"


@dataclass(frozen=True)
class ImportFormat:
    name: str
    label: str
    sniff: Callable[[str], str | None]
    parse: Callable[[str, ParseContext], ParseResult]
    needs_provider: bool = False
    """The file has no provider column: the caller names the provider (a SkyPilot cloud name works)."""
    needs_observed_on: bool = False
    """The file has no dates: the caller gives the day the prices were seen (default: today)."""
    third_party: bool = False
    """Someone else's catalog: rows naming an unknown GPU are held back instead of rejecting the file."""
    json: bool = False
    """A JSON document: no CSV header or line-length caps (it may be one long line); its fields are checked."""


FORMATS: tuple[ImportFormat, ...] = (
    ImportFormat(
        name="skypilot",
        label="SkyPilot catalog vms.csv",
        sniff=skypilot.sniff,
        parse=skypilot.parse,
        needs_provider=True,
        needs_observed_on=True,
        third_party=True,
    ),
    # Third-party price feeds (docs/import-formats.md), kept together.
    ImportFormat(
        name="gpuhunt",
        label="dstack gpuhunt catalog CSV",
        sniff=gpuhunt.sniff,
        parse=gpuhunt.parse,
        needs_provider=True,
        needs_observed_on=True,
        third_party=True,
    ),
    ImportFormat(
        name="litellm",
        label="LiteLLM model prices JSON (per-token)",
        sniff=litellm.sniff,
        parse=litellm.parse,
        needs_observed_on=True,
        third_party=True,
        json=True,
    ),
    ImportFormat(
        name="openrouter",
        label="OpenRouter models or endpoints JSON (per-token)",
        sniff=openrouter.sniff,
        parse=openrouter.parse,
        needs_observed_on=True,
        third_party=True,
        json=True,
    ),
    ImportFormat(
        name="canonical",
        label="Canonical CSV or JSON",
        sniff=canonical.sniff,
        parse=canonical.parse,
    ),
)
BY_NAME: dict[str, ImportFormat] = {f.name: f for f in FORMATS}


def format_names() -> list[str]:
    """What `--format` and the upload form accept: `auto` first, then every format."""
    return [AUTO, *BY_NAME]


def format_choices() -> list[tuple[str, str]]:
    return [(AUTO, "Detect from the content"), *((f.name, f.label) for f in FORMATS)]


def needs_provider(name: str) -> bool:
    return name in BY_NAME and BY_NAME[name].needs_provider


def detect(text: str, requested: str = AUTO) -> tuple[ImportFormat, str]:
    """The format (the requested one, else the first whose sniff accepts the text) and its variant."""
    if requested != AUTO:
        chosen = BY_NAME[requested]
        return chosen, chosen.sniff(text) or chosen.name
    for candidate in FORMATS:
        if variant := candidate.sniff(text):
            return candidate, variant
    last = FORMATS[-1]
    return last, last.name
