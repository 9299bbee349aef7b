"""The scenario side of the API (/api/v1/): evaluate, scenarios, runs and results, exports, decision links, the
document schema. Thin endpoints over the same services and selectors as the pages (``tco.web``)."""

from __future__ import annotations

from ninja import Router

from tco.api import documents, links, results, scenarios

router = Router()
for module in (documents, scenarios, results, links):
    router.add_router("", module.router)

openapi_components = documents.openapi_components

__all__ = ["openapi_components", "router"]
