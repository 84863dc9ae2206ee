"""Sphinx extension: every chapter's results as files the reader can keep (issue 33, "Results the reader can keep").

One source: the run that built the page. For each chapter the build writes, under ``<site>/downloads/``,

* ``<chapter>-results.csv``: every value the chapter glued (``robokin.nb.glue``; the numbers its text quotes), as
  ``key,value,shown as``: the value as the run printed it (myst-nb's ``text/plain`` of the glue output; a glued
  equation, such as an IPython ``Math``, as its LaTeX; other objects, such as a figure, are left out), and, when the
  chapter's Markdown quotes it (``{eval}`glued("key:fmt")```), the text the page shows, the value formatted by each
  format the chapter uses (``; `` between two); blank for a value the text does not quote;
* ``<chapter>-table-<k>.csv``: each table of the page, in page order: the tables the chapter's code cells output (a
  Markdown table, or an HTML table such as a pandas DataFrame) and the pipe tables of its Markdown cells (outside
  literal code blocks), its cells as plain text (Markdown emphasis and code ticks dropped, maths kept as written; a
  quoted number, ``{eval}`glued("key:fmt")```, as the page shows it, the glued value formatted by ``fmt``; another
  role, such as ``{eq}`label```, as its target). A table shown transposed to fit the page (its header an empty corner, then
  ``segment 1``, ``segment 2``, ...) is written the other way round: one row per segment, as a contest asks;
* ``<chapter>-contest.xlsx``: the tables of a section whose title names a contest (chapter 6's answer table), one
  sheet per table (``waypoints``, ``segments``: the design report's names, :data:`SHEETS`), numbers as numbers.

The chapter's Summary section ends with a "Downloads" line linking them; a table's link is named after the heading
the table sits under (in the page's language), or its first header cell when two tables share a heading. The files' bytes depend only on the run's
numbers: CSV with ``\\n`` line ends, XLSX with fixed document dates and zip entry times. The Chinese edition
(``tools/i18n.py build-zh``) reads the English run's executed notebooks (the folder of ``robokin_exec_data``) and
writes the same files into its own site; its line's labels come from ``locales/zh_CN/downloads.po``.
"""

from __future__ import annotations

import ast
import csv
import datetime as _dt
import html.parser
import io
import json
import re
import zipfile
from pathlib import Path

from docutils import nodes

ROOT = Path(__file__).resolve().parents[2]
FOLDER = "downloads"
#: the catalogue of the line's labels in the Chinese edition (msgid: the English label)
CATALOGUES = {"zh_CN": ROOT / "locales" / "zh_CN" / "downloads.po"}
LABELS = {
    "downloads": "Downloads:",
    "results": "this chapter's results (CSV)",
    "table": "{name} (CSV)",
    "part": "{heading}: {cell}",
    "contest": "the contest tables (XLSX)",
    "note": "(from the run that built this page)",
}
#: a contest table's sheet, by its first header cell: the names of the design report's workbook (``python -m robokin
#: report contest``, robokin.params.render.write_results), so that the two files a team may submit agree
SHEETS = {"waypoint": "waypoints", "segment": "segments"}
#: the dates written into an XLSX (document properties and zip entries): fixed, so the bytes repeat
FIXED_DATE = _dt.datetime(2026, 1, 1)
_CONTEST = re.compile(r"\bcontest\b", re.I)
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})")  # MyST's colon fences too
_GLUED = re.compile(r"""glued\(\s*(["'])([^"':]+)(?::([^"']*))?\1\s*\)""")
_OBJECT = re.compile(r"^<[^\n]*>$")  # an object's repr, such as "<IPython.core.display.Math object>"
_EMPHASIS = [
    re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*"),
    re.compile(r"(?<![\w\\])__(?=\S)(.+?)(?<=\S)__(?!\w)"),
    re.compile(r"(?<![\w*\\])\*(?=[^\s*])(.+?)(?<=[^\s*\\])\*(?![\w*])"),
    re.compile(r"(?<![\w\\])_(?=[^\s_])(.+?)(?<=[^\s_\\])_(?!\w)"),
]
_MATH = re.compile(r"(\$\$.+?\$\$|\$[^$]+\$|`[^`]*`)")
_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
_TRANSPOSED = re.compile(r"^(\w+) \d+$")
_EVAL = re.compile(r"""\{eval\}`\s*glued\(\s*(["'])([^"':]+)(?::([^"']*))?\1\s*\)\s*`""")
_ROLE = re.compile(r"\{[\w:-]+\}`([^`]*)`")
#: directives whose body is not Markdown: a pipe table inside them is not a table of the page
_LITERAL = re.compile(r"^\{(math|code|code-block|code-cell|literalinclude|raw)\}")


