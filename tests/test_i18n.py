"""The Chinese edition's catalogues (locales/zh_CN) and its language switch (book/_ext/robokin_i18n.py).

Every page of the table of contents that is not listed in ``locales/zh_CN/pending.txt`` must be translated: no
empty or fuzzy message, maths/code/glue roles carried over unchanged, no English prose left, and the glossary's
Chinese for its core terms (``tools/i18n.py``). The planted-failure tests show that each rule can fail.
"""

import json
import posixpath
import re
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "book" / "_ext"))

import i18n  # noqa: E402
import robokin_i18n  # noqa: E402

DONE = [d for d in i18n.toc_docs() if d not in i18n.pending_docs()]


@pytest.mark.parametrize("doc", DONE)
def test_translated_page_is_complete(doc):
    po = i18n.PO_DIR / f"{doc}.po"
    assert po.exists(), f"{doc} is not in locales/zh_CN/pending.txt, so it needs {po.relative_to(ROOT)}"
    findings = i18n.check_messages(doc, i18n.read_catalog(po), terms=i18n.core_terms())
    assert not findings, "\n".join(map(str, findings))


def test_pending_list_is_current():
    """Listed pages exist and are really unfinished: a finished page must leave the list (it only shrinks)."""
    findings = [f for f in i18n.check() if f.kind in ("pending-complete", "unknown-pending")]
    assert not findings, "\n".join(map(str, findings))


def test_catalogues_match_the_english_source(tmp_path):
    """Fresh gettext templates: an English sentence added or changed without `tools/i18n.py update` fails here."""
    i18n.extract(tmp_path / "pot")
    findings = i18n.check(pot_dir=tmp_path / "pot")
    assert not findings, "\n".join(map(str, findings))


def test_core_terms_are_the_glossary_s():
    terms = i18n.glossary_terms()
    for en, zh in i18n.CORE_TERMS.items():
        assert zh in terms[en], (en, zh, terms.get(en))


# ---------------------------------------------------------------- the checker can fail

PLANTED = """\
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "Forward kinematics of the five-bar."
msgstr "五连杆的正运动学。"

msgid "The largest residual is {glue:text}`ch3_res:.1e` m."
msgstr ""

#, fuzzy
msgid "The Jacobian loses rank."
msgstr "雅可比矩阵降秩。"

msgid "The residual is {glue:text}`ch3_res:.1e` at $q_0$."
msgstr "残差在 $q_1$ 处为 {glue:text}`ch3_res:.2e`。"

msgid "Near a singularity the solver slows down."
msgstr "在奇点附近求解器变慢。"

msgid "This sentence was copied, not translated."
msgstr "This sentence was copied, not translated."
"""


def _planted(tmp_path, text=PLANTED, pending=""):
    po = tmp_path / "po" / "book" / "page.po"
    po.parent.mkdir(parents=True)
    po.write_text(text, encoding="utf-8")
    (tmp_path / "pending.txt").write_text(pending, encoding="utf-8")
    return i18n.check(po_dir=tmp_path / "po", pending_file=tmp_path / "pending.txt", docs=["book/page"])


def test_planted_catalogue_fails_with_every_problem_listed(tmp_path):
    findings = _planted(tmp_path)
    got = {(f.kind, f.msgid.split()[1]) for f in findings}
    assert got == {
        ("untranslated", "largest"),
        ("fuzzy", "Jacobian"),
        ("markup", "residual"),  # $q_0$ became $q_1$, .1e became .2e
        ("term", "a"),  # singularity -> 奇点 instead of the glossary's 奇异位形
        ("english", "sentence"),
    }, "\n".join(map(str, findings))
    assert "ch3_res:.2e" in next(str(f) for f in findings if f.kind == "markup")
    assert i18n.report(findings) == 1


def test_planted_missing_message_fails(tmp_path):
    """A message of the English source absent from the .po (update not run) is reported."""
    po = tmp_path / "page.po"
    po.write_text(PLANTED, encoding="utf-8")
    findings = i18n.check_messages("book/page", i18n.read_catalog(po), pot_ids={"A new English sentence."})
    assert [f.kind for f in findings if f.msgid == "A new English sentence."] == ["missing"]


def test_pending_page_may_be_incomplete_until_it_is_done(tmp_path):
    assert _planted(tmp_path, pending="book/page  # not yet\n") == []
    done = textwrap.dedent("""\
        msgid "Forward kinematics of the five-bar."
        msgstr "五连杆的正运动学。"
        """)
    findings = _planted(tmp_path / "2", text=done, pending="book/page\n")
    assert [f.kind for f in findings] == ["pending-complete"]


def test_complete_ignores_the_pending_list(tmp_path):
    _planted(tmp_path, pending="book/page\n")
    findings = i18n.check(
        complete=True, po_dir=tmp_path / "po", pending_file=tmp_path / "pending.txt", docs=["book/page"]
    )
    assert "untranslated" in {f.kind for f in findings}


def test_glossary_drift_is_reported(tmp_path):
    glossary = tmp_path / "glossary.md"
    text = i18n.GLOSSARY.read_text(encoding="utf-8").replace("| 雅可比矩阵 |", "| 雅克比矩阵 |")
    glossary.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match="Jacobian"):
        i18n.core_terms(glossary)


@pytest.mark.parametrize(
    ("text", "prose"),
    [
        ("用 `robokin.checks.check_jacobian` 检验 $J(q) = \\partial f / \\partial q$。", []),
        ("见 {doc}`the conventions page <conventions>`。", []),
        ("Jupyter Book 2（mystmd）无法离线构建。", []),
        ("该函数 returns the joint angles 并检验。", ["returns the joint angles"]),
    ],
)
def test_english_prose_detector(text, prose):
    assert i18n.english_prose(text) == prose


# ---------------------------------------------------------------- language switch


def _resolve(pagename, href):
    return posixpath.normpath(posixpath.join(posixpath.dirname(pagename), href))


PAGES = [*i18n.toc_docs(), "genindex", "search"]


