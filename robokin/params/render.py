"""Design reports: run a family's report notebook on a parameter file and render it to one offline HTML file.

The report notebooks live in ``reports/<family>.ipynb`` of the source tree. Each has a cell tagged
``parameters`` (``param_file``, ``out_dir``, ``fast``) that papermill (the Jupyter ecosystem's parameterised-notebook
runner) overrides; the executed notebook is converted by nbconvert with the code cells hidden, its figures
already embedded as base64 images, and MathJax (from the installed ``sphinx-mathjax-offline`` package) inlined, so
the page needs no network. The notebook writes the machine-readable results itself (:func:`write_results`).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from ._paths import data_dir
from .design import Outcome, rows_csv, table_csv

__all__ = [
    "REPORTS",
    "report_notebook",
    "write_results",
    "summary_html",
    "failures_html",
    "table_html",
    "execute",
    "execute_batch",
    "to_html",
    "figure_html",
]

#: Folder of the report notebooks (``reports/`` of the source tree).
REPORTS = data_dir("reports")
#: Families with a report notebook.
FAMILIES_WITH_REPORT = (
    "fivebar",
    "serial_arm",
    "contest",
    "two_link_leg",
    "stewart",
    "mecanum",
    "wheel_leg",
    "two_link_arm",
)


def report_notebook(family: str) -> Path:
    """The report notebook of a family."""
    if family not in FAMILIES_WITH_REPORT:
        raise ValueError(f"family must be one of {', '.join(FAMILIES_WITH_REPORT)}; got {family!r}")
    return REPORTS / f"{family}.ipynb"


def write_results(outcome: Outcome, out_dir: str | Path) -> list[Path]:
    """Write ``checks.csv``, the family's tables (``<table>.csv``) and, when the family has tables, all of them with
    the checks as one workbook ``<family>.xlsx`` (sheet ``checks``, then one sheet per table).

    The CSV text is a function of the numbers only (12 significant digits, ``\\n`` line ends), so the same file
    gives byte-identical CSV on every run; the workbook too (fixed document dates and zip entry times).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "checks.csv"]
    written[0].write_text(rows_csv(outcome), encoding="utf-8", newline="")
    for name, (head, rows) in outcome.tables.items():
        p = out / f"{name}.csv"
        p.write_text(table_csv(head, rows), encoding="utf-8", newline="")
        written.append(p)
    if outcome.tables:
        written.append(_xlsx(outcome, out / f"{outcome.family}.xlsx"))
    return written


def _xlsx(outcome, path):
    import datetime

    import xlsxwriter

    wb = xlsxwriter.Workbook(str(path))
    # fixed document dates (docProps/core.xml; by default the wall clock): the same numbers give the same bytes.
    # xlsxwriter already writes every zip entry with one fixed time.
    wb.set_properties({"created": datetime.datetime(2026, 1, 1)})
    bold = wb.add_format({"bold": True})
    for name, (head, rows) in [("checks", _check_table(outcome))] + list(outcome.tables.items()):
        ws = wb.add_worksheet(name[:31])
        ws.write_row(0, 0, head, bold)
        for i, r in enumerate(rows, start=1):
            ws.write_row(i, 0, [x if isinstance(x, (int, float, str)) else str(x) for x in r])
        ws.set_column(0, len(head) - 1, 14)
    wb.close()
    return path


def _check_table(outcome):
    head = ["check", "status", "value", "relation", "limit", "unit", "samples", "fix"]
    rows = []
    for r in outcome.rows:
        lim = "" if r.relation == "info" else float(r.limit)
        val = float(r.value) if r.value == r.value else "nan"
        rows.append([r.check, r.status, val, r.relation, lim, r.unit, r.samples, r.fix])
    return head, rows


def _num(x):
    if x != x:
        return ""
    ax = abs(x)
    return f"{x:.3g}" if ax == 0 or 1e-3 <= ax < 1e4 else f"{x:.2e}"


