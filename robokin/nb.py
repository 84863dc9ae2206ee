"""Notebook set-up shared by every chapter (the hidden first cell calls it).

Keeps each chapter's first cell to two lines and makes every chapter behave
the same: seeded randomness, readable printing (1e-17 shows as 0), small
figures, jshtml animations, and the ``ROBOKIN_FAST`` switch used by the tests.

Numbers in the prose: a code cell calls :func:`glue` and the Markdown below it quotes the value with
``{eval}`glued("key:.2e")```. The book evaluates that role while it executes the chapter (myst-nb's inline
mode); JupyterLab with jupyterlab-myst evaluates it when Run All reaches the Markdown cell. One source, the same
text in both. Lab needs its notebook windowing off for that (``make lab`` sets it, ``lab/settings/overrides.json``):
jupyterlab-myst finds a cell's ``{eval}`` roles in the cell's last rendering, and a windowed notebook has not rendered
the cells that were out of view, so Run All would leave them showing ``glued("...")``.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

__all__ = ["setup", "fast_mode", "fine_mode", "refine", "chapter_seed", "glue", "glued", "FIGURE_DPI"]

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


def fine_mode() -> bool:
    """True when ``ROBOKIN_FINE=1``: the native-rate test re-runs the chapter with finer output steps.

    An extremum, a threshold, a "never" or "at every instant" or a first-time-of claim about a simulated signal must
    not depend on how densely the run was logged: ``tests/test_seeds.py`` runs each chapter listed in
    ``tests/truth/native.toml`` with and without ``ROBOKIN_FINE=1`` and requires the listed glued values to print the
    same. A chapter chooses its output steps with :func:`refine`.

    Examples
    --------
    >>> import os
    >>> os.environ.pop("ROBOKIN_FINE", None) and None
    >>> fine_mode()
    False
    """
    return os.environ.get("ROBOKIN_FINE") == "1"


def refine(default: Any, fine: Any) -> Any:
    """``fine`` under ``ROBOKIN_FINE=1`` (:func:`fine_mode`), else ``default``: an output count or step of a chapter.

    Examples
    --------
    >>> import os
    >>> os.environ.pop("ROBOKIN_FINE", None) and None
    >>> refine(151, 3001)
    151
    >>> os.environ["ROBOKIN_FINE"] = "1"; refine(151, 3001)
    3001
    >>> del os.environ["ROBOKIN_FINE"]
    """
    return fine if fine_mode() else default


def chapter_seed(default: int) -> int:
    """The chapter's seed: ``ROBOKIN_SEED`` when it is set (``make seeds`` runs every chapter under other seeds), else
    ``default``.

    Every claim of a chapter must hold for any seed, so the seed is an input of the run, not part of the text.

    Raises
    ------
    ValueError
        When ``ROBOKIN_SEED`` is set but is not a non-negative integer.

    Examples
    --------
    >>> import os
    >>> os.environ.pop("ROBOKIN_SEED", None) and None
    >>> chapter_seed(7)
    7
    >>> os.environ["ROBOKIN_SEED"] = "41"; chapter_seed(7)
    41
    >>> os.environ["ROBOKIN_SEED"] = "x"; chapter_seed(7)
    Traceback (most recent call last):
    ...
    ValueError: ROBOKIN_SEED must be a non-negative integer, got 'x'
    >>> del os.environ["ROBOKIN_SEED"]
    """
    text = os.environ.get("ROBOKIN_SEED", "").strip()
    if not text:
        return int(default)
    if not text.isdigit():
        raise ValueError(f"ROBOKIN_SEED must be a non-negative integer, got {text!r}")
    return int(text)


def _fmt(x):
    return f"{0.0:.4g}" if abs(x) < 1e-10 else f"{x:.4g}"


def setup(seed: int = 0) -> tuple[np.random.Generator, bool]:
    """Seed, print options and matplotlib defaults for a chapter.

    Parameters
    ----------
    seed : int
        The chapter's default seed; ``ROBOKIN_SEED`` in the environment overrides it (:func:`chapter_seed`). Every
        random number in a chapter comes from the returned generator.

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
            # figures are SVG with their text kept as text: the Chinese edition translates it (tools/i18n.py)
            "svg.fonttype": "none",
            "svg.hashsalt": "robokin",  # the same ids in every run (no random clip-path names)
        }
    )
    _svg_figures()
    _log_cell_times(os.environ.get("ROBOKIN_CELL_LOG"))
    return np.random.default_rng(chapter_seed(seed)), fast_mode()


