"""Pure presentation of engine results: the headline answer and table rows (no database, no request).

Number formatting and kind words are the shared library's (``lib.formatting``, ``lib.kinds``).
"""

from __future__ import annotations

from .headline import headline
from .life import life_note, life_notes
from .price_path import price_path_words
from .rows import break_even_rows, break_even_verdict, option_rows

__all__ = [
    "break_even_rows",
    "break_even_verdict",
    "headline",
    "life_note",
    "life_notes",
    "option_rows",
    "price_path_words",
]
