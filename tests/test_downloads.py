"""The results a reader can keep (issue 33): every chapter's glued values and output tables as CSV, the contest
tables as XLSX (book/_ext/robokin_downloads.py).

The unit tests need no build. The ``site`` tests (``make check-site``, after ``make book``) read the built
``_build/html`` and its Chinese edition: every chapter page links its files, every linked file exists and parses, and
the files hold what the chapter glued. Without a built site they skip, except under ``-m site`` (make check-site),
where a missing build fails.
"""

import csv
import doctest
import io
import json
import re
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))

import robokin_downloads as dl  # noqa: E402

HTML = ROOT / "_build" / "html"
EXECUTED = ROOT / "_build" / "jupyter_execute"

CONTEST_NB = {
    "cells": [
        {"cell_type": "markdown", "source": "# Chapter\n\n## Set-up"},
        {
            "cell_type": "code",
            "outputs": [
                {
                    "output_type": "display_data",
                    "metadata": {"scrapbook": {"name": "ch_a"}},
                    "data": {"text/plain": "0.25"},
                },
                {"output_type": "display_data", "data": {"text/html": "<table><tr><th>m</th></tr><tr><td>1</td></tr>"}},
            ],
        },
        {"cell_type": "markdown", "source": "## A contest problem: the answer table"},
        {
            "cell_type": "code",
            "outputs": [
                {
                    "output_type": "display_data",
                    "data": {
                        "text/markdown": "| waypoint | q1 (rad) | branch |\n|---|---|---|\n| 0 | 3.0 | left-up |\n"
                        "| 1 | -1.25e-3 | left-up |\n\n"
                        "|  | segment 1 | segment 2 |\n|---|---|---|\n| T (s) | 1.84 | 0.7 |\n"
                        "| max\\|qd1\\| (rad/s) | 0.54 | 0.88 |"
                    },
                }
            ],
        },
        {"cell_type": "markdown", "source": 'The margin is {eval}`glued("ch_a:.0%")` ({eval}`glued("ch_a")`).'},
        {"cell_type": "markdown", "source": "## Summary"},
    ]
}
GLUE = {"ch_b": {"data": {"text/plain": "'left-up-flip'"}}, "ch_a": {"data": {"text/plain": "99"}}}


def _csv(data):
    return list(csv.reader(io.StringIO(data.decode("utf-8"))))


def test_module_examples():
    assert doctest.testmod(dl).failed == 0


def test_results_csv_has_every_glued_value_once_in_order():
    files = dl.chapter_files("07_x", CONTEST_NB, GLUE)
    assert list(files) == ["07_x-results.csv", "07_x-table-1.csv", "07_x-table-2.csv", "07_x-table-3.csv",
                           "07_x-contest.xlsx"]  # fmt: skip
    rows = _csv(files["07_x-results.csv"])
    # the first record of a key wins (the cell's output, not the glue file's); a string loses its quotes; "shown as"
    # is what the page's text shows (each format the Markdown uses), blank for a value the text does not quote
    assert rows == [["key", "value", "shown as"], ["ch_a", "0.25", "25%; 0.25"], ["ch_b", "left-up-flip", ""]]
    assert _csv(files["07_x-table-1.csv"]) == [["m"], ["1"]]
    assert _csv(files["07_x-table-2.csv"])[0] == ["waypoint", "q1 (rad)", "branch"]


def test_transposed_table_is_written_one_row_per_segment():
    files = dl.chapter_files("c", CONTEST_NB)
    assert _csv(files["c-table-3.csv"]) == [
        ["segment", "T (s)", "max|qd1| (rad/s)"],
        ["1", "1.84", "0.54"],
        ["2", "0.7", "0.88"],
    ]


def test_contest_workbook_has_the_contest_tables_only_with_numbers_as_numbers():
    from openpyxl import load_workbook

    wb = load_workbook(io.BytesIO(dl.chapter_files("c", CONTEST_NB)["c-contest.xlsx"]))
    # the set-up table is not a contest table; the sheets are named as in the design report's workbook
    assert wb.sheetnames == ["waypoints", "segments"]
    ws = wb["waypoints"]
    assert [c.value for c in ws[1]] == ["waypoint", "q1 (rad)", "branch"]
    assert [c.value for c in ws[3]] == [1, -1.25e-3, "left-up"]
    assert ws["A1"].font.b and not ws["A2"].font.b
    assert wb["segments"]["B2"].value == 1.84


