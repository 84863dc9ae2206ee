"""Argument checks of robokin.plotting (issue 29): hostile axes, styles and arms fail with a message naming them."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from robokin.plotting import draw_arm, draw_frame, new_3d_axes, tidy3d  # noqa: E402
from robokin.serial import SerialArm  # noqa: E402

ARM = SerialArm.from_dh([0.5, 0.4], [0, 0], [0, 0], convention="standard")


@pytest.fixture
def ax():
    fig, ax = new_3d_axes()
    yield ax
    plt.close(fig)


@pytest.mark.parametrize("bad", [None, 1.0, "ax", object(), np.zeros(3)])
def test_every_function_refuses_what_is_not_3d_axes(bad):
    for call in (
        lambda: draw_frame(bad, np.eye(4)),
        lambda: draw_arm(bad, ARM, [0.0, 0.0]),
        lambda: tidy3d(bad),
    ):
        with pytest.raises(ValueError, match="ax must be matplotlib 3-D axes"):
            call()


def test_2d_axes_are_refused():
    fig, ax2 = plt.subplots()
    with pytest.raises(ValueError, match="ax must be matplotlib 3-D axes"):
        draw_frame(ax2, np.eye(4))
    plt.close(fig)


@pytest.mark.parametrize(
    ("kw", "name"),
    [
        (dict(alpha=np.nan), "alpha"),
        (dict(alpha=1.5), "alpha"),
        (dict(alpha="abc"), "alpha"),
        (dict(lw=np.inf), "lw"),
        (dict(lw=-1.0), "lw"),
        (dict(lw=None), "lw"),
        (dict(label=3.0), "label"),
        (dict(label=object()), "label"),
    ],
)
def test_draw_frame_style_options_are_checked(ax, kw, name):
    with pytest.raises(ValueError, match=name):
        draw_frame(ax, np.eye(4), **kw)
    assert not ax.lines  # refused before anything is drawn


@pytest.mark.parametrize(
    ("kw", "name"),
    [
        (dict(frames="yes"), "frames"),
        (dict(frames=None), "frames"),
        (dict(color=np.nan), "color"),
        (dict(color=None), "color"),
        (dict(color="not-a-colour"), "color"),
        (dict(ms=np.nan), "ms"),
        (dict(ms=1e300), "ms"),
        (dict(ms=None), "ms"),
        (dict(alpha=-0.1), "alpha"),
        (dict(label=np.inf), "label"),
    ],
)
def test_draw_arm_options_are_checked(ax, kw, name):
    with pytest.raises(ValueError, match=name):
        draw_arm(ax, ARM, [0.0, 0.0], **kw)
    assert not ax.lines


@pytest.mark.parametrize("bad", [None, 1.0, "ur5", object(), SerialArm])
def test_draw_arm_refuses_what_is_not_an_arm(ax, bad):
    with pytest.raises(ValueError, match="arm must be an arm with fk_all"):
        draw_arm(ax, bad, [0.0, 0.0])


def test_draw_arm_checks_what_fk_all_returns(ax):
    class NanArm:
        def fk_all(self, q):
            return np.full((3, 4, 4), np.nan)

    with pytest.raises(ValueError, match=r"arm.fk_all\(q\) returned an invalid value"):
        draw_arm(ax, NanArm(), [0.0, 0.0])


def test_valid_styles_still_draw(ax):
    P = draw_arm(ax, ARM, [0.0, np.pi / 2], color="tab:red", alpha=0.0, label="arm", frames=np.bool_(True))
    assert P.shape == (3, 3) and len(ax.lines) == 1 + 3 * 3
    assert ax.lines[0].get_label() == "arm" and ax.lines[0].get_alpha() == 0.0
    assert len(draw_frame(ax, np.eye(3), label="{0}", alpha=np.float32(0.5))) == 4


def test_tidy3d_checks_ticksize_before_changing_the_axes(ax):
    before = ax.get_xlim()
    with pytest.raises(ValueError, match="ticksize"):
        tidy3d(ax, lim=0.5, ticksize=np.nan)
    assert ax.get_xlim() == before


# ---------------------------------------------------------------- save_animation (GIF / MP4 export, issue 33)


def _anim(frames=4, **kw):
    from matplotlib.animation import FuncAnimation

    fig, ax = plt.subplots(figsize=(1.3, 1.1))
    (line,) = ax.plot([], [])
    ax.set_xlim(0, frames)
    ax.set_ylim(0, frames)

    def draw(k):
        line.set_data([0, k], [0, k])
        return (line,)

    return fig, FuncAnimation(fig, draw, frames=frames, **kw)


def test_save_animation_gif_has_every_frame(tmp_path):
    from PIL import Image

    from robokin.plotting import save_animation

    fig, anim = _anim(frames=5)
    try:
        out = save_animation(anim, tmp_path / "a.GIF", fps=10, dpi=40)
    finally:
        plt.close(fig)
    assert out == tmp_path / "a.GIF" and out.stat().st_size > 0
    with Image.open(out) as im:
        assert im.format == "GIF" and im.n_frames == 5
        assert im.size == (round(1.3 * 40), round(1.1 * 40))
        assert im.info["duration"] == 100  # ms per frame at 10 fps


def test_save_animation_mp4_has_every_frame(tmp_path):
    import subprocess

    import imageio_ffmpeg

    from robokin.plotting import save_animation

    fig, anim = _anim(frames=6)
    try:
        out = save_animation(anim, tmp_path / "a.mp4", fps=12, dpi=41)  # 53 x 45 px: odd, padded to even
    finally:
        plt.close(fig)
    assert out.read_bytes()[4:8] == b"ftyp"
    n, _ = imageio_ffmpeg.count_frames_and_secs(str(out))
    assert n == 6
    probe = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-i", str(out)], capture_output=True, text=True)
    assert "h264" in probe.stderr and "yuv420p" in probe.stderr and "12 fps" in probe.stderr


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(path="x.avi"), "path must end in .gif or .mp4"),
        (dict(path="x"), "path must end in .gif or .mp4"),
        (dict(path=3), "path must be a file name"),
        (dict(path="no/such/folder/x.gif"), "path: the folder"),
        (dict(path="x.gif", fps=0), "fps must be a positive"),
        (dict(path="x.gif", fps=-5), "fps must be a positive"),
        (dict(path="x.gif", fps=float("nan")), "fps must be a positive"),
        (dict(path="x.gif", fps=1e4), "fps must be at most"),
        (dict(path="x.gif", fps=60), "fps must be at most 50 for a GIF.*write an .mp4"),
        (dict(path="x.mp4", fps=True), "fps must be"),
        (dict(path="x.gif", dpi=0), "dpi must be a positive"),
    ],
)
def test_save_animation_refuses_bad_input(tmp_path, monkeypatch, kwargs, match):
    from robokin.plotting import save_animation

    monkeypatch.chdir(tmp_path)
    fig, anim = _anim()
    try:
        with pytest.raises(ValueError, match=match):
            save_animation(anim, **kwargs)
    finally:
        plt.close(fig)
    assert not list(tmp_path.iterdir())  # nothing written


@pytest.mark.parametrize("bad", [None, "anim", object(), plt])
def test_save_animation_refuses_what_is_not_an_animation(tmp_path, bad):
    from robokin.plotting import save_animation

    with pytest.raises(ValueError, match="anim must be a matplotlib animation"):
        save_animation(bad, tmp_path / "x.gif")


@pytest.mark.parametrize("interval, fps", [(50, 20), (60, 1000 / 60), (100, 10)])  # ch3, ch4/10/11, ch8
def test_save_animation_default_rate_is_the_animations_own(tmp_path, interval, fps):
    import imageio_ffmpeg
    from PIL import Image

    from robokin.plotting import save_animation

    fig, anim = _anim(frames=6, interval=interval)
    try:
        gif = save_animation(anim, tmp_path / "a.gif", dpi=30)
        mp4 = save_animation(anim, tmp_path / "a.mp4", dpi=30)
    finally:
        plt.close(fig)
    with Image.open(gif) as im:
        # a GIF delay is whole hundredths of a second: the frame time to within 5 ms
        assert abs(im.info["duration"] - interval) <= 5, im.info["duration"]
    n, secs = imageio_ffmpeg.count_frames_and_secs(str(mp4))
    assert n == 6 and secs == pytest.approx(6 / fps, abs=0.02)


def test_save_animation_gif_of_a_faster_animation_is_capped_with_a_warning(tmp_path):
    from PIL import Image

    from robokin.plotting import save_animation

    fig, anim = _anim(frames=3, interval=12.5)  # chapter 2's 400 ms gait period in 32 frames: 80 fps
    try:
        with pytest.warns(UserWarning, match="80 fps.*1.6x slower.*mp4"):
            out = save_animation(anim, tmp_path / "a.gif", dpi=30)
        with pytest.raises(ValueError, match="at most 50 for a GIF"):
            save_animation(anim, tmp_path / "b.gif", fps=80, dpi=30)
    finally:
        plt.close(fig)
    with Image.open(out) as im:
        assert im.info["duration"] == 20


def test_save_animation_expands_home_and_refuses_a_folder(tmp_path, monkeypatch):
    from robokin.plotting import save_animation

    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "x.gif").mkdir()
    fig, anim = _anim(frames=2)
    try:
        assert save_animation(anim, "~/a.gif", fps=10, dpi=20) == tmp_path / "a.gif"
        with pytest.raises(ValueError, match="is a folder"):
            save_animation(anim, tmp_path / "x.gif", fps=10, dpi=20)
    finally:
        plt.close(fig)
    assert (tmp_path / "a.gif").stat().st_size > 0


def test_save_animation_refuses_a_tiny_rate_or_resolution(tmp_path):
    # found by the hostile sweep: fps = 1e-300 overflowed the writer's frame duration and dpi = 1e-300 gave a frame
    # with no pixels (an IndexError from inside matplotlib); both are now refused naming the argument
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation

    from robokin.plotting import save_animation

    fig, ax = plt.subplots(figsize=(1.0, 1.0))
    (line,) = ax.plot([0, 1], [0, 1])
    anim = FuncAnimation(fig, lambda k: (line.set_ydata([0, k]),), frames=2, interval=100)
    with pytest.raises(ValueError, match="fps must be at least 0.1"):
        save_animation(anim, tmp_path / "a.gif", fps=1e-300)
    with pytest.raises(ValueError, match="dpi must be at least 10"):
        save_animation(anim, tmp_path / "a.gif", fps=5.0, dpi=1e-300)
    assert save_animation(anim, tmp_path / "a.gif", fps=0.1, dpi=10.0).exists()
    plt.close(fig)


def _tiny_animation():
    from matplotlib.animation import FuncAnimation

    fig, ax = plt.subplots(figsize=(1, 1))
    (line,) = ax.plot([0, 1], [0, 0])
    anim = FuncAnimation(fig, lambda k: line.set_ydata([0, k]) or [line], frames=3)
    return fig, anim


def test_animation_alt_text_sits_on_the_frame_image_once():
    import re

    from robokin.plotting import animation_html

    fig, anim = _tiny_animation()
    try:
        html = animation_html(anim, alt='A line tilting up; "three" frames', dpi=20).data
        plain = animation_html(anim, dpi=20).data
    finally:
        plt.close(fig)
    imgs = re.findall(r"<img [^>]*>", html)
    assert len(imgs) == 1 and 'alt="A line tilting up; &quot;three&quot; frames"' in imgs[0]  # escaped, one image
    assert "alt=" not in re.findall(r"<img [^>]*>", plain)[0]  # no alt unless given
    # the player changes only the image's src from frame to frame, so the alt stays with every frame
    assert ".alt" not in html and "setAttribute('alt'" not in html


@pytest.mark.parametrize("alt", ["", "   ", "frame.png", 3])
def test_animation_alt_text_must_describe(alt):
    from robokin.plotting import animation_html

    fig, anim = _tiny_animation()
    try:
        with pytest.raises(ValueError, match="alt"):
            animation_html(anim, alt=alt, dpi=20)
    finally:
        plt.close(fig)
