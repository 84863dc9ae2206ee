"""What a student sees in JupyterLab: a chapter opened, Run All, checked in headless Chromium.

Used by ``tests/test_lab.py`` (``make check-lab``). :func:`lab_server` starts JupyterLab on 127.0.0.1 with a random
token, its own settings (no autosave, every cell in the DOM, no news) and its own config and runtime folders, serving
a folder of notebooks; :func:`check_notebook` opens one, runs all cells from the Run menu and returns a list of
:class:`sitecheck.Problem`. Problem codes:

==================  ================================================================================================
``source``          a role or directive that jupyterlab-myst does not render (``{glue:text}`` shows as its bare key,
                    ``{glue:figure}`` as "Unknown Directive"): checked on the notebook source, since an unknown
                    role renders as plain text and cannot be told apart in the page; or ``{eval}`` results saved in
                    a cell's metadata (Lab would show those stale numbers until the cell runs again)
``not-myst``        a Markdown cell not rendered by jupyterlab-myst (the extension is missing or failed)
``raw-myst``        MyST source in the rendered text: a role (``{cite}`x```), a directive fence, ``:label:``
``raw-tex``         TeX source outside typeset maths (``$``, ``\\frac``, ``\\(``, ...)
``myst-warning``    jupyterlab-myst's warning mark: maths that does not typeset, a reference that does not resolve,
                    an ``{eval}`` not executed or failed, an unknown directive (a citation of a key that is in
                    ``book/references.bib`` is reported as ``citation`` instead; any other key is a warning)
``error``           an error or stderr output of a code cell (stderr of a cell tagged ``remove-stderr`` is expected)
``figure``          a broken image, or a code cell with ``mystnb.figure`` metadata that shows no image
``caption``         the caption of a figure (``mystnb.figure.caption``, which the book shows under it) is not in
                    the figure's cell nor in the cell below (known: see :data:`KNOWN`)
``slider``          a "Try it live" section without a slider, or moving it does not change the cell's output
``timeout``         Run All did not finish
``placeholder``     an ``{eval}`` role shown as its code (``glued("key")``) after Run All: Lab did not evaluate it
``solution``        the code of an exercise solution (``tools/nb_meta.py``'s rule) visible in Lab
``citation``        a ``{cite}`` shown as its bare key with jupyterlab-myst's warning mark (known: see
                    :data:`KNOWN`)
``modified``        the notebook is marked modified right after it opened and its kernel started: its
                    ``kernelspec`` or ``language_info`` is not what Lab writes (``tools/nb_meta.py`` sets both)
``kernel-version``  marked modified on open only because this kernel's Python is another patch level than the one
                    stored in the notebook (a property of this machine, see :data:`ELSEWHERE`)
``stray-file``      a file or folder that Run All wrote into the notebook's folder (``MUJOCO_LOG.TXT``, ...)
``page-error``      an uncaught exception in the page (e.g. ``Cannot read properties of undefined``)
==================  ================================================================================================

The Lab settings are the project's (``lab/settings/overrides.json``, which ``make lab`` uses too), so the check sees
what a student sees; only what must not happen in a test run (autosave, news) is changed on top.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

import nbformat
from sitecheck import Problem

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from nb_meta import lab_metadata, solution_cells  # noqa: E402  (one rule each: the tool sets the metadata)

#: Roles and directives that jupyterlab-myst 2.x renders (checked in tests/test_lab.py's fixture notebook).
LAB_ROLES = {"eval", "eq", "cite", "cite:p", "cite:t", "numref", "ref", "prf:ref", "math", "sub", "sup", "abbr", "kbd"}
LAB_DIRECTIVES = {
    "math",
    "note",
    "tip",
    "hint",
    "important",
    "warning",
    "caution",
    "attention",
    "danger",
    "error",
    "seealso",
    "admonition",
    "dropdown",
    "exercise",
    "solution",
    "exercise-start",
    "exercise-end",
    "solution-start",
    "solution-end",
    "figure",
    "image",
    "list-table",
    "code",
    "code-block",
}
_DIRECTIVE = re.compile(r"^\s*(?:`{3,}|:{3,})\s*\{(?P<name>[a-z][\w:.-]*)\}", re.M)
# a role with its content, or an inline code span (whose text is not parsed: roles inside it are examples)
_INLINE = re.compile(r"\{(?P<role>[a-z][\w:.-]*)\}`[^`\n]*`|``[^`\n]+``|`[^`\n]+`")

#: The project's Lab defaults (``make lab`` passes the same folder as ``--LabApp.app_settings_dir``). Windowing is
#: off there: jupyterlab-myst evaluates a Markdown cell's ``{eval}`` roles from the syntax tree of its last render,
#: and a windowed notebook never renders the cells out of view, so Run All left them showing ``glued("...")``.
APP_SETTINGS = ROOT / "lab" / "settings"

#: Problem codes that no file of the project can fix today (reported, and tolerated by tests/test_lab.py with an
#: expected-failure note): jupyterlab-myst 2 has no bibliography (it renders every ``{cite}`` against an empty
#: reference list, whatever the notebook's metadata, front matter or folder holds), so every ``{cite}`` shows its key
#: with a warning mark. Lab shows no cell metadata: a code cell's caption (``mystnb.figure.caption``, the book's
#: figure caption) is in no rendered cell, and jupyterlab-myst renders Markdown cells only. (Modified on open, the
#: third defect of issue 34, is fixed: the notebooks store the ``kernelspec`` and ``language_info`` Lab writes.)
KNOWN = {"citation", "caption"}
#: Problem codes that say something about the machine, not the notebooks (tolerated like :data:`KNOWN`): Lab writes
#: the ``language_info`` of the kernel it started, whose ``version`` is that Python's; the notebooks store the patch
#: level of the Python that first wrote it (tools/nb_meta.py keeps it, so the tool agrees with itself everywhere).
ELSEWHERE = {"kernel-version"}

# Lab settings for a test run on top of the project's: nothing written back to the notebook, no pop-ups.
SETTINGS = {
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
}


#: TeX macros that MathJax (the book) knows and the KaTeX of jupyterlab-myst does not: Lab shows a red "Undefined
#: control sequence" in their place (seen for \\dddot in chapter 7 in a CI run). Write q^{(3)} for a third derivative.
KATEX_MISSING = ("dddot", "ddddot")
_KATEX_MISSING = re.compile(r"\\(" + "|".join(KATEX_MISSING) + r")(?![A-Za-z])")


def source_problems(nb) -> list[Problem]:
    """Roles and directives in the Markdown cells that JupyterLab cannot render, and stored {eval} results."""
    out = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        if "user_expressions" in cell.metadata:  # jupyterlab-myst shows stored results before Run All: stale numbers
            out.append(Problem("source", f"cell {i}: stored {{eval}} results (strip cell.metadata.user_expressions)"))
        bad = {}
        # one left-to-right scan: a role with its content is one token, so the backtick that closes a role never
        # opens an "inline code span" that would hide the next role
        for m in _INLINE.finditer(cell.source):
            if m["role"] and m["role"] not in LAB_ROLES:
                bad[f"role {{{m['role']}}}"] = bad.get(f"role {{{m['role']}}}", 0) + 1
        for m in _DIRECTIVE.finditer(cell.source):
            name = m["name"]
            if name not in LAB_DIRECTIVES and not name.startswith("prf:"):
                bad[f"directive {{{name}}}"] = bad.get(f"directive {{{name}}}", 0) + 1
        for m in _KATEX_MISSING.finditer(cell.source):
            bad[f"TeX macro \\{m[1]}"] = bad.get(f"TeX macro \\{m[1]}", 0) + 1
        out += [Problem("source", f"cell {i}: {n} x {what} does not render in JupyterLab") for what, n in bad.items()]
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def lab_server(notebook_dir, *, timeout=90, settings=None):
    """Run JupyterLab on 127.0.0.1 serving ``notebook_dir``; yields ``(base_url, token, seconds_to_start)``.

    ``settings`` (``{"<plugin file>.jupyterlab-settings": {...}}``) are user settings on top of :data:`SETTINGS`:
    the fixture of tests/test_lab.py uses them to show what Lab's own defaults do.
    """
    token = secrets.token_hex(16)
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="robokin-lab-") as tmp:
        tmp = Path(tmp)
        for name, value in {**SETTINGS, **(settings or {})}.items():
            path = tmp / "settings" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(value), encoding="utf-8")
        env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp / "config"), JUPYTER_RUNTIME_DIR=str(tmp / "runtime"))
        env.pop("JUPYTER_TOKEN", None)
        cmd = [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={notebook_dir}",
            f"--LabApp.app_settings_dir={APP_SETTINGS}",
            f"--LabApp.user_settings_dir={tmp / 'settings'}",
            f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
            "--LabApp.news_url=None",
            "--allow-root",
        ]
        log = open(tmp / "server.log", "wb")
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        base = f"http://127.0.0.1:{port}"
        try:
            while True:
                try:
                    with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
                if proc.poll() is not None or time.monotonic() - t0 > timeout:
                    log.flush()
                    tail = (tmp / "server.log").read_text(errors="replace")[-2000:]
                    raise RuntimeError(f"JupyterLab did not start (exit code {proc.poll()}):\n{tail}")
                time.sleep(0.3)
            yield base, token, time.monotonic() - t0
        finally:
            proc.terminate()  # the server shuts its kernels down on SIGTERM
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()


#: The notebook on screen (other panels are hidden).
NB = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook"


def _wait_for_kernel(page, base, token, name, timeout=90):
    """Wait until the notebook's kernel is up and idle (the server's sessions say so), answering Lab's "Select
    Kernel" dialog (it may ask on a server's first notebook) with the kernel the notebook names."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        accept = page.locator(".jp-Dialog .jp-mod-accept")
        if accept.count():
            accept.first.click()
        with urllib.request.urlopen(f"{base}/api/sessions?token={token}", timeout=10) as r:
            sessions = json.load(r)
        if any(s["path"].endswith(name) and (s.get("kernel") or {}).get("execution_state") == "idle" for s in sessions):
            return
        page.wait_for_timeout(300)
    raise TimeoutError(f"no idle kernel for {name} after {timeout} s")


