"""Your robot in the engine (issue 32 item 2): robokin.params.engine and ``python -m robokin engine-check``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robokin import cli, sim
from robokin.params import EXAMPLES, ParameterFileError, load, loads
from robokin.params.engine import check_engine_model, contact_pairs, engine_model
from robokin.robots import FIVEBAR, LEG2_LIMITED
from robokin.urdf import serial_urdf, two_link_leg_urdf

pytest.importorskip("mujoco")

LEG_FILE = EXAMPLES / "leg2_limited_ch02.toml"
FIVEBAR_FILE = EXAMPLES / "fivebar_ch03.toml"
CH13_MASSES = (0.05, 0.08, 0.05, 0.08)  # chapter 13's thigh AC, shank CE, thigh BD, shank DE, kg
KNEE = '<joint name="knee" type="revolute"><parent link="thigh"/><child link="shank"/>'


@pytest.fixture
def leg_files(tmp_path):
    """The reference leg's parameter file with link masses, its URDF (robokin.urdf) and two broken copies."""
    toml = tmp_path / "leg.toml"
    toml.write_text(LEG_FILE.read_text() + "\n[links.thigh]\nmass_kg = 1.0\n\n[links.shank]\nmass_kg = 0.5\n")
    urdf = two_link_leg_urdf(LEG2_LIMITED, masses=(1.0, 0.5))
    good = tmp_path / "leg.urdf"
    good.write_text(urdf)
    longer = tmp_path / "longer.urdf"  # the foot 1 mm further down the shank
    assert urdf.count('xyz="0 0 -0.19"') == 1
    longer.write_text(urdf.replace('xyz="0 0 -0.19"', 'xyz="0 0 -0.191"'))
    flipped = tmp_path / "flipped.urdf"
    i = urdf.index(KNEE)
    j = urdf.index('<axis xyz="0 -1 0"/>', i)
    flipped.write_text(urdf[:j] + '<axis xyz="0 1 0"/>' + urdf[j + len('<axis xyz="0 -1 0"/>') :])
    return toml, good, longer, flipped


def test_the_reference_legs_urdf_matches_the_package_to_round_off(leg_files):
    toml, good, _, _ = leg_files
    r = check_engine_model(toml, good)
    assert r.passed and r.samples == 25 and not r.findings
    err = {c.name: c.value for c in r.checks}
    # measured: 8.8e-17 m, 7.1e-15 N m (forces of 54 N on a 0.4 m leg), 8.9e-16 N m
    assert err["foot position"] <= 1e-15
    assert err["static torques"] <= 1e-13
    assert err["gravity torques"] <= 1e-14
    assert [c.passed for c in r.checks] == [True, True, True, None, True]  # gravity is checked: both links' masses
    assert (
        r.checks[3].detail
        == "inertia tensor not checked: the file gives no links.thigh.com, links.thigh.inertia, links.shank.com, links.shank.inertia"
    )


def test_a_link_1_mm_long_is_caught_and_named(leg_files):
    toml, _, longer, _ = leg_files
    r = check_engine_model(toml, longer)
    assert not r.passed
    assert {c.name: c.passed for c in r.checks} == {
        "foot position": False,
        "static torques": False,
        "gravity torques": True,  # the masses are where they were: only the foot moved
        "mass matrix": None,  # the file gives masses only
        "joint limits": True,
    }
    assert r.checks[0].value == pytest.approx(1e-3, rel=1e-9)
    assert r.findings == (
        "link shank (knee to foot) is 0.191 m long in the model and 0.19 m in the parameter file (+1 mm)",
    )


def test_a_flipped_joint_axis_is_caught_and_named(leg_files):
    toml, _, _, flipped = leg_files
    r = check_engine_model(toml, flipped)
    assert not r.passed and r.checks[0].value > 0.1
    assert any(f.startswith("joint 'knee' turns the other way: its axis is flipped") for f in r.findings)
    assert not any("hip" in f for f in r.findings)


def test_the_generated_leg_equals_the_urdf(leg_files):
    toml, good, _, _ = leg_files
    em = engine_model(toml)
    urdf_model = sim.require_mujoco().MjModel.from_xml_path(str(good))
    q = np.random.default_rng(0).uniform(-1.0, 2.0, (8, 2))
    M1, _, G1 = sim.two_link_terms(em.model, q, 0 * q)
    M2, _, G2 = sim.two_link_terms(urdf_model, q, 0 * q)
    assert np.abs(M1 - M2).max() <= 1e-16 and np.abs(G1 - G2).max() <= 1e-14
    assert em.model.jnt_range.tolist() == [[-1.2, 1.2], [0.3, 2.7]]  # the file's limits
    assert em.defaulted == (
        "links.thigh.com (halfway along the link)",
        "links.thigh.inertia (uniform rod)",
        "links.shank.com (halfway along the link)",
        "links.shank.inertia (uniform rod)",
        "foot (no hub motor)",
    )


def test_generated_fivebar_foot_follows_the_package_fk():
    r = check_engine_model(FIVEBAR_FILE)
    assert r.passed and r.samples >= 20
    err = {c.name: c.value for c in r.checks}
    assert err["foot position"] <= 1e-15 and err["static torques"] <= 1e-13 and err["gravity torques"] <= 1e-14


def test_fivebar_ch03_file_gives_chapter_13s_model():
    em = engine_model(FIVEBAR_FILE)
    assert em.defaulted == ("limits (none: the motors turn freely)", "foot (no hub motor)")
    ref = sim.fivebar_model(FIVEBAR, masses=CH13_MASSES, actuator="torque")
    q = np.random.default_rng(1).uniform(-2.0, 2.0, (10, 4))
    M1, _, G1 = sim.two_link_terms(em.model, q, 0 * q)
    M2, _, G2 = sim.two_link_terms(ref, q, 0 * q)
    assert np.abs(M1 - M2).max() <= 1e-18 * 1e3  # measured 5.4e-19 kg m^2 (the file's 1.6e-6 is a decimal)
    assert np.abs(G1 - G2).max() <= 1e-15
    assert check_engine_model(FIVEBAR_FILE, ref).passed  # chapter 13's own model passes the same check


