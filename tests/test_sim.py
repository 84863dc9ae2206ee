"""Tests of robokin.sim: MuJoCo models built from robokin objects agree with the package's own models."""

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from robokin import sim  # noqa: E402
from robokin.dynamics import SerialDynamics  # noqa: E402
from robokin.errors import IntegrationError  # noqa: E402
from robokin.fivebar import FiveBar  # noqa: E402
from robokin.robots import ARM2, FIVEBAR, UR5, WHEEL_LEG, WHEEL_LEG_FIVEBAR, ur5_inertials  # noqa: E402
from robokin.validation import sim as sim_validation  # noqa: E402
from robokin.wheel_leg import virtual_leg  # noqa: E402

LEG = FIVEBAR
MASSES = (0.05, 0.08, 0.05, 0.08)
ARM = ARM2
P = WHEEL_LEG
FB4 = WHEEL_LEG_FIVEBAR


def _targets(rng, n):
    return np.stack([rng.uniform(0.0, 0.07, n), rng.uniform(-0.145, -0.075, n)], -1)


def test_fivebar_model_matches_parameters():
    fb = FiveBar(0.15, 0.14, 0.25, 0.24, 0.108)
    masses = (0.3, 0.2, 0.31, 0.21)
    m = sim.fivebar_model(fb, masses=masses)
    names = [m.body(i).name for i in range(1, m.nbody)]
    assert names == ["thigh_A", "shank_C", "thigh_B", "shank_D"]
    np.testing.assert_allclose(m.body_mass[1:], masses, rtol=0, atol=0)
    L = (fb.l1, fb.l3, fb.l2, fb.l4)
    # centre of mass at mid-length, inertia m l^2 / 12 about the hinge axis (local y)
    np.testing.assert_allclose(m.body_ipos[1:, 0], np.array(L) / 2, rtol=1e-15)
    iy = []
    for b in range(1, m.nbody):  # body_inertia is principal; find the axis aligned with y
        R = np.zeros(9)
        mujoco.mju_quat2Mat(R, m.body_iquat[b])
        I = R.reshape(3, 3) @ np.diag(m.body_inertia[b]) @ R.reshape(3, 3).T
        iy.append(I[1, 1])
    np.testing.assert_allclose(iy, np.array(masses) * np.array(L) ** 2 / 12, rtol=1e-12)
    # joint axes: all (0, -1, 0); bodies placed at l1, d, l2 from their parents
    np.testing.assert_array_equal(m.jnt_axis, np.tile([0.0, -1.0, 0.0], (4, 1)))
    np.testing.assert_allclose(m.body_pos[1:, 0], [0.0, fb.l1, fb.d, fb.l2], rtol=0, atol=0)
    np.testing.assert_allclose([m.site("foot_C").pos[0], m.site("foot_D").pos[0]], [fb.l3, fb.l4])
    assert m.neq == 1 and m.eq_type[0] == mujoco.mjtEq.mjEQ_CONNECT


def test_fivebar_fk_random_configurations():
    rng = np.random.default_rng(1)
    m = sim.fivebar_model(LEG, masses=MASSES)
    d = mujoco.MjData(m)
    for branch in ("out", "in"):
        p = _targets(rng, 60)
        sol = LEG.ik(p, branch=branch, on_unreachable="nan")
        q = sol.q[sol.valid]
        asm = LEG.assembly_of(q, p[sol.valid])
        for qi, a in zip(q, asm):
            d.qpos[:] = sim.fivebar_qpos(LEG, qi, assembly=str(a))
            mujoco.mj_kinematics(m, d)
            eC, eD = sim.fivebar_feet(m, d)
            np.testing.assert_allclose(eC, LEG.fk(qi, assembly=str(a)), atol=1e-14)
            np.testing.assert_allclose(eD, eC, atol=1e-14)  # the loop is closed


def test_fivebar_statics_random_configurations():
    rng = np.random.default_rng(2)
    m = sim.fivebar_model(LEG, masses=MASSES, g=0.0, actuator="none")
    q = LEG.ik(_targets(rng, 80)).q
    F = rng.normal(0, 80, (80, 2))
    tau = sim.fivebar_static_torques(m, LEG, q, F)
    ref = LEG.static_torques(q, F)
    assert np.abs(tau - ref).max() <= 1e-9 * np.abs(ref).max()
    # a wrong load direction must not agree (the check can fail)
    assert np.abs(sim.fivebar_static_torques(m, LEG, q, -F) - ref).max() > 1.0


def test_fivebar_statics_needs_zero_gravity():
    m = sim.fivebar_model(LEG, masses=MASSES)
    with pytest.raises(ValueError, match="g=0"):
        sim.fivebar_static_torques(m, LEG, LEG.ik([0.035, -0.12]).q, [0.0, -10.0])


def test_motion_mode_tracks_fk():
    m = sim.fivebar_model(LEG, masses=MASSES, kp=20.0, kv=0.2)
    d = mujoco.MjData(m)
    target = lambda t: np.array([0.035 + 0.02 * np.cos(2 * np.pi * t), -0.11 + 0.02 * np.sin(2 * np.pi * t)])  # noqa
    d.qpos[:] = sim.fivebar_qpos(LEG, LEG.ik(target(0.0)).q)

    def rec(t, d):
        eC, eD = sim.fivebar_feet(m, d)
        return np.r_[eC, eD, sim.fivebar_motor_angles(m, d)]

    res = sim.run_controller(m, d, lambda t, d: LEG.ik(target(t)).q, t_end=0.5, rate=500, record=rec)
    R = res.signals["record"]
    assert res.t.shape == (250,) and R.shape == (250, 6) and bool(res.stable)
    np.testing.assert_allclose(res.t, np.arange(250) / 500, rtol=0, atol=1e-15)
    assert res.q.shape == (250, 4) and res.qd.shape == (250, 4) and res.u.shape == (250, 2)
    np.testing.assert_array_equal(res.q[:, [0, 2]], R[:, 4:6])  # the state rows are the recorded state
    np.testing.assert_allclose(res.u, LEG.ik(np.array([target(t) for t in res.t])).q, atol=1e-15)  # the commands
    # qd is the rate of q: trapezoidal rule between ticks
    np.testing.assert_allclose(np.diff(res.q, axis=0), (res.qd[1:] + res.qd[:-1]) / 2 / 500, atol=2e-4)
    assert np.abs(np.diff(res.q, axis=0)).max() > 1e-3  # (which moves)
    err = np.abs(R[:, :2] - LEG.fk(R[:, 4:])).max()
    loop = np.linalg.norm(R[:, :2] - R[:, 2:4], axis=1).max()
    assert err < 1e-3 and loop < 1e-3  # soft loop closure: sub-millimetre under gravity and motion


