"""Tests for robokin.control: references, controllers, the batch RK4 simulator, error prediction, Monte Carlo."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robokin.control import (
    V_EPS,
    AdaptiveController,
    Controller,
    SlidingModeController,
    adaptive_controller,
    converged,
    friction_torque,
    gravity_compensation,
    monte_carlo,
    quintic_reference,
    sample_arms,
    simulate,
    simulate_ivp,
    sliding_mode_controller,
    steady_state_error,
    teach_residual,
    tracking_controller,
    tracking_error,
    tracking_metrics,
)
from robokin.results import SimResult
from robokin.validation.control import scenario, validate

S = scenario()
NOM, PLANT, Q0, QF = S["nominal"], S["plant"], S["q0"], S["qf"]
CT = tracking_controller(NOM, kind="computed_torque", kp=100.0, kd=20.0)
HSET = settings(deadline=None)  # example count and seeding come from the profile (tests/conftest.py)


def quintic(q0, qf, T, t):
    """The reference of a rest-to-rest move, evaluated at ``t``."""
    return quintic_reference(q0, qf, T)(np.asarray(t, dtype=float))


def test_quintic_boundary_conditions_and_derivatives():
    q0, qf, T = np.array([0.2, -1.0]), np.array([1.0, 0.5]), 1.7
    t = np.linspace(0, T, 101)
    q, qd, qdd = quintic(q0, qf, T, t)
    assert np.allclose(q[0], q0) and np.allclose(q[-1], qf)
    assert np.allclose(qd[[0, -1]], 0) and np.allclose(qdd[[0, -1]], 0, atol=1e-12)
    h = 1e-6
    qp, qdp, _ = quintic(q0, qf, T, t[1:-1] + h)
    qm, qdm, _ = quintic(q0, qf, T, t[1:-1] - h)
    assert np.allclose((qp - qm) / (2 * h), qd[1:-1], atol=1e-7)
    assert np.allclose((qdp - qdm) / (2 * h), qdd[1:-1], atol=1e-6)
    # held at the goal afterwards
    qa, qda, qdda = quintic(q0, qf, T, [T + 1.0])
    assert np.allclose(qa, qf) and np.allclose(qda, 0) and np.allclose(qdda, 0)


@HSET
@given(st.floats(-10, 10), st.floats(-10, 10))
def test_friction_is_dissipative_and_odd(v1, v2):
    qd = np.array([v1, v2])
    f = friction_torque(qd, [0.2, 0.1], [0.3, 0.2])
    assert np.all(f * qd >= 0)
    assert np.allclose(friction_torque(-qd, [0.2, 0.1], [0.3, 0.2]), -f)


def test_gravity_compensation_holds_exact_model_still():
    q = np.array([0.3, 0.4])
    ctl = tracking_controller(NOM, kind="pd_gravity", kp=0.0, kd=5.0)
    res = simulate(
        NOM,
        ctl,
        q0=q,
        qd0=[0, 0],
        ref=lambda t: (np.broadcast_to(q, np.shape(t) + (2,)),) + (np.zeros(np.shape(t) + (2,)),) * 2,
        t_end=1.0,
    )
    assert np.max(np.abs(res.q - q)) < 1e-12
    assert np.allclose(gravity_compensation(NOM, q), NOM.gravity(q))


def test_computed_torque_with_exact_model_tracks_exactly_pd_does_not():
    ref = quintic_reference(Q0, QF, 1.0)
    ct = simulate(NOM, CT, q0=Q0, qd0=[0, 0], ref=ref, t_end=1.5)
    M = NOM.mass_matrix(QF)
    pd = tracking_controller(NOM, kind="pd_gravity", kp=np.diag(M) * 100, kd=np.diag(M) * 20)
    pdr = simulate(NOM, pd, q0=Q0, qd0=[0, 0], ref=ref, t_end=1.5)
    assert np.max(np.abs(tracking_error(ct))) < 1e-9
    assert np.max(np.abs(tracking_error(pdr))) > 1e-3


def test_batch_simulation_equals_individual_runs():
    arms, fv, fc = sample_arms(NOM, 3, rng=np.random.default_rng(0))
    ref = quintic_reference(Q0, QF, 0.5)
    batch = simulate(arms, CT, q0=Q0, qd0=[0, 0], ref=ref, t_end=0.5, fv=fv, fc=fc, record_every=50)
    for k in range(3):
        one = arms.replace(
            **{f: float(getattr(arms, f)[k]) for f in ("m1", "m2", "l1", "l2", "lc1", "lc2", "I1", "I2")}
        )
        single = simulate(one, CT, q0=Q0, qd0=[0, 0], ref=ref, t_end=0.5, fv=fv[k], fc=fc[k], record_every=50)
        assert np.max(np.abs(single.q - batch.q[k])) < 1e-13
    assert batch.q.shape == (3, 11, 2) and batch.stable.shape == (3,)


def test_rk4_matches_solve_ivp_with_friction():
    ref = quintic_reference(Q0, QF, 1.0)
    rk = simulate(PLANT, CT, q0=Q0, qd0=[0, 0], ref=ref, t_end=0.6, fv=[0.3, 0.2], fc=[0.2, 0.1], record_every=20)
    iv = simulate_ivp(
        PLANT,
        CT,
        q0=Q0,
        qd0=[0, 0],
        ref=ref,
        t_end=0.6,
        t_eval=rk.t,
        fv=[0.3, 0.2],
        fc=[0.2, 0.1],
        rtol=1e-9,
        atol=1e-9,
    )
    assert np.max(np.abs(rk.q - iv.q)) < 1e-7


@pytest.mark.parametrize("kind,kp", [("pd", 200.0), ("pd_gravity", 100.0), ("computed_torque", 100.0)])
def test_predicted_steady_state_error_matches_simulation(kind, kp):
    # PD gains are torques: scale by the diagonal of the model's mass matrix at the goal
    scale = 1.0 if kind == "computed_torque" else np.diag(NOM.mass_matrix(QF))
    ctl = tracking_controller(NOM, kind=kind, kp=kp * scale, kd=2 * np.sqrt(kp) * scale)
    res = simulate(PLANT, ctl, q0=Q0, qd0=[0, 0], ref=quintic_reference(Q0, QF, 1.0), t_end=6.0, dt=0.004)
    e_pred = steady_state_error(PLANT, ctl, QF)
    assert np.max(np.abs(e_pred)) > 1e-4  # the mismatch really causes an error
    assert np.max(np.abs(tracking_error(res)[-1] - e_pred)) < 1e-6


def test_steady_state_error_sign_follows_the_mismatch():
    # plant heavier than the model -> the arm sags below the target at the horizontal pose
    ctl = tracking_controller(NOM, kind="pd_gravity", kp=100.0, kd=10.0)
    e = steady_state_error(PLANT, ctl, [0.0, 0.0])
    assert np.all(e > 0)  # e = q_ref - q > 0: q below the reference (gravity pulls towards -q)
    lighter = NOM.replace(m2=0.7, m1=1.1)
    assert np.all(steady_state_error(lighter, ctl, [0.0, 0.0]) < 0)


def test_integral_action_removes_the_error():
    ctl = tracking_controller(NOM, kind="computed_torque", kp=300.0, kd=30.0, ki=1000.0)
    res = simulate(PLANT, ctl, q0=Q0, qd0=[0, 0], ref=quintic_reference(Q0, QF, 1.0), t_end=4.0, dt=0.004)
    assert np.max(np.abs(tracking_error(res)[-1])) < 1e-6
    assert np.allclose(steady_state_error(PLANT, ctl, QF), 0)


def test_sample_arms_ranges_and_determinism():
    a1, fv1, fc1 = sample_arms(NOM, 500, rng=np.random.default_rng(3), rel=0.05, fv_max=0.4, fc_max=0.2)
    a2, fv2, _ = sample_arms(NOM, 500, rng=np.random.default_rng(3), rel=0.05, fv_max=0.4, fc_max=0.2)
    assert np.array_equal(a1.m2, a2.m2) and np.array_equal(fv1, fv2)
    for f in ("m1", "m2", "lc1", "lc2", "I1", "I2"):
        r = getattr(a1, f) / getattr(NOM, f)
        assert r.min() >= 0.95 and r.max() <= 1.05 and r.std() > 0.01
    assert np.all(a1.l1 == NOM.l1)
    assert fv1.max() <= 0.4 and fc1.max() <= 0.2 and fv1.min() >= 0


def test_tracking_metrics_on_a_known_response():
    t = np.linspace(0, 2, 201)
    y = 1 - np.exp(-3 * t) * np.cos(6 * t)  # overshooting step, goal 1
    q = np.stack([y, 2 * y], -1)
    zero = np.zeros_like(q)
    res = SimResult(
        t=t, q=q, qd=zero, u=zero, stable=np.array(True), signals={"q_ref": np.tile([1.0, 2.0], (201, 1)), "z": zero}
    )
    m = tracking_metrics(res, q_start=[0, 0])
    true_os = np.max(y - 1)
    assert abs(float(m["overshoot"]) - true_os) < 1e-12
    outside = np.abs(y - y[-1]) > 0.02
    last = np.flatnonzero(outside)[-1]
    assert float(m["settling_time"]) == pytest.approx(t[last + 1])


def test_monte_carlo_small_and_unstable_sample_flagged():
    mc = monte_carlo(NOM, CT, n=8, rng=np.random.default_rng(4), q0=Q0, qf=QF, t_move=1.0, t_end=2.0)
    assert mc.stability_rate == 1.0
    assert np.all(np.isfinite(mc.metrics["settling_time"]))
    # a step far too large for RK4 with stiff gains diverges: flagged, not raised (and no warning)
    stiff = tracking_controller(NOM, kind="computed_torque", kp=1e5, kd=1e3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = simulate(
            NOM.replace(m2=np.array([0.8, 0.9])),
            stiff,
            q0=Q0,
            qd0=[0, 0],
            ref=quintic_reference(Q0, QF, 1.0),
            t_end=1.0,
            dt=0.05,
            record_every=1,
        )
        m = tracking_metrics(res, q_start=Q0)
    assert not np.any(res.stable)
    assert np.all(np.isinf(m["settling_time"]))


def test_validate_reports_pass():
    assert all(r.passed for r in validate(fast=True))


# ------------------------------------------------------------------------ bad input
def test_bad_inputs_raise_value_error():
    ref = quintic_reference(Q0, QF, 1.0)
    with pytest.raises(ValueError):
        quintic_reference([0, 0], [1, 1], -1.0)
    with pytest.raises(ValueError):
        quintic_reference([0, np.nan], [1, 1], 1.0)
    with pytest.raises(ValueError):
        quintic_reference([0, 0], [1, 1, 1], 1.0)
    with pytest.raises(ValueError):
        quintic_reference([[0, 0]], [[1, 1]], 1.0)
    with pytest.raises(ValueError):
        quintic_reference([0, 0], [1, np.nan], 1.0)
    with pytest.raises(ValueError):
        tracking_error(
            SimResult(t=np.zeros(1), q=np.zeros((1, 2)), qd=np.zeros((1, 2)), u=np.zeros((1, 2)), stable=True)
        )
    with pytest.raises(ValueError):
        monte_carlo(NOM, CT, n=0, rng=np.random.default_rng(0), q0=Q0, qf=QF, t_move=1.0, t_end=2.0)
    with pytest.raises(ValueError):
        simulate(PLANT, CT, q0=[0, 0], qd0=[0, 0], ref=ref, t_end=1.0, fv=np.ones((1, 2)))
    with pytest.raises(ValueError):
        friction_torque([1.0, 1.0], -0.1, 0.0)
    with pytest.raises(ValueError):
        friction_torque([1.0], 0.1, 0.0)
    with pytest.raises(ValueError):
        gravity_compensation("arm", [0, 0])
    with pytest.raises(ValueError):
        tracking_controller(NOM, kind="lqr", kp=1, kd=1)
    with pytest.raises(ValueError):
        tracking_controller(NOM, kind="pd", kp=-1, kd=1)
    with pytest.raises(ValueError):
        tracking_controller(NOM, kind="pd", kp=[1, 2, 3], kd=1)
    with pytest.raises(ValueError):
        tracking_controller(NOM.replace(m1=np.ones(2)), kind="pd", kp=1, kd=1)
    with pytest.raises(ValueError):
        CT.torque([0, np.inf], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0])
    with pytest.raises(ValueError):
        simulate(PLANT, CT, q0=[0, np.nan], qd0=[0, 0], ref=ref, t_end=1.0)
    with pytest.raises(ValueError):
        simulate(PLANT, CT, q0=[0, 0], qd0=[0, 0], ref=ref, t_end=0.0)
    with pytest.raises(ValueError):
        simulate(PLANT, CT, q0=[0, 0], qd0=[0, 0], ref="quintic", t_end=1.0)
    with pytest.raises(ValueError):
        simulate(PLANT, "ct", q0=[0, 0], qd0=[0, 0], ref=ref, t_end=1.0)
    with pytest.raises(ValueError):
        simulate(PLANT, CT, q0=[0, 0], qd0=[0, 0], ref=ref, t_end=1.0, record_every=0)
    with pytest.raises(ValueError):
        simulate(PLANT, CT, q0=[0, 0], qd0=[0, 0], ref=ref, t_end=1.0, fv=np.ones((3, 2)))
    with pytest.raises(ValueError):
        simulate(PLANT, CT, q0=[0, 0], qd0=[0, 0], ref=lambda t: (t, t, t), t_end=0.01)
    with pytest.raises(ValueError):
        simulate_ivp(PLANT.replace(m1=np.ones(2)), CT, q0=[0, 0], qd0=[0, 0], ref=ref, t_end=1.0, t_eval=[1.0])
    with pytest.raises(ValueError):
        steady_state_error(PLANT, CT, [0, 0, 0])
    with pytest.raises(ValueError):
        steady_state_error(PLANT, tracking_controller(NOM, kind="pd", kp=0, kd=1), [0, 0])
    with pytest.raises(ValueError):
        sample_arms(NOM, 10, rng=0)
    with pytest.raises(ValueError):
        sample_arms(NOM, 1, rng=np.random.default_rng(0))
    with pytest.raises(ValueError):
        sample_arms(NOM, 10, rng=np.random.default_rng(0), rel=1.5)
    with pytest.raises(ValueError):
        sample_arms(NOM, 10, rng=np.random.default_rng(0), fv_max=-1)
    with pytest.raises(ValueError):
        tracking_metrics("res", q_start=[0, 0])
    res = simulate(PLANT, CT, q0=Q0, qd0=[0, 0], ref=ref, t_end=0.1)
    with pytest.raises(ValueError, match="non-zero step"):
        tracking_metrics(res, q_start=res.signals["q_ref"][-1])
    assert isinstance(CT, Controller)


# ------------------------------------------------------------------------ horizon and callbacks (issue #16 item 1)
REF = quintic_reference(Q0, QF, 1.0)


@pytest.mark.parametrize(
    "t_end,dt,match", [(1.0, 10.0, "no step"), (1.0, 0.3, "whole steps"), (0.5, 0.0007, "whole steps")]
)
def test_simulate_refuses_a_horizon_it_would_not_simulate(t_end, dt, match):
    # the old code took round(t_end / dt) steps: none for dt > t_end, yet reported stable=True
    with pytest.raises(ValueError, match=match):
        simulate(PLANT, CT, q0=Q0, qd0=[0, 0], ref=REF, t_end=t_end, dt=dt)


def test_simulate_last_record_is_t_end():
    with pytest.raises(ValueError, match="record_every"):
        simulate(PLANT, CT, q0=Q0, qd0=[0, 0], ref=REF, t_end=0.1, dt=1e-3, record_every=30)
    res = simulate(PLANT, CT, q0=Q0, qd0=[0, 0], ref=REF, t_end=0.1, dt=1e-3, record_every=25)
    assert res.t[-1] == pytest.approx(0.1) and res.t.size == 5


def _nan_after(t_bad):
    def ref(t):
        q, qd, qdd = REF(t)
        q = np.where(np.asarray(t)[..., None] > t_bad, np.nan, q)
        return q, qd, qdd

    return ref


def test_non_finite_reference_fails_fast_with_the_time():
    with pytest.raises(ValueError, match=r"non-finite q_ref .* t = 0\.30"):
        simulate(PLANT, CT, q0=Q0, qd0=[0, 0], ref=_nan_after(0.3), t_end=1.0)
    with pytest.raises(ValueError, match="non-finite"):
        simulate_ivp(PLANT, CT, q0=Q0, qd0=[0, 0], ref=_nan_after(0.3), t_end=1.0, t_eval=[0.5, 1.0])
    with pytest.raises(ValueError, match="tuple"):
        simulate(PLANT, CT, q0=Q0, qd0=[0, 0], ref=lambda t: np.zeros((np.size(t), 2)), t_end=0.01)


# ------------------------------------------------------------------------ mutation-proofing against closed forms
def test_quintic_equals_the_sympy_boundary_value_solution():
    import sympy as sp

    t, T, a = sp.Symbol("t"), sp.Rational(17, 10), sp.symbols("a0:6")
    p = sum(c * t**k for k, c in enumerate(a))
    eqs = [
        p.subs(t, 0),
        p.diff(t).subs(t, 0),
        p.diff(t, 2).subs(t, 0),
        p.subs(t, T) - 1,
        p.diff(t).subs(t, T),
        p.diff(t, 2).subs(t, T),
    ]
    p = p.subs(sp.solve(eqs, a))
    fs = [sp.lambdify(t, p.diff(t, k)) for k in range(3)]
    q0, qf = np.array([0.2, -1.0]), np.array([1.0, 0.5])
    tt = np.linspace(0, 1.7, 37)
    got = quintic(q0, qf, 1.7, tt)
    for k in range(3):
        want = (0 if k else q0) + np.outer(np.vectorize(fs[k])(tt), qf - q0)
        assert np.allclose(got[k], want, atol=1e-12), k
    # mid-point values (s = 1/2): q = (q0 + qf) / 2, qd = 15/8 dq / T, qdd = 0
    m = quintic([0.0], [1.0], 2.0, [1.0])
    assert m[0][0, 0] == pytest.approx(0.5) and m[1][0, 0] == pytest.approx(15 / 16) and abs(m[2][0, 0]) < 1e-12


def test_friction_torque_closed_form_values():
    # fv qd + fc tanh(qd / 0.01): the smoothing speed and both signs are pinned
    f = friction_torque([0.01, -0.02], [0.2, 0.1], [0.3, 0.5])
    assert np.allclose(f, [0.2 * 0.01 + 0.3 * np.tanh(1.0), -0.1 * 0.02 - 0.5 * np.tanh(2.0)], atol=1e-15)
    assert np.allclose(friction_torque([0.01, 0.0], 0.0, 1.0, v_eps=0.02), [np.tanh(0.5), 0.0])


def test_simulators_apply_the_documented_friction():
    # an independent right-hand side built from friction_torque and TwoLinkArm.forward_dynamics
    from scipy.integrate import solve_ivp

    fv, fc = np.array([0.3, 0.2]), np.array([0.2, 0.1])
    ctl = tracking_controller(NOM, kind="pd_gravity", kp=[20.0, 5.0], kd=[2.0, 0.5])

    def rhs(t, x):
        qr, qdr, qddr = REF(t)
        tau = ctl.torque(x[:2], x[2:4], x[4:], qr, qdr, qddr) - friction_torque(x[2:4], fv, fc)
        return np.r_[x[2:4], PLANT.forward_dynamics(x[:2], x[2:4], tau), qr - x[:2]]

    rk = simulate(PLANT, ctl, q0=Q0, qd0=[0, 0], ref=REF, t_end=0.6, fv=fv, fc=fc, record_every=20)
    sol = solve_ivp(rhs, (0, 0.6), np.r_[Q0, 0, 0, 0, 0], method="DOP853", rtol=1e-10, atol=1e-10, t_eval=rk.t)
    iv = simulate_ivp(PLANT, ctl, q0=Q0, qd0=[0, 0], ref=REF, t_end=0.6, t_eval=rk.t, fv=fv, fc=fc)
    assert np.max(np.abs(rk.q - sol.y[:2].T)) < 1e-7
    assert np.max(np.abs(iv.q - sol.y[:2].T)) < 1e-8
    # and friction matters here (a flipped sign would not go unnoticed)
    nofric = simulate(PLANT, ctl, q0=Q0, qd0=[0, 0], ref=REF, t_end=0.6, record_every=20)
    assert np.max(np.abs(nofric.q - rk.q)) > 1e-3


def test_v_eps_default_is_the_old_constant_and_a_chosen_one_is_applied():
    from scipy.integrate import solve_ivp

    from robokin.control import V_EPS

    fv, fc = np.array([0.3, 0.2]), np.array([0.2, 0.1])
    ctl = tracking_controller(NOM, kind="pd_gravity", kp=[20.0, 5.0], kd=[2.0, 0.5])
    kw = dict(q0=Q0, qd0=[0, 0], ref=REF, t_end=0.6, fv=fv, fc=fc, record_every=20)
    base = simulate(PLANT, ctl, **kw)
    assert V_EPS == 0.01
    assert np.array_equal(simulate(PLANT, ctl, **kw, v_eps=V_EPS).q, base.q)  # the default, bit for bit
    soft = simulate(PLANT, ctl, **kw, v_eps=0.2)

    def rhs(t, x):  # independent right-hand side with the softer smoothing
        qr, qdr, qddr = REF(t)
        tau = ctl.torque(x[:2], x[2:4], x[4:], qr, qdr, qddr) - friction_torque(x[2:4], fv, fc, v_eps=0.2)
        return np.r_[x[2:4], PLANT.forward_dynamics(x[:2], x[2:4], tau), qr - x[:2]]

    sol = solve_ivp(rhs, (0, 0.6), np.r_[Q0, 0, 0, 0, 0], method="DOP853", rtol=1e-10, atol=1e-10, t_eval=soft.t)
    iv = simulate_ivp(PLANT, ctl, q0=Q0, qd0=[0, 0], ref=REF, t_end=0.6, t_eval=soft.t, fv=fv, fc=fc, v_eps=0.2)
    assert np.max(np.abs(soft.q - sol.y[:2].T)) < 1e-7
    assert np.max(np.abs(iv.q - sol.y[:2].T)) < 1e-8
    assert np.max(np.abs(soft.q - base.q)) > 1e-4  # the option is not ignored


@pytest.mark.parametrize(
    "bad",
    [np.nan, np.inf, -np.inf, 0.0, -0.01, 1e13, 0.01 + 0j, 1j, [0.01], np.array([0.01, 0.01]), "0.01", True, None],
)
def test_v_eps_bad_input_names_the_argument(bad):
    kw = dict(q0=Q0, qd0=[0, 0], ref=REF, t_end=0.1, fc=0.1, v_eps=bad)
    with pytest.raises(ValueError, match="v_eps"):
        simulate(PLANT, CT, **kw)
    with pytest.raises(ValueError, match="v_eps"):
        simulate_ivp(PLANT, CT, **kw, t_eval=[0.1])


def test_v_eps_per_plant_equals_separate_runs_and_is_checked():
    arms, fv, fc = sample_arms(PLANT, 3, rng=np.random.default_rng(5), rel=0.1, fv_max=0.5, fc_max=0.3)
    fields = ("m1", "m2", "l1", "l2", "lc1", "lc2", "I1", "I2")
    arms = arms.replace(**{f: np.r_[*(2 * [np.broadcast_to(getattr(arms, f), (3,))])] for f in fields})
    fv, fc = np.r_[fv, fv], np.r_[fc, fc]
    v_eps = np.r_[np.full(3, V_EPS), np.full(3, 10 * V_EPS)]
    kw = dict(q0=Q0, qd0=[0, 0], ref=REF, t_end=0.4, dt=1e-3, record_every=1)
    both = simulate(arms, CT, fv=fv, fc=fc, v_eps=v_eps, **kw)
    for sl, ve in ((slice(0, 3), V_EPS), (slice(3, 6), 10 * V_EPS)):
        sub = arms.replace(**{f: getattr(arms, f)[sl] for f in fields})
        one = simulate(sub, CT, fv=fv[sl], fc=fc[sl], v_eps=ve, **kw)
        assert np.array_equal(one.q, both.q[sl]) and np.array_equal(one.u, both.u[sl])
    assert not np.array_equal(both.q[:3], both.q[3:])  # the smoothing was applied per plant
    for bad in (np.r_[v_eps[:5], 0.0], np.r_[v_eps[:5], np.nan], np.r_[v_eps[:5], 1e13], v_eps[:5], v_eps[None]):
        with pytest.raises(ValueError, match="v_eps"):
            simulate(arms, CT, fv=fv, fc=fc, v_eps=bad, **kw)


def test_recorded_torque_is_the_law_at_the_recorded_states():
    """simulate keeps the first stage's torque of each recorded step; it is the law at the recorded state."""
    arms, fv, fc = sample_arms(PLANT, 4, rng=np.random.default_rng(6), rel=0.1, fv_max=0.5, fc_max=0.3)
    for every in (1, 7):
        r = simulate(arms, CT, q0=Q0, qd0=[0, 0], ref=REF, t_end=0.07, dt=1e-3, fv=fv, fc=fc, record_every=every)
        qr, qdr, qddr = (np.broadcast_to(x, r.q.shape) for x in REF(r.t))
        u = CT.torque(r.q, r.qd, r.signals["z"], qr, qdr, qddr)
        assert np.allclose(r.u, u, rtol=0, atol=1e-12)


