"""Browser test of the built site (run by ``make check-site`` after ``make book``).

Every page of ``_build/html`` (chapters, book pages, API, validation report, index pages, search) is loaded by
headless Chromium from a local HTTP server, at desktop (1366x900) and phone (390x844) width, with every request to
another host blocked, and checked as a reader would see it by :mod:`sitecheck` (raw TeX, MathJax errors, control
characters, unparsed Markdown tables, sideways scrolling, sidebar toggles, build paths and Python warnings in
outputs, broken/stretched/shrunk images, dead widgets, dark mode, page weight, console errors, requests leaving
the site). ``tests/test_site_checker.py`` shows that each of those checks fails on a page broken that way.

Budgets (bytes a first-time reader downloads, uncompressed): a page <= ``sitecheck.PAGE_BUDGET`` (3 MB), a page with
an animation player <= ``sitecheck.ANIMATION_BUDGET`` (3.5 MB), a search <= ``sitecheck.SEARCH_BUDGET`` (3 MB). The
measured weights are written to ``_build/screenshots/weights.tsv``. Screenshots go to ``_build/screenshots/``:
``<page>-desktop.png``, ``<page>-phone.png``, ``<page>-phone-nav.png`` (navigation opened with the toggle) and, for
chapters, ``<page>-<width>-figure.png`` (the first figure with its text).
"""

import json
import re
from pathlib import Path

import pytest
import sitecheck
from test_seeds import commit  # the commit hash that rotates CI's seeds picks the API pages too

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"


def _pages():
    if not HTML.exists():
        return ["index.html"]  # the server fixture reports the missing build
    return sorted(
        str(p.relative_to(HTML))
        for p in HTML.rglob("*.html")
        if not any(part.startswith("_") for part in p.relative_to(HTML).parts)
        and p.name != "search.html"
        and p.relative_to(HTML).parts[0] != "zh"  # the Chinese edition: tests/test_site_zh.py
    )


PAGES = _pages()
BROWSER_PAGES = sitecheck.browser_pages(PAGES, commit())  # all, or CI's rotation (ROBOKIN_SITE_API)
DARK_PAGES = sitecheck.dark_pages(BROWSER_PAGES, commit())  # all, or every third under CI's rotation


@pytest.fixture(scope="module")
def server():
    if not (HTML / "index.html").exists():
        pytest.fail("_build/html is missing: run `make book` first (make check-site does)")
    with sitecheck.serve(HTML) as base:
        yield base


@pytest.fixture(scope="module")
def weights():
    """Bytes per page and search, written to ``_build/screenshots/weights.tsv`` for the reviewer."""
    rows = {}
    yield rows
    if rows:
        SHOTS.mkdir(parents=True, exist_ok=True)
        (SHOTS / "weights.tsv").write_text(
            "page\twidth\tMB\n"
            + "".join(f"{page}\t{width}\t{n / 1e6:.2f}\n" for (page, width), n in sorted(rows.items()))
        )


def _notebook(page):
    m = re.match(r"notebooks/((\d+)_[^/]+)\.html$", page)
    return (m.group(1), int(m.group(2))) if m else (None, None)


def _has_animation(stem):
    nb = json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text())
    players = ("animation_html(", "to_jshtml(")
    return any(p in "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code" for p in players)


def _slug(page):
    return page[:-5].replace("/", "_")