def summary_html(outcome: Outcome, source: str) -> str:
    """The verdict and the pass/fail table as HTML (inline styles only: the page stays self-contained)."""
    n_fail = len(outcome.failed)
    verdict = (
        f'<p style="font-size:1.2em;color:#1a7f37"><b>All {sum(r.passed is True for r in outcome.rows)} checks '
        f"pass.</b></p>"
        if not n_fail
        else f'<p style="font-size:1.2em;color:#cf222e"><b>{n_fail} check(s) FAIL</b> (see "What to change").</p>'
    )
    colour = {"PASS": "#1a7f37", "FAIL": "#cf222e", "info": "#57606a"}
    lines = [
        f"<p>Design <b>{html.escape(outcome.name)}</b> ({outcome.family}) from <code>{html.escape(source)}</code></p>",
        verdict,
        '<table style="border-collapse:collapse"><tr>'
        + "".join(
            f'<th style="border-bottom:1px solid #888;padding:2px 8px;text-align:left">{h}</th>'
            for h in ("check", "status", "value", "bound", "unit", "samples")
        )
        + "</tr>",
    ]
    for r in outcome.rows:
        bound = "" if r.relation == "info" else f"{html.escape(r.relation)} {_num(r.limit)}"
        lines.append(
            "<tr>"
            f'<td style="padding:2px 8px;text-align:left">{html.escape(r.check)}</td>'
            f'<td style="padding:2px 8px;color:{colour[r.status]}"><b>{r.status}</b></td>'
            f'<td style="padding:2px 8px;text-align:right">{_num(r.value)}</td>'
            f'<td style="padding:2px 8px">{bound}</td><td style="padding:2px 8px">{html.escape(r.unit)}</td>'
            f'<td style="padding:2px 8px;text-align:right">{r.samples}</td></tr>'
        )
    lines.append("</table>")
    return "\n".join(lines)


def failures_html(outcome: Outcome) -> str:
    """The failed checks with what to change, or a one-line all-clear."""
    if not outcome.failed:
        return "<p>Nothing to change: every check passes.</p>"
    items = "".join(
        f"<li><b>{html.escape(r.check)}</b>: {_num(r.value)} {html.escape(r.unit)} (needs {html.escape(r.relation)} "
        f"{_num(r.limit)}). {html.escape(r.fix)}</li>"
        for r in outcome.failed
    )
    return f"<ul>{items}</ul>"


#: The report kernel draws inline whatever the caller's environment says: a headless shell's ``MPLBACKEND=Agg``
#: would reach the kernel and leave the report without figures.
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"


def _kernel_env() -> dict:
    import os

    return dict(os.environ, MPLBACKEND=INLINE_BACKEND)


#: Arguments of the report kernel: its log shows errors only. Its one routine message, the warning that a local
#: kernel talks to this process over TCP without encryption, is noise on a report user's terminal; errors stay
#: visible, and a failing cell reaches the caller as papermill's or nbclient's exception in any case.
KERNEL_ARGS = ["--IPKernelApp.log_level=ERROR"]


def execute(
    family: str, param_file: str | Path, out_dir: str | Path, *, fast: bool = False, progress: bool = True
) -> Path:
    """Run the family's report notebook with papermill; returns the executed notebook's path."""
    import papermill as pm

    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    nb_out = out / "report.ipynb"
    import os
    from unittest import mock

    with mock.patch.dict(os.environ, _kernel_env()):  # papermill starts the kernel with this process's environment
        _papermill(pm, family, param_file, out, nb_out, fast, progress)
    return nb_out


def _papermill(pm, family, param_file, out, nb_out, fast, progress):
    pm.execute_notebook(
        str(report_notebook(family)),
        str(nb_out),
        parameters={"param_file": str(Path(param_file).resolve()), "out_dir": str(out), "fast": bool(fast)},
        kernel_name="python3",
        progress_bar=progress,
        cwd=str(REPORTS),
        log_output=False,
        report_mode=True,
        extra_arguments=list(KERNEL_ARGS),
    )


def execute_batch(jobs, *, fast: bool = True, progress: bool = False) -> list[Path]:
    """Run many reports in **one** kernel (the tests' fast mode): ``jobs`` is ``[(family, file, out_dir), ...]``.

    Each notebook is parameterised by papermill exactly as :func:`execute` does and executed by nbclient (the
    executor papermill itself uses) on a kernel started once, which saves the kernel start and the imports per
    report. Every report's parameters cell rebinds every name the notebook uses, so one report cannot leak into
    the next. Returns the HTML paths.
    """
    import nbformat
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient
    from papermill.iorw import load_notebook_node
    from papermill.parameterize import parameterize_notebook
    from tqdm.auto import tqdm

    km = KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(REPORTS), env=_kernel_env(), extra_arguments=list(KERNEL_ARGS))
    out = []
    try:
        for family, file, out_dir in tqdm(list(jobs), desc="reports", disable=not progress):
            od = Path(out_dir).resolve()
            od.mkdir(parents=True, exist_ok=True)
            nb = load_notebook_node(str(report_notebook(family)))
            nb = parameterize_notebook(
                nb, {"param_file": str(Path(file).resolve()), "out_dir": str(od), "fast": bool(fast)}, report_mode=True
            )
            NotebookClient(nb, km=km, timeout=600, resources={"metadata": {"path": str(REPORTS)}}).execute()
            nbformat.write(nb, str(od / "report.ipynb"))
            out.append(to_html(od / "report.ipynb", od / "report.html"))
    finally:
        km.shutdown_kernel(now=True)
    return out


