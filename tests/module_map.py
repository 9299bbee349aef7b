"""The module map of docs/architecture.md, made from the modules' own docstrings: one line per module, its
docstring's first sentence, grouped by package. ``tests/test_docs.py`` fails when the map and the code differ; run
``.venv/bin/python tests/module_map.py`` to write the map again after adding a module or changing what one says."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "architecture.md"
APP_PACKAGES = ("config", "lib", "pricing", "tco")
HEADING = "## Module map"
INTRO = (
    "Every module, by package (migrations left out), in the words of its own docstring's first sentence. This\n"
    "section is written by `tests/module_map.py` and checked by `tests/test_docs.py`: what a module holds is said in\n"
    "its docstring."
)
# The first sentence: up to a full stop that ends the paragraph or is followed by a space and a capital or a quote.
SENTENCE = re.compile(r"^(.+?[.!?])(?=\s+[A-Z`\"(]|\s*$)", re.DOTALL)


def parse(source: str) -> ast.Module:
    """``ast.parse``, tried once more on CPython 3.11.7's spurious "AST constructor recursion depth mismatch"
    (a SystemError it raises, depending on what ran earlier in the process; fixed in later 3.11 releases)."""
    try:
        return ast.parse(source)
    except SystemError as error:
        if "recursion depth mismatch" not in str(error):
            raise
        return ast.parse(source)


def summary(path: Path) -> str | None:
    """The first sentence of the module's docstring, on one line; None for an empty module (a bare package)."""
    source = path.read_text()
    docstring = ast.get_docstring(parse(source))
    if not docstring:
        if source.strip():
            raise ValueError(f"{path} has code but no docstring to put on the module map")
        return None
    paragraph = " ".join(docstring.split("\n\n")[0].split())
    match = SENTENCE.match(paragraph)
    return match.group(1) if match else paragraph


def packages() -> list[Path]:
    found = {path.parent for top in APP_PACKAGES for path in (ROOT / top).rglob("__init__.py")}
    return sorted(package for package in found if "migrations" not in package.parts)


def module_map() -> str:
    """The section's body: the intro, then one ``### `package/``` list per package with a documented module."""
    blocks = [INTRO]
    for package in packages():
        lines = []
        for module in sorted(package.glob("*.py"), key=lambda p: (p.name != "__init__.py", p.name)):
            words = summary(module)
            if words is not None:
                lines.append(f"- `{module.relative_to(ROOT).as_posix()}`: {words}")
        if lines:
            blocks.append(f"### `{package.relative_to(ROOT).as_posix()}/`\n\n" + "\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def written_map(text: str) -> str:
    """What docs/architecture.md holds under the module map heading (the last section of the file)."""
    return text.split(f"{HEADING}\n\n", 1)[1]


def write() -> None:
    text = ARCHITECTURE.read_text()
    ARCHITECTURE.write_text(text.split(f"{HEADING}\n\n", 1)[0] + f"{HEADING}\n\n" + module_map())


if __name__ == "__main__":
    write()
    sys.stdout.write(f"wrote the module map of {ARCHITECTURE.relative_to(ROOT)}\n")
