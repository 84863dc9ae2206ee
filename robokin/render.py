"""Offscreen pictures and short videos of MuJoCo models, with MuJoCo's own renderer (chapter 13).

Rendering needs an OpenGL context without a screen: EGL (Mesa's headless driver) first, OSMesa second, both from
Debian's packages (``libegl1``, ``libgl1-mesa-dri``; ``libosmesa6``). The context is made here, independently of the
``MUJOCO_GL`` variable and of when ``mujoco`` was imported, so a notebook that imported MuJoCo first still
renders. Videos are H.264 MP4 encoded with the ffmpeg binary that the ``imageio-ffmpeg`` wheel ships, and are shown
with :func:`video_html`: a poster frame, and a video that plays only when started (``preload="none"``; its bytes are
embedded in the page, so it works offline).

Pictures are for looking, never for measuring: every number a chapter states comes from the simulation's
native-rate record, not from decimated video frames.
"""

from __future__ import annotations

import base64
import importlib
import io
import os
import tempfile
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._validate import as_array, finite_scalar, integer, positive
from .sim import require_mujoco

__all__ = ["RenderError", "render_frames", "encode_mp4", "encode_png", "video_html", "image_html"]

#: Largest frame side and frame count accepted (an MP4 of the course stays within the page budget).
MAX_SIDE = 1920
MAX_FRAMES = 2000


class RenderError(RuntimeError):
    """No offscreen OpenGL context could be made (no EGL or OSMesa driver), or the encoder failed."""


def _gl_context(width: int, height: int) -> Any:
    # EGL first (fast, headless Mesa), OSMesa second; each backend module of mujoco makes its own context
    errors = []
    for backend in ("egl", "osmesa"):
        try:
            module = importlib.import_module(f"mujoco.{backend}")
            ctx = module.GLContext(width, height)
            ctx.make_current()
            return ctx
        except Exception as exc:  # noqa: BLE001 - every failure is reported below, by backend
            errors.append(f"{backend}: {type(exc).__name__}: {exc}")
    raise RenderError(
        "no offscreen OpenGL context: install Debian's libegl1 and libgl1-mesa-dri (EGL) or libosmesa6 "
        "(`make test` installs them as root); tried " + "; ".join(errors)
    )


def _solid_geoms(model: Any) -> np.ndarray:
    """Geoms with a finite bounding sphere (planes and height fields have ``geom_rbound`` 0 or span the floor)."""
    mujoco = require_mujoco()
    planes = (mujoco.mjtGeom.mjGEOM_PLANE, mujoco.mjtGeom.mjGEOM_HFIELD)
    return np.flatnonzero((model.geom_rbound > 0) & ~np.isin(model.geom_type, planes))


def _extent(model: Any, data: Any) -> tuple[np.ndarray, float]:
    """Centre and radius (m) of a sphere holding every solid geom's bounding sphere, world frame.

    Geoms, not body origins: a wheel's rim lies a tyre radius beyond its body's origin, and a body-origin framing
    cut the wheels off the picture.
    """
    g = _solid_geoms(model)
    if g.size == 0:
        return (data.xpos[1:].mean(axis=0) if model.nbody > 1 else np.zeros(3)), 0.5
    p, r = data.geom_xpos[g], model.geom_rbound[g]
    centre = ((p - r[:, None]).min(axis=0) + (p + r[:, None]).max(axis=0)) / 2  # centre of the bounding box
    return centre, float((np.linalg.norm(p - centre, axis=1) + r).max())