def test_v_eps_extremes_behave_as_documented():
    ctl = tracking_controller(NOM, kind="pd_gravity", kp=[20.0, 5.0], kd=[2.0, 0.5])
    kw = dict(q0=Q0, qd0=[0, 0], ref=REF, t_end=0.6, fv=0.2, record_every=20)
    viscous = simulate(PLANT, ctl, **kw)
    coulomb = simulate(PLANT, ctl, **kw, fc=0.3)
    huge = simulate(PLANT, ctl, **kw, fc=0.3, v_eps=1e6)
    # far above the joint rates the Coulomb term all but vanishes (a viscous slope fc / v_eps = 3e-7 N m s/rad)
    assert np.max(np.abs(huge.q - viscous.q)) < 1e-6 < 1e-2 < np.max(np.abs(coulomb.q - viscous.q))
    # tiny: held at rest, 1 ms is far beyond RK4's limit for the slope 0.3 / 1e-5 N m s/rad; nothing diverges,
    # but the rate of joint 2 (held by friction) chatters with an amplitude proportional to dt
    hold = quintic_reference(QF, QF, 1.0)
    amp = {}
    for dt in (1e-3, 1e-4):
        r = simulate(PLANT, ctl, q0=QF, qd0=[0, 0], ref=hold, t_end=0.2, dt=dt, fc=0.3, v_eps=1e-5, record_every=1)
        assert bool(r.stable)
        amp[dt] = float(np.abs(r.qd[r.t > 0.1, 1]).max())
    assert 5 < amp[1e-3] / amp[1e-4] < 20  # about tenfold: the step, not the physics, sets it
    assert amp[1e-3] > 100 * 1e-5