def test_two_link_terms_match():
    rng = np.random.default_rng(3)
    q, qd = rng.uniform(-np.pi, np.pi, (50, 2)), rng.normal(0, 3, (50, 2))
    M, Cqd, G = sim.two_link_terms(sim.two_link_model(ARM), q, qd)
    np.testing.assert_allclose(M, ARM.mass_matrix(q), atol=1e-12)
    np.testing.assert_allclose(Cqd, ARM.bias(q, qd), atol=1e-12)
    np.testing.assert_allclose(G, ARM.gravity(q), atol=1e-12)
    # a different arm gives a different mass matrix
    M2, _, _ = sim.two_link_terms(sim.two_link_model(ARM.replace(m2=0.9)), q, qd)
    assert np.abs(M2 - ARM.mass_matrix(q)).max() > 1e-3


def test_ur5_inverse_dynamics_matches_rnea():
    rng = np.random.default_rng(4)
    ip = ur5_inertials()
    model = sim.dh_model(UR5, **ip)
    assert model.nv == 6
    np.testing.assert_allclose(model.body_mass[1:], ip["masses"], rtol=0, atol=0)
    q, qd, qdd = rng.uniform(-np.pi, np.pi, (40, 6)), rng.normal(size=(40, 6)), rng.normal(size=(40, 6))
    tau = sim.inverse_dynamics(model, q, qd, qdd)
    dyn = SerialDynamics.from_dh(UR5.a, UR5.alpha, UR5.d, convention="standard", **ip, gravity=[0, 0, -9.81])
    ref = dyn.inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(tau, ref, atol=1e-10 * np.abs(ref).max())
    # joint axes are each frame's z: the kinematics agree with the package's FK
    d = mujoco.MjData(model)
    d.qpos[:] = q[0]
    mujoco.mj_kinematics(model, d)
    T = UR5.fk_all(q[0])  # (7, 4, 4): base frame 0, then frames 1..6
    for i in range(1, 7):  # body link{i} sits at the origin of DH frame i-1
        np.testing.assert_allclose(d.xpos[i], T[i - 1][:3, 3], atol=1e-12)


def test_bad_input():
    with pytest.raises(ValueError, match="actuator"):
        sim.fivebar_model(LEG, masses=MASSES, actuator="velocity")
    with pytest.raises(ValueError, match="integrator"):
        sim.fivebar_model(LEG, masses=MASSES, integrator="Verlet")
    with pytest.raises(ValueError, match="masses"):
        sim.fivebar_model(LEG, masses=(0.05, -0.08, 0.05, 0.08))
    with pytest.raises(ValueError, match="inertias"):
        sim.fivebar_model(LEG, masses=MASSES, inertias=(1e-4, 0.0, 1e-4, 1e-4))
    with pytest.raises(ValueError, match="solref"):
        sim.fivebar_model(LEG, masses=MASSES, solref=(-0.02, 1.0))
    with pytest.raises(ValueError, match="solimp"):
        sim.fivebar_model(LEG, masses=MASSES, solimp=(0.9, 1.5, 0.001))
    with pytest.raises(ValueError, match="fivebar"):
        sim.fivebar_model("leg", masses=MASSES)
    with pytest.raises(ValueError, match="inertia"):
        sim.two_link_model(ARM.replace(I1=0.0))
    bad = ur5_inertials()
    bad["inertias"][2] = np.diag([0.001, 0.001, 0.01])  # violates the triangle inequality
    with pytest.raises(ValueError, match="triangle"):
        sim.dh_model(UR5, **bad)
    bad["inertias"][2] = np.diag([0.0, 0.01, 0.01])  # a flat body: physical, but MuJoCo needs positive moments
    with pytest.raises(ValueError, match="positive"):
        sim.dh_model(UR5, **bad)
    with pytest.raises(ValueError, match="MotorModel|eta"):
        sim.MotorModel(3.0, 220.0, 1.5)


def test_controller_nan_and_rate_errors():
    m = sim.fivebar_model(LEG, masses=MASSES, actuator="torque")
    d = mujoco.MjData(m)
    d.qpos[:] = sim.fivebar_qpos(LEG, LEG.ik([0.035, -0.12]).q)
    with pytest.raises(ValueError, match="controller"):
        sim.run_controller(m, d, lambda t, d: np.array([np.nan, 0.0]), t_end=0.01, rate=1000)
    with pytest.raises(ValueError, match="shape"):
        sim.run_controller(m, d, lambda t, d: np.zeros(3), t_end=0.01, rate=1000)
    with pytest.raises(ValueError, match="whole number"):
        sim.run_controller(m, d, lambda t, d: np.zeros(2), t_end=0.01, rate=300)
    with pytest.raises(ValueError, match="on_diverge"):
        sim.run_controller(m, d, lambda t, d: np.zeros(2), t_end=0.01, rate=1000, on_diverge="ignore")


def test_divergence_is_reported():
    # a huge step with a stiff servo blows up; run_controller must say so instead of returning NaN
    m = sim.fivebar_model(LEG, masses=MASSES, kp=2000.0, kv=0.0, timestep=0.02, integrator="Euler")
    d = mujoco.MjData(m)
    q0 = sim.fivebar_qpos(LEG, LEG.ik([0.035, -0.12]).q)
    d.qpos[:] = q0
    with pytest.raises(IntegrationError):
        sim.run_controller(m, d, lambda t, d: LEG.ik([0.035, -0.12]).q + 0.5, t_end=2.0, rate=50)
    # on_diverge="stop": the ticks before the divergence come back, marked unstable
    d = mujoco.MjData(m)
    d.qpos[:] = q0
    res = sim.run_controller(m, d, lambda t, d: LEG.ik([0.035, -0.12]).q + 0.5, t_end=2.0, rate=50, on_diverge="stop")
    assert not res.stable and 1 <= res.t.size < 100 and res.q.shape == (res.t.size, 4)
    assert np.all(np.isfinite(res.q)) and np.all(np.isfinite(res.u))


def test_motor_model():
    mot = sim.MotorModel(3.0, 220.0, 0.85, 2e-5)
    assert mot.max_joint_torque(10.0, 0.0) == pytest.approx(25.5)
    assert mot.max_joint_torque(10.0, 11.0) == pytest.approx(12.75)
    np.testing.assert_allclose(mot.saturate([100.0, -100.0, 1.0], 10.0, 0.0), [25.5, -25.5, 1.0])