def _mathjax_js() -> str:
    import importlib.util

    spec = importlib.util.find_spec("sphinx-mathjax-offline") or importlib.util.find_spec("sphinx_mathjax_offline")
    roots = [Path(spec.origin).parent] if spec and spec.origin else []
    import site

    roots += [Path(p) / "sphinx-mathjax-offline" for p in site.getsitepackages()]
    for root in roots:
        f = root / "static" / "mathjax" / "tex-svg.js"
        if f.is_file():
            return f.read_text(encoding="utf-8")
    raise FileNotFoundError("MathJax (tex-svg.js of sphinx-mathjax-offline) not found: install robokin[report]")


_MATHJAX_BLOCK = re.compile(r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->", re.S)


def _design_title(nb) -> str | None:
    """The design's name (``name`` of its parameter file, else the file's stem), for the page's ``<title>``."""
    file = nb.metadata.get("papermill", {}).get("parameters", {}).get("param_file")
    if not file:
        return None
    try:
        from . import load

        name = getattr(load(file), "name", None)
    except Exception:  # noqa: BLE001 - a title is never worth an error: fall back to the file's stem
        name = None
    return f"{name or Path(file).stem} - robokin design report"


def to_html(nb_path: str | Path, html_path: str | Path) -> Path:
    """Render an executed report notebook to one self-contained HTML file: code hidden, MathJax inlined.

    The page's ``<title>`` is the design's name (not nbconvert's default, the notebook's file name).
    """
    import nbformat
    from nbconvert import HTMLExporter

    nb = nbformat.read(str(nb_path), as_version=4)
    title = _design_title(nb)
    if title:
        nb.metadata["title"] = title
    exporter = HTMLExporter(template_name="lab")
    exporter.exclude_input = True
    exporter.exclude_input_prompt = True
    exporter.exclude_output_prompt = True
    body, _ = exporter.from_notebook_node(nb)
    config = (
        "<script>window.MathJax = {tex: {inlineMath: [['$', '$'], ['\\\\(', '\\\\)']], "
        "displayMath: [['$$', '$$'], ['\\\\[', '\\\\]']]}, svg: {fontCache: 'global'}};</script>"
    )
    inline = config + "\n<script>" + _mathjax_js().replace("</script", "<\\/script") + "</script>"
    # require.js (from a CDN) serves only widget outputs, which reports do not have
    body = body.replace(f'<script src="{exporter.require_js_url}"></script>', "")
    body, k = _MATHJAX_BLOCK.subn(lambda m: inline, body)
    if k != 1:
        raise RuntimeError("nbconvert's MathJax block not found: the template changed")
    Path(html_path).write_text(body, encoding="utf-8")
    return Path(html_path)


def figure_html(fig, alt: str) -> str:
    """A matplotlib figure as an embedded PNG ``<img>`` with its alt text; closes the figure.

    nbconvert writes a figure's ``<img>`` without ``alt``, so the report notebooks show their figures through this
    (``display(HTML(render.figure_html(fig, alt)))``): a screen reader then reads what the figure shows.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> tag = figure_html(plt.figure(figsize=(1, 1)), 'an empty "square"')
    >>> tag.startswith('<img src="data:image/png;base64,') and 'alt="an empty &quot;square&quot;"' in tag
    True
    >>> figure_html(plt.figure(), " ")
    Traceback (most recent call last):
    ...
    ValueError: alt must describe the figure (a non-empty text), got ' '
    """
    import base64
    import io

    import matplotlib.pyplot as plt

    if not isinstance(alt, str) or not alt.strip():
        plt.close(fig)
        raise ValueError(f"alt must describe the figure (a non-empty text), got {alt!r}")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return (
        f'<img src="data:image/png;base64,{data}" alt="{html.escape(alt.strip(), quote=True)}" style="max-width:100%">'
    )


def table_html(head: list[str], rows: list[list]) -> str:
    """A plain HTML table of a results table (as written to its CSV)."""
    th = "".join(f'<th style="border-bottom:1px solid #888;padding:2px 6px">{html.escape(str(h))}</th>' for h in head)
    body = "".join(
        "<tr>"
        + "".join(f'<td style="padding:2px 6px;text-align:right">{html.escape(str(x))}</td>' for x in r)
        + "</tr>"
        for r in rows
    )
    return f'<table style="border-collapse:collapse;font-size:0.85em"><tr>{th}</tr>{body}</table>'