# ---------------------------------------------------------------------------------------------------- reading tables
def _text(value):
    return "".join(value) if isinstance(value, list) else str(value)


def _plain(text):
    """``text`` without Markdown emphasis (``**a**``, ``__a__``, ``*a*``, ``_a_``); maths and code spans untouched.

    >>> _plain("**stable** and *interpreted*, x_1 and $a_{i-1}$ (rad), a * b, snake_case_name")
    'stable and interpreted, x_1 and $a_{i-1}$ (rad), a * b, snake_case_name'
    """
    parts = _MATH.split(text)
    for i in range(0, len(parts), 2):  # the even parts are outside maths and code
        for pattern in _EMPHASIS:
            parts[i] = pattern.sub(r"\1", parts[i])
    return "".join(parts)


def _cell(text):
    """A Markdown table cell as plain text: ``\\|`` unescaped, emphasis and code ticks dropped (maths kept)."""
    text = _plain(text.strip().replace("\\|", "|"))
    if len(text) >= 2 and text.startswith("`") and text.endswith("`") and "`" not in text[1:-1]:
        text = text[1:-1]
    return text


def markdown_tables(markdown, *, raw=False):
    """The pipe tables of a Markdown text, each as a list of rows (the header first); ``raw``: the cells only
    stripped (:func:`_table_cell` resolves them once the glued values are known).

    >>> markdown_tables("| a | b \\\\| c |\\n|---|---|\\n| `x` | 2 |\\n\\nafter")
    [[['a', 'b | c'], ['x', '2']]]
    """
    tables, rows = [], None
    for line in markdown.splitlines() + [""]:
        s = line.strip()
        if s.startswith("|") and s.endswith("|") and len(s) > 1:
            cells = [c.strip() if raw else _cell(c) for c in re.split(r"(?<!\\)\|", s[1:-1])]
            if rows is None:
                rows = [cells]
            elif len(rows) == 1 and all(re.fullmatch(r":?-{2,}:?", c.replace(" ", "")) for c in cells):
                rows.append(None)  # the delimiter row
            elif len(rows) >= 2 and rows[1] is None:
                rows.append(cells)
            else:
                rows = [cells]
            continue
        if rows is not None and len(rows) >= 2 and rows[1] is None:
            tables.append([rows[0]] + rows[2:])
        rows = None
    return tables