def _log_cell_times(path: str | None) -> None:
    """With ``ROBOKIN_CELL_LOG=<file>``, append one line per executed cell to it: kernel pid, end time (Unix s),
    duration (s) and the cell's first line, tab-separated (``make book`` lists the slowest; a build's stall names
    its cell). Nothing is logged, and nothing is written into the notebook, without the variable."""
    if not path:
        return
    try:
        import IPython

        ip = IPython.get_ipython()
    except ImportError:
        return
    if ip is None or getattr(ip, "_robokin_cell_log", None) == path:
        return  # not in a kernel, or already logging (setup ran again)
    import time

    start = {}

    def pre(info):
        start["t"] = time.perf_counter()

    def post(result):
        t0 = start.pop("t", None)
        if t0 is None:
            return
        cell = (result.info.raw_cell or "").strip().splitlines()
        first = cell[0][:100].replace("\t", " ") if cell else ""
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()}\t{time.time():.0f}\t{time.perf_counter() - t0:.2f}\t{first}\n")

    ip.events.register("pre_run_cell", pre)
    ip.events.register("post_run_cell", post)
    ip._robokin_cell_log = path


#: Prefix of the id robokin gives each text of a figure: ``rk-<n>-<ha>-<fontsize>``. An SVG keeps a text in maths as
#: one positioned glyph per character, and a rotated or multi-line one at the start of each English line: the Chinese
#: edition (tools/i18n.py) needs the text's alignment and size to set its translation at the same place.
TEXT_ID = "rk-"


def svg_figure(fig) -> str:
    """``fig`` as the SVG a chapter shows: text kept as text, no date, each text's id naming its alignment and size.

    Examples
    --------
    >>> import matplotlib, re
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.set_xlabel(r"angle $\\theta$ (rad)")
    >>> with matplotlib.rc_context({"svg.fonttype": "none"}):
    ...     svg = svg_figure(fig)
    >>> bool(re.search(r'<g id="rk-\\d+-center-10">\\n\\s*<!-- angle', svg)), "<dc:date>" in svg
    (True, False)
    >>> plt.close(fig)
    """
    from IPython.core.pylabtools import print_figure
    from matplotlib.text import Text

    fig.draw_without_rendering()  # creates the tick labels, which are texts too (categories, rotated labels)
    texts = [t for t in fig.findobj(Text) if t.get_gid() is None and t.get_text()]
    for i, t in enumerate(texts):
        t.set_gid(f"{TEXT_ID}{i}-{t.get_horizontalalignment()}-{t.get_fontsize():g}")
    dense = [a for a in fig.findobj(_dense) if not a.get_rasterized()]
    for a in dense:
        a.set_rasterized(True)
    try:  # as the inline backend prints it (bbox_inches="tight"), without the file's date
        return print_figure(fig, "svg", bbox_inches="tight", metadata={"Date": None})
    finally:
        for t in texts:
            t.set_gid(None)
        for a in dense:
            a.set_rasterized(False)


#: A collection of more shapes than this (a scatter, a mesh) is drawn as pixels inside the SVG, at FIGURE_DPI: as
#: vector paths a 300 x 300 workspace map was 19 MB. Axes, lines and texts stay vectors (texts stay translatable).
DENSE_SHAPES = 1000


def _dense(artist) -> bool:
    """True for a mesh, a collection of more than :data:`DENSE_SHAPES` shapes, a line with more markers than that
    (one ``<use>`` each: 93 000 error samples of chapter 14 were 52 MB) or with 20 times more points.

    Examples
    --------
    >>> from matplotlib.lines import Line2D
    >>> _dense(Line2D(range(5000), range(5000))), _dense(Line2D(range(5000), range(5000), marker="."))
    (False, True)
    """
    from matplotlib.collections import Collection, QuadMesh
    from matplotlib.lines import Line2D

    if isinstance(artist, QuadMesh):
        return True
    if isinstance(artist, Line2D):
        n = len(artist.get_xdata(orig=False))
        return n > 20 * DENSE_SHAPES or (
            artist.get_marker() not in (None, "None", "none", "", " ") and n > DENSE_SHAPES
        )
    if not isinstance(artist, Collection):
        return False
    return max(len(artist.get_offsets()), len(artist.get_paths())) > DENSE_SHAPES


def _svg_figures() -> None:
    """Show every figure of the running kernel as :func:`svg_figure` (and not as PNG)."""
    try:
        import IPython
    except ImportError:  # pragma: no cover - notebooks always have IPython
        return
    ip = IPython.get_ipython()
    if ip is None:
        return
    import matplotlib as mpl
    from matplotlib.figure import Figure

    if "inline" in str(mpl.rcParams._get_backend_or_none() or ""):
        # pyplot loads its backend at the first figure, and the inline backend then selects its formats (PNG): load
        # it now, so that it has selected them before the formatter below replaces them
        import matplotlib_inline.backend_inline  # noqa: F401
    for mime, formatter in ip.display_formatter.formatters.items():
        if mime != "image/svg+xml":
            formatter.pop(Figure, None)
    ip.display_formatter.formatters["image/svg+xml"].for_type(Figure, svg_figure)