def test_collision_on_and_off_change_the_contact_pairs():
    on = engine_model(FIVEBAR_FILE)
    off = engine_model(FIVEBAR_FILE, collisions=False)
    # links joined by a joint never collide, nor do the shanks that meet at the foot
    assert set(on.collision_pairs) == {("thigh_A", "thigh_B"), ("thigh_A", "shank_D"), ("shank_C", "thigh_B")}
    assert off.collision_pairs == () and contact_pairs(off.model) == []
    mujoco = sim.require_mujoco()
    for em, want in ((on, True), (off, False)):  # thigh A swung towards motor B touches thigh B
        d = mujoco.MjData(em.model)
        d.qpos[:] = [0.0, 0.0, -1.57, 0.0]
        mujoco.mj_forward(em.model, d)
        assert (d.ncon > 0) is want
    hub = loads(FIVEBAR_FILE.read_text() + "\n[foot]\nhub_mass_kg = 0.3\nhub_radius_mm = 25\n", file="hub.toml")
    em = engine_model(hub)
    # the hub (welded to shank C) may hit thigh B, and thigh A when knee C folds: an explicit pair, past MuJoCo's
    # parent filter (thigh A is shank C's parent); never shank D, which it always touches at the foot
    assert set(em.collision_pairs) - set(on.collision_pairs) == {("hub", "thigh_B"), ("thigh_A", "hub")}
    leg = loads(LEG_FILE.read_text() + "\n[foot]\nhub_mass_kg = 0.3\n", file="hub_leg.toml")
    assert engine_model(LEG_FILE).collision_pairs == ()  # thigh and shank share the knee: nothing else to hit
    assert engine_model(leg).collision_pairs == (("thigh", "hub"),)
    assert (
        check_engine_model(hub).passed and check_engine_model(leg).passed
    )  # the hub's weight is in the package's gravity torques too


def test_an_arm_collides_except_where_links_always_touch():
    mujoco = sim.require_mujoco()
    em = engine_model(EXAMPLES / "arm_6r_generic.toml")
    # link 5 has zero length: the capsules of links 4 and 6 meet at the wrist centre in every pose, so they are
    # excluded; the other non-adjacent links can collide
    assert set(em.collision_pairs) == {("link2", "link4"), ("link2", "link6"), ("link3", "link6")}
    assert ("link4", "link6") not in contact_pairs(em.model)
    raw = engine_model(EXAMPLES / "arm_6r_generic.toml", collisions=False)
    assert raw.collision_pairs == () and "exclude" not in raw.mjcf
    d = mujoco.MjData(em.model)
    for q in np.random.default_rng(5).uniform(-np.pi, np.pi, (10, 6)):
        d.qpos[:] = q
        mujoco.mj_forward(em.model, d)
        bodies = {tuple(sorted(em.model.geom_bodyid[[c.geom1, c.geom2]])) for c in d.contact[: d.ncon]}
        assert (4, 6) not in bodies


def test_a_serial_arm_and_its_urdf(tmp_path):
    from robokin import ur5

    ip = ur5.inertial_parameters()
    text = (EXAMPLES / "ur5_ch05.toml").read_text() + "\n[base]\nxyz_m = [0.1, 0.2, 0.8]\nrpy_deg = [0, 30, 90]\n"
    for i in range(6):
        text += (
            f"\n[links.link{i + 1}]\nmass_kg = {float(ip['masses'][i])!r}\n"
            f"com_m = {[float(x) for x in ip['coms'][i]]}\n"
            f"inertia_kg_m2 = {[[float(x) for x in row] for row in ip['inertias'][i]]}\n"
        )
    toml = tmp_path / "ur5.toml"
    toml.write_text(text)
    assert check_engine_model(toml).passed
    urdf = tmp_path / "ur5.urdf"
    urdf.write_text(serial_urdf(load(toml).extra["as_written"], **ip))
    r = check_engine_model(toml, urdf)
    assert r.passed and max(c.value for c in r.checks) <= 1e-13
    # a modified-DH arm has no generated model, but its URDF is checked
    mdh = load(EXAMPLES / "contest_arm_mdh.toml")
    (tmp_path / "mdh.urdf").write_text(serial_urdf(mdh.extra["as_written"]))
    assert check_engine_model(mdh, tmp_path / "mdh.urdf").passed
    with pytest.raises(ParameterFileError, match="dh.convention"):
        engine_model(mdh)


@pytest.mark.parametrize(
    ("extra", "field", "words"),
    [
        (
            "[links.thigh]\nmass_kg = 1\ninertia_kg_m2 = [0.01, 0.01, 0.001, 0, 0, 0.5]",
            "links.thigh.inertia_kg_m2",
            "not positive definite",
        ),
        (
            "[links.thigh]\nmass_kg = 1\ninertia_kg_m2 = [0.01, 0.01, 0.03, 0, 0, 0]",
            "links.thigh.inertia_kg_m2",
            "triangle inequality",
        ),
        (
            "[links.thigh]\nmass_kg = 1\ninertia_kg_m2 = [[1e-2, 1e-3, 0], [0, 1e-2, 0], [0, 0, 1e-3]]",
            "links.thigh.inertia_kg_m2",
            "not symmetric",
        ),
        ("[links.thigh]\nmass_kg = 1\ninertia_kg_m2 = [0.01, 0.01]", "links.thigh.inertia_kg_m2", "shape [6]"),
        ("[links.thigh]\nmass_kg = -1", "links.thigh.mass_kg", "positive"),
        ("[links.thigh]\ncom_m = [0, 0, -0.1]", "links.thigh.mass_kg", "link mass"),
        ("[links.thigh]\nmass_kg = 1\ncom_cm = [0, 0, -10]", "links.thigh.com_cm", "com_m, com_mm"),
        ("[links.knee]\nmass_kg = 1", "links.knee", "thigh, shank"),
        ("[foot]\nhub_mass_kg = 0", "foot.hub_mass_kg", "positive"),
    ],
)
def test_bad_inertials_name_the_field(extra, field, words):
    with pytest.raises(ParameterFileError) as exc:
        loads(LEG_FILE.read_text() + "\n" + extra + "\n", file="leg.toml")
    assert exc.value.field == field and words in str(exc.value)


def test_bad_fivebar_limits_and_arguments(tmp_path):
    with pytest.raises(ParameterFileError, match="limits.q_max_deg"):
        loads(FIVEBAR_FILE.read_text() + "\n[limits]\nq_min_deg = [-200, -90]\nq_max_deg = [0, -100]\n")
    d = loads(FIVEBAR_FILE.read_text() + "\n[limits]\nq_min_deg = [-200, -90]\nq_max_deg = [0, 20]\n")
    assert np.allclose(engine_model(d).model.jnt_range[[0, 2]], np.deg2rad([[-200, 0], [-90, 20]]))
    with pytest.raises(ParameterFileError, match="family"):
        engine_model(EXAMPLES / "mecanum_ch08.toml")
    with pytest.raises(ValueError, match="collisions"):
        engine_model(FIVEBAR_FILE, collisions="yes")
    for bad in (float("nan"), float("inf"), -1.0, 0.0):
        with pytest.raises(ValueError, match="radius"):
            engine_model(FIVEBAR_FILE, radius=bad)
        with pytest.raises(ValueError, match="g is the gravity"):
            engine_model(FIVEBAR_FILE, g=bad if bad != 0.0 else -9.81)
    with pytest.raises(ValueError, match="actuator"):
        engine_model(FIVEBAR_FILE, actuator="servo")
    with pytest.raises(TypeError, match="params"):
        engine_model(42)
    with pytest.raises(ValueError, match="no such model file"):
        check_engine_model(FIVEBAR_FILE, tmp_path / "missing.urdf")
    with pytest.raises(ValueError, match="no joint 'hip_joint'"):
        check_engine_model(LEG_FILE, joints=("hip_joint", "knee"))
    with pytest.raises(ValueError, match="no site or body 'toe'"):
        check_engine_model(LEG_FILE, foot="toe")
    with pytest.raises(ValueError, match="tol_position"):
        check_engine_model(LEG_FILE, tol_position=0)


