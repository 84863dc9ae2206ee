"""Browser test of the Chinese edition (``_build/html/zh``, built by ``tools/i18n.py build-zh`` after ``make book``).

Each Chinese page gets the checks of ``tests/test_site.py`` (``sitecheck.check_page``: raw TeX, MathJax errors,
overflow, images, page weight, requests leaving the site, ...) and, for the pages already translated (not in
``locales/zh_CN/pending.txt``):

* the Chinese text is drawn with a CJK font (Chromium reports the platform fonts it used for the title; without
  ``fonts-noto-cjk`` it falls back to a font without those glyphs and the test fails);
* no English prose is left in the article (code, maths and the API's docstrings aside).

Across the editions: the language switch of every page leads to the same page in the other edition and back
(followed by clicking, at desktop and phone width), and every number glued into a page is the same in both.
"""

import html
import re
import sys
from pathlib import Path

import pytest
import sitecheck

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import i18n  # noqa: E402
from test_seeds import commit  # noqa: E402 - CI's rotation of the API pages (ROBOKIN_SITE_API)

pytestmark = pytest.mark.site

HTML = ROOT / "_build" / "html"
ZH = HTML / "zh"
SHOTS = ROOT / "_build" / "screenshots" / "zh"
PENDING = set(i18n.pending_docs())
#: translated pages whose article is English on purpose: the API's docstrings, the glossary's English column
ENGLISH_BY_DESIGN = {"book/api", "book/glossary"}
#: families Chromium may use for Chinese text (fonts-noto-cjk provides Noto Sans/Serif CJK)
CJK_FONT = re.compile(r"CJK|Source Han|WenQuanYi|Droid Sans Fallback|Noto Sans SC|Noto Serif SC", re.I)
_HAN = re.compile(r"[\u4e00-\u9fff]")


def _pages():
    if not ZH.exists():
        return ["book/intro"]  # the server fixture reports the missing build
    return sorted(
        str(p.relative_to(ZH).with_suffix(""))
        for p in ZH.rglob("*.html")
        if not any(part.startswith("_") for part in p.relative_to(ZH).parts) and p.name not in ("search.html",)
    )


PAGES = _pages()
TRANSLATED = [p for p in PAGES if p in i18n.toc_docs() and p not in PENDING]


@pytest.fixture(scope="module")
def server():
    if not (ZH / "index.html").exists():
        pytest.fail("_build/html/zh is missing: run `make book` then `python tools/i18n.py build-zh`")
    with sitecheck.serve(HTML) as base:
        yield base


