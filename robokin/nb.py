"""Notebook set-up shared by every chapter (the hidden first cell calls it).

Keeps each chapter's first cell to two lines and makes every chapter behave
the same: seeded randomness, readable printing (1e-17 shows as 0), small
figures, jshtml animations, and the ``ROBOKIN_FAST`` switch used by the tests.
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["setup", "fast_mode", "FIGURE_DPI"]

#: Pixels per figure inch of every figure (inline PNGs and saved files). The book shows a figure inch as 96 CSS
#: pixels, so figures are never stretched (blurred) on a normal screen; book/_ext and tests/sitecheck.py use it.
FIGURE_DPI = 150


def fast_mode() -> bool:
    """True when ``ROBOKIN_FAST=1`` (set by ``make test``): shrink Monte Carlo sizes and frames.

    Examples
    --------
    >>> isinstance(fast_mode(), bool)
    True
    """
    return os.environ.get("ROBOKIN_FAST") == "1"


def _fmt(x):
    return f"{0.0:.4g}" if abs(x) < 1e-10 else f"{x:.4g}"


def setup(seed: int = 0) -> tuple[np.random.Generator, bool]:
    """Seed, print options and matplotlib defaults for a chapter.

    Parameters
    ----------
    seed : int
        Seed of the returned generator; every random number in a chapter comes from it.

    Returns
    -------
    rng : numpy.random.Generator
    fast : bool
        ``ROBOKIN_FAST=1``: the test run, which may use smaller sizes.

    Examples
    --------
    >>> with np.printoptions():  # restore print options after the example
    ...     rng, fast = setup(seed=1)
    >>> float(rng.uniform()) == float(np.random.default_rng(1).uniform())
    True
    """
    import matplotlib as mpl

    np.set_printoptions(precision=4, linewidth=110, suppress=False, formatter={"float": _fmt})
    mpl.rcParams.update(
        {
            "figure.figsize": (6.4, 3.6),
            "figure.dpi": FIGURE_DPI,  # the inline backend renders at figure.dpi
            "savefig.dpi": FIGURE_DPI,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "animation.html": "jshtml",
            "animation.embed_limit": 20.0,  # MB; our animations stay well below
        }
    )
    return np.random.default_rng(seed), fast_mode()
