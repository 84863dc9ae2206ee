"""Sphinx extension for the two editions of the robokin book: English at ``_build/html/``, Chinese at
``_build/html/zh/`` (built by ``tools/i18n.py build-zh`` from the English build's executed notebooks).

* language switch: every page gets a link, in the article header, to the same page in the other edition. The
  link is relative and computed from the page name, so it holds on any host and in a local copy.
* one execution: the Chinese edition does not execute the notebooks again. The English build records how each
  notebook ran (``_build/jupyter_execute/exec_data.json``); the Chinese build shows those records in its
  execution table ("Execution status" page), so both editions describe the same run.
* interface text: the few English strings that myst-nb and ``robokin_site`` put on pages, and that gettext does
  not see, are translated in the Chinese edition (``UI_ZH``).
* search: the Chinese index is built by Sphinx's jieba splitter with a set for the Latin words it has seen
  (``SearchChineseSet``): Sphinx 7 keeps them in a list that grows with every page and is searched for every
  stemmed word, which made indexing the Chinese edition quadratic (most of its build time).
* punctuation after maths: in the Chinese edition a closing mark right after inline maths (，。、；：！？）”’ and the closing brackets) is
  kept on the maths' line (``MathPunctuationZh``): a browser may break between the formula and the mark, and a
  line of Chinese must not start with one.
* solution titles: sphinx-exercise writes "Solution to" + the exercise's link ("解答 练习 3.1" in Chinese); the
  Chinese edition puts the exercise first, as Chinese does: "练习 3.1 解答" (``SolutionTitleZh``).
"""

from __future__ import annotations

import json
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.search import languages as search_languages
from sphinx.search.zh import SearchChinese
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform

#: Edition of each Sphinx language: the folder it lives in under ``_build/html`` and the label of a link to it.
EDITIONS = {"en": ("", "English"), "zh_CN": ("zh", "中文")}
TEMPLATES = Path(__file__).resolve().parent / "templates"
STATIC = Path(__file__).resolve().parent / "static"
EXEC_DATA = "exec_data.json"

#: English interface strings set outside the gettext catalogues, and their Chinese (tests/test_i18n.py checks that
#: each key still occurs in the source that writes it, so that a changed string cannot go untranslated silently).
#: Prompts of the set-up cell (robokin_site) and the header of myst-nb's execution table.
UI_ZH = {
    # robokin_site: the hidden set-up cell
    "Show this chapter's set-up code (imports, seed, plot defaults)": "显示本章的准备代码（导入、随机种子、绘图设置）",
    "Hide the set-up code": "隐藏准备代码",
    # robokin_site: the static figure of a "Try it live" cell (its image's alt text)
    "the cell's figure at its defaults": "该单元格在默认参数下的图",
    # myst-nb: the execution table ("nb-exec-table")
    "Document": "文档",
    "Modified": "修改时间",
    "Method": "执行方式",
    "Run Time (s)": "运行时间（秒）",
    "Status": "状态",
}


def other_edition(language):
    """(language, folder, label) of the edition a page of ``language`` links to."""
    if language not in EDITIONS:
        raise ValueError(f"robokin_i18n: language {language!r} has no edition; known: {sorted(EDITIONS)}")
    (other,) = [lang for lang in EDITIONS if lang != language]
    return other, *EDITIONS[other]


def switch_href(pagename, language):
    """Relative URL of the same page in the other edition.

    >>> switch_href("notebooks/03_five_bar_leg", "en")
    '../zh/notebooks/03_five_bar_leg.html'
    >>> switch_href("notebooks/03_five_bar_leg", "zh_CN")
    '../../notebooks/03_five_bar_leg.html'
    >>> switch_href("genindex", "en")
    'zh/genindex.html'
    """
    here = EDITIONS[language][0]
    other = other_edition(language)[1]
    # up to the site root: the page's own folders, then the edition's folder
    up = pagename.count("/") + (1 if here else 0)
    return "../" * up + (other + "/" if other else "") + pagename + ".html"


