"""Set the cell metadata that decides what a reader sees first, in JupyterLab and in the book, from rules.

A chapter should open on its derivations, results and figures; set-up, plotting code and exercise solutions are
there, one click away. The metadata that says so is derived here from the notebook's content, never set by hand:

=========================  ======================================================================================
cells                      metadata set
=========================  ======================================================================================
exercise solution          ``jupyter.source_hidden`` (Lab shows a collapsed cell; the book shows the solution in
                           its dropdown; ``outputs_hidden`` is not set: Lab shows a cell's output again whenever
                           the cell runs, and the committed chapters have none): every code cell after a Markdown cell
                           whose last ``{solution-start}``/``{solution-end}`` fence is a ``{solution-start}``, up
                           to the Markdown cell that ends the solution
set-up                     the first code cell: ``jupyter.source_hidden``; tag ``hide-input`` unless the book
                           already hides it (``hide-cell``, ``hide-input``, ``remove-input``, ``remove-cell``)
plotting                   a code cell (not a solution, not a "Try it live" explorer) where at least
                           :data:`PLOT_SHARE` of the code lines are figure-making (:func:`is_plot_line`) and no
                           line glues, asserts or checks (evidence stays in view): the same as set-up
already hidden in the      a cell tagged ``hide-input`` or ``remove-input`` by its author: ``jupyter.source_hidden``
book                       (Lab shows what the book shows)
figure alt text            ``mystnb.image.alt`` (what myst-nb writes as the image's ``alt``) from
                           ``book/alt_text.toml``: one ``[NN_stem]`` table per notebook, keys the figure's
                           ``mystnb.figure.name`` or ``cell-<index>``, values the alt text
the notebook               ``metadata.kernelspec`` and ``metadata.language_info``: what JupyterLab writes into a
                           notebook when its kernel starts (:func:`lab_metadata`: ipykernel's own kernel spec and
                           the ``language_info`` its kernel reports). Lab compares before it writes, so a notebook
                           that already has them is not marked modified on open. The Python ``version`` in it is
                           the one of the interpreter that first wrote it and is kept while the rest matches: the
                           tool gives the same result on any Python (CI's, a reader's), and Lab on another patch
                           level of Python still marks the notebook modified (nothing in a notebook can avoid it)
=========================  ======================================================================================

Only adds: a tag or flag set by an author is never removed, so running the tool twice changes nothing the second
time. ``--check`` writes nothing and exits 1 when a notebook would change (the list says what); ``--list`` prints the
cells each rule selects. A key of ``alt_text.toml`` that names no figure cell is an error (exit 2): alt text must not
silently go stale when cells move.

Usage: ``python tools/nb_meta.py [--check] [--list] [--alt book/alt_text.toml] [notebooks/NN_x.ipynb ...]``
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
import tokenize
import tomllib
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
ALT_FILE = ROOT / "book" / "alt_text.toml"

#: Share of a cell's code lines that must make figures for the cell to count as a plotting cell.
PLOT_SHARE = 0.5
#: Tags under which the book already hides a cell's source.
BOOK_HIDDEN = {"hide-cell", "hide-input", "remove-input", "remove-cell"}

_FENCE = re.compile(r"^\s*(?:`{3,}|:{3,})\s*\{(solution-start|solution-end)\}", re.M)
# names that only figure code uses: pyplot, figure and axes handles, animations, the chapters' drawing helpers
_PLOT_NAME = re.compile(
    r"^(plt|mpl|fig|figs|fig_\w+|fig\d+|ax|axs|axes|ax_\w+|ax\d+|anim|FuncAnimation|animation_html|"
    r"plot_\w+|draw_\w+|cbar|colorbar|legend)$"
)
# a line that is evidence (a glued number, a check): such a cell stays visible
_EVIDENCE = re.compile(r"\b(glue|assert|check_\w+|CheckReport)\b")
_EXPLORER = re.compile(r"\binteract(ive)?\b")
# a cell that imports robokin names stays visible: a reader sees where every function comes from (test_packaging)
_IMPORT = re.compile(r"^\s*(from robokin\b|import robokin\b)", re.M)


class AltTextError(ValueError):
    """A key of the alt-text file that names no figure cell of its notebook, or a notebook table that is missing."""


def _code_lines(source: str) -> list[str]:
    return [ln for ln in source.splitlines() if ln.strip() and not ln.lstrip().startswith(("#", "%", "!"))]


def is_plot_line(line: str) -> bool:
    """True when the line names a figure-making object (``plt``, ``fig``, ``ax``, ``axs[0]``, ``plot_*(...)``...).

    Examples
    --------
    >>> is_plot_line("ax.plot(t, x, label='x')"), is_plot_line("x = np.sum(a, axis=0)")
    (True, False)
    """
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        toks = []
    return any(t.type == tokenize.NAME and _PLOT_NAME.match(t.string) for t in toks)


def is_plotting(source: str) -> bool:
    """True when the code is mainly figure-making: :data:`PLOT_SHARE` of its lines, and none glues or checks.

    Examples
    --------
    >>> is_plotting("fig, ax = plt.subplots()\\nax.plot([0, 1])\\nax.set_xlabel('t')\\nplt.show()")
    True
    >>> is_plotting("err = fk(q) - p\\nglue('err', err)\\nax.plot(err)")
    False
    >>> is_plotting("from robokin.plotting import draw_leg\\ndraw_leg(ax, q)\\nplt.show()")
    False
    """
    lines = _code_lines(source)
    if not lines or _EVIDENCE.search(source) or _EXPLORER.search(source) or _IMPORT.search(source):
        return False
    return sum(map(is_plot_line, lines)) >= PLOT_SHARE * len(lines)


def solution_cells(nb) -> list[int]:
    """Indices of the code cells inside ``{solution-start}`` ... ``{solution-end}`` (gated solutions)."""
    out, inside = [], False
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            fences = _FENCE.findall(cell.source)
            if fences:
                inside = fences[-1] == "solution-start"
        elif cell.cell_type == "code" and inside:
            out.append(i)
    return out


def figure_key(nb, i: int) -> str:
    """The alt-text key of cell ``i``: its ``mystnb.figure.name``, else ``cell-<i>``."""
    name = nb.cells[i].metadata.get("mystnb", {}).get("figure", {}).get("name")
    return name or f"cell-{i}"


def selection(nb) -> dict[str, list[int]]:
    """The cells each rule selects: ``solution``, ``setup``, ``plotting``, ``book-hidden``."""
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    sol = solution_cells(nb)
    setup = code[:1]
    rest = [i for i in code if i not in sol and i not in setup]
    tags = {i: set(nb.cells[i].metadata.get("tags", [])) for i in code}
    return {
        "solution": sol,
        "setup": setup,
        "plotting": [i for i in rest if is_plotting(nb.cells[i].source) and not tags[i] & BOOK_HIDDEN],
        "book-hidden": [i for i in rest if tags[i] & {"hide-input", "remove-input"}],
    }


def load_alt(path: Path) -> dict[str, dict[str, str]]:
    """The alt-text tables of ``path`` (empty when the file does not exist yet)."""
    if not Path(path).exists():
        return {}
    data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    for stem, table in data.items():
        if not isinstance(table, dict) or not all(isinstance(v, str) and v.strip() for v in table.values()):
            raise AltTextError(f"{path}: [{stem}] must map figure names or cell-<index> to non-empty strings")
    return data


def lab_metadata() -> dict:
    """The notebook metadata JupyterLab writes when it starts this interpreter's ipykernel kernel.

    ``kernelspec`` is ipykernel's kernel spec (name, display name, language: what Lab copies from the spec it starts);
    ``language_info`` is what that kernel reports in its ``kernel_info`` reply. Both come from the installed ipykernel,
    not from a list kept here, so they follow it.
    """
    from ipykernel import kernelspec
    from ipykernel.ipkernel import IPythonKernel

    spec = kernelspec.get_kernel_dict()
    return {
        "kernelspec": {
            "name": kernelspec.KERNEL_NAME,
            "display_name": spec["display_name"],
            "language": spec["language"],
        },
        "language_info": json.loads(json.dumps(IPythonKernel.language_info)),
    }


def _same_but_version(stored, wanted) -> bool:
    """True when two ``language_info`` agree in everything but a non-empty Python ``version``."""
    if not isinstance(stored, dict) or not stored.get("version"):
        return False
    return {k: v for k, v in stored.items() if k != "version"} == {k: v for k, v in wanted.items() if k != "version"}


def _set(meta, path: tuple[str, ...], value, changes: list[str], what: str) -> None:
    d = meta
    for key in path[:-1]:
        d = d.setdefault(key, nbformat.NotebookNode())
    if d.get(path[-1]) != value:
        d[path[-1]] = value
        changes.append(what)


def apply(nb, alt: dict[str, str] | None = None, kernel: dict | None = None) -> list[str]:
    """Set the metadata of ``nb`` in place; returns what changed, one line per change (empty: nothing to do).

    ``kernel`` is the notebook metadata of :func:`lab_metadata` (the default).
    """
    changes: list[str] = []
    kernel = lab_metadata() if kernel is None else kernel
    _set(nb.metadata, ("kernelspec",), kernel["kernelspec"], changes, "notebook: kernelspec as Lab writes it")
    if not _same_but_version(nb.metadata.get("language_info"), kernel["language_info"]):
        _set(nb.metadata, ("language_info",), kernel["language_info"], changes, "notebook: the kernel's language_info")
    sel = selection(nb)
    for i in sel["solution"]:
        meta = nb.cells[i].metadata
        _set(meta, ("jupyter", "source_hidden"), True, changes, f"cell {i}: solution source hidden")
    for i in sel["setup"] + sel["plotting"]:
        meta = nb.cells[i].metadata
        tags = meta.setdefault("tags", [])
        if not set(tags) & BOOK_HIDDEN:
            tags.append("hide-input")
            changes.append(f"cell {i}: tag hide-input")
        _set(meta, ("jupyter", "source_hidden"), True, changes, f"cell {i}: source hidden")
    for i in sel["book-hidden"]:
        _set(nb.cells[i].metadata, ("jupyter", "source_hidden"), True, changes, f"cell {i}: source hidden")
    keys = {figure_key(nb, i): i for i, c in enumerate(nb.cells) if c.cell_type == "code"}
    for key, text in (alt or {}).items():
        if key not in keys:
            raise AltTextError(f"alt text for {key!r}: no code cell has that figure name or index")
        _set(nb.cells[keys[key]].metadata, ("mystnb", "image", "alt"), text, changes, f"cell {keys[key]}: alt text")
    return changes


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("notebooks", nargs="*", type=Path)
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 when a notebook needs changes")
    ap.add_argument("--list", action="store_true", help="print the cells each rule selects")
    ap.add_argument("--alt", type=Path, default=ALT_FILE, help="alt-text file (default book/alt_text.toml)")
    args = ap.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    try:
        alt = load_alt(args.alt)
    except (AltTextError, tomllib.TOMLDecodeError) as exc:
        print(exc, file=sys.stderr)
        return 2
    stems = {p.stem for p in paths}
    if args.notebooks == [] and (unknown := sorted(set(alt) - stems)):
        print(f"{args.alt}: tables for no notebook: {unknown}", file=sys.stderr)
        return 2
    todo = errors = 0
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        if args.list:
            for rule, cells in selection(nb).items():
                print(f"{path.name}: {rule}: {cells}")
        try:
            changes = apply(nb, alt.get(path.stem))
        except AltTextError as exc:  # this notebook is left as it is; the others are still done
            print(f"{path.name}: {exc}", file=sys.stderr)
            errors += 1
            continue
        if changes:
            todo += 1
            print(f"{path.name}: {len(changes)} change(s)" + "".join(f"\n  {c}" for c in changes))
            if not args.check:
                nbformat.write(nb, path)
    return 2 if errors else 1 if args.check and todo else 0


if __name__ == "__main__":
    sys.exit(main())
