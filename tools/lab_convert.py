"""Rewrite chapters so that JupyterLab (with jupyterlab-myst) shows what the book shows, from the same source.

JupyterLab renders MyST Markdown with jupyterlab-myst, which knows maths, labelled equations, admonitions,
``prf:`` blocks, exercises and solutions, but not myst-nb's glue. This script replaces the glue constructs by ones
that both renderers understand (the book evaluates ``{eval}`` with myst-nb's inline execution mode,
``execute_notebooks: inline`` in ``_config.yml``; JupyterLab evaluates it when Run All reaches the Markdown cell):

==============================================  =====================================================================
before                                          after
==============================================  =====================================================================
``{glue:text}`key:.2e``` / ``{glue}`key```      ``{eval}`glued("key:.2e")``` (same text: ``format(value, ".2e")``)
``from myst_nb import glue`` (setup cell)       ``from robokin.nb import glue, glued``
a ``{glue:figure}`` Markdown cell               the code cell shows its figure; caption and name move to the cell's
                                                ``mystnb.figure`` metadata (as in chapter 3); the cell is dropped
``{glue:math}``                                 reported, not rewritten (see the report: the code cell displays the
                                                equation, or a ``{math}`` block states it)
==============================================  =====================================================================

A Markdown cell can only evaluate what the cells above it glued: a number quoted before its ``glue`` call is reported
(``forward``) and needs the call moved up by hand. Nothing is written with ``--check``, which exits 1 when a notebook
still needs converting or has a forward reference.

``--config _config.yml`` also switches the book to inline execution and lets ``{eval}`` run exactly the calls
``glued("key:fmt")`` (myst-nb only evaluates bare variable names unless ``nb_eval_name_regex`` says otherwise).

The converted chapters need ``glue`` and ``glued`` in ``robokin/nb.py`` (``glue`` keeps the value and glues it with
myst-nb as before, ``glued`` formats it; the book and Lab both call ``glued``)::

    _GLUED: dict[str, object] = {}

    def glue(name, value, display=True):
        # keep value for {eval}`glued("name:fmt")` in the Markdown below; myst-nb's glue data too (the Chinese
        # edition reads the English run's numbers from it: tools/i18n.py)
        _GLUED[name] = value
        myst_nb.glue(name, value, display=display)

    def glued(spec):
        # the value glued as name, formatted with format(value, fmt)
        name, _, fmt = spec.partition(":")
        if name not in _GLUED:
            raise KeyError(f"{name!r} is not glued yet: glue it in a code cell above the text that quotes it")
        text = format(_GLUED[name], fmt)
        ip = IPython.get_ipython()
        if ip is not None and ip.displayhook.quiet():
            # myst-nb evaluates {eval} with store_history=False, so IPython applies the ";" that ended the previous
            # code cell to this expression and shows nothing: show the text explicitly
            IPython.display.display(text)
        return text

Usage: ``python tools/lab_convert.py [--check] [--config _config.yml] [--glue-module robokin.nb] notebooks/*.ipynb``
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from pathlib import Path

import nbformat

# {glue:text}`key:fmt` and the bare {glue}`key` (whose text is the same as glue:text without a format)
GLUE_TEXT = re.compile(r"\{glue(?::text)?\}`(?P<key>[^`:]+?)(?::(?P<fmt>[^`]*))?`")
GLUE_FIGURE = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{glue:figure\}\s+(?P<key>\S+)\s*\n(?P<body>.*?)^(?P=fence)\s*$", re.M | re.S
)
GLUE_MATH = re.compile(r"\{glue:math\}")
GLUE_IMPORT = re.compile(r"^from myst_nb import glue\s*$", re.M)
# glue("key", ...) or glue(f"ch8_{key}_lo", ...): the key as a pattern (an f-string field matches any text)
GLUE_CALL = re.compile(r"\bglue\(\s*(?P<f>f?)(?P<q>[\"'])(?P<key>.+?)(?P=q)")
# {eval}`glued("key:fmt")` in converted Markdown
EVAL_GLUED = re.compile(r'\{eval\}`glued\("(?P<key>[^":]+)(?::[^"]*)?"\)`')
# glued is only called from the Markdown, so ruff would call the import unused (and --fix would delete it)
GLUED_NOQA = "# noqa: F401 (glued: called by the Markdown's {eval} roles)"
OPTION = re.compile(r"^:(?P<name>[\w-]+):\s*(?P<value>.*)$")


def _key_pattern(key: str, fstring: bool) -> re.Pattern:
    if not fstring:
        return re.compile(re.escape(key) + r"\Z")
    parts = re.split(r"\{[^}]*\}", key)
    return re.compile(".+".join(re.escape(p) for p in parts) + r"\Z")


def convert(nb, *, glue_module: str = "robokin.nb") -> tuple[list[str], list[str]]:
    """Convert ``nb`` in place. Returns (changes, problems): what was rewritten, and what needs a person."""
    changes: list[str] = []
    problems: list[str] = []
    glued: list[re.Pattern] = []  # keys glued by the code cells seen so far
    drop: list[int] = []
    for i, cell in enumerate(nb.cells):
        src = cell.source
        if cell.cell_type == "code":
            new = GLUE_IMPORT.sub(f"from {glue_module} import glue, glued  {GLUED_NOQA}", src)
            if new != src:
                changes.append(f"cell {i}: import glue, glued from {glue_module}")
            cell.source = new
            glued += [_key_pattern(m["key"], bool(m["f"])) for m in GLUE_CALL.finditer(new)]
            continue
        if cell.cell_type != "markdown":
            continue

        def to_eval(m: re.Match, i=i) -> str:
            key, fmt = m["key"].strip(), m["fmt"]
            if not any(p.match(key) for p in glued):
                problems.append(f"cell {i}: forward: {key!r} is quoted before a code cell above glues it")
            spec = key if fmt is None else f"{key}:{fmt}"
            return f'{{eval}}`glued("{spec}")`'

        new, n = GLUE_TEXT.subn(to_eval, src)
        if n:
            changes.append(f"cell {i}: {n} glue:text -> eval")
        for m in list(GLUE_FIGURE.finditer(new)):
            problems += _move_figure(nb, i, m, changes)
            new = new.replace(m.group(0), "")
        if GLUE_MATH.search(new):
            problems.append(f"cell {i}: glue:math: JupyterLab cannot show it; display the equation in its code cell")
        cell.source = new.strip("\n")
        if src.strip() and not cell.source.strip():
            drop.append(i)
    for i in reversed(drop):
        del nb.cells[i]
        changes.append(f"cell {i}: removed (it held only a glue:figure)")
    return changes, problems


def forward_references(nb) -> list[str]:
    """``{eval}`glued("key")``` roles of a converted notebook whose key no code cell above has glued yet."""
    glued: list[re.Pattern] = []
    # a key glued by name somewhere is judged by that call alone: an f-string glue above ("ch15_{k}") must not hide
    # a literal glue below it
    literal = {
        m["key"] for cell in nb.cells if cell.cell_type == "code" for m in GLUE_CALL.finditer(cell.source) if not m["f"]
    }
    seen: set[str] = set()
    out = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            calls = list(GLUE_CALL.finditer(cell.source))
            glued += [_key_pattern(m["key"], bool(m["f"])) for m in calls]
            seen |= {m["key"] for m in calls if not m["f"]}
        elif cell.cell_type == "markdown":
            out += [
                f"cell {i}: forward: {m['key']!r} is quoted before a code cell above glues it"
                for m in EVAL_GLUED.finditer(cell.source)
                if (m["key"] not in seen if m["key"] in literal else not any(p.match(m["key"]) for p in glued))
            ]
    return out


def _move_figure(nb, i: int, m: re.Match, changes: list[str]) -> list[str]:
    """Give the code cell that glued the figure the caption and name of the glue:figure directive."""
    key = m["key"]
    lines = m["body"].strip("\n").splitlines()
    opts = {}
    while lines and (o := OPTION.match(lines[0].strip())):
        opts[o["name"]] = o["value"].strip()
        lines.pop(0)
    caption = "\n".join(lines).strip()
    call = re.compile(
        r"^glue\(\s*[\"']" + re.escape(key) + r"[\"']\s*,\s*(?P<fig>\w+)\s*,\s*display\s*=\s*False\s*\)\s*$"
    )
    for j in range(i - 1, -1, -1):
        code = nb.cells[j]
        if code.cell_type != "code" or not any(call.match(line) for line in code.source.splitlines()):
            continue
        if set(opts) - {"name"}:
            return [f"cell {i}: glue:figure {key}: options {sorted(set(opts) - {'name'})} not moved"]
        out = []
        for line in code.source.splitlines():
            c = call.match(line)
            if c:
                fig = c["fig"]
                continue
            out.append(line)
        # the figure is the cell's output now: drop the close that hid it, end the cell with ";" (no repr)
        while out and out[-1].strip().rstrip(";") in (f"plt.close({fig})", ""):
            out.pop()
        if out and not out[-1].rstrip().endswith(";"):
            out[-1] = out[-1].rstrip() + ";"
        code.source = "\n".join(out)
        figure = {"caption": caption}
        if "name" in opts:
            figure["name"] = opts["name"]
        code.metadata.setdefault("mystnb", {})["figure"] = figure
        changes.append(f"cell {j}: shows figure {key} (mystnb.figure metadata)")
        if j != i - 1:
            return [f"cell {i}: glue:figure {key} stood {i - j} cells below its code cell: the figure moved up"]
        return []
    return [f"cell {i}: glue:figure {key}: no code cell above glues it as glue({key!r}, fig, display=False)"]


EVAL_REGEX = r'^glued\("[^":]+(:[^"]*)?"\)$'  # glued("key") or glued("key:fmt"), nothing else


def convert_config(text: str) -> str:
    """_config.yml with inline execution and the eval pattern (text edits: the file's comments stay)."""
    text = re.sub(r"^(\s*execute_notebooks:\s*)force\b.*$", r"\1inline", text, flags=re.M)
    if "execute_notebooks: inline" not in text:
        raise ValueError("_config.yml: no 'execute_notebooks: force' to switch to inline")
    if "nb_eval_name_regex" not in text:
        m = re.search(r"^(\s*)nb_merge_streams:.*\n", text, flags=re.M)
        if not m:
            raise ValueError(
                "_config.yml: no 'nb_merge_streams' line under sphinx.config to add the eval pattern after"
            )
        ind = m.group(1)
        add = f'{ind}# {{eval}} runs only glued("key:fmt"): the call that the book and JupyterLab both evaluate\n'
        add += f"{ind}nb_eval_name_regex: '{EVAL_REGEX}'\n"
        text = text[: m.end()] + add + text[m.end() :]
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebooks", nargs="+", type=Path)
    ap.add_argument("--check", action="store_true", help="report only; exit 1 when a notebook needs work")
    ap.add_argument("--glue-module", default="robokin.nb", help="module that provides glue and glued")
    ap.add_argument("--config", type=Path, help="also convert this _config.yml")
    args = ap.parse_args(argv)
    status = 0
    try:
        module = importlib.import_module(args.glue_module)
    except ImportError:
        module = None  # a module next to the notebooks (prototypes): the kernel finds it, this process may not
    if module is not None and not hasattr(module, "glued"):
        print(f"{args.glue_module} has no glued(): add glue and glued first (see this script's docstring)")
        return 2
    if args.config:
        old = args.config.read_text(encoding="utf-8")
        new = convert_config(old)
        if new != old:
            print(f"{args.config}: execute_notebooks: inline, nb_eval_name_regex")
            if args.check:
                status = 1
            else:
                args.config.write_text(new, encoding="utf-8")
    for path in args.notebooks:
        nb = nbformat.read(path, as_version=4)
        changes, problems = convert(nb, glue_module=args.glue_module)
        problems += forward_references(nb)  # the converted roles too: --check on a converted chapter
        for line in changes:
            print(f"{path}: {line}")
        for line in problems:
            print(f"{path}: NEEDS WORK: {line}")
        if problems or (args.check and changes):
            status = 1
        if changes and not args.check:
            nbformat.write(nb, path)
    return status


if __name__ == "__main__":
    sys.exit(main())