def test_v_eps_small_makes_the_ode_stiff_for_an_explicit_ivp_method():
    from robokin.errors import IntegrationError

    ctl = tracking_controller(NOM, kind="pd_gravity", kp=[20.0, 5.0], kd=[2.0, 0.5])
    kw = dict(q0=QF, qd0=[0, 0], ref=quintic_reference(QF, QF, 1.0), t_end=0.2, t_eval=[0.2], fc=0.3)
    simulate_ivp(PLANT, ctl, **kw, max_nfev=5_000)  # the default smoothing: within the budget
    with pytest.raises(IntegrationError, match="max_nfev"):
        simulate_ivp(PLANT, ctl, **kw, v_eps=1e-6, max_nfev=5_000)
    r = simulate_ivp(PLANT, ctl, **kw, v_eps=1e-6, max_nfev=5_000, method="Radau", rtol=1e-6, atol=1e-9)
    assert bool(r.stable)


@pytest.mark.parametrize("kind", ["pd", "pd_gravity", "computed_torque"])
def test_control_laws_match_their_formulas(kind):
    rng = np.random.default_rng(7)
    q, qd, z, qr, qdr, qddr = rng.uniform(-2, 2, (6, 25, 2))
    kp, kd, ki = np.array([90.0, 40.0]), np.array([15.0, 7.0]), np.array([30.0, 11.0])
    ctl = tracking_controller(NOM, kind=kind, kp=kp, kd=kd, ki=ki)
    u = kp * (qr - q) + kd * (qdr - qd) + ki * z
    if kind == "pd":
        want = u
    elif kind == "pd_gravity":
        want = u + NOM.gravity(q)
    else:
        want = NOM.inverse_dynamics(q, qd, qddr + u)
    assert np.allclose(ctl.torque(q, qd, z, qr, qdr, qddr), want, atol=1e-12)


