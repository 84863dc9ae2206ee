"""Static checks that keep every chapter readable in JupyterLab (the browser test is `make check-lab`).

Cheap enough for `make test`, and they fail as soon as a chapter re-introduces what Lab cannot show:
- a role or directive that jupyterlab-myst does not render (``{glue:text}``, ``{glue:figure}``, ...), or stored
  ``{eval}`` results in a cell's metadata (tests/labcheck.py's ``source_problems``);
- a number quoted with ``{eval}`glued("key")``` above the code cell that glues ``key``: the book (inline execution)
  and Lab (Run All) both evaluate the role when they reach it, so the value must exist by then;
- Lab settings that let Run All skip the numbers of cells out of view (windowing: ``lab/settings/overrides.json``).

The browser test's caption check (a figure's ``mystnb.figure.caption`` in view in Lab) is tried here on what a page
showed, without a browser.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from lab_convert import forward_references  # noqa: E402
from labcheck import source_problems  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_chapter_uses_only_what_lab_renders(path):
    problems = source_problems(nbformat.read(path, as_version=4))
    assert not problems, "\n".join(p.detail for p in problems)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_numbers_are_glued_above_the_text_that_quotes_them(path):
    fwd = forward_references(nbformat.read(path, as_version=4))
    assert not fwd, "quoted before the code cell that glues them (move the glue up):\n" + "\n".join(fwd)


def test_the_checks_catch_a_forward_reference_and_a_glue_role():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell('error {eval}`glued("err:.1e")` m'),
        nbformat.v4.new_code_cell('glue("err", 1e-12, display=False)\nglue(f"n_{k}", 3, display=False)'),
        nbformat.v4.new_markdown_cell('{eval}`glued("err:.1e")` and {eval}`glued("n_a")` and {glue:text}`err:.1e`'),
    ]
    assert forward_references(nb) == ["cell 0: forward: 'err' is quoted before a code cell above glues it"]
    assert [p.code for p in source_problems(nb)] == ["source"]


def test_the_source_check_catches_a_macro_katex_lacks():
    # jupyterlab-myst's KaTeX has no \dddot (chapter 7 failed make check-lab on it); \ddot and q^{(3)} are fine
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(r"jerk $\int \|\dddot q\|^2 dt$ and $\ddot q$"),
        nbformat.v4.new_markdown_cell(
            r"jerk $\int \|q^{(3)}\|^2 dt$, $\ddot q$, $\dddotx$ is no macro of KaTeX's list"
        ),
    ]
    problems = source_problems(nb)
    assert [p.detail for p in problems] == ["cell 0: 1 x TeX macro \\dddot does not render in JupyterLab"]


def test_lab_runs_with_the_settings_that_keep_every_number():
    # Under Lab's default windowing the Markdown cells out of view are never rendered, so jupyterlab-myst's Run All
    # finds no {eval} in them and shows glued("...") (issue 34; tests/test_lab.py shows it on a fixture). `make lab`
    # and the browser test must both run Lab with windowing off.
    import json

    from labcheck import APP_SETTINGS

    overrides = json.loads((APP_SETTINGS / "overrides.json").read_text(encoding="utf-8"))
    assert overrides["@jupyterlab/notebook-extension:tracker"]["windowingMode"] == "none"
    lab_rule = (ROOT / "Makefile").read_text(encoding="utf-8").split("\nlab:", 1)[1].split("\n\n", 1)[0]
    assert "--LabApp.app_settings_dir=$(CURDIR)/lab/settings" in lab_rule
    assert APP_SETTINGS == ROOT / "lab" / "settings"


def test_the_caption_check_passes_a_caption_in_view_and_fails_one_that_is_not():
    # labcheck's "caption" check (a known Lab defect: Lab shows no cell metadata) on what the page showed
    from labcheck import _caption_problems

    fig = {"mystnb": {"figure": {"name": "fig-x", "caption": "Torque of $q_1$ against time."}}}
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("plot()", metadata=fig)])
    nb.cells.append(nbformat.v4.new_markdown_cell("Below the figure."))
    assert _caption_problems(nb, [{"text": "[1] plot()"}, {"text": "Torque of q1 against time."}]) == []
    assert [p.code for p in _caption_problems(nb, [{"text": "[1] plot()"}, {"text": "Below the figure."}])] == [
        "caption"
    ]


def test_lab_rotation_moves_over_every_chapter():
    # CI's `ROBOKIN_LAB_CHAPTERS=rotate` window: reproducible per commit, and the windows of successive starting
    # points cover every chapter (a window stuck at one offset, or a k that drops chapters, fails here)
    from test_lab import rotating_window

    chapters = sorted(p.name for p in (Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    heads = [f"{i:040x}" for i in range(200)]
    windows = [rotating_window(chapters, h, 5) for h in heads]
    assert all(len(w) == 5 == len(set(w)) for w in windows)
    assert set().union(*windows) == set(chapters)
    assert rotating_window(chapters, heads[7], 5) == windows[7]
    with pytest.raises(ValueError, match="ROBOKIN_LAB_ROTATE"):
        rotating_window(chapters, heads[0], 0)


def test_an_fstring_glue_above_does_not_hide_a_literal_glue_below():
    # chapter 15's case: glue(f"ch15_{k}") early matched every ch15 key, so text quoting ch15_hp_F before the cell
    # that glues it by name passed this check and failed the book build ("not glued yet")
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell('glue(f"ch15_{k}", 1.0, display=False)'),
        nbformat.v4.new_markdown_cell('a {eval}`glued("ch15_hp_F:.0f")` N push, {eval}`glued("ch15_phi:.1f")`'),
        nbformat.v4.new_code_cell('glue("ch15_hp_F", 150.0, display=False)'),
    ]
    assert forward_references(nb) == ["cell 1: forward: 'ch15_hp_F' is quoted before a code cell above glues it"]