def test_a_joint_mapping_for_other_names(leg_files, tmp_path):
    toml, good, _, _ = leg_files
    renamed = tmp_path / "renamed.urdf"
    renamed.write_text(good.read_text().replace('"hip"', '"HipPitch"').replace('"knee"', '"KneePitch"'))
    assert check_engine_model(toml, renamed, joints={"hip": "HipPitch", "knee": "KneePitch"}).passed
    assert check_engine_model(toml, renamed, joints=["HipPitch", "KneePitch"]).passed


# ---- command line ---------------------------------------------------------------------------------------------
def test_cli_engine_check_exit_statuses(leg_files, capsys):
    toml, good, longer, _ = leg_files
    assert cli.main(["engine-check", str(toml), "--model", str(good)]) == 0
    out = capsys.readouterr().out
    assert "foot position" in out and "pass" in out
    assert cli.main(["engine-check", str(toml), "--model", str(longer)]) == 1
    assert "+1 mm" in capsys.readouterr().out
    assert cli.main(["engine-check", str(FIVEBAR_FILE)]) == 0
    capsys.readouterr()
    assert cli.main(["engine-check", str(toml), "--model", str(toml.with_suffix(".xml"))]) == 2
    assert "no such model file" in capsys.readouterr().err
    assert cli.main(["engine-check", str(EXAMPLES / "mecanum_ch08.toml")]) == 2
    assert "engine model" in capsys.readouterr().err
    assert cli.main(["engine-check", str(toml), "--joints", "a,b"]) == 2
    assert "no joint 'a'" in capsys.readouterr().err


def test_cli_view_and_save_a_parameter_file(tmp_path, capsys):
    out = tmp_path / "fb.png"
    assert cli.main(["view", str(FIVEBAR_FILE), "--still", str(out), "--width", "64", "--height", "48"]) == 0
    assert out.stat().st_size > 100
    xml = tmp_path / "fb.xml"
    assert cli.main(["engine-check", str(FIVEBAR_FILE), "--save", str(xml)]) == 0
    capsys.readouterr()
    assert cli.main(["engine-check", str(FIVEBAR_FILE), "--model", str(xml)]) == 0  # the saved MJCF reads back


def test_a_teams_fivebar_mjcf_mistakes_are_named(tmp_path):
    xml = engine_model(FIVEBAR_FILE).mjcf
    cases = {
        "l4": ('<site name="foot_D" pos="0.1 0 0"', '<site name="foot_D" pos="0.101 0 0"'),
        "mass": ('mass="0.08"', 'mass="0.09"'),  # the first is shank C's
    }
    i = xml.index('name="motor_B"')
    flipped = xml[:i] + xml[i:].replace('axis="0.0 -1.0 0.0"', 'axis="0.0 1.0 0.0"', 1)
    files = {"flip": flipped}
    for key, (old, new) in cases.items():
        assert old in xml
        files[key] = xml.replace(old, new, 1)
    found = {}
    for key, text in files.items():
        path = tmp_path / f"{key}.xml"
        path.write_text(text)
        r = check_engine_model(FIVEBAR_FILE, path)
        found[key] = ([c.passed for c in r.checks], r.findings)
    assert found["l4"] == (
        [False, False, False, False, None],
        ("link shank_D (knee D to foot) is 0.101 m long in the model and 0.1 m in the parameter file (+1 mm)",),
    )
    assert found["flip"][0] == [False, False, False, False, None]
    assert found["flip"][1][0].startswith("joint 'motor_B' turns the other way")
    assert found["mass"] == (
        [True, True, False, False, None],
        ("link 'shank_C' has mass 0.09 kg in the model, 0.08 kg in the file",),
    )


def test_a_body_anchored_loop_closure_is_named(tmp_path):
    """A team's five-bar closed with MuJoCo's body-anchored form (<connect body1 body2 anchor>, as in MuJoCo's
    closed-chain tutorials) compiles, but MuJoCo puts the point on body2 where the anchor was at qpos0, where this
    loop is open: the check fails and names that cause. Trips if the finding blames link lengths only, or if the
    generated model (the site form) failed."""
    import re

    xml = engine_model(FIVEBAR_FILE).mjcf
    m = re.search(r'<connect site1="foot_C" site2="foot_D"([^/]*)/>', xml)
    anchored = xml.replace(m.group(0), f'<connect body1="shank_C" body2="shank_D" anchor="0.1 0 0"{m.group(1)}/>')
    path = tmp_path / "body_anchored.xml"
    path.write_text(anchored)
    r = check_engine_model(FIVEBAR_FILE, path)
    assert r.checks[0].passed is False and r.checks[0].value > 1e-3  # the foot is centimetres off
    (finding,) = r.findings
    assert "body-anchored" in finding and "'shank_D'" in finding and "site1=" in finding
    assert "30.0 mm from joint 'knee_D'" in finding and "100.0 mm" in finding  # MuJoCo's point vs the file
    assert check_engine_model(FIVEBAR_FILE, engine_model(FIVEBAR_FILE)).checks[0].passed  # the site form closes