# ------------------------------------------------------------------------ success criterion and rate intervals
def test_converged_is_stricter_than_bounded():
    res = simulate(PLANT, CT, q0=Q0, qd0=[0, 0], ref=REF, t_end=2.0, dt=1e-3)
    e_ss = float(np.abs(tracking_error(res)[-1]).max())
    assert e_ss > 1e-3 and bool(res.stable)
    assert converged(res, tol=2 * e_ss, hold=0.5) and not converged(res, tol=0.5 * e_ss, hold=0.5)
    # a decaying oscillation: settled by t = 6 s, not yet in the last 0.5 s of a 2 s run
    for t_end, want in ((6.0, True), (2.0, False)):
        t = np.linspace(0, t_end, 601)
        e = np.exp(-t) * np.cos(10 * t)
        q = np.stack([1 - e, 1 - e], -1)
        osc = SimResult(t=t, q=q, qd=0 * q, u=0 * q, stable=np.array(True), signals={"q_ref": np.ones_like(q)})
        assert bool(converged(osc, tol=0.01, hold=0.5)) is want
    with pytest.raises(ValueError, match="longer"):
        converged(res, tol=0.1, hold=5.0)
    with pytest.raises(ValueError):
        converged(res, tol=-0.1, hold=0.5)


def test_controller_built_directly_is_checked_like_tracking_controller():
    from robokin.dynamics import TwoLinkArm

    arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    ok = Controller(arm, "pd", 1.0, 2.0, 0.0)
    assert ok.kp.tolist() == [1.0, 1.0] and not ok.kp.flags.writeable
    for bad in (np.nan, np.inf, 1e300, 1 + 2j, "1", [1.0, 2.0, 3.0], -1.0):
        with pytest.raises(ValueError):
            Controller(arm, "pd", bad, 1.0, 0.0)
    with pytest.raises(ValueError, match="kind"):
        Controller(arm, "pid", 1.0, 1.0, 0.0)


