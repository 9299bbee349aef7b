"""Roles: viewers read, editors (and superusers) edit. Every scenario view goes through here."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest

from tco.models import Scenario
from tco.selectors import scenario_with_options

READ_GROUPS = ("viewers", "editors")
WRITE_GROUPS = ("editors",)


def _groups(request: HttpRequest) -> set[str]:
    cached = getattr(request, "_tco_groups", None)
    if cached is None:
        cached = set(request.user.groups.values_list("name", flat=True)) if request.user.is_authenticated else set()
        request._tco_groups = cached
    return cached


def can_read(request: HttpRequest) -> bool:
    user = request.user
    return user.is_authenticated and (user.is_superuser or bool(_groups(request) & set(READ_GROUPS)))


def can_edit(request: HttpRequest) -> bool:
    user = request.user
    return user.is_authenticated and (user.is_superuser or bool(_groups(request) & set(WRITE_GROUPS)))


def require_role(request: HttpRequest, *, write: bool) -> None:
    if not (can_edit(request) if write else can_read(request)):
        raise PermissionDenied(
            "Editing scenarios needs the editor role." if write else "You have no access to scenarios."
        )


def _get_scenario_for_user(request: HttpRequest, pk: int, *, write: bool = False, options: bool = False) -> Scenario:
    """The scenario if the user may read it (or edit it, with write=True); 404 when it does not exist,
    403 when the role is missing. `options=True` prefetches options and checklists."""
    require_role(request, write=write)
    try:
        return scenario_with_options(pk) if options else Scenario.objects.get(pk=pk)
    except Scenario.DoesNotExist:
        raise Http404("No such scenario.") from None
