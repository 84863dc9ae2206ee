"""What a reader would see: checks of rendered HTML pages in headless Chromium.

Used by ``tests/test_site.py`` on every page of the built book (``make check-site``) and tested on small fixture
pages by ``tests/test_site_checker.py``: each fixture re-breaks one thing and the matching check must report it.

A page is loaded over HTTP in a fresh browser context (empty cache, so the byte count is what a first-time reader
downloads), with every request to another host blocked. :func:`check_page` returns a list of :class:`Problem`;
an empty list means the page passed. Problem codes:

=================  =================================================================================================
``external``       a request left the site (the book must be self-contained)
``console``        a console error or an uncaught exception
``http``           a request that failed or answered with status >= 400
``weight``         bytes downloaded exceed the budget (:data:`PAGE_BUDGET`, :data:`ANIMATION_BUDGET`,
                   :data:`SEARCH_BUDGET`)
``raw-tex``        TeX source in the rendered text (``$``, ``\\frac``, ``\\(``, ...) outside MathJax output and code
``mathjax-error``  a MathJax error node (``Math input error``, unknown macro, ...)
``control-char``   a control character (backspace, form feed, ...) in the page text
``md-table``       a paragraph that starts with ``|``: a Markdown table that was not parsed
``overflow``       the page is wider than the viewport (the reader scrolls sideways)
``cells-touch``    two table cells whose texts touch (numbers run together)
``wide-table``     a table that scrolls sideways in its box at desktop width (columns hidden from a reader who
                   has the room to see them; on a phone a wide table scrolling in its own box is fine)
``sidebar``        a sidebar toggle that does not open and close the navigation
``path-leak``      a filesystem path of the build machine in the page text
``py-warning``     a Python warning, traceback or stderr stream in a cell output
``broken-image``   an image that did not load
``upscaled``       an image displayed wider than its natural width (blurry)
``tiny-figure``    a figure shrunk below :data:`MIN_PX_PER_INCH` (labels unreadable)
``dead-widget``    an ipywidgets view on a static page (controls that do nothing)
``dark``           a dark page behind light figures, or a theme switch that leads there
``hidden-bar``     a "show code cell" bar above the page title
``numbering``      exercises, figures or equations not numbered ``<chapter>.<k>`` from 1, or solutions not saying
                   whose
``two-search``     more than one search box in the page header and sidebars
``no-results``     a search that found nothing
``raw-myst``       a MyST role left as text (``{cite}hawkins2013``: a docstring is reST, the API page showed it raw)
``raw-label``      a label name a reader cannot follow ("over the map of fig-ch3-map", ``eq-ch09-ik`` as code)
``raw-glue``       the key of a glued value instead of the value ("median gap ch1_order_median")
``double-paren``   "((36))": an equation reference, which brings its parentheses, inside a second pair
``table-cells``    a table row with more or fewer cells than the header (an unescaped ``|`` split a cell)
``icon``           an icon that draws nothing (no CSS mask, no glyph of a loaded icon font): a blank square
``wrap``           the animation player's buttons on more than one row
``clipped``        maths, a figure, a table or code wider than a box that hides the rest (no way to see it)
``scroll-hint``    content that scrolls sideways in its box with nothing showing that it does (no edge shadow)
``alt-text``       an image whose alt text is a file path, or a figure without alt text
``hide-input``     a cell tagged ``hide-input`` whose code is not behind a closed toggle on the page
``code-break``     an inline code element of at most :data:`SHORT_CODE` characters broken across lines in a table
                   cell (a squeezed column that splits ``test_index`` letter by letter)
``claims-link``    a row of the claims audit page whose "checked by" cell links nowhere (neither the chapter
                   section nor the test file that holds the check)
``image-wait``     an image (or MathJax) still not ready after :data:`SETTLE_TIMEOUT` seconds: the check names the
                   page and the image instead of waiting for ever
=================  =================================================================================================
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import http.server
import os
import re
import shutil
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from robokin import nb as _nb

VIEWPORTS = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}

#: Bytes a first-time reader downloads for one page (uncompressed, as served by a plain HTTP server), for every page
#: without an animation player: book pages, the API, and chapters with figures only. What every page with maths
#: costs (book/_ext trims it): the theme's CSS 0.40 MB, MathJax 0.76 MB + its fonts, Bootstrap 0.08 MB.
PAGE_BUDGET = 3_000_000

#: Problems a page is known to have, reported as XFAIL (never as passed) until they are fixed: (page, code) -> reason.
KNOWN: dict[tuple[str, str], str] = {}


def known_problems(page: str, problems: list) -> list:
    """The problems of ``page`` (a path such as ``zh/prf-prf.html``, or ``search``) listed in :data:`KNOWN`."""
    stem = page.rsplit("/", 1)[-1].removesuffix(".html")
    return [p for p in problems if (stem, p.code) in KNOWN]


#: A page with an animation player (its frames are inline in the HTML: ``robokin.plotting.animation_html``).
ANIMATION_BUDGET = 3_500_000
#: Bytes downloaded by a search, including the index and the pages the result snippets are cut from.
SEARCH_BUDGET = 3_000_000

#: Figures are rendered at this many pixels per figure inch (robokin.nb.setup sets it; animation frames say theirs
#: in a ``data-dpi`` attribute).
FIGURE_DPI = _nb.FIGURE_DPI
#: A figure inch must stay at least this many CSS pixels wide: a 10 pt label is then >= 7 px tall.
MIN_PX_PER_INCH = 50
#: Inline code this short (characters) must not be broken across lines in a table cell (book/_ext marks it so).
SHORT_CODE = 12

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass(frozen=True)
class Problem:
    code: str
    detail: str

    def __str__(self):
        return f"[{self.code}] {self.detail}"


@dataclass
class Visit:
    """One page load: the Playwright page and what happened on the network and the console."""

    page: object
    context: object
    viewport: str
    requests: list = field(default_factory=list)
    external: list = field(default_factory=list)
    failed: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    url: str = ""
    #: what was still pending when the wait for images and MathJax timed out (:func:`_settle`)
    stalled: dict = field(default_factory=dict)

    def bytes(self):
        total = 0
        for r in self.requests:
            try:
                total += r.sizes()["responseBodySize"]
            except Exception:  # a request still in flight or aborted counts as nothing received
                pass
        return total

    def close(self):
        self.context.close()


def chromium():
    """Path of a Chromium executable (Debian's ``chromium``), or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class _Quiet(http.server.SimpleHTTPRequestHandler):
    extra = {}  # URL prefix -> directory, for assets served from elsewhere (MathJax in the fixture tests)

    def translate_path(self, path):
        for prefix, directory in self.extra.items():
            if path.startswith(prefix):
                return str(Path(directory) / path[len(prefix) :].split("?")[0])
        return super().translate_path(path)

    def log_message(self, *args):
        pass


# Under ROBOKIN_SITE_API=rotate (CI) the per-page browser tests visit every API_STRIDE-th API page only
API_STRIDE = 4


def _rotating(mode):
    """True under ``ROBOKIN_SITE_API=rotate`` (or ``mode``), False under ``all``; anything else is refused."""
    mode = os.environ.get("ROBOKIN_SITE_API", "all") if mode is None else mode
    if mode not in ("all", "rotate"):
        raise ValueError(f"ROBOKIN_SITE_API must be 'all' or 'rotate', got {mode!r}")
    return mode == "rotate"


def _offset(head, salt, stride):
    """The rotation's offset in ``range(stride)``: moved by the commit hash, independent per ``salt``."""
    return int(hashlib.sha256(f"{head}:{salt}".encode()).hexdigest()[:8], 16) % stride


def browser_pages(pages, head, *, mode=None):
    """The pages the per-page browser tests visit: all (``ROBOKIN_SITE_API=all``, the default), or under ``rotate``
    (CI) every chapter and book page and every :data:`API_STRIDE`-th API page (``book/api/...``) from an offset the
    commit hash ``head`` picks, so successive commits cover them all. The static checks (the strict build, the
    twin, glue, output and figure comparisons) still read every page on every run; the API pages share one template
    and differ only in their docstrings.

    >>> pages = ["notebooks/01_x.html"] + [f"book/api/m{i}.html" for i in range(8)]
    >>> browser_pages(pages, "0" * 40, mode="all") == pages
    True
    >>> picked = browser_pages(pages, "0" * 40, mode="rotate")
    >>> picked[0], len(picked), picked == browser_pages(pages, "0" * 40, mode="rotate")
    ('notebooks/01_x.html', 3, True)
    """
    if not _rotating(mode):
        return list(pages)
    api = [p for p in pages if p.startswith("book/api/")]
    keep = set(api[_offset(head, "site-api", API_STRIDE) :: API_STRIDE])
    return [p for p in pages if not p.startswith("book/api/") or p in keep]


# Under ROBOKIN_SITE_API=rotate the dark-system-theme check (one stylesheet for every page) visits every DARK_STRIDE-th
# page of the browser list
DARK_STRIDE = 3


def dark_pages(pages, head, *, mode=None):
    """The pages the dark-system-theme test visits: all of ``pages`` (``ROBOKIN_SITE_API=all``), or under ``rotate``
    (CI) every :data:`DARK_STRIDE`-th from an offset the commit hash ``head`` picks. Every page loads the same theme
    stylesheet, and the full per-page test still visits every chapter at both widths on every run.

    >>> pages = [f"p{i}.html" for i in range(7)]
    >>> dark_pages(pages, "0" * 40, mode="all") == pages
    True
    >>> picked = dark_pages(pages, "0" * 40, mode="rotate")
    >>> len(picked) in (2, 3), picked == pages[pages.index(picked[0]) :: DARK_STRIDE]
    (True, True)
    >>> dark_pages(pages, "0" * 40, mode="some")
    Traceback (most recent call last):
    ...
    ValueError: ROBOKIN_SITE_API must be 'all' or 'rotate', got 'some'
    """
    if not _rotating(mode):
        return list(pages)
    return list(pages)[_offset(head, "site-dark", DARK_STRIDE) :: DARK_STRIDE]


@contextlib.contextmanager
def serve(directory, *, extra=None):
    """Serve ``directory`` on 127.0.0.1; yields the base URL."""
    handler = type("Handler", (_Quiet,), {"extra": dict(extra or {})})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def visit(browser, url, *, viewport="desktop", color_scheme="light", wait_for=None, settle_timeout=None):
    """Open ``url`` in a fresh context (cold cache) and wait until it has loaded and MathJax has finished (at most
    ``settle_timeout`` seconds, :data:`SETTLE_TIMEOUT`, each: what is still pending is reported by
    :func:`check_page` as ``image-wait``)."""
    ctx = browser.new_context(
        viewport=VIEWPORTS[viewport], color_scheme=color_scheme, device_scale_factor=1, service_workers="block"
    )
    page = ctx.new_page()
    v = Visit(page=page, context=ctx, viewport=viewport)
    page.on("console", lambda m: v.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: v.errors.append(str(e)))
    page.on("requestfinished", lambda r: v.requests.append(r))
    page.on(
        "requestfailed",
        lambda r: (
            v.failed.append(f"{r.url[:100]} ({r.failure})") if urlparse(r.url).hostname in ("127.0.0.1", None) else None
        ),
    )
    page.on("response", lambda r: v.failed.append(f"{r.url[:100]} (HTTP {r.status})") if r.status >= 400 else None)

    def route(r):
        url_ = r.request.url
        if url_.startswith(("data:", "blob:")) or urlparse(url_).hostname in ("127.0.0.1", None):
            r.continue_()
        else:  # the site must be self-contained: nothing may come from a CDN
            v.external.append(url_)
            r.abort()

    page.route("**/*", route)
    v.url = url
    try:
        page.goto(url, wait_until="load", timeout=60000)
    except Exception as exc:  # an image that never arrives holds the load event: _settle names it
        if "Timeout" not in str(exc):
            raise
    try:
        redirect = page.evaluate("() => !!document.querySelector('meta[http-equiv=refresh i]')")
    except Exception as exc:  # already on its way to the target of the redirect
        if "context was destroyed" not in str(exc):
            raise
        redirect = True
    if redirect:  # index.html sends the reader to the first page
        page.wait_for_url(lambda u: u.rstrip("/") != url.rstrip("/"), timeout=10000)
        page.wait_for_load_state("load")
    seconds = SETTLE_TIMEOUT if settle_timeout is None else settle_timeout
    v.stalled = {**(_settle(page, timeout=seconds) or {}), "seconds": seconds}
    if wait_for:
        page.wait_for_function(wait_for, timeout=30000)
        page.wait_for_load_state("networkidle")
    page.wait_for_timeout(200)
    return v


def _settle(page, tries=3, timeout=None):
    """Wait for MathJax and the images, at most ``timeout`` seconds (:data:`SETTLE_TIMEOUT`) for each; follow a
    redirect page (index.html) to where it leads. Returns what was still pending: ``{"images": [src, ...],
    "mathjax": bool}``."""
    ms = round(1000 * (SETTLE_TIMEOUT if timeout is None else timeout))
    if ms <= 0:
        raise ValueError(f"_settle: timeout must be > 0 seconds, got {timeout!r}")
    for k in range(tries):
        try:
            return page.evaluate(_SETTLE, ms)
        except Exception as exc:  # the context goes away when a page redirects
            if "context was destroyed" not in str(exc) or k == tries - 1:
                raise
            page.wait_for_load_state("load")


#: Seconds to wait for MathJax, and for the images (a lazy image below the fold never decodes in a headless
#: browser that does not scroll: the wait hung the whole check before there was a limit).
SETTLE_TIMEOUT = 20

_SETTLE = """async (ms) => {
             const late = (p) => Promise.race([p.then(() => false, () => false),
                                               new Promise(r => setTimeout(() => r(true), ms))]);
             let mathjax = false;
             if (document.querySelector('script[src*="mathjax"], script[src*="MathJax"]')) {
               for (let i = 0; i < 200 && !(window.MathJax && MathJax.startup && MathJax.startup.promise); i++)
                 await new Promise(r => setTimeout(r, 50));
               if (window.MathJax && MathJax.startup && MathJax.startup.promise)
                 mathjax = await late(MathJax.startup.promise);
             }
             const imgs = Array.from(document.images);
             const stuck = await Promise.all(imgs.map(i => late(i.decode())));
             return {mathjax, images: imgs.filter((i, k) => stuck[k]).map(i => i.getAttribute('src') || i.currentSrc)};
           }"""


# One pass over the DOM; returns plain data that check_page turns into problems.
_PROBE = r"""
(opts) => {
  const out = {};
  const SKIP = 'script, style, noscript, template, pre, code, textarea, mjx-container, .highlight, .MathJax';
  const texRe = /\$|\\(?:[a-zA-Z]{2,}|[()\[\]{}])/;
  const ctrlRe = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  out.rawTex = []; out.ctrl = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const p = n.parentElement;
    if (!p || p.closest('script, style, noscript, template')) continue;
    const t = n.nodeValue;
    if (ctrlRe.test(t)) {
      const i = t.search(ctrlRe);
      out.ctrl.push(JSON.stringify(t.slice(Math.max(0, i - 30), i + 30)));
    }
    if (p.closest(SKIP)) continue;
    const m = t.match(texRe);
    if (m) out.rawTex.push(t.slice(Math.max(0, m.index - 40), m.index + 40).replace(/\s+/g, ' '));
  }
  out.mathErrors = Array.from(document.querySelectorAll('mjx-merror, [data-mjx-error], .MathJax_Error'))
    .map(e => (e.getAttribute('data-mjx-error') || e.textContent).slice(0, 80));
  out.mathCount = document.querySelectorAll('mjx-container').length;
  // a Markdown table row: "| a | b |" (at least three bars, the first line ends with one); "|e| is ..." is not
  out.mdTables = Array.from(document.querySelectorAll('p, li')).map(p => p.textContent.trim())
    .filter(t => { const l = t.split('\n')[0].trim(); return l.startsWith('|') && l.endsWith('|') && l.split('|').length >= 4; })
    .map(t => t.slice(0, 80));

  // sideways scrolling of the whole page, and who sticks out
  const de = document.documentElement;
  out.scrollWidth = Math.max(de.scrollWidth, document.body.scrollWidth);
  out.clientWidth = de.clientWidth;
  out.overflowers = [];
  if (out.scrollWidth > out.clientWidth + 1) {
    const clips = el => { for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const ox = getComputedStyle(a).overflowX; if (ox !== 'visible') return true; } return false; };
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > out.clientWidth + 1 && !clips(el)) {
        out.overflowers.push(`${el.tagName.toLowerCase()}.${String(el.className).split(' ')[0]} right=${Math.round(r.right)}`);
        if (out.overflowers.length >= 4) break;
      }
    }
  }

  out.wideTables = Array.from(document.querySelectorAll('article table, main table'))
    .filter(t => t.checkVisibility() && t.scrollWidth > t.clientWidth + 1)
    .map(t => `${t.scrollWidth} px in a ${t.clientWidth} px box: ` + t.textContent.replace(/\s+/g, ' ').trim().slice(0, 50));

  // table cells whose texts touch: "2.21e+03" "2.0e-03" read as one number
  out.touching = [];
  // MathJax's hidden MathML for screen readers is clipped to nothing but keeps its full-width box: not measured
  const hidden = Array.from(document.querySelectorAll('mjx-assistive-mml'));
  hidden.forEach(e => e.style.setProperty('display', 'none', 'important'));
  for (const tr of Array.from(document.querySelectorAll('article tr, main tr')).slice(0, 400)) {
    const cells = Array.from(tr.children).filter(c => c.textContent.trim() && !c.querySelector('ul, ol, dl, table'));
    for (let i = 0; i + 1 < cells.length; i++) {
      const rg = document.createRange();
      rg.selectNodeContents(cells[i]); const a = rg.getBoundingClientRect();
      rg.selectNodeContents(cells[i + 1]); const b = rg.getBoundingClientRect();
      if (a.width && b.width && Math.abs(a.top - b.top) < a.height && b.left - a.right < 4)
        out.touching.push(cells[i].textContent.trim().slice(0, 30) + cells[i + 1].textContent.trim().slice(0, 30));
    }
    if (out.touching.length >= 3) break;
  }
  hidden.forEach(e => e.style.removeProperty('display'));

  // text of the build machine: its paths, warnings and tracebacks
  const visible = document.body.innerText;
  const outputs = Array.from(document.querySelectorAll('.cell_output, .output, .stderr')).map(e => e.textContent).join('\n');
  const pathRe = /(?:\/tmp\/|\/home\/[a-z_]|\/root\/|\/work\/|\/Users\/|\/var\/folders\/|site-packages|[A-Z]:\\Users\\|ipykernel_\d+)[^\s'"]*/g;
  out.paths = Array.from(new Set([...(visible + '\n' + outputs).matchAll(pathRe)].map(m => m[0].slice(0, 80)))).slice(0, 5);
  // warnings and tracebacks; a printed "ValueError: ..." is a chapter showing its clear error message, not a leak
  const warnRe = /\b[A-Z]\w*Warning\b: |warnings\.warn\(|Traceback \(most recent call last\)/g;
  out.warnings = Array.from(new Set([...outputs.matchAll(warnRe)].map(m => outputs.slice(m.index, m.index + 80))));
  out.stderr = document.querySelectorAll('.stderr').length;

  // images: loaded, not stretched beyond their pixels, figures not shrunk below readability
  out.images = Array.from(document.images).map(i => {
    const r = i.getBoundingClientRect();
    const fig = !!i.closest('.cell_output, .animation, .robokin-figure');
    const svg = /\.svg($|\?)|^data:image\/svg/.test(i.currentSrc || i.src);
    return {src: (i.currentSrc || i.src).slice(0, 90), ok: i.complete && i.naturalWidth > 0, natural: i.naturalWidth,
            shown: r.width, visible: r.width > 0 && i.checkVisibility(), fig, svg, dpi: Number(i.dataset.dpi) || null};
  });

  out.animations = document.querySelectorAll('.animation').length;
  out.widgets = document.querySelectorAll(
    'script[type="application/vnd.jupyter.widget-view+json"], .jupyter-widgets, .widget-interact, .widget-slider').length;

  // dark page behind figures; a theme switch that would lead there
  const lum = c => { const m = c.match(/[\d.]+/g); if (!m) return 1; const [r, g, b] = m.map(Number);
                     return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255; };
  let bg = 'rgba(0, 0, 0, 0)';
  for (const el of [document.querySelector('article'), document.body, de]) {
    if (!el) continue; const c = getComputedStyle(el).backgroundColor;
    if (!/rgba\(.*, 0\)$/.test(c) && c !== 'transparent') { bg = c; break; }
  }
  out.darkPage = /rgba\(.*, 0\)$/.test(bg) || bg === 'transparent' ? false : lum(bg) < 0.5;
  out.themeSwitch = Array.from(document.querySelectorAll('.theme-switch-button, [data-mode-switch], .theme-switcher'))
    .filter(e => e.checkVisibility() && e.getBoundingClientRect().width > 0).length;

  // a code-cell toggle bar before the title
  const h1 = document.querySelector('article h1') || document.querySelector('main h1') || document.querySelector('h1');
  out.barAbove = [];
  if (h1) {
    for (const el of document.querySelectorAll('.cell, details, .toggle-details, button.toggle-button')) {
      // the navigation sidebar's expandable sections are <details> too: they are not a code-cell bar
      if (el.closest('nav, .bd-sidebar-primary, .bd-sidebar-secondary, .bd-header')) continue;
      if (el.compareDocumentPosition(h1) & Node.DOCUMENT_POSITION_FOLLOWING && el.checkVisibility())
        out.barAbove.push(el.textContent.trim().slice(0, 50) || el.className);
    }
  }
  out.title = h1 ? h1.textContent.trim() : '';

  // exercise and solution titles
  out.exercises = Array.from(document.querySelectorAll('.exercise > .admonition-title, .exercise > summary .admonition-title, div.exercise p.admonition-title'))
    .map(e => e.textContent.replace(/\s+/g, ' ').trim());
  out.solutions = Array.from(document.querySelectorAll('.solution .admonition-title, details.solution > summary, .solution > summary'))
    .map(e => e.textContent.replace(/\s+/g, ' ').trim());

  // search boxes in the page chrome (header, sidebars), not a search form inside the article
  out.searchBoxes = Array.from(document.querySelectorAll('.search-button-field, .search-button, form.bd-search, input[type=search]'))
    .filter(e => !e.closest('article, #search-results, .bd-search-container, dialog:not([open])')
                 && !(e.matches('input') && e.closest('form.bd-search')) && e.checkVisibility()
                 && e.getBoundingClientRect().width > 0).length;

  // --- what a reader reads: text outside code and maths
  const article = document.querySelector('article') || document.querySelector('main') || document.body;
  const proseTexts = [], codeTexts = [];
  const tw = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  for (let n = tw.nextNode(); n; n = tw.nextNode()) {
    const p = n.parentElement;
    if (!p || p.closest('script, style, noscript, template, mjx-container, .MathJax') || !n.nodeValue.trim()) continue;
    if (p.closest('pre, .highlight, textarea')) continue;  // code cells: a label or key there is Python
    (p.closest('code, tt, kbd, samp') ? codeTexts : proseTexts).push(n.nodeValue);
  }
  const prose = proseTexts.join(' '), code = codeTexts.join(' ');
  const grab = (re, text) => Array.from(new Set([...text.matchAll(re)].map(m => m[0]))).slice(0, 5);
  // MyST roles that were not parsed: "{cite}hawkins2013", "{prf:ref}`alg`" (docstrings are reST)
  // (prose only: a page may quote MyST as code, ``{eval}`glued("key:fmt")``` in the API of robokin.nb)
  out.rawMyst = grab(/\{(?:cite(?::[pt])?|prf:ref|eq|numref|ref|doc|glue(?::\w+)?|eval|term|math)\}`?[^\s`]*`?/g, prose)
    .concat(grab(/(?<![\w`]):(?:cite(?::[pt])?|eq|numref|ref|doc|prf:ref):`[^`]*`/g, prose));
  // label names a reader cannot follow: "over the map of fig-ch3-map", an equation reference shown as code
  out.rawLabels = grab(/\b(?:fig|eq|tab|alg)-ch\d+(?:[-_][A-Za-z0-9]+)*\b/g, prose + ' ' + code);
  // glue keys instead of their values: "median gap ch1_order_median"
  out.rawGlue = grab(/\bch\d+_[a-z0-9]+(?:_[a-z0-9]+)*\b/g, prose);
  // "((36))": a reference that brings its own parentheses, inside a second pair
  out.doubleParen = grab(/\(\(\s*\d+(?:\.\d+)*\s*\)\)/g, article.innerText);

  // numbers of figures and equations, in page order
  out.figNumbers = Array.from(article.querySelectorAll('figure .caption-number, .caption .caption-number, figcaption .caption-number'))
    .map(e => e.textContent.replace(/\s+/g, ' ').trim());
  out.eqNumbers = Array.from(article.querySelectorAll('.math .eqno, div.math > .eqno, span.eqno'))
    .map(e => e.textContent.replace(/\s+/g, ' ').trim());

  // table rows with more or fewer cells than the header (an unescaped "|" splits a cell)
  out.badRows = [];
  for (const t of article.querySelectorAll('table')) {
    const rows = Array.from(t.rows).filter(r => !r.closest('table table') || r.closest('table') === t);
    if (!rows.length) continue;
    const width = r => Array.from(r.cells).reduce((s, c) => s + (c.colSpan || 1), 0);
    const head = t.tHead && t.tHead.rows.length ? width(t.tHead.rows[0]) : width(rows[0]);
    for (const r of rows) if (r.closest('table') === t && width(r) !== head) {
      out.badRows.push(`${width(r)} cells, header ${head}: ` + r.textContent.replace(/\s+/g, ' ').trim().slice(0, 60));
      if (out.badRows.length >= 3) break;
    }
  }

  // icons: every icon element draws something (a CSS mask, or a glyph of a loaded icon font)
  out.blankIcons = [];
  for (const i of document.querySelectorAll('i.fa, i[class*="fa-"], .anim-buttons button i')) {
    if (!i.checkVisibility()) continue;
    const b = getComputedStyle(i, '::before');
    const mask = b.webkitMaskImage || b.maskImage || 'none';
    const drawsMask = mask !== 'none' && /url\(/.test(mask);
    const content = b.content && b.content !== 'none' && b.content !== 'normal' && b.content !== '""';
    const font = getComputedStyle(i).fontFamily;
    const glyph = content && /Font Awesome/i.test(font) && document.fonts.check(`16px ${font}`, b.content.replace(/"/g, ''));
    if (!drawsMask && !glyph) {
      const btn = i.closest('button');
      out.blankIcons.push((btn && (btn.title || btn.getAttribute('aria-label'))) || i.className);
      if (out.blankIcons.length >= 5) break;
    }
  }
  // the animation player's buttons on one row
  out.wrappedButtons = [];
  for (const row of document.querySelectorAll('.anim-buttons')) {
    const tops = Array.from(row.querySelectorAll('button')).filter(b => b.checkVisibility()).map(b => Math.round(b.getBoundingClientRect().top));
    if (tops.length && Math.max(...tops) - Math.min(...tops) > 2) out.wrappedButtons.push(`${new Set(tops).size} rows of buttons`);
  }

  // content cut at an edge: maths, figures, tables and code wider than a box that hides the rest (clipped), or
  // that scrolls without showing that it does (no shadow at its edge)
  out.clipped = []; out.noHint = [];
  const hidden2 = Array.from(document.querySelectorAll('mjx-assistive-mml'));
  hidden2.forEach(e => e.style.setProperty('display', 'none', 'important'));
  const what = el => el.tagName.toLowerCase() === 'mjx-container'
    ? (el.getAttribute('display') === 'true' ? 'display maths' : 'inline maths') + ' ' + (el.textContent || '').slice(0, 40)
    : `${el.tagName.toLowerCase()}.${String(el.className).split(' ')[0]} ` + (el.getAttribute('src') || el.textContent || '').replace(/\s+/g, ' ').slice(0, 40);
  for (const el of article.querySelectorAll('mjx-container, img, table, pre')) {
    if (!el.checkVisibility()) continue;
    const box0 = el.getBoundingClientRect();
    if (box0.width === 0) continue;
    // a box that lets its content spill (a <pre> with overflow: visible) is as wide as that content
    const r = {left: box0.left, right: box0.left + Math.max(box0.width, el.scrollWidth)};
    // maths and tables may be their own scroll box (display maths, a table with display: block)
    const own = getComputedStyle(el);
    if (own.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1) {
      const more = el.scrollWidth - el.clientWidth;
      if (!/auto|scroll/.test(own.overflowX)) out.clipped.push(what(el) + ` (${more} px hidden)`);
      else if (own.backgroundImage === 'none') out.noHint.push(what(el) + ` (${more} px to scroll to, no hint)`);
      continue;
    }
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const st = getComputedStyle(a);
      // overflow does not apply to an inline box (span.math reports "auto" and clips nothing)
      if (st.overflowX === 'visible' || st.display === 'inline' || st.display === 'contents') continue;
      const box = a.getBoundingClientRect();
      const cut = r.right - box.right;
      if (cut > 1 || box.left - r.left > 1) {
        if (/auto|scroll/.test(st.overflowX)) {
          if (st.backgroundImage === 'none' && a.scrollWidth > a.clientWidth + 1)
            out.noHint.push(what(el) + ` (${Math.round(cut)} px to scroll to, no hint)`);
        } else out.clipped.push(what(el) + ` (${Math.round(cut)} px cut by ${a.tagName.toLowerCase()}.${String(a.className).split(' ')[0]})`);
      }
      break;
    }
    if (out.clipped.length + out.noHint.length >= 6) break;
  }
  hidden2.forEach(e => e.style.removeProperty('display'));

  // alt text of images: a description, not the file's path or name
  out.pathAlts = Array.from(document.images).filter(i => i.checkVisibility() || i.closest('article'))
    .map(i => (i.getAttribute('alt') || '').trim())
    .filter(a => /\.(?:png|jpe?g|gif|svg|webp)\b|^[.\/\w-]*\/[\w.-]+$|_build|jupyter_execute/i.test(a)).slice(0, 5);
  // the animation player's frame too (robokin.plotting.animation_html(anim, alt=...))
  out.noAlt = Array.from(article.querySelectorAll('.cell_output img, figure img, img.robokin-figure'))
    .filter(i => !(i.getAttribute('alt') || '').trim()).length;

  // a short code word in a table cell broken across lines ("test_in" / "dex": a squeezed column)
  out.codeBreaks = [];
  for (const c of article.querySelectorAll('td code, th code')) {
    const t = c.textContent.trim();
    if (!t || t.length > opts.shortCode || !c.checkVisibility()) continue;
    const tops = new Set(Array.from(c.getClientRects()).filter(r => r.width > 0 && r.height > 0).map(r => Math.round(r.top)));
    if (tops.size > 1) {
      out.codeBreaks.push(`${JSON.stringify(t)} on ${tops.size} lines in a ${Math.round(c.closest('td, th').getBoundingClientRect().width)} px cell`);
      if (out.codeBreaks.length >= 5) break;
    }
  }

  // cells whose input is hidden (tag hide-input): collapsed, with the code still on the page
  out.hiddenInputs = [];
  for (const c of article.querySelectorAll('.cell.tag_hide-input')) {
    const d = c.querySelector('details');
    if (!d || d.open || !d.querySelector('pre') || !d.querySelector('summary'))
      out.hiddenInputs.push(!d ? 'no toggle' : d.open ? 'shown open' : 'no code inside the toggle');
  }
  return out;
}
"""

# Visible links of the site navigation (either in the wide sidebar or in the phone's dialog).
_NAV_SHOWN = r"""
(sel) => Array.from(document.querySelectorAll(sel)).filter(a => {
  if (!a.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) return false;
  const r = a.getBoundingClientRect();
  if (!(r.width > 0 && r.height > 0 && r.right > 0 && r.left < innerWidth && r.bottom > 0 && r.top < innerHeight))
    return false;
  const hit = document.elementFromPoint(Math.min(innerWidth - 1, Math.max(0, r.left + 2)), r.top + r.height / 2);
  return !!hit && (hit === a || a.contains(hit) || hit.contains(a));
}).length
"""

# Where to tap beside an open modal drawer (<dialog open>), or null when there is none.
_DRAWER = r"""
() => { const d = document.querySelector('dialog[open]'); if (!d) return null;
        const r = d.getBoundingClientRect();
        const x = (innerWidth - r.right > r.left) ? (r.right + innerWidth) / 2 : r.left / 2;
        return (x < 1 || x > innerWidth - 1) ? null : [x, innerHeight / 2]; }
"""

TOGGLES = (
    # (what the reader calls it, the button, what must appear or disappear)
    (
        "site navigation",
        ".primary-toggle",
        ".bd-sidebar-primary a.reference, #pst-primary-sidebar-modal a.reference, nav.bd-links a",
    ),
    (
        "contents of this page",
        ".secondary-toggle",
        ".bd-sidebar-secondary a.reference, #pst-secondary-sidebar-modal a.reference, .bd-toc-nav a",
    ),
)


def check_toggles(v, *, required=("site navigation",), shot=None):
    """Tap each visible sidebar toggle twice, as a reader would; the navigation must appear and then disappear."""
    page, problems = v.page, []
    page.evaluate("window.scrollTo(0, 0)")
    for name, button, links in TOGGLES:
        boxes = [b for b in page.locator(button).all() if b.is_visible() and (b.bounding_box() or {}).get("width")]
        if not boxes:
            if name in required:
                problems.append(Problem("sidebar", f"no visible button for the {name} at {v.viewport} width"))
            continue
        states = [page.evaluate(_NAV_SHOWN, links)]
        for k in range(2):
            box = boxes[0].bounding_box()  # the button may move when the sidebar opens or closes
            drawer = page.evaluate(_DRAWER) if k == 1 else None
            if drawer:  # a drawer over the page (phone): the reader taps beside it to close it
                page.mouse.click(*drawer)
            elif box:
                page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            else:
                break
            page.wait_for_timeout(450)
            states.append(page.evaluate(_NAV_SHOWN, links))
            if shot and k == 0 and name == "site navigation":
                page.screenshot(path=str(shot))
        shown = [s > 0 for s in states]
        if len(shown) < 3 or not (shown[0] != shown[1] and shown[2] == shown[0]):
            problems.append(
                Problem(
                    "sidebar",
                    f"the {name} button at {v.viewport} width does not open and close it "
                    f"(visible links before/after 1st/2nd tap: {states})",
                )
            )
        if shown[-1] != shown[0]:  # leave the page as it was for the screenshot
            page.keyboard.press("Escape")
    return problems


#: header of the claims audit page's second column, English and Chinese (book/claims.md and its catalogue)
CLAIMS_HEADERS = ("checked by", "检查方式")


def claims_unlinked(html: str) -> list[str]:
    """Rows of the claims audit page whose "checked by" cell has no link (start of the row's text each).

    Only tables whose second header cell is one of :data:`CLAIMS_HEADERS` are read; a cell passes when it holds an
    ``<a href=...>``: the section of the chapter where the check sits, or the test file in the repository.
    """
    from html.parser import HTMLParser

    class _Rows(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tables, self.cell, self.row, self.in_head = [], None, None, False

        def handle_starttag(self, tag, attrs):
            if tag == "table":
                self.tables.append({"head": [], "rows": []})
            elif tag == "thead":
                self.in_head = True
            elif tag == "tbody":
                self.in_head = False
            elif tag == "tr" and self.tables:
                self.row = []
            elif tag in ("td", "th") and self.row is not None:
                self.cell = {"text": "", "link": False}
            elif tag == "a" and self.cell is not None and dict(attrs).get("href"):
                self.cell["link"] = True

        def handle_data(self, data):
            if self.cell is not None:
                self.cell["text"] += data

        def handle_endtag(self, tag):
            if tag in ("td", "th") and self.cell is not None and self.row is not None:
                self.row.append(self.cell)
                self.cell = None
            elif tag == "tr" and self.row is not None and self.tables:
                self.tables[-1]["head" if self.in_head else "rows"].append(self.row)
                self.row = None

    parser = _Rows()
    parser.feed(html)
    out = []
    for t in parser.tables:
        head = [c["text"].strip().lower() for c in (t["head"][0] if t["head"] else [])]
        if len(head) < 2 or head[1] not in CLAIMS_HEADERS:
            continue
        for r in t["rows"]:
            if len(r) >= 2 and not r[1]["link"]:
                out.append("checked-by cell without a link: " + " ".join(r[0]["text"].split())[:60])
    return out


def check_page(v, *, chapter=None, budget=None, figure_dpi=FIGURE_DPI, toggles=True, nav_shot=None):
    """Every check of a loaded page; returns a list of :class:`Problem` (empty: the page is fine).

    Parameters
    ----------
    v : Visit
    chapter : int, optional
        Chapter number: exercises must then read ``Exercise <chapter>.1``, ``<chapter>.2``, ...
    budget : int, optional
        Maximum bytes downloaded by the page; by default :data:`ANIMATION_BUDGET` for a page with an animation
        player, else :data:`PAGE_BUDGET`.
    """
    p = []
    stalled = v.stalled or {}
    for src in stalled.get("images", [])[:3]:
        p.append(Problem("image-wait", f"{v.url}: image {src} still not loaded after {stalled['seconds']} s"))
    if stalled.get("mathjax"):
        p.append(Problem("image-wait", f"{v.url}: MathJax still typesetting after {stalled['seconds']} s"))
    o = v.page.evaluate(_PROBE, {"shortCode": SHORT_CODE})
    if toggles:
        p += check_toggles(v, shot=nav_shot)
    p += [Problem("external", u[:120]) for u in v.external[:3]]
    p += [Problem("console", e[:200]) for e in v.errors[:3]]
    p += [Problem("http", f) for f in v.failed[:3]]
    nbytes = v.bytes()
    if budget is None:
        budget = ANIMATION_BUDGET if o["animations"] else PAGE_BUDGET
    if nbytes > budget:
        big = sorted(((r.sizes()["responseBodySize"], r.url.rsplit("/", 1)[-1][:50]) for r in v.requests), reverse=True)
        p.append(
            Problem(
                "weight",
                f"{nbytes / 1e6:.2f} MB > budget {budget / 1e6:.1f} MB; largest: "
                + ", ".join(f"{n} {s / 1e6:.2f} MB" for s, n in big[:3]),
            )
        )
    p += [Problem("raw-tex", t) for t in o["rawTex"][:3]]
    p += [Problem("mathjax-error", t) for t in o["mathErrors"][:3]]
    p += [Problem("control-char", t) for t in o["ctrl"][:3]]
    p += [Problem("md-table", t) for t in o["mdTables"][:3]]
    if o["scrollWidth"] > o["clientWidth"] + 1:
        p.append(
            Problem(
                "overflow",
                f"page is {o['scrollWidth']} px wide in a {o['clientWidth']} px viewport: "
                + "; ".join(o["overflowers"]),
            )
        )
    p += [Problem("cells-touch", t) for t in o["touching"][:3]]
    if v.viewport == "desktop":
        p += [Problem("wide-table", t) for t in o["wideTables"][:3]]
    p += [Problem("path-leak", t) for t in o["paths"][:3]]
    p += [Problem("py-warning", t) for t in o["warnings"][:3]]
    if o["stderr"] and not o["warnings"]:
        p.append(Problem("py-warning", f"{o['stderr']} stderr output(s) on the page"))
    for im in o["images"]:
        if not im["ok"]:
            p.append(Problem("broken-image", im["src"]))
        elif im["visible"] and not im["svg"]:
            if im["shown"] > im["natural"] + 0.5:
                p.append(Problem("upscaled", f"{im['src']}: {im['natural']} px shown at {im['shown']:.0f} px"))
            inches = im["natural"] / (im["dpi"] or figure_dpi)  # data-dpi: animation frames (robokin.plotting)
            if im["fig"] and im["shown"] < MIN_PX_PER_INCH * inches - 0.5:
                p.append(
                    Problem(
                        "tiny-figure",
                        f"{im['src']}: a {inches:.1f} in figure shown "
                        f"{im['shown']:.0f} px wide (< {MIN_PX_PER_INCH} px per inch)",
                    )
                )
    if o["widgets"]:
        p.append(Problem("dead-widget", f"{o['widgets']} widget view(s) that need a running kernel"))
    if o["darkPage"] and any(im["fig"] for im in o["images"]):
        p.append(Problem("dark", "dark page background behind figures drawn for a white page"))
    if o["themeSwitch"]:
        p.append(Problem("dark", "a theme switch leads to a dark mode the figures are not drawn for"))
    p += [Problem("hidden-bar", f"before the title {o['title'][:40]!r}: {t}") for t in o["barAbove"][:2]]
    if chapter is not None:
        nums = [re.match(rf"Exercise {chapter}\.(\d+)\b", t) for t in o["exercises"]]
        if not all(nums) or [int(m.group(1)) for m in nums] != list(range(1, len(nums) + 1)):
            p.append(Problem("numbering", f"chapter {chapter} exercises are titled {o['exercises'][:4]}"))
        bad = [t for t in o["solutions"] if not re.search(rf"Exercise {chapter}\.\d+", t)]
        if bad:
            p.append(Problem("numbering", f"solutions that do not say which exercise they solve: {bad[:3]}"))
    p += [Problem("raw-myst", t) for t in o["rawMyst"][:3]]
    p += [Problem("raw-label", t) for t in o["rawLabels"][:3]]
    p += [Problem("raw-glue", t) for t in o["rawGlue"][:3]]
    p += [Problem("double-paren", t) for t in o["doubleParen"][:3]]
    p += [Problem("table-cells", t) for t in o["badRows"][:3]]
    p += [Problem("icon", f"blank icon: {t}") for t in o["blankIcons"][:3]]
    p += [Problem("wrap", f"animation player at {v.viewport} width: {t}") for t in o["wrappedButtons"][:2]]
    p += [Problem("clipped", t) for t in o["clipped"][:3]]
    p += [Problem("scroll-hint", t) for t in o["noHint"][:3]]
    p += [Problem("alt-text", f"alt text is a file path: {t!r}") for t in o["pathAlts"][:3]]
    if o["noAlt"]:
        p.append(Problem("alt-text", f"{o['noAlt']} figure(s) without alt text"))
    p += [Problem("hide-input", f"a hide-input cell: {t}") for t in o["hiddenInputs"][:3]]
    p += [
        Problem("code-break", f"short code broken in a table cell at {v.viewport} width: {t}")
        for t in o["codeBreaks"][:3]
    ]
    if chapter is not None:
        for kind, found in (("figure", o["figNumbers"]), ("equation", o["eqNumbers"])):
            ks = [re.search(rf"(?<![\d.]){chapter}\.(\d+)\b", t) for t in found]
            if not all(ks) or [int(m.group(1)) for m in ks] != list(range(1, len(ks) + 1)):
                p.append(Problem("numbering", f"chapter {chapter} {kind}s are numbered {found[:4]}"))
    if urlparse(v.url).path.endswith("/claims.html"):
        p += [Problem("claims-link", t) for t in claims_unlinked(v.page.content())[:3]]
    if o["searchBoxes"] > 1:
        p.append(Problem("two-search", f"{o['searchBoxes']} search boxes visible at {v.viewport} width"))
    return p


def check_dark(browser, url, *, viewport="desktop"):
    """A reader whose system prefers dark: the page must not put light figures on a dark background."""
    v = visit(browser, url, viewport=viewport, color_scheme="dark")
    try:
        o = v.page.evaluate(_PROBE, {"shortCode": SHORT_CODE})
        p = []
        if o["darkPage"] and any(im["fig"] for im in o["images"]):
            p.append(Problem("dark", "with a dark system theme the page turns dark behind light figures"))
        if o["themeSwitch"]:
            p.append(Problem("dark", "a theme switch leads to a dark mode the figures are not drawn for"))
        return p
    finally:
        v.close()


def search(browser, base, query, *, viewport="desktop", budget=SEARCH_BUDGET):
    """Run a search as a reader would and check the results page (snippets, bytes); returns (visit, problems)."""
    # Sphinx writes the summary ("Search finished, found N pages ...") after the last snippet has been fetched
    done = (
        "() => { const s = document.querySelector('#search-results .search-summary');"
        " return !!s && /found|did not match/i.test(s.textContent); }"
    )
    v = visit(browser, f"{base}/search.html?q={query}", viewport=viewport, wait_for=done)
    p = check_page(v, budget=budget, toggles=False)
    n = v.page.evaluate("() => document.querySelectorAll('#search-results ul.search li').length")
    if n == 0:
        p.append(Problem("no-results", f"search for {query!r} found nothing"))
    return v, p


def check_switch_anchor(browser, url, section, *, viewport="desktop"):
    """Open ``url#section``, follow the language switch as a reader would: the twin page must open at the same
    section (the ``#section`` anchor kept, and an element with that id there). Problem code ``lang-anchor``."""
    v = visit(browser, f"{url}#{section}", viewport=viewport)
    try:
        link = v.page.locator("a.robokin-lang-switch")
        if link.count() != 1 or not link.is_visible():
            return [Problem("lang-anchor", f"no visible language switch on {url}")]
        before = v.page.url
        link.click()
        v.page.wait_for_url(lambda u: u.split("#")[0] != before.split("#")[0], timeout=10000)
        v.page.wait_for_load_state("load")
        after = v.page.url
        there = v.page.evaluate("(id) => !!document.getElementById(id)", section)
    finally:
        v.close()
    if urlparse(after).fragment != section:
        return [Problem("lang-anchor", f"{before} -> {after}: the #{section} anchor was dropped")]
    if not there:
        return [Problem("lang-anchor", f"{after}: no element with id {section!r} on the twin page")]
    return []
