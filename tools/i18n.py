"""The Chinese edition (中文版) of the book: message catalogues, their checks, and its build.

English is the source: ``_build/html/`` is the English site; the Chinese site is built into ``_build/html/zh/``
from the same pages and the *same executed notebooks* (one execution: the English build's
``_build/jupyter_execute``), so code, outputs, figures and glued numbers are those of the English site.

Subcommands (run from the repository root with the project's Python)::

    python tools/i18n.py extract     # gettext: _build/gettext/<doc>.pot, one catalogue per page (no execution)
    python tools/i18n.py update      # sphinx-intl update: merge the .pot into locales/zh_CN/LC_MESSAGES/<doc>.po
    python tools/i18n.py check       # every message translated, none fuzzy, maths/code/glue kept, glossary terms
    python tools/i18n.py build-zh    # extract + check, then the strict build into _build/html/zh (after make book)
    python tools/i18n.py figures     # figure texts of the English build into locales/zh_CN/figures.po (translate)
    python tools/i18n.py outputs     # output texts (check lines, table headers, player) into locales/zh_CN/outputs.po

Which pages must be complete: every page of ``_toc.yml`` except those listed in ``locales/zh_CN/pending.txt``
(pages whose translation has not been written yet; the list only shrinks, and ``check`` fails when a listed page
is in fact complete, so it cannot go stale). ``check --complete`` ignores the list: the state the issue asks for.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
LANG = "zh_CN"
LOCALES = ROOT / "locales"
PO_DIR = LOCALES / LANG / "LC_MESSAGES"
PENDING = LOCALES / LANG / "pending.txt"
OVERRIDES = LOCALES / LANG / "config.yml"
GLOSSARY = ROOT / "book" / "glossary.md"
BUILD = ROOT / "_build"
POT_DIR = BUILD / "gettext"
EXECUTED = BUILD / "jupyter_execute"
SITE = BUILD / "html"
ZH_SRC = BUILD / "zh"
ZH_SITE = SITE / "zh"
BIN = Path(sys.executable).parent

#: Pages whose glossary rule is off: the glossary itself lists the English terms on purpose.
TERM_BASE_DOCS = {"book/glossary"}

#: Core terms: English (a glossary row's English, before any parenthesis) -> the Chinese a translation must use.
#: The Chinese must occur in that row's Chinese column (checked), so book/glossary.md stays the term base.
CORE_TERMS = {
    "forward kinematics": "正运动学",
    "inverse kinematics": "逆运动学",
    "Jacobian": "雅可比",
    "singularity": "奇异",
    "workspace": "工作空间",
    "joint space": "关节空间",
    "task space": "任务空间",
    "degree of freedom": "自由度",
    "rotation matrix": "旋转矩阵",
    "homogeneous transform": "齐次变换",
    "five-bar linkage": "五连杆",
    "virtual leg": "虚拟腿",
    "wheel-legged robot": "轮腿",
    "mecanum wheel": "麦克纳姆轮",
    "manipulability": "可操作度",
    "damped least squares": "阻尼最小二乘",
    "gimbal lock": "万向节锁",
    "mass matrix": "质量矩阵",
    "odometry": "里程计",
    "wrist singularity": "腕部奇异",
    "warm start": "热启动",
    "initial guess": "初值",
    "closed chain": "闭链",
    "waypoint": "路径点",
    "jerk": "加加速度",
    "gravity compensation": "重力补偿",
    "inverse dynamics": "逆动力学",
    "forward dynamics": "正动力学",
    "regressor": "回归矩阵",
}

#: English patterns of the core terms (plurals and the usual variants); default: the term itself, plural allowed.
TERM_PATTERNS = {
    "forward kinematics": r"forward kinematics|\bFK\b",
    "inverse kinematics": r"inverse kinematics|\bIK\b",
    "Jacobian": r"\bJacobians?\b",
    "singularity": r"\bsingularit(?:y|ies)\b|\bsingular (?:configuration|pose)s?\b",
    "degree of freedom": r"\bdegrees? of freedom\b|\bDOFs?\b",
    "five-bar linkage": r"\bfive-bar\b",
    "wheel-legged robot": r"\bwheel-legged\b",
    "mecanum wheel": r"\bmecanum\b",
    "homogeneous transform": r"\bhomogeneous transforms?\b",
    "warm start": r"\bwarm[- ]start(?:s|ed|ing)?\b",
}

# What a translation must keep exactly: glue roles (the numbers), inline maths, inline code, and the target of
# every other role ({eq}`eq-ch3-fk` must not become another label; its shown text may be translated).
_ROLE = re.compile(r"\{([\w:.-]+)\}`([^`]*)`")
_CODE = re.compile(r"(?<![}`])`([^`]+)`")
_MATH = re.compile(r"(?<![\\$])\$([^$]+)\$")
_DISPLAY_MATH = re.compile(r"\$\$.*?\$\$", re.S)
_URL = re.compile(r"https?://\S+")
#: a line opening that makes Markdown read a block (list item, heading, quote) where a heading's text was meant
_BLOCK_START = re.compile(r"\s*(?:\d{1,9}[.)]|[-*+]|#{1,6}|>)(?:\s|$)")
# English prose: four or more words in a row (after maths, code, roles and URLs are taken out)
_PROSE = re.compile(r"\b[A-Za-z][a-z'-]*(?:[ ,]+[A-Za-z][a-z'-]*){3,}")


@dataclass(frozen=True)
class Finding:
    doc: str
    kind: str  # untranslated, fuzzy, missing, markup, maths, english, term, pending-complete, unknown-pending
    msgid: str
    detail: str = ""

    def __str__(self):
        head = self.msgid if len(self.msgid) <= 100 else self.msgid[:97] + "..."
        return f"{self.doc}: [{self.kind}] {head!r}" + (f" -- {self.detail}" if self.detail else "")


# ---------------------------------------------------------------- catalogues


def read_catalog(path):
    """Messages of a .po/.pot file: list of (msgid, msgstr, fuzzy), header and obsolete entries left out."""
    from babel.messages.pofile import read_po

    with open(path, "rb") as f:
        cat = read_po(f, locale=None, ignore_obsolete=True)
    return [(m.id, m.string or "", m.fuzzy) for m in cat if m.id]


# the header is the entry whose msgid is empty: `msgid ""` directly followed by `msgstr`; a long message also opens with
# `msgid ""` but continues with its text, and its fuzzy mark must stay
_HEADER_FUZZY = re.compile(r'^#, fuzzy\n(?=msgid ""\nmsgstr )', re.M)


def header_fuzzy(path) -> bool:
    """True when the catalogue's header entry is marked ``#, fuzzy`` (sphinx-intl marks new catalogues so)."""
    return bool(_HEADER_FUZZY.search(Path(path).read_text(encoding="utf-8")))


def clear_header_fuzzy(path) -> bool:
    """Drop the header's ``#, fuzzy`` mark (the header is metadata, not a translation); True if it was there."""
    text = Path(path).read_text(encoding="utf-8")
    new = _HEADER_FUZZY.sub("", text, count=1)
    if new != text:
        Path(path).write_text(new, encoding="utf-8")
    return new != text


def toc_docs(toc=ROOT / "_toc.yml"):
    """Document names of the table of contents, in order."""
    data = yaml.safe_load(Path(toc).read_text(encoding="utf-8"))
    docs = [data["root"]]

    def walk(items):
        for item in items:
            if "file" in item:
                docs.append(str(Path(item["file"]).with_suffix("")))
            walk(item.get("sections", []))

    for part in data.get("parts", [data]):
        walk(part.get("chapters", []))
    return docs


def pending_docs(path=PENDING):
    """Documents not yet translated: one per line, ``#`` starts a comment."""
    if not Path(path).exists():
        return []
    lines = (line.split("#", 1)[0].strip() for line in Path(path).read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line]


def glossary_terms(path=GLOSSARY):
    """English -> Chinese of the glossary table (the English before any parenthesis, as written)."""
    terms = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not line.lstrip().startswith("|") or set(cells[0]) <= set("- :"):
            continue
        english = re.sub(r"\s*\(.*?\)", "", cells[0]).strip()
        for name in english.split(" / "):
            terms[name.strip()] = cells[1]
    terms.pop("English", None)
    return terms


def core_terms(path=GLOSSARY):
    """The core terms with the Chinese they require; raises if one drifted from the glossary."""
    gloss = glossary_terms(path)
    bad = [
        f"{en!r} -> {zh!r} (glossary: {gloss.get(en)!r})"
        for en, zh in CORE_TERMS.items()
        if zh not in gloss.get(en, "")
    ]
    if bad:
        raise ValueError("core terms not in book/glossary.md as written there: " + "; ".join(bad))
    return {
        en: (re.compile(TERM_PATTERNS.get(en, rf"\b{re.escape(en)}s?\b"), re.I), zh) for en, zh in CORE_TERMS.items()
    }


def _kept(text):
    """The parts of a message a translation must carry over unchanged (a sorted list, duplicates kept)."""
    keep = []
    for role, body in _ROLE.findall(text):
        if role.startswith("glue") or role in ("math", "code"):
            keep.append(f"{{{role}}}`{body}`")
        else:  # text <target>: the target is what matters
            m = re.search(r"<([^<>]+)>\s*$", body)
            keep.append(f"{{{role}}}{(m.group(1) if m else body).strip()}")
    rest = _ROLE.sub(" ", text)
    keep += [f"${m}$" for m in _MATH.findall(rest)]
    keep += [f"`{m}`" for m in _CODE.findall(_MATH.sub(" ", rest))]
    return sorted(keep)


def english_prose(text):
    """Runs of four or more English words in ``text`` once maths, code, roles and URLs are removed."""
    rest = _URL.sub(" ", _CODE.sub(" ", _MATH.sub(" ", _ROLE.sub(" ", text))))
    rest = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", rest)  # a Markdown link: its text only
    return _PROSE.findall(rest)