def render_frames(
    model: Any,
    qpos: Any,
    *,
    width: int = 480,
    height: int = 360,
    azimuth: float = 90.0,
    elevation: float = -12.0,
    distance: float | None = None,
    lookat: Any = None,
    track_body: str | None = None,
) -> np.ndarray:
    """Render configurations of a MuJoCo model offscreen.

    Parameters
    ----------
    model : mujoco.MjModel
    qpos : array_like, shape (N, model.nq) or (model.nq,)
        Generalised positions, one frame each (``mj_forward`` is run on each; velocities are zero).
    width, height : int
        Image size in pixels, at most the model's offscreen buffer (``model.vis.global_.offwidth`` and
        ``offheight``, 640 x 480 unless the MJCF's ``<visual><global offwidth=...>`` raises it).
    azimuth, elevation : float
        Camera direction in degrees (MuJoCo's free camera: azimuth 90 looks along +y, elevation < 0 from above).
    distance : float, optional
        Camera distance in m; default: the bounding sphere of the model's geoms in the first frame fits the field of
        view with a 5 % margin.
    lookat : array_like, shape (3,), optional
        Point the camera looks at, world frame (m); default the centre of the geoms' bounding box in the first frame.
    track_body : str, optional
        A body name: the camera follows that body's position (the lookat offset of the first frame is kept).

    Returns
    -------
    ndarray of uint8, shape (N, height, width, 3)
        RGB frames, top row first.

    Examples
    --------
    >>> from robokin.sim import fivebar_model, fivebar_qpos
    >>> from robokin.robots import FIVEBAR
    >>> m = fivebar_model(FIVEBAR, masses=[0.1, 0.1, 0.1, 0.1])
    >>> img = render_frames(m, fivebar_qpos(FIVEBAR, [2.0, 1.0]), width=64, height=48)
    >>> img.shape, img.dtype
    ((1, 48, 64, 3), dtype('uint8'))
    """
    mujoco = require_mujoco()
    if not isinstance(model, mujoco.MjModel):
        raise TypeError(f"model must be a mujoco.MjModel, got {type(model).__name__}")
    if model.ngeom == 0:
        raise ValueError(
            "model has no geoms: nothing to draw (add <geom> elements; a URDF's visuals are dropped by MuJoCo "
            'unless its <mujoco><compiler discardvisual="false"/></mujoco> says otherwise)'
        )
    width = integer(width, "width", minimum=8, maximum=MAX_SIDE)
    height = integer(height, "height", minimum=8, maximum=MAX_SIDE)
    offw, offh = int(model.vis.global_.offwidth), int(model.vis.global_.offheight)
    if width > offw or height > offh:
        raise ValueError(
            f"width x height = {width} x {height} exceeds the model's offscreen buffer {offw} x {offh}: raise "
            "<visual><global offwidth=... offheight=.../></visual> in the MJCF or render smaller"
        )
    q = as_array(qpos, "qpos")
    if q.ndim == 1:
        q = q[None]
    if q.ndim != 2 or q.shape[1] != model.nq:
        raise ValueError(f"qpos must have shape (N, {model.nq}) or ({model.nq},), got {np.shape(qpos)}")
    if not 1 <= q.shape[0] <= MAX_FRAMES:
        raise ValueError(f"qpos must hold 1 to {MAX_FRAMES} frames, got {q.shape[0]}")
    azimuth = finite_scalar(azimuth, "azimuth")
    elevation = finite_scalar(elevation, "elevation")
    if not -90.0 <= elevation <= 90.0:
        raise ValueError(f"elevation must lie in [-90, 90] degrees, got {elevation}")
    if distance is not None:
        distance = positive(distance, "distance")
    data = mujoco.MjData(model)
    data.qpos[:] = q[0]
    mujoco.mj_forward(model, data)
    centre, radius = _extent(model, data)
    if lookat is not None:
        lookat = as_array(lookat, "lookat")
        if lookat.shape != (3,):
            raise ValueError(f"lookat must have shape (3,), got {lookat.shape}")
        centre = lookat
    body = None
    if track_body is not None:
        body = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, str(track_body))
        if body < 0:
            raise ValueError(f"track_body {track_body!r} is not a body of the model")
        offset = centre - data.xpos[body]
    if distance is None:
        if lookat is not None:  # the spheres seen from another centre
            g = _solid_geoms(model)
            radius = (
                float((np.linalg.norm(data.geom_xpos[g] - centre, axis=1) + model.geom_rbound[g]).max())
                if g.size
                else 0.5
            )
        # the bounding sphere fits the narrower of the vertical and horizontal fields of view, 5 % margin
        half = np.radians(model.vis.global_.fovy) / 2
        half = min(half, np.arctan(np.tan(half) * width / height))
        distance = 1.05 * max(radius, 0.05) / np.sin(half)

    ctx = _gl_context(width, height)
    try:
        scene = mujoco.MjvScene(model, maxgeom=2000)
        con = mujoco.MjrContext(model, mujoco.mjtFontScale.mjFONTSCALE_100)
        mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_OFFSCREEN, con)
        cam = mujoco.MjvCamera()
        cam.type = mujoco.mjtCamera.mjCAMERA_FREE
        cam.azimuth, cam.elevation, cam.distance = azimuth, elevation, distance
        opt = mujoco.MjvOption()
        rect = mujoco.MjrRect(0, 0, width, height)
        out = np.empty((q.shape[0], height, width, 3), dtype=np.uint8)
        rgb = np.empty((height, width, 3), dtype=np.uint8)
        for k in range(q.shape[0]):
            data.qpos[:] = q[k]
            mujoco.mj_forward(model, data)
            cam.lookat[:] = centre if body is None else data.xpos[body] + offset
            mujoco.mjv_updateScene(model, data, opt, None, cam, mujoco.mjtCatBit.mjCAT_ALL, scene)
            mujoco.mjr_render(rect, scene, con)
            mujoco.mjr_readPixels(rgb, None, rect, con)
            out[k] = rgb[::-1]  # OpenGL's first row is the bottom one
        con.free()
    finally:
        ctx.free()
    return out