class SearchChineseSet(SearchChinese):
    """Sphinx's Chinese search language with the Latin words in a set (the same index, in linear time).

    Sphinx 7.4's ``SearchChinese`` appends every Latin word of every page to a class-level list and tests
    membership in it for each word it stems; the Chinese edition spent minutes there. A set gives the same
    answers (``tests/test_i18n.py`` compares the two indexes on a sample).
    """

    def init(self, options):
        super().init(options)
        self.latin_terms = set()

    def split(self, input):  # noqa: A002 (Sphinx's signature)
        import jieba

        latin = [term.strip() for term in self.latin1_letters.findall(input)]
        self.latin_terms.update(latin)
        return list(jieba.cut_for_search(input)) + latin


def _config_inited(app, config):
    config.templates_path = [*config.templates_path, str(TEMPLATES)]
    config.html_static_path = [*config.html_static_path, str(STATIC)]
    opts = config.html_theme_options
    # before the theme's own buttons, so that it stays visible when the buttons collapse on a phone
    end = opts.get("article_header_end", ["article-header-buttons.html"])
    end = [s.strip() for s in end.split(",")] if isinstance(end, str) else list(end)
    if "robokin-lang-switch.html" not in end:
        opts["article_header_end"] = ["robokin-lang-switch.html", *end]


def _page_context(app, pagename, templatename, context, doctree):
    lang, _, label = other_edition(app.config.language)
    context["robokin_lang_switch"] = {
        "href": switch_href(pagename, app.config.language),
        "hreflang": lang.replace("_", "-"),
        "label": label,
    }


def _exec_data_file(app):
    return Path(app.outdir).parent / "jupyter_execute" / EXEC_DATA


def _save_exec_data(app, env):
    """English build: how each notebook ran, for the Chinese edition's execution table."""
    if app.config.language != "en" or app.builder.format != "html":
        return
    meta = getattr(env, "nb_metadata", {})
    data = {doc: m["exec_data"] for doc, m in sorted(meta.items()) if m.get("exec_data")}
    if data:
        path = _exec_data_file(app)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")


def _load_exec_data(app, env):
    """Chinese build: the English run's records (set by tools/i18n.py as ``robokin_exec_data``)."""
    source = app.config.robokin_exec_data
    if app.config.language == "en" or not source:
        return
    from myst_nb.sphinx_ import NbMetadataCollector

    for doc, data in json.loads(Path(source).read_text(encoding="utf-8")).items():
        if doc in env.found_docs:
            NbMetadataCollector.set_exec_data(env, doc, data)


def _live_note_zh(para):
    """The static-view note of a widget cell (robokin_site), in Chinese, with its file name and links."""
    path = next(iter(para.findall(nodes.literal)), None)
    links = list(para.findall(nodes.reference))
    new = nodes.paragraph()
    new += nodes.strong(text="静态视图。")
    new += nodes.Text(
        "此单元的控件需要运行中的 Python 内核，因此本页显示的是它在默认参数下绘制的结果。要操作控件，请在本机的 "
        "JupyterLab 中打开 "
    )
    new += path.deepcopy() if path is not None else nodes.Text("本章的 notebook")
    new += nodes.Text("（")
    new += nodes.literal(text="make lab")
    new += nodes.Text("）")
    for link in links:
        new += nodes.Text("，或在 ")
        new += link.deepcopy()
        new += nodes.Text(" 上打开")
    new += nodes.Text("。")
    para.replace_self(new)


def _translate_prompts(app, doctree):
    # after robokin_site set them (doctree-read, 400) and before myst-nb copies them into the page (post-transform)
    if app.config.language == "en":
        return
    for node in doctree.findall(nodes.container):
        for key in ("prompt_show", "prompt_hide"):
            if node.get(key) in UI_ZH:
                node[key] = UI_ZH[node[key]]


def _translate_ui(app, doctree, docname):
    if app.config.language == "en":
        return
    for node in doctree.findall(nodes.container):
        if "robokin-live" in node["classes"] and isinstance(node.children[0], nodes.paragraph):
            _live_note_zh(node.children[0])
    for image in doctree.findall(nodes.image):
        if image.get("alt") in UI_ZH:
            image["alt"] = UI_ZH[image["alt"]]
    for head in doctree.findall(nodes.thead):
        for text in list(head.findall(nodes.Text)):
            if str(text) in UI_ZH:
                text.parent.replace(text, nodes.Text(UI_ZH[str(text)]))