def _platform_fonts(v, selector):
    """Families Chromium used to draw the text of the first element matching ``selector`` (DevTools protocol)."""
    cdp = v.page.context.new_cdp_session(v.page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    if not node:
        return None
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    return {f["familyName"]: f["glyphCount"] for f in fonts}


_ENGLISH_HEADINGS = r"""() => {
  const a = document.querySelector('article.bd-article') || document.querySelector('main');
  return [...a.querySelectorAll('h1, h2, h3, h4')].map(h => {
    const c = h.cloneNode(true);
    c.querySelectorAll('code, mjx-container, .math, .headerlink').forEach(e => e.remove());
    return c.innerText.trim();
  }).filter(t => !/[\u4e00-\u9fff]/.test(t) && /[A-Za-z]{2,}/.test(t));
}"""

_ARTICLE_TEXT = r"""() => {
  const a = document.querySelector('article.bd-article') || document.querySelector('main');
  const c = a.cloneNode(true);
  c.querySelectorAll('pre, code, .cell_output, mjx-container, .math, script, style, .headerlink, nav, .citation,'
                     + ' .bibliography, .toctree-wrapper').forEach(e => e.remove());
  return c.innerText;
}"""


#: A Chinese closing mark that opens a line right after inline maths (robokin_i18n.MathPunctuationZh prevents it):
#: the mark's first character is drawn below the maths' box.
_MARK_LINE_START = r"""() => {
  const closing = /^[\uff0c\u3002\u3001\uff1b\uff1a\uff01\uff1f\uff09\u300b\u300d\u300f\u3011\u3009]/;
  const out = [];
  for (const m of document.querySelectorAll('article span.math')) {
    const t = m.nextSibling;
    if (!t || t.nodeType !== 3 || !closing.test(t.data)) continue;
    const r = document.createRange(); r.setStart(t, 0); r.setEnd(t, 1);
    const c = r.getBoundingClientRect(), box = m.getBoundingClientRect();
    if (c.width > 0 && c.top >= box.bottom - 2) out.push(m.textContent.slice(0, 40) + ' | ' + t.data.slice(0, 12));
  }
  return out;
}"""


def mark_problems(v):
    """Closing marks that open a line after inline maths on the visited page."""
    return [sitecheck.Problem("mark-line-start", d) for d in v.page.evaluate(_MARK_LINE_START)]


@pytest.mark.parametrize("nobr", [False, True])
def test_mark_line_start_check_sees_its_fixture(tmp_path, browser, nobr):
    # the check fails once on a fixture: in a column that ends right after the formula the comma wraps to the next
    # line, unless the formula and the comma share a no-break span (the Chinese edition's markup and CSS)
    css = (ROOT / "book" / "_ext" / "static" / "robokin-i18n.css").read_text(encoding="utf-8")
    maths = '<span class="math"><b style="display:inline-block;width:190px">x</b></span>'
    body = f'<span class="robokin-nobr">{maths}，</span>其后' if nobr else f"{maths}，其后"
    page = (
        f'<html lang="zh-CN"><head><meta charset="utf-8"><style>{css}</style></head><body>'
        f'<article style="width:200px;font-size:16px">设有一个式子 {body}</article></body></html>'
    )
    (tmp_path / "fixture.html").write_text(page, encoding="utf-8")
    with sitecheck.serve(tmp_path) as base:
        v = sitecheck.visit(browser, f"{base}/fixture.html")
        try:
            found = mark_problems(v)
        finally:
            v.close()
    assert bool(found) is not nobr, found


@pytest.mark.parametrize("width", list(sitecheck.VIEWPORTS))
@pytest.mark.parametrize("page", sitecheck.browser_pages(PAGES, commit()))
def test_zh_page(server, browser, page, width):
    SHOTS.mkdir(parents=True, exist_ok=True)
    v = sitecheck.visit(browser, f"{server}/zh/{page}.html", viewport=width)
    try:
        v.page.screenshot(path=str(SHOTS / f"{page.replace('/', '_')}-{width}.png"))
        problems = sitecheck.check_page(v)
        lang = v.page.evaluate("() => document.documentElement.lang")
        if lang != "zh-CN":
            problems.append(sitecheck.Problem("lang", f"<html lang={lang!r}>, expected 'zh-CN'"))
        problems += mark_problems(v)
        if page in TRANSLATED:
            title = v.page.evaluate("() => document.querySelector('article h1').innerText")
            if not _HAN.search(title):
                problems.append(sitecheck.Problem("untranslated", f"title {title!r} has no Chinese"))
            else:
                fonts = _platform_fonts(v, "article h1") or {}
                if not any(CJK_FONT.search(name) for name in fonts):
                    problems.append(sitecheck.Problem("cjk-font", f"title drawn with {fonts} (install fonts-noto-cjk)"))
            if page not in ENGLISH_BY_DESIGN:
                prose = i18n.english_prose(v.page.evaluate(_ARTICLE_TEXT))
                problems += [sitecheck.Problem("english", p) for p in prose[:3]]
                # a heading is short, below the prose check's four words; Sphinx silently keeps the English one
                # when its translation does not parse as a heading
                problems += [sitecheck.Problem("english-heading", h) for h in v.page.evaluate(_ENGLISH_HEADINGS)]
    finally:
        v.close()
    known = sitecheck.known_problems(page, problems)
    if problems and len(known) == len(problems):
        stem = page.rsplit("/", 1)[-1].removesuffix(".html")
        pytest.xfail("known: " + "; ".join(sorted({sitecheck.KNOWN[stem, p.code] for p in known})))
    assert not problems, f"zh/{page} at {width} width:\n" + "\n".join(map(str, problems))


def test_zh_maths_typeset(server, browser):
    """A translated page with maths: MathJax typesets it (no raw TeX, no errors; check_page sees those)."""
    v = sitecheck.visit(browser, f"{server}/zh/book/conventions.html")
    try:
        n = v.page.locator("article mjx-container").count()
        problems = sitecheck.check_page(v)
    finally:
        v.close()
    assert n >= 10 and not problems, f"{n} typeset formulas; " + "\n".join(map(str, problems))


@pytest.mark.parametrize("width", list(sitecheck.VIEWPORTS))
@pytest.mark.parametrize("page", ["book/intro", "book/conventions", "notebooks/03_five_bar_leg"])
def test_switch_both_ways(server, browser, page, width):
    """Click the switch on the English page, land on the Chinese one, click again, land where we started."""
    v = sitecheck.visit(browser, f"{server}/{page}.html", viewport=width)
    try:
        trail = [v.page.url]
        for lang in ("zh-CN", "en"):
            link = v.page.locator("a.robokin-lang-switch")
            assert link.count() == 1 and link.is_visible(), f"no visible language switch on {v.page.url}"
            assert link.get_attribute("hreflang") == lang
            link.click()
            v.page.wait_for_load_state("load")
            trail.append(v.page.url)
    finally:
        v.close()
    assert trail == [f"{server}/{page}.html", f"{server}/zh/{page}.html", f"{server}/{page}.html"], trail


def _switch_target(site, page):
    text = (site / f"{page}.html").read_text(encoding="utf-8")
    m = re.search(r'<a class="[^"]*robokin-lang-switch[^"]*" href="([^"]+)"', text)
    return None if m is None else ((site / page).parent / m.group(1)).resolve()


def test_every_page_has_a_switch_to_its_twin():
    """Every page of both editions (index pages and search included) links to an existing twin, and back."""
    if not ZH.exists():
        pytest.fail("_build/html/zh is missing: run `python tools/i18n.py build-zh`")
    bad = []
    for page in PAGES + ["search"]:
        if 'http-equiv="refresh"' in (ZH / f"{page}.html").read_text(encoding="utf-8").lower():
            continue  # index.html: jupyter-book's redirect to the first page, which has the switch
        there = _switch_target(ZH, page)
        if there != (HTML / f"{page}.html").resolve():
            bad.append(f"zh/{page} -> {there}")
        back = _switch_target(HTML, page)
        if back != (ZH / f"{page}.html").resolve():
            bad.append(f"{page} -> {back}")
    assert not bad, "language switches that miss their twin:\n" + "\n".join(bad)


# a glued number: {glue:text} (pasted-text) or, with inline execution, {eval}`glued(...)` (an inline text output,
# which the Chinese build shows as the glue role it stands for)
_PASTED = re.compile(r'<span class="(?:pasted-text|output text_plain)">(.*?)</span>', re.S)


# the English build curls quotes (smartquotes), the Chinese one leaves them straight and escaped
_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})