@pytest.mark.parametrize("page", PAGES)
def test_switch_leads_to_the_same_page_and_back(page):
    to_zh = _resolve(page, robokin_i18n.switch_href(page, "en"))
    assert to_zh == f"zh/{page}.html"
    # from the Chinese page, which sits under zh/
    back = _resolve(f"zh/{page}", robokin_i18n.switch_href(page, "zh_CN"))
    assert back == f"{page}.html"


def test_unknown_language_is_an_error():
    with pytest.raises(ValueError, match="fr"):
        robokin_i18n.other_edition("fr")


def test_interface_strings_still_exist_in_their_source():
    """The strings UI_ZH translates are written by robokin_site and myst-nb; a change there must show up here."""
    from myst_nb.ext import execution_tables

    sources = (ROOT / "book" / "_ext" / "robokin_site.py").read_text(encoding="utf-8")
    headers = {"Document", *execution_tables._key2header.values()}
    missing = [s for s in robokin_i18n.UI_ZH if s not in sources and s not in headers]
    assert not missing, f"UI_ZH strings no longer written anywhere: {missing}"


# ---------------------------------------------------------------- the build's copy of the catalogues


def test_build_copy_names_the_notebook_of_each_glued_number(tmp_path, monkeypatch):
    """Sphinx parses a translated message on its own, where a plain glue role finds no data: the build's copy
    names the notebook (myst-nb then reads the English run's glue data). The committed .po stays as written."""
    doc = "notebooks/03_five_bar_leg"
    po = tmp_path / "po" / f"{doc}.po"
    po.parent.mkdir(parents=True)
    po.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "A {glue:text}`ch3_a:.1e` and {glue}`ch3_b` and {eval}`glued(\\"ch3_c:.0f\\")`."\n'
        'msgstr "甲 {glue:text}`ch3_a:.1e`，乙 {glue}`ch3_b`，丙 {glue:text}`ch3_d`，丁 {eval}`glued(\\"ch3_c:.0f\\")`。"\n',
        encoding="utf-8",
    )
    before = po.read_text(encoding="utf-8")
    monkeypatch.setattr(i18n, "PO_DIR", tmp_path / "po")
    i18n._write_catalogs(tmp_path / "out", [doc])
    (msg,) = i18n.read_catalog(tmp_path / "out" / "zh_CN" / "LC_MESSAGES" / f"{doc}.po")
    nb = f"/{doc}.ipynb::"
    assert msg[1] == (
        f"甲 {{glue:text}}`{nb}ch3_a:.1e`，乙 {{glue}}`{nb}ch3_b`，丙 {{glue:text}}`{nb}ch3_d:s`，"
        f"丁 {{glue:text}}`{nb}ch3_c:.0f`。"
    )
    # the Chinese build executes nothing: {eval} reads the glue data, in the notebook and in the msgid alike
    assert msg[0] == "A {glue:text}`ch3_a:.1e` and {glue}`ch3_b` and {glue:text}`ch3_c:.0f`."
    assert po.read_text(encoding="utf-8") == before


def test_executed_notebook_gets_its_hidden_glue_back(tmp_path, monkeypatch):
    """myst-nb moves hidden glue outputs to <doc>.glue.json; the Chinese build's notebook has them again."""
    import json

    import nbformat
    from myst_nb.ext.glue import extract_glue_data

    md = nbformat.v4.new_markdown_cell('# x\n\nIt is {eval}`glued("k:.1f")`.')
    nb = nbformat.v4.new_notebook(cells=[md, nbformat.v4.new_code_cell("1")])
    (tmp_path / "notebooks").mkdir()
    nbformat.write(nb, tmp_path / "notebooks" / "x.ipynb")
    glue = {
        "k": {
            "output_type": "display_data",
            "data": {"text/plain": "0.25"},
            "metadata": {"scrapbook": {"name": "k", "mime_prefix": "application/papermill.record/"}},
        }
    }
    (tmp_path / "notebooks" / "x.glue.json").write_text(json.dumps(glue), encoding="utf-8")
    monkeypatch.setattr(i18n, "EXECUTED", tmp_path)
    rebuilt = i18n._executed_notebook("notebooks/x")
    data = extract_glue_data(rebuilt, [1, 2], None)
    assert data["k"]["data"] == {"text/plain": "0.25"}
    assert rebuilt.cells[1].outputs == []  # hidden again: nothing shown in the cell
    assert rebuilt.cells[0].source == "# x\n\nIt is {glue:text}`k:.1f`."


def test_terms_are_looked_for_in_prose_only(tmp_path):
    """An index such as a_{ik} in maths is not "IK", and an equation kept verbatim has no prose to translate; a
    prose IK still needs its glossary term."""
    text = textwrap.dedent("""\
        msgid "The series $\\\\tfrac{a_{ik}}{k}$ excites the arm."
        msgstr "级数 $\\\\tfrac{a_{ik}}{k}$ 激励机械臂。"

        msgid "\\\\min_x \\\\| \\\\mathrm{FK}(x) - p \\\\|^2"
        msgstr "\\\\min_x \\\\| \\\\mathrm{FK}(x) - p \\\\|^2"

        msgid "The IK of the arm."
        msgstr "机械臂的解。"
        """)
    findings = _planted(tmp_path, text=text)
    assert [(f.kind, f.msgid) for f in findings] == [("term", "The IK of the arm.")], findings


def test_a_fuzzy_header_fails_and_update_clears_it(tmp_path):
    """sphinx-intl marks a new catalogue's header fuzzy; the edition allows no fuzzy entry at all."""
    text = textwrap.dedent("""\
        #, fuzzy
        msgid ""
        msgstr ""
        "Content-Type: text/plain; charset=UTF-8\\n"

        msgid "Forward kinematics of the five-bar."
        msgstr "五连杆的正运动学。"
        """)
    findings = _planted(tmp_path, text=text)
    assert [(f.kind, f.msgid) for f in findings] == [("fuzzy", "")]
    po = tmp_path / "po" / "book" / "page.po"
    assert i18n.clear_header_fuzzy(po) and not i18n.header_fuzzy(po)
    assert _planted(tmp_path / "2", text=po.read_text(encoding="utf-8")) == []
    assert i18n.read_catalog(po) == [("Forward kinematics of the five-bar.", "五连杆的正运动学。", False)]