def _menu(page, menu, item):
    page.click(f".lm-MenuBar-itemLabel:text-is('{menu}')")
    page.click(f".lm-Menu-itemLabel:text-is('{item}')")


# Run All has finished: the kernel is idle, no cell is queued ([*]) and the first code cell has run, and this has
# held for 2 s (the kernel is idle for a moment between two cells). After an error Lab leaves the cells below it
# unrun, so "every cell has a number" would wait forever. A cell with hidden source (jupyter.source_hidden) shows
# an empty prompt in its placeholder whatever its state: only the prompts of cells that show their source count.
_DONE = """(NB) => {
  const prompts = [...document.querySelectorAll(NB + ' .jp-CodeCell .jp-InputPrompt:not(.jp-Placeholder-prompt)')]
    .map(p => p.textContent);
  const st = document.querySelector('.jp-Notebook-ExecutionIndicator');
  const now = prompts.length > 0 && /\\[\\d+\\]/.test(prompts[0]) && !prompts.some(p => p.includes('*'))
    && (!st || st.getAttribute('data-status') === 'idle');
  if (!now) { window.__robokinIdleSince = undefined; return false; }
  window.__robokinIdleSince = window.__robokinIdleSince || Date.now();
  return Date.now() - window.__robokinIdleSince >= 2000;
}"""