def test_validate_passes():
    reps = sim_validation.validate(fast=True)
    assert len(reps) == 6 and all(r.passed for r in reps)


# ----------------------------------------------------------------------------- the whole robot
def test_wheel_leg_model_matches_parameters():
    m = sim.wheel_leg_model(P, FB4, track=0.4)
    assert m.body_subtreemass[m.body("torso").id] == pytest.approx(P.total_mass, abs=1e-12)
    assert m.body_mass[m.body("torso").id] == P.m_b
    np.testing.assert_allclose(m.body_ipos[m.body("torso").id], [0, 0, P.l_c])
    legs = [m.body(f"{s}{b}").id for s in ("L_", "R_") for b in ("thigh_A", "shank_C", "thigh_B", "shank_D")]
    assert m.body_mass[legs].sum() == pytest.approx(P.m_l, abs=1e-12)
    for s in ("L_", "R_"):
        w = m.body(s + "wheel").id
        assert m.body_mass[w] == pytest.approx(P.m_w / 2)
        assert m.body_inertia[w].max() == pytest.approx(P.I_w / 2)  # spin inertia about the axle
        np.testing.assert_array_equal(m.jnt_axis[m.joint(s + "wheel").id], [0, 1, 0])
        assert m.geom(s + "tyre").size[0] == pytest.approx(P.R)
    assert m.body_pos[m.body("L_thigh_B").id][1] - m.body_pos[m.body("R_thigh_B").id][1] == pytest.approx(0.4)
    assert [m.actuator(i).name for i in range(m.nu)] == list(sim.WHEEL_LEG_ACTUATORS)
    assert m.neq == 2


def test_wheel_leg_state_matches_virtual_leg():
    m = sim.wheel_leg_model(P, FB4)
    d = mujoco.MjData(m)
    for L0, th in ((0.2, 0.0), (0.28, 0.15), (0.15, -0.1)):
        sim.wheel_leg_pose(m, d, P, FB4, L0=L0, theta=th, x=0.3)
        st = sim.wheel_leg_state(m, d)
        leg = virtual_leg(FB4, st["q"])
        np.testing.assert_allclose(st["L0"], leg[:, 0], atol=1e-12)
        np.testing.assert_allclose(st["theta_b"], -np.pi / 2 - leg[:, 1], atol=1e-12)
        np.testing.assert_allclose(st["s"], [th, 0, 0.3, 0, 0, 0], atol=1e-12)
        # wheels on the ground, axle at height R
        assert d.body("L_wheel").xpos[2] == pytest.approx(P.R, abs=1e-12)


def test_wheel_leg_rates_match_finite_differences():
    m = sim.wheel_leg_model(P, FB4, solref=(0.004, 1.0))
    d = mujoco.MjData(m)
    sim.wheel_leg_pose(m, d, P, FB4, L0=0.2, theta=0.1)
    for _ in range(200):  # let it start to fall forward, with the leg motors off
        mujoco.mj_step(m, d)
    st0 = sim.wheel_leg_state(m, d)
    h = 1e-4
    m.opt.timestep = h
    mujoco.mj_step(m, d)
    st1 = sim.wheel_leg_state(m, d)
    for k in (0, 2, 4):  # theta, x, phi: rate vs difference quotient
        fd = (st1["s"][k] - st0["s"][k]) / h
        assert abs(fd - 0.5 * (st0["s"][k + 1] + st1["s"][k + 1])) < 1e-3 * max(1.0, abs(fd))


def test_wheel_leg_state_does_not_depend_on_yaw():
    """A robot turned about world z by 2 rad has the state of the unturned one (pitch, x along its heading)."""
    m = sim.wheel_leg_model(P, FB4, solref=(0.004, 1.0))
    d = mujoco.MjData(m)
    sim.wheel_leg_pose(m, d, P, FB4, L0=0.22, theta=0.1, x=0.3)
    d.qvel[3:6] = [0.3, -0.4, 0.5]  # body rates about all three axes: it rolls, pitches and turns
    for _ in range(150):  # falling and rolling forward, leg motors off: every state entry nonzero
        mujoco.mj_step(m, d)
    mujoco.mj_forward(m, d)  # the kinematics of the state now (mj_step leaves those of the step's start)
    st0 = sim.wheel_leg_state(m, d)
    assert np.all(np.abs(st0["s"]) > 1e-3) and abs(st0["roll"]) > 1e-3
    psi = 2.0
    Rz = np.array([[np.cos(psi), -np.sin(psi), 0.0], [np.sin(psi), np.cos(psi), 0.0], [0.0, 0.0, 1.0]])
    qz = np.array([np.cos(psi / 2), 0.0, 0.0, np.sin(psi / 2)])
    q_new = np.zeros(4)
    mujoco.mju_mulQuat(q_new, qz, d.qpos[3:7].copy())
    d.qpos[:3], d.qpos[3:7] = Rz @ d.qpos[:3], q_new
    d.qvel[:3] = Rz @ d.qvel[:3]  # world linear velocity turns; the angular one is in the body frame
    mujoco.mj_forward(m, d)
    st1 = sim.wheel_leg_state(m, d)
    np.testing.assert_allclose(st1["s"], st0["s"], rtol=0, atol=1e-9)
    for k in ("L0", "L0_dot", "theta_b", "theta_b_dot", "q", "roll", "yaw_rate"):
        np.testing.assert_allclose(st1[k], st0[k], rtol=0, atol=1e-9)
    # and the pitch rate is the rate of the pitch, also turned
    h = 1e-5
    m.opt.timestep = h
    mujoco.mj_step(m, d)
    st2 = sim.wheel_leg_state(m, d)
    fd = (st2["s"][4] - st1["s"][4]) / h
    assert abs(fd - 0.5 * (st1["s"][5] + st2["s"][5])) < 1e-3 * max(1.0, abs(fd))


def test_wheel_leg_bad_input():
    with pytest.raises(ValueError, match="WheelLegParams"):
        sim.wheel_leg_model({"m_b": 12.0}, FB4)
    with pytest.raises(ValueError, match="track"):
        sim.wheel_leg_model(P, FB4, track=-0.4)
    with pytest.raises(ValueError, match="triangle"):
        sim.wheel_leg_model(P, FB4, roll_yaw_inertia=(0.01, 1.0))
    with pytest.raises(ValueError, match="friction"):
        sim.wheel_leg_model(P, FB4, friction=0.0)