class TranslateTocCaptions(SphinxTransform):
    """Part captions of the table of contents ("Getting started", ...) in the page's language.

    sphinx-external-toc inserts the toctrees (priority 100) after Sphinx translated the page (``Locale``, 20), so
    their captions, extracted into the root page's catalogue, would stay English; this applies that catalogue.
    """

    default_priority = 150

    def apply(self, **kwargs):
        if self.config.language == "en":
            return
        from sphinx.locale import init as init_locale
        from sphinx.util.i18n import docname_to_domain

        dirs = [str(Path(self.env.srcdir) / d) for d in self.config.locale_dirs]
        catalog, found = init_locale(dirs, self.config.language, docname_to_domain(self.env.docname, False))
        if not found:
            return
        for toctree in self.document.findall(addnodes.toctree):
            if toctree.get("caption"):
                toctree["caption"] = catalog.gettext(toctree["caption"])


def solution_title_zh(title):
    """Reorder a resolved solution title ``[Text("解答"), reference(" 练习 3.1", ...)]`` to "练习 3.1 解答", in place.

    Returns True when the title had that form (a title without a link to its exercise is left alone).
    """
    kids = list(title.children)
    if len(kids) != 2 or not isinstance(kids[0], nodes.Text) or not isinstance(kids[1], nodes.reference):
        return False
    word, ref = str(kids[0]).strip(), kids[1]
    if not word:
        return False
    first = ref.children[0] if ref.children else None
    if isinstance(first, nodes.Text):
        ref.replace(first, nodes.Text(str(first).lstrip()))
    title.remove(kids[0])
    title += nodes.Text(" " + word)
    return True


class SolutionTitleZh(SphinxPostTransform):
    """Chinese word order of solution titles: after sphinx-exercise resolved them (post-transforms 21 and 22)."""

    default_priority = 30

    def run(self, **kwargs):
        if self.config.language == "en":
            return
        from sphinx_exercise.nodes import solution_node

        for node in self.document.findall(solution_node):
            if node.children and isinstance(node.children[0], nodes.title) and solution_title_zh(node.children[0]):
                node["title"] = node.children[0].astext()


#: Chinese marks that may not open a line (the closing half of the line-breaking rules of Chinese text layout).
CLOSING_ZH = "，。、；：！？）》」』】〉”’"


def keep_marks_with_maths(tree):
    """Put each inline maths node and the Chinese closing marks right after it into one
    ``inline(classes=["robokin-nobr"])``; returns how many were wrapped (run once per document)."""
    n = 0
    for m in list(tree.findall(nodes.math)):
        parent = m.parent
        if parent is None or (isinstance(parent, nodes.inline) and "robokin-nobr" in parent["classes"]):
            continue  # already wrapped
        i = parent.index(m)
        nxt = parent[i + 1] if i + 1 < len(parent) else None
        text = nxt.astext() if isinstance(nxt, nodes.Text) else ""
        if not text or text[0] not in CLOSING_ZH:
            continue
        k = len(text) - len(text.lstrip(CLOSING_ZH))
        box = nodes.inline(classes=["robokin-nobr"])
        del parent[i + 1]  # by position: docutils Text nodes compare as strings, remove() takes the first equal one
        parent.replace(m, box)
        box += m
        box += nodes.Text(text[:k])
        if text[k:]:
            parent.insert(i + 1, nodes.Text(text[k:]))
        n += 1
    return n


class MathPunctuationZh(SphinxPostTransform):
    """Keep a Chinese closing mark on the line of the inline maths before it (Chinese edition only).

    The maths and the marks that follow it go into ``<span class="robokin-nobr">`` (``white-space: nowrap`` in
    robokin-i18n.css; a formula wider than its line keeps its own scroll box and may still wrap after it).
    """

    default_priority = 40

    def run(self, **kwargs):
        if self.config.language != "en":
            keep_marks_with_maths(self.document)


def setup(app):
    app.add_transform(TranslateTocCaptions)
    app.add_post_transform(SolutionTitleZh)
    app.add_post_transform(MathPunctuationZh)
    app.add_css_file("robokin-i18n.css")
    app.add_config_value("robokin_exec_data", "", "env")
    app.connect("config-inited", _config_inited)
    search_languages["zh"] = SearchChineseSet
    app.connect("html-page-context", _page_context)
    app.connect("env-updated", _save_exec_data)
    app.connect("env-updated", _load_exec_data, priority=400)  # before myst-nb lists the pages with a table
    app.connect("doctree-read", _translate_prompts, priority=450)
    app.connect("doctree-resolved", _translate_ui)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