def _posed_body_anchored(q4, *, ref=True, body_anchored=True):
    """The generated five-bar with every body written at joint angles q4 (motor_A, knee_C, motor_B, knee_D),
    each joint's ref at its angle (qpos0 = q4) and the loop closed by a body-anchored connect at shank C's foot."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(engine_model(FIVEBAR_FILE).mjcf)
    names = ["motor_A", "knee_C", "motor_B", "knee_D"]
    for body in root.iter("body"):
        joint = body.find("joint")
        if joint is not None and joint.get("name") in names:
            angle = float(q4[names.index(joint.get("name"))])
            body.set("axisangle", f"0 -1 0 {angle!r}")  # the package's axes are (0, -1, 0)
            if ref:
                joint.set("ref", repr(angle))
    if body_anchored:
        c = root.find("equality").find("connect")
        for k in ("site1", "site2"):
            c.attrib.pop(k)
        c.set("body1", "shank_C")
        c.set("body2", "shank_D")
        c.set("anchor", "0.1 0 0")
    return ET.tostring(root, encoding="unicode")


def test_a_body_anchored_closure_written_closed_passes_and_a_rounded_one_is_named(tmp_path):
    """The body-anchored form is not blamed when qpos0 is a closed pose (trips if the finding fires on the form
    alone); written at a closed pose rounded to 0.01 rad the loop closes 0.4 mm off the foot, the residual is
    zero, and the finding still names the point (trips if it runs only on an open loop)."""
    fb = load(FIVEBAR_FILE).mechanism
    q_closed = sim.fivebar_qpos(fb, fb.ik([0.035, -0.12]).q)
    closed = tmp_path / "closed.xml"
    closed.write_text(_posed_body_anchored(q_closed))
    r = check_engine_model(FIVEBAR_FILE, closed)
    assert r.passed and not r.findings
    rounded = tmp_path / "rounded.xml"
    rounded.write_text(_posed_body_anchored(np.round(q_closed, 2)))
    r = check_engine_model(FIVEBAR_FILE, rounded)
    assert r.checks[0].passed is False
    assert any("body-anchored" in f and "100.4 mm" in f and "100.0 mm" in f for f in r.findings), r.findings
    sites = tmp_path / "rounded_sites.xml"  # the same rounded pose closed with sites: the sites name the foot
    sites.write_text(_posed_body_anchored(np.round(q_closed, 2), body_anchored=False))
    assert not any("body-anchored" in f for f in check_engine_model(FIVEBAR_FILE, sites).findings)


def test_cli_view_of_a_file_without_an_engine_model_and_no_collisions(tmp_path, capsys):
    assert cli.main(["view", str(EXAMPLES / "mecanum_ch08.toml"), "--still", str(tmp_path / "x.png")]) == 2
    assert "engine model" in capsys.readouterr().err
    xml = tmp_path / "plain.xml"
    assert cli.main(["engine-check", str(FIVEBAR_FILE), "--no-collisions", "--save", str(xml)]) == 0
    assert "exclude" not in xml.read_text() and 'contype="1"' not in xml.read_text()
    out = capsys.readouterr().out
    assert "defaulted: limits (none: the motors turn freely)" in out


# ---- a reviewer's team files (tests/verify_fixtures/engine, from a student's URDF/MJCF trial) ------------------
ENG = Path(__file__).parent / "verify_fixtures" / "engine"
TEAM_FB = ENG / "fb.toml"  # an asymmetric five-bar in mm, with inertials and a hub


def test_a_fivebar_whose_knees_have_other_names_closes_its_loop():
    # knees left_knee/right_knee: found by place in the tree (the joint below each hip); the old solver started
    # them at zero and failed (0.238 m)
    r = check_engine_model(TEAM_FB, ENG / "fb_team2.xml", joints="left_hip right_hip".split(), foot="toe")
    assert r.passed and not r.findings, r.table()
    assert r.checks[0].value < 1e-12
    named = {"motor_A": "left_hip", "motor_B": "right_hip", "knee_C": "left_knee", "knee_D": "right_knee"}
    assert check_engine_model(TEAM_FB, ENG / "fb_team2.xml", joints=named, foot="toe").passed
    four = ["left_hip", "right_hip", "left_knee", "right_knee"]
    assert check_engine_model(TEAM_FB, ENG / "fb_team2.xml", joints=four, foot="toe").passed
    with pytest.raises(ValueError, match="no passive joint 'nope' for knee_C"):
        check_engine_model(TEAM_FB, ENG / "fb_team2.xml", joints={**named, "knee_C": "nope"}, foot="toe")


def test_a_flipped_passive_knee_axis_is_equivalent_and_passes():
    r = check_engine_model(TEAM_FB, ENG / "f_flipkC.xml")  # knee_C axis 0 1 0: the same mechanism
    assert r.passed, r.table()


def test_a_loop_that_cannot_close_is_named(tmp_path):
    text = (ENG / "fb_team2.xml").read_text()
    assert text.count('<body name="thigh_B" pos="0.06 0 0">') == 1
    far = tmp_path / "far.xml"  # motors 0.5 m apart: the shanks cannot meet
    far.write_text(text.replace('<body name="thigh_B" pos="0.06 0 0">', '<body name="thigh_B" pos="0.5 0 0">'))
    r = check_engine_model(TEAM_FB, far, joints=["left_hip", "right_hip"], foot="toe")
    assert not r.passed
    assert r.findings[0].startswith("loop closure not satisfied (residual ")
    assert not any("does not follow the package's FK" in f for f in r.findings)
    noeq = tmp_path / "noeq.xml"
    noeq.write_text(text[: text.index("<equality>")] + "</mujoco>\n")
    with pytest.raises(ValueError, match="no loop-closing equality"):
        check_engine_model(TEAM_FB, noeq, joints=["left_hip", "right_hip"], foot="toe")


def test_the_mass_matrix_is_checked_and_an_inertia_about_the_joint_is_named():
    # leg, arm, five-bar: the file's tensors against MuJoCo's mj_fullM (reduced to the motors for the five-bar)
    ok = {"leg": ("leg.toml", "l_fixed_ok.urdf"), "arm": ("arm.toml", "arm.urdf"), "fb": ("fb.toml", "f_flipkC.xml")}
    for toml, model in ok.values():
        r = check_engine_model(ENG / toml, ENG / model)
        assert r.passed and r.checks[3].name == "mass matrix" and r.checks[3].value < 1e-15, r.table()
    bad = {
        "l_injoint.urdf": ("leg.toml", "links 'thigh' and 'shank' explain"),
        "a_injoint.urdf": ("arm.toml", "link 'link2' explains"),
        "f_injoint.xml": ("fb.toml", "link 'shank_C' (or 'wheel': they turn together here) explains"),
    }
    for model, (toml, words) in bad.items():
        r = check_engine_model(ENG / toml, ENG / model)
        assert [c.passed for c in r.checks][:4] == [True, True, True, False], (model, r.table())
        assert words in r.findings[0] and "about the joint" in r.findings[0], r.findings


def test_centres_of_mass_are_compared_in_the_world_and_name_the_right_link():
    assert check_engine_model(ENG / "arm.toml", ENG / "arm.urdf").passed  # hand-written URDF frames, no finding
    r = check_engine_model(ENG / "arm.toml", ENG / "a_comdh.urdf")  # link2's COM written in its DH frame
    com = [f for f in r.findings if "centre of mass" in f]
    assert len(com) == 1 and com[0].startswith("link 'link2' has its centre of mass at"), r.findings
    r = check_engine_model(ENG / "leg.toml", ENG / "l_comsign.urdf")  # shank COM +z instead of -z
    assert [f for f in r.findings if "centre of mass" in f][0].startswith("link 'shank' has its centre")


def test_the_hub_at_the_foot_is_compared_with_hub_mass_whatever_its_name(tmp_path):
    text = (ENG / "fb_team2.xml").read_text()
    args = {"joints": ["left_hip", "right_hip"], "foot": "toe"}
    heavy = tmp_path / "heavy.xml"  # shank C 10 g heavier; the hub body is called 'wheel'
    assert text.count('mass="0.04"') == 1 and text.count('mass="0.3"') == 1
    heavy.write_text(text.replace('mass="0.04"', 'mass="0.05"'))
    r = check_engine_model(TEAM_FB, heavy, **args)
    assert r.findings[0] == "link 'shank_C' has mass 0.05 kg in the model, 0.04 kg in the file"
    assert not any("wheel" in f for f in r.findings), r.findings
    hub = tmp_path / "hub.xml"
    hub.write_text(text.replace('mass="0.3"', 'mass="0.4"'))
    r = check_engine_model(TEAM_FB, hub, **args)
    assert "body 'wheel' at the foot (the hub motor) has mass 0.4 kg in the model, 0.3 kg in the file" in r.findings[0]


def test_joint_limits_in_degrees_are_named():
    r = check_engine_model(ENG / "leg.toml", ENG / "l_deg.urdf")  # <limit lower="-60" upper="60"/>: degrees
    assert r.checks[4].name == "joint limits" and r.checks[4].passed is False and not r.passed
    assert r.findings[0].startswith("joint 'hip' has the range [-60, 60] in the model, 57.3x the file's")
    assert r.findings[0].endswith("degrees where radians are expected")
    r = check_engine_model(ENG / "arm.toml", ENG / "a_deg.urdf")  # joint3 alone in degrees
    assert [f.split()[1] for f in r.findings] == ["'joint3'"]
    ok = check_engine_model(ENG / "leg.toml", ENG / "l_fixed_ok.urdf")
    assert ok.checks[4].passed and ok.checks[4].value < 1e-12


def test_leg_limits_need_both_ends_and_are_named_as_written():
    text = (ENG / "leg.toml").read_text()
    assert "q_max_deg = [60, 150]\n" in text
    with pytest.raises(ParameterFileError) as exc:  # was: 'NoneType' object is not iterable
        loads(text.replace("q_max_deg = [60, 150]\n", ""), file="onlymin.toml")
    assert exc.value.field == "leg.q_max" and "leg.q_min_deg is given" in str(exc.value)
    assert str(exc.value).startswith("onlymin.toml: ")
    with pytest.raises(ParameterFileError) as exc:
        loads(text.replace("q_max_deg = [60, 150]", "q_max_deg = [-70, 150]"), file="swap.toml")
    assert exc.value.field == "leg.q_max_deg" and exc.value.value == [-70, 150]


def test_swapped_joints_are_named_with_the_order_that_passes():
    r = check_engine_model(ENG / "leg.toml", ENG / "l_swapnames.urdf")  # the URDF calls its hip 'knee'
    assert r.findings == ("joints 'hip' and 'knee' look swapped: --joints knee,hip passes",)
    assert check_engine_model(ENG / "leg.toml", ENG / "l_swapnames.urdf", joints=["knee", "hip"]).passed
    r = check_engine_model(ENG / "arm.toml", ENG / "arm.urdf", joints=["joint2", "joint3", "joint1"])
    assert r.findings == ("the joint order looks wrong: --joints joint1,joint2,joint3 passes",)
    r = check_engine_model(TEAM_FB, ENG / "fb_team2.xml", joints=["right_hip", "left_hip"], foot="toe")
    assert r.findings == ("joints 'right_hip' and 'left_hip' look swapped: --joints left_hip,right_hip passes",)


def test_wording_of_team_mistakes(tmp_path, capsys):
    for toml, model in (("leg.toml", "l_mm.urdf"), ("fb.toml", "f_mm.xml")):  # one line, not one per link
        r = check_engine_model(ENG / toml, ENG / model)
        assert r.findings == (
            "all lengths are 1000x the file's: model in millimetres? (URDF and MJCF lengths are in metres)",
        )
    with pytest.raises(ValueError, match=r"joint 'knee' is missing: the model has 1 hinge joint\(s\) \['hip'\]"):
        check_engine_model(ENG / "leg.toml", ENG / "l_missing.urdf")  # the knee written as a fixed joint
    with pytest.raises(ParameterFileError) as exc:  # link3 gives mass_kg only
        engine_model(ENG / "arm_masonly.toml")
    assert exc.value.field == "links.link3.com_m" and "com_m and inertia_kg_m2 with mass_kg" in str(exc.value)
    r = check_engine_model(ENG / "leg_thighonly.toml", ENG / "l_fixed_ok.urdf")
    assert r.checks[2].detail == "the file gives no inertials ([links.shank])"
    assert r.checks[3].detail == "inertia tensor not checked: the file gives no [links.shank]"
    with pytest.raises(ValueError, match="--joints"):
        check_engine_model(ENG / "leg.toml", ENG / "l_fixed_ok.urdf", joints=["hip"])
    # defaulted: lines describe the generated model; not printed for a team's own file
    assert cli.main(["engine-check", str(ENG / "leg_thighonly.toml")]) == 0
    assert "defaulted: links.shank (placeholder rod" in capsys.readouterr().out
    cli.main(["engine-check", str(ENG / "leg_thighonly.toml"), "--model", str(ENG / "l_fixed_ok.urdf")])
    assert "defaulted" not in capsys.readouterr().out


def test_the_pages_example_output_and_check_list(leg_files):
    page = (Path(__file__).resolve().parents[1] / "book" / "your_robot.md").read_text(encoding="utf-8")
    section = page[page.index("## Your robot in MuJoCo") :]
    block = section[section.index("```text\n") + 8 :]
    shown = block[: block.index("```")].strip().splitlines()
    toml, _, longer, _ = leg_files
    r = check_engine_model(toml, longer)
    assert shown == [f"finding: {f}" for f in r.findings]
    names = [c.name for c in r.checks]
    assert section.index("Five checks") and len(names) == 5
    for name in names:
        assert f"**{name}**" in section
    assert 'fusestatic="false"' in section and "robokin.urdf.serial_urdf" in section
    swap = check_engine_model(ENG / "leg.toml", ENG / "l_swapnames.urdf").findings[0]
    assert f"`{swap}`" in " ".join(section.split())


def test_a_generated_fivebar_has_an_assembled_keyframe_for_view_still(tmp_path):
    import mujoco

    m = engine_model(TEAM_FB).model
    assert m.nkey == 1  # qpos0 is the open zero pose: the shanks' feet 0.2 m apart
    d = mujoco.MjData(m)
    gap = {}
    for label, qpos in (("zero", m.qpos0), ("key", m.key_qpos[0])):
        d.qpos[:] = qpos
        mujoco.mj_forward(m, d)
        gap[label] = float(np.linalg.norm(d.site("foot_C").xpos - d.site("foot_D").xpos))
    assert gap["key"] < 1e-12 < 0.01 < gap["zero"]
    assert cli.main(["view", str(TEAM_FB), "--still", str(tmp_path / "fb.png"), "--width", "64", "--height", "48"]) == 0


def test_a_knee_off_the_link_axis_is_named_not_a_tiny_length_error(leg_files, tmp_path):
    toml, good, _, _ = leg_files
    urdf = good.read_text()
    i = urdf.index(KNEE)
    assert urdf[i:].count('xyz="0 0 -0.21"') >= 1
    off = tmp_path / "off.urdf"  # the knee 1 mm forward of the thigh's axis: its length changes by 2.4 um only
    off.write_text(urdf[:i] + urdf[i:].replace('xyz="0 0 -0.21"', 'xyz="0.001 0 -0.21"', 1))
    r = check_engine_model(toml, off)
    assert r.findings[0].startswith("link thigh (hip to knee): its far joint is 1 mm off the link's axis"), r.findings
    assert not any("long in the model" in f for f in r.findings)


def test_an_arms_link_lengths_are_compared_with_the_dh_table():
    r = check_engine_model(ENG / "arm.toml", ENG / "a_len1.urdf")  # a2 1 mm long
    assert r.findings == (
        "the axes of joints 'joint2' and 'joint3' are 0.121 m apart in the model and 0.12 m in the DH table (+1 mm)",
    )
    r = check_engine_model(ENG / "arm.toml", ENG / "a_len10.urdf")  # the tool 10 mm further out
    assert r.findings[0].startswith("the tool point is 0.14 m from the axis of joint 'joint3' in the model and 0.13 m")


def test_a_fivebar_without_a_knee_joint_says_it_is_missing():
    with pytest.raises(ValueError, match="joint knee_D is missing: the model has no passive joint below 'motor_B'"):
        check_engine_model(TEAM_FB, ENG / "f_missing.xml")  # the knee D <joint> left out
    r = check_engine_model(ENG / "leg.toml", ENG / "l_swapnames.urdf", joints=["hip", "knee"])
    assert r.findings == ("joints 'hip' and 'knee' look swapped: --joints knee,hip passes",)


def test_a_flipped_hip_is_named_alone():  # not also as a knee off the thigh's axis
    r = check_engine_model(ENG / "leg.toml", ENG / "l_hipflip.urdf")
    assert r.findings == (
        "joint 'hip' turns the other way: its axis is flipped (reverse the sign of its axis, or of its angle)",
    )


def test_armature_is_left_out_of_the_mass_matrix(tmp_path):
    text = (ENG / "fb_team2.xml").read_text()
    arm = tmp_path / "armature.xml"  # rotor inertia on both motors: not part of the package's M(q)
    arm.write_text(text.replace('name="left_hip" type="hinge"', 'name="left_hip" type="hinge" armature="1e-4"'))
    r = check_engine_model(TEAM_FB, arm, joints=["left_hip", "right_hip"], foot="toe")
    assert r.checks[3].passed and r.checks[3].detail == "the model's armature (rotor inertia) is left out"


# ---- the wheel-legged robot (family wheel_leg): the whole robot of chapter 13, its body pinned for the check ----
WHEEL_LEG = EXAMPLES / "wheel_leg_ch04.toml"


def _wl_variant(tmp_path, name, edit):
    """The generated wheel-legged MJCF with one edit, as a team's own file."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(engine_model(WHEEL_LEG).mjcf)

    def el(tag, nm):
        return next(e for e in root.iter(tag) if e.get("name") == nm)

    edit(root, el)
    path = tmp_path / f"{name}.xml"
    path.write_text(ET.tostring(root, encoding="unicode"))
    return path


