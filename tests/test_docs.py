"""The project documents itself: the README and docs/ name what the code has, and cite nothing outside the repository.

Each check reads the code to find what must be documented (environment variables, modules, the engine's exports), so
a variable or module added later without its documentation fails here.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
from pathlib import Path

import pytest

import tco.engine
from tests import module_map

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
APP_PACKAGES = ("config", "lib", "pricing", "tco")
# Python files whose environment reads configure the app (bench/ and tests/ set variables for themselves).
CONFIGURED_BY = [*(ROOT / package for package in APP_PACKAGES), ROOT / "gunicorn.conf.py", ROOT / "manage.py"]
# Helpers that read one environment variable named by their first argument (config/env.py and its callers).
ENV_READERS = re.compile(r"env(_\w+)?|getenv|https_origins|redis_url")
VARIABLE_NAME = re.compile(r"[A-Z][A-Z0-9_]*")


# ------------------------------------------------------------------------------------------- environment variables
def _callee(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _is_os_environ(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ"


def _is_dj_database_url_config(node: ast.Call) -> bool:
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "config"
        and isinstance(func.value, ast.Name)
        and func.value.id == "dj_database_url"
    )


def _constant_name(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and VARIABLE_NAME.fullmatch(node.value):
        return node.value
    return None


def variables_read(source: str) -> set[str]:
    """Names of the environment variables a module reads: ``env_int("X", ...)`` and the other config.env helpers,
    ``os.environ.get("X")``, ``os.environ["X"]``, ``os.getenv("X")`` and ``env="X"`` keywords (dj-database-url).
    ``os.environ.setdefault`` writes a default for Django itself (DJANGO_SETTINGS_MODULE) and is not a setting."""
    names = set()
    for node in ast.walk(module_map.parse(source)):
        if isinstance(node, ast.Call):
            callee = _callee(node)
            on_environ = isinstance(node.func, ast.Attribute) and _is_os_environ(node.func.value)
            if on_environ and callee == "setdefault":
                continue
            if on_environ or ENV_READERS.fullmatch(callee):
                names.update(filter(None, [_constant_name(node.args[0]) if node.args else None]))
            names.update(filter(None, (_constant_name(k.value) for k in node.keywords if k.arg == "env")))
            if _is_dj_database_url_config(node) and not any(k.arg == "env" for k in node.keywords):
                names.add("DATABASE_URL")  # dj_database_url.config() reads DATABASE_URL unless told otherwise
        elif isinstance(node, ast.Subscript) and _is_os_environ(node.value) and isinstance(node.ctx, ast.Load):
            names.update(filter(None, [_constant_name(node.slice)]))
    return names


def _python_files() -> list[Path]:
    files = []
    for place in CONFIGURED_BY:
        files += sorted(place.rglob("*.py")) if place.is_dir() else [place]
    return [path for path in files if "migrations" not in path.parts]


def environment_variables() -> set[str]:
    names: set[str] = set()
    for path in _python_files():
        names |= variables_read(path.read_text())
    return names


def section(markdown: str, title: str) -> str:
    """The text of the ``## title`` section, up to the next heading of the same level."""
    match = re.search(rf"^## {re.escape(title)}\s*$(.*?)(?=^## |\Z)", markdown, re.MULTILINE | re.DOTALL)
    assert match, f"no '## {title}' section"
    return match.group(1)


def table_variables(markdown: str) -> set[str]:
    """Variables named in the first cell of a markdown table's rows: | `NAME` | default | meaning |."""
    return set(re.findall(r"^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|", markdown, re.MULTILINE))


def test_the_scan_sees_every_way_of_reading_a_variable():
    source = (
        "import os, dj_database_url\n"
        "A = env_int('ONE', 3, minimum=1)\nB = env_bool('TWO')\nC = env_time_limits('THREE', 60)\n"
        "D = os.environ.get('FOUR')\nE = os.environ['FIVE']\nF = os.getenv('SIX')\nG = https_origins('SEVEN')\n"
        "H = dj_database_url.config(env='EIGHT')\nI = redis_url('NINE')\nJ = env('TEN')\n"
        "L = dj_database_url.config(conn_max_age=60)\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings')\nos.environ['PATH'] = '/bin'\n"
        "K = settings.get('not_a_variable')\n"
    )
    expected = {"ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE", "TEN", "DATABASE_URL"}
    assert variables_read(source) == expected


