"""Parameter files (robokin.params): the shipped examples rebuild the reference robots, and broken files fail
with one ParameterFileError naming the field."""

from __future__ import annotations

import dataclasses
import re
import zlib
from pathlib import Path

import numpy as np
import pytest

from robokin import params, robots
from robokin.params import ParameterFileError
from robokin.serial import SerialArm
from robokin.ur5 import URArm

EX = params.EXAMPLES


def same(a, b):
    """Field-by-field equality of two robokin dataclasses (arrays compared exactly)."""
    if type(a) is not type(b):
        return False
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if x is None or y is None or not np.array_equal(np.asarray(x), np.asarray(y)):
                return False
        elif x != y:
            return False
    return True


REFERENCE = {
    "leg2_ch02.toml": robots.LEG2,
    "leg2_limited_ch02.toml": robots.LEG2_LIMITED,
    "fivebar_ch03.toml": robots.FIVEBAR,
    "wheel_leg_ch04.toml": robots.WHEEL_LEG,
    "ur5_ch05.toml": robots.UR5,
    "mecanum_ch08.toml": robots.CHASSIS,
    "stewart_ch09.toml": robots.STEWART,
    "stewart_uniform_ch09.toml": robots.STEWART_UNIFORM,
    "arm2_ch11.toml": robots.ARM2,
}


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_reference_example_rebuilds_the_reference_robot(name):
    design = params.load(EX / name)
    ref = REFERENCE[name]
    assert same(design.mechanism, ref), (design.mechanism, ref)
    assert not same(design.mechanism, _nudged(ref))  # the comparison can fail


def _nudged(obj):
    """A copy with the first field that accepts it changed by 1 %."""
    for f in dataclasses.fields(obj):
        v = getattr(obj, f.name)
        if isinstance(v, (float, np.ndarray)) and not isinstance(v, bool):
            try:
                return dataclasses.replace(obj, **{f.name: v * 1.01 + 1e-3})
            except ValueError:
                continue
    raise AssertionError("nothing to nudge")


def test_every_robot_of_robots_py_has_an_example():
    names = {id(v) for v in REFERENCE.values()}
    missing = [n for n in robots.__all__ if n not in ("ur5_inertials", "STEWART_PAYLOAD", "WHEEL_LEG_FIVEBAR")]
    missing = [n for n in missing if id(getattr(robots, n)) not in names]
    assert not missing


def test_secondary_reference_data():
    wl = params.load(EX / "wheel_leg_ch04.toml")
    assert same(wl.extra["linkage"], robots.WHEEL_LEG_FIVEBAR)
    st = params.load(EX / "stewart_ch09.toml")
    assert same(st.extra["payload"], robots.STEWART_PAYLOAD)
    task = params.load(EX / "contest_ch06.toml")
    assert same(task.mechanism, robots.UR5) and task.targets.shape == (5, 4, 4) and task.is_via.sum() == 1


def test_every_family_has_a_reference_and_a_non_reference_example():
    by_family = {}
    for f in params.examples():
        by_family.setdefault(params.load(f).family, []).append(f.name)
    assert set(by_family) == set(params.FAMILIES)
    for fam, files in by_family.items():
        assert fam in ("two_link_arm", "contest") or any(f not in REFERENCE for f in files), fam


def test_units_mm_and_deg_convert_exactly():
    a = params.loads(
        'family = "two_link_leg"\n[leg]\nl1_mm = 250\nl2_m = 0.23\nq_min_deg = [-90, 0]\nq_max_deg = [90, 180]'
    )
    assert a.mechanism.l1 == 0.25 and np.isclose(a.mechanism.q_max[1], np.pi, rtol=0, atol=1e-15)


def test_modified_dh_contest_arm_is_the_file_s_arm_with_analytic_ik():
    rng = np.random.default_rng(30)
    d = params.load(EX / "contest_arm_mdh.toml")
    arm, written = d.mechanism, d.extra["as_written"]
    assert type(arm) is URArm and written.convention == "modified" and not np.allclose(arm.tool, np.eye(4))
    q = rng.uniform(-np.pi, np.pi, (200, 6))
    assert np.abs(arm.fk(q) - written.fk(q)).max() < 1e-14
    res = arm.ik(arm.fk(q[0]))
    assert int(res.valid.sum()) == 8