@pytest.mark.parametrize("file", ["wheel_leg_ch04.toml", "wheel_leg_light.toml"])
def test_the_wheel_legged_robot_matches_the_package_to_round_off(file):
    # both legs' feet over the five-bar grid, J^T F, gravity and the 4x4 mass matrix of the motors: a leg built
    # with other link masses, lengths or wheel inertia than wheel_leg_mjcf's fails one of these (below)
    r = check_engine_model(EXAMPLES / file)
    assert r.passed and r.findings == ()
    values = {c.name: c.value for c in r.checks}
    assert values["foot position"] < 1e-15 and values["static torques"] < 1e-13
    assert values["gravity torques"] < 1e-13 and values["mass matrix"] < 1e-15
    assert r.samples % 2 == 0 and r.samples >= 20  # both legs, each over the same five-bar grid


def test_the_wheel_legged_model_is_chapter_13s_robot_with_link_collisions():
    em = engine_model(WHEEL_LEG)
    d = load(WHEEL_LEG)
    ref = sim.wheel_leg_model(d.mechanism, d.extra["linkage"], radius=0.008)  # engine_model's default capsules
    assert em.model.nq == ref.nq == 17 and em.model.nu == ref.nu == 6
    assert np.allclose(em.model.body_mass, ref.body_mass) and np.allclose(em.model.body_inertia, ref.body_inertia)
    assert em.joints == sim.WHEEL_LEG_ACTUATORS
    pairs = set(em.collision_pairs)
    assert ("L_thigh_A", "L_thigh_B") in pairs and ("world", "R_wheel") in pairs
    assert not any(a[:2] != b[:2] and "world" not in (a, b) for a, b in pairs)  # never one leg with the other
    assert ("L_shank_C", "L_shank_D") not in pairs and ("L_wheel", "L_shank_D") not in pairs
    # standing at every leg length of the file's range: the tyres touch the ground, no link touches another
    import mujoco

    data = mujoco.MjData(em.model)
    for L0 in np.linspace(d.extra["leg"]["length_min"], d.extra["leg"]["length_max"], 5):
        sim.wheel_leg_pose(em.model, data, d.mechanism, d.extra["linkage"], L0=float(L0))
        touching = {
            tuple(
                sorted(
                    (
                        em.model.body(int(em.model.geom_bodyid[c.geom1])).name,
                        em.model.body(int(em.model.geom_bodyid[c.geom2])).name,
                    )
                )
            )
            for c in data.contact[: data.ncon]
        }
        assert touching <= {("L_wheel", "world"), ("R_wheel", "world")}, (L0, touching)
    assert engine_model(WHEEL_LEG, collisions=False).collision_pairs == ()