# ------------------------------------------------------------------------ protocol: SimResult and t_end
def test_simresult_fields_and_signals():
    fv, fc = np.array([0.3, 0.2]), np.array([0.2, 0.1])
    arms, _, _ = sample_arms(NOM, 3, rng=np.random.default_rng(8))
    ctl = tracking_controller(NOM, kind="computed_torque", kp=100.0, kd=20.0, ki=50.0)
    res = simulate(arms, ctl, q0=Q0, qd0=[0, 0], ref=REF, t_end=0.5, fv=fv, fc=fc, record_every=1)
    assert isinstance(res, SimResult) and set(res.signals) == {"q_ref", "z"}
    K = res.t.size
    assert res.t.shape == (501,) and res.t[-1] == pytest.approx(0.5)
    assert res.q.shape == res.qd.shape == res.u.shape == res.signals["z"].shape == (3, K, 2)
    assert res.signals["q_ref"].shape == (K, 2) and res.stable.shape == (3,)
    q_ref, qd_ref, qdd_ref = REF(res.t)
    np.testing.assert_array_equal(res.signals["q_ref"], q_ref)
    np.testing.assert_array_equal(tracking_error(res), q_ref - res.q)
    # u: the control law at the recorded states (before friction)
    want = ctl.torque(res.q, res.qd, res.signals["z"], q_ref, qd_ref, qdd_ref)
    np.testing.assert_allclose(res.u, want, atol=1e-12)
    # z: the integral of the error (trapezoid on the 1 ms records, against the RK4 state)
    e = tracking_error(res)
    z_trap = np.concatenate([np.zeros((3, 1, 2)), np.cumsum(0.5 * (e[:, 1:] + e[:, :-1]) * 1e-3, axis=1)], axis=1)
    assert np.abs(res.signals["z"]).max() > 1e-4
    np.testing.assert_allclose(res.signals["z"], z_trap, atol=1e-7)  # trapezoid error O(h^2): 2e-8 here
    # simulate_ivp returns the same type, fields and signals
    one = arms.replace(**{f: float(getattr(arms, f)[0]) for f in ("m1", "m2", "l1", "l2", "lc1", "lc2", "I1", "I2")})
    iv = simulate_ivp(one, ctl, q0=Q0, qd0=[0, 0], ref=REF, t_end=0.5, t_eval=res.t, fv=fv, fc=fc)
    assert isinstance(iv, SimResult) and set(iv.signals) == {"q_ref", "z"} and iv.u.shape == (K, 2)
    np.testing.assert_allclose(iv.u, res.u[0], atol=1e-5)
    np.testing.assert_allclose(iv.signals["z"], res.signals["z"][0], atol=1e-8)


def test_simulators_take_t_end_not_t_final():
    with pytest.raises(TypeError):
        simulate(PLANT, CT, q0=Q0, qd0=[0, 0], ref=REF, t_final=0.1)
    with pytest.raises(TypeError):
        simulate_ivp(PLANT, CT, q0=Q0, qd0=[0, 0], ref=REF, t_final=0.1, t_eval=[0.1])
    with pytest.raises(TypeError):
        monte_carlo(NOM, CT, n=2, rng=np.random.default_rng(0), q0=Q0, qf=QF, t_move=1.0, t_final=2.0)
    res = simulate(PLANT, CT, q0=Q0, qd0=[0, 0], ref=REF, t_end=0.2, record_every=20)
    assert res.t[-1] == pytest.approx(0.2)


def test_scenario_is_arm2_with_heavier_links():
    from robokin.robots import ARM2

    assert S["nominal"] is ARM2
    assert S["plant"].m1 / ARM2.m1 == pytest.approx(1.05) and S["plant"].m2 / ARM2.m2 == pytest.approx(1.10)
    assert S["t_move"] == 2.0 and S["t_end"] == 5.0


# ------------------------------------------------------------------------------------ drag-to-teach residual
def test_teach_residual_is_the_gravity_error_at_rest_and_inverse_dynamics_in_motion():
    q = np.array([[0.3, -0.7], [1.2, 0.4]])
    np.testing.assert_allclose(teach_residual(PLANT, NOM, q), PLANT.gravity(q) - NOM.gravity(q), atol=1e-14)
    qd, qdd = np.array([[0.5, -1.0], [0.2, 0.3]]), np.array([[1.0, 2.0], [-0.5, 0.0]])
    fv, fc = np.array([0.2, 0.1]), np.array([0.3, 0.05])
    want = PLANT.inverse_dynamics(q, qd, qdd) + friction_torque(qd, fv, fc) - NOM.gravity(q)
    np.testing.assert_allclose(teach_residual(PLANT, NOM, q, qd=qd, qdd=qdd, fv=fv, fc=fc), want, atol=1e-12)


def test_teach_residual_matches_a_simulated_hand_at_rest():
    """G_hat plus a joint spring-damper (the hand): at rest the hand's torque is the residual."""
    hand = tracking_controller(NOM, kind="pd_gravity", kp=[40.0, 20.0], kd=[8.0, 2.0])
    q_hold = np.array([0.3, 0.6])
    run = simulate(PLANT, hand, q0=q_hold, qd0=[0, 0], ref=quintic_reference(q_hold, q_hold, 1.0), t_end=3.0, dt=2e-3)
    q = run.q[-1]
    np.testing.assert_allclose(run.u[-1] - NOM.gravity(q), teach_residual(PLANT, NOM, q), atol=1e-6)


@settings(deadline=None, max_examples=40)
@given(st.floats(-np.pi, np.pi), st.floats(-np.pi, np.pi), st.floats(0.5, 1.5), st.floats(0.5, 1.5))
def test_teach_residual_property_linear_in_the_mass_error(q1, q2, k1, k2):
    """At rest the residual is linear in the masses: scaling every mass by k gives (k - 1) G_hat."""
    q = np.array([q1, q2])
    plant = NOM.replace(m1=k1 * NOM.m1, m2=k1 * NOM.m2)
    np.testing.assert_allclose(teach_residual(plant, NOM, q), (k1 - 1) * NOM.gravity(q), atol=1e-12)
    batch = NOM.replace(m1=np.array([NOM.m1, k2 * NOM.m1]), m2=np.array([NOM.m2, k2 * NOM.m2]))
    r = teach_residual(batch, NOM, np.stack([q, q]))
    np.testing.assert_allclose(r[0], 0.0, atol=1e-12)
    np.testing.assert_allclose(r[1], (k2 - 1) * NOM.gravity(q), atol=1e-12)


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(q=[0.1, 0.2, 0.3]), "q"),
        (dict(q=[np.nan, 0.2]), "q"),
        (dict(q=[0.1, 0.2], qd=[1j, 0.0]), "qd"),
        (dict(q=[0.1, 0.2], qdd="fast"), "qdd"),
        (dict(q=[0.1, 0.2], fv=-0.1), "non-negative"),
        (dict(q=[0.1, 0.2], fc=[0.1, 0.2, 0.3]), "fc"),
    ],
)
def test_teach_residual_bad_inputs(kw, match):
    with pytest.raises(ValueError, match=match):
        teach_residual(PLANT, NOM, **kw)