_PROBE = r"""
(NB) => {
  const out = {cells: [], outputs: []};
  const SKIP = 'pre, code, .katex, .katex-display, math, script, style, svg';
  const texRe = /\$|\\(?:[a-zA-Z]{2,}|[()\[\]{}])/;
  const roleRe = /\{[a-z][\w:.-]*\}`/;
  const dirRe = /(```|:::)\s*\{[a-z]|^\s*:(label|class|name|width):/m;
  document.querySelectorAll(NB + ' .jp-Cell').forEach((cell, i) => {
    if (cell.classList.contains('jp-MarkdownCell')) {
      const root = cell.querySelector('.myst');
      const c = {i, myst: !!root, raw: [], tex: [], warn: [], code: []};
      if (root) {
        root.querySelectorAll('code').forEach(e => { if (!e.closest('pre')) c.code.push(e.textContent); });
        const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let n = w.nextNode(); n; n = w.nextNode()) {
          const p = n.parentElement, t = n.nodeValue;
          if (roleRe.test(t) || dirRe.test(t)) c.raw.push(t.slice(0, 120));
          if (!p || p.closest(SKIP) || p.closest('.text-yellow-600')) continue;
          const m = t.match(texRe);
          if (m) c.tex.push(t.slice(Math.max(0, m.index - 40), m.index + 40).replace(/\s+/g, ' '));
        }
        root.querySelectorAll('.text-yellow-600[title], [data-mime-type*="stderr"], [data-mime-type*="error"]')
          .forEach(e => c.warn.push([e.getAttribute('title') || 'error', e.textContent.trim().slice(0, 120)]));
        if (/Unknown Directive/.test(root.textContent)) c.warn.push(['Unknown Directive', root.textContent.slice(0, 80)]);
      }
      out.cells.push(c);
    } else if (cell.classList.contains('jp-CodeCell')) {
      const shown = sel => [...cell.querySelectorAll(sel)].some(e => e.getClientRects().length > 0);
      const o = {i, errors: [], imgs: 0, broken: 0, input: shown('.jp-InputArea')};
      cell.querySelectorAll('.jp-OutputArea-output').forEach(e => {
        const mt = e.getAttribute('data-mime-type') || '';
        if (/error|stderr/.test(mt)) o.errors.push([mt, e.textContent.trim().slice(0, 200)]);
      });
      cell.querySelectorAll('.jp-OutputArea img').forEach(im => {
        o.imgs++;
        if (im.complete && im.naturalWidth === 0) o.broken++;
      });
      out.cells.push(o);
    } else out.cells.push({i});
    out.cells[out.cells.length - 1].text = (cell.innerText || '').replace(/\s+/g, ' ').slice(0, 20000);
  });
  return out;
}
"""