def _numbers(path):
    found = _PASTED.findall(path.read_text(encoding="utf-8"))
    return sorted(html.unescape(m).translate(_QUOTES).strip("'\"") for m in found)


def test_glued_numbers_agree():
    """One execution: every number glued into a page is the same in both editions."""
    if not ZH.exists():
        pytest.fail("_build/html/zh is missing: run `python tools/i18n.py build-zh`")
    checked, bad = 0, []
    for page in PAGES:
        # sorted lists: a translation may reorder the numbers of a sentence, never change them
        en, zh = _numbers(HTML / f"{page}.html"), _numbers(ZH / f"{page}.html")
        checked += len(en)
        if en != zh:
            bad.append(f"{page}: English {en[:5]} vs Chinese {zh[:5]}")
    assert checked > 100, f"only {checked} glued numbers found: are the chapters in the build?"
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------- what must be the same in both editions


def _soup(path):
    from bs4 import BeautifulSoup

    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _article(soup):
    return soup.select_one("article.bd-article") or soup.select_one("main") or soup


def _display_maths(soup):
    divs = _article(soup).select("div.math")
    for div in divs:
        for number in div.select("span.eqno"):  # the number and its link: numbering is another test's business
            number.decompose()
    return [div.get_text().strip() for div in divs]


def _both(page):
    if not ZH.exists():
        pytest.fail("_build/html/zh is missing: run `make book`")
    return _soup(HTML / f"{page}.html"), _soup(ZH / f"{page}.html")