def test_teach_residual_needs_arms():
    with pytest.raises(ValueError, match="TwoLinkArm"):
        teach_residual("arm", NOM, [0.1, 0.2])
    batch = NOM.replace(m1=np.array([1.0, 1.1]))
    with pytest.raises(ValueError, match="one arm"):
        teach_residual(PLANT, batch, [0.1, 0.2])


# ------------------------------------------------------------------------------------ Slotine-Li adaptive law
GAMMA9 = np.array([2.0, 2.0, 2.0, 200.0, 200.0, 20.0, 20.0, 20.0, 20.0])


def _pi_true(arm, fv, fc):
    return np.r_[[float(x) for x in arm._pi()], fv, fc]


def test_adaptive_exact_model_without_adaptation_tracks_exactly():
    ctl = adaptive_controller(NOM, lam=10.0, kd=5.0, gamma=0.0)
    res = simulate(NOM, ctl, q0=Q0, qd0=[0, 0], ref=quintic_reference(Q0, QF, 2.0), t_end=2.0)
    assert np.abs(tracking_error(res)).max() < 1e-8
    np.testing.assert_allclose(res.signals["theta_hat"][-1], ctl.theta0)  # gamma = 0: frozen


def test_adaptive_theta0_and_regressor_reproduce_inverse_dynamics():
    """With s = 0 (on the reference) the law's torque is Y pi_hat = M qdd + C qd + G of the model."""
    ctl = adaptive_controller(NOM, lam=10.0, kd=5.0, gamma=1.0)
    q, qd, qdd = np.array([0.3, -0.7]), np.array([1.0, 2.0]), np.array([0.5, -1.5])
    t1, t2, dth = ctl._law(*q, *qd, ctl.theta0, *q, *qd, *qdd)
    np.testing.assert_allclose([t1, t2], NOM.inverse_dynamics(q, qd, qdd), atol=1e-12)
    np.testing.assert_allclose(dth, 0.0, atol=1e-15)


def test_adaptive_rk4_matches_solve_ivp():
    ctl = adaptive_controller(NOM, lam=10.0, kd=20.0 * np.diag(NOM.mass_matrix(QF)), gamma=GAMMA9, friction=True)
    ref = quintic_reference(Q0, QF, 1.0)
    kw = dict(q0=Q0, qd0=[0, 0], ref=ref, t_end=2.0, fv=[0.3, 0.2], fc=[0.1, 0.05])
    a = simulate(PLANT, ctl, dt=5e-4, record_every=200, **kw)
    b = simulate_ivp(PLANT, ctl, t_eval=a.t, rtol=1e-10, atol=1e-10, method="Radau", **kw)
    np.testing.assert_allclose(a.q, b.q, atol=1e-6)
    np.testing.assert_allclose(a.signals["theta_hat"], b.signals["theta_hat"], atol=1e-5)


def test_adaptive_learns_the_gravity_parameters_at_rest():
    ctl = adaptive_controller(NOM, lam=10.0, kd=20.0 * np.diag(NOM.mass_matrix(QF)), gamma=GAMMA9[:5])
    res = simulate(PLANT, ctl, q0=Q0, qd0=[0, 0], ref=quintic_reference(Q0, QF, 1.0), t_end=6.0)
    assert np.abs(tracking_error(res)[-1]).max() < 1e-6
    np.testing.assert_allclose(res.signals["theta_hat"][-1, 3:5], _pi_true(PLANT, [], [])[3:5], rtol=1e-5)


@settings(deadline=None, max_examples=10)
@given(st.floats(0.8, 1.2), st.floats(0.8, 1.2), st.floats(0.0, 0.5), st.floats(0.1, 5.0))
def test_adaptive_property_lyapunov_function_never_increases(k1, k2, fv, gscale):
    """V = s^T M s / 2 + pi_err^T Gamma^-1 pi_err / 2 is non-increasing along the closed loop (eq-ch12-slotine)."""
    plant = NOM.replace(m1=k1 * NOM.m1, m2=k2 * NOM.m2)
    fvv, fcc = np.array([fv, fv / 2]), np.array([0.1, 0.05])
    ctl = adaptive_controller(NOM, lam=5.0, kd=[2.0, 0.5], gamma=gscale * GAMMA9, friction=True)
    ref = quintic_reference(Q0, QF, 1.0)
    res = simulate(plant, ctl, q0=Q0, qd0=[0, 0], ref=ref, t_end=1.5, dt=2.5e-4, record_every=20, fv=fvv, fc=fcc)
    qr, qdr, _ = ref(res.t)
    s = (qdr - res.qd) + 5.0 * (qr - res.q)
    M = plant.mass_matrix(res.q)
    err = res.signals["theta_hat"] - _pi_true(plant, fvv, fcc)
    V = 0.5 * np.einsum("ki,kij,kj->k", s, M, s) + 0.5 * np.sum(err**2 / ctl.gamma, axis=-1)
    assert np.all(np.diff(V) <= 1e-9 * V[0])


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(lam=0.0), "lam"),
        (dict(lam=[1.0, 2.0, 3.0]), "lam"),
        (dict(kd=-1.0), "kd"),
        (dict(kd=np.nan), "kd"),
        (dict(gamma=[1.0, 2.0]), "gamma"),
        (dict(gamma=-1.0), "gamma"),
        (dict(gamma=np.ones(5), friction=True), "gamma"),
        (dict(friction=1), "friction"),
        (dict(gamma="fast"), "gamma"),
    ],
)
def test_adaptive_controller_bad_inputs(kw, match):
    args = dict(lam=10.0, kd=5.0, gamma=1.0)
    args.update(kw)
    with pytest.raises(ValueError, match=match):
        adaptive_controller(NOM, **args)


def test_adaptive_controller_needs_one_arm_and_no_steady_state_formula():
    with pytest.raises(ValueError, match="one arm"):
        adaptive_controller(NOM.replace(m1=np.array([1.0, 1.1])), lam=1.0, kd=1.0, gamma=1.0)
    with pytest.raises(ValueError, match="TwoLinkArm"):
        AdaptiveController("arm", np.ones(2), np.ones(2), np.ones(5))
    ctl = adaptive_controller(NOM, lam=1.0, kd=1.0, gamma=1.0)
    with pytest.raises(ValueError, match="Controller"):
        steady_state_error(PLANT, ctl, QF)


# ------------------------------------------------------------------ issue 29: simulate_ivp goes through the guard
def _ivp_case():
    from robokin.dynamics import TwoLinkArm

    arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    ctl = tracking_controller(arm, kind="computed_torque", kp=100.0, kd=20.0)
    return arm, ctl, dict(q0=[0, 0], qd0=[0, 0], ref=quintic_reference([0, 0], [1, -1], 0.2), t_end=0.2)


def test_simulate_ivp_huge_atol_is_refused_at_once():
    import time

    from robokin.errors import IntegrationError

    arm, ctl, kw = _ivp_case()
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="atol must be at most 1"):  # ran past 120 s before
        simulate_ivp(arm, ctl, t_eval=[0.1, 0.2], atol=1e13, **kw)
    assert time.perf_counter() - t0 < 1.0
    with pytest.raises(IntegrationError, match="simulate_ivp: solve_ivp failed"):  # a bare RuntimeError before
        simulate_ivp(arm, ctl, t_eval=[0.1, 0.2], atol=1e-300, **kw)
    with pytest.raises(IntegrationError, match="max_nfev=50"):
        simulate_ivp(arm, ctl, t_eval=[0.1, 0.2], max_nfev=50, **kw)


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(t_eval=[]), "t_eval must be a 1-D array of 1"),  # AttributeError before
        (dict(t_eval=[0.2, 0.1]), "t_eval must increase"),
        (dict(t_eval=[0.1, 0.3]), r"within \[0, t_end"),
        (dict(atol=1e-9 + 1e-9j), "atol .*complex"),
        (dict(rtol=-1e-9), "rtol"),
        (dict(rtol=1e-17), "rtol must be at least"),
        (dict(method="Euler"), "method"),
        (dict(fv=np.zeros(3)), "fv"),
    ],
)
def test_simulate_ivp_refuses_bad_options(kw, match):
    arm, ctl, base = _ivp_case()
    with pytest.raises(ValueError, match=match):
        simulate_ivp(arm, ctl, **(dict(t_eval=[0.1, 0.2]) | base | kw))


