"""Tests of robokin.scenarios (chapter 16): derived laws, terrain, the runners' claims and bad input.

Each test says what would trip it. The simulations are short (the chapter runs the long ones).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

mujoco = pytest.importorskip("mujoco")

from robokin import scenarios as sc  # noqa: E402
from robokin.robots import WHEEL_LEG  # noqa: E402


# ----------------------------------------------------------------------------- derived laws
@settings(max_examples=60, deadline=None)
@given(st.floats(-0.3, 0.3), st.floats(-0.4, 0.4), st.floats(0.2, 0.8))
def test_roll_and_leg_difference_are_inverse(roll, beta, track):
    # a sign slip in either function (dL = -track tan(...)) breaks the round trip
    dL = sc.legs_for_roll(roll, track=track, cross_slope=beta)
    assert np.isclose(sc.roll_from_legs(dL, track=track, cross_slope=beta), roll, atol=1e-12)


def test_roll_law_matches_the_geometry_of_two_wheels():
    # wheel centres at body (0, +-b/2, -L) rotated by the roll must be equally far from the tilted ground;
    # a law tan(roll) = dL / b that forgot the ground tilt fails at beta != 0
    b, beta = 0.4, 0.07
    for dL in (-0.05, 0.0, 0.03):
        rho = float(sc.roll_from_legs(dL, track=b, cross_slope=beta))
        c, s = math.cos(rho), math.sin(rho)
        Rx = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
        n = np.array([0.0, -math.sin(beta), math.cos(beta)])
        pL, pR = Rx @ [0, b / 2, -(0.2 + dL)], Rx @ [0, -b / 2, -0.2]
        assert abs(n @ (pL - pR)) < 1e-12


def test_max_slope_names_the_binding_limit():
    # friction cone: tan(alpha) = mu; torque: sin(alpha) = 2 tau / (m g R); swapping the two trips the labels
    a, lim = sc.max_slope(friction=0.15, wheel_torque=2.5, mass=14.8, R=0.06)
    assert lim == "friction" and math.isclose(a, math.atan(0.15))
    a, lim = sc.max_slope(friction=1.0, wheel_torque=0.5, mass=14.8, R=0.06)
    assert lim == "torque" and math.isclose(math.sin(a), 1.0 / (14.8 * 9.81 * 0.06))


def test_yaw_acceleration_is_linear_in_the_torque():
    a = sc.yaw_acceleration([0.5, 1.0, -1.0], track=0.4, R=0.06, inertia=0.4)
    assert np.allclose(a, np.array([0.5, 1.0, -1.0]) * 0.4 / (2 * 0.06 * 0.4))


def test_yaw_inertia_adds_the_wheel_spin_term():
    # the robot's composite inertia about the vertical plus I_spin b^2 / (2 R^2); dropping the wheel term (or
    # using the pitch axis) changes it by more than the tolerance
    m = sc.terrain_model()
    d = mujoco.MjData(m)
    sc.place_robot(m, d, L0=0.2)
    M = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, M)
    spin = m.body_inertia[m.body("L_wheel").id, 1]
    assert math.isclose(sc.yaw_inertia(m, d), M[5, 5] + spin * 0.4**2 / (2 * 0.06**2), rel_tol=1e-9)


# ----------------------------------------------------------------------------- terrain
def test_terrain_tilts_the_ground_and_places_the_robot_on_it():
    # a wrong rotation sign leaves the tyres above the ground or inside it
    for slope, cross in ((0.1, 0.0), (0.0, -0.1), (0.05, 0.05)):
        m = sc.terrain_model(slope=slope, cross_slope=cross)
        d = mujoco.MjData(m)
        sc.place_robot(m, d, L0=0.2, slope=slope, cross_slope=cross)
        n = d.geom("ground").xmat.reshape(3, 3)[:, 2]
        if slope:
            assert n[0] < 0  # ground rising towards +x: its normal tilts towards -x
        if cross:
            assert n[1] * cross < 0  # rising towards +y: the normal tilts towards -y
        for w in ("L_wheel", "R_wheel"):
            assert abs(n @ d.body(w).xpos - WHEEL_LEG.R) < 1e-9  # axle exactly R above the tilted plane


def test_step_and_friction_are_in_the_model():
    m = sc.terrain_model(step_height=0.02, friction=0.3)
    assert math.isclose(m.geom("step").size[2], 0.01) and math.isclose(m.geom_pos[m.geom("step").id, 0], 10.5)
    for g in ("ground", "step", "L_tyre", "R_tyre"):
        assert m.geom_friction[m.geom(g).id, 0] == 0.3  # a geom left at 1.0 would win MuJoCo's max rule
    assert m.geom("L_tyre").type == mujoco.mjtGeom.mjGEOM_CYLINDER
    assert sc.terrain_model(tyre="sphere").geom("L_tyre").type == mujoco.mjtGeom.mjGEOM_SPHERE


# ----------------------------------------------------------------------------- runners
def test_record_is_one_row_per_native_step():
    r = sc.run_scenario("slope", t_end=0.1)
    assert r.t.shape == (100,) and np.allclose(np.diff(r.t), 1e-3)  # a 2 ms tick would give 50 rows
    assert r.u.shape == (100, 6) and r.slip.shape == (100, 2) and r.mode.dtype.kind == "i"


def test_holding_torque_on_a_slope():
    # standing on a slope needs m g R sin(alpha) / 2 per wheel; a wrong tilt sign gives the opposite torque
    a = math.radians(5)
    r = sc.run_scenario("slope", t_end=1.5, slope=a)
    pred = WHEEL_LEG.total_mass * WHEEL_LEG.g * WHEEL_LEG.R * math.sin(a) / 2
    assert abs(r.u[-200:, 4].mean() - pred) < 0.1 * pred


def test_bumpless_handover_has_no_torque_step():
    # the naive switch steps by several N m at the switch; a bumpless one by less than the VMC's own step
    kw = dict(t_end=0.5, t_switch=0.2, t_back=0.35, speed=0.5)
    b, n = sc.run_scenario("handover", **kw), sc.run_scenario("handover", switch="naive", **kw)
    k = 199  # step from tick 199 to tick 200 (t = 0.2 s)
    assert b.mode[200] == 1 and b.mode[199] == 0
    assert b.torque_steps()[k] < 0.01 < 1.0 < n.torque_steps()[k]


def test_low_friction_slips_and_saturates_the_cone():
    # on mu = 0.1 the required traction (about 0.18 of the normal force) is not available: the contact sits on the
    # cone (friction_use == mu) and the tyres slip; removing the slip computation or the friction edit trips it
    r = sc.run_scenario("low_friction", t_end=1.2, friction=0.1, speed=1.0)
    assert abs(r.friction_use.max() - 0.1) < 1e-6 and r.slip.max() > 0.1


def test_roll_control_levels_the_body():
    b = math.radians(5)
    off = sc.run_scenario("roll", t_end=1.0, cross_slope=b)
    on = sc.run_scenario("roll", t_end=1.0, cross_slope=b, gains=sc.Gains(kp_roll=0.2, ki_roll=2.0))
    assert off.roll[-1] > 0.8 * b  # off: the body keeps (at least) the ground's roll
    assert abs(on.roll[-1]) < 0.3 * off.roll[-1]  # a sign error in dL would double the roll instead


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "kw, name",
    [
        (dict(kind="jump"), "kind"),
        (dict(kind="slope", slope=math.radians(40)), "slope"),
        (dict(kind="slope", slope=float("nan")), "slope"),
        (dict(kind="roll", cross_slope=float("inf")), "cross_slope"),
        (dict(kind="step", step_height=-0.01), "step_height"),
        (dict(kind="step", step_height=2.0), "step_height"),
        (dict(kind="low_friction", friction=0.0), "friction"),
        (dict(kind="low_friction", friction=-1.0), "friction"),
        (dict(kind="handover", switch="smooth"), "switch"),
        (dict(kind="handover", t_switch=0.8, t_back=0.5), "t_switch"),
        (dict(kind="slope", L0=0.5), "L0"),
        (dict(kind="slope", noise=-1.0), "noise"),
        (dict(kind="slope", t_end=0.0), "t_end"),
        (dict(kind="slope", gains="fast"), "gains"),
        (dict(kind="yaw", tyre="tube"), "tyre"),
    ],
)
def test_bad_input_names_the_argument(kw, name):
    kind = kw.pop("kind")
    with pytest.raises(ValueError, match=name):
        sc.run_scenario(kind, **kw)


def test_bad_input_to_the_laws():
    with pytest.raises(ValueError, match="track"):
        sc.roll_from_legs(0.01, track=0.0)
    with pytest.raises(ValueError, match="dL"):
        sc.roll_from_legs(float("nan"), track=0.4)
    with pytest.raises(ValueError, match="friction"):
        sc.max_slope(friction=0.0, wheel_torque=1.0, mass=1.0, R=0.1)
    with pytest.raises(ValueError, match="n_wheels"):
        sc.max_slope(friction=1.0, wheel_torque=1.0, mass=1.0, R=0.1, n_wheels=0)
    with pytest.raises(ValueError, match="inertia"):
        sc.yaw_acceleration(1.0, track=0.4, R=0.06, inertia=-1.0)
    with pytest.raises(ValueError, match="step_height needs level ground"):
        sc.terrain_model(step_height=0.01, slope=0.1)
    with pytest.raises(ValueError, match="k_yaw"):
        sc.Gains(k_yaw=-1.0)
    with pytest.raises(ValueError, match="data"):  # not an AttributeError from deep inside
        sc.yaw_inertia(sc.terrain_model(), None)
    with pytest.raises(ValueError, match="tyre_width"):
        sc.terrain_model(tyre_width=0.5)
    with pytest.raises(ValueError, match="tyre_width"):
        sc.terrain_model(tyre="sphere", tyre_width=0.01)


def test_numpy_integers_are_integers():
    # a check written as isinstance(n, int) rejects np.int64(2)
    a = sc.max_slope(friction=0.15, wheel_torque=2.5, mass=14.8, R=0.06, n_wheels=np.int64(2))
    assert a == sc.max_slope(friction=0.15, wheel_torque=2.5, mass=14.8, R=0.06)


def test_tyre_width_sets_the_cylinder():
    # half of the width is the cylinder's half length; an edit of the wrong geom leaves 0.4 R
    m = sc.terrain_model(tyre_width=0.006)
    assert math.isclose(m.geom("L_tyre").size[1], 0.003) and math.isclose(m.geom("R_tyre").size[1], 0.003)
    assert math.isclose(sc.terrain_model().geom("L_tyre").size[1], 0.2 * WHEEL_LEG.R)


def test_landing_mode_removes_the_touchdown_slip():
    # without the landing mode the balance controller spins the free wheels in the air; with it the wheel speed is
    # matched to the ground. A landing mode that never engages (or matches the wrong sign) leaves the slip.
    def touchdown_slip(r):
        air = r.normal_force <= 0
        e = np.flatnonzero(np.diff(np.r_[0, air.astype(int), 0]))
        (a, b), *_ = [(a, b) for a, b in zip(e[::2], e[1::2]) if b - a >= 3]
        assert b - a > 100  # a real flight (> 0.1 s)
        return r.slip[b].max(), r.mode[(a + b) // 2]

    on, mode_on = touchdown_slip(sc.run_scenario("landing", t_end=0.65))
    off, mode_off = touchdown_slip(sc.run_scenario("landing", t_end=0.65, landing=False))
    assert mode_on == 1 and mode_off == 0
    assert on < 0.02 < 0.1 < off


def test_yaw_acceleration_matches_the_law_with_thin_tyres_and_stiff_legs():
    # the slope of a line fitted to the yaw rate after a differential-torque step is within 5 % of dT b / (2 R I)
    # when the legs are held together stiffly (split PD 10 times the default); a factor-2 slip in the law, the wrong
    # lever or a missing wheel-spin term (10 % here) trips it. With the default split PD the legs scissor and the
    # fit is more than 5 % low (the compliance absorbs part of the torque).
    m = sc.terrain_model(tyre="sphere")
    d = mujoco.MjData(m)
    sc.place_robot(m, d, L0=0.2)
    pred = float(sc.yaw_acceleration(0.5, track=0.4, R=0.06, inertia=sc.yaw_inertia(m, d)))

    def fit(gains):
        r = sc.run_scenario("yaw", t_end=0.4, yaw_torque=0.5, tyre="sphere", gains=gains)
        w = r.t >= 0.1
        return np.polyfit(r.t[w], r.yaw_rate[w], 1)[0]

    assert abs(fit(sc.Gains(k_split=200.0, d_split=20.0)) - pred) < 0.05 * pred
    assert fit(sc.Gains()) < 0.95 * pred