# The notebook's tab shows the modified mark.
_DIRTY = """(NB) => !!document.querySelector('.lm-DockPanel-tabBar .lm-TabBar-tab.jp-mod-current.jp-mod-dirty')"""

_EVAL = re.compile(r"\{eval\}`(?P<expr>[^`\n]+)`")


def _eval_expressions(source: str) -> set[str]:
    return {m["expr"] for m in _EVAL.finditer(source)}


def _folder_files(folder: Path) -> set[str]:
    """Names in ``folder`` (one level): what a run may add there. Lab's and Python's cache folders are their own."""
    return {p.name for p in Path(folder).iterdir() if p.name not in (".ipynb_checkpoints", "__pycache__")}


_LINK = re.compile(r"\]\((?!https?:|#|/)(?P<top>[^/)\s]+)/")


def _linked_folders(nb) -> set[str]:
    """Folders the chapter's Markdown links into (``[zip](_build_firmware/x.zip)``): files it writes on purpose."""
    return {m["top"] for c in nb.cells if c.cell_type == "markdown" for m in _LINK.finditer(c.source)}


def _bib_keys() -> set[str]:
    text = (ROOT / "book" / "references.bib").read_text(encoding="utf-8")
    return set(re.findall(r"@\w+\{([^,\s]+),", text))


def _slider_cells(nb) -> list[int]:
    """Indices of the code cells under the "Try it live" heading (up to the next Markdown cell)."""
    out, inside = [], False
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            inside = bool(re.search(r"^#+ .*Try it live", cell.source, re.M))
        elif inside:
            out.append(i)
    return out


# What the cell shows: its images (src or canvas pixels) and its text outputs.
_OUTPUT_STATE = """([NB, i]) => {
  const cell = document.querySelectorAll(NB + ' .jp-Cell')[i];
  const area = cell.querySelector('.jp-OutputArea');
  if (!area) return '';
  const pics = [...area.querySelectorAll('img')].map(im => im.src)
    .concat([...area.querySelectorAll('canvas')].map(c => c.toDataURL()));
  const text = [...area.querySelectorAll('.jp-RenderedText')].map(e => e.textContent);
  return pics.concat(text).join('\\n');
}"""


