"""Headless-safe plotting helpers: they return artists and never call ``plt.show()``."""

from __future__ import annotations

import re

import numpy as np

from ._validate import as_array

__all__ = ["draw_frame", "new_3d_axes", "animation_html"]

AXIS_COLORS = ("tab:red", "tab:green", "tab:blue")  # x, y, z: the usual RGB convention


def new_3d_axes(*, figsize=(4.5, 4.0), limits=1.0, ax=None):
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


def draw_frame(ax, T, *, length=0.5, label=None, alpha=1.0, lw=2.0):
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
    T = as_array(T, "T")
    if T.shape == (3, 3):
        R, p = T, np.zeros(3)
    elif T.shape == (4, 4):
        R, p = T[:3, :3], T[:3, 3]
    else:
        raise ValueError(f"T must have shape (4, 4) or (3, 3), got {T.shape}")
    artists = []
    for k in range(3):
        end = p + length * R[:, k]
        (line,) = ax.plot(*np.stack([p, end], axis=1), color=AXIS_COLORS[k], lw=lw, alpha=alpha)
        artists.append(line)
    if label:
        artists.append(ax.text(*(p - 0.1 * length), label, fontsize=9, alpha=alpha))
    return artists


_CDN_LINK = re.compile(r"<link[^>]+font-awesome[^>]*>\s*")


def animation_html(anim):
    """Render a ``FuncAnimation`` as a self-contained jshtml player.

    ``Animation.to_jshtml()`` links Font Awesome 4 from a public CDN for the player's
    buttons; that request fails on offline or filtered networks. The book theme and
    JupyterLab already ship the icon font, so the link is dropped.

    Returns
    -------
    IPython.display.HTML

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from matplotlib.animation import FuncAnimation
    >>> fig, ax = plt.subplots(figsize=(1, 1), dpi=20)
    >>> anim = FuncAnimation(fig, lambda k: [], frames=2)
    >>> html = animation_html(anim).data
    >>> "animation" in html, "bootstrapcdn" in html
    (True, False)
    >>> plt.close(fig)
    """
    from IPython.display import HTML

    return HTML(_CDN_LINK.sub("", anim.to_jshtml()))
