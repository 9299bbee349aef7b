"""Which GPUs a billed instance carries, from the words a bill names it by (instance type, VM size, machine type).

The GPU models come from the price importers' own tables (pricing/importers/feed_rules.py for AWS families and
Azure sizes, pricing/importers/skypilot_rules.py for Google machine types), so a bill and a price list name a GPU
the same way. The AWS price list carries each size's GPU count as an attribute; a bill does not, so the counts per
size are listed here (AWS's instance type pages).
"""

from __future__ import annotations

import re
from functools import lru_cache

from pricing.importers.feed_rules import AWS_GPU_FAMILIES, azure_size_gpus
from pricing.importers.skypilot_rules import gcp_machine_gpus

# AWS GPU family -> {size: GPUs}; a size not listed has one GPU (the xlarge .. 16xlarge single-GPU sizes).
_G5_LIKE = {"12xlarge": 4, "24xlarge": 4, "48xlarge": 8}
AWS_GPU_COUNTS: dict[str, dict[str, int]] = {
    "g3": {"4xlarge": 1, "8xlarge": 2, "16xlarge": 4},
    "g3s": {"xlarge": 1},
    "g4dn": {"12xlarge": 4, "metal": 8},
    "g4ad": {"8xlarge": 2, "16xlarge": 4},
    "g5": _G5_LIKE,
    "g5g": {"16xlarge": 2, "metal": 2},
    "g6": _G5_LIKE,
    "gr6": {},
    "g6e": _G5_LIKE,
    "p2": {"xlarge": 1, "8xlarge": 8, "16xlarge": 16},
    "p3": {"2xlarge": 1, "8xlarge": 4, "16xlarge": 8},
    "p3dn": {"24xlarge": 8},
    "p4d": {"24xlarge": 8},
    "p4de": {"24xlarge": 8},
    "p5": {"4xlarge": 1, "48xlarge": 8},
    "p5e": {"48xlarge": 8},
    "p5en": {"48xlarge": 8},
    "p6-b200": {"48xlarge": 8},
    "p6-b300": {"48xlarge": 8},
    "dl1": {"24xlarge": 8},
}
# Families that only come in a multi-GPU size: a size not listed is unknown there, not one GPU.
_WHOLE_SERVER_FAMILIES = frozenset({"p3dn", "p4d", "p4de", "p5e", "p5en", "p6-b200", "p6-b300", "dl1"})

_AWS_INSTANCE = re.compile(r"(?<![\w.-])([a-z][a-z0-9]*(?:-[a-z0-9]+)?)\.((?:\d+)?x?large|metal(?:-\d+xl)?)\b")
_AZURE_SIZE = re.compile(r"(?<![A-Za-z0-9])(?:Standard_)?(N[CDV]C?\d+[a-z]*(?:[ _][A-Za-z0-9]+)*)")
_GCP_MACHINE = re.compile(r"\b((?:a2|a3|a4|a4x|g2|g4)-[a-z]+-\d+g?(?:-nolssd)?)\b")


def aws_instance_gpus(family: str, size: str) -> tuple[str, int] | None:
    gpu = AWS_GPU_FAMILIES.get(family)
    if gpu is None:
        return None
    counts = AWS_GPU_COUNTS.get(family, {})
    if size in counts:
        return gpu, counts[size]
    if family in _WHOLE_SERVER_FAMILIES:
        return None
    return gpu, 1


@lru_cache(maxsize=65536)
def instance_gpus(text: str) -> tuple[str, int] | None:
    """(GPU model, GPUs per instance) of the first GPU instance type the text names, or None.

    ``"$1.624 per On Demand Linux g5.4xlarge Instance Hour"`` -> ("A10G", 1); ``"p4d.24xlarge"`` -> ("A100 40GB
    SXM", 8); ``"Standard_ND96isr_H100_v5"`` or ``"ND96isr H100 v5"`` -> ("H100 SXM", 8); ``"a3-highgpu-8g"`` ->
    ("H100", 8)."""
    if not text:
        return None
    for match in _AWS_INSTANCE.finditer(text):
        found = aws_instance_gpus(match.group(1), match.group(2))
        if found:
            return found
    for match in _GCP_MACHINE.finditer(text):
        found = gcp_machine_gpus(match.group(1))
        if found:
            accelerator, count = found
            return accelerator, count
    for match in _AZURE_SIZE.finditer(text):
        size = match.group(1).replace(" ", "_")
        # The longest reading first: "NC24ads A100 v4 ..." may run on into unrelated words.
        parts = size.split("_")
        for end in range(len(parts), 0, -1):
            answer = azure_size_gpus("_".join(parts[:end]))
            if isinstance(answer, tuple):
                gpus, gpu = answer
                return gpu, gpus
    return None