class _HTMLTables(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self._row, self._cell, self._depth = [], None, None, 0

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self._depth += 1
            if self._depth == 1:
                self.tables.append([])
        elif self._depth == 1 and tag == "tr":
            self._row = []
        elif self._depth == 1 and tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "table":
            self._depth -= 1
        elif self._depth == 1 and tag in ("td", "th") and self._cell is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif self._depth == 1 and tag == "tr" and self._row is not None:
            if self._row:
                self.tables[-1].append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def html_tables(text):
    """The tables of an HTML output (a pandas DataFrame, a hand-written table), each as a list of rows.

    >>> html_tables("<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td> x  y</td></tr></table>")
    [[['a', 'b'], ['1', 'x y']]]
    """
    p = _HTMLTables()
    p.feed(text)
    return [t for t in p.tables if t]


def untranspose(rows):
    """A table shown transposed to fit the page (corner empty, columns ``<name> 1``, ``<name> 2``...) the other way
    round, one row per ``<name>`` (the first column named ``<name>``); any other table unchanged.

    >>> untranspose([["", "segment 1", "segment 2"], ["T (s)", "1.5", "0.7"]])
    [['segment', 'T (s)'], ['1', '1.5'], ['2', '0.7']]
    """
    head = rows[0]
    names = [_TRANSPOSED.match(h) for h in head[1:]]
    if head[0] or not names or not all(names) or len({m.group(1) for m in names}) != 1:
        return rows
    if any(len(r) != len(head) for r in rows):
        return rows
    out = [[names[0].group(1)] + [r[0] for r in rows[1:]]]
    for j, m in enumerate(names, start=1):
        out.append([head[j][len(m.group(1)) + 1 :]] + [r[j] for r in rows[1:]])
    return out


# ------------------------------------------------------------------------------------------- a chapter's results
def _value(plain):
    """A glue output's ``text/plain`` as the reader wants it: a string without its quotes, anything else as printed."""
    try:
        v = ast.literal_eval(plain)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return plain
    return v if isinstance(v, str) else plain


def _glue_text(data):
    """The text a glue output's ``data`` (its MIME bundle) gives the results file: the value as printed, an
    equation's LaTeX, or None for another object (a figure, an IPython display object without LaTeX)."""
    plain = next((_text(v) for k, v in data.items() if k.endswith("text/plain")), None)
    if plain is None or not _OBJECT.match(plain.strip()):
        return None if plain is None else _value(plain)
    latex = next((_text(v) for k, v in data.items() if k.endswith("text/latex")), None)
    return latex.strip() if latex else None


def _shown(text, fmt):
    """``text`` (a glued value as printed) formatted by ``fmt`` as ``glued("key:fmt")`` shows it, or None."""
    try:
        v = float(text) if text.strip() in ("nan", "inf", "-inf") else ast.literal_eval(text)
        return format(v, fmt)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def headings(markdown):
    """``[(level, title)]`` of a Markdown text's ATX headings, outside fenced code blocks.

    >>> headings("# A\\n```python\\n# a comment\\n```\\n## B ##\\ntext")
    [(1, 'A'), (2, 'B')]
    """
    out, fence = [], None
    for line in markdown.splitlines():
        m = _FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark) :].strip():
                fence = None
            continue
        h = None if fence else _HEADING.match(line)
        if h:
            out.append((len(h.group(1)), h.group(2)))
    return out


def markdown_blocks(markdown, *, raw=False):
    """A Markdown cell's headings and pipe tables in line order: ``("heading", level, title)`` and
    ``("table", rows)`` (:func:`markdown_tables`); tables inside literal code blocks (a fence with a language, or
    a directive such as ``{math}`` or ``{code-cell}``) are skipped, those inside other directives (``{note}``) kept.

    >>> markdown_blocks("| a |\\n|---|\\n| 1 |\\n## B\\n```text\\n| x |\\n|---|\\n| 2 |\\n```\\n| b |\\n|---|\\n| 3 |")
    [('table', [['a'], ['1']]), ('heading', 2, 'B'), ('table', [['b'], ['3']])]
    """
    out, chunk, fences = [], [], []

    def flush():
        out.extend(("table", t) for t in markdown_tables("\n".join(chunk), raw=raw))
        chunk.clear()

    for line in markdown.splitlines():
        m = _FENCE.match(line)
        if m:
            mark, info = m.group(1), line.strip()[len(m.group(1)) :].strip()
            if fences and mark[0] == fences[-1][0][0] and len(mark) >= len(fences[-1][0]) and not info:
                fences.pop()
            else:
                fences.append((mark, not info.startswith("{") or bool(_LITERAL.match(info))))
            flush()
            continue
        if any(literal for _, literal in fences):
            continue
        h = None if fences else _HEADING.match(line)  # as :func:`headings` counts them
        if h:
            flush()
            out.append(("heading", len(h.group(1)), h.group(2)))
        else:
            chunk.append(line)
    flush()
    return out