def test_the_scan_finds_the_variables_of_settings_and_gunicorn():
    found = environment_variables()
    assert {"DJANGO_SECRET_KEY", "DATABASE_URL", "REDIS_URL", "TRUSTED_PROXY_HOPS", "WEB_CONCURRENCY"} <= found


def test_every_environment_variable_is_in_the_readme_configuration_table():
    documented = table_variables(section(README.read_text(), "Configuration"))
    assert sorted(environment_variables() - documented) == []


def test_the_readme_configuration_table_names_no_variable_the_code_does_not_read():
    documented = table_variables(section(README.read_text(), "Configuration"))
    assert sorted(documented - environment_variables()) == []


def test_every_environment_variable_is_in_env_example():
    text = (ROOT / ".env.example").read_text()
    # An assignment, or a commented-out one for a variable whose default is usually right.
    assigned = set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]*)=", text, re.MULTILINE))
    assert sorted(environment_variables() - assigned) == []


def test_every_environment_variable_is_explained_in_the_operations_guide():
    documented = table_variables((DOCS / "operations.md").read_text())
    assert sorted(environment_variables() - documented) == []


# ------------------------------------------------------------------------------------------------------ modules
def packages() -> list[Path]:
    found = []
    for top in APP_PACKAGES:
        found += [path.parent for path in (ROOT / top).rglob("__init__.py") if "migrations" not in path.parts]
    return sorted(set(found))


def modules() -> list[Path]:
    found = []
    for package in packages():
        found += [path for path in package.glob("*.py") if path.name != "__init__.py"]
    return sorted(found)


def _names_module(lines: list[str], module: Path) -> bool:
    """``tco/engine/owned.py`` is named by that path or ``tco.engine.owned``, or by `owned` on a line (a table row or
    a bullet) that names its package as `tco/engine/`."""
    relative = module.relative_to(ROOT)
    package = f"`{relative.parent.as_posix()}/`"
    whole = (f"`{relative.as_posix()}`", f"`{'.'.join(relative.with_suffix('').parts)}`")
    stem = (f"`{module.stem}`", f"`{module.name}`")
    return any(
        any(name in line for name in whole) or (package in line and any(name in line for name in stem))
        for line in lines
    )


def test_there_are_modules_to_name():
    assert len(packages()) > 10 and len(modules()) > 100


def test_every_module_is_named_in_the_architecture_guide():
    lines = [*(DOCS / "architecture.md").read_text().splitlines(), *README.read_text().splitlines()]
    missing = [str(module.relative_to(ROOT)) for module in modules() if not _names_module(lines, module)]
    assert missing == []


def test_a_module_on_another_packages_line_is_not_named():
    lines = ["| `tco/web/` | `fields`: the editor's view models |"]
    assert _names_module(lines, ROOT / "tco" / "web" / "fields.py")
    assert not _names_module(lines, ROOT / "tco" / "engine" / "fields.py")


def test_every_package_is_in_the_readme_layout():
    """Each package with modules of its own (``pricing/management/`` only holds ``commands/``)."""
    layout = section(README.read_text(), "Layout")
    missing = [
        f"{package.relative_to(ROOT).as_posix()}/"
        for package in packages()
        if any(path.name != "__init__.py" for path in package.glob("*.py"))
        and not re.search(rf"(?<![\w/]){re.escape(package.relative_to(ROOT).as_posix())}/(?![\w])", layout)
    ]
    assert missing == []


# ----------------------------------------------------------------------------------- citations and links
# The product's design brief lives outside the repository; what the code relies on is in docs/. Spelled in two
# parts so this file does not cite it.
EXTERNAL_BRIEF = re.compile(r"\b" + "DES" + r"IGN\b")
TEXT_SUFFIXES = {".py", ".html", ".md", ".txt", ".js", ".css", ".json", ".toml", ".cfg", ".ini", ".yml", ".yaml"}
TEXT_NAMES = {"Makefile", "Procfile", ".env.example", "run", "ensure-chromium"}
SKIPPED_DIRS = {".git", ".venv", "node_modules", "staticfiles", "vendor", "__pycache__", ".pytest_cache"}


def repository_text_files() -> list[Path]:
    files = []
    for folder, subfolders, names in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders if name not in SKIPPED_DIRS and not name.startswith(".hypothesis")]
        for name in names:
            path = Path(folder) / name
            if path.suffix in TEXT_SUFFIXES or name in TEXT_NAMES:
                files.append(path)
    return files