_HAN = re.compile(r"[\u4e00-\u9fff]")
_TEXT_ARG = re.compile(r"\\text\s*\{[^{}]*\}")
_OPTION_LINE = re.compile(r"^:[\w-]+:.*$")


def tex_skeleton(tex):
    r"""A display equation's TeX with the contents of every ``\text{...}`` emptied: what a translation must keep."""
    return _TEXT_ARG.sub(r"\\text{}", tex.strip())


def _markdown_sources(doc, root=ROOT):
    """The Markdown of a page: its .md file, or each Markdown cell of its notebook (empty if neither exists)."""
    md, nb = Path(root) / f"{doc}.md", Path(root) / f"{doc}.ipynb"
    if md.exists():
        return [md.read_text(encoding="utf-8")]
    if nb.exists():
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        return ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    return []


def display_equations(markdown):
    """TeX of every display equation (```{math}``` directive, ``$$...$$``) in one Markdown text, as MyST parses it."""
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    md = create_md_parser(MdParserConfig(enable_extensions={"dollarmath", "amsmath", "colon_fence"}), RendererHTML)
    out = []
    for tok in md.parse(markdown):
        if tok.type in ("fence", "colon_fence") and tok.info.strip() == "{math}":
            lines = tok.content.splitlines()
            while lines and _OPTION_LINE.match(lines[0]):  # :label: and other directive options
                lines.pop(0)
            out.append("\n".join(lines).strip())
        elif tok.type in ("math_block", "math_block_label", "amsmath"):
            out.append(tok.content.strip())
    return out


_MD = None


def literal_markers(text):
    """Bold/italic markers that MyST leaves as literal text in ``text`` (e.g. ``**预备知识：**后``: a closing ``**``
    after full-width punctuation and before a letter does not close), with a little context; maths and code aside."""
    global _MD
    if _MD is None:
        from markdown_it.renderer import RendererHTML
        from myst_parser.config.main import MdParserConfig
        from myst_parser.parsers.mdit import create_md_parser

        _MD = create_md_parser(
            MdParserConfig(enable_extensions={"dollarmath", "amsmath", "colon_fence", "deflist"}), RendererHTML
        )
    html = _MD.render(text)
    html = re.sub(r"<code[^>]*>.*?</code>|<pre.*?</pre>|<(div|span) class=\"math[^>]*>.*?</\1>", " ", html, flags=re.S)
    return re.findall(r".{0,8}\*\*.{0,8}", html)


def page_equations(doc, root=ROOT):
    """The display equations of page ``doc`` (a set of stripped TeX strings)."""
    return {tex for text in _markdown_sources(doc, root) for tex in display_equations(text)}


_LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)")


def check_messages(doc, messages, *, pot_ids=None, terms=None, equations=None):
    """Findings for one document's translated messages (``messages`` from :func:`read_catalog`)."""
    out = []
    # a display equation's msgstr is its msgid, \text{} aside: Sphinx shows any other translated equation as "::"
    # (it parses a translated literal block as reST "::" + indented text); build-zh puts a translated \text{} into
    # the page source instead
    equations = page_equations(doc) if equations is None else set(equations)
    have = {mid for mid, _, _ in messages}
    for mid in sorted((pot_ids or set()) - have):
        out.append(Finding(doc, "missing", mid, "in the English source but not in the .po: run `tools/i18n.py update`"))
    for mid, mstr, fuzzy in messages:
        if pot_ids is not None and mid not in pot_ids:
            continue  # obsolete: the English changed; `update` marks it so
        if not mstr.strip():
            out.append(Finding(doc, "untranslated", mid))
            continue
        if fuzzy:
            out.append(
                Finding(doc, "fuzzy", mid, "check the translation against the changed English, then drop #, fuzzy")
            )
        if _BLOCK_START.match(mstr):
            out.append(
                Finding(
                    doc,
                    "markup",
                    mid,
                    "starts with a Markdown list/heading/quote marker: Sphinx parses the translation as that block"
                    " and drops it (a heading stays English); escape it, e.g. `1\\.`",
                )
            )
        if mid.strip() in equations and tex_skeleton(mid) != tex_skeleton(mstr):
            out.append(
                Finding(
                    doc,
                    "maths",
                    mid,
                    "a display equation's translation must be its TeX byte for byte (only \\text{...} translated):"
                    f" {_first_difference(tex_skeleton(mid), tex_skeleton(mstr))}",
                )
            )
        lost = _diff(_kept(mid), _kept(mstr))
        if lost:
            out.append(Finding(doc, "markup", mid, "maths/code/roles differ: " + lost))
        # a dropped or re-targeted [text](target) reads fine but no longer links (the claims page's evidence links)
        # (a page of CHAPTER_LINK_PAGES links chapters, not sections, in both languages: build-zh rewrites both)
        norm = chapter_links if doc in CHAPTER_LINK_PAGES else str
        links = _diff(_LINK_TARGET.findall(norm(mid)), _LINK_TARGET.findall(norm(mstr)))
        if links:
            out.append(Finding(doc, "markup", mid, "Markdown link targets differ: " + links))
        if doc not in TERM_BASE_DOCS:
            prose = english_prose(mstr)
            if prose:
                out.append(Finding(doc, "english", mid, f"English prose left in the translation: {prose[0]!r}"))
            for en, (pattern, zh) in (terms or {}).items():
                # terms are prose: maths (an index a_{ik} is not "IK"), code and role targets are left out
                english = _MATH.sub(" ", _DISPLAY_MATH.sub(" ", _ROLE.sub(" ", _CODE.sub(" ", mid))))
                # a message kept verbatim (an equation block, a number) has no prose to translate; prose copied
                # verbatim is caught by the English-prose check above
                if pattern.search(english) and zh not in mstr and mstr != mid:
                    out.append(Finding(doc, "term", mid, f"{en!r} must be translated {zh!r} (book/glossary.md)"))
    return out


def _first_difference(a, b):
    """Where two strings first differ, shown with a little context."""
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"English {a[max(0, i - 15) : i + 15]!r} vs translation {b[max(0, i - 15) : i + 15]!r}"


def _diff(a, b):
    from collections import Counter

    ca, cb = Counter(a), Counter(b)
    parts = [f"missing {k!r}" for k in sorted(ca - cb)] + [f"extra {k!r}" for k in sorted(cb - ca)]
    return "; ".join(parts[:4])


def check(*, complete=False, pot_dir=None, po_dir=PO_DIR, pending_file=PENDING, docs=None, glossary=GLOSSARY):
    """All findings (empty: the catalogues are complete). ``pot_dir``: compare against fresh templates too."""
    docs = toc_docs() if docs is None else docs
    pending = [] if complete else pending_docs(pending_file)
    terms = core_terms(glossary)
    out = [
        Finding(d, "unknown-pending", "", "listed in pending.txt but not a page of _toc.yml")
        for d in pending
        if d not in docs
    ]
    for doc in docs:
        po = Path(po_dir) / f"{doc}.po"
        pot = Path(pot_dir) / f"{doc}.pot" if pot_dir else None
        pot_ids = {m for m, _, _ in read_catalog(pot)} if pot and pot.exists() else None
        messages = read_catalog(po) if po.exists() else []
        if not po.exists():
            if doc in pending:
                continue
            out.append(
                Finding(doc, "missing", "", f"no catalogue {po.relative_to(ROOT) if po.is_relative_to(ROOT) else po}")
            )
            continue
        found = check_messages(doc, messages, pot_ids=pot_ids, terms=terms)
        if header_fuzzy(po):  # `update` clears it; a fuzzy entry of any kind fails the edition
            found.append(Finding(doc, "fuzzy", "", "the catalogue header is marked #, fuzzy: delete that line"))
        if doc in pending:
            if not any(f.kind in ("untranslated", "fuzzy", "missing") for f in found):
                out.append(Finding(doc, "pending-complete", "", "translated: remove it from locales/zh_CN/pending.txt"))
            continue
        out += found
    return out


# ---------------------------------------------------------------- figures
#
# The chapters' figures are SVG with their text kept as text (robokin.nb.svg_figure). The English run's SVGs are
# the Chinese edition's too: build-zh replaces each text the reader must read by its translation from one catalogue,
# locales/zh_CN/figures.po (msgid: the text as the chapter wrote it, maths included), and appends CJK fonts to its
# font families. Numbers, symbols, units and maths need no translation (figure_needs_translation).
# The same catalogue holds what the notebook's cell metadata says about a figure, which gettext never sees: its
# caption (mystnb.figure.caption) and its alt text (mystnb.image.alt, from book/alt_text.toml).

FIGURE_PO = LOCALES / LANG / "figures.po"
#: appended to a translated text's font families (the browser draws Chinese glyphs from the first it has)
CJK_FAMILIES = "'Noto Sans CJK SC', 'Source Han Sans SC', 'PingFang SC', 'Microsoft YaHei', 'WenQuanYi Micro Hei'"
#: words a figure may show untranslated: units, function names, abbreviations the Chinese text uses as well
FIGURE_WORDS = set(
    """
    rad deg mm cm ms kg Hz Nm dB log sin cos tan atan max min cond det rms RMS std DH UR5 MuJoCo SVD FK IK DLS LM SE
    SO RK4 RK float32 float64 ZYX XYZ TOPPRA LQR PD PID CTC QEMU FPU NaN inf ulp dt rpm FL FR RL RR
    lun luf ldn ldf run ruf rdn rdf qd qdd vmax fk ik
    """.split()
)  # the last line: chapter 6's UR5 IK branch codes (shoulder l/r, elbow u/d, wrist n/f) and code names of rates
_FIG_GROUP = re.compile(r'<g id="(text_\d+|rk-\d+-(left|center|right)-([\d.]+))">\n')
_FIG_TEXT = re.compile(r"(\s*<text\b)([^>]*)>([^<]*)</text>")
_FIG_MATH = re.compile(r"\s*<!-- (.*?) -->\n(\s*<g\b[^>]*>\n)(.*?)(\n\s*</g>)", re.S)
_FIG_MATH_SEG = re.compile(r"(?<!\\)\$(.+?)(?<!\\)\$")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def figure_needs_translation(text):
    """True when a figure text holds a word to translate: anything but maths, numbers, symbols and FIGURE_WORDS.

    >>> [figure_needs_translation(t) for t in ["t (s)", "0.25", r"$\theta_1$ (rad)", "foot path", "qd_j"]]
    [False, False, False, True, False]
    """
    rest = _FIG_MATH_SEG.sub(" ", text)
    words = [w for w in _WORD.findall(rest) if len(w) > 1 and w not in FIGURE_WORDS]
    # a name with an underscore or a digit (q_des, theta5) is code, shown as the chapter's code names it
    return any(not re.search(r"[_\d]", w) for w in words)