def test_simulate_ivp_float32_tolerance_is_the_float64_one():
    arm, ctl, kw = _ivp_case()
    a = simulate_ivp(arm, ctl, t_eval=[0.1, 0.2], atol=np.float32(1e-9), **kw)
    b = simulate_ivp(arm, ctl, t_eval=[0.1, 0.2], atol=float(np.float32(1e-9)), **kw)
    np.testing.assert_array_equal(a.q, b.q)


def test_step_and_plant_counts_are_capped():
    arm, ctl, kw = _ivp_case()
    with pytest.raises(ValueError, match="dt = 1e-300 s gives"):
        simulate(arm, ctl, dt=1e-300, **kw)
    with pytest.raises(ValueError, match="n must be at most"):
        sample_arms(arm, 10**30, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="T must be at least 1e-06"):
        quintic_reference([0, 0], [1, 1], 1e-300)


def test_friction_and_metric_shapes_name_the_argument():
    with pytest.raises(ValueError, match="fv must be a scalar or have shape"):
        friction_torque([1.0, -1.0], np.zeros(3), 0.5)
    arm, ctl, kw = _ivp_case()
    res = simulate(arm, ctl, **kw)
    with pytest.raises(ValueError, match="q_start must have shape"):
        tracking_metrics(res, q_start=np.zeros((4, 2)))
    with pytest.raises(ValueError, match="qf must have shape"):
        monte_carlo(arm, ctl, n=3, rng=np.random.default_rng(0), q0=[0, 0], qf=[0, 0], t_move=0.1, t_end=0.2)


# ---- independent mutants (issue 29, tools/mutations_independent.py) ----------------------------------------------
def test_simulate_refuses_more_than_1e8_steps_before_allocating_anything():
    """ind-ct-steps-cap: t_end / dt = 2e8 RK4 steps is refused with a ValueError naming dt, at once; the run would
    need several GB (its stage-time grid alone is 3.2 GB). Run under a 1 GB address-space margin, so that a
    missing cap shows up as MemoryError here instead of exhausting the machine."""
    import resource

    from robokin.control import quintic_reference, simulate, tracking_controller
    from robokin.dynamics import TwoLinkArm

    arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    ctl = tracking_controller(arm, kind="computed_torque", kp=100.0, kd=20.0)
    ref = quintic_reference([0, 0], [1, -1], 1.0)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as f:
        used = int(f.read().split()[0]) * resource.getpagesize()
    cap = used + 2**30
    if hard != resource.RLIM_INFINITY and hard < cap:
        pytest.skip("address-space limit already below the margin")
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        with pytest.raises(ValueError, match="dt = 1e-08 s gives 2e\\+08 steps"):
            simulate(arm, ctl, q0=[0, 0], qd0=[0, 0], ref=ref, t_end=2.0, dt=1e-8)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


# ---------------------------------------------------------------------------- torque saturation and anti-windup
def _windup_runs(aw_list, tau_max=(10.0, 3.0), T=0.5, t_end=3.0):
    ref = quintic_reference(Q0, QF, T)
    out = {}
    for aw in aw_list:
        ctl = tracking_controller(
            NOM, kind="computed_torque", kp=300.0, kd=30.0, ki=1000.0, tau_max=tau_max, anti_windup=aw
        )
        out[aw] = simulate(PLANT, ctl, q0=Q0, qd0=[0, 0], ref=ref, t_end=t_end, dt=2e-3, record_every=1)
    return out


def test_saturated_torque_is_clipped_and_clamp_cuts_the_windup_overshoot():
    runs = _windup_runs(("none", "clamp"))
    for r in runs.values():
        assert np.all(np.abs(r.u) <= np.array([10.0, 3.0]) + 1e-12)
        assert np.isclose(np.abs(r.u[:, 0]).max(), 10.0)  # the limit is reached
    os_none = tracking_metrics(runs["none"], q_start=Q0)["overshoot"]
    os_clamp = tracking_metrics(runs["clamp"], q_start=Q0)["overshoot"]
    assert os_none > 3 * os_clamp  # windup: the integrator overshoots; clamping removes most of it
    assert np.abs(runs["clamp"].signals["z"]).max() < np.abs(runs["none"].signals["z"]).max()
    assert np.abs(tracking_error(runs["clamp"])[-1]).max() < 1e-6  # integral action still removes the error


def test_clamp_changes_nothing_while_no_drive_saturates():
    big = tracking_controller(
        NOM, kind="computed_torque", kp=300.0, kd=30.0, ki=1000.0, tau_max=1e3, anti_windup="clamp"
    )
    free = tracking_controller(NOM, kind="computed_torque", kp=300.0, kd=30.0, ki=1000.0)
    kw = dict(q0=Q0, qd0=[0, 0], ref=quintic_reference(Q0, QF, 2.0), t_end=1.0, dt=2e-3)
    a, b = simulate(PLANT, big, **kw), simulate(PLANT, free, **kw)
    assert np.array_equal(a.q, b.q) and np.array_equal(a.signals["z"], b.signals["z"])


@HSET
@given(st.floats(-5, 5), st.floats(-5, 5), st.floats(-1, 1), st.floats(-1, 1), st.floats(0.1, 20))
def test_clamp_property_integrates_unless_pushing_into_the_limit(r1, r2, z1, z2, lim):
    ctl = tracking_controller(NOM, kind="pd", kp=10.0, kd=0.0, ki=5.0, tau_max=lim, anti_windup="clamp")
    q = np.zeros(2)
    t1, t2, dz = ctl._law(0.0, 0.0, 0.0, 0.0, [z1, z2], r1, r2, 0.0, 0.0, 0.0, 0.0)
    raw = 10.0 * np.array([r1, r2]) + 5.0 * np.array([z1, z2])
    assert np.allclose([t1, t2], np.clip(raw, -lim, lim))
    assert np.allclose(ctl.torque(q, q, [z1, z2], [r1, r2], q, q), np.clip(raw, -lim, lim))
    for e, d, u in zip((r1, r2), dz, raw):
        assert d == (0.0 if abs(u) > lim and e * u > 0 else e)


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(tau_max=0.0), "tau_max must be positive"),
        (dict(tau_max=[1.0, -1.0]), "tau_max"),
        (dict(tau_max=[1.0, 2.0, 3.0]), "tau_max"),
        (dict(tau_max=np.nan), "tau_max"),
        (dict(anti_windup="clamp"), "needs a torque limit"),
        (dict(tau_max=5.0, anti_windup="back"), "anti_windup"),
    ],
)
def test_saturation_bad_inputs(kw, match):
    with pytest.raises(ValueError, match=match):
        tracking_controller(NOM, kind="pd", kp=1.0, kd=1.0, **kw)


def test_tau_max_refuses_bools():
    for bad in (True, np.array([True, False])):
        with pytest.raises(ValueError, match="not a bool"):
            tracking_controller(NOM, kind="pd", kp=1.0, kd=1.0, tau_max=bad)