#: pages of both editions (test_every_page_has_a_switch_to_its_twin fails on a page without its twin)
TWINS = [p for p in PAGES if (HTML / f"{p}.html").exists()]


def _compare_editions(extract, what, differ):
    """(items checked, problems) over the pages of both editions: ``extract(soup)`` lists a page's items, in order;
    a page whose two lists differ in length is one problem, else ``differ(page, i, en_item, zh_item)`` (None when
    they agree) for each pair."""
    checked, bad = 0, []
    for page in TWINS:
        en, zh = (extract(s) for s in _both(page))
        checked += len(en)
        if len(en) != len(zh):
            bad.append(f"{page}: {len(en)} {what} in English, {len(zh)} in Chinese")
            continue
        bad += [m for i, (a, b) in enumerate(zip(en, zh)) if (m := differ(page, i, a, b)) is not None]
    return checked, bad


def test_display_equations_agree():
    """Every display equation of a page has the same TeX in both editions, only \\text{} translated: a translated
    equation that Sphinx took from the catalogue shows as "::" (three did, in chapters 3, 10 and 13)."""
    checked, bad = _compare_editions(
        _display_maths,
        "display equations",
        lambda page, i, a, b: (
            None if i18n.tex_skeleton(a) == i18n.tex_skeleton(b) else f"{page}: {a[:50]!r} shows as {b[:50]!r}"
        ),
    )
    assert checked > 80, f"only {checked} display equations found: are the chapters in the build?"
    assert not bad, "\n".join(bad)


def _outputs(soup):
    """Text of every code-cell output (streams, plain text, errors) and the number of its images, in page order."""
    out = []
    for cell in _article(soup).select("div.cell_output"):
        out.append(("".join(pre.get_text() for pre in cell.select("pre")), len(cell.select("img"))))
    return out


def test_code_outputs_identical():
    """One execution: every code cell's output is the same in both editions (it was printed twice when the Chinese
    build merged the streams myst-nb had already merged into the saved notebooks), its check lines translated by
    locales/zh_CN/outputs.po and nothing else: the same numbers, in the same order."""
    catalog = i18n.read_output_catalog()

    def differ(page, i, a, b):
        want = i18n.translate_output_text("stream", a[0], catalog)[0]
        if (want, a[1]) == b and i18n._numbers(a[0]) == i18n._numbers(b[0]):
            return None
        return f"{page}, output {i}: {want[:60]!r} vs {b[0][:60]!r}"

    checked, bad = _compare_editions(_outputs, "outputs", differ)
    assert checked > 200, f"only {checked} outputs found: are the chapters in the build?"
    assert not bad, f"{len(bad)} outputs differ:\n" + "\n".join(bad[:20])


def _visible_prose(soup):
    art = _article(soup)
    for e in art.select("pre, code, div.math, span.math, script, style, div.cell_output"):
        e.decompose()
    return art.get_text(" ")


