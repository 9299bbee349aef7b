"""Read the scenario workspace as a browser would (ids, attributes, text), so tests assert what a user sees rather
than exact markup."""

from __future__ import annotations

from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: dict[str, tuple[str, dict[str, str]]] = {}
        self.texts: dict[str, list[str]] = {}
        self.options: dict[str, list[tuple[str, bool]]] = {}
        self.open: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        element_id = values.get("id")
        if element_id:
            self.elements.setdefault(element_id, (tag, values))
            self.texts.setdefault(element_id, [])
        if tag == "option":
            select = next((i for t, i in reversed(self.open) if t == "select" and i), None)
            if select:
                self.options.setdefault(select, []).append((values.get("value", ""), "selected" in values))
        if tag not in VOID:
            self.open.append((tag, element_id))

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self.open) - 1, -1, -1):
            if self.open[index][0] == tag:
                del self.open[index:]
                return

    def handle_data(self, data: str) -> None:
        for _, element_id in self.open:
            if element_id:
                self.texts[element_id].append(data)


class Workspace:
    """The page (or an edit's answer) by element id; ``key`` is an input's editor key (``s-fleet_gpus``,
    ``o12-capex``)."""

    def __init__(self, html: str) -> None:
        parser = _Parser()
        parser.feed(html)
        self._parser = parser

    def has(self, element_id: str) -> bool:
        return element_id in self._parser.elements

    def attrs(self, element_id: str) -> dict[str, str]:
        return self._parser.elements[element_id][1]

    def text(self, element_id: str) -> str:
        return " ".join("".join(self._parser.texts.get(element_id, [])).split())

    def value(self, key: str) -> str:
        """What the input shows: its value, or the selected choice."""
        element_id = f"f-{key}-input"
        tag, attrs = self._parser.elements[element_id]
        if tag == "select":
            chosen = [value for value, selected in self._parser.options.get(element_id, []) if selected]
            return chosen[0] if chosen else ""
        return attrs.get("value", "")

    def error(self, key: str) -> str:
        return self.text(f"err-{key}")

    def refused(self, key: str) -> bool:
        """Shown as refused: the typed text stays, with its message and a "not saved" mark."""
        return "data-refused" in self.attrs(f"f-{key}") and self.has(f"not-saved-{key}")

    @property
    def version(self) -> int:
        return int(self.attrs("scenario-version")["value"])


def figures_of(client, html: str) -> dict[str, dict]:
    """Every chart of a page as the browser draws it: fetched from the run's figures URL (``data-figure-src``), or
    from its inline <script type="application/json"> (a map redrawn for another rental)."""
    import json
    import re

    figures: dict[str, dict] = {}
    fetched: dict[str, dict] = {}
    for element in re.finditer(r'<div class="chart[^"]*" id="chart-(\w+)" data-figure="([^"]+)"([^>]*)>', html):
        key, element_id, rest = element.groups()
        src = re.search(r'data-figure-src="([^"]+)"', rest)
        if src:
            url, _, name = src.group(1).partition("#")
            if url not in fetched:
                response = client.get(url)
                assert response.status_code == 200, (url, response.status_code)
                fetched[url] = json.loads(response.content)
            figures[key] = fetched[url][name]
        else:
            script = re.search(
                rf'<script id="{re.escape(element_id)}" type="application/json">(.*?)</script>', html, re.S
            )
            figures[key] = json.loads(script.group(1))
    return figures
