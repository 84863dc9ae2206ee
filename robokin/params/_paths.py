"""Where the shipped data folders are: the source tree, or ``<prefix>/share/robokin`` of an installed wheel.

``pip install .`` installs ``examples/``, ``reports/`` and ``firmware/`` as data files (pyproject's
``[tool.setuptools.data-files]``) under ``share/robokin`` of the environment, keeping their relative layout, so the
report notebooks' ``../examples/robots/...`` defaults resolve there too.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parents[2]


def _prefixes():
    out = [sysconfig.get_path("data"), sys.prefix]
    try:
        out.append(sysconfig.get_path("data", f"{os.name}_user"))
    except KeyError:  # no user scheme on this platform
        pass
    return list(dict.fromkeys(out))


def data_dir(*parts: str) -> Path:
    """The folder ``parts`` (e.g. ``"examples", "robots"``) of the checkout, else of the installed data files.

    Returns the checkout's path when neither exists, so that an error names where the folder was expected.

    Examples
    --------
    >>> data_dir("reports").name
    'reports'
    """
    src = SOURCE_ROOT.joinpath(*parts)
    if src.is_dir():
        return src
    for base in _prefixes():
        p = Path(base, "share", "robokin", *parts)
        if p.is_dir():
            return p
    return src
