"""File downloads: the scenario's and a decision link's numbers as CSV, Excel or the frozen JSON."""

from __future__ import annotations

from django.http import Http404, HttpResponse

from tco import exports

EXPORTS = exports.EXPORTS


def download(content: str | bytes, filename: str, content_type: str) -> HttpResponse:
    """``content`` as an attachment named ``filename``."""
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def export_response(
    document: dict,
    result: dict,
    name: str,
    what: str,
    *,
    about: list[tuple[str, str]],
    uncertainty: dict | None = None,
    **extra,
) -> HttpResponse:
    """One of the exports (``options.csv``, ``monthly.csv``, ``simulation.csv``, ``tornado.csv``,
    ``results.xlsx``) of a document and its result, and of its current simulation run (``uncertainty``), as a
    download (``tco.exports.export_file``)."""
    if what not in EXPORTS:
        raise Http404("No such export.")
    made = exports.export_file(document, result, name, what, about=about, uncertainty=uncertainty, **extra)
    if made is None:
        return refusal("Nothing was exported: no simulation for these inputs yet; run it on the scenario page.")
    return download(*made)


def refusal(message: str, *, status: int = 409) -> HttpResponse:
    """An export that cannot be made: plain text with the reason, never a page saved as a .csv file."""
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")
