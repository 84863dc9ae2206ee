"""tools/nb_meta.py: the rules that hide set-up, plotting and solution code, and apply alt text; on copies only."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import nb_meta  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
HIDDEN = {"source_hidden": True}


def _nb():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    return nbformat.v4.new_notebook(
        cells=[
            code("import numpy as np\nrng = np.random.default_rng(1)", metadata={"tags": ["hide-cell"]}),  # 0 set-up
            md("# Title"),
            code("fig, ax = plt.subplots()\nax.plot([0, 1])\nax.set_xlabel('t')\nplt.show()"),  # 2 plotting
            code("x = np.sum(a, axis=0)\nglue('x', float(x))\nax.plot(x)"),  # 3 evidence: stays visible
            code("fig, ax = plt.subplots()\nax.plot(q)", metadata={"mystnb": {"figure": {"name": "fig-q"}}}),  # 4
            code("y = a @ b\nz = y + 1\nax.plot(z)"),  # 5 mostly computation
            md("## Try it live"),
            code("@ipywidgets.interact(a=(0, 1))\ndef show(a):\n    plt.plot([a])"),  # 7 explorer
            md("```{exercise-start}\n:label: ex-1\n```\nDo it.\n```{exercise-end}\n```\n```{solution-start} ex-1\n```"),
            code("answer = 42\nprint(answer)"),  # 9 solution
            code("fig, ax = plt.subplots()"),  # 10 solution (not counted as plotting)
            md("```{solution-end}\n```\n\nCheck your work:"),
            code("check_answer(answer, 42)"),  # 12 after the solution: visible
            code("draw_robot(ax, q)", metadata={"tags": ["remove-input"]}),  # 13 the book already hides it
        ]
    )


def test_each_rule_selects_what_it_says():
    sel = nb_meta.selection(_nb())
    assert sel == {"solution": [9, 10], "setup": [0], "plotting": [2, 4], "book-hidden": [13]}


def test_apply_sets_the_metadata_and_a_second_run_changes_nothing():
    nb = _nb()
    alt = {"fig-q": "Joint angle q against time.", "cell-2": "A rising line."}
    changes = nb_meta.apply(nb, alt)
    assert changes
    c = nb.cells
    assert c[9].metadata.jupyter == HIDDEN and c[10].metadata.jupyter == HIDDEN
    assert c[0].metadata.jupyter == {"source_hidden": True} and c[0].metadata.tags == ["hide-cell"]  # no 2nd tag
    assert c[2].metadata.tags == ["hide-input"] and c[2].metadata.jupyter.source_hidden
    assert c[13].metadata.jupyter.source_hidden and c[13].metadata.tags == ["remove-input"]
    for i in (3, 5, 7, 12):  # evidence, computation, the explorer, the check after a solution
        assert "jupyter" not in c[i].metadata and "tags" not in c[i].metadata, i
    assert c[4].metadata.mystnb == {"figure": {"name": "fig-q"}, "image": {"alt": alt["fig-q"]}}
    assert c[2].metadata.mystnb.image.alt == alt["cell-2"]
    assert nb_meta.apply(nb, alt) == []


def test_alt_text_for_a_cell_that_does_not_exist_is_an_error():
    with pytest.raises(nb_meta.AltTextError, match="'fig-gone'"):
        nb_meta.apply(_nb(), {"fig-gone": "Lost."})
    with pytest.raises(nb_meta.AltTextError, match="'cell-1'"):  # a Markdown cell has no image
        nb_meta.apply(_nb(), {"cell-1": "Title."})


def test_check_mode_exits_1_until_the_tool_ran(tmp_path):
    path = tmp_path / "01_x.ipynb"
    nbformat.write(_nb(), path)
    alt = tmp_path / "alt.toml"
    alt.write_text('[01_x]\nfig-q = "Joint angle q against time."\n', encoding="utf-8")
    before = path.read_bytes()
    assert nb_meta.main(["--check", "--alt", str(alt), str(path)]) == 1
    assert path.read_bytes() == before  # --check writes nothing
    assert nb_meta.main(["--alt", str(alt), str(path)]) == 0
    assert nb_meta.main(["--check", "--alt", str(alt), str(path)]) == 0
    nb = nbformat.read(path, as_version=4)
    assert nb.cells[4].metadata.mystnb.image.alt == "Joint angle q against time."
    alt.write_text('[01_x]\n"cell-99" = "Nothing there."\n', encoding="utf-8")
    assert nb_meta.main(["--check", "--alt", str(alt), str(path)]) == 2
    other = tmp_path / "02_y.ipynb"  # a stale key stops its own notebook only
    nbformat.write(_nb(), other)
    assert nb_meta.main(["--alt", str(alt), str(path), str(other)]) == 2
    assert nbformat.read(other, as_version=4).cells[9].metadata.jupyter == HIDDEN


def test_on_copies_of_the_chapters_the_tool_only_changes_metadata_and_is_idempotent(tmp_path):
    for src in NOTEBOOKS:
        shutil.copy(src, tmp_path / src.name)
    copies = [str(tmp_path / p.name) for p in NOTEBOOKS]
    args = ["--alt", str(tmp_path / "none.toml")]  # the rules only: book/alt_text.toml is checked below, once applied
    assert nb_meta.main(args + copies) == 0
    assert nb_meta.main(["--check"] + args + copies) == 0
    for src in NOTEBOOKS:
        a, b = nbformat.read(src, as_version=4), nbformat.read(tmp_path / src.name, as_version=4)
        assert [(c.cell_type, c.source) for c in a.cells] == [(c.cell_type, c.source) for c in b.cells]
        sol = nb_meta.solution_cells(b)
        assert sol and all(b.cells[i].metadata.jupyter == HIDDEN for i in sol), src.name  # every chapter has one
        assert b.cells[0].metadata.jupyter.source_hidden


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_chapter_metadata_is_what_the_tool_sets(path):
    assert nb_meta.main(["--check", str(path)]) == 0, f"run: python tools/nb_meta.py {path.relative_to(ROOT)}"


def test_the_notebook_gets_what_lab_writes_when_the_kernel_starts():
    from ipykernel.ipkernel import IPythonKernel

    lab = nb_meta.lab_metadata()
    assert lab["language_info"] == IPythonKernel.language_info  # what the kernel_info reply carries
    assert lab["kernelspec"] == {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb = _nb()
    nb.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3"}, "language_info": {"name": "python"}}
    changes = nb_meta.apply(nb)
    assert "notebook: kernelspec as Lab writes it" in changes and "notebook: the kernel's language_info" in changes
    assert nb.metadata.kernelspec == lab["kernelspec"] and nb.metadata.language_info == lab["language_info"]
    assert nb_meta.apply(nb) == []


def test_language_info_of_another_patch_level_is_kept_and_anything_else_is_rewritten():
    lab = nb_meta.lab_metadata()
    nb = _nb()
    nb_meta.apply(nb)  # the cells' rules
    nb.metadata.language_info = {**lab["language_info"], "version": "3.11.0"}
    assert nb_meta.apply(nb) == []  # the same on any Python: --check passes in CI and on a reader's machine
    for broken in ({**lab["language_info"], "pygments_lexer": "python"}, {**lab["language_info"], "version": ""}):
        nb.metadata.language_info = broken
        assert nb_meta.apply(nb) == ["notebook: the kernel's language_info"]
        assert nb.metadata.language_info == lab["language_info"]


def test_nbstripout_as_make_test_runs_it_keeps_the_notebook_metadata(tmp_path):
    # the notebooks are stored stripped: the options of `make notebooks` must leave what the tool sets in place
    import re
    import subprocess

    rule = (ROOT / "Makefile").read_text(encoding="utf-8").split("\nnotebooks:", 1)[1].split("\n\n", 1)[0]
    line = next(ln for ln in rule.splitlines() if "nbstripout" in ln)
    opts = re.findall(r'--[\w-]+(?: "[^"]*"| [^-$\s]\S*)?', line.split("nbstripout", 1)[1].replace("$(NOTEBOOKS)", ""))
    assert "--verify" in opts, line
    nb = _nb()
    nb_meta.apply(nb)
    path = tmp_path / "01_x.ipynb"
    nbformat.write(nb, path)
    args = [a for o in opts if o != "--verify" for a in o.replace('"', "").split(" ", 1)]
    subprocess.run([sys.executable, "-m", "nbstripout", *args, str(path)], check=True)
    kept = nbformat.read(path, as_version=4).metadata
    lab = nb_meta.lab_metadata()
    assert kept.kernelspec == lab["kernelspec"] and kept.language_info == lab["language_info"]