def test_no_literal_bold_markers():
    """``**预备知识：**`` next to full-width punctuation is not parsed: the reader sees the asterisks."""
    from test_termbase import PENDING_FIX  # catalogues whose fix (tools/termbase.py --fix) is still to be run

    bad = []
    for page in (p for p in TRANSLATED if p in TWINS and p not in PENDING_FIX):
        en, zh = (_visible_prose(s) for s in _both(page))
        if zh.count("**") > en.count("**"):
            bad += [f"{page}: {m!r}" for m in re.findall(r".{0,10}\*\*.{0,10}", zh)[:3]]
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------- search

#: glossary terms a Chinese reader searches for, each on many pages
SEARCH_TERMS = ["雅可比", "奇异位形", "五连杆", "逆运动学", "工作空间", "自由度"]


def _search_terms(site):
    import json

    text = (site / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1 : text.rindex(")")])["terms"]


def test_search_index_has_chinese_words():
    if not ZH.exists():
        pytest.fail("_build/html/zh is missing: run `make book`")
    terms = _search_terms(ZH)
    chinese = [t for t in terms if _HAN.search(t)]
    missing = [t for t in SEARCH_TERMS if t not in terms]
    assert not missing and len(chinese) > 1000, f"{len(chinese)} Chinese terms; missing {missing}"


def _pages_with(term):
    return {page for page in TRANSLATED if term in _visible_prose(_soup(ZH / f"{page}.html"))}


#: Sphinx's summary once the last snippet is in: "搜索完成，找到了 N 个页面..." (or the English one)
_SEARCH_DONE = (
    "() => { const s = document.querySelector('#search-results .search-summary');"
    " return !!s && /搜索完成|找到|没有|found|did not match/i.test(s.textContent); }"
)


@pytest.mark.parametrize("width", list(sitecheck.VIEWPORTS))
@pytest.mark.parametrize("term", ["雅可比", "旋转"])
def test_search_snippets(server, browser, term, width):
    """The Chinese search as tests/test_site.py checks the English one: the result snippets are the pages' rendered
    text (no label names, glue keys or TeX from the sources or the code cells), within the search budget."""
    from urllib.parse import quote

    v = sitecheck.visit(browser, f"{server}/zh/search.html?q={quote(term)}", viewport=width, wait_for=_SEARCH_DONE)
    try:
        problems = sitecheck.check_page(v, budget=sitecheck.SEARCH_BUDGET, toggles=False)
        n = v.page.evaluate("() => document.querySelectorAll('#search-results ul.search li p.context').length")
    finally:
        v.close()
    if n == 0:
        problems.append(sitecheck.Problem("no-results", f"no result snippets for {term!r}"))
    assert not problems, f"zh search {term!r} at {width} width:\n" + "\n".join(map(str, problems))


@pytest.mark.parametrize("term", SEARCH_TERMS)
def test_search_finds_glossary_terms(server, browser, term):
    """Searched on the Chinese site, a glossary term is found on every translated page whose text contains it, and
    every page found contains it."""
    from urllib.parse import quote, urljoin

    # sitecheck.search waits for the English summary; Sphinx writes the Chinese one
    v = sitecheck.visit(browser, f"{server}/zh/search.html?q={quote(term)}", wait_for=_SEARCH_DONE)
    try:
        v.page.screenshot(path=str(SHOTS / f"search-{SEARCH_TERMS.index(term)}.png"))
        hrefs = v.page.evaluate(
            "() => [...document.querySelectorAll('#search-results ul.search li a')].map(a => a.href)"
        )
    finally:
        v.close()
    found = set()
    for href in hrefs:
        path = urljoin(href, "?").split("?")[0].split("#")[0]
        found.add(path.removeprefix(f"{server}/zh/").removesuffix(".html"))
    expected = _pages_with(term)
    assert len(expected) >= 3, f"{term!r} is on {sorted(expected)} only: a poor search test"
    assert expected <= found, f"{term!r}: not found on {sorted(expected - found)}"
    stray = {p for p in found if p in TRANSLATED and p not in expected and term not in (ZH / f"{p}.html").read_text()}
    assert not stray, f"{term!r}: results without the term: {sorted(stray)}"