def _axis(edit_name, axis):
    return lambda root, el: el("joint", edit_name).set("axis", axis)


def _shank(root, el):
    el("site", "R_foot_D").set("pos", "0.26 0 0")
    el("body", "R_shank_D").find("geom").set("fromto", "0 0 0 0.26 0 0")


def _lift(root, el):
    for s in ("L_", "R_"):
        for k in ("thigh_A", "thigh_B"):
            b = el("body", s + k)
            x = [float(v) for v in b.get("pos").split()]
            b.set("pos", " ".join(map(repr, [x[0], x[1], x[2] + 0.02])))


def _swap(root, el):
    a, b = el("joint", "R_motor_A"), el("joint", "R_motor_B")
    a.set("name", "tmp")
    b.set("name", "R_motor_A")
    a.set("name", "R_motor_B")


@pytest.mark.parametrize(
    ("edit", "failed", "words"),
    [
        (_axis("L_motor_B", "0 1 0"), "foot position", "joint 'L_motor_B' turns the other way"),
        (_shank, "foot position", "the right leg's shank_D 'R_shank_D' (knee D to foot) is 0.26 m long in the model"),
        (
            lambda r, el: el("body", "L_thigh_A").find("inertial").set("mass", "0.5"),
            "gravity torques",
            "link 'L_thigh_A' has mass 0.5 kg in the model, 0.1125 kg in the file",
        ),
        (
            lambda r, el: el("body", "R_wheel").find("inertial").set("mass", "1.0"),
            "gravity torques",
            "(half of wheel.mass_kg)",
        ),
        (
            lambda r, el: el("body", "L_wheel").find("inertial").set("diaginertia", "0.0012 0.002 0.0012"),
            "mass matrix",
            "'L_wheel': they turn together here",
        ),
        (_lift, "foot position", "both legs' motors sit [0.0, 0.0, 0.02] m from the origin of the body 'torso'"),
        (_swap, "foot position", "--joints L_motor_A,L_motor_B,R_motor_B,R_motor_A passes"),
    ],
    ids=["flipped-motor", "long-shank", "thigh-mass", "wheel-mass", "wheel-spin", "hip-offset", "swapped"],
)
def test_a_teams_wheel_legged_mjcf_mistakes_are_named(tmp_path, edit, failed, words):
    r = check_engine_model(WHEEL_LEG, _wl_variant(tmp_path, "team", edit))
    verdict = {c.name: c.passed for c in r.checks}
    assert verdict[failed] is False and not r.passed
    assert any(words in f for f in r.findings), r.findings


