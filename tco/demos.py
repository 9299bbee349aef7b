"""Demo scenarios: exported tco-scenario/1 documents in fixtures/scenarios/ (a serving configuration may sit beside the
document, as an export writes it), loaded by seed_demo and the list page."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

DEMO_DIR = Path(settings.BASE_DIR) / "fixtures" / "scenarios"


@dataclass(frozen=True)
class Demo:
    slug: str
    name: str
    document: dict


def demos() -> list[Demo]:
    """Every demo document, ordered by file name."""
    found = []
    for path in sorted(DEMO_DIR.glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        found.append(Demo(slug=path.stem, name=document["name"], document=document))
    return found


def demo(slug: str) -> Demo | None:
    return next((item for item in demos() if item.slug == slug), None)