# ---------------------------------------------------------------- solution titles

#: "练习 3.1 解答" (the exercise, then "solution"): the Chinese order of sphinx-exercise's "Solution to Exercise 3.1"
_SOLUTION_ZH = re.compile(r"^练习 \d+\.\d+(?: .*)? 解答$")


def _solution_titles(soup):
    return [" ".join(t.get_text().split()) for t in _article(soup).select("div.solution > p.admonition-title")]


def test_solution_titles_read_in_chinese_order():
    """A solution is titled "练习 3.1 解答", with the link to its exercise first: sphinx-exercise writes the English
    order ("解答 练习 3.1"); book/_ext/robokin_i18n.py reorders the Chinese edition, the English keeps its own."""
    checked, bad = 0, []
    for page in (p for p in TWINS if p.startswith("notebooks/")):
        en, zh = (_solution_titles(s) for s in _both(page))
        checked += len(zh)
        if len(en) != len(zh):
            bad.append(f"{page}: {len(en)} solutions in English, {len(zh)} in Chinese")
        bad += [f"{page}: {t!r}" for t in zh if not _SOLUTION_ZH.match(t)]
        bad += [f"{page} (English): {t!r}" for t in en if not t.startswith("Solution to Exercise ")]
    assert checked > 20, f"only {checked} solution titles found: are the chapters in the build?"
    assert not bad, "solution titles not in the expected order:\n" + "\n".join(bad[:10])


def test_solution_title_as_shown(server, browser):
    """What the reader sees on the page (after the dropdown script ran): the exercise's number, then 解答."""
    v = sitecheck.visit(browser, f"{server}/zh/notebooks/03_five_bar_leg.html", viewport="phone")
    try:
        titles = v.page.evaluate(
            "() => [...document.querySelectorAll('article .solution .admonition-title')]"
            ".map(t => t.innerText.replace(/\\s+/g, ' ').trim())"
        )
    finally:
        v.close()
    assert titles and all(_SOLUTION_ZH.match(t) for t in titles), titles


# ---------------------------------------------------------------- figures (SVG, texts from locales/zh_CN/figures.po)


def _figures(site, page):
    """The SVG files of a page's code-cell outputs, in page order."""
    soup = _soup(site / f"{page}.html")
    out = []
    for img in _article(soup).select("div.cell_output img, .robokin-live img"):
        src = img.get("src", "")
        if src.endswith(".svg"):
            out.append(((site / page).parent / src).resolve())
    return out


def test_figures_differ_only_by_translated_text():
    """One execution: a Chinese page shows the English run's figures, each text replaced by its figures.po
    translation and nothing else changed (curves, ticks, layout: the SVG modulo its texts)."""
    catalog = i18n.read_figure_catalog()
    checked, bad = 0, []
    for page in TWINS:
        en, zh = _figures(HTML, page), _figures(ZH, page)
        if len(en) != len(zh):
            bad.append(f"{page}: {len(en)} SVG figures in English, {len(zh)} in Chinese")
            continue
        for i, (a, b) in enumerate(zip(en, zh)):
            checked += 1
            sa, sb = a.read_text(encoding="utf-8"), b.read_text(encoding="utf-8")
            if i18n.svg_skeleton(sa) != i18n.svg_skeleton(sb):
                bad.append(f"{page}, figure {i + 1}: the drawing differs, not only its texts ({a.name}, {b.name})")
                continue
            want = [
                (i18n.figure_translation(catalog, t) or t) if i18n.figure_needs_translation(t) else t
                for t in i18n.svg_texts(sa)
            ]
            if want != i18n.svg_texts(sb):
                diff = next((x, y) for x, y in zip(want, i18n.svg_texts(sb)) if x != y)
                bad.append(f"{page}, figure {i + 1}: text {diff[1]!r}, expected {diff[0]!r}")
    assert checked > 50, f"only {checked} SVG figures found: are the chapters in the build?"
    assert not bad, f"{len(bad)} figures differ:\n" + "\n".join(bad[:20])


