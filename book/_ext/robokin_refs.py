"""Sphinx extension for the robokin book: numbers and cross-references as a textbook reader expects them.

Each fix is checked in a browser by ``tests/test_site.py`` (``make check-site``, codes in ``tests/sitecheck.py``):

* numbering per chapter: Sphinx numbers figures, tables, equations and exercises through the whole book when the
  table of contents is not section-numbered ("(84)" in chapter 12). Every numbered object of chapter ``NN`` becomes
  ``NN.k`` ("Fig. 12.3", "(12.3)", "Exercise 12.3"); another page numbers its own from 1. (``numbering``)
* raw label names: a caption or a table that names a label in plain text ("over the map of fig-ch3-map") gets a
  link with the number instead ("over the map of Fig. 3.4"). (``raw-label``)
* double parentheses: prose that puts an equation reference in parentheses, ``({eq}`eq-x`)``, showed "((36))" since
  the reference brings its own; the outer pair is dropped. (``double-paren``)
* docstrings on the API pages are reStructuredText: MyST roles written in them (``{cite}`key```), equation labels
  written as literals (````eq-ch05-std````) become real cross-references, and a paragraph that follows a numpy
  ``Parameters`` list is moved out of the list instead of being read as a parameter. (``raw-myst``)
* the claims audit (``book/claims.md``) names glued values by their keys and equations by their labels: the keys are
  replaced by the numbers the chapters glued (formatted as the chapter formats them), the labels by linked numbers,
  and the "checked by" column links to the chapter section it names. (``raw-glue``)
* the index of definitions and algorithms (``prf-prf.html``): sphinx-proof lists each by its label, grouped under
  that label ("alg-ch06-ik"); it lists them by type, number and title ("Algorithm 6.1 (UR5 analytic IK, all
  branches)", with the chapter's title), numbered as on the chapter's page. (``raw-label``)
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[2]
_CHAPTER = re.compile(r"notebooks/(\d+)_")
#: a label of the chapters' naming scheme (``fig-ch3-map``, ``eq-ch04-handover``, ``tab-ch08-x``)
LABEL = re.compile(r"\b((?:fig|eq|tab)-ch\d+(?:[-_][A-Za-z0-9]+)*)\b")
_SKIP = (
    nodes.literal,
    nodes.literal_block,
    nodes.raw,
    nodes.reference,
    nodes.math,
    nodes.math_block,
    nodes.FixedTextElement,
    nodes.comment,
)


def chapter_of(docname):
    """Chapter number of a notebook page, or None.

    >>> chapter_of("notebooks/12_control_under_model_error"), chapter_of("book/claims")
    (12, None)
    """
    m = _CHAPTER.match(docname)
    return int(m.group(1)) if m else None


# ---------------------------------------------------------------- numbering per chapter


def renumber(numbers, chapter):
    """Numbers of one page, per kind, in their order: ``(chapter, k)`` for a chapter, else ``(k,)``.

    >>> renumber({"figure": {"a": (7,), "b": (9,)}, "displaymath": {"e": (84,)}}, 12)
    {'figure': {'a': (12, 1), 'b': (12, 2)}, 'displaymath': {'e': (12, 1)}}
    >>> renumber({"figure": {"a": (7,)}}, None)
    {'figure': {'a': (1,)}}
    """
    out = {}
    for figtype, ids in numbers.items():
        order = sorted(ids.items(), key=lambda kv: kv[1])
        prefix = (chapter,) if chapter is not None else ()
        out[figtype] = {key: (*prefix, k) for k, (key, _) in enumerate(order, start=1)}
    return out


def _number_per_chapter(app, env):
    for docname in list(env.toc_fignumbers):
        env.toc_fignumbers[docname] = renumber(env.toc_fignumbers[docname], chapter_of(docname))
    return []


# ---------------------------------------------------------------- labels in plain text, "((36))"


def _label_target(app, env, label):
    """(docname, anchor, text) of a figure, table or equation label, or None."""
    math = env.get_domain("math")
    if label in getattr(math, "equations", {}):
        docname, _ = math.equations[label]
        anchor = nodes.make_id(f"equation-{label}")
        number = env.toc_fignumbers.get(docname, {}).get("displaymath", {}).get(anchor)
        return (docname, anchor, "(" + ".".join(map(str, number)) + ")") if number else None
    std = env.get_domain("std")
    hit = std.labels.get(label) or std.anonlabels.get(label)
    if not hit:
        return None
    docname, anchor = hit[0], hit[1]
    for figtype, fmt in (("figure", "figure"), ("table", "table"), ("code-block", "code-block")):
        number = env.toc_fignumbers.get(docname, {}).get(figtype, {}).get(anchor)
        if number:
            return docname, anchor, app.config.numfig_format.get(fmt, "%s") % ".".join(map(str, number))
    return None


def _skipped(node):
    while node is not None:
        if isinstance(node, _SKIP):
            return True
        node = node.parent
    return False


def _link(app, fromdoc, docname, anchor, text, classes=()):
    uri = app.builder.get_relative_uri(fromdoc, docname) if docname != fromdoc else ""
    ref = nodes.reference("", "", internal=True, refuri=f"{uri}#{anchor}", classes=list(classes))
    ref += nodes.Text(text)
    return ref


def _link_labels(app, doctree, fromdoc):
    env = app.env
    for text in list(doctree.findall(nodes.Text)):
        if _skipped(text.parent) or not LABEL.search(text):
            continue
        parts, pos, s = [], 0, str(text)
        for m in LABEL.finditer(s):
            target = _label_target(app, env, m.group(1))
            if target is None:
                continue
            docname, anchor, shown = target
            if shown.startswith("(") and s[: m.start()].endswith("(") and s[m.end() :].startswith(")"):
                shown = shown[1:-1]  # "(eq-x)" in the text already has its parentheses
            parts += [nodes.Text(s[pos : m.start()]), _link(app, fromdoc, docname, anchor, shown)]
            pos = m.end()
        if parts:
            parts.append(nodes.Text(s[pos:]))
            parent = text.parent
            i = parent.index(text)
            parent.remove(text)
            for k, node in enumerate(p for p in parts if not isinstance(p, nodes.Text) or str(p)):
                parent.insert(i + k, node)


_EQ_NUMBER = re.compile(r"^\(\d+(?:\.\d+)*\)$")


def _single_parens(doctree):
    """``(`` + a reference reading "(3.4)" + ``)``: drop the outer pair."""
    for ref in list(doctree.findall(nodes.reference)):
        if not _EQ_NUMBER.match(ref.astext()):
            continue
        node = ref
        # the role's own wrapper (an inline) may sit between the text and the reference
        while node.parent is not None and len(node.parent.children) == 1 and isinstance(node.parent, nodes.inline):
            node = node.parent
        parent = node.parent
        if parent is None:
            continue
        i = parent.index(node)
        before = parent[i - 1] if i > 0 else None
        after = parent[i + 1] if i + 1 < len(parent) else None
        if (
            isinstance(before, nodes.Text)
            and isinstance(after, nodes.Text)
            and str(before).endswith("(")
            and str(after).startswith(")")
        ):
            parent.replace(before, nodes.Text(str(before)[:-1]))
            parent.replace(after, nodes.Text(str(after)[1:]))


# ---------------------------------------------------------------- the claims audit

#: a glue key; a key made from a mode's name may hold hyphens (``ch3_lost_in-out``)
_GLUE_KEY = re.compile(r"\b(ch\d+_[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*)\b")
_GLUED_FMT = re.compile(r'glued\("([^":]+)(?::([^"]*))?"\)')


def glue_formats(notebooks=ROOT / "notebooks"):
    """Format spec each glued key is shown with in the chapters' Markdown (the first use)."""
    fmts = {}
    for nb in sorted(Path(notebooks).glob("*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] == "markdown":
                for key, fmt in _GLUED_FMT.findall("".join(cell["source"])):
                    fmts.setdefault(key, fmt)
    return fmts


def glue_values(folders):
    """Glued values of the executed chapters (myst-nb's ``<chapter>.glue.json`` files), by key."""
    values = {}
    for folder in folders:
        for f in sorted(Path(folder).glob("notebooks/*.glue.json")):
            for key, out in json.loads(f.read_text(encoding="utf-8")).items():
                text = out.get("data", {}).get("text/plain")
                if text is None or key in values:
                    continue
                try:
                    values[key] = ast.literal_eval(text)
                except (ValueError, SyntaxError):
                    values[key] = text.strip("'\"")
    return values


def shown_value(value, fmt):
    """A glued value as the chapter shows it.

    >>> shown_value(0.123456, ".2f"), shown_value(3, ""), shown_value(1.5e-13, ".1e")
    ('0.12', '3', '1.5e-13')
    """
    try:
        return format(value, fmt)
    except (TypeError, ValueError):
        return str(value)


def _section_anchor(env, docname, words):
    """Anchor of the first section of ``docname`` whose title starts with ``words`` (case-insensitive)."""
    toc = env.tocs.get(docname)
    if toc is None or not words:
        return None
    want = words.lower()
    for ref in toc.findall(nodes.reference):
        title = ref.astext().strip().lower()
        if title.startswith(want) or (len(want) > 3 and want in title.split(":")[0]):
            return ref.get("anchorname", "").lstrip("#") or None
    return None


_CELL = re.compile(r"^\s*(?:Same cell|(.+?)\s+cells?)\b")
_TEST_FILE = re.compile(r"^tests/[\w/]+\.py$")


def _claims(app, doctree, fromdoc):
    env = app.env
    out = Path(app.outdir)
    folders = [out.parent / "jupyter_execute", ROOT / "_build" / "jupyter_execute"]
    values, fmts = glue_values(folders), glue_formats()
    chapters = {chapter_of(d): d for d in env.found_docs if chapter_of(d) is not None}
    repo = (app.config.html_theme_options.get("repository_url") or "").rstrip("/")
    branch = app.config.html_theme_options.get("repository_branch") or "main"
    for section in doctree.findall(nodes.section):
        title = section[0].astext() if section.children else ""
        m = re.search(r"(\d+)", title)
        docname = chapters.get(int(m.group(1))) if m and title.strip() else None
        for table in section.findall(nodes.table):
            if table.parent is not section and not isinstance(table.parent, nodes.container):
                continue
            last = None
            for row in table.findall(nodes.row):
                entries = [e for e in row.children if isinstance(e, nodes.entry)]
                for entry in entries:
                    _glue_in(entry, values, fmts)
                if docname and len(entries) >= 2 and not isinstance(row.parent, nodes.thead):
                    last = _link_checked_by(app, env, fromdoc, docname, entries[-1], last, repo, branch)


def _glued_text(key, values, fmts):
    """The value of the longest glue key that ``key`` starts with (``ch3_x-y``, else ``ch3_x`` and ``-y``).

    >>> _glued_text("ch3_a-b", {"ch3_a": 2.0}, {"ch3_a": ".1f"}), _glued_text("ch3_q", {}, {})
    ('2.0-b', 'ch3_q')
    """
    parts = key.split("-")
    for k in range(len(parts), 0, -1):
        head = "-".join(parts[:k])
        if head in values:
            rest = key[len(head) :]
            return shown_value(values[head], fmts.get(head, "")) + rest
    return key


def _glue_in(entry, values, fmts):
    for lit in list(entry.findall(nodes.literal)):  # a key written as code, `ch3_seg_n`, is the number too
        key = lit.astext()
        if key in values and _GLUE_KEY.fullmatch(key):
            lit.replace_self(nodes.Text(shown_value(values[key], fmts.get(key, ""))))
    for text in list(entry.findall(nodes.Text)):
        if _skipped(text.parent):
            continue
        s = str(text)
        new = _GLUE_KEY.sub(lambda m: _glued_text(m.group(1), values, fmts), s)
        if new != s:
            text.parent.replace(text, nodes.Text(new))


def _link_checked_by(app, env, fromdoc, docname, entry, last, repo, branch):
    """Link the "checked by" cell: its cell to the chapter section it names, its test files to the repository."""
    for lit in list(entry.findall(nodes.literal)):
        path = lit.astext()
        if _TEST_FILE.match(path) and repo.startswith("https://"):
            ref = nodes.reference("", "", refuri=f"{repo}/blob/{branch}/{path}", classes=["robokin-test-link"])
            lit.replace_self(ref)
            ref += lit
    para = entry[0] if entry.children and isinstance(entry[0], nodes.paragraph) else None
    if para is None or not para.children or not isinstance(para[0], nodes.Text):
        return last
    head = str(para[0])
    m = _CELL.match(head)
    if not m:
        return last
    anchor = last if m.group(1) is None else _section_anchor(env, docname, m.group(1).split(":")[0].strip())
    target = anchor or ""
    cut = m.end()
    ref = _link(app, fromdoc, docname, target, head[:cut], classes=["robokin-checked-by"])
    if not target:
        ref["refuri"] = ref["refuri"].rstrip("#")
    para.replace(para[0], ref)
    para.insert(1, nodes.Text(head[cut:]))
    return anchor


def _resolved(app, doctree, docname):
    if app.builder.format != "html":
        return
    _single_parens(doctree)
    _link_labels(app, doctree, docname)
    if docname == "book/claims":
        _claims(app, doctree, docname)


# ---------------------------------------------------------------- the index of definitions and algorithms


def proof_title(title):
    """A definition's title without the parentheses sphinx-proof puts round it (full-width ones in Chinese).

    >>> proof_title(" (Five-bar leg in robokin)"), proof_title("（robokin 中的五连杆腿）"), proof_title("Plain")
    ('Five-bar leg in robokin', 'robokin 中的五连杆腿', 'Plain')
    """
    return re.sub(r"^[(（](.*)[)）]$", r"\1", title.strip()).strip()


def _proof_titles(app, doctree):
    """Record the title of each labelled definition/algorithm (as the page shows it, translated) for the index."""
    proofs = getattr(app.env, "proof_list", None)
    if not proofs:
        return
    for node in doctree.findall(nodes.Element):
        label = node.get("label") if "proof" in node.get("classes", ()) else None
        if label in proofs and node.children and isinstance(node.children[0], nodes.title):
            title = node.children[0].astext().strip()
            proofs[label]["title"] = proof_title(title)


def proof_index_content(env, translate=str):
    """Entries of the definitions-and-algorithms index: grouped by type, each named by its type and number.

    ``env.proof_list`` maps label -> {docname, realtype, countertype, nonumber, title}; the numbers come from
    ``env.toc_fignumbers`` (per chapter, as the pages show them). Returns ``[(group, [IndexEntry, ...]), ...]``.
    """
    from sphinx.domains import IndexEntry

    groups = {}
    for label, v in env.proof_list.items():
        number = () if v.get("nonumber") else env.toc_fignumbers.get(v["docname"], {}).get(v["countertype"], {})
        number = number.get(label, ()) if isinstance(number, dict) else ()
        kind = translate(v["realtype"].title())
        name = f"{kind} {'.'.join(map(str, number))}".strip()
        page = env.titles.get(v["docname"])
        entry = IndexEntry(name, 0, v["docname"], label, v.get("title", ""), "", page.astext() if page else "")
        groups.setdefault(kind, []).append((number or (float("inf"),), name, entry))
    return [(kind, [e for *_, e in sorted(items)]) for kind, items in sorted(groups.items())], False


def _proof_domain():
    """sphinx-proof's domain with the index of :func:`proof_index_content` (registered over the original)."""
    from sphinx_proof.domain import ProofDomain, ProofIndex, translate

    class ProofIndexByTitle(ProofIndex):
        def generate(self, docnames=None):
            if not hasattr(self.domain.env, "proof_list"):
                return [], False
            return proof_index_content(self.domain.env, translate)

    class ProofDomainByTitle(ProofDomain):
        indices = [ProofIndexByTitle]

        def merge_domaindata(self, docnames, otherdata):
            # the domain keeps no per-document data (sphinx-proof merges env.proof_list itself, on env-merge-info);
            # Sphinx's default raises, which stops a parallel read
            pass

    return ProofDomainByTitle


def _register_proof_index(app, config):
    if "prf" in app.registry.domains:
        app.add_domain(_proof_domain(), override=True)


def _proof_index_names(app, exception):
    """The index shows each name as code (the template of Python's module index): here it is prose."""
    if exception is not None or app.builder.format != "html":
        return
    page = Path(app.outdir) / "prf-prf.html"
    if page.exists():
        text = page.read_text(encoding="utf-8")
        new = re.sub(r'<code class="xref">(.*?)</code>', r'<span class="robokin-prf-name">\1</span>', text)
        if app.config.language.startswith("zh"):  # the title in full-width parentheses, as Chinese writes them
            new = re.sub(r"<em>\((.*?)\)</em>", r"<em>（\1）</em>", new)
        if new != text:
            page.write_text(new, encoding="utf-8")


# ---------------------------------------------------------------- docstrings

# the cross-reference roles only: ``{eval}`...``` in a docstring is quoted MyST, shown as code
_MYST_ROLE = re.compile(r"\{(cite(?::[pt])?|prf:ref|eq|numref|ref|doc)\}`([^`]+)`")
_LITERAL_LABEL = re.compile(r"``((?:eq|fig|tab|alg)-ch\d+(?:[-_][A-Za-z0-9]+)*)``")
_SECTION = re.compile(r"^(Parameters|Returns|Yields|Raises|Attributes|Other Parameters)\s*$")
_PARAM = re.compile(r"^\*{0,2}[A-Za-z_][\w]*(?:\s*,\s*\*{0,2}[A-Za-z_][\w]*)*\s*(?::.*)?$")


def myst_to_rst(line):
    """MyST roles and literal labels of a docstring line as reStructuredText roles.

    >>> myst_to_rst("IK of {cite}`hawkins2013` (chapter 6, {prf:ref}`alg-ch06-ik`), eq. ``eq-ch02-fk``")
    'IK of :cite:`hawkins2013` (chapter 6, :prf:ref:`alg-ch06-ik`), eq. eq-ch02-fk'
    """
    line = _MYST_ROLE.sub(lambda m: f":{m.group(1)}:`{m.group(2)}`", line)
    # a label written as a literal becomes text, which the doctree-resolved pass links where the label exists (a
    # role would fail the strict build for a label that a chapter dropped; the site check reports the raw text)
    return _LITERAL_LABEL.sub(lambda m: m.group(1), line)


def end_stray_paragraphs(lines):
    """A paragraph after a numpy ``Parameters`` list (not indented, not ``name : type``) starts a Notes section.

    numpydoc reads every unindented line of the section as a parameter, so the paragraph became a bold bullet.

    >>> end_stray_paragraphs(["Parameters", "----------", "m : float", "    Mass.", "",
    ...                       "Any parameter may be an array.", "", "Examples", "--------"])[5:8]
    ['Notes', '-----', 'Any parameter may be an array.']
    """
    out, section = [], None
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if _SECTION.match(line) and re.match(r"^-{3,}\s*$", nxt):
            section = line.strip()
        elif re.match(r"^-{3,}\s*$", nxt) and line.strip():
            section = None
        elif (
            section in ("Parameters", "Other Parameters")
            and line.strip()
            and not line.startswith((" ", "\t"))
            and i > 0
            and not lines[i - 1].strip()
            and not _PARAM.match(line.strip())
        ):
            out += ["Notes", "-----"]
            section = None
        out.append(line)
    return out


def _process_docstring(app, what, name, obj, options, lines):
    fixed = end_stray_paragraphs([myst_to_rst(line) for line in lines])
    lines[:] = fixed


class ApiModules(SphinxDirective):
    """A list of API pages (``book/api/<name>.md``) with the first line of each module's docstring.

    The nodes carry no source, so they are not messages to translate: the API is English in both editions.
    """

    required_arguments = 1
    final_argument_whitespace = True

    def run(self):
        import importlib

        items = nodes.bullet_list(classes=["robokin-api-modules"])
        for name in self.arguments[0].split():
            module = importlib.import_module(f"robokin.{name.replace('__', '.')}")
            doc = (module.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
            ref = addnodes.pending_xref(
                "", refdomain="std", reftype="doc", reftarget=f"/book/api/{name}", refexplicit=True, refwarn=True
            )
            ref += nodes.literal(text=module.__name__)
            para = nodes.paragraph()
            para += ref
            if doc:
                para += nodes.Text(": " + _plain(doc))
            items += nodes.list_item("", para)
        return [items]


def _plain(text):
    """A docstring's first paragraph as plain text (reST literals and roles unwrapped)."""
    text = re.sub(r":[a-z:]+:`([^`<]*?)(?:\s*<[^>]*>)?`", r"\1", text)
    return re.sub(r"``([^`]*)``|\{[a-z:]+\}`([^`]*)`", lambda m: m.group(1) or m.group(2), text)


def setup(app):
    app.add_directive("robokin-api-modules", ApiModules)
    # after Sphinx's toctree collector (priority 500) has numbered everything book-wide; robokin_site's exercise
    # hook (900) then sees the same per-chapter order
    app.connect("env-get-updated", _number_per_chapter, priority=800)
    app.connect("doctree-resolved", _resolved)
    # the extensions are all loaded: sphinx-proof's domain is registered, the environment not yet made
    app.connect("config-inited", _register_proof_index)
    app.connect("doctree-read", _proof_titles)
    app.connect("build-finished", _proof_index_names)
    # before napoleon (priority 500) turns the numpy sections into reST fields
    app.connect("autodoc-process-docstring", _process_docstring, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