def _quoted(cell, printed, *, roles=True):
    """A Markdown table cell with each ``{eval}`glued("key:fmt")``` as the page shows it (the value as printed,
    ``printed[key]``, formatted by ``fmt``; its ``glued(...)`` call when the run has no such value) and other roles as their
    targets.

    >>> _quoted('{eval}`glued("k:.1%")` of {eq}`eq-a`', {"k": "0.25"})
    '25.0% of eq-a'
    """

    def shown(m):
        name, fmt = m.group(2), m.group(3) or ""
        text = _shown(printed[name], fmt) if name in printed else None
        return m.group(0) if text is None else text

    if "`" not in cell:
        return cell
    text = _EVAL.sub(shown, cell)
    return _ROLE.sub(r"\1", text) if roles else text


def _table_cell(raw, printed):
    """A raw Markdown table cell as the page shows it: quoted numbers first (:func:`_quoted`), then :func:`_cell`
    (so that emphasis around a quoted number is dropped too), then the other roles as their targets.

    >>> _table_cell('**{eval}`glued("k:.2f")`** ({eq}`eq-a`)', {"k": "0.125"})
    '0.12 (eq-a)'
    """
    text = _EVAL.sub(lambda m: _quoted(m.group(0), printed, roles=False), raw) if "`" in raw else raw
    text = _cell(text)
    return _ROLE.sub(r"\1", text) if "`" in text else text


def chapter_results(nb, glue=None):
    """``(values, tables)`` of an executed notebook (a dict as nbformat's JSON) and its myst-nb glue data.

    ``values``: ``[(key, text, shown)]`` of every glued value, in the order the chapter glued them (the outputs still
    in the notebook and ``glue``, myst-nb's ``<chapter>.glue.json``, merged; the first record of a key wins); ``shown``
    is the text the page shows (the value formatted by each ``glued("key:fmt")`` of the chapter's Markdown, ``; ``
    between two), or ``""``.
    ``tables``: ``[(rows, contest, heading)]`` of every table the code cells output, in page order; ``contest`` is
    True for a table under a heading that names a contest, ``heading`` is ``(k, title)``: the heading the table sits
    under, the ``k``-th (from 0) of the notebook's headings, or ``(None, "")`` above the first.

    >>> nb = {"cells": [
    ...     {"cell_type": "markdown", "source": "## A contest problem"},
    ...     {"cell_type": "code", "outputs": [
    ...         {"output_type": "display_data", "metadata": {"scrapbook": {"name": "k"}}, "data": {"text/plain": "0.5"}},
    ...         {"output_type": "display_data", "data": {"text/markdown": "| a |\\n|---|\\n| 1 |"}}]},
    ...     {"cell_type": "markdown", "source": "k is {eval}`glued(\\"k:.0%\\")`."}]}
    >>> chapter_results(nb, {"s": {"data": {"text/plain": "'left-up'"}}})
    ([('k', '0.5', '50%'), ('s', 'left-up', '')], [([['a'], ['1']], True, (0, 'A contest problem'))])
    """
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise ValueError(f"nb must be an executed notebook (a dict with a 'cells' list), got {type(nb).__name__}")
    values, printed, specs, tables, contest, heading, n_headings = {}, {}, {}, [], False, (None, ""), 0

    def record(name, data):
        if name in values:
            return
        text = _glue_text(data)
        if text is not None:
            values[name] = text
            printed[name] = next((_text(v) for k, v in data.items() if k.endswith("text/plain")), "")

    for cell in nb["cells"]:
        if cell.get("cell_type") == "markdown":
            source = _text(cell.get("source", ""))
            for _, name, fmt in _GLUED.findall(source):
                specs.setdefault(name, {}).setdefault(fmt or "", None)
            for block in markdown_blocks(source, raw=True):
                if block[0] == "table":  # its quoted numbers are resolved once every glued value is known
                    tables.append((block[1], contest, heading, True))
                    continue
                _, level, title = block
                heading, n_headings = (n_headings, title), n_headings + 1
                if level <= 2 or _CONTEST.search(title):
                    contest = bool(_CONTEST.search(title))
            continue
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            name = out.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                record(name, data)
                continue
            if "text/markdown" in data:
                found = markdown_tables(_text(data["text/markdown"]))
            elif "text/html" in data:
                found = html_tables(_text(data["text/html"]))
            else:
                found = []
            tables += [(t, contest, heading, False) for t in found]
    for name, out in (glue or {}).items():
        record(name, out.get("data", {}))
    tables = [
        (untranspose([[_table_cell(c, printed) for c in r] for r in t] if md else t), c, h) for t, c, h, md in tables
    ]
    rows = []
    for name, text in values.items():
        shown = [_shown(printed[name], fmt) for fmt in specs.get(name, ())]
        rows.append((name, text, "; ".join(dict.fromkeys(x for x in shown if x is not None))))
    return rows, tables