# a number a chapter computed and wrote into a figure's text ("gap 26.1 deg"): the catalogue holds "gap {} deg"
_FIG_NUMBER = re.compile(r"(?<![\w{.\\^])[-−]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w}])")


def figure_key(text):
    """The catalogue's msgid of a figure text: each number outside maths written ``{}`` (the run computed it).

    >>> figure_key("orientation gap 26.1 deg"), figure_key("frame {0} at $x_1 = 2$"), figure_key("UR5 link 3")
    ('orientation gap {} deg', 'frame {0} at $x_1 = 2$', 'UR5 link {}')
    """
    out, pos = [], 0
    for m in _FIG_MATH_SEG.finditer(text):
        out += [_FIG_NUMBER.sub("{}", text[pos : m.start()]), m.group(0)]
        pos = m.end()
    return "".join(out) + _FIG_NUMBER.sub("{}", text[pos:])


def figure_translation(catalog, text):
    """The Chinese of a figure text from ``catalog`` (msgid -> msgstr), its numbers put back in order; None if none."""
    key = figure_key(text)
    zh = catalog.get(key)
    if zh is None or key == text:
        return zh
    numbers = iter(m.group(0) for m in _FIG_NUMBER.finditer(_FIG_MATH_SEG.sub(" ", text)))
    if zh.count("{}") != key.count("{}"):
        return None
    return re.sub(r"\{\}", lambda _: next(numbers), zh)


def _unescape(text):
    import html

    return html.unescape(text)


def _escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def svg_text_groups(svg):
    """The text groups of a matplotlib SVG: ``(start, end, text, ha, size, lines)``, ``lines`` a list of
    ``(kind, start, end, text)``: kind "text" (a ``<text>`` element) or "math" (maths: one glyph per character, its
    source in a comment); ``ha`` and ``size`` from the id robokin.nb.svg_figure gives each text (else None)."""
    out = []
    for m in _FIG_GROUP.finditer(svg):
        ha, size = m.group(2), float(m.group(3)) if m.group(3) else None
        lines, pos = [], m.end()
        while True:
            if (t := _FIG_TEXT.match(svg, pos)) is not None:
                lines.append(("text", t.start(), t.end(), _unescape(t.group(3))))
            elif (t := _FIG_MATH.match(svg, pos)) is not None and t.group(3).lstrip().startswith("<text>"):
                lines.append(("math", t.start(), t.end(), _unescape(t.group(1))))
            else:
                break
            pos = t.end()
        if lines:
            out.append((m.end(), pos, "\n".join(line[3] for line in lines), ha, size, lines))
    return out


def svg_texts(svg):
    """Every text of a figure (tick labels included), as the chapter wrote it."""
    return [g[2] for g in svg_text_groups(svg)]