def test_slider_and_pin():
    m = sim.fivebar_model(LEG, masses=MASSES, actuator="torque", body_mass=8.0, foot_pin=[0.035, -0.12])
    assert m.joint("lift").type == mujoco.mjtJoint.mjJNT_SLIDE and m.body("base").mass[0] == 8.0
    assert m.neq == 2
    with pytest.raises(ValueError, match="body_mass"):
        sim.fivebar_model(LEG, masses=MASSES, body_mass=0.0)
    with pytest.raises(ValueError, match="foot_pin"):
        sim.fivebar_model(LEG, masses=MASSES, foot_pin=[0.0, np.nan])


# ----------------------------------------------------------------------------- fixed-step integration (chapter 10)
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as hst  # noqa: E402


def _linear(A):
    return lambda t, y: A @ y


def _one_step_map(A, h, method):
    n = A.shape[0] // 2
    if method == "euler":
        return np.eye(2 * n) + h * A
    if method == "rk4":
        Z = h * A
        return np.eye(2 * n) + Z @ (np.eye(2 * n) + Z / 2 @ (np.eye(2 * n) + Z / 3 @ (np.eye(2 * n) + Z / 4)))
    A21, A22, I = A[n:, :n], A[n:, n:], np.eye(n)
    return np.block([[I + h * h * A21, h * (I + h * A22)], [h * A21, I + h * A22]])


EXPLICIT = ("euler", "semi_implicit_euler", "rk4")  # the methods with a finite step limit


def _mode(c, k):
    return np.array([[0.0, 1.0], [-k, -c]])


def test_integrate_fixed_step_orders_of_accuracy():
    A = _mode(0.4, 4.0)  # q'' + 0.4 q' + 4 q = 0, exact solution by the matrix exponential
    from scipy.linalg import expm

    exact = expm(A * 1.0) @ [1.0, 0.0]
    err = {}
    for m in sim.FIXED_STEP_METHODS:
        for h in (0.01, 0.005):
            r = sim.integrate_fixed_step(_linear(A), [1.0, 0.0], dt=h, t_end=1.0, method=m)
            assert r.stable and r.t.shape == (int(round(1 / h)) + 1,) and r.u.shape == (r.t.size, 0)
            err[m, h] = np.abs(np.r_[r.q[-1], r.qd[-1]] - exact).max()
    for m, p in (("euler", 1), ("semi_implicit_euler", 1), ("rk4", 4), ("backward_euler", 1), ("trapezoid", 2)):
        order = np.log2(err[m, 0.01] / err[m, 0.005])
        assert abs(order - p) < 0.15, (m, order)


def test_semi_implicit_euler_keeps_an_undamped_oscillation_bounded():
    A = _mode(0.0, 1.0)
    T = 2 * np.pi * 20
    h = T / 4000
    semi = sim.integrate_fixed_step(_linear(A), [1.0, 0.0], dt=h, t_end=T, method="semi_implicit_euler")
    expl = sim.integrate_fixed_step(_linear(A), [1.0, 0.0], dt=h, t_end=T, method="euler")
    e_semi = semi.q[:, 0] ** 2 + semi.qd[:, 0] ** 2
    e_expl = expl.q[:, 0] ** 2 + expl.qd[:, 0] ** 2
    assert np.abs(e_semi - 1).max() < 2 * h and e_expl[-1] > 1.5  # bounded vs growing


def test_integrate_fixed_step_stops_at_the_bound():
    r = sim.integrate_fixed_step(
        _linear(np.array([[0.0, 1.0], [0.0, 1.0]])), [0.0, 1.0], dt=0.1, t_end=100.0, method="euler", bound=10.0
    )
    assert not r.stable and r.t.size < 1001
    assert np.abs(np.r_[r.q[-1], r.qd[-1]] - [0.0, 1.0]).max() <= 10.0


def test_step_limit_closed_forms():
    lam = -1000.0
    assert sim.step_limit(np.array([[lam]]), method="euler") == pytest.approx(2e-3, rel=1e-10)
    assert sim.step_limit(np.array([[lam]]), method="rk4") == pytest.approx(2.785293563405282e-3, rel=1e-9)
    c, k = 3.0, 50.0
    want = min(2 / c, (-c + np.sqrt(c**2 + 4 * k)) / k)
    assert sim.step_limit(_mode(c, k), method="semi_implicit_euler") == pytest.approx(want, rel=1e-9)
    assert sim.step_limit(np.zeros((2, 2)), method="rk4") == np.inf
    # an undamped oscillator: explicit Euler has no stable step (only ~ sqrt(2 tol) / omega), RK4 up to sqrt(8) / omega
    assert sim.step_limit(_mode(0.0, 4.0), method="euler") < 1e-4
    assert sim.step_limit(_mode(0.0, 4.0), method="rk4") == pytest.approx(np.sqrt(8) / 2, rel=1e-6)


@settings(max_examples=40, deadline=None)
@given(
    hst.floats(0.05, 5.0),  # damping ratio
    hst.floats(0.1, 1e3),  # natural frequency, rad/s
    hst.sampled_from(EXPLICIT),
)
def test_property_step_limit_is_where_the_simulated_map_turns_unstable(zeta, omega, method):
    A = _mode(2 * zeta * omega, omega**2)
    h = sim.step_limit(A, method=method)
    assert 0 < h < 10 / omega
    for scale, stable in ((0.98, True), (1.02, False)):
        # the integrator applied to the basis vectors gives its one-step map; its spectral radius decides
        cols = [
            sim.integrate_fixed_step(_linear(A), e, dt=scale * h, t_end=scale * h, method=method) for e in np.eye(2)
        ]
        Phi = np.array([np.r_[r.q[-1], r.qd[-1]] for r in cols]).T
        np.testing.assert_allclose(Phi, _one_step_map(A, scale * h, method), rtol=1e-12, atol=1e-12)
        assert (np.abs(np.linalg.eigvals(Phi)).max() <= 1 + 1e-9) == stable


def test_step_limit_matches_a_simulated_bisection():
    A = _mode(300.0, 400.0)  # a stiff damper: eigenvalues about -1.3 and -299 1/s
    for m in EXPLICIT:
        h = sim.step_limit(A, method=m)
        for scale, grows in ((0.97, False), (1.03, True)):
            r = sim.integrate_fixed_step(
                _linear(A), [1e-6, 0.0], dt=scale * h, t_end=400 * scale * h, method=m, bound=1.0
            )
            assert (abs(r.qd[-1, 0]) > 1e-4 or not r.stable) == grows, (m, scale)