def test_files_are_byte_identical_from_the_same_run():
    a = dl.chapter_files("c", json.loads(json.dumps(CONTEST_NB)), GLUE)
    b = dl.chapter_files("c", json.loads(json.dumps(CONTEST_NB)), GLUE)
    assert a == b
    with zipfile.ZipFile(io.BytesIO(a["c-contest.xlsx"])) as z:
        assert {i.date_time for i in z.infolist()} == {dl.FIXED_DATE.timetuple()[:6]}
        core = z.read("docProps/core.xml").decode()
    assert core.count("2026-01-01T00:00:00Z") == 2, core


def test_changed_number_changes_the_file():
    nb = json.loads(json.dumps(CONTEST_NB))
    nb["cells"][3]["outputs"][0]["data"]["text/markdown"] = nb["cells"][3]["outputs"][0]["data"][
        "text/markdown"
    ].replace("3.0", "3.1")
    a, b = dl.chapter_files("c", CONTEST_NB), dl.chapter_files("c", nb)
    assert a["c-contest.xlsx"] != b["c-contest.xlsx"] and a["c-table-2.csv"] != b["c-table-2.csv"]
    assert a["c-table-3.csv"] == b["c-table-3.csv"]


def test_chapter_without_results_has_no_files():
    assert dl.chapter_files("c", {"cells": [{"cell_type": "markdown", "source": "text"}]}) == {}


def test_markdown_tables_need_their_delimiter_row():
    assert dl.markdown_tables("| a | b |\n| c | d |") == []
    assert dl.markdown_tables("| a |\n|:--:|\n| 1 |\ntext\n| b |\n|---|\n| 2 |") == [[["a"], ["1"]], [["b"], ["2"]]]


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: dl.csv_bytes([]), "rows must be a non-empty list"),
        (lambda: dl.csv_bytes("key,value"), "rows must be a non-empty list"),
        (lambda: dl.csv_bytes([["a"], "b"]), r"rows\[1\] must be a list"),
        (lambda: dl.csv_bytes([["a"], [None]]), r"rows\[1\] must be a list of str or numbers"),
        (lambda: dl.xlsx_bytes([]), "sheets must be a non-empty list"),
        (lambda: dl.xlsx_bytes([("s", [])]), r"sheets\[0\] rows must be a non-empty list"),
        (lambda: dl.xlsx_bytes([(1, [["a"]])]), r"sheets\[0\] must be a \(name, rows\) pair"),
        (lambda: dl.chapter_results({"cells": None}), "nb must be an executed notebook"),
        (lambda: dl.chapter_results([]), "nb must be an executed notebook"),
    ],
)
def test_bad_input_is_refused_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_sheet_names_are_legal_and_unique():
    from openpyxl import load_workbook

    data = dl.xlsx_bytes([("a/b:c", [["x"]]), ("A/B:C", [["y"]]), ("", [["z"]]), ("n" * 40, [["w"]])])
    names = load_workbook(io.BytesIO(data)).sheetnames
    assert len(set(n.lower() for n in names)) == 4 and all(len(n) <= 31 and not set(n) & set("[]:*?/\\") for n in names)


def test_every_label_has_its_chinese():
    zh = dl.labels("zh_CN")
    # Chinese words, or at least the full-width punctuation of a Chinese line
    assert set(zh) == set(dl.LABELS) and all(re.search(r"[\u4e00-\u9fff\uff00-\uffef]", v) for v in zh.values())
    assert "{name}" in zh["table"] and {"{heading}", "{cell}"} <= set(re.findall(r"\{\w+\}", zh["part"]))


# ---------------------------------------------------------------- the built site (make check-site, after make book)


def _chapters():
    return sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _links(page):
    return re.findall(r'<a class="[^"]*robokin-download[^"]*" href="([^"]+)"', page.read_text(encoding="utf-8"))


@pytest.fixture
def built(request):
    """Skip without a built site holding the downloads (a plain ``pytest``), but fail under ``-m site``."""
    if not (HTML / "downloads").is_dir() or not (HTML / "zh" / "downloads").is_dir():
        if "site" in (request.config.getoption("markexpr") or "").split():
            pytest.fail(f"{HTML} has no downloads/ in both editions: run `make book` first")
        pytest.skip(f"{HTML} has no downloads/ (no built site): `make check-site` builds it and runs this test")