def check_slider(page, nb) -> list[Problem]:
    """Move the first "Try it live" slider three steps with the keyboard: what the cell shows must change."""
    cells = _slider_cells(nb)
    if not cells:
        return []  # the explorer is optional (CONTRIBUTING); a chapter without one has nothing to move
    for i in cells:
        cell = page.locator(f"{NB} .jp-Cell").nth(i)
        handle = cell.locator(".widget-slider .noUi-handle, .widget-slider input[type=range]").first
        if handle.count() == 0:
            continue
        before = page.evaluate(_OUTPUT_STATE, [NB, i])
        handle.scroll_into_view_if_needed()
        handle.focus()
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        try:
            page.wait_for_function(
                f"([b, nb, i]) => ({_OUTPUT_STATE})([nb, i]) !== b", arg=[before, NB, i], timeout=30000
            )
        except Exception:
            return [Problem("slider", f"cell {i}: moving the slider did not change what the cell shows")]
        return []
    return [Problem("slider", f'cells {cells}: no slider under the "Try it live" heading')]


def _caption_words(caption: str) -> str:
    """The first run of plain words of a caption (up to 8; maths, roles and markup end a run), spaces normalised.

    >>> _caption_words("Left: the map of $C$ over (x, y)."), _caption_words("$q_1$ against time, {eq}`eq-x`")
    ('Left: the map of', 'against time,')
    """
    runs = re.split(r"\$[^$]*\$|\{[\w:.-]+\}`[^`]*`|[`*_\[\]\\$]", caption)
    return next((" ".join(r.split()[:8]) for r in runs if r.split()), "")


def _caption_problems(nb, cells) -> list[Problem]:
    """Figures whose caption is shown neither in their cell nor in the cell below it."""
    out = []
    for i, c in enumerate(nb.cells):
        caption = c.metadata.get("mystnb", {}).get("figure", {}).get("caption", "") if c.cell_type == "code" else ""
        words = _caption_words(caption)
        if not words:
            continue
        shown = " ".join(cells[j].get("text", "") for j in (i, i + 1) if j < len(cells))
        if words not in shown:
            name = c.metadata.mystnb.figure.get("name", f"cell-{i}")
            out.append(Problem("caption", f"cell {i}: the caption of {name} is not shown ({words!r}...)"))
    return out


def _why_modified(nb) -> Problem:
    """The problem for a notebook marked modified on open: what it stores against what Lab writes."""
    lab = lab_metadata()  # the kernel this server starts runs this interpreter (jupyter_client's "python")
    stored = nb.metadata.get("language_info", {})
    wanted = lab["language_info"]
    if nb.metadata.get("kernelspec") == lab["kernelspec"] and stored != wanted:
        rest = {k: v for k, v in stored.items() if k != "version"}
        if stored.get("version") and rest == {k: v for k, v in wanted.items() if k != "version"}:
            return Problem(
                "kernel-version",
                f"marked modified on open: the kernel is Python {wanted.get('version')}, the notebook stores "
                f"{stored['version']} in language_info (Lab writes its own)",
            )
    differ = [k for k in ("kernelspec", "language_info") if nb.metadata.get(k) != lab[k]]
    return Problem(
        "modified",
        "marked modified on open, before anything ran"
        + (f": {' and '.join(differ)} differ from what Lab writes (run tools/nb_meta.py)" if differ else ""),
    )