def test_the_swapped_order_it_suggests_passes(tmp_path):
    path = _wl_variant(tmp_path, "team", _swap)
    assert check_engine_model(WHEEL_LEG, path, joints=("L_motor_A", "L_motor_B", "R_motor_B", "R_motor_A")).passed


def test_a_fixed_body_and_other_names_are_fine(tmp_path):
    def fixed(root, el):
        t = el("body", "torso")
        t.remove(t.find("freejoint"))
        root.remove(root.find("keyframe"))  # its qpos holds the free joint's 7 numbers

    assert check_engine_model(WHEEL_LEG, _wl_variant(tmp_path, "fixed", fixed)).passed
    assert check_engine_model(WHEEL_LEG, foot="L_wheel,R_wheel").passed  # the wheel bodies as the feet

    def rename(root, el):
        for j in root.iter("joint"):
            if j.get("name", "").startswith("L_"):
                j.set("name", "left_" + j.get("name")[2:])
        for a in root.iter("motor"):
            if a.get("joint", "").startswith("L_"):
                a.set("joint", "left_" + a.get("joint")[2:])

    path = _wl_variant(tmp_path, "renamed", rename)
    with pytest.raises(ValueError, match="no joint 'L_motor_A'.*--joints"):
        check_engine_model(WHEEL_LEG, path)
    names = {k: "left_" + k[2:] for k in ("L_motor_A", "L_motor_B", "L_knee_C", "L_knee_D")}
    assert check_engine_model(WHEEL_LEG, path, joints=names).passed


def test_wheel_legged_bad_input_is_named(tmp_path):
    def second(root, el):
        import xml.etree.ElementTree as ET

        b = ET.SubElement(root.find("worldbody"), "body", name="box", pos="1 0 1")
        ET.SubElement(b, "freejoint")
        ET.SubElement(b, "geom", type="box", size=".1 .1 .1")

    with pytest.raises(ValueError, match="2 free joints .*'torso', 'box'"):
        check_engine_model(WHEEL_LEG, _wl_variant(tmp_path, "two", second))
    with pytest.raises(ValueError, match="two feet, 'LEFT,RIGHT'"):
        check_engine_model(WHEEL_LEG, foot="L_foot_C")
    with pytest.raises(ValueError, match="actuator: a wheel_leg model has torque motors"):
        engine_model(WHEEL_LEG, actuator="position")


def test_cli_engine_check_of_a_wheel_legged_robot(tmp_path, capsys):
    assert cli.main(["engine-check", str(WHEEL_LEG)]) == 0
    out = capsys.readouterr().out
    assert "foot position" in out and "pass" in out and "defaulted: track 0.4 m" in out
    path = _wl_variant(tmp_path, "team", _axis("L_motor_B", "0 1 0"))
    assert cli.main(["engine-check", str(WHEEL_LEG), "--model", str(path)]) == 1
    assert "turns the other way" in capsys.readouterr().out


# ---- a team's own wheel-legged MJCF (tests/verify_fixtures/engine/wheel_leg_team.py, review R9's) -----------------
TEAM_JOINTS = ("Lf_hipA", "Lf_hipB", "Rt_hipA", "Rt_hipB")