def test_generic_arm_stays_a_serial_arm():
    d = params.load(EX / "arm_6r_generic.toml")
    assert type(d.mechanism) is SerialArm and d.extra["ur_geometry"] is None


# ---- broken files -----------------------------------------------------------------------------------------------
def _sub(old, new, count=1):
    def f(text):
        assert old in text, old
        return text.replace(old, new, count)

    return f


def _regex(pattern, new):
    def f(text):
        out, k = re.subn(pattern, new, text, count=1, flags=re.M)
        assert k == 1, pattern
        return out

    return f


BROKEN = {
    "fivebar_ch03.toml": [
        (_sub("l1_m = 0.06", ""), "linkage.l1_m"),
        (_sub("l1_m = 0.06", "l1 = 0.06"), "linkage.l1"),
        (_sub("l1_m = 0.06", "l1_cm = 6"), "linkage.l1_cm"),
        (_sub("l1_m = 0.06", 'l1_m = "60 mm"'), "linkage.l1_m"),
        (_sub("l1_m = 0.06", "l1_m = -0.06"), "linkage.l1_m"),
        (_sub("d_m = 0.07", "d_m = 0.5"), "linkage.d_m"),  # cannot close: d > l1 + l2 + l3 + l4
        (_sub("l3_m = 0.10", "l3_m = 0.50"), "linkage.l3_m"),  # |l3 - l4| > d + l1 + l2
        (_sub("l1_m = 0.06", "l1_m = 0.06\nl1_mm = 60"), "linkage.l1_mm"),
        (_sub('family = "fivebar"', 'family = "five_bar"'), "family"),
        (_sub("efficiency = 0.85", "efficiency = 1.5"), "gearbox.efficiency"),
        (_sub("height_max_m = 0.15", "height_max_m = 0.30"), "load.height_max_m"),
        (_sub("height_max_m = 0.15", "height_max_m = 0.05"), "load.height_max_m"),
        (_sub("[motor]\nstall_torque_N_m = 3.0\nno_load_speed_rad_s = 220.0\n", ""), "motor"),
        (_sub("legs = 2", "legs = 2.5"), "load.legs"),
        (_sub('assembly = "down"', 'assembly = "sideways"'), "workspace.assembly"),
        (_sub("[linkage]", "[linkage\n"), "<toml>"),
        (_sub("[workspace]", "[workspaces]"), "workspaces"),
        (_sub("stall_torque_N_m = 3.0", "stall_torque_N_m = nan"), "motor.stall_torque_N_m"),
    ],
    "leg2_limited_ch02.toml": [
        (_sub("l2_m = 0.19", ""), "leg.l2_m"),
        (_sub("l2_m = 0.19", "l2_m = 0"), "leg.l2_m"),
        (_sub("l2_m = 0.19", "l2_m = true"), "leg.l2_m"),
        (_sub("l2_m = 0.19", "l2_in = 7.5"), "leg.l2_in"),
        (_sub("q_min_rad = [-1.2, 0.3]", "q_min_rad = [-1.2]"), "leg.q_min_rad"),
        (_sub("q_min_rad = [-1.2, 0.3]", "q_min_rad = [-1.2, 3.0]"), "leg.q_max_rad"),
        (_sub("q_max_rad = [1.2, 2.7]", "q_max_rad = [1.2, 270]"), "leg.q_max_rad"),
        (_sub("q_max_rad = [1.2, 2.7]", "q_max_deg = [1.2, 2.7]\nq_max_rad = [1, 2]"), "leg.q_max"),
        (_sub("[leg]", "[legs]"), "legs"),
        (_sub("l1_m = 0.21", "l1_m = 0.21 0.2"), "<toml>"),
        (_sub("q_min_rad = [-1.2, 0.3]", 'q_min_rad = ["a", "b"]'), "leg.q_min_rad"),
        (_sub('name = "Chapter 2 leg with limits (LEG2_LIMITED)"', "name = 3"), "name"),
    ],
    "wheel_leg_ch04.toml": [
        (_sub("mass_kg = 12.0", ""), "body.mass_kg"),
        (_sub("mass_kg = 12.0", "mass_g = 12000"), "body.mass_g"),
        (_sub("spin_inertia_kg_m2 = 0.00288", "spin_inertia_kg_m2 = 0.01"), "wheel.spin_inertia_kg_m2"),
        (_sub("length_max_m = 0.34", "length_max_m = 0.10"), "leg.length_max_m"),
        (_sub("length_max_m = 0.34", "length_max_m = 0.45"), "leg.length_max_m"),
        (_sub("length_min_m = 0.12", "length_min_m = 0.01"), "leg.length_min_m"),
        (_sub("radius_m = 0.06", "radius_m = -0.06"), "wheel.radius_m"),
        (_sub("hip_torque_max_N_m = 10.0", ""), "motor.hip_torque_max_N_m"),
        (lambda t: t.split("[motor]")[0], "motor"),  # [motor] is the last table
        (_sub("d_m = 0.108", "d_m = 2.0"), "linkage.d_m"),
        (_sub("pitch_inertia_kg_m2 = 0.25", "pitch_inertia_kg_m2 = [0.25]"), "body.pitch_inertia_kg_m2"),
        (_sub("com_height_m = 0.03", "com_height = 0.03"), "body.com_height"),
    ],
    "contest_arm_mdh.toml": [
        (_sub("a_mm = [0, 0, -612, -572.3, 0, 0]", "a_mm = [0, 0, -612, -572.3, 0]"), "dh.alpha_deg"),
        (
            _sub("q_min_deg = [-360, -360, -170, -360, -360, -360]", "q_min_deg = [-360, -360, -170, -360, -360]"),
            "limits.q_min_deg",
        ),
        (_sub('convention = "modified"', 'convention = "craig"'), "dh.convention"),
        (_sub('convention = "modified"\n', ""), "dh.convention"),
        (_sub("d_mm = [127.3, 0, 0, 163.941, 115.7, 92.2]", ""), "dh.d_m"),
        (_sub("alpha_deg = [0, 90, 0, 0, 90, -90]", "alpha = [0, 90, 0, 0, 90, -90]"), "dh.alpha"),
        (
            _sub("q_max_deg = [360, 360, 170, 360, 360, 360]", "q_max_deg = [360, 360, -170, 360, 360, 360]"),
            "limits.q_max",
        ),
        (_sub("rpy_deg = [0, 0, 90]", "rpy_deg = [0, 90]"), "base.rpy_deg"),
        (_sub("xyz_mm = [0, 20, 160]", "xyz_mm = 160"), "tool.xyz_mm"),
        (_sub("xyz_mm = [0, 20, 160]", "xyz_mm = [0, 20, 160]\nquat = [1, 0, 0, 0]"), "tool.quat"),
        (_sub("a_mm = [0, 0, -612, -572.3, 0, 0]", "a_mm = []"), "dh.a_mm"),
        (_sub("a_mm = [0, 0, -612, -572.3, 0, 0]", "a_mm = [0, 0, -612, -572.3, 0, [0]]"), "dh.a_mm"),
        (_sub("[limits]", "[limits]\nqd_max_rad_s = [1, 1, 1, 1, 1, 1]"), "limits.qd_max_rad_s"),
        (_sub("[dh]", "[dh]\n[dh]"), "<toml>"),
    ],
    "stewart_ch09.toml": [
        (_sub('kind = "paired"', 'kind = "hexapod"'), "layout.kind"),
        (_sub("top_pair_angle_deg = 20", ""), "layout.top_pair_angle_rad"),
        (_sub("top_pair_angle_deg = 20", "top_pair_angle_deg = 130"), "layout"),
        (_sub("top_pair_angle_deg = 20", "top_pair_angle_deg = 20\nphase_rad = 0.1"), "layout.phase_rad"),
        (_sub("min_m = 0.40", "min_m = 0.70"), "stroke.max_m"),
        (_sub("min_m = 0.40", "min_m = -0.1"), "stroke.min_m"),
        (_sub("home_z_m = 0.5", "home_z_m = 0.9"), "workspace.home_z_m"),
        (_sub("inertia_kg_m2 = [0.25, 0.30, 0.45]", "inertia_kg_m2 = [0.25, 0.30]"), "payload.inertia_kg_m2"),
        (_sub("mass_kg = 12.0", "mass_kg = 0"), "payload.mass_kg"),
        (_sub("base_radius_m = 0.5", "base_radius_m = 0.5\nbase_anchors_m = []"), "layout.base_anchors_m"),
        (_sub("base_radius_m = 0.5", "base_radius = 0.5"), "layout.base_radius"),
        (_sub("[stroke]", "[stroke]\nmid_m = 0.5"), "stroke.mid_m"),
    ],
    "stewart_motion_sim.toml": [
        (_sub("[300, -50, 0], ", ""), "layout.base_anchors_mm"),
        (
            _regex(
                r"^top_anchors_mm = .*$",
                "top_anchors_mm = [[0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]",
            ),
            "layout.top_anchors_mm",
        ),
    ],
    "mecanum_ch08.toml": [
        (_sub("wheel_radius_m = 0.076", ""), "chassis.wheel_radius_m"),
        (_sub("wheel_radius_m = 0.076", "wheel_radius_m = 0"), "chassis.wheel_radius_m"),
        (_sub("wheel_radius_m = 0.076", "wheel_radius_in = 3"), "chassis.wheel_radius_in"),
        (_sub("roller_angle_deg = 45", "roller_angle_deg = 90"), "chassis.roller_angle_deg"),
        (_sub("roller_angle_deg = 45", "roller_angle_deg = -45"), "chassis.roller_angle_deg"),
        (_sub('config = "X"', 'config = "Y"'), "chassis.config"),
        (_sub('config = "X"', "config = 1"), "chassis.config"),
        (_sub("half_track_m = 0.18", "half_track_m = [0.18, 0.18]"), "chassis.half_track_m"),
        (_sub("half_track_m = 0.18", "half_track = 0.18"), "chassis.half_track"),
        (lambda t: t + "\n[motor]\nwheel_speed_max_rpm = 500\n", "motor.wheel_speed_max_rpm"),
        (_sub("wheel_radius_m = 0.076", "wheel_radius_m = 0,076"), "<toml>"),
        (_sub('family = "mecanum"', 'family = "mecanum"\nfamily2 = "x"'), "family2"),
    ],
    "arm2_ch11.toml": [
        (_sub("m1_kg = 1.2", ""), "arm.m1_kg"),
        (_sub("lc1_m = 0.22", "lc1_m = 0.6"), "arm.lc1_m"),
        (_sub("I1_kg_m2 = 0.03", "I1_kg_m2 = -0.03"), "arm.I1_kg_m2"),
        (_sub("l2_m = 0.4", "l2_mm = 400\nl2_m = 0.4"), "arm.l2_mm"),
        (_sub("[arm]", "[arms]"), "arms"),
        (_sub("m2_kg = 0.8", "m2_lb = 1.8"), "arm.m2_lb"),
        (_sub("l1_m = 0.5", 'l1_m = "0.5"'), "arm.l1_m"),
        (_sub("[arm]", "[environment]\ngravity_m_s2 = 0\n[arm]"), "environment.gravity_m_s2"),
        (_sub("I2_kg_m2 = 0.012", "I2_kg_m2 = 1e300"), "arm.I2_kg_m2"),
        (_sub("l1_m = 0.5", "l1_m = inf"), "arm.l1_m"),
    ],
    "contest_ch06.toml": [
        (_sub('arm = "ur5_ch05.toml"', 'arm = "no_such_arm.toml"'), "arm"),
        (_sub('arm = "ur5_ch05.toml"', 'arm = "fivebar_ch03.toml"'), "arm"),
        (_sub('arm = "ur5_ch05.toml"\n', ""), "arm"),
        (_sub("q_rad = [3.0, -1.6, 1.6, -1.5, -1.57, 0.0]", "q_rad = [3.0, -1.6, 1.6]"), "start.q_rad"),
        (
            _sub("q_rad = [3.0, -1.6, 1.6, -1.5, -1.57, 0.0]", "q_rad = [9.0, -1.6, 1.6, -1.5, -1.57, 0.0]"),
            "start.q_rad",
        ),
        (_sub("xyz_m = [0.45, -0.20, 0.30]", "xyz_m = [0.45, -0.20]"), "target[0].xyz_m"),
        (_sub("rpy_rad = [3.141592653589793, 0.0, 0.0]", "rpy = [3.14, 0.0, 0.0]"), "target[0].rpy"),
        (_sub("radius_m = 0.08", "radius_m = -0.08"), "obstacle[0].radius_m"),
        (_sub('kind = "sphere"', 'kind = "cylinder"'), "obstacle[0].kind"),
        (_sub("qd_max_rad_s = [1.0, 1.0, 1.5, 2.0, 2.0, 2.0]", "qd_max_rad_s = [1.0, 1.0]"), "limits.qd_max_rad_s"),
        (_sub("qdd_max_rad_s2 = [2.0, 2.0, 3.0, 4.0, 4.0, 4.0]", ""), "limits.qdd_max_rad_s2"),
        (_sub("decimals = 4", "decimals = 20"), "plan.decimals"),
        (_sub("via = true", 'via = "yes"'), "target[1].via"),
    ],
}
FAMILY_OF = {
    "fivebar_ch03.toml": "fivebar",
    "leg2_limited_ch02.toml": "two_link_leg",
    "wheel_leg_ch04.toml": "wheel_leg",
    "contest_arm_mdh.toml": "serial_arm",
    "stewart_ch09.toml": "stewart",
    "stewart_motion_sim.toml": "stewart",
    "mecanum_ch08.toml": "mecanum",
    "arm2_ch11.toml": "two_link_arm",
    "contest_ch06.toml": "contest",
}
CASES = [(name, i, fn, fld) for name, cases in BROKEN.items() for i, (fn, fld) in enumerate(cases)]


