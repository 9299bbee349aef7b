"""Decision links: list a scenario's, create one (its URL and token shown once), revoke one."""

from __future__ import annotations

from datetime import datetime

from django.http import HttpRequest
from django.urls import reverse
from ninja import Field, Router, Schema, Status

from config.api.problems import ApiProblem, errors
from tco.api.common import Id, scenario_for
from tco.charts import snapshot as snapshot_output
from tco.checks import LINK_DAYS_DEFAULT, LINK_DAYS_MAX, LINK_DAYS_MIN, DecisionError
from tco.models import DecisionLink
from tco.selectors.decisions import scenario_links
from tco.services.decisions import link_create, link_revoke

router = Router(tags=["decision links"])


class LinkOut(Schema):
    id: int
    status: str = Field(description="active, expired or revoked")
    note: str
    scenario_version: int
    created_at: datetime
    expires_at: datetime
    revoked_at: datetime | None
    open_count: int

    @staticmethod
    def resolve_scenario_version(link: DecisionLink) -> int:
        return link.snapshot.scenario_version


class NewLinkOut(LinkOut):
    url: str = Field(description="The public page; shown only this once (only a fingerprint of it is kept).")


class LinkIn(Schema):
    expires_in_days: int = Field(LINK_DAYS_DEFAULT, ge=LINK_DAYS_MIN, le=LINK_DAYS_MAX)
    note: str = Field("", max_length=200)


@router.get("/scenarios/{pk}/links", response={200: list[LinkOut], **errors(404, 422)}, summary="List decision links")
def link_list(request: HttpRequest, pk: Id) -> list[DecisionLink]:
    return scenario_links(scenario_for(request, pk))


@router.post(
    "/scenarios/{pk}/links",
    response={201: NewLinkOut, **errors(403, 404, 409, 422)},
    summary="Create a decision link",
    description="Freezes the current numbers (they must evaluate: 409 otherwise) behind a public, read-only page.",
)
def link_new(request: HttpRequest, pk: Id, body: LinkIn) -> Status[DecisionLink]:
    scenario = scenario_for(request, pk, write=True)
    try:
        link, token = link_create(
            scenario=scenario,
            user=request.user,
            output=snapshot_output,
            expires_in_days=body.expires_in_days,
            note=body.note,
        )
    except DecisionError as error:
        raise ApiProblem(409 if not error.field else 422, error.message) from None
    link.url = request.build_absolute_uri(reverse("decision_page", args=[token]))
    return Status(201, link)


@router.delete(
    "/scenarios/{pk}/links/{link_pk}",
    response={200: LinkOut, **errors(403, 404, 422)},
    summary="Revoke a decision link",
    description="For good: the link opens nothing from now on. Revoking a revoked link changes nothing.",
)
def link_delete(request: HttpRequest, pk: Id, link_pk: Id) -> DecisionLink:
    scenario = scenario_for(request, pk, write=True)
    link = DecisionLink.objects.select_related("snapshot").filter(pk=link_pk, scenario=scenario).first()
    if link is None:
        raise ApiProblem(404, f"Scenario {pk} has no decision link {link_pk}.")
    link_revoke(link=link, user=request.user)
    link.refresh_from_db()
    return link