def test_figure_texts_are_chinese():
    """No figure text on a Chinese page is left in English (numbers, symbols, units, maths and code names aside:
    ``i18n.figure_needs_translation``)."""
    bad, translated = [], 0
    for page in PAGES:
        for f in _figures(ZH, page):
            for text in i18n.svg_texts(f.read_text(encoding="utf-8")):
                if _HAN.search(text):
                    translated += 1
                elif i18n.figure_needs_translation(text):
                    bad.append(f"{page}: {text!r} ({f.name})")
    assert translated > 200, f"only {translated} Chinese figure texts: is the Chinese edition built?"
    assert not bad, f"{len(bad)} English figure texts on Chinese pages:\n" + "\n".join(bad[:30])


def test_alt_texts_are_chinese():
    """Every figure's alt text on a Chinese page is the figures.po translation of the English page's (what a reader
    who cannot see the image hears), not the English text."""
    bad, checked = [], 0
    for page in TWINS:
        en = [i.get("alt", "") for i in _article(_soup(HTML / f"{page}.html")).select("div.cell_output img")]
        zh = [i.get("alt", "") for i in _article(_soup(ZH / f"{page}.html")).select("div.cell_output img")]
        for a, b in zip(en, zh):
            if a.strip():
                checked += 1
                if not _HAN.search(b) or a == b:
                    bad.append(f"{page}: alt text {b[:70]!r}")
    assert checked > 50, f"only {checked} alt texts found: are the chapters in the build?"
    assert not bad, f"{len(bad)} English alt texts on Chinese pages:\n" + "\n".join(bad[:20])


@pytest.mark.parametrize("page", ["notebooks/02_two_link_leg", "notebooks/13_multibody_simulation"])
def test_figure_chinese_drawn_with_a_cjk_font(server, browser, page):
    """A figure of a Chinese page, opened as the reader's browser draws it: its Chinese text uses a CJK font."""
    figs = _figures(ZH, page)
    assert figs, f"zh/{page} has no SVG figure"
    fig = next((f for f in figs if _HAN.search(f.read_text(encoding="utf-8"))), None)
    assert fig is not None, f"no figure of zh/{page} has Chinese text"
    v = sitecheck.visit(browser, f"{server}/{fig.relative_to(HTML.resolve())}")
    try:
        v.page.screenshot(path=str(SHOTS / f"figure-{page.replace('/', '_')}.png"))
        han = v.page.evaluate(
            r"() => [...document.querySelectorAll('text, tspan')].filter(t => /[\u4e00-\u9fff]/.test(t.textContent)"
            r" && !t.querySelector('tspan')).length"
        )
        cdp = v.page.context.new_cdp_session(v.page)
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        nodes_ = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": "text, tspan"})["nodeIds"]
        fonts = {}
        for node in nodes_:
            html_ = cdp.send("DOM.getOuterHTML", {"nodeId": node})["outerHTML"]
            if _HAN.search(html_) and "<tspan" not in html_[5:]:
                for f in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]:
                    fonts[f["familyName"]] = fonts.get(f["familyName"], 0) + f["glyphCount"]
    finally:
        v.close()
    assert han > 0, f"{fig.name}: no Chinese text drawn"
    assert any(CJK_FONT.search(name) for name in fonts), f"{fig.name}: Chinese drawn with {fonts}"


# ---------------------------------------------------------------- code-cell outputs (locales/zh_CN/outputs.po)