def _svg_documents(obj):
    """(container, key) of every ``image/svg+xml`` value in a notebook's JSON (outputs and saved widget views)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "image/svg+xml" and isinstance(v, (str, list)):
                yield obj, k
            else:
                yield from _svg_documents(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _svg_documents(v)


def notebook_figure_texts(nb):
    """The texts to translate in the figures of a notebook (a dict or NotebookNode), in order, without repeats."""
    seen = {}
    for holder, key in _svg_documents(nb):
        svg = "".join(holder[key])
        for text in svg_texts(svg):
            if figure_needs_translation(text):
                seen.setdefault(figure_key(text), None)
    return list(seen)


def notebook_captions(nb):
    """The captions of a notebook's code-cell figures (``mystnb.figure.caption``; myst-nb shows them under the
    figure, and gettext never sees them: the cell has no figure until it runs)."""
    out = []
    for cell in nb["cells"]:
        cap = cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("caption")
        if cell.get("cell_type") == "code" and cap:
            out.append(cap)
    return out


_HTML_ALT = re.compile(r'(<img\b[^>]*?\balt=")([^"]*)(")')


def _html_outputs(cell):
    """The ``text/html`` outputs of a code cell as (holder, key) pairs (an executed notebook's; none when stripped)."""
    return [(o["data"], "text/html") for o in cell.get("outputs", []) if "text/html" in o.get("data", {})]


def notebook_alt_texts(nb):
    """The alt texts of a notebook's code-cell images, where gettext never sees them: ``mystnb.image.alt`` (from
    ``book/alt_text.toml`` by ``tools/nb_meta.py``; myst-nb writes it into the image's ``alt``) and the ``alt`` of
    images in HTML outputs (``robokin.render.image_html``: the MuJoCo renders)."""
    import html

    out = []
    for cell in nb["cells"]:
        if cell.get("cell_type") != "code":
            continue
        alts = [cell.get("metadata", {}).get("mystnb", {}).get("image", {}).get("alt")]
        for holder, key in _html_outputs(cell):
            text = holder[key] if isinstance(holder[key], str) else "".join(holder[key])
            alts += [html.unescape(m.group(2)) for m in _HTML_ALT.finditer(text)]
        out += [a for a in alts if a and a not in out]
    return out


def translate_alt_texts(nb, catalog):
    """The image alt texts of ``nb`` in Chinese, in place (exact msgid: they are typed, not computed, so their
    numbers stay in the text); returns the alt texts without a translation."""
    import html

    missing = []

    def swap(m):
        alt = html.unescape(m.group(2))
        if not catalog.get(alt):
            missing.append(alt)
            return m.group(0)
        return m.group(1) + html.escape(catalog[alt], quote=True) + m.group(3)

    for cell in nb["cells"]:
        if cell.get("cell_type") != "code":
            continue
        image = cell.get("metadata", {}).get("mystnb", {}).get("image", {})
        if image.get("alt"):
            if catalog.get(image["alt"]):
                image["alt"] = catalog[image["alt"]]
            else:
                missing.append(image["alt"])
        for holder, key in _html_outputs(cell):
            text = holder[key] if isinstance(holder[key], str) else "".join(holder[key])
            holder[key] = _HTML_ALT.sub(swap, text)
    return missing


def translate_captions(nb, catalog):
    """The figure captions of ``nb`` in Chinese, in place; returns the captions without a translation."""
    missing = []
    for cell in nb["cells"]:
        fig = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
        if cell.get("cell_type") == "code" and fig.get("caption"):
            if catalog.get(fig["caption"]):
                fig["caption"] = catalog[fig["caption"]]
            else:
                missing.append(fig["caption"])
    return missing


def read_figure_catalog(path=FIGURE_PO):
    """English -> Chinese of the figure texts with a translation (none fuzzy)."""
    if not Path(path).exists():
        return {}
    return {m: s for m, s, fuzzy in read_catalog(path) if s.strip() and not fuzzy}


def _style_font(style):
    from matplotlib.font_manager import FontProperties

    def get(name, default):
        m = re.search(rf"{name}:\s*([^;]+)", style)
        return m.group(1).strip() if m else default

    size = float(get("font-size", "10px").removesuffix("px"))
    return FontProperties(size=size, weight=get("font-weight", "normal"), style=get("font-style", "normal"))


def _with_cjk(style):
    """A style attribute whose font families end with CJK fonts (before the generic family, if any)."""
    m = re.search(r"font-family:\s*([^;]*)", style)
    if not m:
        return style + f"; font-family: {CJK_FAMILIES}, sans-serif"
    fams = m.group(1).strip()
    new = (
        fams[: -len("sans-serif")] + CJK_FAMILIES + ", sans-serif"
        if fams.endswith("sans-serif")
        else (f"{fams}, {CJK_FAMILIES}")
    )
    return style[: m.start(1)] + new + style[m.end(1) :]


def _is_wide(ch):
    import unicodedata

    return unicodedata.east_asian_width(ch) in ("W", "F")


def _plain_width(text, prop):
    """Width in points of plain text as matplotlib lays it out; a CJK character is one em (Noto Sans CJK's)."""
    from matplotlib.textpath import TextToPath

    ttp = TextToPath()
    width = 0.0
    for wide, run in _runs(text):
        if wide:
            width += len(run) * prop.get_size_in_points()
        elif run:
            width += ttp.get_text_width_height_descent(run, prop, ismath=False)[0]
    return width


def _runs(text):
    """``text`` cut into (wide, run) pieces: CJK characters apart from the rest."""
    out = []
    for ch in text:
        w = _is_wide(ch)
        if out and out[-1][0] == w:
            out[-1][1] += ch
        else:
            out.append([w, ch])
    return [(w, r) for w, r in out]


_ALIGN = {"left": 0.0, "center": 0.5, "right": 1.0}


def _translate_lines(svg_part, zh, ha):
    """The ``<text>`` lines of one text group with their text replaced by ``zh`` (same number of lines)."""
    lines = zh.split("\n")
    items = list(_FIG_TEXT.finditer(svg_part))
    if len(lines) != len(items):
        raise ValueError(f"{len(items)} line(s) in the figure, {len(lines)} in the translation {zh!r}")
    out, pos = [], 0
    for t, line in zip(items, lines):
        head, attrs = t.group(1), t.group(2)
        style = re.search(r'style="([^"]*)"', attrs).group(1)
        new_attrs = attrs.replace(f'style="{style}"', f'style="{_with_cjk(style)}"')
        if "text-anchor" not in style and ha in _ALIGN and _ALIGN[ha]:
            # a rotated or multi-line text starts where the English line started: anchor it where matplotlib did
            width = _plain_width(_unescape(t.group(3)), _style_font(style))
            anchor = {"center": "middle", "right": "end"}[ha]
            new_attrs = new_attrs.replace(
                f'style="{_with_cjk(style)}"', f'style="{_with_cjk(style)}; text-anchor: {anchor}"'
            )
            new_attrs = f' x="{_ALIGN[ha] * width:.6g}"' + new_attrs
        out.append(svg_part[pos : t.start()] + f"{head}{new_attrs}>{_escape(line)}</text>")
        pos = t.end()
    return "".join(out) + svg_part[pos:]


def _math_spans(text, size):
    """matplotlib's layout of mathtext ``text``: (width, tspans, rects), as its SVG backend writes them."""
    import io

    from matplotlib.backends.backend_svg import RendererSVG
    from matplotlib.font_manager import FontProperties

    buf = io.StringIO()
    renderer = RendererSVG(100, 100, buf)
    prop = FontProperties(size=size)
    width = renderer._text2path.mathtext_parser.parse(text, 72, prop)[0]
    start = buf.tell()
    renderer._draw_text_as_text(renderer.new_gc(), 0, 0, text, prop, 0, True)
    body = buf.getvalue()[start:]
    spans = re.findall(r"<tspan\b[^>]*>[^<]*</tspan>", body)
    rects = re.findall(r"<rect\b[^>]*/>", body)
    return width, spans, rects


def _shift(element, dx):
    return re.sub(r'\bx="([-\d.e]+)"', lambda m: f'x="{float(m.group(1)) + dx:.6g}"', element, count=1)


def _translate_math(inner, en, zh, ha, size):
    """The ``<text>`` (and rules) of a maths text group set anew for ``zh``: its maths by matplotlib, its words as
    text in the CJK-capable families, aligned on the point the English text was aligned on."""
    keep_en = _FIG_MATH_SEG.findall(en)
    if sorted(keep_en) != sorted(_FIG_MATH_SEG.findall(zh)):
        raise ValueError(f"the translation {zh!r} does not keep the maths of {en!r}")
    spans, rects, x = [], [], 0.0
    from matplotlib.font_manager import FontProperties

    prop = FontProperties(size=size)
    pos = 0
    pieces = []
    for m in _FIG_MATH_SEG.finditer(zh):
        pieces += [("text", zh[pos : m.start()]), ("math", m.group(0))]
        pos = m.end()
    pieces.append(("text", zh[pos:]))
    family = f"'DejaVu Sans', {CJK_FAMILIES}, sans-serif"
    for kind, piece in pieces:
        if not piece:
            continue
        if kind == "math":
            width, sp, rc = _math_spans(piece, size)
            spans += [_shift(s, x) for s in sp]
            rects += [_shift(r, x) for r in rc]
        else:
            width = _plain_width(piece.replace("\\$", "$"), prop)
            text = _escape(piece.replace("\\$", "$")).replace(" ", "\u00a0")
            spans.append(
                f'<tspan x="{x:.6g}" y="0" style="font-size: {size:g}px; font-family: {family}">{text}</tspan>'
            )
        x += width
    en_width = _math_spans(en, size)[0]
    dx = _ALIGN.get(ha, 0.0) * (en_width - x)
    indent = re.match(r"\s*", inner).group(0)
    body = "\n".join(indent + " " + _shift(s, dx) for s in spans)
    out = f"{indent}<text>\n{body}\n{indent}</text>"
    return out + "".join("\n" + indent + _shift(r, dx) for r in rects)


def translate_svg(svg, catalog):
    """``svg`` (a matplotlib SVG of robokin.nb.svg_figure) with its texts translated: (svg, texts left untranslated)."""
    missing, out, pos = [], [], 0
    for _start, _end, text, ha, size, lines in svg_text_groups(svg):
        if not figure_needs_translation(text):
            continue
        zh = figure_translation(catalog, text)
        zh_lines = None if zh is None else zh.split("\n")
        if zh_lines is None or len(zh_lines) != len(lines) or (size is None and any(k == "math" for k, *_ in lines)):
            missing.append(text)  # (a maths text without the id of svg_figure: no alignment and size to set it)
            continue
        for (kind, a, b, en), line in zip(lines, zh_lines):
            part = svg[a:b]
            if kind == "text":
                new = _translate_lines(part, line, ha)
            else:
                m = _FIG_MATH.match(part)
                # the comment says what the group shows (its source, as matplotlib writes it): now the translation
                comment = _escape(line).replace("--", "&#45;&#45;")
                new = (
                    part[: m.start(1)]
                    + comment
                    + part[m.end(1) : m.start(3)]
                    + _translate_math(m.group(3), en, line, ha, size)
                    + part[m.end(3) :]
                )
            out.append(svg[pos:a] + new)
            pos = b
    return "".join(out) + svg[pos:], missing


def translate_notebook_figures(nb, catalog):
    """Translate every figure of ``nb`` in place; returns the texts that have no translation."""
    missing = []
    for holder, key in _svg_documents(nb):
        svg, lost = translate_svg("".join(holder[key]), catalog)
        holder[key] = svg
        missing += lost
    return missing


def svg_skeleton(svg):
    """An SVG with its texts and font families taken out and its maths groups emptied: what translation keeps."""
    groups = svg_text_groups(svg)
    out, pos = [], 0
    for start, end, *_ in groups:
        out.append(svg[pos:start] + "<text/>")
        pos = end
    return "".join(out) + svg[pos:]


def _fixed_catalog(project):
    """An empty zh_CN catalogue with a fixed header: the file changes only when a text or a translation does."""
    from datetime import UTC, datetime

    from babel.messages.catalog import Catalog

    stamp = datetime(2026, 1, 1, tzinfo=UTC)
    return Catalog(
        locale=LANG,
        project=project,
        version="1",
        charset="utf-8",
        fuzzy=False,
        creation_date=stamp,
        revision_date=stamp,
        last_translator="robokin",
        language_team="robokin zh_CN",
        copyright_holder="robokin",
    )


def _carry_over(old, where, docs, cat, *, prune, command):
    """Add to ``cat`` the entries of ``old`` this run did not find: those of pages it did not execute (make chapter),
    and translated ones unless ``prune`` (listed, so that an author sees what `command --prune` would drop)."""
    kept = []
    for text, prev in old.items():
        pages = [d for d in ", ".join(prev.auto_comments).split(", ") if d]
        if text in where:
            continue
        if pages and not set(pages) & set(docs):
            cat.add(text, prev.string, auto_comments=prev.auto_comments, flags=prev.flags)
        elif prev.string and not prune:
            cat.add(text, prev.string, auto_comments=prev.auto_comments, flags=prev.flags)
            kept.append(text)
    if kept:
        print(
            f"kept {len(kept)} translated texts this run did not find (`tools/i18n.py {command} --prune` drops them):",
            *(f"  {t[:100]!r}" for t in kept),
            sep="\n",
        )


def update_figures(executed=EXECUTED, po=FIGURE_PO, docs=None, *, prune=False):
    """figures.po from the figures of the executed notebooks: new texts added untranslated, translations kept.

    As in :func:`update_outputs`, a translated text this run did not show stays unless ``prune`` (a figure drawn
    only on some machines keeps its translation); untranslated texts no longer shown go. Returns the number of texts
    to translate."""
    return _update_catalog(
        executed,
        po,
        docs,
        texts=lambda nb: notebook_figure_texts(nb) + notebook_captions(nb) + notebook_alt_texts(nb),
        project="robokin figures",
        header="# Texts of the chapters' figures (tools/i18n.py figures); build-zh translates the SVGs with it.",
        prune=prune,
        command="figures",
    )


def _update_catalog(executed, po, docs, *, texts, project, header, prune, command):
    """Write the catalogue ``po`` of the texts ``texts(nb)`` finds in the executed notebooks of ``docs``, keeping
    the translations of ``po`` (:func:`_carry_over` for the texts this run did not find)."""
    import nbformat
    from babel.messages.pofile import read_po, write_po

    docs = [d for d in (docs or toc_docs()) if (Path(executed) / f"{d}.ipynb").exists()]
    if not docs:
        sys.exit(f"no executed notebooks in {executed}: build the English book first (make book)")
    old = {}
    if Path(po).exists():
        with open(po, "rb") as f:
            old = {m.id: m for m in read_po(f) if m.id}
    where = {}
    for doc in docs:
        nb = nbformat.read(Path(executed) / f"{doc}.ipynb", as_version=4)
        for text in texts(nb):
            where.setdefault(text, []).append(doc)
    cat = _fixed_catalog(project)
    cat.header_comment = header
    for text, pages in where.items():
        prev = old.get(text)
        cat.add(text, prev.string if prev else "", auto_comments=[", ".join(pages)], flags=prev.flags if prev else ())
    _carry_over(old, where, docs, cat, prune=prune, command=command)
    Path(po).parent.mkdir(parents=True, exist_ok=True)
    with open(po, "wb") as f:
        write_po(f, cat, width=120, omit_header=False, sort_output=False)
    return len(where)


def check_figure_catalog(po=FIGURE_PO, executed=None, terms=None):
    """Findings of the figure catalogue: untranslated or fuzzy texts, maths not kept, lines not kept, glossary terms;
    with ``executed`` (the English build's notebooks) also every figure text to translate that it lacks."""
    if not Path(po).exists():
        return [Finding("figures", "missing", "", f"no catalogue {po}")]
    out = []
    for mid, mstr, fuzzy in read_catalog(po):
        if not mstr.strip():
            out.append(Finding("figures", "untranslated", mid))
            continue
        if fuzzy:
            out.append(Finding("figures", "fuzzy", mid))
        if sorted(_FIG_MATH_SEG.findall(mid)) != sorted(_FIG_MATH_SEG.findall(mstr)):
            out.append(Finding("figures", "maths", mid, "the translation must keep each $...$ as written"))
        # a caption's roles ({numref}, {eq}) and inline code (its maths: the check above)
        lost = _diff(_kept(_FIG_MATH_SEG.sub(" ", mid)), _kept(_FIG_MATH_SEG.sub(" ", mstr)))
        if lost:
            out.append(Finding("figures", "markup", mid, "maths/code/roles differ: " + lost))
        if mid.count("{}") != mstr.count("{}"):
            out.append(Finding("figures", "markup", mid, "the translation must keep each {} (a number of the run)"))
        if mid.count("\n") != mstr.count("\n"):
            out.append(Finding("figures", "markup", mid, "the translation must have as many lines as the text"))
        if not _HAN.search(mstr):
            out.append(Finding("figures", "english", mid, "the translation has no Chinese"))
        for en, (pattern, zh) in (terms or {}).items():
            # an abbreviation or a function name in a formula (|FK(q) - p|, ik(p)) may stay as written
            found = [m.group(0) for m in pattern.finditer(_FIG_MATH_SEG.sub(" ", mid)) if len(m.group(0)) > 3]
            if found and zh not in mstr:
                out.append(Finding("figures", "term", mid, f"{en!r} must be translated {zh!r} (book/glossary.md)"))
    if executed is not None:
        import nbformat

        have = {m for m, s, _ in read_catalog(po)}
        for doc in toc_docs():
            path = Path(executed) / f"{doc}.ipynb"
            if path.exists():
                nb = nbformat.read(path, as_version=4)
                for text in notebook_figure_texts(nb) + notebook_captions(nb) + notebook_alt_texts(nb):
                    if text not in have:
                        out.append(
                            Finding(
                                doc,
                                "missing",
                                text,
                                "a figure text not in figures.po: run `tools/i18n.py figures` and translate it",
                            )
                        )
    return out


# ---------------------------------------------------------------- outputs
#
# What the code cells print is the English run's too (one execution). build-zh translates, from one catalogue,
# locales/zh_CN/outputs.po, the parts of an output a reader reads as sentences or labels:
#
# * the frame of robokin.checks.CheckReport's line in a stream ("[PASS] {name}: max error {error}{unit} over
#   {samples} samples (tol {tol})", ", worst at {worst}"): the check's name, numbers and unit stay as printed;
# * tables: header cells (HTML ``<th>``, the first row of a Markdown table) and body cells that are plain words
#   ("yes", "five-bar leg"; a cell with digits, symbols or code is data and stays);
# * matplotlib's animation player: its button titles (``title``/``aria-label``) and the Once / Loop / Reflect labels.
#
# A translation is the whole text (or the whole frame): numbers, code, arrays and units of an output are never
# touched, and a translation that would change a number is refused (check_output_catalog, translate_output_text).

OUTPUT_PO = LOCALES / LANG / "outputs.po"

#: robokin.checks.CheckReport.__str__, field by field (tests/test_i18n.py checks it still prints this form)
_CHECK_LINE = re.compile(
    r"^\[(?P<flag>PASS|FAIL)\] (?P<name>.+?): max error (?P<error>\S+)(?P<unit>(?: [^\s()]+)*?) over"
    r" (?P<samples>\d+) samples \(tol (?P<tol>[^\s()]+)\)(?:, worst at (?P<worst>\(.*\)))?$"
)
#: the placeholders of a check line's frame: the values printed by the run, put back as they were
CHECK_FIELDS = ("name", "error", "unit", "samples", "tol")
CHECK_WORST = ", worst at {worst}"
#: robokin.checks.check_answer's line on success (an exercise's answer): its frame and the quantity's name
_CORRECT_LINE = re.compile(r"^(?P<name>\S.*?): correct\.$")
CORRECT_KEY = "{name}: correct."
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
#: a table cell of plain words (translated as a whole); anything with a digit, a symbol or code is data
_PLAIN_WORDS = re.compile(r"[A-Za-z][A-Za-z'-]*(?: [A-Za-z][A-Za-z'-]*)*")
#: a UR5 IK branch name (robokin.ur5: shoulder-elbow-wrist) is code, shown as the chapters' code names it
_BRANCH_NAME = re.compile(r"(?:left|right)-(?:up|down)-(?:no)?flip")
#: table cells that are data though they read as words: a number's nan, solver names (MuJoCo's CG, PGS)
OUTPUT_WORDS = {"nan", "inf", "CG", "PGS", "Newton"}
#: in document order: a table cell or label (groups 1-4), a title or aria-label attribute (groups 5-7)
_HTML_ITEM = re.compile(r'(<(th|td|label)\b[^>]*>)([^<]*)(</\2>)|(\b(?:title|aria-label)=")([^"]*)(")')
_MD_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
_MD_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def check_key(flag):
    """The catalogue's msgid of a check line's frame (``flag``: "PASS" or "FAIL").

    >>> check_key("PASS")
    '[PASS] {name}: max error {error}{unit} over {samples} samples (tol {tol})'
    """
    return f"[{flag}] {{name}}: max error {{error}}{{unit}} over {{samples}} samples (tol {{tol}})"


def output_needs_translation(text):
    """True when an output label holds a word to translate (the rule of figure texts: numbers, units, symbols,
    maths and code names are not words to translate).

    >>> [output_needs_translation(t) for t in ["max error", "RMS (mm)", "1e-09", "q_des", "yes"]]
    [True, False, False, False, True]
    """
    return figure_needs_translation(text)


def _numbers(text):
    """The numbers of a text, sorted (the run's: a translation must keep them all, in any order of its words)."""
    return sorted(_FIG_NUMBER.findall(text))


def _fill(template, values):
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def _line_frame(line):
    """``(values, frame msgids)`` of a check line or an exercise's "correct" line; None for any other line."""
    m = _CHECK_LINE.match(line)
    if m is not None:
        values = m.groupdict()
        return values, [check_key(values["flag"])] + ([CHECK_WORST] if values["worst"] else [])
    m = _CORRECT_LINE.match(line)
    if m is not None:
        return m.groupdict(), [CORRECT_KEY]
    return None


def translate_check_line(line, catalog):
    """A check line (or an exercise's "correct" line) in Chinese: ``(text, missing)``; ``line`` itself and the
    msgids lacking a translation when the catalogue lacks one; ``None`` when ``line`` is neither.

    >>> zh = {check_key("PASS"): "[通过] {name}：最大误差 {error}{unit}，{samples} 个样本（容差 {tol}）"}
    >>> translate_check_line("[PASS] fk: max error 1.00e-12 m over 2 samples (tol 1e-09)", zh)
    ('[通过] fk：最大误差 1.00e-12 m，2 个样本（容差 1e-09）', [])
    >>> zh["foot on circle {}"] = "足端在圆 {} 上"
    >>> translate_check_line("[PASS] foot on circle 2: max error 0 m over 5 samples (tol 1e-12)", zh)[0]
    '[通过] 足端在圆 2 上：最大误差 0 m，5 个样本（容差 1e-12）'
    >>> translate_check_line("knee angle: correct.", {CORRECT_KEY: "{name}：正确。", "knee angle": "膝关节角"})
    ('膝关节角：正确。', [])
    """
    parts = _line_frame(line)
    if parts is None:
        return None
    values, keys = parts
    missing = [k for k in keys if not catalog.get(k)]
    name_key = output_key(values["name"])
    name_zh = output_translation(catalog, values["name"]) if name_key is not None else None
    if name_key is not None and not name_zh:
        missing.append(name_key)  # the frame is translated, the name stays as printed
    if any(k in missing for k in keys):
        return line, missing
    if name_zh:
        values["name"] = name_zh
    out = "".join(_fill(catalog[k], values) for k in keys)
    if _numbers(out) != _numbers(line):
        raise ValueError(f"the translation of a check line changes its numbers: {line!r} -> {out!r}")
    return out, missing


#: a code name in an output text (rpy_to_matrix, FiveBar.fk, mj_fullM, `track`): kept by the translation
_CODE_NAME = re.compile(r"`[^`]+`|\b[A-Za-z_]\w*(?:[._]\w+)+\b")
#: a cell that is a code name (``robokin.ur5.ik``, ``solve_ivp(...)``): shown as the chapters' code names it
_CODE_CELL = re.compile(r"[A-Za-z_][\w]*(?:\.[\w]+)+(?:\(.*\))?|[A-Za-z_]\w*_\w*(?:\(.*\))?|[A-Za-z_]\w*\(.*\)")


#: robokin.report's break opportunity in long names (a zero-width space after "." and "_"): not part of a key
_ZWSP = "\u200b"
_ZWSP_AT = re.compile(r"(?<=\w)([._])(?=\w)")
#: a Markdown code span that is the whole cell (`track`): code, shown as printed
_CODE_SPAN = re.compile(r"`[^`]+`")


def output_key(text):
    """The msgid of an output label (a table cell, a check's name), or None when it is data (kept as printed):
    numbers outside maths are written ``{}``, as in :func:`figure_key` (they are the run's).

    >>> output_key("segment 3"), output_key("five-bar leg"), output_key("1.5e-3"), output_key("robokin.ur5.ik")
    ('segment {}', 'five-bar leg', None, None)
    >>> output_key("FiveBar.\u200bfk vs sympy"), output_key("`track`")   # report's break marks; a code span
    ('FiveBar.fk vs sympy', None)
    """
    text = text.replace(_ZWSP, "").strip()
    if not text or text in OUTPUT_WORDS or _BRANCH_NAME.fullmatch(text) or _CODE_CELL.fullmatch(text):
        return None
    if _CODE_SPAN.fullmatch(text):
        return None
    return figure_key(text) if output_needs_translation(text) else None


def output_translation(catalog, text):
    """The Chinese of an output label from ``catalog``, its numbers put back in order; None when it has none. The
    report's break marks in names (``FiveBar.fk``) are put back where the translation keeps such names."""
    zh = figure_translation(catalog, text.replace(_ZWSP, "").strip())
    if zh and _ZWSP in text:
        zh = _ZWSP_AT.sub("\\1" + _ZWSP, zh)
    return zh


def _markdown_table_lines(text):
    """``(index, header)`` of each table row of a Markdown text (``header``: the row above a separator row)."""
    lines = text.split("\n")
    rows = []
    for i, line in enumerate(lines):
        if line.lstrip().startswith("|") and not _MD_SEPARATOR.match(line):
            below = lines[i + 1] if i + 1 < len(lines) else ""
            rows.append((i, bool(_MD_SEPARATOR.match(below)) and "|" in below))
    return lines, rows


def _translate_markdown(text, catalog, found):
    lines, rows = _markdown_table_lines(text)
    for i, _ in rows:
        cells = _MD_CELL_SPLIT.split(lines[i])
        for k in range(1, len(cells) - 1):  # the pieces before the first | and after the last are not cells
            key = output_key(cells[k])
            if key is not None:
                found.append(key)
                zh = output_translation(catalog, cells[k])
                if zh:
                    cells[k] = cells[k].replace(cells[k].strip(), zh, 1)
        lines[i] = "|".join(cells)
    return "\n".join(lines)


def _translate_html(text, catalog, found):
    import html as html_

    def swap(m):
        if m.group(1) is not None:  # a table cell or a label
            text = html_.unescape(m.group(3))
            key = output_key(text)
            head, body, tail, quote = m.group(1), m.group(3), m.group(4), False
        else:  # a title or aria-label attribute (the player's buttons)
            text = html_.unescape(m.group(6))
            key = output_key(text)
            head, body, tail, quote = m.group(5), m.group(6), m.group(7), True
        if key is None:
            return m.group(0)
        found.append(key)
        zh = output_translation(catalog, text)
        return head + (html_.escape(zh, quote=quote) if zh else body) + tail

    return _HTML_ITEM.sub(swap, text)


def _translate_stream(text, catalog, found):
    out = []
    for line in text.split("\n"):
        done = translate_check_line(line, catalog)
        if done is None:
            out.append(line)
            continue
        values, keys = _line_frame(line)
        found += keys
        name = output_key(values["name"])
        if name is not None:
            found.append(name)
        out.append(done[0])
    return "\n".join(out)


def translate_output_text(kind, text, catalog):
    """One output's text in Chinese: ``(text, msgids)``, ``msgids`` the catalogue entries it needs (those without a
    translation leave their English in place). ``kind``: "stream", "text/html" or "text/markdown".

    >>> translate_output_text("text/html", "<table><tr><th>method</th><th>1e-3</th></tr></table>", {"method": "方法"})
    ('<table><tr><th>方法</th><th>1e-3</th></tr></table>', ['method'])
    """
    found = []
    translate = {"stream": _translate_stream, "text/html": _translate_html, "text/markdown": _translate_markdown}
    out = translate[kind](text, catalog, found)
    return out, found


def _output_texts(nb):
    """(holder, key, kind) of every translatable output text of a notebook's code cells."""
    for cell in nb["cells"]:
        if cell.get("cell_type") != "code":
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stdout":
                yield out, "text", "stream"
            for mime in ("text/html", "text/markdown"):
                if mime in out.get("data", {}):
                    yield out["data"], mime, mime


def notebook_output_texts(nb):
    """The msgids the outputs of a notebook need (in order, without repeats)."""
    seen = {}
    for holder, key, kind in _output_texts(nb):
        text = holder[key] if isinstance(holder[key], str) else "".join(holder[key])
        for msgid in translate_output_text(kind, text, {})[1]:
            seen.setdefault(msgid, None)
    return list(seen)


def translate_notebook_outputs(nb, catalog):
    """Translate the outputs of ``nb`` in place; returns the msgids that have no translation."""
    missing = []
    for holder, key, kind in _output_texts(nb):
        text = holder[key] if isinstance(holder[key], str) else "".join(holder[key])
        new, found = translate_output_text(kind, text, catalog)
        missing += [m for m in found if not catalog.get(m)]
        if new != text:
            holder[key] = new
    return missing


def read_output_catalog(path=OUTPUT_PO):
    """English -> Chinese of the output texts with a translation (none fuzzy)."""
    if not Path(path).exists():
        return {}
    return {m: s for m, s, fuzzy in read_catalog(path) if s.strip() and not fuzzy}


def update_outputs(executed=EXECUTED, po=OUTPUT_PO, docs=None, *, prune=False):
    """outputs.po from the outputs of the executed notebooks: new texts added untranslated, translations kept.

    A translated text this run did not print stays unless ``prune``: some texts are printed only on some machines
    (chapter 14's firmware table needs the ARM tools and QEMU), and a catalogue regenerated on another machine must
    not lose them (the build-zh of a machine that prints them would fail). Untranslated texts no longer printed go.
    Returns the number of texts printed."""
    return _update_catalog(
        executed,
        po,
        docs,
        texts=notebook_output_texts,
        project="robokin outputs",
        header=(
            "# Texts of the chapters' code-cell outputs (tools/i18n.py outputs): check lines, table headers and labels,\n"
            "# the animation player. build-zh translates the English run's outputs with it; {name} etc. are the run's."
        ),
        prune=prune,
        command="outputs",
    )


def check_output_catalog(po=OUTPUT_PO, executed=None, terms=None):
    """Findings of the output catalogue: untranslated or fuzzy texts, placeholders or numbers not kept, no Chinese,
    glossary terms; with ``executed`` (the English build's notebooks) also every output text it lacks."""
    if not Path(po).exists():
        return [Finding("outputs", "missing", "", f"no catalogue {po}")]
    out = []
    entries = read_catalog(po)
    for mid, mstr, fuzzy in entries:
        if not mstr.strip():
            out.append(Finding("outputs", "untranslated", mid))
            continue
        if fuzzy:
            out.append(Finding("outputs", "fuzzy", mid))
        if sorted(_PLACEHOLDER.findall(mid)) != sorted(_PLACEHOLDER.findall(mstr)):
            out.append(Finding("outputs", "markup", mid, "the translation must keep each {field} (the run's values)"))
        if mid.count("{}") != mstr.count("{}"):
            out.append(Finding("outputs", "markup", mid, "the translation must keep each {} (a number of the run)"))
        if _numbers(_PLACEHOLDER.sub(" ", mid)) != _numbers(_PLACEHOLDER.sub(" ", mstr)):
            out.append(Finding("outputs", "markup", mid, "the translation must keep the numbers as printed"))
        if sorted(_FIG_MATH_SEG.findall(mid)) != sorted(_FIG_MATH_SEG.findall(mstr)):
            out.append(Finding("outputs", "maths", mid, "the translation must keep each $...$ as written"))
        if not _HAN.search(mstr):
            out.append(Finding("outputs", "english", mid, "the translation has no Chinese"))
        lost = [n for n in _CODE_NAME.findall(mid) if n not in mstr]
        if lost:
            out.append(Finding("outputs", "code", mid, f"the translation must keep the code names {lost} as printed"))
        for en, (pattern, zh) in (terms or {}).items():
            found = [m.group(0) for m in pattern.finditer(mid) if len(m.group(0)) > 3]
            if found and zh not in mstr:
                out.append(Finding("outputs", "term", mid, f"{en!r} must be translated {zh!r} (book/glossary.md)"))
    if executed is not None:
        import nbformat

        have = {m for m, _, _ in entries}
        for doc in toc_docs():
            path = Path(executed) / f"{doc}.ipynb"
            if path.exists():
                for text in notebook_output_texts(nbformat.read(path, as_version=4)):
                    if text not in have:
                        out.append(
                            Finding(
                                doc, "missing", text, "an output text not in outputs.po: run `tools/i18n.py outputs`"
                            )
                        )
    return out


# ---------------------------------------------------------------- commands


def _book_config(*, language, execute):
    """The book's _config.yml for another build, with paths made absolute (it is written elsewhere)."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    config["bibtex_bibfiles"] = [str(ROOT / f) for f in config.get("bibtex_bibfiles", [])]
    if "favicon" in config.get("html", {}):
        config["html"]["favicon"] = str(ROOT / config["html"]["favicon"])
    sphinx = config.setdefault("sphinx", {})
    exts = dict(sphinx.get("local_extensions") or {})
    exts.setdefault("robokin_i18n", "book/_ext")
    sphinx["local_extensions"] = {name: str(ROOT / path) for name, path in exts.items()}
    sc = sphinx.setdefault("config", {})
    sc["html_static_path"] = [str(ROOT / p) for p in sc.get("html_static_path", [])]
    config.setdefault("execute", {})["execute_notebooks"] = execute
    # one catalogue per page (easy to review), no line numbers or ids in them (diffs show only text changes)
    sc.update(
        language=language,
        locale_dirs=[str(LOCALES)],
        gettext_compact=False,
        gettext_uuid=False,
        gettext_location=True,
        gettext_last_translator="robokin",
        gettext_language_team="robokin zh_CN",
    )
    return config


def _merge(base, over):
    for k, v in over.items():
        base[k] = _merge(base.get(k, {}), v) if isinstance(v, dict) and isinstance(base.get(k), dict) else v
    return base


def _run(cmd, log):
    print("+", " ".join(map(str, cmd)), flush=True)
    with open(log, "w", encoding="utf-8") as f:
        proc = subprocess.run(cmd, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT, text=True)
    text = Path(log).read_text(encoding="utf-8")
    warnings = [line for line in text.splitlines() if "WARNING" in line or "ERROR" in line]
    return proc.returncode, warnings


def _clean_template(path):
    """Drop the API docstrings' messages (English in both editions: they are the package's documentation) and the
    source locations (line numbers would change every .po file on every edit)."""
    from babel.messages.pofile import read_po, write_po

    with open(path, "rb") as f:
        cat = read_po(f)
    for m in list(cat):
        # a docstring's location reads "robokin/x.py:docstring of robokin.x.f:3"; a page's "book/x.md:3"
        if m.id and m.locations and not any(loc.endswith((".md", ".ipynb", ".yml")) for loc, _ in m.locations):
            del cat[m.id]
    with open(path, "wb") as f:
        write_po(f, cat, width=120, no_location=True, omit_header=False)


def extract(pot_dir=POT_DIR):
    """gettext templates of every page into ``pot_dir`` (notebooks are read, not executed)."""
    pot_dir = Path(pot_dir)
    # its own scratch build beside each template directory: two extractions can run at once
    out = BUILD / "i18n-gettext" if pot_dir == POT_DIR else pot_dir.with_name(pot_dir.name + "-build")
    out.mkdir(parents=True, exist_ok=True)
    (out / "_config.yml").write_text(yaml.safe_dump(_book_config(language="en", execute="off"), allow_unicode=True))
    code, _ = _run(
        [
            BIN / "jupyter-book",
            "build",
            ROOT,
            "--builder",
            "custom",
            "--custom-builder",
            "gettext",
            "--config",
            out / "_config.yml",
            "--path-output",
            out,
        ],
        out / "build.log",
    )
    # glue keys do not resolve without outputs; those warnings are expected here, anything else is not
    if code != 0 or not (out / "_build" / "gettext").is_dir():
        sys.exit(f"gettext build failed: see {out / 'build.log'}")
    if pot_dir.exists():
        shutil.rmtree(pot_dir)
    shutil.copytree(out / "_build" / "gettext", pot_dir)
    for pot in pot_dir.rglob("*.pot"):
        _clean_template(pot)
    n = sum(len(read_catalog(p)) for p in pot_dir.rglob("*.pot"))
    print(f"{n} messages in {len(list(pot_dir.rglob('*.pot')))} catalogues: {pot_dir}")


def update(pot_dir=POT_DIR, docs=None):
    """Merge fresh templates into the .po files (new messages empty, changed ones fuzzy).

    ``docs``: only these pages' catalogues (e.g. ``["notebooks/03_five_bar_leg"]``); default every page.
    """
    pot_dir = Path(pot_dir)
    if not pot_dir.exists():
        sys.exit("no templates: run `tools/i18n.py extract` first")
    toc = set(toc_docs())
    unknown = sorted(set(docs or ()) - toc)
    if unknown:
        sys.exit(f"not pages of _toc.yml: {', '.join(unknown)}")
    with tempfile.TemporaryDirectory() as tmp:
        source = pot_dir
        if docs:  # sphinx-intl merges every template it is given: give it only these
            source = Path(tmp)
            for doc in docs:
                (source / doc).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(pot_dir / f"{doc}.pot", source / f"{doc}.pot")
        subprocess.run(
            [BIN / "sphinx-intl", "update", "-p", source, "-d", LOCALES, "-l", LANG, "-w", "120"], cwd=ROOT, check=True
        )
    # sphinx-intl writes a catalogue for every template; keep only those of the table of contents
    for po in PO_DIR.rglob("*.po"):
        if str(po.relative_to(PO_DIR).with_suffix("")) not in toc:
            po.unlink()
        else:
            clear_header_fuzzy(po)


def report(findings, *, complete=False):
    pending = [] if complete else pending_docs()
    for f in findings:
        print(f, file=sys.stderr)
    if pending:
        print(f"pending (not yet translated, locales/zh_CN/pending.txt): {', '.join(pending)}")
    if findings:
        kinds = sorted({f.kind for f in findings})
        print(f"{len(findings)} problem(s) in the Chinese catalogues ({', '.join(kinds)}); see above", file=sys.stderr)
        return 1
    print("Chinese catalogues: complete" + ("" if not pending else " (apart from the pending pages)"))
    return 0


def unmerge_saved_streams(outputs):
    """A saved cell's outputs as myst-nb's ``nb_merge_streams`` will merge them once, not twice.

    myst-nb merges a cell's stream outputs *in place*: the first stdout (stderr) output gets the text of the later
    ones appended, and the notebook it then saves to ``_build/jupyter_execute`` keeps those later outputs too.
    Merged again by the Chinese build, lines 2..n would show twice. A later stream whose text the first one of its
    name already ends with is dropped here; streams the English build did not merge are left for the build to merge.
    """
    first, later = {}, {}
    for out in outputs:
        if out.get("output_type") == "stream":
            if out["name"] in first:
                later[out["name"]].append(out)
            else:
                first[out["name"]], later[out["name"]] = out, []
    drop = set()
    for name, head in first.items():
        tail = "".join(t + "\n" for t in (o["text"].rstrip() for o in later[name]) if t)
        if later[name] and tail and head["text"].endswith(tail) and len(head["text"]) > len(tail):
            drop |= {id(o) for o in later[name]}
    return [o for o in outputs if id(o) not in drop]


def _executed_notebook(doc):
    """The English build's executed notebook with its glue data put back (myst-nb moves it to .glue.json)."""
    import nbformat

    nb_path = EXECUTED / f"{doc}.ipynb"
    if not nb_path.exists():
        sys.exit(f"{nb_path.relative_to(ROOT)} missing: build the English book first (make book)")
    nb = nbformat.read(nb_path, as_version=4)
    for cell in nb.cells:  # numbers quoted with {eval} read the glue data instead (see _write_catalogs)
        if cell.cell_type == "markdown":
            cell.source = _EVAL_GLUED.sub(lambda g: _glue_text(g.group(2)), cell.source)
        elif cell.cell_type == "code":
            cell.outputs = unmerge_saved_streams(cell.outputs)
    glue = EXECUTED / f"{doc}.glue.json"
    if glue.exists():
        code = next(c for c in nb.cells if c.cell_type == "code")
        for output in json.loads(glue.read_text(encoding="utf-8")).values():
            prefix = output["metadata"]["scrapbook"].get("mime_prefix", "")
            if prefix:  # shown glue outputs stayed in their cell; hidden ones go back, hidden again
                output["data"] = {prefix + k: v for k, v in output["data"].items()}
                code.outputs.append(nbformat.from_dict(output))
    return nb