def test_fixed_step_bad_input():
    f = _linear(_mode(1.0, 1.0))
    ok = dict(dt=0.1, t_end=1.0, method="rk4")
    with pytest.raises(ValueError, match="callable"):
        sim.integrate_fixed_step("f", [1.0, 0.0], **ok)
    with pytest.raises(ValueError, match="method"):
        sim.integrate_fixed_step(f, [1.0, 0.0], dt=0.1, t_end=1.0, method="RK45")
    with pytest.raises(ValueError, match="shape"):
        sim.integrate_fixed_step(f, [[1.0, 0.0]], **ok)
    with pytest.raises(ValueError, match="even"):
        sim.integrate_fixed_step(lambda t, y: -y, [1.0, 0.0, 2.0], dt=0.1, t_end=1.0, method="euler")
    with pytest.raises(ValueError, match="non-finite"):
        sim.integrate_fixed_step(f, [np.nan, 0.0], **ok)
    with pytest.raises(ValueError, match="whole number"):
        sim.integrate_fixed_step(f, [1.0, 0.0], dt=0.3, t_end=1.0, method="rk4")
    with pytest.raises(ValueError, match="whole number"):
        sim.integrate_fixed_step(f, [1.0, 0.0], dt=2.0, t_end=1.0, method="rk4")
    with pytest.raises(ValueError, match="positive"):
        sim.integrate_fixed_step(f, [1.0, 0.0], dt=0.1, t_end=1.0, method="rk4", bound=-1.0)
    with pytest.raises(ValueError, match="rhs"):
        sim.integrate_fixed_step(lambda t, y: [np.nan, 0.0], [1.0, 0.0], **ok)
    with pytest.raises(ValueError, match="rhs"):
        sim.integrate_fixed_step(lambda t, y: [0.0], [1.0, 0.0], **ok)
    with pytest.raises(ValueError, match="square"):
        sim.step_limit(np.zeros((2, 3)), method="euler")
    with pytest.raises(ValueError, match="complex"):
        sim.step_limit(np.eye(2) * 1j, method="euler")
    with pytest.raises(ValueError, match="non-finite"):
        sim.step_limit(np.array([[np.inf]]), method="euler")
    with pytest.raises(ValueError, match="unstable"):
        sim.step_limit(np.array([[0.5]]), method="rk4")
    with pytest.raises(ValueError, match="tol"):
        sim.step_limit(np.array([[-1.0]]), method="rk4", tol=0.1)
    with pytest.raises(ValueError, match="even"):
        sim.step_limit(np.array([[-1.0]]), method="semi_implicit_euler")
    with pytest.raises(ValueError, match=r"\[\[0, I\]"):
        sim.step_limit(np.array([[-1.0, 0.0], [0.0, -2.0]]), method="semi_implicit_euler")
    with pytest.raises(ValueError, match="method"):
        sim.step_limit(np.array([[-1.0]]), method="Euler")


# ----------------------------------------------------------------------------- second reliability pass (issue 29)
MOT = sim.MotorModel(3.0, 220.0, 0.85, 2e-5)


def test_motor_envelope_is_zero_from_the_free_speed_on():
    # N |w| = omega_free at w = 22 rad/s for N = 10; the line 1 - N|w|/omega_free would be -1 at 44 rad/s
    w = np.array([0.0, 11.0, 21.9, 22.0, 30.0, 44.0, -44.0, 1e6])
    lim = MOT.max_joint_torque(10.0, w)
    np.testing.assert_allclose(lim[:3], 25.5 * (1 - 10 * w[:3] / 220.0), rtol=1e-12)
    np.testing.assert_array_equal(lim[3:], 0.0)  # kills a mutant of the clip's lower bound (0 -> -1, or none)
    np.testing.assert_array_equal(MOT.saturate(np.full(w.size, 5.0), 10.0, w)[3:], 0.0)
    assert MOT.saturate(5.0, 10.0, 44.0) == 0.0 and MOT.saturate(-5.0, 10.0, -44.0) == 0.0


def test_motor_saturate_never_reverses_even_with_a_negative_bound(monkeypatch):
    # the clamp of saturate itself must not trust the bound's sign: with the unclamped line (-25.5 N m at 44 rad/s)
    # np.clip(5, 25.5, -25.5) returned -25.5, a torque of the wrong sign
    line = lambda N, w: N * 0.85 * 3.0 * (1.0 - N * np.abs(np.asarray(w, float)) / 220.0)  # noqa: E731
    monkeypatch.setattr(sim.MotorModel, "max_joint_torque", lambda self, N, w: line(N, w))
    assert MOT.saturate(5.0, 10.0, 44.0) == 0.0
    np.testing.assert_array_equal(MOT.saturate([5.0, -5.0, 30.0], 10.0, [44.0, 44.0, 0.0]), [0.0, 0.0, 25.5])


@given(
    tau=hst.floats(-1e3, 1e3),
    w=hst.floats(-100.0, 100.0),
    N=hst.floats(0.5, 40.0),
)
@settings(max_examples=200, deadline=None)
def test_property_saturate_keeps_sign_and_never_amplifies(tau, w, N):
    out = float(MOT.saturate(tau, N, w))
    lim = float(MOT.max_joint_torque(N, w))
    assert lim >= 0.0
    assert out * tau >= 0.0 and abs(out) <= abs(tau) + 0.0 and abs(out) <= lim
    if abs(tau) <= lim:
        assert out == tau


def test_motor_bad_input():
    with pytest.raises(ValueError, match="joint_speed"):
        MOT.saturate(1.0, 10.0, np.nan)
    with pytest.raises(ValueError, match="N must be"):
        MOT.max_joint_torque(-10.0, 0.0)
    with pytest.raises(ValueError, match="broadcast"):
        MOT.saturate([1.0, 2.0, 3.0], 10.0, [0.0, 1.0])
    with pytest.raises(ValueError, match="tau"):
        MOT.saturate([1.0, np.inf], 10.0, 0.0)