def _frames(frames: Any) -> np.ndarray:
    try:
        f = np.asarray(frames)
    except ValueError:  # a ragged nesting of lists
        raise ValueError("frames must be uint8 RGB of shape (N, H, W, 3), got a ragged sequence") from None
    if f.dtype != np.uint8 or f.ndim != 4 or f.shape[-1] != 3 or f.shape[0] < 1:
        raise ValueError(f"frames must be uint8 RGB of shape (N, H, W, 3), got {f.dtype} {f.shape}")
    return f


def encode_mp4(frames: Any, *, fps: float = 30.0) -> bytes:
    """Encode RGB frames as an H.264 MP4 (yuv420p, plays in every browser); returns the file's bytes.

    Parameters
    ----------
    frames : ndarray of uint8, shape (N, H, W, 3)
        H and W must be even (yuv420p).
    fps : float
        Frames per second, in [1, 120].

    Examples
    --------
    >>> data = encode_mp4(np.zeros((4, 16, 16, 3), np.uint8), fps=10)
    >>> data[4:8]
    b'ftyp'
    """
    import imageio.v2 as imageio

    f = _frames(frames)
    if f.shape[1] % 2 or f.shape[2] % 2:
        raise ValueError(f"frame height and width must be even for yuv420p, got {f.shape[1]} x {f.shape[2]}")
    fps = finite_scalar(fps, "fps")
    if not 1.0 <= fps <= 120.0:
        raise ValueError(f"fps must lie in [1, 120], got {fps}")
    with tempfile.TemporaryDirectory(prefix="robokin-mp4-") as tmp:
        path = os.path.join(tmp, "v.mp4")
        try:
            # threads=1 and no metadata: the same frames give the same bytes
            writer = imageio.get_writer(
                path,
                format="FFMPEG",
                fps=fps,
                codec="libx264",
                pixelformat="yuv420p",
                macro_block_size=2,
                ffmpeg_log_level="error",
                output_params=["-threads", "1", "-map_metadata", "-1", "-fflags", "+bitexact", "-crf", "28"],
            )
            for frame in f:
                writer.append_data(frame)
            writer.close()
        except Exception as exc:  # noqa: BLE001 - the encoder's own message, under our error type
            raise RenderError(f"MP4 encoding failed: {exc}") from exc
        with open(path, "rb") as fh:
            return fh.read()


def encode_png(frame: Any) -> bytes:
    """One RGB frame (H, W, 3) as PNG bytes."""
    import imageio.v3 as iio

    try:
        one = np.asarray(frame)[None]
    except ValueError:
        raise ValueError("frame must be uint8 RGB of shape (H, W, 3), got a ragged sequence") from None
    f = _frames(one)
    buf = io.BytesIO()
    iio.imwrite(buf, f[0], extension=".png")
    return buf.getvalue()


def _uri(mime: str, data: bytes) -> str:
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")


def video_html(mp4: bytes, *, poster: Any, alt: str, width: int | None = None) -> str:
    """HTML for a video that shows a poster frame and plays only when started: ``<video preload="none" poster=...>``.

    The video and the poster are embedded as data URIs, so the page works offline and needs no file beside it.

    Parameters
    ----------
    mp4 : bytes
        From :func:`encode_mp4`.
    poster : ndarray of uint8, shape (H, W, 3)
        The frame shown before playing (e.g. the first frame).
    alt : str
        What the video shows, for readers who cannot see it (the ``aria-label``).
    width : int, optional
        Display width in CSS pixels; the video scales down to the column on a phone.
    """
    if not isinstance(mp4, bytes) or mp4[4:8] != b"ftyp":
        raise ValueError("mp4 must be the bytes of an MP4 file (from encode_mp4)")
    if not isinstance(alt, str) or not alt.strip():
        raise ValueError("alt must describe the video in words")
    w = "" if width is None else f"width:{integer(width, 'width', minimum=16, maximum=MAX_SIDE)}px;"
    label = alt.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    return (
        f'<video class="robokin-video" controls muted playsinline preload="none" aria-label="{label}" '
        f'style="{w}max-width:100%;height:auto" poster="{_uri("image/png", encode_png(poster))}">'
        f'<source type="video/mp4" src="{_uri("video/mp4", mp4)}"></video>'
    )


def image_html(frames: Sequence[Any], *, alt: str) -> str:
    """HTML for one or more still frames side by side (PNG data URIs, decoded asynchronously), scaled to the column."""
    if not isinstance(alt, str) or not alt.strip():
        raise ValueError("alt must describe the picture in words")
    label = alt.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    imgs = "".join(
        # no loading="lazy": the bytes are in the page already, and a lazy image below the fold never loads in a
        # headless check that waits for every image
        f'<img decoding="async" alt="{label}" style="max-width:{100 // len(frames)}%;height:auto" '
        f'src="{_uri("image/png", encode_png(f))}">'
        for f in frames
    )
    return f'<div class="robokin-stills">{imgs}</div>'