def _output_labels(soup):
    """Check lines, table cells (header and body) and player labels of a page's code-cell outputs."""
    art = _article(soup)
    lines = [
        line
        for pre in art.select("div.cell_output pre")
        for line in pre.get_text().splitlines()
        if line.startswith(("[PASS]", "[FAIL]", "[通过]", "[未通过]")) or line.endswith((": correct.", "：正确。"))
    ]
    # a cell that is one code span (`track`, a parameter's name) is code, shown as printed in both editions
    heads = [
        c.get_text().strip()
        for c in art.select("div.cell_output th, div.cell_output td")
        if not (c.find("code") and c.find("code").get_text().strip() == c.get_text().strip())
    ]
    labels = [lb.get_text().strip() for lb in art.select("div.cell_output .anim-state label")]
    return lines, heads, labels


def test_outputs_are_chinese():
    """On every Chinese page, every check line of robokin.checks and every exercise's "correct" line (frame and
    name), every table cell that holds a word (header or body: tools/i18n.py output_key) and the animation player's
    Once / Loop / Reflect are in Chinese, with the English page's numbers. Code names, numbers, maths and units stay as printed."""
    counts, bad = {"lines": 0, "heads": 0, "labels": 0}, []
    catalog = i18n.read_output_catalog()
    for page in TWINS:
        (en_lines, en_heads, en_labels), (zh_lines, zh_heads, zh_labels) = (_output_labels(s) for s in _both(page))
        for what, en, zh in (("lines", en_lines, zh_lines), ("heads", en_heads, zh_heads)):
            if len(en) != len(zh):
                bad.append(f"{page}: {len(en)} {what} in English, {len(zh)} in Chinese")
                continue
            for a, b in zip(en, zh):
                # MathJax's \\( \\) delimiters as the catalogue writes maths: $...$ (no word to translate)
                if what == "heads" and i18n.output_key(re.sub(r"\\\((.*?)\\\)", r"$\1$", a)) is None:
                    continue
                counts[what] += 1
                # a check's name with words is shown as outputs.po translates it (a formula in it may stay)
                check = i18n._line_frame(a)[0] if what == "lines" else None  # a check line or an exercise's
                name_zh = i18n.output_translation(catalog, check["name"]) if check else None
                name_left = (
                    check is not None
                    and i18n.output_key(check["name"]) is not None
                    and (not name_zh or name_zh not in b)
                )
                if not _HAN.search(b) or i18n._numbers(a) != i18n._numbers(b) or name_left:
                    bad.append(f"{page}: {b[:70]!r} (English {a[:50]!r})")
        counts["labels"] += len(zh_labels)
        bad += [f"{page}: player label {lb!r}" for lb in zh_labels if not _HAN.search(lb)]
    assert counts["lines"] > 100 and counts["heads"] > 5 and counts["labels"] > 10, f"too few outputs: {counts}"
    assert not bad, f"{len(bad)} English output texts on Chinese pages:\n" + "\n".join(bad[:20])


@pytest.mark.parametrize("page", ["notebooks/03_five_bar_leg", "book/validation"])
def test_translated_outputs_as_shown(server, browser, page):
    """What a reader sees on a Chinese page: check lines in Chinese (notebooks/03) and the validation report's
    table header (book/validation), as the browser lays them out."""
    v = sitecheck.visit(browser, f"{server}/zh/{page}.html")
    try:
        shown = v.page.evaluate(
            "() => ({pre: [...document.querySelectorAll('div.cell_output pre')].map(p => p.innerText).join('\\n'),"
            " th: [...document.querySelectorAll('div.cell_output th')].map(t => t.innerText.trim())})"
        )
    finally:
        v.close()
    if page == "book/validation":
        assert shown["th"] and all(_HAN.search(t) for t in shown["th"]), shown["th"]
    else:
        assert "[通过]" in shown["pre"] and "最大误差" in shown["pre"], shown["pre"][:300]
        assert "max error" not in shown["pre"], shown["pre"][:300]
