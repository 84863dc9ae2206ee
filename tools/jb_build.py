"""Run ``jupyter-book`` with Sphinx's parallel reading: jupyter-book 1.x passes ``jobs`` to Sphinx but has no option.

Usage: ``python tools/jb_build.py build . -W -n --keep-going`` (the jupyter-book command line). ``ROBOKIN_BOOK_JOBS``
sets the number of processes (default: the CPU count); each reads, and so executes, its share of the notebooks.
"""

import functools
import os
import sys

import jupyter_book.sphinx as jb_sphinx
from jupyter_book.cli.main import main

jobs = int(os.environ.get("ROBOKIN_BOOK_JOBS") or os.cpu_count() or 1)
jb_sphinx.build_sphinx = functools.partial(jb_sphinx.build_sphinx, jobs=jobs)

if __name__ == "__main__":
    sys.exit(main())
