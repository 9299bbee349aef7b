"""The one error type the engine raises for a document it cannot evaluate."""

from __future__ import annotations

from dataclasses import dataclass

from .catalogue import OPTION_FIELD
from .paths import MONTH_PATH, OPTION_PATH

# What kind of problem it is, for a page to react to (never the message's words): a value the document needs and
# lacks; a number outside its bounds; a value that is not a number; a fraction where a whole number is needed; a
# field the schema does not have; anything else.
PROBLEM_CODES = ("required", "out_of_range", "not_a_number", "not_whole", "unknown_field", "conflict", "invalid")


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a scenario document.

    ``path`` uses the document's own syntax (``options[2].useful_life_years``, ``utilization[5]``;
    ``""`` for the document itself); ``message`` is written for a finance user and names what was
    expected and what was given; ``code`` is one of ``PROBLEM_CODES``. A ``required`` problem's ``reason`` is
    what its message says beyond "... is required" (what to give), "" when nothing.
    """

    path: str
    message: str
    code: str = "invalid"
    reason: str = ""

    def __str__(self) -> str:
        return f"{self.path or 'scenario'}: {self.message}"


class ScenarioError(ValueError):
    """Raised with every problem found, never just the first."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(problem) for problem in self.problems))


def problem_text(problem: Problem, document: object = None) -> str:
    """A problem as a finance user reads it: the option's name and the field, never a path.

    ``options[0].capex`` in ``document`` becomes "Own 8 H100 (new) → Capex, whole option (USD) must not be negative;
    got -1";
    ``utilization[4]`` becomes "Month 5: Utilization must be ..."; other paths are already named in the message.
    """
    match = OPTION_PATH.match(problem.path)
    if match:
        index = int(match.group(1))
        options = document.get("options") if isinstance(document, dict) else None
        option = options[index] if isinstance(options, list) and index < len(options) else None
        name = option.get("name") if isinstance(option, dict) else None
        label = name.strip() if isinstance(name, str) and name.strip() else f"Option {index + 1}"
        return f"{label} → {_with_field(problem.message, match.group(2))}"
    month = MONTH_PATH.match(problem.path)
    if month:
        return f"Month {int(month.group(1)) + 1}: {problem.message}"
    return problem.message


def _with_field(message: str, field: str | None) -> str:
    """ "Capex, whole option (USD) must not be negative" stays; "1E+20 is too large to store" becomes "Capex, whole
    option: 1E+20 is too large ..."."""
    entry = OPTION_FIELD.get(field or "")
    if entry is None:
        return message
    label = entry.label[:1].upper() + entry.label[1:]
    return message if message.lower().startswith(label.lower()) else f"{label}: {message}"
