"""robokin.urdf: URDF written from the DH table, compiled by MuJoCo, equal to the package to round-off (issue 32)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import mujoco
import numpy as np
import pytest

from robokin import urdf
from robokin.dynamics import SerialDynamics
from robokin.leg2 import TwoLinkLeg
from robokin.robots import LEG2, UR5, ur5_inertials
from robokin.serial import SerialArm, to_modified
from robokin.transforms import make_transform, rpy_to_matrix


def pose(m, d, body):
    T = np.eye(4)
    T[:3, :3] = d.xmat[m.body(body).id].reshape(3, 3)
    T[:3, 3] = d.xpos[m.body(body).id]
    return T


def compiled(text):
    m = mujoco.MjModel.from_xml_string(text)
    return m, mujoco.MjData(m)


def arms():
    rng = np.random.default_rng(4)
    base = make_transform(rpy_to_matrix([0.1, -0.2, 0.3]), [0.1, 0.2, 0.3])
    tool = make_transform(rpy_to_matrix([0.4, 0.0, -0.5]), [0.0, 0.02, 0.15])  # a gripper offset
    odd = SerialArm.from_dh(
        rng.uniform(-0.3, 0.3, 5),
        rng.uniform(-np.pi, np.pi, 5),
        rng.uniform(-0.2, 0.2, 5),
        offset=rng.uniform(-1, 1, 5),
        convention="standard",
        base=base,
        tool=tool,
    )
    odd_mdh = SerialArm.from_dh(
        odd.a,
        odd.alpha,
        odd.d,
        offset=odd.offset,
        convention="modified",
        base=base,
        tool=tool,
    )
    return {"UR5": UR5, "UR5 as modified DH": to_modified(UR5), "5R standard + base/tool": odd, "5R modified": odd_mdh}


@pytest.mark.parametrize("name", list(arms()))
def test_mujoco_frames_equal_the_package_fk(name):
    arm = arms()[name]
    m, d = compiled(urdf.serial_urdf(arm))
    rng = np.random.default_rng(5)
    worst = 0.0
    for q in rng.uniform(-np.pi, np.pi, (100, arm.n)):
        d.qpos[:] = q
        mujoco.mj_kinematics(m, d)
        worst = max(worst, np.abs(pose(m, d, "tool") - arm.fk(q)).max())
    assert worst < 1e-14  # a frame in the wrong place, or rpy in another order, is off by cm or radians


def test_gravity_torques_equal_the_package_dynamics():
    # the centres of mass and inertias given in DH frames are moved into URDF link frames correctly
    m, d = compiled(urdf.serial_urdf(UR5, **ur5_inertials()))
    dyn = SerialDynamics(UR5, **ur5_inertials())
    rng = np.random.default_rng(6)
    worst = 0.0
    for q in rng.uniform(-np.pi, np.pi, (100, 6)):
        d.qpos[:], d.qvel[:] = q, 0.0
        mujoco.mj_forward(m, d)
        worst = max(worst, np.abs(d.qfrc_bias - dyn.gravity(q)).max())
        M = np.zeros((6, 6))
        mujoco.mj_fullM(m, d, M)
        assert np.abs(M - dyn.mass_matrix(q)).max() < 1e-12
    assert worst < 1e-12


def test_leg_foot_equals_the_package_fk():
    m, d = compiled(urdf.two_link_leg_urdf(LEG2, masses=[0.3, 0.2]))
    for q in np.random.default_rng(7).uniform(-2.5, 2.5, (100, 2)):
        d.qpos[:] = q
        mujoco.mj_kinematics(m, d)
        p = d.xpos[m.body("foot").id]
        assert abs(p[1]) < 1e-16 and np.abs(p[[0, 2]] - LEG2.fk(q)).max() < 1e-15


def test_the_file_is_a_valid_tree_with_the_limits():
    arm = SerialArm.from_dh(UR5.a, UR5.alpha, UR5.d, convention="standard", qlim=np.tile([-2.0, 2.0], (6, 1)))
    root = ET.fromstring(urdf.serial_urdf(arm, name="ur5"))
    links = {e.get("name") for e in root.findall("link")}
    joints = root.findall("joint")
    assert links == {"base", "tool", *(f"link{i}" for i in range(1, 7))}
    children = [j.find("child").get("link") for j in joints]
    assert sorted(children) == sorted(links - {"base"})  # every link but the root has exactly one parent joint
    assert all(j.find("parent").get("link") in links for j in joints)
    revolute = [j for j in joints if j.get("type") == "revolute"]
    assert [float(j.find("limit").get("lower")) for j in revolute] == [-2.0] * 6
    m, _ = compiled(urdf.serial_urdf(arm))
    assert np.allclose(m.jnt_range, [[-2.0, 2.0]] * 6) and m.jnt_limited.all()
    leg = TwoLinkLeg(0.2, 0.2, q_min=(-1.0, 0.2), q_max=(1.0, 2.5))
    m, _ = compiled(urdf.two_link_leg_urdf(leg))
    assert np.allclose(m.jnt_range, [[-1.0, 1.0], [0.2, 2.5]])


def test_numbers_are_written_exactly():
    arm = SerialArm.from_dh([0.1 + 0.2], [0.0], [1 / 3], convention="standard")
    assert "0.30000000000000004" in urdf.serial_urdf(arm)


def test_bad_input_is_named():
    with pytest.raises(TypeError, match="arm"):
        urdf.serial_urdf("UR5")
    with pytest.raises(ValueError, match="together"):
        urdf.serial_urdf(UR5, masses=np.ones(6))
    inert = ur5_inertials()
    with pytest.raises(ValueError, match="shapes"):
        urdf.serial_urdf(UR5, masses=inert["masses"][:5], coms=inert["coms"], inertias=inert["inertias"])
    with pytest.raises(ValueError, match="positive"):
        urdf.serial_urdf(UR5, masses=np.zeros(6), coms=inert["coms"], inertias=inert["inertias"])
    with pytest.raises(ValueError, match="masses"):
        urdf.serial_urdf(UR5, masses=np.full(6, np.nan), coms=inert["coms"], inertias=inert["inertias"])
    with pytest.raises(ValueError, match="symmetric"):
        bad = inert["inertias"].copy()
        bad[0, 0, 1] += 0.1
        urdf.serial_urdf(UR5, masses=inert["masses"], coms=inert["coms"], inertias=bad)
    with pytest.raises(ValueError, match="name"):
        urdf.serial_urdf(UR5, name='a"b')
    with pytest.raises(TypeError, match="leg"):
        urdf.two_link_leg_urdf(UR5)
    with pytest.raises(ValueError, match="masses"):
        urdf.two_link_leg_urdf(LEG2, masses=[1.0, -1.0])
