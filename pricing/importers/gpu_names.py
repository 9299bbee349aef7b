"""How a third-party catalog's GPU description becomes a GPU model: the spellings to try, most specific first.

A catalog names a GPU (`A100-80GB`, `L40_PCIE`, `RTX4090`), and may give one GPU's memory and a form factor. The
reference data's models and aliases are matched against `name memory form`, `name form`, `name memory`, `name` for
every name the row gives, then for the same names without the words catalogs add to them (`L40_PCIE` -> `L40`).
"""

from __future__ import annotations

import re

from pricing.importers.base import Catalog

# What a name adds to the GPU's own name: form factor, memory, a provider's flavour. Spheron writes `L40_PCIE`,
# `RTX6000ADA_PCIE`, `V100_32G_PCIE`, `A6000_PCIE_LOW_RAM`; without these words the name is the GPU's.
_NAME_MEMORY = re.compile(r"(?:^|[_\s-])(\d+)g(?:b)?(?=$|[_\s-])", re.I)
_NAME_EXTRAS = re.compile(r"[_\s-](?:pcie|sxm\d?|nvl|baremetal|high_perf|low_ram|\d+g(?:b)?)(?=$|[_\s-])", re.I)


def bare_gpu_name(name: str) -> str:
    """The name without the words catalogs add to it (`L40_PCIE` -> `L40`, `V100_32G_PCIE` -> `V100`)."""
    previous = None
    while previous != name:
        previous, name = name, _NAME_EXTRAS.sub("", name)
    return name


def name_memory_gb(name: str) -> int | None:
    """The memory a name states (`A100-80GB-SXM4`, `V100_32G_PCIE`), or None."""
    match = _NAME_MEMORY.search(name)
    return int(match.group(1)) if match else None


def gpu_candidates(names: list[str], memory_gb: int | None, form: str) -> list[str]:
    """Spellings to look up, most specific first: `A100 80GB PCIe` before `A100 PCIe`, whichever name gives it.
    Without a memory figure the memory a name states counts (`A100-80GB-SXM4` is never the 40 GB part)."""
    names = [name for name in names if name]
    memory_gb = memory_gb or next(filter(None, map(name_memory_gb, names)), None)
    names += [bare for name in names if (bare := bare_gpu_name(name)) != name]
    memory = f"{memory_gb}GB" if memory_gb else ""
    patterns = ("{} " + memory + " " + form, "{} " + form, "{} " + memory, "{}")
    return list(dict.fromkeys(pattern.format(name).strip() for pattern in patterns for name in names))


def resolve_gpu(catalog: Catalog, names: list[str], memory_gb: int | None, form: str) -> int | None:
    """The id of the first known GPU model among the candidates, or None."""
    for candidate in gpu_candidates(names, memory_gb, form):
        if found := catalog.gpu(candidate):
            return found[0]
    return None
