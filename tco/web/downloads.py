"""File downloads: the scenario's and a decision link's numbers as CSV, Excel or the frozen JSON."""

from __future__ import annotations

from django.http import Http404, HttpResponse

from tco import exports

EXPORTS = ("options.csv", "monthly.csv", "results.xlsx", "simulation.csv", "tornado.csv")


def download(content: str | bytes, filename: str, content_type: str) -> HttpResponse:
    """``content`` as an attachment named ``filename``."""
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


UNCERTAINTY_TABLES = {"simulation.csv": exports.simulation_table, "tornado.csv": exports.tornado_table}


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
    ``results.xlsx``) of a document and its result, and of its current simulation run (``uncertainty``).

    ``about`` (scenario, version, computed-at time, engine version) is stated in every file."""
    if what in UNCERTAINTY_TABLES:
        if uncertainty is None:
            return refusal("Nothing was exported: no simulation for these inputs yet; run it on the scenario page.")
        table = UNCERTAINTY_TABLES[what](uncertainty)
        return download(exports.csv_text(table, about), exports.export_filename(name, what), exports.CSV_CONTENT_TYPE)
    if what == "options.csv":
        return download(
            exports.csv_text(exports.option_table(result), about),
            exports.export_filename(name, what),
            exports.CSV_CONTENT_TYPE,
        )
    if what == "monthly.csv":
        table = exports.monthly_table(document, result)
        return download(exports.csv_text(table, about), exports.export_filename(name, what), exports.CSV_CONTENT_TYPE)
    if what == "results.xlsx":
        content = exports.results_workbook(document, result, about=about, uncertainty=uncertainty, **extra)
        return download(content, exports.export_filename(name, what), exports.XLSX_CONTENT_TYPE)
    raise Http404("No such export.")


def refusal(message: str, *, status: int = 409) -> HttpResponse:
    """An export that cannot be made: plain text with the reason, never a page saved as a .csv file."""
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")
