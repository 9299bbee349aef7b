"""How names from price files are matched: case, spaces, dashes and underscores do not matter.

`H100 SXM`, `h100-sxm` and `H100_SXM` are one name. Pure Python, shared by models and importers.
"""

from __future__ import annotations

import re

_SEPARATORS = re.compile(r"[\s_\-]+")


def normalise_name(name: str) -> str:
    return _SEPARATORS.sub("", name).casefold()
