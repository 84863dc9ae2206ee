"""Headless-safe plotting helpers: they return artists and never call ``plt.show()``."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validate import as_array, callback_array, flag, positive, text, tolerance

__all__ = ["draw_frame", "draw_arm", "tidy3d", "new_3d_axes", "animation_html", "save_animation", "ANIMATION_DPI"]

#: Pixels per figure inch of animation frames: every frame is embedded in the page, so they are lighter than
#: still figures (robokin.nb.FIGURE_DPI). The player is never shown wider than its pixels.
ANIMATION_DPI = 80
#: Narrowest a figure inch may be shown (phones): 10 pt labels stay about 7 px tall. tests/sitecheck.py checks 50.
MIN_PX_PER_INCH = 56

AXIS_COLORS = ("tab:red", "tab:green", "tab:blue")  # x, y, z: the usual RGB convention


def _axes3d(ax, name="ax"):
    """``ax`` if it is matplotlib 3-D axes, else a ValueError naming it (not an AttributeError from inside)."""
    from mpl_toolkits.mplot3d import Axes3D

    if not isinstance(ax, Axes3D):
        raise ValueError(f"{name} must be matplotlib 3-D axes (new_3d_axes()), got {type(ax).__name__} {ax!r:.60}")
    return ax


def _style(*, alpha, lw, label):
    """Validated line style: alpha in [0, 1], a positive line width (pt), a str label or None."""
    return dict(
        alpha=tolerance(alpha, "alpha", max=1.0, allow_zero=True),
        lw=positive(lw, "lw", max_abs=1e3),
        label=None if label is None else text(label, "label"),
    )


def _color(color):
    """A matplotlib colour (a name such as 'C0' or an RGB(A) tuple), else a ValueError naming ``color``."""
    from matplotlib.colors import is_color_like

    try:
        ok = isinstance(color, (str, tuple)) and is_color_like(color)
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"color must be a matplotlib colour such as 'C0' or 'tab:red', got {color!r:.60}")
    return color


def new_3d_axes(
    *, figsize: tuple[float, float] = (4.5, 4.0), limits: float = 1.0, ax: Any | None = None
) -> tuple[Any, Any]:
    """Create (or reuse) equal-aspect 3-D axes with limits ``[-limits, limits]``.

    Returns
    -------
    fig, ax
    """
    import matplotlib.pyplot as plt

    if ax is None:
        fig = plt.figure(figsize=figsize)
        ax = fig.add_subplot(projection="3d")
    else:
        fig = ax.figure
    lim = np.broadcast_to(np.asarray(limits, dtype=float), (3,))
    ax.set_xlim(-lim[0], lim[0])
    ax.set_ylim(-lim[1], lim[1])
    ax.set_zlim(-lim[2], lim[2])
    ax.set_box_aspect((1, 1, 1))
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_zlabel("z")
    return fig, ax


def draw_frame(
    ax: Any, T: ArrayLike, *, length: float = 0.5, label: str | None = None, alpha: float = 1.0, lw: float = 2.0
) -> list[Any]:
    """Draw a coordinate frame (x red, y green, z blue) on 3-D axes.

    Parameters
    ----------
    ax : mpl_toolkits.mplot3d.Axes3D
    T : array_like, shape (4, 4) or (3, 3)
        Pose of the frame in the axes' frame (a rotation is drawn at the origin).
    length : float
        Axis length in the plot's units.

    Returns
    -------
    list of matplotlib artists (three lines, plus the label text if given)

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> fig, ax = new_3d_axes()
    >>> len(draw_frame(ax, np.eye(4), label="{0}"))
    4
    """
    _axes3d(ax)
    st = _style(alpha=alpha, lw=lw, label=label)
    T = as_array(T, "T")
    if T.shape == (3, 3):
        R, p = T, np.zeros(3)
    elif T.shape == (4, 4):
        R, p = T[:3, :3], T[:3, 3]
    else:
        raise ValueError(f"T must have shape (4, 4) or (3, 3), got {T.shape}")
    length = positive(length, "length")
    artists = []
    for k in range(3):
        end = p + length * R[:, k]
        (line,) = ax.plot(*np.stack([p, end], axis=1), color=AXIS_COLORS[k], lw=st["lw"], alpha=st["alpha"])
        artists.append(line)
    if st["label"]:
        artists.append(ax.text(*(p - 0.1 * length), st["label"], fontsize=9, alpha=st["alpha"]))
    return artists


def draw_arm(
    ax: Any,
    arm: Any,
    q: ArrayLike,
    *,
    frames: bool = False,
    frame_length: float = 0.06,
    color: str = "C0",
    alpha: float = 1.0,
    lw: float = 2.0,
    ms: float = 3.0,
    label: str | None = None,
) -> np.ndarray:
    """Draw a serial arm at one configuration on 3-D axes: its link origins joined by lines, optionally each frame.

    Parameters
    ----------
    ax : mpl_toolkits.mplot3d.Axes3D
    arm : object with ``fk_all(q) -> (n + 1, 4, 4)``
        For example a :class:`robokin.serial.SerialArm` or :data:`robokin.robots.UR5` (base frame first).
    q : array_like, shape (n,)
        One configuration (rad).
    frames : bool
        Also draw every link frame's axes (x red, y green, z blue, :func:`draw_frame`), ``frame_length`` long.
    color, alpha, lw, ms, label
        Line colour, opacity, width, marker size and legend label of the links.

    Returns
    -------
    ndarray, shape (n + 1, 3)
        The link origins drawn, base frame first (plot units, metres for the robokin arms).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from robokin.serial import SerialArm
    >>> arm = SerialArm.from_dh([0.5, 0.4], [0, 0], [0, 0], convention="standard")
    >>> fig, ax = new_3d_axes()
    >>> draw_arm(ax, arm, [0.0, np.pi / 2], frames=True)
    array([[0. , 0. , 0. ],
           [0.5, 0. , 0. ],
           [0.5, 0.4, 0. ]])
    >>> len(ax.lines)  # the links, then three axes per frame
    10
    """
    _axes3d(ax)
    frame_length = positive(frame_length, "frame_length")  # checked even when frames=False: a typo should not hide
    frames = flag(frames, "frames")
    st = dict(_style(alpha=alpha, lw=lw, label=label), ms=positive(ms, "ms", max_abs=1e3), color=_color(color))
    fk_all = getattr(arm, "fk_all", None)
    if isinstance(arm, type) or not callable(fk_all):
        raise ValueError(f"arm must be an arm with fk_all(q) (a robokin SerialArm), got {type(arm).__name__}")
    F = callback_array(fk_all(q), "arm.fk_all(q)")
    if F.ndim < 3 or F.shape[-2:] != (4, 4):
        raise ValueError(f"arm.fk_all(q) must return frames of shape (n + 1, 4, 4), got shape {F.shape}")
    if F.ndim != 3:
        raise ValueError(f"draw_arm draws one configuration: q must have shape (n,), got frames of shape {F.shape}")
    P = F[:, :3, 3]
    ax.plot(P[:, 0], P[:, 1], P[:, 2], "-o", **st)
    if frames:
        for T in F:
            draw_frame(ax, T, length=frame_length, lw=1.0, alpha=st["alpha"])
    return P


def tidy3d(ax: Any, *, lim: float = 0.9, zlim: tuple[float, float] = (-0.4, 1.0), ticksize: float | None = None) -> Any:
    """Equal-scale 3-D axes for an arm of about ``lim`` metres reach: limits, labels in metres, box aspect.

    Parameters
    ----------
    ax : mpl_toolkits.mplot3d.Axes3D
    lim : float
        x and y run over ``[-lim, lim]`` (m).
    zlim : (float, float)
        z range (m), lower < upper.
    ticksize : float, optional
        Tick label size in points (small figures).

    Returns
    -------
    ax

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> fig, ax = new_3d_axes()
    >>> [float(v) for v in tidy3d(ax, lim=0.5, zlim=(-0.2, 0.8)).get_zlim()]
    [-0.2, 0.8]
    """
    _axes3d(ax)
    ticksize = None if ticksize is None else positive(ticksize, "ticksize", max_abs=1e3)
    lim = positive(lim, "lim")
    z = as_array(zlim, "zlim")
    if z.shape != (2,) or not z[0] < z[1]:
        raise ValueError(f"zlim must be (lower, upper) with lower < upper, got {zlim!r}")
    ax.set(xlim=(-lim, lim), ylim=(-lim, lim), zlim=tuple(float(v) for v in z))
    ax.set(xlabel="x (m)", ylabel="y (m)", zlabel="z (m)")
    ax.set_box_aspect((2 * lim, 2 * lim, float(z[1] - z[0])))
    if ticksize is not None:
        ax.tick_params(labelsize=ticksize)
    return ax


_CDN_LINK = re.compile(r"<link[^>]+font-awesome[^>]*>\s*")
_FRAME = re.compile(r'(frames\[\d+\] = "data:image/png;base64,)([^"]+)(")')
#: Colours per animation frame: line drawings on white look the same with 64 colours, at about a third of the bytes.
FRAME_COLORS = 64


def _palette_frame(m):
    """Re-encode one embedded PNG frame with an adaptive palette (no dithering, so lines stay crisp)."""
    import base64
    import io

    from PIL import Image

    with Image.open(io.BytesIO(base64.b64decode(m.group(2).replace("\\n", "")))) as im:
        small = im.convert("RGB").quantize(
            colors=FRAME_COLORS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
        )
    buf = io.BytesIO()
    small.save(buf, "PNG", optimize=True)
    return m.group(1) + base64.b64encode(buf.getvalue()).decode("ascii") + m.group(3)


def animation_html(anim: Any, *, alt: str | None = None, dpi: float = ANIMATION_DPI) -> Any:
    """Render a ``FuncAnimation`` as a self-contained, light jshtml player.

    ``Animation.to_jshtml()`` links Font Awesome 4 from a public CDN for the player's
    buttons; that request fails on offline or filtered networks. The book theme and
    JupyterLab already ship the icon font, so the link is dropped. Frames are rendered at
    ``dpi`` pixels per inch (the player embeds every frame), and the frame image is sized
    so that it is never stretched beyond its pixels nor shrunk below readable labels
    (its box scrolls instead on a narrow phone).

    Parameters
    ----------
    anim : matplotlib.animation.Animation
    alt : str, optional
        What the animation shows, for a reader who cannot see it (the frame image's ``alt``, kept on every frame:
        the player swaps only the image's ``src``). Write a description, not a file name; required by the site check.
    dpi : float
        Pixels per figure inch of the frames.

    Returns
    -------
    IPython.display.HTML

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from matplotlib.animation import FuncAnimation
    >>> fig, ax = plt.subplots(figsize=(2, 1))
    >>> anim = FuncAnimation(fig, lambda k: [], frames=2)
    >>> html = animation_html(anim, alt="A blank axis, two frames.", dpi=20).data
    >>> "animation" in html, "bootstrapcdn" in html, 'data-dpi="20"' in html, 'alt="A blank axis, two frames."' in html
    (True, False, True, True)
    >>> plt.close(fig)
    """
    import html as _html

    import matplotlib as mpl
    from IPython.display import HTML

    if alt is not None:
        if not isinstance(alt, str) or not alt.strip():
            raise ValueError(f"alt must be a non-empty description of the animation, got {alt!r}")
        if re.fullmatch(r"\S+\.(png|gif|mp4|svg|jpe?g)", alt.strip(), re.I):
            raise ValueError(f"alt must describe the animation, not name a file: {alt!r}")
    with mpl.rc_context({"savefig.dpi": dpi}):
        html = _CDN_LINK.sub("", anim.to_jshtml())
    html = _FRAME.sub(_palette_frame, html)
    fig = getattr(anim, "_fig", None)
    if fig is not None:
        px = round(fig.get_size_inches()[0] * dpi)
        least = min(px, round(fig.get_size_inches()[0] * MIN_PX_PER_INCH))
        html = html.replace(
            "<img id=", f'<img style="width: max(min(100%, {px}px), {least}px); height: auto" data-dpi="{dpi:g}" id=', 1
        )
    if alt is not None:
        html = html.replace("<img ", f'<img alt="{_html.escape(alt.strip(), quote=True)}" ', 1)
    return HTML(html)


#: File formats :func:`save_animation` writes, by suffix.
ANIMATION_FORMATS = (".gif", ".mp4")
#: The highest frame rate :func:`save_animation` writes to a GIF (delays of 2 hundredths of a second).
GIF_MAX_FPS = 50.0
#: Slowest frame rate and smallest resolution :func:`save_animation` writes.
MIN_FPS = 0.1
MIN_DPI = 10.0


def save_animation(anim: Any, path: Any, *, fps: float | None = None, dpi: float = ANIMATION_DPI) -> Any:
    """Write a chapter's animation to a GIF or MP4 file, to keep or to put in slides.

    A GIF is written with matplotlib's ``PillowWriter``; an MP4 (H.264, ``yuv420p`` so that every player reads it)
    with the ffmpeg binary bundled in the ``imageio-ffmpeg`` wheel, so no system ffmpeg is needed.

    Parameters
    ----------
    anim : matplotlib.animation.Animation
        The animation a chapter shows (``FuncAnimation``); every one of its frames is written.
    path : str or os.PathLike
        Output file; its suffix (``.gif`` or ``.mp4``, any case) chooses the format. Its folder must exist; a
        leading ``~`` is the home folder.
    fps : float, optional
        Frames per second of the file (at least 0.1, at most 240; a GIF at most 50, since GIF frame delays are whole
        hundredths of a second and players slow shorter ones down: use MP4 for more). Default: the animation's own
        rate, ``1000 / interval`` (its ``interval`` in ms between frames), as matplotlib's ``Animation.save``
        does, so the file plays at the speed the page shows; a GIF of a faster animation is written at 50 fps with
        a warning that it plays slower. A GIF merges identical consecutive frames into one longer frame (Pillow), so
        it can hold fewer frames than the animation while playing the same.
    dpi : float
        Pixels per figure inch of the frames (at least 10, at most 2400).

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    ValueError
        When ``anim`` is not a matplotlib animation, the suffix of ``path`` is not ``.gif`` or ``.mp4``, its folder
        does not exist, ``path`` is a folder, or ``fps`` or ``dpi`` is not positive (or ``fps`` is above 50 for a
        GIF).

    Examples
    --------
    >>> import matplotlib, tempfile, pathlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from matplotlib.animation import FuncAnimation
    >>> fig, ax = plt.subplots(figsize=(1, 1))
    >>> anim = FuncAnimation(fig, lambda k: [], frames=3)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     out = save_animation(anim, pathlib.Path(tmp) / "demo.gif", fps=10, dpi=20)
    ...     out.name, out.stat().st_size > 0
    ('demo.gif', True)
    >>> save_animation(anim, "demo.avi")
    Traceback (most recent call last):
    ...
    ValueError: path must end in .gif or .mp4, got 'demo.avi'
    >>> plt.close(fig)
    """
    import os
    from pathlib import Path

    from matplotlib.animation import Animation, FFMpegWriter, PillowWriter

    if not isinstance(anim, Animation):
        raise ValueError(f"anim must be a matplotlib animation (FuncAnimation), got {type(anim).__name__} {anim!r:.60}")
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"path must be a file name (str or os.PathLike), got {type(path).__name__} {path!r:.60}")
    out = Path(path).expanduser()
    suffix = out.suffix.lower()
    if suffix not in ANIMATION_FORMATS:
        raise ValueError(f"path must end in {' or '.join(ANIMATION_FORMATS)}, got {str(path)!r}")
    own = fps is None
    if own:
        interval = getattr(anim, "_interval", None)  # ms between frames, as FuncAnimation(interval=) set it
        fps = 1000.0 / interval if isinstance(interval, (int, float)) and interval > 0 else 5.0  # matplotlib's 200 ms
        fps = min(fps, 240.0)
    fps = positive(fps, "fps", max_abs=240.0)
    dpi = positive(dpi, "dpi", max_abs=2400.0)
    if fps < MIN_FPS:  # a frame longer than 10 s overflows the writers' frame duration
        raise ValueError(f"fps must be at least {MIN_FPS:g} frames per second, got {fps!r}")
    if dpi < MIN_DPI:  # below this the frame has no pixels
        raise ValueError(f"dpi must be at least {MIN_DPI:g}, got {dpi!r}")
    if own and suffix == ".gif" and fps > GIF_MAX_FPS:
        import warnings

        warnings.warn(
            f"save_animation: the animation's own rate, {fps:.3g} fps, is above the {GIF_MAX_FPS:g} a GIF can play; "
            f"the GIF plays at {GIF_MAX_FPS:g} fps ({fps / GIF_MAX_FPS:.2g}x slower than the page): write an .mp4 "
            "to keep the page's speed",
            stacklevel=2,
        )
        fps = GIF_MAX_FPS
    if suffix == ".gif" and fps > GIF_MAX_FPS:
        raise ValueError(
            f"fps must be at most {GIF_MAX_FPS:g} for a GIF (its frame delays are whole hundredths of a second, and "
            f"players slow shorter ones down), got {fps:g}: write an .mp4 for a higher rate"
        )
    if not out.parent.is_dir():
        raise ValueError(f"path: the folder {str(out.parent)!r} does not exist")
    if out.is_dir():
        raise ValueError(f"path: {str(out)!r} is a folder, not a file name")
    if suffix == ".gif":
        # PillowWriter writes int(1000 / fps) ms and Pillow floors that to hundredths (16.7 fps: 59 ms -> 50 ms, 1.2x
        # too fast): ask for the nearest whole hundredth, plus half a millisecond against the two floors
        delay = 10 * max(round(100.0 / fps), 2)
        anim.save(str(out), writer=PillowWriter(fps=1000.0 / (delay + 0.5)), dpi=dpi)
        return out
    import imageio_ffmpeg
    import matplotlib as mpl

    # H.264 in yuv420p needs an even frame size: pad an odd one by a pixel
    pad = ["-pix_fmt", "yuv420p", "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2"]
    with mpl.rc_context({"animation.ffmpeg_path": imageio_ffmpeg.get_ffmpeg_exe()}):
        anim.save(str(out), writer=FFMpegWriter(fps=fps, codec="libx264", extra_args=pad), dpi=dpi)
    return out