def check_notebook(browser, base, token, path, *, slider=True, run_timeout=300, shot=None) -> tuple[list, dict]:
    """Open the notebook ``path`` (in the server's root folder) in JupyterLab, Run All, check what a student sees.

    Returns ``(problems, info)``; ``info`` has the seconds to open and to run, and the number of images shown.
    """
    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    name = path.name
    problems = source_problems(nb)
    info = {}
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, device_scale_factor=1)
    page = ctx.new_page()
    external, page_errors = [], []
    page.on("pageerror", lambda e: page_errors.append(str(e)))
    before = _folder_files(path.parent)

    def route(r):
        host = urllib.parse.urlparse(r.request.url).hostname
        if r.request.url.startswith(("data:", "blob:")) or host in ("127.0.0.1", None):
            r.continue_()
        else:  # offline: nothing may come from the network
            external.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    try:
        t0 = time.monotonic()
        # a fresh workspace: only this notebook open (Lab would restore the tabs of the previous check)
        page.goto(f"{base}/lab/workspaces/check-{secrets.token_hex(4)}/tree/{name}?reset&token={token}", timeout=60000)
        page.wait_for_selector(".jp-Notebook .jp-MarkdownCell", timeout=60000)
        _wait_for_kernel(page, base, token, name)
        info["open_s"] = round(time.monotonic() - t0, 1)
        page.wait_for_timeout(1000)  # Lab copies the kernel's kernelspec and language_info into the notebook
        if page.evaluate(_DIRTY, NB):
            problems.append(_why_modified(nb))
        t0 = time.monotonic()
        _menu(page, "Run", "Run All Cells")
        try:
            page.wait_for_function(_DONE, arg=NB, timeout=run_timeout * 1000, polling=500)
        except Exception:
            problems.append(Problem("timeout", f"Run All did not finish in {run_timeout} s"))
        info["run_s"] = round(time.monotonic() - t0, 1)
        page.wait_for_timeout(1500)  # the last Markdown cells re-render with their {eval} results
        probe = page.evaluate(_PROBE, NB)
        keys = _bib_keys()
        figure_cells = {
            i: c.metadata.mystnb.figure.get("name", "")
            for i, c in enumerate(nb.cells)
            if c.cell_type == "code" and "figure" in c.metadata.get("mystnb", {})
        }
        figure_names = set(figure_cells.values())
        problems += _caption_problems(nb, probe["cells"])
        info["figures"] = 0
        solutions = set(solution_cells(nb))
        for c in probe["cells"]:
            i = c["i"]
            if "myst" in c:
                if not c["myst"]:
                    problems.append(Problem("not-myst", f"cell {i}: Markdown not rendered by jupyterlab-myst"))
                    continue
                shown_as_code = sorted(_eval_expressions(nb.cells[i].source) & set(c["code"]))
                if shown_as_code:
                    problems.append(
                        Problem(
                            "placeholder", f"cell {i}: {len(shown_as_code)} {{eval}} shown as code: {shown_as_code[0]}"
                        )
                    )
                problems += [Problem("raw-myst", f"cell {i}: {t!r}") for t in c["raw"][:3]]
                problems += [Problem("raw-tex", f"cell {i}: {t!r}") for t in c["tex"][:3]]
                for title, text in c["warn"]:
                    if title == "Citation Not Found" and text in keys:
                        problems.append(Problem("citation", f"cell {i}: {{cite}} shown as its bare key {text!r}"))
                        continue
                    if title == "Cross Reference Not Found" and text in figure_names:
                        # a figure of a code cell (mystnb.figure): Lab numbers only Markdown targets, so it shows the
                        # label; the figure itself is checked below
                        info["figure_refs_as_labels"] = info.get("figure_refs_as_labels", 0) + 1
                        continue
                    problems.append(Problem("myst-warning", f"cell {i}: {title}: {text!r}"))
            elif "errors" in c:
                # stderr that the chapter declares expected (tag remove-stderr: the book hides it) is allowed
                expected = "remove-stderr" in nb.cells[i].metadata.get("tags", [])
                errors = [t for mt, t in c["errors"] if not (expected and mt.endswith("stderr"))]
                problems += [Problem("error", f"cell {i}: {t!r}") for t in errors[:2]]
                info["figures"] += c["imgs"]
                if c["broken"]:
                    problems.append(Problem("figure", f"cell {i}: {c['broken']} broken image(s)"))
                if i in figure_cells and not c["imgs"]:
                    problems.append(Problem("figure", f"cell {i}: the figure {figure_cells[i]} is not shown"))
                if i in solutions and c["input"]:  # its output Lab shows whenever the cell runs, whatever is set
                    problems.append(Problem("solution", f"cell {i}: the solution's code is visible"))
        if shot:  # what a student reads: the first Markdown cell that quotes a number, after Run All
            first = next((i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and "{eval}" in c.source), 0)
            page.locator(f"{NB} .jp-Cell").nth(first).scroll_into_view_if_needed()
            page.wait_for_timeout(500)
            page.screenshot(path=str(Path(shot).with_name(Path(shot).stem + "-text.png")), full_page=False)
        if slider:
            problems += check_slider(page, nb)
        problems += [Problem("external", u[:100]) for u in external[:3]]
        problems += [Problem("page-error", e[:200]) for e in dict.fromkeys(page_errors)]
        problems += [
            Problem("stray-file", f"Run All wrote {n!r} into {path.parent.name}/")
            for n in sorted(_folder_files(path.parent) - before - _linked_folders(nb))
        ]
        if shot:
            page.screenshot(path=str(shot), full_page=False)
    finally:
        ctx.close()
    return problems, info