def test_at_least_ten_broken_files_per_family():
    count = {}
    for name, *_ in CASES:
        count[FAMILY_OF[name]] = count.get(FAMILY_OF[name], 0) + 1
    assert set(count) == set(params.FAMILIES) and min(count.values()) >= 10, count


@pytest.mark.parametrize(("name", "i", "mutate", "field"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_broken_file_names_the_field(tmp_path, name, i, mutate, field):
    text = mutate((EX / name).read_text())
    path = tmp_path / name
    path.write_text(text)
    for extra in ("ur5_ch05.toml", "fivebar_ch03.toml"):  # files a contest task refers to
        if extra != name:
            (tmp_path / extra).write_text((EX / extra).read_text())
    with pytest.raises(ParameterFileError) as info:
        params.load(path)
    err = info.value
    assert err.field.startswith(field), (err.field, str(err))
    assert str(path) in str(err) and f"'{err.field}'" in str(err) and "expected" in str(err)
    if field == "<toml>":
        assert "line" in str(err)


def test_the_unbroken_files_load():  # the mutations above are what breaks them
    for name in BROKEN:
        params.load(EX / name)


def test_unreadable_and_wrong_family(tmp_path):
    with pytest.raises(ParameterFileError, match="<file>"):
        params.load(tmp_path / "missing.toml")
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ParameterFileError, match="<file>"):
        params.load(tmp_path / "bin.toml")
    with pytest.raises(ParameterFileError, match="'family'"):
        params.load(EX / "fivebar_ch03.toml", family="stewart")


def test_schema_lists_units():
    rows = params.schema("fivebar")
    keys = [r[0] for r in rows]
    assert "linkage.l1_<unit>" in keys and "motor.stall_torque_<unit>" in keys
    with pytest.raises(ValueError, match="family"):
        params.schema("tripod")


# ---- fuzz: whatever the damage, the documented error or a valid design ---------------------------------------------
_DAMAGE = ("", "-1", "0", "1e300", '"x"', "true", "[1, 2]", "[[1], [2, 3]]", "{ a = 1 }", "1979-05-27", "nan", "[")


@pytest.mark.parametrize("path", params.examples(), ids=lambda p: p.name)
def test_random_damage_raises_only_the_documented_error(path, tmp_path):
    rng = np.random.default_rng(zlib.crc32(path.name.encode()))
    lines = path.read_text().splitlines()
    for extra in ("ur5_ch05.toml", "contest_arm_mdh.toml"):
        (tmp_path / extra).write_text((EX / extra).read_text())
    raised = 0
    for _ in range(40):
        out = list(lines)
        i = int(rng.integers(len(out)))
        if "=" in out[i] and rng.random() < 0.8:
            key = out[i].split("=", 1)[0]
            out[i] = f"{key}= {_DAMAGE[int(rng.integers(len(_DAMAGE)))]}"
        else:
            del out[i]
        target = tmp_path / ("damaged_" + path.name)
        target.write_text("\n".join(out) + "\n")
        try:
            params.load(target)
        except ParameterFileError as exc:
            raised += 1
            assert exc.field and str(target) in str(exc)
    assert raised >= 10  # most damage is caught (a deleted comment or optional field is not damage)


def test_the_book_page_shows_the_schemas_as_they_are():
    page = (Path(__file__).resolve().parents[1] / "book" / "your_robot.md").read_text(encoding="utf-8")
    for fam in params.FAMILIES:
        assert params.schema_markdown(fam) in page, fam


# ---- independent mutants (issue 29, tools/mutations_independent.py) ----------------------------------------------
MORE_BROKEN = [  # (file, old, new, field named by the error, mutant id)
    ("fivebar_ch03.toml", "efficiency = 0.85", "efficiency = 0", "gearbox.efficiency", "unit-interval-zero"),
    ("fivebar_ch03.toml", "legs = 2", "legs = true", "load.legs", "integer-bool"),
    ("fivebar_ch03.toml", "legs = 2", "legs = 0", "load.legs", "legs-min"),
    ("fivebar_ch03.toml", "stall_torque_N_m = 3.0", "stall_torque_N_m = 1e13", "motor.stall_torque_N_m", "magnitude"),
    ("fivebar_ch03.toml", "l1_m = 0.06   # driving link at motor A", "l1_m = 0.45", "linkage.d_m", "cd-min"),
    ("leg2_limited_ch02.toml", "q_max_rad = [1.2, 2.7]", "q_max_rad = [1.2, 4.0]", "leg.q_max_rad", "leg-limit-range"),
    (
        "contest_arm_mdh.toml",
        "q_max_deg = [360, 360, 170, 360, 360, 360]",
        "q_max_deg = [360, 360, -170, 360, 360, 360]",  # equal to q_min on joint 3: a joint that cannot move
        "limits.q_max_deg",
        "arm-limit-equal",
    ),
    ("stewart_ch09.toml", "max_m = 0.66", "max_m = 0.40", "stroke.max_m", "stroke-order"),
    ("contest_ch06.toml", "decimals = 4", "decimals = 0", "plan.decimals", "decimals-min"),
]


@pytest.mark.parametrize(("name", "old", "new", "field", "mid"), MORE_BROKEN, ids=[c[-1] for c in MORE_BROKEN])
def test_more_broken_files_name_the_field(name, old, new, field, mid):
    """ind2-pa-<mid>: each edit makes an impossible or ambiguous design, refused with the field at fault."""
    text = (EX / name).read_text()
    assert old in text
    params.loads(text, base_dir=EX)  # the unedited file loads
    with pytest.raises(ParameterFileError) as exc:
        params.loads(text.replace(old, new, 1), base_dir=EX)
    assert exc.value.field == field


def test_omitted_optional_fields_take_the_documented_defaults():
    """ind2-pa-decimals-default, -roller-default, -wl-gravity-default: leaving out an optional field the example
    states explicitly gives the same design (answer rounding 4 and 2 decimals, 45 deg rollers, g = 9.81 m/s^2)."""
    c = (EX / "contest_ch06.toml").read_text()
    full, bare = params.loads(c, base_dir=EX), params.loads(c.replace("decimals = 4\n", "", 1), base_dir=EX)
    assert (bare.decimals, bare.time_decimals) == (full.decimals, full.time_decimals) == (4, 2)
    m = (EX / "mecanum_ch08.toml").read_text()
    assert "roller_angle_deg = 45\n" in m
    assert params.loads(m.replace("roller_angle_deg = 45\n", "")).mechanism.roller_angle == np.pi / 4
    w = (EX / "wheel_leg_ch04.toml").read_text()
    plain, with_env = params.loads(w), params.loads(w + "\n[environment]\n")
    assert plain.mechanism.g == with_env.mechanism.g == 9.81
    assert params.loads(w + "\n[environment]\ngravity_m_s2 = 3.71\n").mechanism.g == 3.71
