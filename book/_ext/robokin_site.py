"""Sphinx extension for the robokin book: what the theme and myst-nb get wrong for a reader.

Each fix is checked in a browser by ``tests/test_site.py`` (``make check-site``):

* duplicate scripts: sphinx-thebe registers its inline configuration twice (console error
  ``Identifier 'THEBE_JS_URL' has already been declared``); exact duplicates are dropped.
* widgets: an ipywidgets view needs a running kernel, so on the static site its sliders would move and change
  nothing. Each view is replaced by the view it showed at its default values (taken from the saved widget state)
  and a note on how to run the cell live; the widget state and the 3.6 MB embed script are then not needed.
* the chapter's hidden set-up cell comes first in the notebook, so its "show code" bar sat above the title; it is
  moved below the chapter's introduction and labelled for what it is.
* exercises are numbered per chapter ("Exercise 3.1", not a book-wide "Exercise 6").
* figures are given their size from their pixels (``FIGURE_DPI`` pixels per inch, shown at 96 CSS px per inch,
  never stretched), with a minimum width so that a phone does not shrink their labels below reading size.
* search: Sphinx fetches every result page (several MB each) to cut a snippet, and shows the TeX source of the
  maths. Each page gets a light text copy of its rendered prose for the snippets (maths written out in plain
  symbols; code cells left out, whose glue keys and label names would read as prose in a plain-text snippet).
* MathJax: ``tex-chtml.js`` (1.16 MB) bundles the 0.43 MB context menu. Pages load ``startup.js`` and the
  components they typeset with (TeX input, CommonHTML output and its font, the hidden MathML for screen readers),
  about 0.76 MB; TeX extensions are still fetched on demand (``autoload``).
* search index: the theme puts ``searchindex.js`` (0.2 MB and growing with the book) and Sphinx's search tools on
  every page for its search-as-you-type mode, which is off (``search_as_you_type = False``: the search box opens
  ``search.html``). Every page but the search page drops them.
* tables: a cell's long token breaks anywhere (robokin.css) so that a table fits the column, but the table layout
  then squeezed a narrow column ("id", "checked by") until its short code words broke letter by letter. A code word
  of at most ``SHORT_CODE`` characters in a table cell is marked to stay on one line (``robokin-short-code``).
* icons: the theme loads all of Font Awesome (1.5 MB of JavaScript) for about ten icons; the file is replaced by
  the icons the site uses. Its style sheets draw further icons (admonitions, breadcrumbs) with the Font Awesome web
  fonts (0.27 MB); those are replaced by subsets holding only the glyphs the style sheets name.
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
from pathlib import Path

from docutils import nodes

STATIC = Path(__file__).resolve().parents[1] / "_static"
FIGURE_DPI = 150  # must match robokin.nb.FIGURE_DPI and tests/sitecheck.py
MIN_PX_PER_INCH = 56  # the browser test asks for >= 50


# ---------------------------------------------------------------- duplicate scripts

def _dedupe_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for js in scripts:
        # compare what is rendered: an inline script may carry filename None or "" (the duplicates do)
        key = (getattr(js, "filename", js) or None, repr(sorted(getattr(js, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(js)
    scripts[:] = unique  # in place: the builder keeps appending to this same list later in the event


# ---------------------------------------------------------------- widgets

_VIEW = "application/vnd.jupyter.widget-view+json"
_MODEL_ID = re.compile(r'model_id\\?"\s*:\s*\\?"([0-9a-f]+)')


def _widget_outputs(state, model_id, seen=None):
    """Outputs captured by the Output widgets under ``model_id`` (what the view showed at its defaults)."""
    seen = set() if seen is None else seen
    if model_id in seen or model_id not in state:
        return []
    seen.add(model_id)
    model = state[model_id]
    outs = list(model.get("state", {}).get("outputs", []))
    for child in model.get("state", {}).get("children", []):
        if isinstance(child, str) and child.startswith("IPY_MODEL_"):
            outs += _widget_outputs(state, child[len("IPY_MODEL_"):], seen)
    return outs


def _launch_links(app, docname):
    repo = app.config.html_theme_options.get("repository_url", "").rstrip("/")
    branch = app.config.html_theme_options.get("repository_branch", "main") or "main"
    path = f"{docname}.ipynb"
    links = [("JupyterLab on your machine", None)]
    if repo.startswith("https://github.com/"):
        slug = repo[len("https://github.com/"):]
        links.append(("Binder", f"https://mybinder.org/v2/gh/{slug}/{branch}?urlpath=lab/tree/{path}"))
    return path, links


def _live_note(app, docname, outputs):
    path, links = _launch_links(app, docname)
    box = nodes.container(classes=["robokin-live"])
    para = nodes.paragraph()
    para += nodes.strong(text="Static view. ")
    para += nodes.Text("The controls of this cell need a running Python kernel, so this page shows what the cell "
                       "drew at its default values. To move them, open ")
    para += nodes.literal(text=path)
    para += nodes.Text(" in JupyterLab on your machine (")
    para += nodes.literal(text="make lab")
    para += nodes.Text(")")
    for label, url in links[1:]:
        para += nodes.Text(" or on ")
        para += nodes.reference(text=label, refuri=url)
    para += nodes.Text(".")
    box += para
    outdir = Path(app.outdir).parent / "jupyter_execute"
    for out in outputs:
        data = out.get("data", {}) if out.get("output_type") in ("display_data", "execute_result") else {}
        if "image/png" in data or "image/svg+xml" in data:
            import base64

            svg = data.get("image/svg+xml")
            raw = "".join(svg).encode("utf-8") if svg else base64.b64decode(data["image/png"])
            outdir.mkdir(parents=True, exist_ok=True)
            f = outdir / f"{hashlib.sha256(raw).hexdigest()}.{'svg' if svg else 'png'}"
            if not f.exists():
                f.write_bytes(raw)
            img = nodes.image(uri="/" + str(Path(_relpath(f, app.srcdir))), alt="the cell's figure at its defaults")
            box += img
        elif out.get("output_type") == "stream":  # stderr too: a warning there is a defect to see, not to hide
            box += nodes.literal_block(text=out.get("text", "").rstrip("\n"),
                                       classes=["output", out.get("name", "stdout")])
        elif "text/plain" in data:
            box += nodes.literal_block(text=data["text/plain"].rstrip("\n"))
    return box


def _relpath(path, start):
    import os

    return os.path.relpath(path, start)


def _replace_widgets(app, doctree):
    env = app.env
    docname = env.docname
    meta = getattr(env, "nb_metadata", {}).get(docname, {})
    js = meta.get("js_files", {})
    state = {}
    if "ipywidgets_state" in js:
        try:
            state = json.loads(js["ipywidgets_state"][1].get("body", "{}")).get("state", {})
        except ValueError:
            state = {}
    for raw in list(doctree.findall(nodes.raw)):
        if _VIEW not in raw.astext():
            continue
        m = _MODEL_ID.search(raw.astext())
        outputs = _widget_outputs(state, m.group(1)) if m else []
        raw.replace_self(_live_note(app, docname, outputs))
    for key in [k for k in js if k.startswith("ipywidgets")]:
        del js[key]


# ---------------------------------------------------------------- set-up cell below the introduction

def _move_setup_cell(app, doctree):
    first_section = next(iter(doctree.findall(nodes.section)), None)
    if first_section is None:
        return
    for cell in [c for c in doctree.children if isinstance(c, nodes.container) and "tag_hide-cell" in c["classes"]]:
        doctree.remove(cell)
        cell["prompt_show"] = "Show this chapter's set-up code (imports, seed, plot defaults)"
        cell["prompt_hide"] = "Hide the set-up code"
        # after the introduction: before the first subsection (or at the end of a chapter without one)
        idx = next((i for i, c in enumerate(first_section.children) if isinstance(c, nodes.section)),
                   len(first_section.children))
        first_section.insert(idx, cell)


# ---------------------------------------------------------------- figure sizes

def _png_width(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">I", head[16:20])[0]


def _svg_inches(path):
    m = re.search(rb'<svg[^>]*?\swidth="([\d.]+)pt"', Path(path).read_bytes()[:2000])
    return float(m.group(1)) / 72 if m else None


def _size_figures(app, doctree):
    for img in doctree.findall(nodes.image):
        if not any("cell_output" in a.get("classes", []) for a in _ancestors(img)) and \
                not any("robokin-live" in a.get("classes", []) for a in _ancestors(img)):
            continue
        uri = img["uri"]
        path = Path(app.srcdir) / uri.lstrip("/") if uri.startswith("/") else \
            Path(app.env.doc2path(app.env.docname)).parent / uri
        if path.suffix == ".svg" and path.exists():  # matplotlib's SVG: its width in points, 72 per inch
            inches = _svg_inches(path)
        else:
            width = _png_width(path) if path.suffix == ".png" and path.exists() else None
            inches = width / FIGURE_DPI if width else None
        if not inches:
            continue
        shown, least = round(inches * 96), round(inches * MIN_PX_PER_INCH)
        # never wider than the pixels (no blur), the column, or narrower than readable (its box then scrolls)
        img["width"] = f"max(min(100%, {shown}px), {min(least, shown)}px)"
        img["classes"].append("robokin-figure")


def _ancestors(node):
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


# ---------------------------------------------------------------- exercise numbers per chapter

def _number_exercises(app, env):
    for docname, numbers in env.toc_fignumbers.items():
        m = re.match(r"notebooks/(\d+)_", docname)
        if not m or "exercise" not in numbers:
            continue
        chapter = int(m.group(1))
        order = sorted(numbers["exercise"].items(), key=lambda kv: kv[1])
        numbers["exercise"] = {key: (chapter, k) for k, (key, _) in enumerate(order, start=1)}
    return []


# ---------------------------------------------------------------- search snippets

_GREEK = {name: chr(code) for name, code in [
    ("alpha", 0x3B1), ("beta", 0x3B2), ("gamma", 0x3B3), ("delta", 0x3B4), ("epsilon", 0x3B5), ("varepsilon", 0x3B5),
    ("zeta", 0x3B6), ("eta", 0x3B7), ("theta", 0x3B8), ("vartheta", 0x3D1), ("iota", 0x3B9), ("kappa", 0x3BA),
    ("lambda", 0x3BB), ("mu", 0x3BC), ("nu", 0x3BD), ("xi", 0x3BE), ("pi", 0x3C0), ("rho", 0x3C1), ("sigma", 0x3C3),
    ("tau", 0x3C4), ("upsilon", 0x3C5), ("phi", 0x3C6), ("varphi", 0x3C6), ("chi", 0x3C7), ("psi", 0x3C8),
    ("omega", 0x3C9), ("Gamma", 0x393), ("Delta", 0x394), ("Theta", 0x398), ("Lambda", 0x39B), ("Xi", 0x39E),
    ("Pi", 0x3A0), ("Sigma", 0x3A3), ("Phi", 0x3A6), ("Psi", 0x3A8), ("Omega", 0x3A9)]}
_SYMBOLS = {"cdot": "·", "times": "×", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠",
            "approx": "≈", "to": "→", "rightarrow": "→", "leftarrow": "←", "infty": "∞", "partial": "∂",
            "nabla": "∇", "sum": "Σ", "int": "∫", "sqrt": "√", "pm": "±", "in": "∈", "dots": "…", "ldots": "…",
            "cdots": "⋯", "quad": " ", "qquad": " ", "top": "ᵀ", "intercal": "ᵀ", "circ": "∘", "wedge": "∧",
            "vee": "∨", "mid": "|", "lVert": "‖", "rVert": "‖", "Vert": "‖", "|": "‖", "langle": "⟨",
            "rangle": "⟩", "star": "⋆", "ell": "ℓ", "hbar": "ħ", "odot": "⊙", "otimes": "⊗", "oplus": "⊕",
            "perp": "⊥", "parallel": "∥", "sim": "∼", "propto": "∝", "equiv": "≡", "forall": "∀", "exists": "∃"}


def tex_to_text(tex):
    """Plain-text rendering of a TeX formula, good enough for a search snippet.

    >>> tex_to_text(r"\\mathbf t = \\frac{\\partial p}{\\partial \\theta_1}")
    't = (∂ p)/(∂ θ_1)'
    """
    s = tex
    for _ in range(4):  # nested fractions
        s = re.sub(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"(\1)/(\2)", s)
    s = re.sub(r"\\(?:text|mathrm|mathbf|mathit|mathcal|boldsymbol|operatorname|bm|mathsf|mathbb)\s*\{([^{}]*)\}",
               r"\1", s)
    s = re.sub(r"\\(?:begin|end)\{[^}]*\}", " ", s)
    s = re.sub(r"\\(?:left|right|big|Big|bigg|Bigg)(?![a-zA-Z])", "", s)
    s = re.sub(r"\\(hat|dot|ddot|bar|tilde|vec)\s*\{?([A-Za-z])\}?",
               lambda m: m.group(2) + {"hat": "\u0302", "dot": "\u0307", "ddot": "\u0308", "bar": "\u0304",
                                       "tilde": "\u0303", "vec": "\u20d7"}[m.group(1)], s)
    s = re.sub(r"\\([A-Za-z]+)", lambda m: _GREEK.get(m.group(1), _SYMBOLS.get(m.group(1), "")), s)
    s = re.sub(r"\\[,;:!> ]", " ", s).replace("\\\\", "; ").replace("&", "")
    s = re.sub(r"\\(.)", r"\1", s)
    s = s.replace("{", "").replace("}", "")
    return re.sub(r"\s+", " ", s).strip()


_INLINE = {"a", "abbr", "b", "cite", "code", "dfn", "em", "i", "kbd", "mark", "q", "s", "samp", "small", "span",
           "strong", "sub", "sup", "tt", "u", "var"}


def _slim(main):
    """Only what the snippet needs: the text and the ids the search jumps to (``[role=main] #anchor``)."""
    for el in main.find_all(True):
        ident = el.get("id")
        if el.name in _INLINE and not ident:
            el.unwrap()
        else:
            el.attrs = {"id": ident} if ident else {}
    from bs4 import Comment

    for s in main.find_all(string=True):
        if isinstance(s, Comment):
            s.extract()
            continue
        collapsed = re.sub(r"\s+", " ", s)
        if collapsed != s:
            s.replace_with(collapsed)


def _write_snippets(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    from bs4 import BeautifulSoup

    out = Path(app.outdir)
    snippets = out / "_static" / "snippets"
    for docname in app.env.found_docs:
        page = out / f"{docname}.html"
        if not page.exists():
            continue
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        # the article, not the theme's header buttons and sidebars around it
        main = soup.select_one("article.bd-article") or soup.find(attrs={"role": "main"}) or soup.find("main") \
            or soup.body
        if main is None:  # a redirect page
            continue
        # the prose only: a code cell's source holds glue keys and label names (``glue("ch3_x", ...)``,
        # ``# eq-ch3-jac as typed``) that the page shows as code, but a snippet, being plain text, shows as prose
        for el in main.select("script, style, img, .cell_output, .cell_input, .headerlink, .robokin-live, svg, "
                              ".animation"):
            el.decompose()
        for el in main.select(".math"):
            text = el.get_text()
            text = re.sub(r"^\s*(\\\(|\\\[|\$\$?)|(\\\)|\\\]|\$\$?)\s*$", "", text.strip())
            el.replace_with(" " + tex_to_text(text) + " ")
        _slim(main)
        target = snippets / f"{docname}.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f'<!DOCTYPE html><html><body><div role="main">{main.decode_contents()}</div></body></html>',
                          encoding="utf-8")
    tools = out / "_static" / "searchtools.js"
    if tools.exists():
        js = tools.read_text(encoding="utf-8")
        old = "requestUrl = contentRoot + docName + docFileSuffix;"
        if "_static/snippets/" in js:
            return  # patched by an earlier build into the same directory
        if old not in js:
            raise RuntimeError("robokin_site: searchtools.js changed; update the snippet hook in book/_ext")
        tools.write_text(js.replace(old, 'requestUrl = contentRoot + "_static/snippets/" + docName + docFileSuffix;'),
                         encoding="utf-8")


# ---------------------------------------------------------------- short code in table cells

SHORT_CODE = 12  # tests/sitecheck.py checks that no code element this short is broken across lines in a table


def _mark_short_code(app, doctree, docname):
    for entry in doctree.findall(nodes.entry):
        for lit in entry.findall(nodes.literal):
            if len(lit.astext().strip()) <= SHORT_CODE:
                lit["classes"].append("robokin-short-code")


# ---------------------------------------------------------------- MathJax and the search index

MATHJAX_COMPONENTS = ["input/tex", "output/chtml", "a11y/assistive-mml"]


def _light_mathjax(app, config):
    # sphinx-mathjax-offline copies MathJax 3 to _static/mathjax and points at the all-in-one tex-chtml.js
    config.mathjax_path = "mathjax/startup.js"
    mj = dict(config.mathjax3_config or {})
    loader = dict(mj.get("loader", {}))
    loader["load"] = list(dict.fromkeys(list(loader.get("load", [])) + MATHJAX_COMPONENTS))
    mj["loader"] = loader
    config.mathjax3_config = mj


_SEARCH_SCRIPTS = re.compile(r'\s*<script src="[^"]*(?:_static/searchtools\.js|_static/language_data\.js|'
                             r'searchindex\.js)"></script>')


def _drop_search_scripts(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    if app.config.html_theme_options.get("search_as_you_type"):
        return  # the theme's inline search needs the index on every page
    out = Path(app.outdir)
    for page in out.rglob("*.html"):
        if page.name == "search.html" or "_static" in page.relative_to(out).parts:
            continue
        text = page.read_text(encoding="utf-8")
        new = _SEARCH_SCRIPTS.sub("", text)
        if new != text:
            page.write_text(new, encoding="utf-8")


# ---------------------------------------------------------------- icons

def _write_icons(app, exception):
    """Replace the theme's 1.5 MB fontawesome.js by CSS masks for the icons the pages use."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    fa = out / "_static" / "scripts" / "fontawesome.js"
    if not fa.exists() or fa.stat().st_size < 100_000:
        return
    used = set()
    for page in out.rglob("*.html"):
        if "_static" in page.parts:
            continue
        used |= set(re.findall(r"\bfa-([a-z0-9-]+)", page.read_text(encoding="utf-8", errors="replace")))
    used |= {"bars", "outdent", "list", "magnifying-glass", "xmark", "angle-right", "angle-left", "chevron-right",
             "chevron-down", "copy", "check"}
    data = fa.read_text(encoding="utf-8")
    rules = []
    for name in sorted(used):
        m = re.search(r'[,{]"?' + re.escape(name) + r'"?:\[(\d+),(\d+),\[[^\]]*\],"[0-9a-f]*","(M[^"]+)"\]', data)
        # an old (Font Awesome 4) name, as matplotlib's animation player writes ("fast-backward"), is an alias in
        # the list of the icon's new name ("backward-fast": [512, 512, [9198, "fast-backward"], ...])
        m = m or re.search(r'"?[a-z0-9-]+"?:\[(\d+),(\d+),\[[^\]]*"' + re.escape(name) + r'"[^\]]*\],"[0-9a-f]*",'
                           r'"(M[^"]+)"\]', data)
        if not m:
            continue
        w, h, d = m.groups()
        svg = f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {w} {h}'><path d='{d}'/></svg>"
        url = "data:image/svg+xml," + svg.replace("<", "%3C").replace(">", "%3E").replace("#", "%23")
        rules.append(f'.fa-{name}::before{{-webkit-mask-image:url("{url}");mask-image:url("{url}");'
                     f"width:{int(w) / int(h):.3f}em}}")
    # font-family: the theme's CSS would otherwise fetch the Font Awesome web fonts (270 kB) for these elements
    # the transforms of Font Awesome's own CSS that the pages use (the player's "play backwards" button)
    rules.append(".fa-flip-horizontal{transform:scaleX(-1)}.fa-flip-vertical{transform:scaleY(-1)}")
    css = (".fa,.fas,.fab,.far,.fa-solid,.fa-brands,.fa-regular{display:inline-block;line-height:1;"
           "font-style:normal;font-family:inherit!important}"
           ".fa::before,.fas::before,.fab::before,.far::before,.fa-solid::before,.fa-brands::before,"
           ".fa-regular::before{content:'';display:inline-block;height:1em;vertical-align:-0.125em;"
           "background-color:currentColor;-webkit-mask:no-repeat center/contain;mask:no-repeat center/contain}"
           + "".join(rules))
    fa.write_text(
        "/* robokin: the icons this site uses, from Font Awesome Free (CC BY 4.0 icons, MIT code), as CSS masks */\n"
        "(()=>{const s=document.createElement('style');s.textContent=" + json.dumps(css) + ";"
        "document.head.appendChild(s);})();\n", encoding="utf-8")
    for extra in (out / "_static" / "scripts" / "fontawesome.js.map",):
        if extra.exists():
            extra.unlink()


_FA_FONTS = {"fa-solid-900": "robokin-fa-solid.woff", "fa-brands-400": "robokin-fa-brands.woff"}


def _subset_icon_fonts(app, exception):
    """The theme's CSS draws admonition, breadcrumb and link icons with the Font Awesome fonts (0.27 MB): keep only
    the glyphs its style sheets name. ``robokin.css`` declares the subsets after the theme, so they win."""
    if exception is not None or app.builder.format != "html":
        return
    from fontTools import subset

    out = Path(app.outdir) / "_static"
    codes = set()
    for f in list(out.glob("*.css")) + list(out.glob("styles/*.css")):  # the style sheets pages link (not vendor/)
        for selectors, body in re.findall(r"([^{}]*)\{([^{}]*)\}", f.read_text(encoding="utf-8", errors="replace")):
            # ".fa-bell:before{content:...}": the icon classes, drawn as masks by fontawesome.js instead
            if all(re.match(r"\.fa-[\w-]+:{1,2}(?:before|after)$", x.strip()) for x in selectors.split(",")):
                continue
            codes |= {ord(c) for c in body if 0xE000 <= ord(c) <= 0xF8FF}
            codes |= {int(h, 16) for h in re.findall(r"\\(f[0-9a-fA-F]{3})\b", body)}
    for stem, target in _FA_FONTS.items():
        src = next(iter(sorted(out.rglob(f"{stem}.ttf"))), None)
        if src is None:
            raise RuntimeError(f"robokin_site: {stem}.ttf not found under _static; update book/_ext")
        font = subset.load_font(str(src), subset.Options())
        opts = subset.Options()
        opts.flavor = "woff"  # zlib: no brotli needed
        opts.layout_features = ["*"]
        sub = subset.Subsetter(opts)
        sub.populate(unicodes=codes)
        sub.subset(font)
        subset.save_font(font, str(out / target), opts)


#: Extensions the book loads that leave parallel reading undeclared (Sphinx then reads serially): each does its work
#: outside the per-document reading (multitoc_numbering: section numbers after the merge; jupyterbook_latex: LaTeX
#: transforms only; mathjax-offline: static files), so reading in parallel processes is safe for them.
PARALLEL_SAFE_UNDECLARED = ("sphinx_multitoc_numbering", "sphinx_jupyterbook_latex", "sphinx-mathjax-offline")


def _declare_parallel_safe(app):
    for name in PARALLEL_SAFE_UNDECLARED:
        ext = app.extensions.get(name)
        if ext is not None and ext.parallel_read_safe is None:
            ext.parallel_read_safe = True


def setup(app):
    # before reading: Sphinx checks every extension's parallel_read_safe when the build has more than one process
    app.connect("builder-inited", _declare_parallel_safe)
    # html-page-context is emitted with emit_firstresult: a theme handler that returns a value stops the
    # chain, so run early.
    app.connect("html-page-context", _dedupe_scripts, priority=100)
    # before Sphinx's image collector (priority 500) so that the widgets' figures are copied to _images
    app.connect("doctree-read", _replace_widgets, priority=400)
    app.connect("doctree-read", _move_setup_cell, priority=400)
    app.connect("doctree-read", _size_figures, priority=450)
    # after Sphinx's toctree collector (priority 500) has numbered the figures, exercises included, book-wide
    app.connect("env-get-updated", _number_exercises, priority=900)
    app.connect("config-inited", _light_mathjax, priority=900)
    # after robokin_refs (500) replaced the glue keys written as code in the claims tables by their values
    app.connect("doctree-resolved", _mark_short_code, priority=900)
    app.connect("build-finished", _write_snippets)
    app.connect("build-finished", _write_icons)
    app.connect("build-finished", _drop_search_scripts)
    app.connect("build-finished", _subset_icon_fonts)
    app.add_css_file("robokin.css")
    app.add_js_file("robokin.js", defer="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