@pytest.mark.site
@pytest.mark.parametrize("edition", ["", "zh"])
@pytest.mark.parametrize("chapter", _chapters())
def test_site_chapter_links_its_downloads_and_they_parse(built, edition, chapter):
    import html

    from openpyxl import load_workbook

    site = HTML / edition if edition else HTML
    page = site / "notebooks" / f"{chapter}.html"
    if not page.exists():
        pytest.fail(f"{page} missing: run `make book` first")
    links = _links(page)
    assert links, f"{page.name}: no Downloads line"
    assert any(h.endswith(f"{chapter}-results.csv") for h in links)
    text = page.read_text(encoding="utf-8")
    assert ("下载：" if edition else "Downloads:") in text
    for href in links:
        assert href.startswith("../downloads/"), href
        f = (page.parent / href).resolve()
        assert f.is_file(), f"{page.name} links {href}, which the site lacks"
        if f.suffix == ".csv":
            rows = _csv(f.read_bytes())
            assert len(rows) >= 2 and len({len(r) for r in rows}) == 1, f"{f.name}: ragged or empty"
        else:
            wb = load_workbook(f)
            assert wb.sheetnames and all(ws.max_row >= 2 for ws in wb.worksheets)
    # every glued value of the run is in the results file (but objects such as figures), as the run printed it, and
    # what the results file says the page shows is on the page
    rows = {r[0]: r[1:] for r in _csv((site / "downloads" / f"{chapter}-results.csv").read_bytes())[1:]}
    glue = EXECUTED / "notebooks" / f"{chapter}.glue.json"
    if glue.exists():
        values = {k for k, v in json.loads(glue.read_text(encoding="utf-8")).items() if dl._glue_text(v["data"])}
        assert values <= set(rows)
    shown = html.unescape(re.sub(r"<[^>]+>", "", text)).translate(str.maketrans("“”‘’", "\"\"''"))
    missing = [(k, s) for k, (_, v) in rows.items() for s in v.split("; ") if v and s not in shown]
    assert not missing, f"{page.name}: shown as, not on the page: {missing[:5]}"


@pytest.mark.site
def test_site_both_editions_hold_the_same_bytes_and_the_contest_workbook(built):
    files = sorted(p.name for p in (HTML / "downloads").iterdir())
    assert "06_arm_inverse_kinematics-contest.xlsx" in files
    for name in files:
        assert (HTML / "downloads" / name).read_bytes() == (HTML / "zh" / "downloads" / name).read_bytes(), name


def _glue_out(name, data):
    return {"output_type": "display_data", "metadata": {"scrapbook": {"name": name}}, "data": data}


def test_shown_as_formats_like_the_page_and_other_objects_are_left_out():
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "outputs": [
                    _glue_out("e", {"text/plain": "1.0386695978154054e-09"}),
                    _glue_out("p", {"text/plain": "0.004"}),
                    _glue_out("s", {"text/plain": "'left-up'"}),
                    _glue_out("eq", {"text/plain": "<IPython.core.display.Math object>", "text/latex": "$x = 1$\n"}),
                    _glue_out("fig", {"text/plain": "<Figure size 640x480 with 1 Axes>", "image/png": "iVBO"}),
                    _glue_out("n", {"text/plain": "nan"}),
                ],
            },
            {
                "cell_type": "markdown",
                "source": "```python\nglued('e:.9f')\n```\n"  # a code block's text is quoted too: harmless
                '{eval}`glued("e:.1e")`, {eval}`glued(\'p:.1%\')`, {eval}`glued("s")`, '
                '{eval}`glued("eq:.2f")`, {eval}`glued("n:.1f")`, {eval}`glued("p:d")`',
            },
        ]
    }
    rows = _csv(dl.chapter_files("c", nb)["c-results.csv"])
    assert rows == [
        ["key", "value", "shown as"],
        ["e", "1.0386695978154054e-09", "0.000000001; 1.0e-09"],
        ["p", "0.004", "0.4%"],  # ":d" cannot format a float: the page would fail, the file leaves it out
        ["s", "left-up", "left-up"],
        ["eq", "$x = 1$", ""],  # an equation as its LaTeX, not the object's repr
        ["n", "nan", "nan"],
    ]  # the figure is not a value: no row


