"""Roles: viewers read, editors (and superusers) edit. Every scenario view goes through here."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest

from config.roles import is_editor, is_reader
from tco.models import Scenario, ScenarioOption
from tco.selectors.scenarios import scenario_with_options


def can_read(request: HttpRequest) -> bool:
    return is_reader(request.user)


def can_edit(request: HttpRequest) -> bool:
    return is_editor(request.user)


def require_role(request: HttpRequest, *, write: bool) -> None:
    if not (can_edit(request) if write else can_read(request)):
        raise PermissionDenied(
            "Editing scenarios needs the editor role." if write else "You have no access to scenarios."
        )


def get_scenario_for_user(request: HttpRequest, pk: int, *, write: bool = False, options: bool = False) -> Scenario:
    """The scenario if the user may read it (or edit it, with write=True); 404 when it does not exist,
    403 when the role is missing. `options=True` prefetches options and checklists."""
    require_role(request, write=write)
    try:
        return scenario_with_options(pk) if options else Scenario.objects.get(pk=pk)
    except Scenario.DoesNotExist:
        raise Http404("No such scenario.") from None


def get_option_for_user(request: HttpRequest, pk: int, option_pk: int, *, write: bool = False) -> ScenarioOption:
    """Option ``option_pk`` of scenario ``pk`` with its scenario (``option.scenario``, one query), on the same terms
    as ``get_scenario_for_user``: 404 when either does not exist, 403 when the role is missing."""
    require_role(request, write=write)
    try:  # scenario__pk, not scenario_id: an id past the column's range finds nothing instead of failing
        return ScenarioOption.objects.select_related("scenario").get(pk=option_pk, scenario__pk=pk)
    except ScenarioOption.DoesNotExist:
        raise Http404("No such option.") from None