_GLUE_ROLE = re.compile(r"\{(glue(?::\w+)?)\}`(?![^`]*::)([^`:]+)(:[^`]*)?`")
# robokin.nb's inline-execution form (tools/lab_convert.py) of the same number: {eval}`glued("key:fmt")`
_EVAL_GLUED = re.compile(r"\{eval\}`glued\(([\"'])([^`]*?)\1\)`")


def _glue_ref(doc, role, key, fmt):
    """``{glue:text}`key:fmt``` naming its notebook (glue:text splits the format at the last colon: ``:s`` if none)."""
    if role == "glue:text":
        fmt = fmt or ":s"
    return f"{{{role}}}`/{doc}.ipynb::{key}{fmt or ''}`"


def _glue_text(spec):
    """``{eval}`glued("key:fmt")``` as the glue role that shows the same text (myst-nb formats the recorded value
    with ``format(value, fmt)`` too)."""
    return f"{{glue:text}}`{spec}`"


def _write_catalogs(out, docs):
    """The .po files for the build (Sphinx compiles them there, not in the repository).

    Sphinx parses each translated message as a small document of its own, in which myst-nb's glue roles cannot
    see the notebook's glue data ("No key ... found"). In the build's copy, a glue role in a notebook's msgstr
    names its notebook explicitly (``{glue:text}`/notebooks/x.ipynb::key:.2f```), which myst-nb resolves from
    the notebook's glue data after parsing. The .po files keep the plain role, identical to the English.

    The inline-execution form ``{eval}`glued("key:.2f")``` needs a kernel, and the Chinese edition executes
    nothing: the build's notebooks (:func:`_executed_notebook`) and msgids say ``{glue:text}`key:.2f``` instead,
    and msgstrs the named reference; both read the number the English run glued (robokin.nb.glue records it).
    """
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po, write_po

    for po in sorted(PO_DIR.rglob("*.po")):
        doc = str(po.relative_to(PO_DIR).with_suffix(""))
        if doc not in docs:
            continue
        target = out / LANG / "LC_MESSAGES" / f"{doc}.po"
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(po, "rb") as f:
            cat = read_po(f)
        if (ROOT / f"{doc}.ipynb").exists():
            new = Catalog(locale=cat.locale, charset="utf-8")
            for m in cat:
                if not m.id:
                    continue
                mid = _EVAL_GLUED.sub(lambda g: _glue_text(g.group(2)), m.id)
                mstr = _EVAL_GLUED.sub(lambda g: _glue_text(g.group(2)), m.string or "")
                mstr = _GLUE_ROLE.sub(lambda g, d=doc: _glue_ref(d, *g.groups()), mstr)
                new.add(mid, mstr, flags=m.flags)
            cat = new
        elif doc in CHAPTER_LINK_PAGES:  # the msgids of the build's copy of the page (build_zh)
            new = Catalog(locale=cat.locale, charset="utf-8")
            for m in cat:
                if m.id:
                    new.add(chapter_links(m.id), chapter_links(m.string or ""), flags=m.flags)
            cat = new
        with open(target, "wb") as f:
            write_po(f, cat)


