"""Tests for robokin.control: references, controllers, the batch RK4 simulator, error prediction, Monte Carlo."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robokin.control import (Controller, SimResult, demo_setup, friction_torque, gravity_compensation, monte_carlo,
                             quintic, quintic_reference, sample_arms, simulate, simulate_ivp, steady_state_error,
                             tracking_controller, tracking_metrics, validate)

S = demo_setup()
NOM, PLANT, Q0, QF = S["nominal"], S["plant"], S["q0"], S["qf"]
CT = tracking_controller(NOM, kind="computed_torque", kp=100.0, kd=20.0)
HSET = settings(max_examples=30, deadline=None, derandomize=True)


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
    res = simulate(NOM, ctl, q0=q, qd0=[0, 0], ref=lambda t: (np.broadcast_to(q, np.shape(t) + (2,)),) +
                   (np.zeros(np.shape(t) + (2,)),) * 2, t_final=1.0)
    assert np.max(np.abs(res.q - q)) < 1e-12
    assert np.allclose(gravity_compensation(NOM, q), NOM.G(q))


def test_computed_torque_with_exact_model_tracks_exactly_pd_does_not():
    ref = quintic_reference(Q0, QF, 1.0)
    ct = simulate(NOM, CT, q0=Q0, qd0=[0, 0], ref=ref, t_final=1.5)
    M = NOM.M(QF)
    pd = tracking_controller(NOM, kind="pd_gravity", kp=np.diag(M) * 100, kd=np.diag(M) * 20)
    pdr = simulate(NOM, pd, q0=Q0, qd0=[0, 0], ref=ref, t_final=1.5)
    assert np.max(np.abs(ct.error)) < 1e-9
    assert np.max(np.abs(pdr.error)) > 1e-3


def test_batch_simulation_equals_individual_runs():
    arms, fv, fc = sample_arms(NOM, 3, rng=np.random.default_rng(0))
    ref = quintic_reference(Q0, QF, 0.5)
    batch = simulate(arms, CT, q0=Q0, qd0=[0, 0], ref=ref, t_final=0.5, fv=fv, fc=fc, record_every=50)
    for k in range(3):
        one = arms.replace(**{f: float(getattr(arms, f)[k]) for f in ("m1", "m2", "l1", "l2", "lc1", "lc2",
                                                                        "I1", "I2")})
        single = simulate(one, CT, q0=Q0, qd0=[0, 0], ref=ref, t_final=0.5, fv=fv[k], fc=fc[k], record_every=50)
        assert np.max(np.abs(single.q - batch.q[k])) < 1e-13
    assert batch.q.shape == (3, 11, 2) and batch.stable.shape == (3,)


def test_rk4_matches_solve_ivp_with_friction():
    ref = quintic_reference(Q0, QF, 1.0)
    rk = simulate(PLANT, CT, q0=Q0, qd0=[0, 0], ref=ref, t_final=0.6, fv=[0.3, 0.2], fc=[0.2, 0.1],
                  record_every=20)
    iv = simulate_ivp(PLANT, CT, q0=Q0, qd0=[0, 0], ref=ref, t_final=0.6, t_eval=rk.t, fv=[0.3, 0.2],
                      fc=[0.2, 0.1], rtol=1e-9, atol=1e-9)
    assert np.max(np.abs(rk.q - iv.q)) < 1e-7


@pytest.mark.parametrize("kind,kp", [("pd", 200.0), ("pd_gravity", 100.0), ("computed_torque", 100.0)])
def test_predicted_steady_state_error_matches_simulation(kind, kp):
    # PD gains are torques: scale by the diagonal of the model's mass matrix at the goal
    scale = 1.0 if kind == "computed_torque" else np.diag(NOM.M(QF))
    ctl = tracking_controller(NOM, kind=kind, kp=kp * scale, kd=2 * np.sqrt(kp) * scale)
    res = simulate(PLANT, ctl, q0=Q0, qd0=[0, 0], ref=quintic_reference(Q0, QF, 1.0), t_final=6.0, dt=0.004)
    e_pred = steady_state_error(PLANT, ctl, QF)
    assert np.max(np.abs(e_pred)) > 1e-4           # the mismatch really causes an error
    assert np.max(np.abs(res.error[-1] - e_pred)) < 1e-6


def test_steady_state_error_sign_follows_the_mismatch():
    # plant heavier than the model -> the arm sags below the target at the horizontal pose
    ctl = tracking_controller(NOM, kind="pd_gravity", kp=100.0, kd=10.0)
    e = steady_state_error(PLANT, ctl, [0.0, 0.0])
    assert np.all(e > 0)     # e = q_ref - q > 0: q below the reference (gravity pulls towards -q)
    lighter = NOM.replace(m2=0.7, m1=1.1)
    assert np.all(steady_state_error(lighter, ctl, [0.0, 0.0]) < 0)


def test_integral_action_removes_the_error():
    ctl = tracking_controller(NOM, kind="computed_torque", kp=300.0, kd=30.0, ki=1000.0)
    res = simulate(PLANT, ctl, q0=Q0, qd0=[0, 0], ref=quintic_reference(Q0, QF, 1.0), t_final=4.0, dt=0.004)
    assert np.max(np.abs(res.error[-1])) < 1e-6
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
    y = 1 - np.exp(-3 * t) * np.cos(6 * t)            # overshooting step, goal 1
    q = np.stack([y, 2 * y], -1)
    res = SimResult(t=t, q=q, qd=np.zeros_like(q), z=np.zeros_like(q), q_ref=np.tile([1.0, 2.0], (201, 1)),
                    stable=np.array(True))
    m = tracking_metrics(res, q_start=[0, 0])
    true_os = np.max(y - 1)
    assert abs(float(m["overshoot"]) - true_os) < 1e-12
    outside = np.abs(y - y[-1]) > 0.02
    last = np.flatnonzero(outside)[-1]
    assert float(m["settling_time"]) == pytest.approx(t[last + 1])


def test_monte_carlo_small_and_unstable_sample_flagged():
    mc = monte_carlo(NOM, CT, n=8, rng=np.random.default_rng(4), q0=Q0, qf=QF, t_move=1.0, t_final=2.0)
    assert mc.stability_rate == 1.0
    assert np.all(np.isfinite(mc.metrics["settling_time"]))
    # a step far too large for RK4 with stiff gains diverges: flagged, not raised (and no warning)
    stiff = tracking_controller(NOM, kind="computed_torque", kp=1e5, kd=1e3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = simulate(NOM.replace(m2=np.array([0.8, 0.9])), stiff, q0=Q0, qd0=[0, 0],
                       ref=quintic_reference(Q0, QF, 1.0), t_final=1.0, dt=0.05, record_every=1)
        m = tracking_metrics(res, q_start=Q0)
    assert not np.any(res.stable)
    assert np.all(np.isinf(m["settling_time"]))


def test_validate_reports_pass():
    assert all(r.passed for r in validate(fast=True))


# ------------------------------------------------------------------------ bad input
def test_bad_inputs_raise_value_error():
    ref = quintic_reference(Q0, QF, 1.0)
    with pytest.raises(ValueError):
        quintic([0, 0], [1, 1], -1.0, [0.5])
    with pytest.raises(ValueError):
        quintic([0, np.nan], [1, 1], 1.0, [0.5])
    with pytest.raises(ValueError):
        quintic([0, 0], [1, 1, 1], 1.0, [0.5])
    with pytest.raises(ValueError):
        quintic_reference([0, 0], [1, np.nan], 1.0)
    with pytest.raises(ValueError):
        monte_carlo(NOM, CT, n=0, rng=np.random.default_rng(0), q0=Q0, qf=QF, t_move=1.0, t_final=2.0)
    with pytest.raises(ValueError):
        simulate(PLANT, CT, q0=[0, 0], qd0=[0, 0], ref=ref, t_final=1.0, fv=np.ones((1, 2)))
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
        simulate(PLANT, CT, q0=[0, np.nan], qd0=[0, 0], ref=ref, t_final=1.0)
    with pytest.raises(ValueError):
        simulate(PLANT, CT, q0=[0, 0], qd0=[0, 0], ref=ref, t_final=0.0)
    with pytest.raises(ValueError):
        simulate(PLANT, CT, q0=[0, 0], qd0=[0, 0], ref="quintic", t_final=1.0)
    with pytest.raises(ValueError):
        simulate(PLANT, "ct", q0=[0, 0], qd0=[0, 0], ref=ref, t_final=1.0)
    with pytest.raises(ValueError):
        simulate(PLANT, CT, q0=[0, 0], qd0=[0, 0], ref=ref, t_final=1.0, record_every=0)
    with pytest.raises(ValueError):
        simulate(PLANT, CT, q0=[0, 0], qd0=[0, 0], ref=ref, t_final=1.0, fv=np.ones((3, 2)))
    with pytest.raises(ValueError):
        simulate(PLANT, CT, q0=[0, 0], qd0=[0, 0], ref=lambda t: (t, t, t), t_final=0.01)
    with pytest.raises(ValueError):
        simulate_ivp(PLANT.replace(m1=np.ones(2)), CT, q0=[0, 0], qd0=[0, 0], ref=ref, t_final=1.0, t_eval=[1.0])
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
    res = simulate(PLANT, CT, q0=Q0, qd0=[0, 0], ref=ref, t_final=0.1)
    with pytest.raises(ValueError, match="non-zero step"):
        tracking_metrics(res, q_start=res.q_ref[-1])
    assert isinstance(CT, Controller)