@pytest.mark.parametrize("width", list(sitecheck.VIEWPORTS))
@pytest.mark.parametrize("page", BROWSER_PAGES)
def test_page(server, browser, weights, page, width):
    stem, chapter = _notebook(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    v = sitecheck.visit(browser, f"{server}/{page}", viewport=width)
    weights[page, width] = v.bytes()
    try:
        v.page.screenshot(path=str(SHOTS / f"{_slug(page)}-{width}.png"))
        nav_shot = SHOTS / f"{_slug(page)}-phone-nav.png" if width == "phone" else None
        problems = sitecheck.check_page(v, chapter=chapter, nav_shot=nav_shot)
        if stem:  # a chapter: maths, figures, solutions and (where the notebook has one) an animation
            if v.page.locator("mjx-container").count() == 0:
                problems.append(sitecheck.Problem("chapter", "no MathJax output on the page"))
            if v.page.locator("article img").count() == 0:
                problems.append(sitecheck.Problem("chapter", "a chapter without a single figure"))
            if _has_animation(stem) and v.page.locator(".animation").count() == 0:
                problems.append(sitecheck.Problem("chapter", "animation player missing"))
            if v.page.locator("details.dropdown, .dropdown").count() == 0:
                problems.append(sitecheck.Problem("chapter", "no dropdown solutions found"))
            first = v.page.locator("article img").first
            if first.count():
                first.scroll_into_view_if_needed()
                v.page.wait_for_timeout(200)
                v.page.screenshot(path=str(SHOTS / f"{_slug(page)}-{width}-figure.png"))
    finally:
        v.close()
    known = sitecheck.known_problems(page, problems)
    if problems and len(known) == len(problems):
        stem = page.rsplit("/", 1)[-1].removesuffix(".html")
        pytest.xfail("known: " + "; ".join(sorted({sitecheck.KNOWN[stem, p.code] for p in known})))
    assert not problems, f"{page} at {width} width:\n" + "\n".join(map(str, problems))


@pytest.mark.parametrize("page", DARK_PAGES)
def test_page_dark_system_theme(server, browser, page):
    problems = sitecheck.check_dark(browser, f"{server}/{page}")
    assert not problems, f"{page}:\n" + "\n".join(map(str, problems))


@pytest.mark.parametrize("width", list(sitecheck.VIEWPORTS))
@pytest.mark.parametrize("query", ["rotation", "jacobian"])
def test_search(server, browser, weights, query, width):
    v, problems = sitecheck.search(browser, server, query, viewport=width)
    try:
        v.page.screenshot(path=str(SHOTS / f"search-{query}-{width}.png"))
        n = v.page.evaluate("() => document.querySelectorAll('#search-results ul.search li').length")
        weight = weights[f"search.html?q={query}", width] = v.bytes()
    finally:
        v.close()
    print(f"search {query!r} at {width}: {n} results, {weight / 1e6:.2f} MB")
    known = sitecheck.known_problems("search", problems)
    if problems and len(known) == len(problems):
        pytest.xfail("known: " + "; ".join(sorted({sitecheck.KNOWN["search", p.code] for p in known})))
    assert not problems, f"search {query!r} at {width} width:\n" + "\n".join(map(str, problems))


def test_every_page_listed():
    """The page list is the build itself: every chapter of the table of contents is in it."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]] + [c["file"] for part in toc["parts"] for c in part["chapters"]]
    missing = [f for f in files if f"{f}.html" not in PAGES]
    assert not missing, f"pages of _toc.yml not in the build: {missing}"


_SECTION_ID = re.compile(r'<section id="([^"]+)"')


def test_section_ids_match_between_editions():
    """The language switch keeps ``#section``: that works only where the twin page has the same section ids."""
    zh = HTML / "zh"
    if not zh.exists():
        pytest.fail("_build/html/zh is missing: run `python tools/i18n.py build-zh`")
    checked, bad = 0, []
    for page in PAGES:
        if not (zh / page).exists():
            continue
        en_ids = set(_SECTION_ID.findall((HTML / page).read_text(encoding="utf-8")))
        zh_ids = set(_SECTION_ID.findall((zh / page).read_text(encoding="utf-8")))
        checked += len(en_ids)
        if en_ids != zh_ids:
            bad.append(
                f"{page}: only in English {sorted(en_ids - zh_ids)[:3]}, only in Chinese {sorted(zh_ids - en_ids)[:3]}"
            )
    assert checked > 100, f"only {checked} section ids found"
    assert not bad, "section ids that differ between the editions:\n" + "\n".join(bad)


@pytest.mark.parametrize("width", list(sitecheck.VIEWPORTS))
@pytest.mark.parametrize("page", ["notebooks/03_five_bar_leg", "book/conventions"])
def test_switch_keeps_the_section(server, browser, page, width):
    """A reader in the middle of a chapter switches language and stays at the same section, both ways."""
    ids = _SECTION_ID.findall((HTML / f"{page}.html").read_text(encoding="utf-8"))
    assert len(ids) >= 3, f"{page}: too few sections to test"
    section = ids[len(ids) // 2]
    problems = sitecheck.check_switch_anchor(browser, f"{server}/{page}.html", section, viewport=width)
    problems += sitecheck.check_switch_anchor(browser, f"{server}/zh/{page}.html", section, viewport=width)
    assert not problems, "\n".join(map(str, problems))


# what a started video reports: decoded frames (readyState >= 2 = HAVE_CURRENT_DATA), size, length, or its error code
_PLAY_VIDEOS = """async () => {
  const out = [];
  for (const v of document.querySelectorAll('video.robokin-video')) {
    v.scrollIntoView();
    const r = await new Promise((resolve) => {
      const done = (why) => resolve({why, state: v.readyState, w: v.videoWidth, h: v.videoHeight,
                                     duration: v.duration, error: v.error ? v.error.code : null,
                                     poster: (v.getAttribute('poster') || '').slice(0, 22),
                                     label: v.getAttribute('aria-label') || ''});
      v.addEventListener('loadeddata', () => done('loadeddata'), {once: true});
      v.addEventListener('error', () => done('error'), {once: true});
      const src = v.querySelector('source');
      if (src) src.addEventListener('error', () => done('source-error'), {once: true});
      setTimeout(() => done('timeout'), 15000);
      v.load();
    });
    out.push(r);
  }
  return out;
}"""


@pytest.mark.parametrize("edition", ["", "zh/"], ids=["en", "zh"])
@pytest.mark.parametrize("width", list(sitecheck.VIEWPORTS))
def test_the_engine_videos_play_offline(server, browser, width, edition):
    # chapter 13's MuJoCo videos (the push, the crouch and stand-up, the jump), in both editions: each shows a
    # poster before it is started, plays from the page itself (data URI: no request leaves the site), and decodes
    # to frames of the encoded size; a codec the browser cannot play, a missing poster, an external source or (on
    # the Chinese page) an English label fails here
    page = next((p for p in PAGES if p.startswith("notebooks/13_")), None)
    assert page, "chapter 13 is not in the built site"
    v = sitecheck.visit(browser, f"{server}/{edition}{page}", viewport=width)
    try:
        videos = v.page.evaluate(_PLAY_VIDEOS)
    finally:
        v.close()
    assert len(videos) >= 3, f"expected the push, crouch/stand-up and jump videos, found {len(videos)}"
    for r in videos:
        assert r["why"] == "loadeddata" and r["state"] >= 2 and r["error"] is None, r
        assert r["w"] >= 160 and r["h"] >= 120 and 0.5 < r["duration"] < 30, r
        assert r["poster"].startswith("data:image/png"), r
        assert r["label"].strip(), r
        if edition:
            assert re.search(r"[\u4e00-\u9fff]", r["label"]), r  # the Chinese label (outputs.po)
    assert not v.external, f"requests left the site: {v.external[:3]}"