_GLUED: dict[str, Any] = {}


def _dump_glue(name: str, value: Any) -> None:
    """Append ``name`` and ``value`` as one JSON line to ``$ROBOKIN_GLUE_DUMP`` when it is set.

    The truth tests run a chapter twice (another seed, a finer step) and compare what it glued.
    """
    path = os.environ.get("ROBOKIN_GLUE_DUMP")
    if not path:
        return
    import json

    try:
        json.dumps(value)
    except TypeError:
        value = repr(value)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"name": name, "value": value}) + "\n")


_CELL_GLUES: dict[str, Any] = {"count": None, "names": set()}


def _check_once_per_cell(name):
    """A key glued twice in one cell (a glue inside a loop) is a duplicate glue key to myst-nb: the strict book build
    fails on its warning, while the notebook itself runs. Refuse it here, where the chapter's test sees it."""
    try:
        import IPython

        ip = IPython.get_ipython()
    except ImportError:  # pragma: no cover - notebooks always have IPython
        ip = None
    count = getattr(ip, "execution_count", None)
    if count is None:
        return
    if _CELL_GLUES["count"] != count:
        _CELL_GLUES["count"], _CELL_GLUES["names"] = count, set()
    if name in _CELL_GLUES["names"]:
        raise ValueError(f"{name!r} is glued twice in one cell: glue each key once (myst-nb rejects duplicate keys)")
    _CELL_GLUES["names"].add(name)


def glue(name: str, value: Any, display: bool = True) -> None:
    """Keep ``value`` under ``name`` for ``{eval}`glued("name:fmt")``` in the Markdown below, and glue it with myst-nb.

    The myst-nb glue data stays (the Chinese edition and ``{glue:figure}`` read it); :func:`glued` formats the kept
    value. A numpy scalar (or 0-d array) is glued as the Python number it holds: the Chinese edition formats the
    glued ``text/plain``, and numpy 2 writes ``np.float64(0.68)`` there, which no format spec can read.

    Examples
    --------
    >>> glue("demo_err", 1.25e-12, display=False)
    >>> glued("demo_err:.1e")
    '1.2e-12'
    >>> glue("demo_np", np.float64(0.5), display=False)
    >>> type(_GLUED["demo_np"]).__name__, glued("demo_np:.2f")
    ('float', '0.50')
    """
    _check_once_per_cell(name)
    if isinstance(value, np.generic) or (isinstance(value, np.ndarray) and value.ndim == 0):
        value = value.item()
    _GLUED[name] = value
    _dump_glue(name, value)
    _myst_glue(name, value, display=display)


#: myst-nb's glue wire format (``myst_nb.ext.glue.GLUE_PREFIX``): a hidden value's MIME types carry this prefix.
_GLUE_PREFIX = "application/papermill.record/"


def _myst_glue(name, value, *, display):
    """The display output ``myst_nb.glue`` writes, written here.

    Importing myst_nb costs a chapter's kernel over a second (nbformat imports jsonschema, which builds the parsers
    of rfc3987-syntax); the output is the same bundle and ``scrapbook`` metadata, byte for byte
    (``tests/test_nb_glue.py`` compares the two).
    """
    from IPython.core.formatters import format_display_data
    from IPython.display import display as ipy_display

    bundle, metadata = format_display_data(value)
    prefix = "" if display else _GLUE_PREFIX
    metadata["scrapbook"] = dict(name=name, mime_prefix=prefix)
    ipy_display({prefix + k: v for k, v in bundle.items()}, raw=True, metadata=metadata)


def glued(spec: str) -> str:
    """The value glued as ``name``, formatted by ``format(value, fmt)``: ``spec`` is ``"name"`` or ``"name:fmt"``.

    Raises
    ------
    KeyError
        When nothing was glued under ``name`` yet (the text quotes a number before the cell that computes it).

    Examples
    --------
    >>> glue("demo_n", 500, display=False)
    >>> glued("demo_n"), glued("demo_n:,d")
    ('500', '500')
    >>> glued("demo_missing")
    Traceback (most recent call last):
    ...
    KeyError: "'demo_missing' is not glued yet: glue it in a code cell above the text that quotes it"
    """
    name, _, fmt = spec.partition(":")
    if name not in _GLUED:
        raise KeyError(f"{name!r} is not glued yet: glue it in a code cell above the text that quotes it")
    text = format(_GLUED[name], fmt)
    try:
        import IPython
    except ImportError:  # pragma: no cover - notebooks always have IPython
        return text
    ip = IPython.get_ipython()
    if ip is not None and ip.displayhook.quiet():
        # myst-nb evaluates {eval} without storing history, so IPython applies the ";" that ended the previous code
        # cell to this expression and would show nothing: show the text explicitly
        IPython.display.display(text)
    return text