def test_clearing_the_header_keeps_a_long_messages_fuzzy_mark(tmp_path):
    """A wrapped message also opens with `msgid ""`: only the header's mark may go, or changed English slips through."""
    text = textwrap.dedent("""\
        msgid ""
        msgstr ""
        "Content-Type: text/plain; charset=UTF-8\\n"

        #, fuzzy
        msgid ""
        "Forward kinematics of the five-bar, "
        "now with a second clause."
        msgstr "五连杆的正运动学。"
        """)
    po = tmp_path / "page.po"
    po.write_text(text, encoding="utf-8")
    assert not i18n.header_fuzzy(po)
    assert not i18n.clear_header_fuzzy(po) and po.read_text(encoding="utf-8") == text
    findings = _planted(tmp_path / "2", text=text)
    assert [f.kind for f in findings] == ["fuzzy"], findings


# (opening, its escaped form as written in a .po file, where a backslash is doubled)
@pytest.mark.parametrize("start,escaped", [("1. ", "1\\\\. "), ("2) ", "2\\\\) "), ("- ", "\\\\- "), ("# ", "\\\\# ")])
def test_a_translation_opening_with_a_block_marker_fails(tmp_path, start, escaped):
    """`1. 时间步长过大` for a heading `1. Timestep too large` is read as a list item and Sphinx keeps the English."""
    text = 'msgid "1. Timestep too large"\nmsgstr "{}时间步长过大"\n'
    findings = _planted(tmp_path, text=text.format(start))
    assert [(f.kind, f.msgid) for f in findings] == [("markup", "1. Timestep too large")], findings
    assert _planted(tmp_path / "ok", text=text.format(escaped)) == []


def test_no_committed_catalogue_has_a_fuzzy_mark():
    assert not [p for p in i18n.PO_DIR.rglob("*.po") if "#, fuzzy" in p.read_text(encoding="utf-8")]


def test_update_of_named_pages_refuses_an_unknown_page(tmp_path):
    (tmp_path / "pot").mkdir()
    with pytest.raises(SystemExit, match="not pages of _toc.yml: notebooks/99_nope"):
        i18n.update(tmp_path / "pot", ["notebooks/99_nope"])


# ---------------------------------------------------------------- display equations, streams, search words


@pytest.mark.parametrize("doc", [d for d in i18n.toc_docs() if (i18n.PO_DIR / f"{d}.po").exists()])
def test_display_equations_keep_their_tex(doc):
    """Every display equation of every catalogue (pending pages too): the msgstr is the msgid's TeX, only the
    contents of \\text{} translated. Anything else (a literal \\n, a changed symbol) rendered as "::" on the page."""
    equations = i18n.page_equations(doc)
    messages = {m.strip(): s for m, s, _ in i18n.read_catalog(i18n.PO_DIR / f"{doc}.po")}
    assert equations <= set(messages), f"equations without a message: {sorted(equations - set(messages))[:2]}"
    bad = [
        f"{tex[:70]!r}: {i18n._first_difference(i18n.tex_skeleton(tex), i18n.tex_skeleton(messages[tex]))}"
        for tex in sorted(equations)
        if messages[tex].strip() and i18n.tex_skeleton(tex) != i18n.tex_skeleton(messages[tex])
    ]
    assert not bad, "\n".join(bad)


def test_the_chapters_have_display_equations():
    n = sum(len(i18n.page_equations(d)) for d in i18n.toc_docs())
    assert n > 80, f"only {n} display equations found: is the parser still reading {{math}} blocks?"


EQ_MD = "Text.\n\n```{math}\n:label: eq-x\nd = \\begin{cases} 0 & \\text{if they cross,}\\\\\n1 & \\text{else}\\end{cases}\n```\n"
EQ_EN = "d = \\begin{cases} 0 & \\text{if they cross,}\\\\\n1 & \\text{else}\\end{cases}"


@pytest.mark.parametrize(
    ("msgstr", "kinds"),
    [
        (EQ_EN.replace("if they cross,", "若相交，").replace("else", "否则"), set()),
        (EQ_EN.replace("\\\\\n", "\\\\\\n"), {"maths"}),  # a literal \n for the newline (eq-ch10-blend)
        (EQ_EN.replace("0 &", "1 &"), {"maths"}),
    ],
)
def test_a_display_equation_may_translate_only_its_text(msgstr, kinds):
    (equation,) = i18n.display_equations(EQ_MD)
    assert equation == EQ_EN
    found = i18n.check_messages("book/page", [(EQ_EN, msgstr, False)], equations={EQ_EN})
    assert {f.kind for f in found} == kinds, "\n".join(map(str, found))


def test_build_puts_translated_equations_into_the_page(tmp_path):
    """Sphinx shows a translated equation as "::": the build writes the Chinese TeX into its copy of the page."""
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "page.md").write_text(EQ_MD, encoding="utf-8")
    zh = EQ_EN.replace("if they cross,", "若相交，")
    po = tmp_path / "po" / "book" / "page.po"
    po.parent.mkdir(parents=True)
    po.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        f"msgid {json.dumps(EQ_EN, ensure_ascii=False)}\nmsgstr {json.dumps(zh, ensure_ascii=False)}\n",
        encoding="utf-8",
    )
    equations = i18n.translated_equations("book/page", po_dir=tmp_path / "po", root=tmp_path)
    assert equations == {EQ_EN: zh}
    (text,) = i18n._put_equations([EQ_MD], equations, "book/page")
    assert zh in text and EQ_EN not in text
    with pytest.raises(SystemExit, match="not in the page source"):
        i18n._put_equations(["no equation here"], equations, "book/page")