# --------------------------------------------------------------------------------------------------- the files
def _check_rows(rows, name):
    if not isinstance(rows, (list, tuple)) or not rows:
        raise ValueError(f"{name} must be a non-empty list of rows, got {rows!r:.60}")
    for i, r in enumerate(rows):
        if not isinstance(r, (list, tuple)) or not all(isinstance(x, (str, int, float)) for x in r):
            raise ValueError(f"{name}[{i}] must be a list of str or numbers, got {r!r:.60}")


def csv_bytes(rows):
    """``rows`` (the header first) as UTF-8 CSV with ``\\n`` line ends: the same rows give the same bytes.

    >>> csv_bytes([["key", "value"], ["a, b", 1.5]])
    b'key,value\\n"a, b",1.5\\n'
    """
    _check_rows(rows, "rows")
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode("utf-8")


def _number(x):
    if isinstance(x, str) and _NUMBER.match(x.strip()):
        v = float(x)
        return int(v) if v.is_integer() and re.fullmatch(r"[-+]?\d+", x.strip()) else v
    return x


def xlsx_bytes(sheets):
    """An XLSX workbook (openpyxl) of ``sheets``, ``[(name, rows)]``: header row bold, numbers as numbers.

    Deterministic: the document's dates are :data:`FIXED_DATE` and every zip entry has the same time, so the same
    sheets give the same bytes.

    >>> from openpyxl import load_workbook
    >>> data = xlsx_bytes([("waypoint", [["waypoint", "q1 (rad)"], ["0", "3.5"]])])
    >>> data == xlsx_bytes([("waypoint", [["waypoint", "q1 (rad)"], ["0", "3.5"]])])
    True
    >>> ws = load_workbook(io.BytesIO(data)).active
    >>> ws.title, [c.value for c in ws[2]]
    ('waypoint', [0, 3.5])
    """
    from openpyxl import Workbook
    from openpyxl.styles import Font

    if not isinstance(sheets, (list, tuple)) or not sheets:
        raise ValueError(f"sheets must be a non-empty list of (name, rows), got {sheets!r:.60}")
    wb = Workbook()
    wb.remove(wb.active)
    used = set()
    for k, item in enumerate(sheets):
        if not (isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str)):
            raise ValueError(f"sheets[{k}] must be a (name, rows) pair, got {item!r:.60}")
        name, rows = item
        _check_rows(rows, f"sheets[{k}] rows")
        title = re.sub(r"[\[\]:*?/\\]", " ", name).strip()[:31] or f"table {k + 1}"
        while title.lower() in used:
            title = f"{title[:28]} {k + 1}"
        used.add(title.lower())
        ws = wb.create_sheet(title)
        for i, r in enumerate(rows):
            ws.append([x if i == 0 else _number(x) for x in r])
        for c in ws[1]:
            c.font = Font(bold=True)
    wb.properties.creator = "robokin"
    wb.properties.created = wb.properties.modified = FIXED_DATE
    wb.properties.lastModifiedBy = None
    raw = io.BytesIO()
    wb.save(raw)
    return _fixed_zip(raw.getvalue())


def _fixed_zip(data):
    """The zip ``data`` with every entry's time :data:`FIXED_DATE` and the document dates fixed."""
    stamp = re.compile(rb"(<dcterms:(created|modified)[^>]*>)[^<]*(</dcterms:\2>)")
    fixed = FIXED_DATE.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info.filename)
            if info.filename == "docProps/core.xml":
                body = stamp.sub(lambda m: m.group(1) + fixed + m.group(3), body)
            entry = zipfile.ZipInfo(info.filename, date_time=FIXED_DATE.timetuple()[:6])
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            dst.writestr(entry, body)
    return out.getvalue()


