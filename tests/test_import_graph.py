"""The project's own import graph keeps its layers: each layer imports only the layers below it, charts, presentation
and exports import no rows, reads, writes or web, pricing never imports tco, lib imports neither app, the engine
imports no Django. ``.importlinter`` commits these rules (``lint-imports`` in ``make test``); here the rules are
checked to be committed as the architecture guide states them, and read off the graph itself with grimp, so an
import that breaks one fails here with its chain."""

from __future__ import annotations

import configparser
import itertools
import re
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
# The layers, highest first, as docs/architecture.md states them.
LAYERS = {
    "tco-layers": [
        *("tco.web | tco.api", "tco.tasks", "tco.services", "tco.selectors", "tco.documents", "tco.models"),
        "tco.forecast | tco.prefill | tco.load_profiles",  # siblings: none imports another
        "tco.engine",
    ],
    "pricing-layers": [
        "pricing.views | pricing.api",
        "pricing.tasks",
        "pricing.services",
        "pricing.selectors",
        "pricing.models",
    ],
}
OUTPUT = ["tco.charts", "tco.presentation", "tco.exports", "pricing.charts", "pricing.export"]
NOT_FOR_OUTPUT = [
    *("tco.models", "tco.services", "tco.selectors", "tco.tasks", "tco.web", "tco.api"),
    *("pricing.models", "pricing.services", "pricing.selectors", "pricing.tasks", "pricing.views", "pricing.api"),
]
# Arrows point down: reads and writes never import what draws or words them (a task, view or view model composes).
INNER = ["tco.services", "tco.selectors", "pricing.services", "pricing.selectors"]
NOT_FOR_INNER = [*OUTPUT[:3], "pricing.charts", "pricing.presentation", "pricing.export"]
# (importer, what it must not reach, directly or through any chain)
FORBIDDEN = [
    *((source, target) for source in OUTPUT for target in NOT_FOR_OUTPUT),
    *((source, target) for source in INNER for target in NOT_FOR_INNER),
    ("pricing", "tco"),
    *(("lib", target) for target in ("config", "pricing", "tco")),
    *(("tco.engine", target) for target in ("django", "config", "pricing")),
]


def _contracts() -> dict[str, dict[str, str]]:
    parser = configparser.ConfigParser()
    parser.read(ROOT / ".importlinter")
    prefix = "importlinter:contract:"
    return {name.removeprefix(prefix): dict(parser[name]) for name in parser.sections() if name.startswith(prefix)}


def _lines(value: str) -> list[str]:
    return [line.strip() for line in value.strip().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("config", "lib", "pricing", "tco", include_external_packages=True)


def broken_chains(graph: grimp.ImportGraph) -> list[tuple[str, ...]]:
    """Each chain by which a layer reaches one above it, or a module reaches what it must not."""
    pairs = [
        (lower, higher)
        for layers in LAYERS.values()
        for above, below in itertools.combinations(layers, 2)
        for higher in above.split(" | ")
        for lower in below.split(" | ")
    ]
    siblings = [layer.split(" | ") for layers in LAYERS.values() for layer in layers if " | " in layer]
    pairs += [pair for group in siblings for pair in itertools.permutations(group, 2)]
    chains = (graph.find_shortest_chain(importer=a, imported=b, as_packages=True) for a, b in [*pairs, *FORBIDDEN])
    return [chain for chain in chains if chain]


# ------------------------------------------------------------------------------------------- the rules, committed
@pytest.mark.parametrize("contract", sorted(LAYERS))
def test_each_layer_contract_is_committed_in_order(contract):
    committed = _contracts()[contract]
    assert committed["type"] == "layers"
    assert _lines(committed["layers"]) == LAYERS[contract]


def test_the_output_contract_forbids_rows_reads_writes_and_web():
    committed = _contracts()["pure-output"]
    assert committed["type"] == "forbidden"
    assert _lines(committed["source_modules"]) == OUTPUT
    assert _lines(committed["forbidden_modules"]) == NOT_FOR_OUTPUT


def test_services_and_selectors_import_no_output_without_exceptions():
    committed = _contracts()["arrows-point-down"]
    assert committed["type"] == "forbidden"
    assert _lines(committed["source_modules"]) == INNER
    assert _lines(committed["forbidden_modules"]) == NOT_FOR_INNER
    assert "ignore_imports" not in committed


def test_the_app_boundaries_are_committed_without_exceptions():
    contracts = _contracts()
    for name in ("pricing-without-tco", "lib-neutral", "engine-framework-free"):
        assert contracts[name]["type"] == "forbidden"
        assert "ignore_imports" not in contracts[name], name


def test_the_architecture_guide_states_the_layers():
    text = (ROOT / "docs" / "architecture.md").read_text()
    assert "web > tasks > services > selectors > documents > models > forecast, prefill, load profiles > engine" in text


# ---------------------------------------------------------------------------------------- the rules, on the graph
def test_the_graph_holds_the_project(graph):
    assert len([module for module in graph.modules if module.split(".")[0] in ("tco", "pricing")]) > 150


def test_no_layer_imports_one_above_it_and_no_forbidden_import(graph):
    assert broken_chains(graph) == []


def test_views_and_tasks_import_no_other_entry_point(graph):
    entry_points = _lines(_contracts()["entry-points"]["modules"])
    assert {"tco.web", "tco.api", "tco.tasks", "pricing.views", "pricing.api", "pricing.tasks"} <= set(entry_points)
    reached = [(a, b) for a, b in itertools.permutations(entry_points, 2) if graph.chain_exists(a, b, as_packages=True)]
    assert reached == []


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("tco.selectors.scenarios", "tco.services.runs"),  # a read that writes, through a layer above it
        ("tco.models.run", "tco.web.access"),  # a row that knows the request
        ("tco.charts.costs", "tco.models.scenario"),  # a chart that reads rows, not the result alone
        ("tco.services.runs", "tco.charts.build"),  # a write that draws, not its task
        ("pricing.selectors", "pricing.presentation"),  # a read that words, not its view
        ("pricing.selectors", "tco.models"),  # the Market borrowing from tco
        ("tco.engine.model", "lib.jobs"),  # the engine reaching Django through the shared library
    ],
)
def test_a_forbidden_import_is_found_with_its_chain(graph, importer, imported):
    graph.add_import(importer=importer, imported=imported)
    try:
        chains = broken_chains(graph)
    finally:
        graph.remove_import(importer=importer, imported=imported)
    assert chains
    assert all(importer in chain and imported in chain for chain in chains)


@pytest.mark.parametrize("template", sorted((ROOT / "templates" / "pricing").glob("*.html")), ids=lambda p: p.name)
def test_pricing_templates_name_nothing_of_tco(template):
    assert re.findall(r"\btco\b.*", template.read_text()) == []
