"""Browser test of the built site (run by ``make check-site`` after ``make book``).

Headless Chromium (Debian's ``chromium``) loads every chapter page from a local HTTP server, with every request to
another host blocked, and checks: maths typeset by MathJax (no raw ``\\(``), every image loaded, every animation
player present, no console errors, no request that left the machine. Two screenshots per chapter (the top, and
the first figure) go to ``_build/screenshots/``.
"""

import functools
import http.server
import json
import re
import shutil
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"


def _chapters():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    return [f for f in files if f.startswith("notebooks/")]


CHAPTERS = _chapters()


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def server():
    if not (HTML / "index.html").exists():
        pytest.fail("_build/html is missing: run `make book` first (make check-site does)")
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(HTML))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="install the [site] extra (make check-site does)")
    exe = _chromium()
    if exe is None:
        pytest.fail("Chromium not found: `apt-get install chromium` (make check-site does)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=exe,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"],
        )
        yield b
        b.close()


def _has_animation(stem):
    nb = json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text())
    players = ("animation_html(", "to_jshtml(")
    return any(p in "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code" for p in players)


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[Path(c).name for c in CHAPTERS])
def test_chapter_page(server, browser, chapter):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors, external = [], []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))

    def route(r):
        host = urlparse(r.request.url).hostname
        if host in ("127.0.0.1", None) or r.request.url.startswith("data:"):
            r.continue_()
        else:  # the site must be self-contained: nothing may come from a CDN
            external.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.goto(f"{server}/{chapter}.html", wait_until="load")
    page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=20000)
    page.evaluate("MathJax.startup.promise")
    page.wait_for_timeout(300)

    n_math = page.locator("mjx-container").count()
    assert n_math > 0, "no MathJax output on the page"
    text = page.evaluate(
        "() => { const a = document.querySelector('article') || document.body; const c = a.cloneNode(true);"
        " c.querySelectorAll('pre, code, script, .cell_output').forEach(e => e.remove()); return c.innerText; }"
    )
    raw = re.findall(r"\\\(|\\\[|\$\$", text)
    assert not raw, f"untypeset maths left in the text: {raw[:3]}"
    broken = page.evaluate(
        "() => Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src.slice(0, 80))"
    )
    assert not broken, f"images that did not load: {broken}"
    n_img = page.evaluate("() => document.querySelectorAll('article img').length")
    assert n_img > 0, "a chapter without a single figure"
    stem = Path(chapter).name
    if _has_animation(stem):
        assert page.locator(".animation").count() >= 1, "animation player missing"
    assert page.locator("details.dropdown, .dropdown").count() > 0, "no dropdown solutions found"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{stem}.png"))  # title, objectives
    page.locator("article img").first.scroll_into_view_if_needed()
    page.wait_for_timeout(200)
    page.screenshot(path=str(SHOTS / f"{stem}_figure.png"))  # the first figure with the text around it
    page.close()
    assert not external, f"requests left the site: {external[:3]}"
    assert not errors, f"browser console errors: {errors[:3]}"