def test_table_cells_lose_markdown_emphasis_but_not_maths_or_names():
    md = (
        "| $\\alpha_i$ (rad) | field_name | verdict |\n|---|---|---|\n"
        "| $a_{i-1}*b$ | free_speed | **stable** |\n| 2*3*4 | _x_ | 0.9 (*interpreted*, __assumed__) |"
    )
    assert dl.markdown_tables(md) == [
        [
            ["$\\alpha_i$ (rad)", "field_name", "verdict"],
            ["$a_{i-1}*b$", "free_speed", "stable"],
            ["2*3*4", "x", "0.9 (interpreted, assumed)"],
        ]
    ]


def test_headings_skip_fenced_code():
    assert dl.headings("# T\n~~~\n# no\n~~~\n````md\n```\n## no\n````\n### S #\n#no") == [(1, "T"), (3, "S")]


def _files():
    return dl.chapter_downloads("c", CONTEST_NB, GLUE)


def test_table_links_are_named_after_their_heading_or_first_header_cell():
    labels = dl.table_labels(_files(), dl.LABELS)
    # the set-up table is alone under its heading; the two contest tables share one: their first header cells
    assert labels == {
        "c-table-1.csv": "Set-up (CSV)",
        "c-table-2.csv": "waypoint (CSV)",
        "c-table-3.csv": "segment (CSV)",
    }
    # the page's titles (another edition's) replace the notebook's when there is one per notebook heading
    zh = dl.labels("zh_CN")
    titles = ["章", "准备", "一道竞赛题", "小结"]
    assert dl.table_labels(_files(), zh, titles, 4)["c-table-1.csv"] == "准备（CSV）"
    assert dl.table_labels(_files(), zh, titles[:3], 4)["c-table-1.csv"] == "Set-up（CSV）"  # not one per heading
    # two tables under one heading with the same first header cell: the heading and the table's number
    twin = [(n, b"name,value\n", (1, "Model")) for n in ("c-table-1.csv", "c-table-2.csv")]
    assert dl.table_labels(twin, dl.LABELS) == {"c-table-1.csv": "Model: 1 (CSV)", "c-table-2.csv": "Model: 2 (CSV)"}


def test_downloads_line_in_both_editions():
    en = dl.downloads_paragraph(_files(), dl.LABELS, "../").astext()
    assert en == (
        "Downloads: this chapter's results (CSV) · Set-up (CSV) · waypoint (CSV) · segment (CSV) · "
        "the contest tables (XLSX) (from the run that built this page)"
    )
    zh = dl.downloads_paragraph(_files(), dl.labels("zh_CN"), "../", ["章", "准备", "一道竞赛题", "小结"], 4).astext()
    # no ASCII space beside the full-width punctuation
    assert (
        zh
        == "下载：本章结果（CSV）·准备（CSV）·waypoint（CSV）·segment（CSV）·竞赛答题表（XLSX）（来自生成本页的那次运行）"
    )


def test_the_sphinx_hook_writes_the_files_and_names_links_from_the_page(tmp_path):
    from types import SimpleNamespace

    from docutils import nodes
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    run = tmp_path / "jupyter_execute"
    (run / "notebooks").mkdir(parents=True)
    (run / "notebooks" / "07_x.ipynb").write_text(json.dumps(CONTEST_NB), encoding="utf-8")
    doc = new_document("07_x", get_default_settings(Parser))
    Parser().parse("准\n==\n\n准备\n----\n\n竞赛\n----\n\n小结\n----\n\ntext\n", doc)
    out = tmp_path / "html" / "zh"
    (out / "downloads").mkdir(parents=True)
    (out / "downloads" / "07_x-table-9.csv").write_text("a table an earlier build had\n")
    (out / "downloads" / "08_y-table-9.csv").write_text("another chapter's\n")
    app = SimpleNamespace(
        builder=SimpleNamespace(format="html"),
        outdir=str(out),
        config=SimpleNamespace(language="zh_CN", robokin_exec_data=str(run / "exec_data.json")),
    )
    dl._add_downloads(app, doc, "notebooks/07_x")
    assert sorted(p.name for p in (out / "downloads").iterdir()) == sorted(
        [*dl.chapter_files("07_x", CONTEST_NB), "08_y-table-9.csv"]
    )
    (para,) = [p for p in doc.findall(nodes.paragraph) if "robokin-downloads" in p["classes"]]
    assert para.parent[0].astext() == "小结"  # in the Summary section
    refs = [r for r in para.findall(nodes.reference)]
    assert [r["refuri"] for r in refs][:2] == ["../downloads/07_x-results.csv", "../downloads/07_x-table-1.csv"]
    assert refs[1].astext() == "准备（CSV）"