def test_wheel_leg_state_needs_kinematics():
    m = sim.wheel_leg_model(P, FB4)
    d = mujoco.MjData(m)  # no mj_forward yet: every body frame is zero, the old code returned NaN leg rates
    with pytest.raises(ValueError, match="mj_forward"):
        sim.wheel_leg_state(m, d)
    sim.wheel_leg_pose(m, d, P, FB4, L0=0.2)
    assert np.all(np.isfinite(sim.wheel_leg_state(m, d)["s"]))
    with pytest.raises(ValueError, match="model"):
        sim.wheel_leg_state(sim.fivebar_model(LEG, masses=MASSES), mujoco.MjData(sim.fivebar_model(LEG, masses=MASSES)))
    with pytest.raises(ValueError, match="data"):
        sim.wheel_leg_state(m, "data")


def test_wheel_leg_pose_and_model_refuse_non_finite_options():
    m = sim.wheel_leg_model(P, FB4)
    d = mujoco.MjData(m)
    for kw, name in ((dict(x=np.nan), "x"), (dict(theta=np.inf), "theta"), (dict(theta=2.0), "theta")):
        with pytest.raises(ValueError, match=name):
            sim.wheel_leg_pose(m, d, P, FB4, L0=0.2, **kw)
    with pytest.raises(ValueError, match="L0"):
        sim.wheel_leg_pose(m, d, P, FB4, L0=np.nan)
    for bad in (np.nan, -0.01, 0.0, "0.01"):
        with pytest.raises(ValueError, match="radius"):
            sim.wheel_leg_mjcf(P, FB4, radius=bad)
    with pytest.raises(ValueError, match="timestep"):
        sim.wheel_leg_mjcf(P, FB4, timestep=np.inf)
    with pytest.raises(ValueError, match="solref"):
        sim.wheel_leg_mjcf(P, FB4, solref=(np.nan, 1.0))


def test_contact_normal_force_names_the_geom():
    m = sim.wheel_leg_model(P, FB4)
    d = mujoco.MjData(m)
    sim.wheel_leg_pose(m, d, P, FB4, L0=0.2)
    with pytest.raises(ValueError, match="geom.*'bogus'.*L_tyre"):
        sim.contact_normal_force(m, d, "bogus")
    with pytest.raises(ValueError, match="geom"):
        sim.contact_normal_force(m, d, 3)
    with pytest.raises(ValueError, match="model"):
        sim.contact_normal_force("model", d, "L_tyre")
    mujoco.mj_step(m, d)  # the placed robot touches the ground: a positive force on each tyre, none on a link
    assert sim.contact_normal_force(m, d, "L_tyre") > 0 and sim.contact_normal_force(m, d, "R_tyre") > 0


def test_mujoco_warnings_go_to_the_logger_not_to_a_file(tmp_path, monkeypatch, caplog):
    # MuJoCo's default handler appends to MUJOCO_LOG.TXT in the working directory (notebooks/ for the book)
    monkeypatch.chdir(tmp_path)
    m = sim.fivebar_model(LEG, masses=MASSES, kp=2000.0, kv=0.0, timestep=0.02, integrator="Euler")
    d = mujoco.MjData(m)
    d.qpos[:] = sim.fivebar_qpos(LEG, LEG.ik([0.035, -0.12]).q)
    with caplog.at_level("WARNING", logger="robokin.sim"):
        res = sim.run_controller(
            m, d, lambda t, d: LEG.ik([0.035, -0.12]).q + 0.5, t_end=2.0, rate=50, on_diverge="stop", max_qacc=1e300
        )
    assert not res.stable
    assert any("MuJoCo" in r.getMessage() for r in caplog.records)
    assert not (tmp_path / "MUJOCO_LOG.TXT").exists()


def test_every_keyword_is_checked():
    m = sim.fivebar_model(LEG, masses=MASSES, actuator="torque")
    d = mujoco.MjData(m)
    d.qpos[:] = sim.fivebar_qpos(LEG, LEG.ik([0.035, -0.12]).q)
    zero = lambda t, d: np.zeros(2)  # noqa: E731
    for kw, name in (
        (dict(max_qacc=np.nan), "max_qacc"),
        (dict(max_qacc=-1.0), "max_qacc"),
        (dict(record=3), "record"),
        (dict(t_end=1e-5), "tick"),
        (dict(t_end=1e9), "tick"),
        (dict(rate=np.inf), "rate"),
    ):
        args = dict(t_end=0.01, rate=1000) | kw
        with pytest.raises(ValueError, match=name):
            sim.run_controller(m, d, zero, **args)
    with pytest.raises(ValueError, match="record"):
        sim.run_controller(m, d, zero, t_end=0.01, rate=1000, record=lambda t, d: [np.nan])
    with pytest.raises(ValueError, match="record.*shape"):
        sim.run_controller(m, d, zero, t_end=0.01, rate=1000, record=lambda t, d: np.zeros(1 + int(t > 0)))
    with pytest.raises(ValueError, match="data"):
        sim.run_controller(m, mujoco.MjData(sim.two_link_model(ARM)), zero, t_end=0.01, rate=1000)
    with pytest.raises(ValueError, match="frame_origin"):
        sim.fivebar_feet(m, d, frame_origin=[np.nan, 0.0, 0.0])
    with pytest.raises(ValueError, match="frame_origin"):
        sim.fivebar_feet(m, d, frame_origin=[0.0, 0.0])
    with pytest.raises(ValueError, match="prefix"):
        sim.fivebar_motor_angles(m, d, prefix=3)
    with pytest.raises(ValueError, match="L_motor_A"):
        sim.fivebar_motor_angles(m, d, prefix="L_")
    with pytest.raises(ValueError, match="kv"):
        sim.fivebar_mjcf(LEG, masses=MASSES, kv=-1.0)
    with pytest.raises(ValueError, match="kp"):
        sim.fivebar_mjcf(LEG, masses=MASSES, actuator="torque", kp=np.nan)
    with pytest.raises(ValueError, match="solimp"):
        sim.fivebar_mjcf(LEG, masses=MASSES, solimp=(0.9, 0.95, 0.001, 1.5, 2.0))
    with pytest.raises(ValueError, match="foot_pin"):
        sim.fivebar_mjcf(LEG, masses=MASSES, foot_pin=[[0.0, -0.1], [0.0, -0.1]])
    with pytest.raises(ValueError, match="assembly"):
        sim.fivebar_qpos(LEG, [0.0, 0.0], assembly=1)
    m0 = sim.fivebar_model(LEG, masses=MASSES, g=0.0, actuator="none")
    with pytest.raises(ValueError, match="fivebar"):
        sim.fivebar_static_torques(m0, "leg", LEG.ik([0.035, -0.12]).q, [0.0, -10.0])
    with pytest.raises(ValueError, match="broadcast"):
        sim.fivebar_static_torques(m0, LEG, np.zeros((3, 2)), np.zeros((2, 2)))
    arm = sim.two_link_model(ARM)
    with pytest.raises(ValueError, match="q must have shape"):
        sim.inverse_dynamics(arm, np.zeros((2, 2, 2)), np.zeros(2), np.zeros(2))
    with pytest.raises(ValueError, match="rows"):
        sim.two_link_terms(arm, np.zeros((sim.MAX_ROWS + 1, 2)), np.zeros(2))
    with pytest.raises(ValueError, match="steps"):
        sim.integrate_fixed_step(lambda t, y: -y, [1.0, 0.0], dt=1e-6, t_end=1e3, method="euler")
    with pytest.raises(ValueError, match="at most"):
        sim.step_limit(-np.eye(2002), method="euler")


