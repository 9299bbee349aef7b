"""The results panel of a done run, built once per process and reused by every later view of that run.

A run's document, result and figures never change once it is done, so its headline, tables, serialised figures
and the rendered panel body are a pure function of (run, rental the break-even map varies). Page views of an
unchanged scenario read them from a small in-process LRU instead of re-parsing the stored figures, re-serialising
them into the page and re-rendering the tables; the page loads runs without their figures
(``tco.selectors.scenarios.run_state``), and a miss reads them once. Keys carry the run's ``finished_at`` as well
as its id, so a reused primary key (a test database rolled back) never serves another run's panel.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from django.template.loader import render_to_string
from django.utils.html import json_script
from django.utils.safestring import SafeString

from lib.lru import LruCache
from tco.charts import FIGURE_ORDER, map_rental_index, map_rentals, with_map_rental
from tco.models import ScenarioRun
from tco.presentation import break_even_rows, headline, option_rows

CACHED_ANSWERS = 256  # panels kept per process (a panel is ~100 kB of text)


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
    """One figure, ready for the page: its <script type="application/json"> element is serialised once."""

    key: str
    element_id: str
    label: str
    script: SafeString


@dataclass(frozen=True)
class Answer:
    """What the results panel shows for one done run."""

    run: RunFacts
    headline: dict
    break_even: list[dict]
    options: list[dict]
    figures: list[Chart]
    currency: str
    map_rentals: list[str]  # the rentals the break-even map can vary
    map_rental: str  # the one it varies
    body: str = ""  # the rendered panel body (headline, cards, tables, charts), a SafeString once built

    def chart(self, key: str) -> Chart | None:
        return next((chart for chart in self.figures if chart.key == key), None)


_answers: LruCache[Answer] = LruCache(CACHED_ANSWERS)


def answer_for(run: ScenarioRun | None, *, map_rental: str = "") -> Answer | None:
    """The panel for a done run (None without a result); ``map_rental`` redraws its break-even map against another
    rental (an unknown name draws the default one). Built on the first view of the run, then served from memory."""
    if run is None or not run.result:
        return None
    drawn = map_rental_index(run.document, run.result, map_rental)
    return _answers.get_or_build((run.pk, run.finished_at, drawn), lambda: _build(run, map_rental, drawn))


def _build(run: ScenarioRun, map_rental: str, drawn: int | None) -> Answer:
    figures = with_map_rental(run.document, run.result, run.figures or {}, map_rental)
    charts = []
    for key in FIGURE_ORDER:
        if key in figures:
            element_id = f"fig-{key}-{run.pk}"
            title = ((figures[key].get("layout") or {}).get("title") or {}).get("text") or key
            charts.append(Chart(key, element_id, str(title), json_script(figures[key], element_id)))
    answer = Answer(
        run=RunFacts(run.pk, run.scenario_id, run.scenario_version, run.finished_at, run.engine_version),
        headline=headline(run.document, run.result),
        break_even=break_even_rows(run.document, run.result),
        options=option_rows(run.document, run.result),
        figures=charts,
        currency=run.result.get("currency", "USD"),
        map_rentals=map_rentals(run.document),
        map_rental=run.document["options"][drawn]["name"] if drawn is not None else "",
    )
    body = render_to_string("tco/scenario_detail.html#answer_body", {"answer": answer})
    return replace(answer, body=SafeString(body))