def test_markdown_cell_tables_are_downloaded_with_their_quoted_numbers_as_shown():
    # chapter 10 keeps its result tables in Markdown cells, the numbers quoted by {eval}`glued(...)`: they are tables
    # of the page like a code cell's output, in page order, under their heading, each number as the page shows it
    nb = {
        "cells": [
            {"cell_type": "markdown", "source": "# Chapter\n\n## Runs"},
            {
                "cell_type": "code",
                "outputs": [
                    {
                        "output_type": "display_data",
                        "metadata": {"scrapbook": {"name": "k_a"}},
                        "data": {"text/plain": "0.125"},
                    },
                    {"output_type": "display_data", "data": {"text/markdown": "| code |\n|---|\n| 1 |"}},
                ],
            },
            {
                "cell_type": "markdown",
                "source": 'Text.\n\n| run | error (mm) | see |\n|---|---|---|\n| **a** | {eval}`glued("k_a:.2f")` | {eq}`eq-x` |\n'
                '| b | {eval}`glued("k_b:.0%")` ({eval}`glued("k_a")`) | none |\n\n'
                "```python\n| not | a table |\n|---|---|\n| 1 | 2 |\n```\n\n## Later\n\n| x |\n|---|\n| 2 |",
            },
        ]
    }
    values, tables = dl.chapter_results(nb, {"k_b": {"data": {"text/plain": "0.5"}}})
    assert [v[0] for v in values] == ["k_a", "k_b"]
    assert [(rows, heading) for rows, _, heading in tables] == [
        ([["code"], ["1"]], (1, "Runs")),
        ([["run", "error (mm)", "see"], ["a", "0.12", "eq-x"], ["b", "50% (0.125)", "none"]], (1, "Runs")),
        ([["x"], ["2"]], (2, "Later")),
    ]
    files = dl.chapter_files("c", nb, {"k_b": {"data": {"text/plain": "0.5"}}})
    assert _csv(files["c-table-2.csv"])[2] == ["b", "50% (0.125)", "none"] and "c-table-4.csv" not in files
    # a key the run does not have stays as its glued(...) call (the strict build fails on it), never a guessed number
    assert dl.chapter_results(nb)[1][1][0][2][1] == 'glued("k_b:.0%") (0.125)'


def test_chapter_10_markdown_tables_are_in_its_downloads():
    # the source notebook (no outputs): its four Markdown tables are found, each under its own heading
    nb = json.loads((ROOT / "notebooks" / "10_stewart_dynamics.ipynb").read_text(encoding="utf-8"))
    _, tables = dl.chapter_results(nb)
    heads = [h[1] for _, _, h in tables]
    assert len(tables) >= 4 and "Model and conventions" in heads
    assert all(len(r) == len(rows[0]) for rows, _, _ in tables for r in rows)  # rectangular


def test_emphasis_around_a_quoted_number_is_dropped_and_colon_fences_are_literal():
    # review of ch10: `| **{eval}`glued("x:.2f")`** |` exported "**0.12**"; a `:::{code-block}` hid no table
    nb = {
        "cells": [
            {"cell_type": "markdown", "source": "## Runs"},
            {
                "cell_type": "code",
                "outputs": [
                    {
                        "output_type": "display_data",
                        "metadata": {"scrapbook": {"name": "x"}},
                        "data": {"text/plain": "0.125"},
                    }
                ],
            },
            {
                "cell_type": "markdown",
                "source": '| a | b |\n|---|---|\n| **{eval}`glued("x:.2f")`** | _{eval}`glued("x:.0%")`_ ({eq}`eq-a`) |\n\n'
                ":::{code-block} md\n| not | a table |\n|---|---|\n| 1 | 2 |\n:::\n\n"
                ":::{note}\n| kept |\n|---|\n| 3 |\n:::",
            },
        ]
    }
    _, tables = dl.chapter_results(nb)
    assert [rows for rows, _, _ in tables] == [[["a", "b"], ["0.12", "12% (eq-a)"]], [["kept"], ["3"]]]
    assert dl.headings(":::{code-block} md\n# no\n:::\n## yes") == [(2, "yes")]
