"""Run ``jupyter-book`` with Sphinx's parallel reading: jupyter-book 1.x passes ``jobs`` to Sphinx but has no option.

Usage: ``python tools/jb_build.py build . -W -n --keep-going`` (the jupyter-book command line). ``ROBOKIN_BOOK_JOBS``
sets the number of processes, each of which reads, and so executes, its share of the notebooks. The default is one
(serial, as plain jupyter-book): with two, one clean-clone build ran chapter 1 for 317 s instead of 14 s, a stall
not yet explained, and Sphinx's split of the pages into two chunks left them unbalanced (525 s against 302 s of
execution).
"""

import functools
import os
import sys

import jupyter_book.sphinx as jb_sphinx
from jupyter_book.cli.main import main

jobs = int(os.environ.get("ROBOKIN_BOOK_JOBS") or 1)
jb_sphinx.build_sphinx = functools.partial(jb_sphinx.build_sphinx, jobs=jobs)

if __name__ == "__main__":
    sys.exit(main())