def test_streams_merged_once_not_twice():
    """myst-nb merges streams in place and saves the notebook so; the Chinese build must show what English showed."""
    import copy

    import nbformat
    from myst_nb.core.utils import coalesce_streams

    outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="line 1\n"),
        nbformat.v4.new_output("stream", name="stdout", text="line 2\n"),
        nbformat.v4.new_output("display_data", data={"text/plain": "x"}),
        nbformat.v4.new_output("stream", name="stdout", text="line 3\n"),
        nbformat.v4.new_output("stream", name="stderr", text="warn\n"),
    ]
    saved = copy.deepcopy(outputs)
    english = coalesce_streams(saved)  # what the English page shows; `saved` is now the notebook myst-nb writes
    shown = [o.get("text") for o in english]
    assert [o.get("text") for o in coalesce_streams(copy.deepcopy(saved))] != shown  # the bug: merged twice
    assert [o.get("text") for o in coalesce_streams(i18n.unmerge_saved_streams(copy.deepcopy(saved)))] == shown
    # streams that were never merged are left for the build to merge
    assert i18n.unmerge_saved_streams(copy.deepcopy(outputs)) == outputs


def test_search_dictionary_has_the_glossary_words():
    words = set(i18n.search_words())
    assert {"雅可比", "雅可比矩阵", "奇异位形", "五连杆", "逆运动学", "工作空间"} <= words
    assert not any(re.search(r"[A-Za-z]", w) and not re.search(r"[\u4e00-\u9fff]", w) for w in words)


# ---------------------------------------------------------------- figures (locales/zh_CN/figures.po)


def _figure_svg():
    """A chapter-like figure as robokin.nb shows it: plain, rotated, multi-line and maths texts."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from robokin.nb import svg_figure

    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1], [0, 1], label="foot path")
    ax.set_xlabel(r"joint angle $\theta_1$ (rad)")
    ax.set_ylabel("leg length (m)")
    ax.set_title("two\nlines")
    ax.legend()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "test"}):
        svg = svg_figure(fig)
    plt.close(fig)
    return svg


FIGURE_ZH = {
    "foot path": "足端轨迹",
    r"joint angle $\theta_1$ (rad)": r"关节角 $\theta_1$ (rad)",
    "leg length (m)": "腿长 (m)",
    "two\nlines": "两\n行",
}


def test_figure_texts_are_found_as_written():
    texts = i18n.svg_texts(_figure_svg())
    assert set(FIGURE_ZH) <= set(texts)
    assert {t for t in texts if i18n.figure_needs_translation(t)} == set(FIGURE_ZH)  # ticks are numbers


def test_figure_translation_keeps_everything_but_the_text():
    svg = _figure_svg()
    zh, missing = i18n.translate_svg(svg, FIGURE_ZH)
    assert not missing
    assert i18n.svg_skeleton(zh) == i18n.svg_skeleton(svg)
    assert set(FIGURE_ZH.values()) <= set(i18n.svg_texts(zh))  # maths texts included (their comment)
    assert "Noto Sans CJK SC" in zh and "foot path" not in zh
    # the maths is matplotlib's: the subscript glyph of theta_1 is still there, set by mathtext
    assert "θ</tspan>" in zh and "1</tspan>" in zh
    # a real difference (a changed curve) is not hidden by the comparison modulo texts
    assert i18n.svg_skeleton(zh.replace('d="M', 'd="M 1 1 L', 1)) != i18n.svg_skeleton(svg)


def test_figure_text_without_translation_is_reported():
    partial = dict(FIGURE_ZH)
    del partial["leg length (m)"]
    _, missing = i18n.translate_svg(_figure_svg(), partial)
    assert missing == ["leg length (m)"]
    # a translation with another number of lines cannot be placed
    _, missing = i18n.translate_svg(_figure_svg(), {**FIGURE_ZH, "two\nlines": "两行"})
    assert missing == ["two\nlines"]


def test_rotated_figure_text_is_anchored_where_matplotlib_anchored_it():
    """A rotated label is written from its English start: its translation is centred on the English centre."""
    zh, _ = i18n.translate_svg(_figure_svg(), FIGURE_ZH)
    (line,) = [t for t in zh.splitlines() if "腿长" in t]
    assert "text-anchor: middle" in line and re.search(r' x="[1-9][\d.]*"', line), line


@pytest.mark.parametrize(
    "text, needed",
    [
        ("t (s)", False),
        ("−0.5", False),
        (r"$\theta_2$ (rad)", False),
        ("1e-3", False),
        ("q_des", False),
        ("UR5", False),
        ("foot path", True),
        (r"leg angle $\theta$ (deg)", True),
        ("x (m)", False),
    ],
)
def test_which_figure_texts_need_a_translation(text, needed):
    assert i18n.figure_needs_translation(text) is needed


def test_figure_catalogue_problems_are_found(tmp_path):
    po = tmp_path / "figures.po"
    po.write_text(
        textwrap.dedent(
            r"""
            msgid "foot path"
            msgstr ""

            msgid "joint angle $\\theta_1$ (rad)"
            msgstr "关节角 $\\theta$ (rad)"

            msgid "two\nlines"
            msgstr "两行"

            msgid "Jacobian condition"
            msgstr "条件数"

            msgid "leg length (m)"
            msgstr "leg length"
            """
        ),
        encoding="utf-8",
    )
    kinds = sorted(f.kind for f in i18n.check_figure_catalog(po, terms=i18n.core_terms()))
    assert kinds == ["english", "markup", "maths", "term", "untranslated"], kinds


def test_committed_figure_catalogue_is_complete():
    """Every figure text in figures.po is translated (build-zh also fails on a figure text that is not in it)."""
    findings = i18n.check_figure_catalog(terms=i18n.core_terms())
    assert not findings, "\n".join(map(str, findings[:20]))


def test_figure_catalogue_is_filled_from_the_executed_notebooks(tmp_path):
    import nbformat

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("plot()")
    cell.outputs = [nbformat.v4.new_output("display_data", data={"image/svg+xml": _figure_svg(), "text/plain": "x"})]
    nb.cells = [cell]
    (tmp_path / "ex" / "notebooks").mkdir(parents=True)
    nbformat.write(nb, tmp_path / "ex" / "notebooks" / "02_two_link_leg.ipynb")
    po = tmp_path / "figures.po"
    po.write_text('msgid "foot path"\nmsgstr "足端轨迹"\n\nmsgid "gone"\nmsgstr "旧"\n', encoding="utf-8")
    assert i18n.update_figures(tmp_path / "ex", po, docs=["notebooks/02_two_link_leg"]) == 4
    got = {m: s for m, s, _ in i18n.read_catalog(po)}
    want = {t: ("足端轨迹" if t == "foot path" else "") for t in FIGURE_ZH}
    assert got == {**want, "gone": "旧"}  # a translated text this run did not show stays (figures --prune drops it)
    i18n.update_figures(tmp_path / "ex", po, docs=["notebooks/02_two_link_leg"], prune=True)
    assert {m: s for m, s, _ in i18n.read_catalog(po)} == want
    missing = i18n.translate_notebook_figures(nb, {"foot path": "足端轨迹"})
    assert sorted(missing) == sorted(set(FIGURE_ZH) - {"foot path"})
    assert "足端轨迹" in nb.cells[0].outputs[0]["data"]["image/svg+xml"]


def test_figure_captions_come_from_the_figure_catalogue():
    """A code cell's figure caption (``mystnb.figure.caption``) is not in the page's catalogue (the cell has no figure
    until it runs): figures.po holds it, and build-zh puts the translation into the cell."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    cap = "Condition number of the Jacobian over the reachable targets."
    nb.cells = [nbformat.v4.new_code_cell("plot()", metadata={"mystnb": {"figure": {"caption": cap, "name": "f"}}})]
    assert i18n.notebook_captions(nb) == [cap]
    assert i18n.translate_captions(nb, {}) == [cap]
    assert not i18n.translate_captions(nb, {cap: "可达目标上雅可比矩阵的条件数。"})
    assert nb.cells[0].metadata["mystnb"]["figure"]["caption"] == "可达目标上雅可比矩阵的条件数。"


