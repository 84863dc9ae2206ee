"""Impedance control at the tip (robokin.control.ImpedanceController) and the simulators' tip force ``f_tip``."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robokin.control import ImpedanceController, impedance_controller, simulate, simulate_ivp, tracking_controller
from robokin.dynamics import TwoLinkArm
from robokin.robots import ARM2

ARM = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)


def const_force(F):
    F = np.asarray(F, dtype=float)
    return lambda t: np.zeros(np.shape(t) + (2,)) + F


def tip(arm, q):
    return arm.fk(q)[1]


def spd(rng, lo, hi):
    """A random symmetric positive definite 2x2 with eigenvalues in [lo, hi]."""
    a = rng.uniform(0, np.pi)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return R @ np.diag(rng.uniform(lo, hi, 2)) @ R.T


def test_static_stiffness_is_K_in_every_configuration():
    # trips if J^T were J, the sign of the spring were wrong, or G were left out: the deflection would not be K^-1 F
    rng = np.random.default_rng(3)
    for _ in range(4):
        K = spd(rng, 300.0, 900.0)
        q_ref = rng.uniform([-1.0, 0.6], [1.0, 2.4])  # elbow away from stretched / folded
        F = rng.uniform(-10, 10, 2)
        ctl = impedance_controller(ARM2, stiffness=K, damping=2 * np.sqrt(K.max()) * np.eye(2), q_ref=q_ref)
        res = simulate(ARM2, ctl, q0=q_ref, qd0=[0, 0], ref=ctl.hold, t_end=4.0, f_tip=const_force(F), record_every=100)
        assert np.abs(res.qd[-1]).max() < 1e-7
        np.testing.assert_allclose(tip(ARM2, res.q[-1]) - ctl.x_ref, np.linalg.solve(K, F), atol=1e-9)


def test_without_gravity_compensation_the_tip_sags():
    # the intervention: the same spring without G_hat settles off K^-1 F by K^-1 J^-T G at the settled pose
    K = np.diag([400.0, 400.0])
    ctl = impedance_controller(ARM2, stiffness=K, damping=60.0, q_ref=[0.3, 1.2], gravity=False)
    res = simulate(ARM2, ctl, q0=ctl.q_ref, qd0=[0, 0], ref=ctl.hold, t_end=6.0, record_every=100)
    q_end = res.q[-1]
    sag = tip(ARM2, q_end) - ctl.x_ref
    pred = -np.linalg.solve(K, ARM2.tip_force(q_end, ARM2.gravity(q_end)))
    assert np.abs(sag).max() > 5e-3
    np.testing.assert_allclose(sag, pred, atol=1e-8)


def test_linearised_tip_dynamics_are_lambda_d_k():
    # small motions about the set point obey Lambda x'' + D x' + K x = 0 with Lambda = J^-T M J^-1 (not a chosen mass)
    q_ref = np.array([0.4, 1.3])
    K, D = np.array([[500.0, 80.0], [80.0, 300.0]]), np.diag([30.0, 20.0])
    ctl = impedance_controller(ARM2, stiffness=K, damping=D, q_ref=q_ref)

    def f(x):
        return np.r_[x[2:], ARM2.forward_dynamics(x[:2], x[2:], ctl.torque(x[:2], x[2:]))]

    x0, h = np.r_[q_ref, 0, 0], 1e-6
    A = np.stack([(f(x0 + h * e) - f(x0 - h * e)) / (2 * h) for e in np.eye(4)], -1)
    J = ARM2.jacobian(q_ref)
    Jinv = np.linalg.inv(J)
    Lam = Jinv.T @ ARM2.mass_matrix(q_ref) @ Jinv
    A_task = np.block([[np.zeros((2, 2)), np.eye(2)], [-np.linalg.solve(Lam, K), -np.linalg.solve(Lam, D)]])
    ev, ev_task = np.sort_complex(np.linalg.eigvals(A)), np.sort_complex(np.linalg.eigvals(A_task))
    np.testing.assert_allclose(ev, ev_task, rtol=1e-6)
    # and not with the arm's mass swapped for an identity: the check can fail
    A_unit = np.block([[np.zeros((2, 2)), np.eye(2)], [-K, -D]])
    assert np.abs(np.sort_complex(np.linalg.eigvals(A_unit)) - ev).max() > 1.0


def test_f_tip_matches_solve_ivp_and_pd_balance():
    # the tip force enters as J^T F in both simulators; under joint PD + gravity the rest balance is Kp e = -J^T F
    F = np.array([3.0, -5.0])
    ctl = tracking_controller(ARM, kind="pd_gravity", kp=200.0, kd=40.0)
    q_s = np.array([0.2, 0.9])

    def hold(t):
        z = np.zeros(np.shape(t) + (2,))
        return z + q_s, z, z

    a = simulate(ARM, ctl, q0=q_s, qd0=[0, 0], ref=hold, t_end=2.0, f_tip=const_force(F), record_every=500)
    b = simulate_ivp(ARM, ctl, q0=q_s, qd0=[0, 0], ref=hold, t_end=2.0, t_eval=a.t[1:], f_tip=const_force(F))
    np.testing.assert_allclose(a.q[1:], b.q, atol=1e-8)
    a4 = simulate(ARM, ctl, q0=q_s, qd0=[0, 0], ref=hold, t_end=6.0, f_tip=const_force(F), record_every=500)
    e = a4.q[-1] - q_s
    np.testing.assert_allclose(200.0 * e, ARM.jacobian(a4.q[-1]).T @ F, atol=1e-7)
    none = simulate(ARM, ctl, q0=q_s, qd0=[0, 0], ref=hold, t_end=2.0, record_every=500)
    assert np.abs(none.q[-1] - a.q[-1]).max() > 1e-3  # the force moved the arm


def test_time_varying_force_is_sampled_at_stage_times():
    # a force switched on at t = 0.5 s: before it the arm holds still, after it it moves
    ctl = impedance_controller(ARM, stiffness=400.0, damping=40.0, q_ref=[0.3, 1.2])

    def step(t):
        return np.where(np.asarray(t)[..., None] >= 0.5, [0.0, -8.0], [0.0, 0.0])

    res = simulate(ARM, ctl, q0=ctl.q_ref, qd0=[0, 0], ref=ctl.hold, t_end=1.0, f_tip=step, record_every=1)
    before, after = res.t < 0.5, res.t > 0.6
    assert np.abs(res.q[before] - ctl.q_ref).max() < 1e-12
    assert np.abs(res.q[after] - ctl.q_ref).max() > 1e-3


@settings(max_examples=30, deadline=None)
@given(
    st.floats(1.0, 1e4),
    st.floats(0.0, 1e3),
    st.floats(-2.0, 2.0),
    st.floats(0.3, 2.8),
    st.floats(-1.0, 1.0),
    st.floats(-1.0, 1.0),
)
def test_torque_at_rest_is_gravity_plus_J_T_K_e(k, d, q1, q2, dq1, dq2):
    # property: at rest the law is G + J^T K (x_ref - x); trips on a wrong sign, a J for J^T or a missing G
    ctl = impedance_controller(ARM, stiffness=k, damping=d, q_ref=[q1, q2])
    q = np.array([q1 + 0.1 * dq1, q2 + 0.1 * dq2])
    expect = ARM.gravity(q) + ARM.jacobian(q).T @ (k * (ctl.x_ref - tip(ARM, q)))
    np.testing.assert_allclose(ctl.torque(q, [0.0, 0.0]), expect, rtol=1e-10, atol=1e-9)


def test_torque_batches():
    ctl = impedance_controller(ARM, stiffness=[500.0, 200.0], damping=30.0, q_ref=[0.3, 1.2])
    rng = np.random.default_rng(0)
    q, qd = rng.normal(size=(2, 7, 3, 2))
    T = ctl.torque(q, qd)
    assert T.shape == (7, 3, 2)
    np.testing.assert_allclose(T[4, 1], ctl.torque(q[4, 1], qd[4, 1]), rtol=1e-14)


def test_gains_stored_as_read_only_matrices():
    ctl = impedance_controller(ARM, stiffness=[500.0, 200.0], damping=0.0, q_ref=[0.3, 1.2])
    assert isinstance(ctl, ImpedanceController)
    np.testing.assert_array_equal(ctl.stiffness, np.diag([500.0, 200.0]))
    np.testing.assert_array_equal(ctl.damping, np.zeros((2, 2)))
    np.testing.assert_allclose(ctl.x_ref, tip(ARM, [0.3, 1.2]))
    with pytest.raises(ValueError):
        ctl.stiffness[0, 0] = 1.0


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"stiffness": [[400.0, 50.0], [0.0, 400.0]]}, "stiffness must be symmetric"),
        ({"stiffness": [[400.0, 500.0], [500.0, 400.0]]}, "stiffness must be positive definite"),
        ({"stiffness": 0.0}, "stiffness must be positive definite"),
        ({"stiffness": np.nan}, "stiffness"),
        ({"stiffness": True}, "stiffness must be a number, not a bool"),
        ({"stiffness": [1.0, 2.0, 3.0]}, r"stiffness must be a scalar, shape \(2,\)"),
        ({"stiffness": 1 + 2j}, "stiffness"),
        ({"stiffness": [[1.0], [2.0, 3.0]]}, "ragged"),
        ({"damping": -1.0}, "damping must be positive semidefinite"),
        ({"damping": np.inf}, "damping"),
        ({"q_ref": [0.1, 0.2, 0.3]}, "q_ref"),
        ({"q_ref": [[0.1, 0.2]]}, r"q_ref must have shape \(2,\)"),
        ({"q_ref": [np.nan, 0.2]}, "q_ref"),
        ({"gravity": 1}, "gravity"),
    ],
)
def test_bad_gains_named(kw, match):
    args = {"stiffness": 400.0, "damping": 40.0, "q_ref": [0.3, 1.2]} | kw
    with pytest.raises(ValueError, match=match):
        impedance_controller(ARM, **args)


def test_bad_model_named():
    with pytest.raises(ValueError, match="model must be a robokin.dynamics.TwoLinkArm"):
        impedance_controller("arm", stiffness=1.0, damping=1.0, q_ref=[0, 1])
    batch = ARM.replace(m1=np.array([1.0, 1.1]))
    with pytest.raises(ValueError, match="model must describe one arm"):
        impedance_controller(batch, stiffness=1.0, damping=1.0, q_ref=[0, 1])


@pytest.mark.parametrize(
    "f_tip, match",
    [
        (lambda t: np.zeros(np.shape(t) + (3,)), r"f_tip\(t\) must return real forces of shape"),
        (lambda t: np.zeros(2), r"f_tip\(t\) must return real forces of shape"),
        (lambda t: np.full(np.shape(t) + (2,), np.nan), r"non-finite force"),
        (lambda t: np.zeros(np.shape(t) + (2,), dtype=complex), "real forces"),
        (lambda t: None, "real forces"),
        ("push", "f_tip must be a callable"),
    ],
)
def test_bad_tip_force_named(f_tip, match):
    ctl = impedance_controller(ARM, stiffness=400.0, damping=40.0, q_ref=[0.3, 1.2])
    with pytest.raises(ValueError, match=match):
        simulate(ARM, ctl, q0=ctl.q_ref, qd0=[0, 0], ref=ctl.hold, t_end=0.1, f_tip=f_tip)
    with pytest.raises(ValueError, match=match):
        simulate_ivp(ARM, ctl, q0=ctl.q_ref, qd0=[0, 0], ref=ctl.hold, t_end=0.1, t_eval=[0.1], f_tip=f_tip)


def test_force_nan_later_in_time_is_named_with_its_time():
    ctl = impedance_controller(ARM, stiffness=400.0, damping=40.0, q_ref=[0.3, 1.2])

    def late_nan(t):
        return np.where(np.asarray(t)[..., None] > 0.05, np.nan, 0.0) + np.zeros(np.shape(t) + (2,))

    with pytest.raises(ValueError, match=r"non-finite force \(\[nan, nan\]\) at t = 0.0505 s"):
        simulate(ARM, ctl, q0=ctl.q_ref, qd0=[0, 0], ref=ctl.hold, t_end=0.1, f_tip=late_nan)
