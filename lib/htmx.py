"""Rendering for htmx requests (django-htmx sets ``request.htmx``): a template's partial, or the whole page."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def render_partial(
    request: HttpRequest, template: str, partial: str, context: dict[str, Any], *, status: int = 200
) -> HttpResponse:
    """The named partial of ``template`` (django-template-partials) for an htmx request, the whole page otherwise."""
    name = f"{template}#{partial}" if request.htmx else template
    return render(request, name, context, status=status)