def test_alt_texts_come_from_the_figure_catalogue():
    """An image's alt text (``mystnb.image.alt``, written from book/alt_text.toml) is cell metadata that gettext never
    sees: figures.po holds it, build-zh puts the translation into the cell, and a missing one is reported."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    alt = "Foot error against the depth of the target below the hip: zero up to the reach limit near 0.394 m."
    meta = {"mystnb": {"image": {"alt": alt}}}
    nb.cells = [nbformat.v4.new_code_cell("plot()", metadata=meta), nbformat.v4.new_code_cell("x = 1")]
    assert i18n.notebook_alt_texts(nb) == [alt]
    assert i18n.translate_alt_texts(nb, {}) == [alt]
    # exact msgid: a typed number stays in the text (no {} placeholders as for the run's numbers in figure texts)
    assert i18n.translate_alt_texts(nb, {alt.replace("0.394", "0.4"): "足端误差"}) == [alt]
    assert not i18n.translate_alt_texts(nb, {alt: "足端误差随目标深度的变化：约 0.394 m 的可达极限之前为零。"})
    assert nb.cells[0].metadata["mystnb"]["image"]["alt"].startswith("足端误差")


def test_every_chapter_alt_text_has_a_translation():
    """Each alt text of the chapters (source notebooks: nb_meta writes them there) is translated in figures.po."""
    import nbformat

    catalog = i18n.read_figure_catalog()
    missing = []
    for doc in i18n.toc_docs():
        path = i18n.ROOT / f"{doc}.ipynb"
        if path.exists():
            nb = nbformat.read(path, as_version=4)
            missing += [f"{doc}: {a[:60]}" for a in i18n.notebook_alt_texts(nb) if not catalog.get(a)]
    assert not missing, "run tools/i18n.py figures (after make book) and translate:\n" + "\n".join(missing)


def test_alt_texts_of_html_outputs_come_from_the_figure_catalogue():
    """An image in an HTML output (``robokin.render.image_html``: the MuJoCo renders) has its alt in the output,
    not in metadata: build-zh translates it there too, escaped, and reports it when figures.po lacks it."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("show()")
    html_out = '<div><img src="data:image/png;base64,AA" alt="The leg &amp; its wheel" loading="lazy"></div>'
    cell.outputs = [nbformat.v4.new_output("display_data", data={"text/html": html_out, "text/plain": "x"})]
    nb.cells = [cell]
    assert i18n.notebook_alt_texts(nb) == ["The leg & its wheel"]
    assert i18n.translate_alt_texts(nb, {}) == ["The leg & its wheel"]
    assert "The leg &amp; its wheel" in nb.cells[0].outputs[0]["data"]["text/html"]  # untouched when missing
    assert not i18n.translate_alt_texts(nb, {"The leg & its wheel": "腿与“轮子”"})
    assert 'alt="腿与“轮子”"' in nb.cells[0].outputs[0]["data"]["text/html"]


# ---------------------------------------------------------------- outputs (locales/zh_CN/outputs.po)

#: the committed catalogue's translations (what the Chinese pages show)
OUTPUT_ZH = i18n.read_output_catalog()


def _check_lines():
    """Check lines as robokin.checks prints them: a pass with a unit and a worst index, a relative fail."""
    import numpy as np

    from robokin import checks

    ok = checks.check_close("fk: package vs sympy", np.zeros(3), np.full(3, 2.5e-13), tol=1e-12, unit="m")
    bad = checks.check_errors(
        "jacobian: package vs sympy (relative)", np.array([0.0, 3e-3]), tol=1e-3, raise_on_fail=False
    )
    return str(ok), str(bad)


def test_check_lines_keep_their_form():
    """robokin.checks.CheckReport prints the line tools/i18n.py translates: a change of its wording must show here."""
    ok, bad = _check_lines()
    m = i18n._CHECK_LINE.match(ok)
    assert m and (m["name"], m["error"], m["unit"], m["samples"], m["tol"], m["worst"]) == (
        "fk: package vs sympy",
        "2.50e-13",
        " m",
        "3",
        "1e-12",
        "(0,)",
    )
    assert i18n._CHECK_LINE.match(bad)["flag"] == "FAIL"


