"""Packaging consistency: environment.yml and pyproject.toml list the same packages; notebooks are clean."""

import json
import re
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def _norm(req):
    return re.sub(r"\s+", "", req).lower().replace("_", "-")


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = set(project["dependencies"])
    for extra in project["optional-dependencies"]:
        wanted |= set(project["optional-dependencies"][extra])
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    listed = {p for p in pip if not p.startswith("-e")}
    assert {_norm(r) for r in listed} == {_norm(r) for r in wanted}, (
        "environment.yml and pyproject.toml disagree: "
        f"only in environment.yml {sorted({_norm(r) for r in listed} - {_norm(r) for r in wanted})}, "
        f"only in pyproject.toml {sorted({_norm(r) for r in wanted} - {_norm(r) for r in listed})}"
    )
    assert "-e ." in pip
    python = [d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python")]
    assert python and python[0].split("=")[-1] >= project["requires-python"].lstrip(">=")


def test_jupyter_book_pinned_below_2():
    book = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["book"]
    jb = [r for r in book if r.startswith("jupyter-book")]
    assert jb and "<2" in jb[0], "jupyter-book 2 (mystmd) cannot build offline; keep jupyter-book<2"


NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_committed_clean_and_in_toc(nb):
    data = json.loads(nb.read_text())
    dirty = [
        i
        for i, c in enumerate(data["cells"])
        if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))
    ]
    assert not dirty, f"{nb.name}: cells {dirty} carry outputs; run nbstripout"
    toc = (ROOT / "_toc.yml").read_text()
    assert f"notebooks/{nb.stem}" in toc, f"{nb.name} is not listed in _toc.yml"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_anatomy(nb):
    """Every chapter has the hidden setup cell, learning objectives, validation, exercises and references."""
    cells = json.loads(nb.read_text())["cells"]
    first_code = next(c for c in cells if c["cell_type"] == "code")
    assert "hide-cell" in first_code.get("metadata", {}).get("tags", []), "first code cell must be the hidden setup"
    assert re.search(r"^from robokin\.nb import [^\n]*\bsetup\b", "".join(first_code["source"]), re.M)
    md = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    for needle in ("Learning objectives", "Validation", "exercise", "solution", "{cite}", '{eval}`glued("'):
        assert needle.lower() in md.lower(), f"{nb.name}: missing {needle!r}"
    assert (
        sum(
            line.startswith("# ")
            for c in cells
            if c["cell_type"] == "markdown"
            for line in "".join(c["source"]).splitlines()
        )
        == 1
    ), "exactly one H1 title per chapter"


HIDING_TAGS = {"hide-cell", "hide-input", "remove-input", "remove-cell"}
_ROBOKIN_IMPORT = re.compile(r"^\s*(from robokin\S* import|import robokin)", re.M)


def robokin_import_problems(cells):
    """Where a chapter hides where its robokin names come from (empty list: the imports are visible)."""
    code = [c for c in cells if c["cell_type"] == "code"]
    problems = []
    setup = "".join(code[0]["source"]) if code else ""
    extra = [ln for ln in setup.splitlines() if _ROBOKIN_IMPORT.match(ln) and "from robokin.nb import" not in ln]
    if extra:
        problems.append(f"the hidden setup cell imports robokin names: {extra}")
    for i, c in enumerate(code[1:], 1):
        tags = set(c.get("metadata", {}).get("tags", []))
        if tags & HIDING_TAGS and _ROBOKIN_IMPORT.search("".join(c["source"])):
            problems.append(f"code cell {i} imports robokin names but is tagged {sorted(tags & HIDING_TAGS)}")
    if len(code) < 2 or not _ROBOKIN_IMPORT.search("".join(code[1]["source"])):
        problems.append("the code cell after the setup is not the visible cell importing the chapter's robokin names")
    return problems


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_robokin_imports_are_visible(nb):
    """A reader sees where every robokin function comes from: a visible import cell right after the setup."""
    assert robokin_import_problems(json.loads(nb.read_text())["cells"]) == []


def test_hidden_robokin_imports_are_caught():
    def cell(src, tags=()):
        return {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": src}

    setup = cell("import numpy as np\nfrom robokin.nb import glue, glued, setup\n", ["hide-cell"])
    good = [setup, cell("from robokin.fivebar import FiveBar\n")]
    assert robokin_import_problems(good) == []
    assert robokin_import_problems([cell(setup["source"] + "from robokin import checks\n", ["hide-cell"]), good[1]])
    assert robokin_import_problems([setup, cell("from robokin.fivebar import FiveBar\n", ["hide-input"])])
    assert robokin_import_problems([setup, cell("x = 1\n"), cell("from robokin import checks\n")])
