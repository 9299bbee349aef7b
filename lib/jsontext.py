"""JSON a user sends (price files, scenario files), read with a bound on its nesting.

``json.loads`` recurses once per level: 100,000 nested ``[`` raise RecursionError, and a document only a little
shallower than Python's recursion limit breaks the next code that walks it. No file of the app is nested more
than a few levels, so anything deeper than MAX_DEPTH is refused, with a message, before it is parsed. Every
failure to read is one JSONTextError (a ValueError) whose message says what is wrong.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from lib.errors import AppError

MAX_DEPTH = 64
# Strings (whose brackets are text) and runs of anything but brackets: what is left after removing them is the
# document's bracket structure.
_NOT_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|[^\[\]{}"]+', re.DOTALL)
_OPENERS = np.frombuffer(b"[{", dtype=np.uint8)


class JSONTextError(AppError, ValueError):
    """The text is not JSON this app reads; the message says why, ``line`` where (0 when no line is to blame)."""

    def __init__(self, message: str, *, line: int = 0) -> None:
        super().__init__(message)
        self.line = line


def nesting_depth(text: str) -> int:
    """How many levels of [ and { the text nests at its deepest (brackets inside strings do not count)."""
    structure = _NOT_STRUCTURE.sub("", text).replace('"', "").encode("ascii")
    if not structure:
        return 0
    codes = np.frombuffer(structure, dtype=np.uint8)
    steps = np.where(np.isin(codes, _OPENERS), 1, -1)
    return int(np.cumsum(steps).max())


def read_json(text: str, *, max_depth: int = MAX_DEPTH, **options: Any) -> Any:
    """``json.loads(text, **options)``, refusing nesting deeper than ``max_depth`` first. Raises JSONTextError."""
    depth = nesting_depth(text)
    if depth > max_depth:
        raise JSONTextError(f"nested deeper than {max_depth} levels of [ and {{ (found {depth:,})")
    try:
        return json.loads(text, **options)
    except json.JSONDecodeError as error:
        raise JSONTextError(f"{error.msg} at line {error.lineno}, column {error.colno}", line=error.lineno) from None
    except (ValueError, RecursionError) as error:  # a number of over 4,300 digits; nesting past the interpreter's
        raise JSONTextError(str(error)) from None