def _team(tmp_path, *mistakes):
    import importlib.util

    spec = importlib.util.spec_from_file_location("wheel_leg_team", ENG / "wheel_leg_team.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    path = tmp_path / ("team_" + "_".join(mistakes or ("ok",)) + ".xml")
    path.write_text(mod.build(list(mistakes)))
    return check_engine_model(WHEEL_LEG, path, joints=TEAM_JOINTS, foot="Lf_toeC,Rt_toeC")


def test_a_teams_own_wheel_legged_mjcf_passes_with_its_body_and_track(tmp_path):
    r = _team(tmp_path)
    assert r.passed and r.findings == (), r.findings
    rows = {c.name: c for c in r.checks}
    # the generated torso's inertial is the body alone (legs and wheels are their own bodies): 0 off [body]
    gen = {c.name: c for c in check_engine_model(WHEEL_LEG).checks}
    for name in ("body mass", "body com", "body pitch inertia", "leg sides", "wheel radius"):
        assert rows[name].passed and gen[name].passed and gen[name].value < 1e-12, name
    assert "track 0.36 m" in rows["leg sides"].detail and "track 0.4 m" in gen["leg sides"].detail


@pytest.mark.parametrize(
    ("mistake", "row", "words"),
    [
        ("body_mass", "body mass", "the body 'chassis' (with what is fixed to it; the legs and wheels are their own"),
        ("body_com", "body com", "centre of mass at [0.0, 0.0, 0.2] m from the hip axis"),
        ("swap_LR", "leg sides", "the legs look swapped: the left leg is at y = -0.18 m"),
        ("radius", "wheel radius", "wheel 'Lf_whl' has radius 0.09 m in the model, 0.06 m in the file"),
        ("limits", "joint limits", "'Lf_hipA' has the range [-180, 180] in the model, wider than a turn"),
        ("torso_origin", "foot position", "both legs' motors sit [0.0, 0.0, -0.05] m from the origin of the body"),
        ("mass_shank", "gravity torques", "'Lf_shC' has mass 0.28125 kg in the model, 0.1875 kg in the file (shank_C"),
        ("mass_wheel", "gravity torques", "wheel 'Rt_whl' has mass 0.96 kg in the model, 0.8 kg in the file (half of"),
    ],
)
def test_a_teams_wheel_legged_body_sides_tyres_and_links_are_named(tmp_path, mistake, row, words):
    # each of these passed before the body, side and tyre rows (or was named with the generated body names)
    r = _team(tmp_path, mistake)
    assert {c.name: c.passed for c in r.checks}[row] is False and not r.passed
    assert any(words in f for f in r.findings), r.findings
    assert not any("that the parameter file does not" in f or "hub motor" in f for f in r.findings), r.findings
    assert not any("-0.0," in f or "-0.0]" in f for f in r.findings), r.findings


def test_a_wheel_legged_body_mass_of_the_generated_model_is_checked(tmp_path):
    path = _wl_variant(tmp_path, "heavy", lambda r, el: el("body", "torso").find("inertial").set("mass", "6"))
    r = check_engine_model(WHEEL_LEG, path)
    assert {c.name: c.passed for c in r.checks}["body mass"] is False
    assert any("has mass 6 kg in the model, 12 kg in the file (body.mass_kg)" in f for f in r.findings)


def test_wheel_legged_legs_given_in_the_wrong_order_are_named():
    # the legs' joints given right leg first: each foot's plane comes from its own motor, so the order is found
    r = check_engine_model(WHEEL_LEG, joints=("R_motor_A", "R_motor_B", "L_motor_A", "L_motor_B"))
    assert r.findings == ("the joint order looks wrong: --joints L_motor_A,L_motor_B,R_motor_A,R_motor_B passes",)


def test_a_mirrored_wheel_leg_is_named(tmp_path):
    def mirrored(root, el):
        for j in ("R_motor_A", "R_motor_B"):
            el("joint", j).set("axis", "0 1 0")

    r = check_engine_model(WHEEL_LEG, _wl_variant(tmp_path, "mirror", mirrored))
    assert any("both motors of the right leg ('R_motor_A' and 'R_motor_B') turn the other way" in f for f in r.findings)


def test_a_wheel_leg_off_the_hip_axis_is_named_by_its_side(tmp_path):
    def low(root, el):  # the left leg's two motors 10 mm below the body's origin, the right leg's on it
        for k in ("thigh_A", "thigh_B"):
            b = el("body", "L_" + k)
            x = [float(v) for v in b.get("pos").split()]
            b.set("pos", " ".join(map(repr, [x[0], x[1], x[2] - 0.01])))

    r = check_engine_model(WHEEL_LEG, _wl_variant(tmp_path, "low", low))
    assert any(
        "the left leg's motors 'L_motor_A' and 'L_motor_B' sit [0.0, 0.0, -0.01] m off the hip axis" in f
        and "where the right leg's motors are" in f
        for f in r.findings
    ), r.findings
    assert not any("base is offset" in f for f in r.findings)


def test_a_wheel_without_a_tyre_geom_says_its_radius_is_not_checked(tmp_path):
    def bare(root, el):
        for s in ("L_", "R_"):
            w = el("body", s + "wheel")
            w.remove(w.find("geom"))

    rows = {c.name: c for c in check_engine_model(WHEEL_LEG, _wl_variant(tmp_path, "bare", bare)).checks}
    assert rows["wheel radius"].passed is None and "not checked" in rows["wheel radius"].detail


def test_the_generated_wheel_legged_model_has_a_standing_keyframe():
    import mujoco

    em, d = engine_model(WHEEL_LEG), load(WHEEL_LEG)
    assert em.model.nkey == 1 and em.model.key(0).name == "standing"
    data = mujoco.MjData(em.model)
    data.qpos[:] = em.model.key_qpos[0]
    mujoco.mj_forward(em.model, data)
    ref = mujoco.MjData(em.model)
    L0 = 0.5 * (d.extra["leg"]["length_min"] + d.extra["leg"]["length_max"])
    sim.wheel_leg_pose(em.model, ref, d.mechanism, d.extra["linkage"], L0=L0)
    assert np.allclose(data.qpos, ref.qpos, atol=1e-12)
    for s in ("L_", "R_"):  # loops closed, tyres on the ground, body above it
        gap = data.site(s + "foot_C").xpos - data.site(s + "foot_D").xpos
        assert np.linalg.norm(gap) < 1e-9 and abs(data.body(s + "wheel").xpos[2] - d.mechanism.R) < 1e-9
    assert np.allclose(em.model.qpos0, engine_model(WHEEL_LEG, collisions=False).model.qpos0)


def test_engine_check_help_names_the_wheel_legged_family(capsys):
    with pytest.raises(SystemExit):
        cli.main(["engine-check", "--help"])
    assert "serial_arm or wheel_leg" in " ".join(capsys.readouterr().out.split())


def test_the_page_names_the_wheel_legged_rows_and_what_is_not_checked():
    page = (Path(__file__).resolve().parents[1] / "book" / "your_robot.md").read_text(encoding="utf-8")
    text = " ".join(page[page.index("A `wheel_leg` file gives") :].split())
    text = text[: text.index("(your-robot-conventions)=")]
    extra = [c.name for c in check_engine_model(WHEEL_LEG).checks][5:]
    assert extra == ["body mass", "body com", "body pitch inertia", "leg sides", "wheel radius"]
    for name in extra:
        assert f"**{name}**" in text, name
    assert "`standing` keyframe" in text and "Not checked: the track itself" in text