#: pages whose links into a chapter's section become links to the chapter in the Chinese build: a Chinese section's id
#: is the slug of its translated heading, and Sphinx keeps a translated link's English target, so no msgstr can fix it
CHAPTER_LINK_PAGES = {"book/claims"}
_SECTION_LINK = re.compile(r"(\]\([^()\s#]*\.ipynb)#[^()\s]+\)")


def chapter_links(text):
    """``text`` with each Markdown link to a notebook's section pointing at the notebook itself.

    >>> chapter_links("[cell](../notebooks/01_x.ipynb#reading-the-angles-back) and [t](../tests/t.py)")
    '[cell](../notebooks/01_x.ipynb) and [t](../tests/t.py)'
    """
    return _SECTION_LINK.sub(r"\1)", text)


def translated_equations(doc, po_dir=PO_DIR, root=ROOT):
    """English TeX -> Chinese TeX of a page's display equations whose ``\\text{}`` is translated.

    Sphinx cannot take these from the catalogue (it parses a translated equation as reST ``::`` and the page shows
    "::"), so the Chinese build writes them into its copy of the page instead.
    """
    po = Path(po_dir) / f"{doc}.po"
    if not po.exists():
        return {}
    equations = page_equations(doc, root)
    out = {}
    for mid, mstr, _ in read_catalog(po):
        if mid.strip() in equations and mstr.strip() and mstr.strip() != mid.strip():
            if tex_skeleton(mid) != tex_skeleton(mstr):
                sys.exit(
                    f"{doc}: the translation of the equation {mid[:60]!r}... changes its TeX (tools/i18n.py check)"
                )
            out[mid.strip()] = mstr.strip()
    return out


