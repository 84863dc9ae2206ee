"""Browser test of the chapters in JupyterLab (``make check-lab``): what a student sees after Run All.

JupyterLab (with the jupyterlab-myst extension of the ``[book]`` extra) is started on 127.0.0.1 over a temporary copy
of the notebook folder; headless Chromium opens each chapter, runs all cells from the Run menu and
:mod:`labcheck` checks it: no error output, every Markdown cell rendered by jupyterlab-myst with no raw MyST or TeX
and no warning mark (an unresolved reference, maths that does not typeset, an ``{eval}`` that did not run), only
roles and directives that Lab renders in the source, every figure shown, and a "Try it live" slider that changes
its output. ``test_checker_*`` run the same checks on two small notebooks made here: one that must pass, and one
that re-breaks each check.

Which chapters: ``ROBOKIN_LAB_CHAPTERS`` (``03,09`` by default, ``all`` for every chapter) from the folder
``ROBOKIN_LAB_DIR`` (default ``notebooks/``; point it at converted copies to try ``tools/lab_convert.py``).
Screenshots go to ``_build/lab-screenshots/``.
"""

import os
import shutil
import time
from pathlib import Path

import nbformat
import pytest

pytestmark = pytest.mark.lab

ROOT = Path(__file__).resolve().parents[1]
LAB_DIR = Path(os.environ.get("ROBOKIN_LAB_DIR", ROOT / "notebooks"))
SHOTS = ROOT / "_build" / "lab-screenshots"


def _chapters():
    wanted = os.environ.get("ROBOKIN_LAB_CHAPTERS", "03,09")
    found = sorted(p.name for p in LAB_DIR.glob("[0-9][0-9]_*.ipynb"))
    if wanted == "all":
        return found
    return [n for n in found if n[:2] in wanted.split(",")] or [f"{w}_missing.ipynb" for w in wanted.split(",")]


def _md(text, **meta):
    return nbformat.v4.new_markdown_cell(text, metadata=meta)


def _code(text, **meta):
    return nbformat.v4.new_code_cell(text, metadata=meta)


_KERNEL = {"kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}}
_PLOT = "import matplotlib.pyplot as plt\nimport numpy as np\nplt.plot(np.arange(3));"
_SLIDER = (
    "import ipywidgets\n\n\n@ipywidgets.interact(a=(0.0, 2.0, 0.1))\ndef show(a=1.0):\n"
    "    plt.plot(np.linspace(0, 1, 9), a * np.linspace(0, 1, 9))\n    plt.ylim(0, 2)\n    plt.show()"
)

# Everything a chapter uses, written the way Lab renders it: must pass.
GOOD = [
    _code("G = {'err': 1.234e-9}\n\n\ndef glued(s):\n    k, _, f = s.partition(':')\n    return format(G[k], f)"),
    _md('# Title\n\nThe error is {eval}`glued("err:.1e")` m, see {eq}`eq-x` and {cite}`lynch2017`.'),
    _md("```{math}\n:label: eq-x\nx = \\frac{1}{2}\n```\n\n```{note}\nA note with $a^2$.\n```"),
    _md(":::{prf:definition} Frames\n:label: def-x\nText.\n:::\n\n```{exercise-start}\n:label: ex-x\n```\nDo it."),
    _md("```{exercise-end}\n```\n\n```{solution-start} ex-x\n:class: dropdown\n```"),
    _code(_PLOT, mystnb={"figure": {"caption": "A line.", "name": "fig-x"}}),
    _md("```{solution-end}\n```\n\n## Try it live"),
    _code(_SLIDER),
]

# Each check re-broken once; the value is the problem code that must be reported.
BAD = [
    (_code(_PLOT.replace(";", "\nplt.close();"), mystnb={"figure": {"caption": "Lost.", "name": "fig-y"}}), "figure"),
    (_md("glued: {glue:text}`err:.1e`"), "source"),
    (_md("```{glue:figure} fig\n:name: fig-z\n\nCaption.\n```"), "myst-warning"),
    (_md("maths that does not typeset: $\\badmacro{x}$ and {eval}`never_defined`"), "myst-warning"),
    (_md("a role left open: {cite}`lynch2017 and \\frac outside maths"), "raw-myst"),
    (_md("\\frac outside maths, `code`"), "raw-tex"),
    (_md("## Try it live"), "slider"),
    (_code("print('an explorer without a slider')"), "slider"),
    (_code("raise ValueError('a chapter that fails')"), "error"),
]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    labcheck = pytest.importorskip("labcheck")
    folder = tmp_path_factory.mktemp("lab")
    for p in LAB_DIR.iterdir():  # the notebooks and any module next to them; the repo's files are never touched
        if p.suffix in (".ipynb", ".py"):
            shutil.copy(p, folder / p.name)
    for name, cells in (("00_good.ipynb", GOOD), ("00_bad.ipynb", [c for c, _ in BAD])):
        nbformat.write(nbformat.v4.new_notebook(cells=cells, metadata=_KERNEL), folder / name)
    with labcheck.lab_server(folder) as (base, token, seconds):
        print(f"JupyterLab started in {seconds:.1f} s")
        yield labcheck, folder, base, token


def _check(lab, browser, name, **kw):
    labcheck, folder, base, token = lab
    SHOTS.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    problems, info = labcheck.check_notebook(browser, base, token, folder / name, shot=SHOTS / f"{name}.png", **kw)
    print(f"{name}: {info}, {time.monotonic() - t0:.1f} s")
    return problems


def test_checker_passes_a_good_notebook(lab, browser):
    assert _check(lab, browser, "00_good.ipynb") == []


def test_checker_reports_each_broken_construct(lab, browser):
    codes = {p.code for p in _check(lab, browser, "00_bad.ipynb")}
    assert {code for _, code in BAD} <= codes, codes


@pytest.mark.parametrize("name", _chapters())
def test_chapter_in_lab(lab, browser, name):
    if not (LAB_DIR / name).exists():
        pytest.fail(f"no chapter {name} in {LAB_DIR}")
    problems = _check(lab, browser, name)
    assert not problems, f"{name} in JupyterLab:\n" + "\n".join(str(p) for p in problems)