def test_exercise_answer_line_is_translated(capsys):
    """robokin.checks.check_answer's success line ("knee angle: correct.") is the frame tools/i18n.py translates,
    name included; trips if check_answer changes its wording or the zh catalogue loses the frame."""
    from robokin import checks

    checks.check_answer("mass matrix at q = (0, pi/2)", 1.0, 1.0)
    line = capsys.readouterr().out.strip()
    assert i18n._CORRECT_LINE.match(line)["name"] == "mass matrix at q = (0, pi/2)"
    zh, missing = i18n.translate_check_line(line, OUTPUT_ZH)
    assert not missing and "correct" not in zh and "质量矩阵" in zh and i18n._numbers(zh) == i18n._numbers(line)
    assert i18n.translate_check_line("T_min: correct.", OUTPUT_ZH)[0] == "T_min：正确。"  # a code name stays
    assert i18n.translate_check_line("the fit is correct. Next", OUTPUT_ZH) is None  # not the line: untouched


def test_check_line_in_chinese_keeps_name_numbers_and_unit():
    ok, bad = _check_lines()
    for line, name in ((ok, "fk: package vs sympy"), (bad, "jacobian: package vs sympy (relative)")):
        zh, missing = i18n.translate_check_line(line, OUTPUT_ZH)
        assert not missing, f"outputs.po lacks {missing}"
        assert i18n._HAN.search(zh) and "max error" not in zh and "samples" not in zh
        assert i18n._numbers(zh) == i18n._numbers(line)  # every number of the run
        assert name not in zh and OUTPUT_ZH[name] in zh  # the check's name in Chinese too
    assert " m" in i18n.translate_check_line(ok, OUTPUT_ZH)[0]  # the unit as printed
    # a number of the run changes: the translated line changes by that number only
    other = ok.replace("2.50e-13", "7.25e-13")
    assert i18n.translate_check_line(other, OUTPUT_ZH)[0] == i18n.translate_check_line(ok, OUTPUT_ZH)[0].replace(
        "2.50e-13", "7.25e-13"
    )


def test_check_line_without_translation_is_reported_and_left_english():
    ok, _ = _check_lines()
    partial = {k: v for k, v in OUTPUT_ZH.items() if k != i18n.CHECK_WORST}
    assert i18n.translate_check_line(ok, partial) == (ok, [i18n.CHECK_WORST])
    # the frame translated, the name not: the name stays as printed and is reported
    nameless = {k: v for k, v in OUTPUT_ZH.items() if k != "fk: package vs sympy"}
    zh, missing = i18n.translate_check_line(ok, nameless)
    assert missing == ["fk: package vs sympy"] and "fk: package vs sympy" in zh and "max error" not in zh
    assert i18n.translate_check_line("fk: max error 1.0 m", OUTPUT_ZH) is None  # not a check line: untouched


def test_check_name_with_numbers_has_one_entry_for_every_run():
    """A check's name with the run's numbers in it ("joint 3 within 2.5 rad/s") is one msgid with {} for each
    number, and the translation gets the run's numbers back in order; trips if names are keyed verbatim."""
    line = "[PASS] joint 3 within 2.5 rad/s: max error 0.1 rad/s over 7 samples (tol 0.2)"
    assert i18n.output_key("joint 3 within 2.5 rad/s") == "joint {} within {} rad/s"
    zh = {**OUTPUT_ZH, "joint {} within {} rad/s": "关节 {} 不超过 {} rad/s"}
    out, missing = i18n.translate_check_line(line, zh)
    assert not missing and out.startswith("[通过] 关节 3 不超过 2.5 rad/s")
    assert i18n._numbers(out) == i18n._numbers(line)
    out4 = i18n.translate_check_line(line.replace("joint 3", "joint 4"), zh)[0]
    assert out4 == out.replace("关节 3", "关节 4")


def test_data_cells_with_words_are_translated_and_code_is_not():
    """Body cells that read as words, numbers or not ("ik residual |fk(q) - t| (relative)", "segment 2"), are
    labels; a code name, a number, maths or a branch code is data. Trips if a code name is sent to the translator
    or a worded cell with a digit is kept English."""
    labels = ["ik residual |fk(q) - t| (relative)", "segment 2", "PWM fit: |error| / standard error", "damped"]
    data = ["robokin.ur5.ik_all", "solve_ivp(rtol=1e-9)", "q_des", "1.5e-3", "left-up-flip", "$\\theta_1$", "nan", "CG"]
    assert [i18n.output_key(t) is not None for t in labels] == [True] * 4
    assert [i18n.output_key(t) for t in data] == [None] * len(data)
    html_ = "<table><tr><td>segment 2</td><td>robokin.ur5.ik_all</td><td>2.0</td></tr></table>"
    out, found = i18n.translate_output_text("text/html", html_, {"segment {}": "第 {} 段"})
    assert found == ["segment {}"] and out == html_.replace("segment 2", "第 2 段")


def test_a_translation_that_changes_a_number_is_refused():
    ok, _ = _check_lines()
    key = i18n.check_key("PASS")
    bad = {**OUTPUT_ZH, key: OUTPUT_ZH[key].replace("{samples}", "30")}
    with pytest.raises(ValueError, match="numbers"):
        i18n.translate_check_line(ok, bad)