def test_step_record_logs_every_mujoco_step():
    # a 0.5 ms step under a 1 kHz controller: the tick record sees every second step, step_record all of them
    m = sim.fivebar_model(LEG, masses=MASSES, kp=20.0, kv=0.2, timestep=5e-4)
    d = mujoco.MjData(m)
    d.qpos[:] = sim.fivebar_qpos(LEG, LEG.ik([0.035, -0.12]).q)
    q_cmd = LEG.ik([0.035, -0.10]).q
    res = sim.run_controller(
        m, d, lambda t, d: q_cmd, t_end=0.05, rate=1000, record=lambda t, d: d.qpos[:1], step_record=lambda t, d: d.qpos
    )
    S, T = res.signals["step_record"], res.signals["step_t"]
    assert S.shape == (100, 4) and T.shape == (100,)
    np.testing.assert_allclose(T, np.arange(1, 101) * 5e-4, atol=1e-12)
    np.testing.assert_array_equal(S[1:-1:2, 0], res.signals["record"][1:, 0])  # the tick record is every other step
    assert np.abs(np.diff(S[:, 0])).max() > 0
    with pytest.raises(ValueError, match="step_record"):
        sim.run_controller(m, d, lambda t, d: q_cmd, t_end=0.01, rate=1000, step_record="qpos")
    # a diverging run keeps only the finite steps
    m2 = sim.fivebar_model(LEG, masses=MASSES, kp=2000.0, kv=0.0, timestep=0.02, integrator="Euler")
    d2 = mujoco.MjData(m2)
    d2.qpos[:] = sim.fivebar_qpos(LEG, LEG.ik([0.035, -0.12]).q)
    r2 = sim.run_controller(
        m2, d2, lambda t, d: q_cmd + 0.5, t_end=2.0, rate=50, on_diverge="stop", step_record=lambda t, d: d.qpos
    )
    assert not r2.stable and np.all(np.isfinite(r2.signals["step_record"]))


def test_record_copies_live_views():
    m = sim.fivebar_model(LEG, masses=MASSES, kp=20.0, kv=0.2)
    d = mujoco.MjData(m)
    d.qpos[:] = sim.fivebar_qpos(LEG, LEG.ik([0.035, -0.12]).q)
    q_cmd = LEG.ik([0.035, -0.10]).q
    res = sim.run_controller(m, d, lambda t, d: q_cmd, t_end=0.05, rate=1000, record=lambda t, d: d.qpos)
    np.testing.assert_array_equal(res.signals["record"], res.q)  # each row is that tick's state, not the last one


# ------------------------------------------------------------------ issue 29: errors name the argument
@pytest.mark.parametrize("bad", [None, 1.0, "arm", object(), type(UR5)])
def test_dh_mjcf_refuses_what_is_not_a_standard_dh_arm(bad):
    with pytest.raises(ValueError, match="arm must be a robokin.serial.SerialArm"):
        sim.dh_mjcf(bad, masses=np.ones(6), coms=np.zeros((6, 3)), inertias=np.ones((6, 3)))


def test_integrate_fixed_step_refuses_a_class_as_rhs_and_an_empty_state():
    with pytest.raises(ValueError, match="rhs must be a callable"):
        sim.integrate_fixed_step(float, [0.0, 1.0], dt=0.01, t_end=0.1, method="euler")
    with pytest.raises(ValueError, match="y0 must have shape"):
        sim.integrate_fixed_step(lambda t, y: y, [], dt=0.01, t_end=0.1, method="euler")


def test_step_limit_checks_the_semi_implicit_structure_even_for_a_zero_matrix():
    with pytest.raises(ValueError, match=r"A must be \[\[0, I\]"):
        sim.step_limit(np.zeros((2, 2)), method="semi_implicit_euler")
    assert sim.step_limit(np.zeros((2, 2)), method="euler") == np.inf  # documented: no step is unstable
    assert sim.step_limit(np.array([[0.0, 1.0], [0.0, 0.0]]), method="semi_implicit_euler") == np.inf


# ---- independent mutants (issue 29, tools/mutations_independent.py) ----------------------------------------------
def test_motor_model_refuses_any_negative_rotor_inertia():
    """ind-sim-rotor-inertia: a negative reflected inertia (even -0.5 kg m^2) is refused; zero is allowed."""
    assert sim.MotorModel(1.0, 100.0, 0.9, rotor_inertia=0.0).rotor_inertia == 0.0
    for bad in (-0.5, -1e-9):
        with pytest.raises(ValueError, match="rotor_inertia"):
            sim.MotorModel(1.0, 100.0, 0.9, rotor_inertia=bad)


# ---------------------------------------------------------------------------- implicit fixed steps
def test_implicit_one_step_maps_are_the_rational_stability_functions():
    # on y' = A y one step is R(hA): (I - hA)^-1 (backward Euler), (I - hA/2)^-1 (I + hA/2) (trapezoid), at any h;
    # trips if the Newton solve stopped early, the Jacobian were wrong or the trapezoid used only one end
    A = _mode(300.0, 400.0)
    I = np.eye(2)
    for h in (1e-3, 0.1, 10.0):  # up to 3000 times RK4's limit
        want = {
            "backward_euler": np.linalg.inv(I - h * A),
            "trapezoid": np.linalg.solve(I - h * A / 2, I + h * A / 2),
        }
        for m, Phi_want in want.items():
            cols = [sim.integrate_fixed_step(_linear(A), e, dt=h, t_end=h, method=m) for e in I]
            Phi = np.array([np.r_[r.q[-1], r.qd[-1]] for r in cols]).T
            np.testing.assert_allclose(Phi, Phi_want, rtol=1e-7, atol=1e-9)
            assert np.abs(np.linalg.eigvals(Phi)).max() <= 1.0


