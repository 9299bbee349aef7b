"""The results panel of a done run, built once and kept in Django's cache for every later view of that run.

A run's document, result and figures never change once it is done, so its headline, tables and the rendered panel
body are a pure function of (run, rental the break-even map varies), kept under a key of the run's id and
``finished_at`` (a reused primary key, a test database rolled back, never serves another run's panel). The figures
themselves are not in the page: each chart names the run's figures at an immutable URL (``run_figures_view``), which
the browser fetches once and keeps; the page stays small and an edit's answer carries no figure. Only a break-even
map redrawn for another rental than the stored one is sent inline.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import datetime

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import json_script
from django.utils.safestring import SafeString

from lib.caching import kept
from lib.currencies import currency_of
from tco.charts import FIGURE_ORDER, map_rental_index, map_rentals, with_map_rental
from tco.models import ScenarioRun
from tco.presentation import break_even_rows, headline, option_rows
from tco.presentation.finance import finance_answers
from tco.presentation.rows import training_rows

TIMEOUT = 7 * 24 * 3600  # seconds; a done run never changes, the timeout only bounds what the cache keeps


@dataclass(frozen=True)
class RunFacts:
    """What the panel shows about its run (the cached panel keeps no model instance and no figure dicts)."""

    pk: int
    scenario_id: int
    scenario_version: int
    finished_at: datetime | None
    engine_version: str


@dataclass(frozen=True)
class Chart:
    """One figure, ready for the page: fetched from ``src`` (the run's figures, ``#key`` naming this one), or, for a
    map redrawn on request, its <script type="application/json"> element."""

    key: str
    element_id: str
    label: str
    src: str = ""
    script: str = ""


@dataclass(frozen=True)
class Answer:
    """What the results panel shows for one done run."""

    run: RunFacts
    headline: dict
    break_even: list[dict]
    options: list[dict]
    figures: list[Chart]
    finance: list[dict]  # the tax, financing, refresh and commitment answers in words (tco.presentation.finance)
    currency: str
    map_rentals: list[str]  # the rentals the break-even map can vary
    map_rental: str  # the one it varies
    body: str = ""  # the rendered panel body (headline, cards, tables, charts), a SafeString once built
    training: list[dict] = field(default_factory=list)  # the training plan's figures (tco.presentation.rows)

    def chart(self, key: str) -> Chart | None:
        return next((chart for chart in self.figures if chart.key == key), None)

    @property
    def has_map(self) -> bool:
        """Whether the panel draws the break-even map (with the rental it varies: a menu, or one hidden input)."""
        return self.chart("break_even_map") is not None


def answer_for(run: ScenarioRun | None, *, map_rental: str = "") -> Answer | None:
    """The panel for a done run (None without a result); ``map_rental`` redraws its break-even map against another
    rental (an unknown name draws the default one). Built on the first view of the run, then read from the cache."""
    if run is None or not run.result:
        return None
    drawn = map_rental_index(run.document, run.result, map_rental)
    key = f"scenario-answer:{run.pk}:{run.finished_at.isoformat() if run.finished_at else ''}:{drawn}"
    return kept(key, lambda: _build(run, map_rental, drawn), timeout=TIMEOUT)


def figures_url(run: ScenarioRun) -> str:
    """The run's figures at a URL that names its finish, so what it answers never changes (cached for a year)."""
    stamp = int(run.finished_at.timestamp() * 1_000_000) if run.finished_at else 0
    return reverse("tco:run_figures", args=[run.scenario_id, run.pk, stamp])


def figures_json(run: ScenarioRun) -> bytes:
    """The run's stored figures as one JSON object (key → figure), serialised once per run."""
    key = f"scenario-figures:{run.pk}:{run.finished_at.isoformat() if run.finished_at else ''}"
    return kept(key, lambda: json.dumps(run.figures or {}, separators=(",", ":")).encode(), timeout=TIMEOUT)


def _build(run: ScenarioRun, map_rental: str, drawn: int | None) -> Answer:
    stored = run.figures or {}
    figures = with_map_rental(run.document, run.result, stored, map_rental)
    src = figures_url(run)
    charts = []
    for key in FIGURE_ORDER:
        if key in figures:
            element_id = f"fig-{key}-{run.pk}"
            title = ((figures[key].get("layout") or {}).get("title") or {}).get("text") or key
            if figures[key] is stored.get(key):
                charts.append(Chart(key, element_id, str(title), src=f"{src}#{key}"))
            else:  # redrawn for another rental than the stored map's
                element_id = f"{element_id}-{drawn}"
                charts.append(Chart(key, element_id, str(title), script=json_script(figures[key], element_id)))
    answer = Answer(
        run=RunFacts(run.pk, run.scenario_id, run.scenario_version, run.finished_at, run.engine_version),
        headline=headline(run.document, run.result),
        break_even=break_even_rows(run.document, run.result),
        options=option_rows(run.document, run.result),
        figures=charts,
        finance=finance_answers(run.document, run.result),
        currency=currency_of(run.result),
        map_rentals=map_rentals(run.document),
        map_rental=run.document["options"][drawn]["name"] if drawn is not None else "",
        training=training_rows(run.result),
    )
    body = render_to_string("tco/scenario_detail.html#answer_body", {"answer": answer})
    figures_json(run)  # serialised now, while loaded: the page fetches them next (run_figures_view)
    return replace(answer, body=SafeString(body))