def chapter_downloads(stem, nb, glue=None):
    """``[(file name, bytes, heading)]`` of a chapter's downloads (see the module docstring), in link order;
    ``heading`` is a table's ``(k, title)`` (see :func:`chapter_results`), and None for the other files."""
    values, tables = chapter_results(nb, glue)
    files = []
    if values:
        files.append(
            (f"{stem}-results.csv", csv_bytes([["key", "value", "shown as"]] + [list(v) for v in values]), None)
        )
    for k, (rows, _, heading) in enumerate(tables, start=1):
        files.append((f"{stem}-table-{k}.csv", csv_bytes(rows), heading))
    contest = [
        (SHEETS.get(rows[0][0], rows[0][0]) or f"table {k}", rows)
        for k, (rows, c, _) in enumerate(tables, start=1)
        if c
    ]
    if contest:
        files.append((f"{stem}-contest.xlsx", xlsx_bytes(contest), None))
    return files


def chapter_files(stem, nb, glue=None):
    """``{file name: bytes}`` of a chapter's downloads (see the module docstring), in link order."""
    return {name: data for name, data, _ in chapter_downloads(stem, nb, glue)}


def _label_text(text):
    """A heading or a header cell as a link's text: maths' dollars and backslashes, roles and emphasis dropped."""
    text = re.sub(r"\{[\w:-]+\}`([^`]*)`", r"\1", text)
    text = _plain(text).replace("`", "")
    return " ".join(re.sub(r"[$\\{}]", "", text).split())


def notebook_headings(nb):
    """``[(level, title)]`` of the headings of a notebook's Markdown cells, in order."""
    cells = nb.get("cells", []) if isinstance(nb, dict) else []
    return [h for c in cells if c.get("cell_type") == "markdown" for h in headings(_text(c.get("source", "")))]


def table_labels(files, text, titles=(), n_headings=None):
    """``{file name: link text}`` of the tables among ``files`` (:func:`chapter_downloads`): the heading each table
    sits under, from ``titles`` (the page's section titles in document order, so in the page's language) when there
    is one per notebook heading (``n_headings``), else the notebook's; the table's first header cell instead when two
    tables share a heading (the heading and the table's number when their first cells agree too). ``text`` holds
    the labels (:func:`labels`).

    >>> files = [("c-results.csv", b"", None), ("c-table-1.csv", b"a\\n", (1, "A *run*")),
    ...          ("c-table-2.csv", b"waypoint\\n", (2, "Contest")), ("c-table-3.csv", b"segment\\n", (2, "Contest"))]
    >>> table_labels(files, LABELS, ["Chapter", "Runs", "The contest"], 3)
    {'c-table-1.csv': 'Runs (CSV)', 'c-table-2.csv': 'waypoint (CSV)', 'c-table-3.csv': 'segment (CSV)'}
    """
    names = {}
    for name, data, heading in files:
        if heading is None:
            continue
        k, title = heading
        if k is not None and k < len(titles) and len(titles) == n_headings:
            title = titles[k]
        first = next(csv.reader(io.StringIO(data.decode("utf-8"))), [""])
        names[name] = (_label_text(title), _label_text(first[0] if first else ""), k)
    groups = {}
    for _title, cell, k in names.values():
        groups.setdefault(k, []).append(cell)
    out = {}
    for name, (title, cell, k) in names.items():
        number = name.rsplit("-", 1)[-1].split(".")[0]
        if title and len(groups[k]) == 1:
            label = title
        elif cell and groups[k].count(cell) == 1:
            label = cell  # two tables under one heading (or none): their first header cells tell them apart
        else:
            label = text["part"].format(heading=title or cell, cell=number)
        out[name] = text["table"].format(name=label)
    return out


# ------------------------------------------------------------------------------------------------------- Sphinx
def executed_folder(app):
    """Where the English run's executed notebooks are: this build's, or (another edition) the English build's."""
    if app.config.language != "en" and app.config.robokin_exec_data:
        return Path(app.config.robokin_exec_data).parent
    return Path(app.outdir).parent / "jupyter_execute"