def test_no_file_cites_the_design_brief_outside_the_repository():
    this_file = Path(__file__).resolve()
    citing = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in repository_text_files()
        if path.resolve() != this_file
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), start=1)
        if EXTERNAL_BRIEF.search(line)
    ]
    assert citing == []


# A tracker's entry named by its number or as "the <entry>": the tracker is outside the repository, so it says nothing
# to a reader of the code, which says why in its own words. The word is spelled once, below, so that this file is
# scanned like every other.
TRACKER_WORD = "iss" + "ue"
TRACKER_ISSUE = re.compile(
    rf"\b{TRACKER_WORD}s? ?[“(#0-9]|\b{TRACKER_WORD}s? \"|\b(the|this) {TRACKER_WORD}\b|\({TRACKER_WORD}", re.IGNORECASE
)
CODE_SUFFIXES = {".py", ".html", ".js", ".css"}


def test_no_code_test_or_comment_names_a_tracker_issue():
    naming = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in repository_text_files()
        if path.suffix in CODE_SUFFIXES and "migrations" not in path.parts
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), start=1)
        if TRACKER_ISSUE.search(line)
    ]
    assert naming == []


def test_the_tracker_scan_sees_an_issue_named():
    word = TRACKER_WORD
    named = (f"({word} 17)", f"The {word}'s map", f"{word.title()} 9: x", f"{word}s 9 and 11", f'{word} "A favicon"')
    assert all(TRACKER_ISSUE.search(text) for text in named)
    plain = (f"t{word} 3", f"an {word}r", f"{word}d on 2026-01-01", f'"no {word}s" in out')
    assert not any(TRACKER_ISSUE.search(text) for text in plain)


def markdown_files() -> list[Path]:
    return [README, ROOT / "CHANGELOG.md", *sorted(DOCS.glob("*.md"))]


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"`|\*\*|\[|\]\([^)]*\)", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(), flags=re.MULTILINE | re.DOTALL)
    return {anchor(match) for match in re.findall(r"^#{1,6}\s+(.+?)\s*#*$", text, re.MULTILINE)}


def test_every_relative_link_in_the_documentation_resolves():
    broken = []
    for path in markdown_files():
        text = re.sub(r"^```.*?^```", "", path.read_text(), flags=re.MULTILINE | re.DOTALL)
        for target in LINK.findall(text):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            file_part, _, fragment = target.partition("#")
            linked = (path.parent / file_part).resolve() if file_part else path
            if not linked.exists():
                broken.append(f"{path.relative_to(ROOT)}: {target} (no such file)")
            elif fragment and linked.suffix == ".md" and fragment not in anchors(linked):
                broken.append(f"{path.relative_to(ROOT)}: {target} (no such heading)")
    assert broken == []


