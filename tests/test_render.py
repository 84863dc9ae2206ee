"""robokin.render: offscreen frames of MuJoCo models, MP4/PNG encoding, and the HTML that shows them (issue 32)."""

from __future__ import annotations

import base64
import re

import imageio.v3 as iio
import numpy as np
import pytest

from robokin import render, sim
from robokin.robots import FIVEBAR

MASSES = (0.05, 0.08, 0.05, 0.08)


@pytest.fixture(scope="module")
def leg():
    model = sim.fivebar_model(FIVEBAR, masses=MASSES)
    q = np.stack([sim.fivebar_qpos(FIVEBAR, qm) for qm in ([2.2, 0.9], [1.9, 0.6])])
    return model, q


def test_frames_show_the_model_and_follow_the_pose(leg):
    model, q = leg
    img = render.render_frames(model, q, width=96, height=64, distance=0.3)
    assert img.shape == (2, 64, 96, 3) and img.dtype == np.uint8
    background = img[0, 0, 0].astype(int)
    # the leg covers some pixels (a blank or all-background frame fails), and the two poses differ
    assert (np.abs(img[0].astype(int) - background).sum(axis=-1) > 60).mean() > 0.01
    assert np.abs(img[0].astype(int) - img[1]).mean() > 0.5
    # deterministic: the same poses give the same pixels
    assert np.array_equal(img, render.render_frames(model, q, width=96, height=64, distance=0.3))


def test_frames_are_top_row_first(leg):
    # side view of the five-bar: the two thighs hang from the motors (wide apart, at the top) down to the foot (one
    # point, at the bottom), a V. Unflipped OpenGL rows would show the foot at the top.
    model, q = leg
    img = render.render_frames(model, q[:1], width=96, height=96, elevation=0.0, distance=0.3)[0].astype(int)
    fg = np.abs(img - img[0, 0]).sum(axis=-1) > 60
    rows = np.flatnonzero(fg.any(axis=1))
    span = [np.ptp(np.flatnonzero(fg[r])) for r in rows]
    assert np.mean(span[:3]) > 3 * np.mean(span[-3:])  # wide at the top, narrow at the foot


def test_track_body_keeps_the_body_in_view(leg):
    model, q = leg
    body = model.body(1).name
    a = render.render_frames(model, q, width=64, height=48, track_body=body, distance=0.3)
    assert a.shape == (2, 48, 64, 3)


def test_bad_input_is_named(leg):
    model, q = leg
    with pytest.raises(TypeError, match="model"):
        render.render_frames("model.xml", q)
    with pytest.raises(ValueError, match="offscreen buffer"):
        render.render_frames(model, q, width=1600, height=1200)
    with pytest.raises(ValueError, match="width"):
        render.render_frames(model, q, width=4)
    with pytest.raises(ValueError, match="qpos"):
        render.render_frames(model, q[:, :-1])
    with pytest.raises(ValueError, match="qpos"):
        render.render_frames(model, np.full_like(q, np.nan))
    with pytest.raises(ValueError, match="frames"):
        render.render_frames(model, np.zeros((render.MAX_FRAMES + 1, model.nq)))
    with pytest.raises(ValueError, match="elevation"):
        render.render_frames(model, q, elevation=120.0)
    with pytest.raises(ValueError, match="distance"):
        render.render_frames(model, q, distance=-1.0)
    with pytest.raises(ValueError, match="track_body"):
        render.render_frames(model, q, track_body="no such body")
    with pytest.raises(ValueError, match="lookat"):
        render.render_frames(model, q, lookat=[0.0, 0.0])


def test_mp4_is_deterministic_and_valid():
    rng = np.random.default_rng(0)
    frames = rng.integers(0, 255, (6, 32, 48, 3), dtype=np.uint8)
    a = render.encode_mp4(frames, fps=10)
    assert a[4:8] == b"ftyp" and a == render.encode_mp4(frames, fps=10)
    assert a != render.encode_mp4(frames[::-1], fps=10)
    with pytest.raises(ValueError, match="even"):
        render.encode_mp4(frames[:, :31], fps=10)
    with pytest.raises(ValueError, match="fps"):
        render.encode_mp4(frames, fps=0.0)
    with pytest.raises(ValueError, match="uint8"):
        render.encode_mp4(frames.astype(float), fps=10)


def test_png_round_trip_is_lossless():
    frame = np.random.default_rng(1).integers(0, 255, (20, 30, 3), dtype=np.uint8)
    assert np.array_equal(iio.imread(render.encode_png(frame)), frame)


def test_video_html_loads_nothing_until_played():
    frames = np.zeros((4, 16, 16, 3), np.uint8)
    html = render.video_html(render.encode_mp4(frames, fps=10), poster=frames[0], alt='a "test" <video>')
    assert 'preload="none"' in html and "controls" in html and "max-width:100%" in html
    assert 'aria-label="a &quot;test&quot; &lt;video>"' in html
    src = re.search(r'src="data:video/mp4;base64,([^"]+)"', html).group(1)
    assert base64.b64decode(src)[4:8] == b"ftyp"
    with pytest.raises(ValueError, match="mp4"):
        render.video_html(b"not a video", poster=frames[0], alt="x")
    with pytest.raises(ValueError, match="alt"):
        render.video_html(render.encode_mp4(frames, fps=10), poster=frames[0], alt=" ")


def test_image_html_has_alt_text_and_loads_eagerly():
    frames = np.zeros((2, 8, 8, 3), np.uint8)
    html = render.image_html(list(frames), alt="two black squares")
    assert html.count('decoding="async"') == 2 and html.count('alt="two black squares"') == 2
    assert 'loading="lazy"' not in html  # a lazy image below the fold never loads in the headless site check
    with pytest.raises(ValueError, match="alt"):
        render.image_html(list(frames), alt="")


def test_a_model_without_geoms_is_refused():
    from robokin.robots import UR5, ur5_inertials

    model = sim.dh_model(UR5, **ur5_inertials())  # inertial bodies only
    with pytest.raises(ValueError, match="no geoms"):
        render.render_frames(model, np.zeros(model.nq))


def test_default_view_frames_every_geom_not_only_body_origins():
    # one body at the origin whose red sphere sits 0.3 m away (like a wheel's rim beyond its hub): framing the body
    # origins put the camera 0.11 m from the origin and left the sphere out; the default must show all of it
    mujoco = sim.require_mujoco()
    xml = """<mujoco><worldbody><body name="b">
      <geom type="box" size="0.02 0.02 0.02" rgba="0 1 0 1"/>
      <geom type="sphere" pos="0.3 0 0" size="0.1" rgba="1 0 0 1"/>
    </body></worldbody></mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    for w, h in ((96, 64), (64, 96)):  # landscape and portrait: the narrower field of view counts
        img = render.render_frames(model, np.zeros(model.nq), width=w, height=h)[0].astype(int)
        red = (img[..., 0] > 60) & (img[..., 0] > 2 * img[..., 1]) & (img[..., 0] > 2 * img[..., 2])
        fg = np.abs(img - img[0, 0]).sum(axis=-1) > 30
        border = np.r_[fg[0], fg[-1], fg[:, 0], fg[:, -1]]
        assert red.mean() > 0.02 and not border.any(), (w, h)  # the sphere is seen, and nothing is cut by the frame
