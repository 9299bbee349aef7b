"""One family for the errors a user can cause: what is wrong and what was expected, in words they can act on.

Every such error carries its text the same way: ``messages`` (one sentence or more, as the user reads them),
``message`` (them as one text; ``str()`` says the same) and ``field``, the form field or document path at fault
("" when the error is about no one input). A view shows ``error.message`` whatever the error; a subclass adds only
what its callers need besides (the scenario a VersionConflict saw, the problems an edit would add).
"""

from __future__ import annotations


class AppError(Exception):
    def __init__(self, *messages: str, field: str = "") -> None:
        self.messages = list(messages)
        self.field = field
        super().__init__(*messages)

    @property
    def message(self) -> str:
        return " ".join(self.messages)

    def __str__(self) -> str:
        return self.message