def _output_notebook():
    """A chapter-like notebook: a check line among other prints, an HTML table, a Markdown table, a player."""
    import nbformat

    ok, _ = _check_lines()
    nb = nbformat.v4.new_notebook()
    stream = nbformat.v4.new_output("stream", name="stdout", text=f"targets (3, 2) -> joint angles\n{ok}\n")
    html_table = (
        "<table><tr><th>method</th><th>RMS (mm)</th></tr><tr><td>damped least squares</td><td>0.25</td>"
        "<td>q_des</td></tr></table>"
    )
    md_table = "| check | samples | pass |\n| --- | ---: | :---: |\n| fk(q) = p | 12 | yes |"
    player = (
        '<button title="Play" aria-label="Play" onclick="anim1.play_animation()"></button>'
        '<input type="radio" id="_anim_radio1_1"><label for="_anim_radio1_1">Once</label>'
    )
    cell = nbformat.v4.new_code_cell("show()")
    cell.outputs = [
        stream,
        nbformat.v4.new_output("display_data", data={"text/html": html_table, "text/plain": "t"}),
        nbformat.v4.new_output("display_data", data={"text/markdown": md_table, "text/plain": "m"}),
        nbformat.v4.new_output("display_data", data={"text/html": player, "text/plain": "p"}),
    ]
    nb.cells = [cell]
    return nb


def test_output_texts_are_found_as_printed():
    """What a catalogue must hold: the check line's frame, header cells, plain-word cells, the player's labels;
    not numbers, code names, units or formulas."""
    texts = i18n.notebook_output_texts(_output_notebook())
    assert texts == [
        i18n.check_key("PASS"),
        i18n.CHECK_WORST,
        "fk: package vs sympy",
        "method",
        "damped least squares",
        "check",
        "samples",
        "pass",
        "yes",
        "Play",
        "Once",
    ]


def test_outputs_in_chinese_keep_everything_but_the_text():
    nb = _output_notebook()
    zh = {t: OUTPUT_ZH.get(t) or f"中文{i}" for i, t in enumerate(i18n.notebook_output_texts(nb))}
    before = [json.dumps(o, sort_keys=True) for o in nb.cells[0].outputs]
    assert i18n.translate_notebook_outputs(nb, zh) == []
    stream, table, md, player = nb.cells[0].outputs
    assert stream["text"].startswith("targets (3, 2) -> joint angles\n")  # not a check line: as printed
    assert i18n._numbers(stream["text"]) == i18n._numbers(json.loads(before[0])["text"])
    html_ = table["data"]["text/html"]
    assert f"<th>{zh['method']}</th><th>RMS (mm)</th>" in html_ and "<td>0.25</td><td>q_des</td>" in html_
    assert f"<td>{zh['damped least squares']}</td>" in html_
    assert md["data"]["text/markdown"].splitlines()[1:2] == ["| --- | ---: | :---: |"]
    assert md["data"]["text/markdown"].splitlines()[2] == f"| fk(q) = p | 12 | {zh['yes']} |"
    assert f'title="{zh["Play"]}" aria-label="{zh["Play"]}"' in player["data"]["text/html"]
    assert f">{zh['Once']}</label>" in player["data"]["text/html"]
    assert [o["data"]["text/plain"] for o in nb.cells[0].outputs[1:]] == ["t", "m", "p"]


def test_output_text_without_translation_is_reported():
    nb = _output_notebook()
    full = {t: OUTPUT_ZH.get(t) or f"中文{i}" for i, t in enumerate(i18n.notebook_output_texts(nb))}
    assert i18n.translate_notebook_outputs(nb, {k: v for k, v in full.items() if k != "Once"}) == ["Once"]
    assert ">Once</label>" in nb.cells[0].outputs[3]["data"]["text/html"]  # left English, and reported


def test_output_catalogue_problems_are_found(tmp_path):
    po = tmp_path / "outputs.po"
    po.write_text(
        textwrap.dedent(
            f'''\
            msgid ""
            msgstr ""
            "Content-Type: text/plain; charset=UTF-8\\n"

            msgid "method"
            msgstr ""

            msgid "{i18n.check_key("PASS")}"
            msgstr "[通过] {{name}}：最大误差 {{error}}，{{samples}} 个样本（容差 {{tol}}）"

            msgid "{i18n.CHECK_WORST}"
            msgstr "，最差处 (0,)"

            #, fuzzy
            msgid "pass"
            msgstr "通过"

            msgid "Once"
            msgstr "Once"

            msgid "segment {{}}"
            msgstr "第 段"
            '''
        ),
        encoding="utf-8",
    )
    got = {(f.kind, f.msgid) for f in i18n.check_output_catalog(po)}
    assert got == {
        ("untranslated", "method"),
        ("markup", i18n.check_key("PASS")),  # {unit} dropped
        ("markup", i18n.CHECK_WORST),  # {worst} replaced by a number
        ("fuzzy", "pass"),
        ("english", "Once"),
        ("markup", "segment {}"),  # the run's number dropped
    }


def test_output_catalogue_is_filled_from_the_executed_notebooks(tmp_path):
    import nbformat

    (tmp_path / "ex" / "notebooks").mkdir(parents=True)
    nbformat.write(_output_notebook(), tmp_path / "ex" / "notebooks" / "02_two_link_leg.ipynb")
    po = tmp_path / "outputs.po"
    assert i18n.update_outputs(tmp_path / "ex", po, docs=["notebooks/02_two_link_leg"]) == 11
    assert {f.kind for f in i18n.check_output_catalog(po)} == {"untranslated"}
    missing = i18n.check_output_catalog(po, executed=tmp_path / "ex")
    assert not [f for f in missing if f.kind == "missing"]  # every text is in it, to translate


def test_output_catalogue_keeps_translations_a_run_did_not_print(tmp_path):
    """A machine without the ARM tools does not print chapter 14's firmware table: regenerating outputs.po there must
    keep its translated headers (else the build-zh of a machine with the tools fails); --prune drops them. Trips if
    update_outputs drops every text of an executed page that this run did not print."""
    import nbformat

    (tmp_path / "ex" / "notebooks").mkdir(parents=True)
    nbformat.write(_output_notebook(), tmp_path / "ex" / "notebooks" / "02_two_link_leg.ipynb")
    po = tmp_path / "outputs.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        "#. notebooks/02_two_link_leg\n"
        'msgid "cycles on QEMU"\nmsgstr "QEMU 上的周期数"\n\n'
        "#. notebooks/02_two_link_leg\n"
        'msgid "a text no longer printed"\nmsgstr ""\n',
        encoding="utf-8",
    )
    docs = ["notebooks/02_two_link_leg"]
    assert i18n.update_outputs(tmp_path / "ex", po, docs=docs) == 11
    ids = {m for m, _, _ in i18n.read_catalog(po)}
    assert "cycles on QEMU" in ids and "a text no longer printed" not in ids
    i18n.update_outputs(tmp_path / "ex", po, docs=docs, prune=True)
    assert "cycles on QEMU" not in {m for m, _, _ in i18n.read_catalog(po)}


