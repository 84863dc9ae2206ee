"""Sphinx extension for the robokin book: keep the rendered pages free of console errors.

sphinx-thebe (pulled in by Jupyter Book 1.x) registers its inline configuration script twice,
so the browser reports ``Identifier 'THEBE_JS_URL' has already been declared``. We drop exact
duplicate script entries from every page.
"""


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


def setup(app):
    # html-page-context is emitted with emit_firstresult: a theme handler that returns a value stops the
    # chain, so run early.
    app.connect("html-page-context", _dedupe_scripts, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
