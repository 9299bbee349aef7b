"""The scenario side of the API (/api/v1/): evaluate, size, scenarios, runs and results, exports, decision links, the
documents' schemas. Thin endpoints over the same services and selectors as the pages (``tco.web``)."""

from __future__ import annotations

from ninja import Router

from tco.api import documents, links, results, scenarios, sizing

router = Router()
for module in (documents, sizing, scenarios, results, links):
    router.add_router("", module.router)


def openapi_components() -> dict:
    """The documents' schemas (scenario and sizing), derived from the catalogue, as OpenAPI components."""
    return {**documents.openapi_components(), **sizing.openapi_components()}


__all__ = ["openapi_components", "router"]