@settings(max_examples=30, deadline=None)
@given(hst.floats(0.0, 5.0), hst.floats(0.1, 1e4), hst.sampled_from(("backward_euler", "trapezoid")))
def test_property_implicit_methods_have_no_step_limit(zeta, omega, method):
    A = _mode(2 * zeta * omega, omega**2)
    assert sim.step_limit(A, method=method) == np.inf
    r = sim.integrate_fixed_step(_linear(A), [1.0, 0.0], dt=50 / omega, t_end=500 / omega, method=method)
    assert r.stable and np.abs(np.c_[r.q, r.qd / omega]).max() <= 1.0 + 1e-6  # never grows


def test_backward_euler_damps_a_stiff_mode_the_trapezoid_rings():
    # |R(-inf)| = 0 (L-stable) against 1: at h |lambda| = 1000 the trapezoid keeps flipping the fast mode's sign
    lam, h = -1e6, 1e-3
    f = lambda t, y: np.array([y[1], lam * y[1]])  # noqa: E731
    be = sim.integrate_fixed_step(f, [0.0, 1.0], dt=h, t_end=10 * h, method="backward_euler")
    tr = sim.integrate_fixed_step(f, [0.0, 1.0], dt=h, t_end=10 * h, method="trapezoid")
    assert abs(be.qd[1, 0]) < 2e-3 and abs(be.qd[-1, 0]) < 1e-20
    r_tr = (1 + h * lam / 2) / (1 - h * lam / 2)
    np.testing.assert_allclose(tr.qd[1:, 0], r_tr ** np.arange(1, 11), rtol=1e-6)
    assert np.all(np.diff(np.sign(tr.qd[1:, 0])) != 0) and abs(tr.qd[-1, 0]) > 0.9


def test_rhs_calls_are_counted():
    A = _mode(1.0, 4.0)
    for m, per_step in (("euler", 1), ("semi_implicit_euler", 1), ("rk4", 4)):
        r = sim.integrate_fixed_step(_linear(A), [1.0, 0.0], dt=0.01, t_end=0.1, method=m)
        np.testing.assert_array_equal(r.signals["rhs_calls"], per_step * np.arange(11))
    calls = []
    r = sim.integrate_fixed_step(
        lambda t, y: (calls.append(t), A @ y)[1], [1.0, 0.0], dt=0.01, t_end=0.1, method="trapezoid"
    )
    assert r.signals["rhs_calls"][-1] == len(calls)
    # per step: f at the start, one column per state, and at least two Newton residuals (the last one confirms)
    assert np.all(np.diff(r.signals["rhs_calls"]) >= 1 + 2 + 2)


def test_nonlinear_implicit_step_converges_to_its_equation():
    # y' = -y^3 (a cubic damper): each backward-Euler step solves y1 = y0 - h y1^3 to newton_tol
    f = lambda t, y: np.array([y[1], -(y[1] ** 3)])  # noqa: E731
    r = sim.integrate_fixed_step(f, [0.0, 2.0], dt=0.5, t_end=5.0, method="backward_euler", newton_tol=1e-13)
    v = r.qd[:, 0]
    np.testing.assert_allclose(v[1:] + 0.5 * v[1:] ** 3, v[:-1], rtol=1e-12)
    # and its first order of accuracy against solve_ivp: halving the step halves the error
    from scipy.integrate import solve_ivp

    exact = solve_ivp(f, (0, 2.0), [0.0, 2.0], rtol=1e-12, atol=1e-14).y[1, -1]
    e1, e2 = (
        abs(sim.integrate_fixed_step(f, [0.0, 2.0], dt=h, t_end=2.0, method="backward_euler").qd[-1, 0] - exact)
        for h in (0.01, 0.005)
    )
    assert abs(np.log2(e1 / e2) - 1) < 0.1


def test_implicit_step_failures_are_named():
    from robokin.errors import IntegrationError

    f = lambda t, y: np.array([y[1], -(y[1] ** 3)])  # noqa: E731
    with pytest.raises(
        IntegrationError, match=r"backward_euler\), step 1 \(t = 1 s\): Newton's method did not converge in 1 iteration"
    ):
        sim.integrate_fixed_step(f, [0.0, 2.0], dt=1.0, t_end=2.0, method="backward_euler", max_newton=1)
    # y' = y at h = 1: I - h J = 0
    g = lambda t, y: np.array([y[1], y[1]])  # noqa: E731
    with pytest.raises(IntegrationError, match="iteration matrix I - h J is singular"):
        sim.integrate_fixed_step(g, [0.0, 1.0], dt=1.0, t_end=1.0, method="backward_euler")
    # a right-hand side that turns NaN inside the Newton iteration is named as the callback
    nan_late = lambda t, y: np.array([y[1], np.nan if t > 0.5 else -y[1]])  # noqa: E731
    with pytest.raises(ValueError, match=r"rhs .*non-finite|rhs.*nan"):
        sim.integrate_fixed_step(nan_late, [0.0, 1.0], dt=1.0, t_end=1.0, method="trapezoid")
    # a Newton iterate outside rhs's domain (q < -1 under the square root) is the iteration's failure
    sqrt_rhs = lambda t, y: np.array([y[1], -np.sqrt(y[0] + 1.0)])  # noqa: E731
    with np.errstate(invalid="ignore"), pytest.raises(IntegrationError, match="left the domain of rhs"):
        sim.integrate_fixed_step(sqrt_rhs, [0.0, 0.0], dt=3.0, t_end=3.0, method="backward_euler")


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"newton_tol": 0.0}, "newton_tol"),
        ({"newton_tol": 1e-20}, r"newton_tol must be in \[1e-14, 1e-3\]"),
        ({"newton_tol": 0.5}, r"newton_tol must be in \[1e-14, 1e-3\]"),
        ({"newton_tol": np.nan}, "newton_tol"),
        ({"max_newton": 0}, "max_newton"),
        ({"max_newton": 1.5}, "max_newton"),
        ({"max_newton": 1000}, "max_newton"),
    ],
)
def test_implicit_options_bad_input(kw, match):
    with pytest.raises(ValueError, match=match):
        sim.integrate_fixed_step(_linear(_mode(1.0, 1.0)), [1.0, 0.0], dt=0.1, t_end=1.0, method="trapezoid", **kw)