def test_tau_max_inf_means_no_limit_on_that_joint():
    # joint 2 unlimited: it follows the unlimited law exactly, joint 1 is clipped (and clamped)
    lim = tracking_controller(NOM, kind="pd", kp=10.0, kd=0.0, ki=5.0, tau_max=[1.0, np.inf], anti_windup="clamp")
    free = tracking_controller(NOM, kind="pd", kp=10.0, kd=0.0, ki=5.0)
    q, z, r = np.zeros(2), np.array([0.5, 0.5]), np.array([3.0, 3.0])
    t_lim, t_free = lim.torque(q, q, z, r, q, q), free.torque(q, q, z, r, q, q)
    assert t_lim[0] == 1.0 and t_lim[1] == t_free[1] == 32.5
    dz = lim._law(0.0, 0.0, 0.0, 0.0, z, 3.0, 3.0, 0.0, 0.0, 0.0, 0.0)[2]
    assert dz[0] == 0.0 and dz[1] == 3.0  # joint 1 pushes into its limit: clamped; joint 2 integrates
    with pytest.raises(ValueError, match="non-finite"):
        tracking_controller(NOM, kind="pd", kp=1.0, kd=1.0, tau_max=[1.0, -np.inf])


# ------------------------------------------------------------------------------------ sliding-mode control
def _smc(**kw):
    args = dict(lam=10.0, k=5.0, phi=0.05)
    args.update(kw)
    return sliding_mode_controller(NOM, **args)


def test_smc_exact_model_stays_on_the_surface():
    """Exact model, starting on the reference: s = 0 throughout, so the switching term never acts.

    (With phi = 0 the round-off in s would switch sign(s) and chatter: see the boundary-layer test below.)
    """
    res = simulate(NOM, _smc(phi=0.5), q0=Q0, qd0=[0, 0], ref=quintic_reference(Q0, QF, 2.0), t_end=2.0)
    assert np.abs(tracking_error(res)).max() < 1e-8
    assert res.signals["s"].shape == res.q.shape and "z" not in res.signals


def test_smc_torque_is_model_feedforward_plus_saturated_switch():
    """tau - tau(K = 0) = K sat(s / phi), and tau(K = 0) is the regressor law Y(q, qd, qd_r, qdd_r) pi_hat."""
    q, qd = np.array([0.3, -0.7]), np.array([1.0, 2.0])
    qr, qdr, qddr = np.array([0.35, -0.9]), np.array([0.5, 2.5]), np.array([0.5, -1.5])
    lam, k, phi = np.array([10.0, 4.0]), np.array([3.0, 2.0]), np.array([0.5, 0.1])
    smc = sliding_mode_controller(NOM, lam=lam, k=k, phi=phi)
    s = (qdr - qd) + lam * (qr - q)
    base = sliding_mode_controller(NOM, lam=lam, k=0.0, phi=phi).torque(q, qd, qr, qdr, qddr)
    np.testing.assert_allclose(smc.torque(q, qd, qr, qdr, qddr) - base, k * np.clip(s / phi, -1, 1), atol=1e-12)
    # the base law, from the model's own matrices: M qdd_r + C(q, qd) qd_r + G
    w, a = qdr + lam * (qr - q), qddr + lam * (qdr - qd)
    want = NOM.mass_matrix(q) @ a + NOM.coriolis_matrix(q, qd) @ w + NOM.gravity(q)
    np.testing.assert_allclose(base, want, atol=1e-12)
    sgn = sliding_mode_controller(NOM, lam=lam, k=k, phi=0.0).torque(q, qd, qr, qdr, qddr)
    np.testing.assert_allclose(sgn - base, k * np.sign(s), atol=1e-12)


@HSET
@given(
    st.lists(st.floats(-3, 3, allow_subnormal=False), min_size=8, max_size=8),
    st.floats(0.5, 30.0),
    st.floats(0.5, 30.0),
    st.floats(0.0, 50.0),
    st.floats(0.01, 1.0),
)
def test_smc_property_on_the_surface_equals_critically_damped_computed_torque(x, lam1, lam2, k, phi):
    """On s = 0 (de = -Lambda e) the sliding-mode law is computed torque with Kd = 2 Lambda, Kp = Lambda^2.

    There qd_r = qd, so C qd_r = C qd, and Kd de + Kp e = -(2 Lambda^2 - Lambda^2) e = Lambda de: the two
    accelerations M multiplies agree; sat(0) = 0 removes the switching term for any K. phi >= 0.01 rad/s here:
    s is zero only up to round-off, and sign(1e-16) = 1 (phi = 0 is tested on its own above).
    """
    q, qr, qdr, qddr = (np.array(x[i : i + 2]) for i in range(0, 8, 2))
    lam = np.array([lam1, lam2])
    qd = qdr + lam * (qr - q)  # s = qd_r - qd = 0
    smc = sliding_mode_controller(NOM, lam=lam, k=k, phi=phi)
    ct = tracking_controller(NOM, kind="computed_torque", kp=lam**2, kd=2 * lam)
    tau_ct = ct.torque(q, qd, np.zeros(2), qr, qdr, qddr)
    scale = 1.0 + np.abs(tau_ct).max()
    np.testing.assert_allclose(smc.torque(q, qd, qr, qdr, qddr), tau_ct, atol=1e-9 * scale)


def test_smc_boundary_layer_bounds_the_error_under_model_error():
    """K above the model-error torque: the error ends within phi / lambda; the RK4 run matches solve_ivp."""
    smc = _smc(k=5.0, phi=0.1)  # K / phi = 50 N m s/rad: within RK4's stability at 0.5 ms (M_22 ~ 0.04 kg m^2)
    ref = quintic_reference(Q0, QF, 1.0)
    kw = dict(q0=Q0, qd0=[0, 0], ref=ref, t_end=2.0)
    a = simulate(PLANT, smc, dt=5e-4, record_every=200, **kw)
    b = simulate_ivp(PLANT, smc, t_eval=a.t, rtol=1e-10, atol=1e-10, **kw)
    np.testing.assert_allclose(a.q, b.q, atol=1e-6)
    np.testing.assert_allclose(a.signals["s"], b.signals["s"], atol=1e-5)
    assert np.all(np.abs(tracking_error(a)[-1]) < 0.1 / 10.0)
    assert np.all(np.abs(a.signals["s"]) < 0.1)  # started on the surface, never left the layer


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(lam=0.0), "lam"),
        (dict(lam=-1.0), "lam"),
        (dict(lam=[1.0, 2.0, 3.0]), "lam"),
        (dict(k=-1.0), "k must be non-negative"),
        (dict(k=np.nan), "k"),
        (dict(k=np.inf), "k"),
        (dict(k=True), "bool"),
        (dict(k=[1.0, 2.0j]), "k"),
        (dict(k="big"), "k"),
        (dict(k=[[1.0, 2.0]]), "k"),
        (dict(k=[1.0, [2.0, 3.0]]), "ragged"),
        (dict(phi=-0.1), "phi must be non-negative"),
        (dict(phi=np.nan), "phi"),
        (dict(phi=False), "bool"),
        (dict(phi=[0.1, 0.1, 0.1]), "phi"),
        (dict(lam=np.array([True, True])), "bool"),
    ],
)
def test_smc_bad_inputs(kw, match):
    with pytest.raises(ValueError, match=match):
        _smc(**kw)


def test_smc_needs_one_arm_and_checks_torque_inputs():
    with pytest.raises(ValueError, match="one arm"):
        sliding_mode_controller(NOM.replace(m1=np.array([1.0, 1.1])), lam=1.0, k=1.0)
    with pytest.raises(ValueError, match="TwoLinkArm"):
        SlidingModeController("arm", np.ones(2), np.ones(2), np.ones(2))
    with pytest.raises(ValueError, match="q_ref"):
        _smc().torque(np.zeros(2), np.zeros(2), [np.nan, 0.0], np.zeros(2), np.zeros(2))
    with pytest.raises(ValueError, match="Controller"):
        steady_state_error(PLANT, _smc(), QF)
