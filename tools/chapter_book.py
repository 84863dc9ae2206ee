"""Write the table of contents and configuration for a strict one-chapter build (``make chapter``).

The chapter is built with the conventions, glossary and references pages only, so links to *other* chapters cannot
resolve there (they do in the full book, whose strict build checks them). Only that warning class is silenced, and
only in this author build.

Usage: ``python tools/chapter_book.py notebooks/NN_name.ipynb OUTDIR`` writes ``OUTDIR/_toc.yml`` and
``OUTDIR/_config.yml``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml


def main(nb: str, out: str) -> None:
    nb_path, out_dir = Path(nb), Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    toc = {
        "format": "jb-book",
        "root": "book/intro",
        "chapters": [
            {"file": "book/conventions"},
            {"file": str(nb_path.with_suffix(""))},
            {"file": "book/glossary"},
            {"file": "book/references"},
        ],
    }
    (out_dir / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False), encoding="utf-8")
    config = yaml.safe_load(Path("_config.yml").read_text(encoding="utf-8"))
    # jupyter-book resolves these paths against the config file's folder: make them absolute
    root = Path.cwd()
    config["bibtex_bibfiles"] = [str(root / f) for f in config.get("bibtex_bibfiles", [])]
    if "favicon" in config.get("html", {}):
        config["html"]["favicon"] = str(root / config["html"]["favicon"])
    exts = config.get("sphinx", {}).get("local_extensions") or {}
    config["sphinx"]["local_extensions"] = {name: str(root / path) for name, path in exts.items()}
    sphinx_config = config.setdefault("sphinx", {}).setdefault("config", {})
    if "html_static_path" in sphinx_config:
        sphinx_config["html_static_path"] = [str(root / p) for p in sphinx_config["html_static_path"]]
    sphinx_config["suppress_warnings"] = [*sphinx_config.get("suppress_warnings", []), "myst.xref_missing"]
    (out_dir / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:3])