def test_committed_output_catalogue_is_complete():
    """Every output text in outputs.po is translated (build-zh also fails on an output text that is not in it)."""
    findings = i18n.check_output_catalog(terms=i18n.core_terms())
    assert not findings, "\n".join(map(str, findings[:20]))
    assert i18n.check_key("PASS") in OUTPUT_ZH and i18n.check_key("FAIL") in OUTPUT_ZH
    for label in ("Once", "Loop", "Reflect"):  # matplotlib's animation player
        assert label in OUTPUT_ZH, f"outputs.po lacks the player's {label!r}"


def test_a_translation_that_drops_or_retargets_a_link_is_reported():
    """The claims page's evidence links: a msgstr that keeps the words but loses the [..](..) no longer links (it
    happened to the require_mujoco row). Trips if check_messages stops comparing link targets; the claims page's own
    section anchors are compared as chapter links, as build-zh rewrites both languages."""
    en = "lazy [`require_mujoco()`](../robokin/sim.py); see [the cell](../notebooks/01_x.ipynb#validation)"
    cases = {
        "惰性的 `require_mujoco()`；见[该单元](../notebooks/01_x.ipynb#validation)": "missing '../robokin/sim.py'",
        "惰性的 [`require_mujoco()`](../robokin/sim.py)；见[该单元](../notebooks/02_y.ipynb#validation)": "extra",
    }
    for zh, expect in cases.items():
        found = [str(f) for f in i18n.check_messages("book/page", [(en, zh, False)], equations=set())]
        assert any("link targets" in f and expect in f for f in found), found
    ok = "惰性的 [`require_mujoco()`](../robokin/sim.py)；见[该单元](../notebooks/01_x.ipynb#validation)"
    assert not [f for f in i18n.check_messages("book/page", [(en, ok, False)], equations=set()) if "link" in str(f)]
    claims = "惰性的 [`require_mujoco()`](../robokin/sim.py)；见[该单元](../notebooks/01_x.ipynb)"
    found = i18n.check_messages("book/claims", [(en, claims, False)], equations=set())
    assert not [f for f in found if "link" in str(f)]
    assert [f for f in i18n.check_messages("book/page", [(en, claims, False)], equations=set()) if "link" in str(f)]


def test_chinese_search_language_indexes_as_sphinx_does():
    # SearchChineseSet must cut and stem every word as Sphinx's own SearchChinese does: same tokens, and the same
    # Latin-word rule in stem() (a word seen in the text, of 3 letters or more, whose stem would be shorter, is
    # kept). It trips if split() stops recording Latin words ("IKs" would stem to "ik") or cuts differently.
    pytest.importorskip("jieba")
    from sphinx.search import zh

    texts = ["逆运动学的 IKs 与 DLS 阻尼最小二乘", "雅可比矩阵 Jacobian 的奇异位形", "IKs ies was running", "五连杆腿"]
    runs = []
    for cls in (zh.SearchChinese, robokin_i18n.SearchChineseSet):
        cls.latin_terms = []  # Sphinx's class-level list: start each run from an empty one
        lang = cls({})
        runs.append([[(w, lang.stem(w)) for w in lang.split(t)] for t in texts])
    assert runs[0] == runs[1]
    assert ("IKs", "iks") in runs[1][0]  # kept whole: seen as a Latin word, its stem "ik" is too short
    assert isinstance(robokin_i18n.SearchChineseSet({}).latin_terms, set)


def test_chinese_search_language_is_registered(monkeypatch):
    from unittest import mock

    from sphinx.search import languages

    monkeypatch.setitem(languages, "zh", "sphinx.search.zh.SearchChinese")
    robokin_i18n.setup(mock.MagicMock())  # the extension's setup puts its class in Sphinx's table
    assert languages["zh"] is robokin_i18n.SearchChineseSet


def test_closing_marks_stay_with_inline_maths():
    # a Chinese closing mark right after inline maths joins the maths in a no-break span; other text is untouched.
    # Trips if a mark is dropped or duplicated, if text after the marks moves into the span, or if an opening
    # mark / Latin text is wrapped too.
    from docutils import nodes

    p = nodes.paragraph()
    p += [
        nodes.Text("设 "),
        nodes.math(text="x"),
        nodes.Text("，于是 "),
        nodes.math(text="y"),
        nodes.Text("）。完"),
        nodes.math(text="z"),
        nodes.Text(" and"),
        nodes.math(text="w"),
        nodes.Text("（注"),
        nodes.math(text="v"),
    ]
    before = p.astext()
    assert robokin_i18n.keep_marks_with_maths(p) == 2
    assert p.astext() == before  # the same text, in the same order
    boxes = [c for c in p.children if isinstance(c, nodes.inline)]
    assert [b.astext() for b in boxes] == ["x，", "y）。"] and all(b["classes"] == ["robokin-nobr"] for b in boxes)
    assert robokin_i18n.keep_marks_with_maths(p) == 0  # nothing left to wrap


def test_closing_marks_keep_repeated_text_in_place():
    # review: remove() took the first Text equal to the one after the maths, so "、" elsewhere vanished or doubled
    from docutils import nodes

    p = nodes.paragraph()
    p += [
        nodes.Text("（"),
        nodes.literal(text="a"),
        nodes.Text("、"),
        nodes.literal(text="b"),
        nodes.Text("）"),
        nodes.math(text="x"),
        nodes.Text("、"),
        nodes.math(text="y"),
        nodes.Text("”"),
    ]
    before = p.astext()
    assert robokin_i18n.keep_marks_with_maths(p) == 2
    assert p.astext() == before == "（a、b）x、y”"
