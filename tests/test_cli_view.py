"""``python -m robokin view``: MuJoCo's viewer, or one offscreen picture with --still (issue 32)."""

from __future__ import annotations

import imageio.v3 as iio
import numpy as np
import pytest

from robokin import cli


@pytest.mark.parametrize("name", cli.VIEW_MODELS)
def test_still_of_a_reference_model(tmp_path, name):
    out = tmp_path / f"{name}.png"
    assert cli.main(["view", name, "--still", str(out), "--width", "160", "--height", "120"]) == 0
    img = iio.imread(out)
    assert img.shape == (120, 160, 3) and img.std() > 5.0  # a picture of something, not a blank frame


def test_still_of_a_users_mjcf_and_urdf(tmp_path):
    mjcf = tmp_path / "box.xml"
    mjcf.write_text(
        "<mujoco><worldbody><light pos='0 0 2'/><body pos='0 0 0.1'><freejoint/>"
        "<geom type='box' size='0.1 0.1 0.1' rgba='1 0 0 1'/></body></worldbody></mujoco>"
    )
    assert cli.main(["view", str(mjcf), "--still", str(tmp_path / "a.png"), "--width", "64", "--height", "48"]) == 0
    img = iio.imread(tmp_path / "a.png").astype(int)
    assert (img[..., 0] - img[..., 2] > 80).mean() > 0.01  # the red box is in the picture
    # MuJoCo keeps a URDF's collision geometry and drops its visuals unless <compiler discardvisual="false"/>
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(
        '<robot name="r"><link name="base"><collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>'
        '<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
        '</link><link name="l1"><collision><geometry><cylinder radius="0.02" length="0.3"/></geometry></collision>'
        '<inertial><mass value="0.5"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>'
        '</inertial></link><joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>'
        '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>'
    )
    assert cli.main(["view", str(urdf), "--still", str(tmp_path / "b.png"), "--width", "64", "--height", "48"]) == 0


def test_bad_models_exit_2_with_the_reason(tmp_path, capsys):
    assert cli.main(["view", "no_such_robot"]) == 2
    assert "MODEL must be one of" in capsys.readouterr().err
    assert cli.main(["view", str(tmp_path / "missing.xml")]) == 2
    assert "no such model file" in capsys.readouterr().err
    bad = tmp_path / "bad.xml"
    bad.write_text("<mujoco><worldbody><body>")
    assert cli.main(["view", str(bad)]) == 2
    assert "cannot compile" in capsys.readouterr().err


def test_no_screen_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(cli.sys, "platform", "linux")
    assert cli.main(["view", "fivebar"]) == 2
    assert "--still" in capsys.readouterr().err


def test_still_size_is_checked(tmp_path, capsys):
    assert cli.main(["view", "fivebar", "--still", str(tmp_path / "x.png"), "--width", "4"]) == 2
    assert "width" in capsys.readouterr().err


def test_the_reference_wheel_leg_opens_standing_on_its_wheels():
    # qpos0 of the generated robot is the open zero pose with the wheels in the floor; the view starts from the
    # standing keyframe instead (without it, nkey is 0 and the wheel centres sit at the body's height)
    import mujoco

    from robokin import cli
    from robokin.robots import WHEEL_LEG

    m = cli._view_model("wheel_leg")
    assert m.nkey == 1
    d = mujoco.MjData(m)
    d.qpos[:] = m.key_qpos[0]
    mujoco.mj_forward(m, d)
    wheels = [b for b in range(m.nbody) if "wheel" in m.body(b).name.lower()]
    assert len(wheels) == 2 and np.allclose(d.xpos[wheels, 2], WHEEL_LEG.R, atol=1e-9)
