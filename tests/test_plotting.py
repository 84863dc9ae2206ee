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