def labels(language):
    """The line's labels in ``language`` (English, or from its catalogue; a missing translation is an error)."""
    if language == "en":
        return dict(LABELS)
    from babel.messages.pofile import read_po
    from sphinx.errors import ExtensionError

    po = CATALOGUES.get(language)
    if po is None or not po.exists():
        raise ExtensionError(f"robokin_downloads: no catalogue of the download labels for {language!r} ({po})")
    with open(po, "rb") as f:
        cat = read_po(f)
    out = {}
    for key, en in LABELS.items():
        msg = cat.get(en)
        if msg is None or not msg.string or msg.fuzzy:
            raise ExtensionError(f"robokin_downloads: {po.name} lacks a translation of {en!r}")
        out[key] = msg.string
    return out


def _summary(doctree):
    """The chapter's Summary section (its first title "Summary", or its Chinese), else None."""
    for sec in doctree.findall(nodes.section):
        if sec.children and isinstance(sec[0], nodes.title) and sec[0].astext().strip() in ("Summary", "小结"):
            return sec
    return None


_WIDE = re.compile(r"[\u3000-\u303f\uff00-\uffef]")  # CJK punctuation and full-width forms: no space beside them


def _gap(left, right):
    """The space between two pieces of the line: none beside a full-width character (Chinese punctuation)."""
    return "" if (left and _WIDE.match(left[-1])) or (right and _WIDE.match(right[0])) else " "


def downloads_paragraph(files, text, up="", titles=(), n_headings=None):
    """The "Downloads" line of a chapter: ``files`` (:func:`chapter_downloads`) linked under ``up`` + ``downloads/``,
    with the labels ``text`` (:func:`labels`); ``titles`` and ``n_headings`` name the tables (:func:`table_labels`)."""
    tables = table_labels(files, text, titles, n_headings)
    para = nodes.paragraph(classes=["robokin-downloads"])
    para += nodes.strong(text=text["downloads"])
    last = text["downloads"]
    for i, (name, _, _) in enumerate(files):
        if name.endswith("-results.csv"):
            label = text["results"]
        elif name.endswith(".xlsx"):
            label = text["contest"]
        else:
            label = tables[name]
        sep = ("·" if _gap(last, label) == "" else " · ") if i else _gap(last, label)
        para += nodes.Text(sep)
        para += nodes.reference("", label, refuri=f"{up}{FOLDER}/{name}", classes=["robokin-download"])
        last = label
    para += nodes.Text(_gap(last, text["note"]) + text["note"])
    return para


def _add_downloads(app, doctree, docname):
    if app.builder.format != "html" or not docname.startswith("notebooks/"):
        return
    folder = executed_folder(app)
    nb_path = folder / f"{docname}.ipynb"
    if not nb_path.exists():
        return
    glue_path = folder / f"{docname}.glue.json"
    glue = json.loads(glue_path.read_text(encoding="utf-8")) if glue_path.exists() else None
    stem = docname.split("/")[-1]
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    files = chapter_downloads(stem, nb, glue)
    if not files:
        return
    out = Path(app.outdir) / FOLDER
    out.mkdir(parents=True, exist_ok=True)
    for name, data, _ in files:
        (out / name).write_bytes(data)
    for stale in out.glob(f"{stem}-*"):  # a table an earlier build of this chapter had (make chapter, incremental)
        if stale.name not in {name for name, _, _ in files}:
            stale.unlink()
    titles = [s[0].astext() for s in doctree.findall(nodes.section) if s.children and isinstance(s[0], nodes.title)]
    text = labels(app.config.language)
    para = downloads_paragraph(files, text, "../" * docname.count("/"), titles, len(notebook_headings(nb)))
    sec = _summary(doctree)
    if sec is None:
        doctree += para
        return
    first_sub = next((i for i, c in enumerate(sec.children) if isinstance(c, nodes.section)), len(sec.children))
    sec.insert(first_sub, para)


def setup(app):
    app.setup_extension("robokin_i18n")  # its config value robokin_exec_data names the English run's records
    app.connect("doctree-resolved", _add_downloads)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