def _put_equations(texts, equations, doc):
    """``texts`` (a page's Markdown, or its cells') with the translated equations in place; exits if one is not there."""
    out = list(texts)
    for en, zh in equations.items():
        if not any(en in t for t in out):
            sys.exit(f"{doc}: a translated equation is not in the page source: {en[:60]!r}...")
        out = [t.replace(en, zh) for t in out]
    return out


def search_words(glossary=GLOSSARY):
    """Chinese words of the glossary (its 中文 column, split at / and parentheses) for the search splitter."""
    words = set()
    for zh in glossary_terms(glossary).values():
        for w in re.split(r"[/／（）()、，,；;]+", zh):
            w = w.strip()
            if _HAN.search(w):
                words.add(w)
                if w.endswith("矩阵") and len(w) > 2:
                    words.add(w[: -len("矩阵")])  # 雅可比 as well as 雅可比矩阵
    return sorted(words)


def build_zh():
    """The Chinese site into _build/html/zh from the English build's executed notebooks (no new execution)."""
    import nbformat

    if not (SITE / "index.html").exists() or not EXECUTED.is_dir():
        sys.exit("build the English book first (make book): the Chinese edition reuses its executed notebooks")
    extract()
    if report(
        check(pot_dir=POT_DIR)
        + check_figure_catalog(executed=EXECUTED, terms=core_terms())
        + check_output_catalog(executed=EXECUTED, terms=core_terms())
    ):
        sys.exit("the Chinese edition is not built while its catalogues have problems")
    src = ZH_SRC / "src"
    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    docs = toc_docs()
    # the source tree: links to the book's files, and the executed notebooks in place of the notebooks
    for top in sorted({d.split("/")[0] for d in docs if "/" in d}):
        (src / top).mkdir()
        for entry in sorted((ROOT / top).iterdir()):
            if entry.suffix != ".ipynb":
                (src / top / entry.name).symlink_to(entry)
    figure_catalog, untranslated = read_figure_catalog(), {}
    output_catalog, untranslated_outputs = read_output_catalog(), {}
    for doc in docs:
        equations = translated_equations(doc)
        if (ROOT / f"{doc}.ipynb").exists():
            nb = _executed_notebook(doc)
            # the English run's figures with their texts in Chinese (figures.po)
            lost = (
                translate_notebook_figures(nb, figure_catalog)
                + translate_captions(nb, figure_catalog)
                + translate_alt_texts(nb, figure_catalog)
            )
            if lost:
                untranslated[doc] = sorted(set(lost))
            # its outputs' check lines, table headers and player labels in Chinese (outputs.po)
            lost = translate_notebook_outputs(nb, output_catalog)
            if lost:
                untranslated_outputs[doc] = sorted(set(lost))
            cells = [c for c in nb.cells if c.cell_type == "markdown"]
            for cell, text in zip(cells, _put_equations([c.source for c in cells], equations, doc)):
                cell.source = text
            nbformat.write(nb, src / f"{doc}.ipynb")
        elif equations or doc in CHAPTER_LINK_PAGES:  # a copy (translated equations, chapter links) for the link
            (src / f"{doc}.md").unlink(missing_ok=True)
            (text,) = _put_equations([(ROOT / f"{doc}.md").read_text(encoding="utf-8")], equations, doc)
            if doc in CHAPTER_LINK_PAGES:
                text = chapter_links(text)
            (src / f"{doc}.md").write_text(text, encoding="utf-8")
        elif not (src / f"{doc}.md").exists():
            (src / f"{doc}.md").symlink_to(ROOT / f"{doc}.md")
    if untranslated:
        for doc, texts in untranslated.items():
            print(f"{doc}: figure texts without a translation: {texts[:8]}", file=sys.stderr)
        sys.exit(
            "figure texts without a translation in locales/zh_CN/figures.po: run `tools/i18n.py figures`, translate"
        )
    if untranslated_outputs:
        for doc, texts in untranslated_outputs.items():
            print(f"{doc}: output texts without a translation: {texts[:8]}", file=sys.stderr)
        sys.exit(
            "output texts without a translation in locales/zh_CN/outputs.po: run `tools/i18n.py outputs`, translate"
        )
    shutil.copy(ROOT / "_toc.yml", src / "_toc.yml")
    _write_catalogs(src / "locales", docs)
    config = _book_config(language=LANG, execute="off")
    config["sphinx"]["config"]["locale_dirs"] = ["locales"]
    if OVERRIDES.exists():
        _merge(config, yaml.safe_load(OVERRIDES.read_text(encoding="utf-8")) or {})
    records = EXECUTED / "exec_data.json"
    if not records.exists():
        sys.exit(f"{records.relative_to(ROOT)} missing: the English build must load book/_ext/robokin_i18n")
    config["sphinx"]["config"]["robokin_exec_data"] = str(records)
    # the search index: Sphinx's Chinese splitter (jieba) with the glossary's terms as a user dictionary, so that
    # 奇异位形 or 五连杆 is one indexed word, not the pieces jieba's general dictionary cuts it into
    import jieba  # noqa: F401  (without it sphinx.search.zh indexes no Chinese word at all)

    search_dict = ZH_SRC / "search_dict.txt"
    search_dict.write_text("".join(f"{w} 100000 n\n" for w in search_words()), encoding="utf-8")
    config["sphinx"]["config"]["html_search_language"] = "zh"
    config["sphinx"]["config"]["html_search_options"] = {"dict": str(search_dict)}
    (src / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    code, warnings = _run([BIN / "jupyter-book", "build", src, "-W", "-n", "--keep-going"], ZH_SRC / "build.log")
    if code != 0:
        print("\n".join(warnings[:50]), file=sys.stderr)
        sys.exit(f"Chinese edition: strict build failed ({len(warnings)} warning(s)); log: {ZH_SRC / 'build.log'}")
    if ZH_SITE.exists():
        shutil.rmtree(ZH_SITE)
    shutil.copytree(src / "_build" / "html", ZH_SITE)
    print(f"Chinese site built: {ZH_SITE.relative_to(ROOT)}/index.html")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    pot_help = "template directory (default _build/gettext; give each concurrent checkout its own)"
    e = sub.add_parser("extract", help="gettext templates into _build/gettext")
    e.add_argument("--pot", type=Path, default=POT_DIR, help=pot_help)
    u = sub.add_parser("update", help="merge the templates into locales/zh_CN (sphinx-intl update)")
    u.add_argument("--pot", type=Path, default=POT_DIR, help=pot_help)
    u.add_argument("docs", nargs="*", help="only these pages, e.g. notebooks/03_five_bar_leg (default: all)")
    c = sub.add_parser("check", help="fail listing untranslated, fuzzy or inconsistent messages")
    c.add_argument("--pot", type=Path, default=POT_DIR, help=pot_help)
    c.add_argument("--complete", action="store_true", help="no pending pages: every page must be translated")
    c.add_argument("--no-extract", action="store_true", help="check the committed .po files only (no templates)")
    sub.add_parser("build-zh", help="extract, check, and build the Chinese site into _build/html/zh")
    f = sub.add_parser(
        "figures", help="the figure texts of the English build (_build/jupyter_execute) into locales/zh_CN/figures.po"
    )
    f.add_argument("--prune", action="store_true", help="also drop translated texts this run did not show")
    o = sub.add_parser(
        "outputs",
        help="the output texts of the English build (check lines, table headers, player) into locales/zh_CN/outputs.po",
    )
    o.add_argument(
        "--prune", action="store_true", help="also drop translated texts this run did not print (kept by default)"
    )
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    if args.cmd == "extract":
        extract(args.pot.resolve())
    elif args.cmd == "update":
        update(args.pot.resolve(), args.docs)
    elif args.cmd == "check":
        if not args.no_extract:
            extract(args.pot.resolve())
        executed = EXECUTED if EXECUTED.is_dir() else None
        figures = check_figure_catalog(executed=executed, terms=core_terms())
        figures += check_output_catalog(executed=executed, terms=core_terms())
        return report(
            check(complete=args.complete, pot_dir=None if args.no_extract else args.pot.resolve()) + figures,
            complete=args.complete,
        )
    elif args.cmd == "figures":
        print(f"{update_figures(prune=args.prune)} figure texts to translate: {FIGURE_PO.relative_to(ROOT)}")
    elif args.cmd == "outputs":
        print(f"{update_outputs(prune=args.prune)} output texts to translate: {OUTPUT_PO.relative_to(ROOT)}")
    elif args.cmd == "build-zh":
        build_zh()
    return 0


if __name__ == "__main__":
    sys.exit(main())
