"""Where a view lives says what it is: every URL of the tco app names a function in ``tco/web/views/`` called
``<url name>_view``, every such function has its URL, and ``tco/web/viewmodels/`` holds none of them."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Iterator

from django.urls import URLPattern, URLResolver, get_resolver

import tco.web.viewmodels
import tco.web.views


def _routes(patterns=None) -> Iterator[tuple[str, URLPattern]]:
    for pattern in patterns if patterns is not None else get_resolver().url_patterns:
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns)
        else:
            yield pattern.name or "", pattern


def _tco_routes() -> list[tuple[str, object]]:
    return [(name, pattern.callback) for name, pattern in _routes() if pattern.callback.__module__.startswith("tco.")]


def _functions(package) -> list[object]:
    found = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        found += [f for _, f in inspect.getmembers(module, inspect.isfunction) if f.__module__ == module.__name__]
    return found


def test_there_are_routes_to_check():
    assert len(_tco_routes()) >= 35


def test_every_tco_url_names_its_view_in_tco_web_views():
    misplaced = [
        f"{name or '(unnamed)'} -> {view.__module__}.{view.__name__}"
        for name, view in _tco_routes()
        if not view.__module__.startswith("tco.web.views.") or view.__name__ != f"{name}_view"
    ]
    assert misplaced == []


def test_every_view_in_tco_web_views_has_its_url():
    routed = {(view.__module__, view.__name__) for _, view in _tco_routes()}
    views = [(f.__module__, f.__name__) for f in _functions(tco.web.views) if f.__name__.endswith("_view")]
    assert len(views) >= 35
    assert sorted(set(views) - routed) == []


def test_the_view_models_hold_no_view():
    assert [f.__name__ for f in _functions(tco.web.viewmodels) if f.__name__.endswith("_view")] == []