def test_the_link_check_sees_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n[ok](#title) [bad](#nothing) [gone](missing.md)\n")
    assert anchors(page) == {"title"}
    assert LINK.findall(page.read_text()) == ["#title", "#nothing", "missing.md"]


@pytest.mark.parametrize(
    "heading, expected",
    [
        ("Break-even utilization", "break-even-utilization"),
        ("`tco/engine/`: the money math", "tcoengine-the-money-math"),
        ("5. Present value of cost (NPV)", "5-present-value-of-cost-npv"),
    ],
)
def test_anchors_follow_github(heading, expected):
    assert anchor(heading) == expected


def test_the_readme_links_every_document_in_docs():
    documentation = section(README.read_text(), "Documentation")
    linked = {target.partition("#")[0] for target in LINK.findall(documentation)}
    assert sorted(f"docs/{path.name}" for path in DOCS.glob("*.md") if f"docs/{path.name}" not in linked) == []
    assert "CHANGELOG.md" in linked


def test_the_readme_still_opens_with_the_two_commands():
    first_block = re.search(r"```sh\n(.*?)```", README.read_text(), re.DOTALL).group(1)
    assert [line.split()[:2] for line in first_block.splitlines()] == [["make", "run"], ["make", "test"]]


# ------------------------------------------------------------------------------------------- money math, changelog
def engine_functions() -> list[str]:
    return [name for name in tco.engine.__all__ if inspect.isfunction(getattr(tco.engine, name))]


def test_every_public_engine_function_is_in_the_money_math():
    text = (DOCS / "money-math.md").read_text()
    assert len(engine_functions()) >= 10
    assert [name for name in engine_functions() if f"`{name}" not in text] == []


def test_the_changelog_keeps_an_unreleased_section():
    text = (ROOT / "CHANGELOG.md").read_text()
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert headings and headings[0] == "[Unreleased]"
    assert "keepachangelog.com" in text
    # Every later section is a dated landing, newest first.
    dates = [re.search(r"\d{4}-\d{2}-\d{2}", heading) for heading in headings[1:]]
    assert dates and all(dates)
    assert [d.group() for d in dates] == sorted((d.group() for d in dates), reverse=True)


# ------------------------------------------------------------------------------------------------- the module map
def test_the_module_map_is_each_modules_docstring():
    """docs/architecture.md's module map says of each module what its own docstring says first; after adding a
    module or changing what one says, ``.venv/bin/python tests/module_map.py`` writes the map again."""
    written = module_map.written_map((DOCS / "architecture.md").read_text())
    assert written == module_map.module_map(), "run .venv/bin/python tests/module_map.py"


def test_a_module_with_code_and_no_docstring_cannot_be_mapped(tmp_path):
    (tmp_path / "bare.py").write_text("X = 1\n")
    (tmp_path / "empty.py").write_text("")
    (tmp_path / "said.py").write_text('"""Reads prices. More words here."""\n')
    with pytest.raises(ValueError, match="no docstring"):
        module_map.summary(tmp_path / "bare.py")
    assert module_map.summary(tmp_path / "empty.py") is None
    assert module_map.summary(tmp_path / "said.py") == "Reads prices."


# --- The architecture guide names what exists ----------------------------------------------------------------------

# Names the guide's prose takes from Django, not from this code.
DJANGO_NAMES = {"GZipMiddleware", "LocMemCache", "json_script"}
CODE_PACKAGES = ("tco", "lib", "pricing", "config")


def code_names() -> set[str]:
    """Every module, class, function, top-level or class-level name and attribute assigned in the code."""
    names: set[str] = set()
    for package in CODE_PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            names.add(path.stem)
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    names.add(node.name)
                elif isinstance(node, ast.Assign | ast.AnnAssign):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    names.update(
                        t.id if isinstance(t, ast.Name) else t.attr
                        for t in targets
                        if hasattr(t, "id") or hasattr(t, "attr")
                    )
    return names


def guide_references(markdown: str) -> list[tuple[str, str]]:
    """``(kind, text)`` of every backticked path, dotted import path and code name in the guide's prose (the
    module map is each module's own docstring, checked apart), a schema name such as ``tco-scenario/1`` aside."""
    prose = markdown.split("\n## Module map", 1)[0]
    references = []
    for text in sorted(set(re.findall(r"`([^`\n]+)`", prose))):
        text = text.removesuffix("()")
        if "/" in text and " " not in text and "<" not in text and not text.startswith(("/", "tco-")):
            references.append(("path", text))
        elif re.fullmatch(r"(tco|lib|pricing|config)(\.\w+)+", text):
            references.append(("dotted", text))
        elif re.fullmatch(r"[A-Za-z_]\w*", text) and (not text.islower() or "_" in text):
            references.append(("name", text))
    return references


def missing_references(markdown: str) -> list[tuple[str, str]]:
    import importlib

    names = code_names() | DJANGO_NAMES
    missing = []
    for kind, text in guide_references(markdown):
        if (kind == "path" and not (ROOT / text).exists()) or (kind == "name" and text not in names):
            missing.append((kind, text))
        elif kind == "dotted":
            parts = text.split(".")
            for cut in range(len(parts), 0, -1):
                try:
                    found: object = importlib.import_module(".".join(parts[:cut]))
                except ImportError:
                    continue
                for part in parts[cut:]:
                    found = getattr(found, part, None)
                if found is None:
                    missing.append((kind, text))
                break
    return missing


def test_every_path_and_name_the_architecture_guide_gives_exists():
    assert missing_references((DOCS / "architecture.md").read_text()) == []


def test_the_architecture_check_sees_a_path_a_name_and_an_attribute_that_do_not_exist():
    guide = "The editor's inputs (`tco/web/fields.py`), each entry's `export_header`, `tco.engine.no_such_thing`.\n"
    assert set(missing_references(guide)) == {
        ("path", "tco/web/fields.py"),
        ("name", "export_header"),
        ("dotted", "tco.engine.no_such_thing"),
    }
