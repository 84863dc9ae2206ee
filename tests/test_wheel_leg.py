"""Tests for robokin.wheel_leg: model vs an independent sympy Lagrange derivation, LQR, schedule, VMC."""

import dataclasses

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from robokin import checks
from robokin import wheel_leg as wl
from robokin.errors import UnreachableError
from robokin.results import SimResult
from robokin.robots import WHEEL_LEG, WHEEL_LEG_FIVEBAR
from robokin.trajectory import quintic_step
from robokin.validation.wheel_leg import validate

P = WHEEL_LEG
MODEL = wl.WheelLegDynamics(P)
FB = WHEEL_LEG_FIVEBAR
GRID = np.linspace(0.12, 0.34, 12)
Z3 = np.zeros(3)


def dynamics(state, u, L0, **kw):
    """Controller-state derivative (the old free function, now a model method)."""
    return MODEL.state_derivative(state, u, L0=L0, **kw)


def sim(controller, x0, **kw):
    """simulate() from a controller-order initial state."""
    q0, qd0 = wl.from_state(x0)
    return wl.simulate(MODEL, controller, q0=q0, qd0=qd0, **kw)


@pytest.fixture(scope="module")
def sched():
    return wl.gain_schedule(MODEL, GRID, degree=3)


@pytest.fixture(scope="module")
def lagrange():
    """Euler-Lagrange equations with a prescribed leg length L(t), lambdified: (q, qd, qdd, L, Ld, Ldd, u, f) -> residual."""
    t = sp.symbols("t")
    mb, Ib, lc, ml, mw, Iw, R, g = sp.symbols("m_b I_b l_c m_l m_w I_w R g", positive=True)
    x, th, ph, L = (sp.Function(n)(t) for n in ("x", "theta", "phi", "L"))
    T, Tp, f = sp.symbols("T T_p f")
    pl = sp.Matrix([x + L / 2 * sp.sin(th), R + L / 2 * sp.cos(th)])
    pb = sp.Matrix([x + L * sp.sin(th) + lc * sp.sin(ph), R + L * sp.cos(th) + lc * sp.cos(ph)])
    v2 = lambda p: (p.diff(t).T * p.diff(t))[0]  # noqa: E731
    Tk = (
        mw * x.diff(t) ** 2
        + Iw * (x.diff(t) / R) ** 2
        + ml * v2(pl)
        + ml * L**2 / 12 * th.diff(t) ** 2
        + mb * v2(pb)
        + Ib * ph.diff(t) ** 2
    ) / 2
    V = g * (ml * pl[1] + mb * pb[1])
    Lag = Tk - V
    q = [x, th, ph]
    # generalised forces by virtual work: wheel torque, hip torque, push on the body
    Qf = [T / R + f, -T + Tp + f * sp.diff(pb[0], th), -Tp + f * sp.diff(pb[0], ph)]
    eqs = [sp.diff(Lag.diff(qi.diff(t)), t) - Lag.diff(qi) - Qi for qi, Qi in zip(q, Qf)]
    syms = sp.symbols("X TH PH XD THD PHD XDD THDD PHDD LL LD LDD")
    sub = {}
    for fn, (_s0, s1, s2) in zip(
        q + [L],
        [
            (syms[0], syms[3], syms[6]),
            (syms[1], syms[4], syms[7]),
            (syms[2], syms[5], syms[8]),
            (syms[9], syms[10], syms[11]),
        ],
    ):
        sub[fn.diff(t, 2)] = s2
        sub[fn.diff(t)] = s1
    eqs = [e.subs(sub) for e in eqs]
    sub0 = {x: syms[0], th: syms[1], ph: syms[2], L: syms[9]}
    eqs = [e.subs(sub0) for e in eqs]
    pars = (mb, Ib, lc, ml, mw, Iw, R, g)
    fn = sp.lambdify((syms, (T, Tp, f), pars), eqs, modules="numpy", cse=True)
    return lambda *a: np.array(fn(*a), dtype=float)


def _pars(p):
    return (p.m_b, p.I_b, p.l_c, p.m_l, p.m_w, p.I_w, p.R, p.g)


def test_dynamics_matches_independent_sympy_lagrange(lagrange):
    rng = np.random.default_rng(1)
    for _ in range(20):
        s = rng.normal(size=6) * [0.5, 2, 1, 1, 0.5, 2]
        u = rng.normal(size=2) * 5
        L, Ld, Ldd, f = rng.uniform(0.1, 0.4), rng.normal(), rng.normal() * 20, rng.normal() * 30
        sd = dynamics(s, u, L, L0_dot=Ld, L0_ddot=Ldd, f_body=f)
        args = (s[2], s[0], s[4], s[3], s[1], s[5], sd[3], sd[1], sd[5], L, Ld, Ldd)
        res = lagrange(args, (u[0], u[1], f), _pars(P))
        assert np.abs(res).max() < 1e-10 * (1 + np.abs(u).max() + abs(f) + P.total_mass * P.g)


def test_model_terms_assemble_the_equations_of_motion(lagrange):
    """M qdd + bias + gravity - J_b^T f = B u at forward_dynamics' qdd, and each term against sympy."""
    rng = np.random.default_rng(11)
    n = 40
    q, qd = rng.normal(size=(n, 3)) * [1, 0.5, 0.5], rng.normal(size=(n, 3)) * [1, 2, 2]
    u = rng.normal(size=(n, 2)) * 5
    L, Ld, Ldd, f = rng.uniform(0.1, 0.4, n), rng.normal(size=n), 20 * rng.normal(size=n), 30 * rng.normal(size=n)
    kw = dict(L0=L, L0_dot=Ld, L0_ddot=Ldd)
    qdd = MODEL.forward_dynamics(q, qd, u, f_body=f, **kw)
    M = MODEL.mass_matrix(q, L0=L)
    push = np.stack([f, f * L * np.cos(q[:, 1]), f * P.l_c * np.cos(q[:, 2])], -1)  # J_b^T [f, 0]
    lhs = np.einsum("nij,nj->ni", M, qdd) + MODEL.bias(q, qd, **kw) + MODEL.gravity(q, L0=L) - push
    Bu = u @ MODEL.input_matrix().T
    scale = P.total_mass * P.g + np.abs(Bu).max()
    checks.check_close("M qdd + bias + gravity - push = B u", lhs, Bu, tol=1e-13, scale=scale)
    checks.check_close(
        "inverse_dynamics", MODEL.inverse_dynamics(q, qd, qdd, f_body=f, **kw), Bu, tol=1e-13, scale=scale
    )
    # sympy (independent): the equations at qdd = 0, u = 0, f = 0 are bias + gravity; with qd = 0 and a
    # resting leg they are gravity alone
    for i in range(5):
        args = (*q[i], *qd[i], 0.0, 0.0, 0.0, L[i], Ld[i], Ldd[i])
        h = lagrange(args, (0.0, 0.0, 0.0), _pars(P))
        want = MODEL.bias(q[i], qd[i], **{k: v[i] for k, v in kw.items()}) + MODEL.gravity(q[i], L0=L[i])
        np.testing.assert_allclose(h, want, atol=1e-12 * scale)
        g = lagrange((*q[i], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, L[i], 0.0, 0.0), (0.0, 0.0, 0.0), _pars(P))
        np.testing.assert_allclose(g, MODEL.gravity(q[i], L0=L[i]), atol=1e-12 * scale)


def test_bias_excludes_gravity_and_vanishes_at_rest():
    q = np.array([0.3, 0.4, -0.2])
    assert np.all(MODEL.bias(q, Z3, L0=0.25) == 0)  # no motion: no Coriolis, no centrifugal, leg at rest
    assert np.abs(MODEL.gravity(q, L0=0.25)).max() > 1  # gravity is separate, and not small here
    zero_g = wl.WheelLegDynamics(dataclasses.replace(P, g=1e-300))
    qd = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(MODEL.bias(q, qd, L0=0.25, L0_dot=0.3), zero_g.bias(q, qd, L0=0.25, L0_dot=0.3))
    # bias is quadratic in (qd, L0_dot) when L0_ddot = 0
    np.testing.assert_allclose(MODEL.bias(q, 2 * qd, L0=0.25, L0_dot=0.6), 4 * MODEL.bias(q, qd, L0=0.25, L0_dot=0.3))


@settings(deadline=None, max_examples=30)
@given(
    q=st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=3),
    qd=st.lists(st.floats(-3.0, 3.0), min_size=3, max_size=3),
    qdd=st.lists(st.floats(-20.0, 20.0), min_size=3, max_size=3),
    L=st.floats(0.1, 0.4),
)
def test_forward_inverse_dynamics_round_trip(q, qd, qdd, L):
    """Forward dynamics inverts inverse dynamics wherever the generalised force is reachable by B u."""
    tau = MODEL.inverse_dynamics(q, qd, qdd, L0=L, L0_dot=0.2)
    # the generalised force need not be in range(B): solve for u, then compare the reachable part
    u = np.linalg.lstsq(MODEL.input_matrix(), tau, rcond=None)[0]
    qdd_u = MODEL.forward_dynamics(q, qd, u, L0=L, L0_dot=0.2)
    back = MODEL.inverse_dynamics(q, qd, qdd_u, L0=L, L0_dot=0.2)
    np.testing.assert_allclose(back, MODEL.input_matrix() @ u, atol=1e-10 * (1 + np.abs(tau).max()))


def test_model_rejects_bad_parameters_at_construction():
    with pytest.raises(ValueError, match="WheelLegParams"):
        wl.WheelLegDynamics({"m_b": 12.0})
    with pytest.raises(ValueError, match="m_b"):
        wl.WheelLegDynamics(wl.WheelLegParams(m_b=-1.0))
    with pytest.raises(dataclasses.FrozenInstanceError):
        MODEL.params = P  # built once, immutable


def test_state_order_helpers_round_trip():
    rng = np.random.default_rng(12)
    q, qd = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    s = wl.to_state(q, qd)
    assert s.shape == (4, 6) and np.all(s[:, 0] == q[:, 1]) and np.all(s[:, 3] == qd[:, 0])
    q2, qd2 = wl.from_state(s)
    assert np.all(q2 == q) and np.all(qd2 == qd)
    with pytest.raises(ValueError, match="shape"):
        wl.from_state(np.zeros(5))


def test_simresult_fields_and_signals(sched):
    push = lambda t: 40.0 if 0.1 <= t < 0.2 else 0.0  # noqa: E731
    prof = lambda t: quintic_step(t, t0=0.0, t1=0.5, v0=0.25, v1=0.2)  # noqa: E731
    r = wl.simulate(MODEL, sched, q0=[0.1, 0.05, 0.0], qd0=Z3, t_end=0.6, L0=prof, push=push, n_out=31)
    assert isinstance(r, SimResult) and not hasattr(r, "x")
    assert r.t.shape == (31,) and r.q.shape == r.qd.shape == (31, 3) and r.u.shape == (31, 2)
    assert r.stable.shape == () and bool(r.stable)
    assert set(r.signals) == {"x", "x_ref", "L0", "L0_dot", "L0_ddot", "f_body", "N"}
    X = r.signals["x"]
    assert X.shape == (31, 6) and np.all(X == wl.to_state(r.q, r.qd))
    assert np.all(r.q[0] == [0.1, 0.05, 0.0])
    Lp = np.array([[float(v) for v in prof(t)] for t in r.t])
    assert np.all(r.signals["L0"] == Lp[:, 0]) and np.all(r.signals["L0_ddot"] == Lp[:, 2])
    assert np.all(r.signals["f_body"] == [push(t) for t in r.t]) and np.all(r.signals["x_ref"] == 0)
    N = MODEL.normal_force(r.q, r.qd, r.u, L0=Lp[:, 0], L0_dot=Lp[:, 1], L0_ddot=Lp[:, 2], f_body=r.signals["f_body"])
    np.testing.assert_allclose(r.signals["N"], N, rtol=1e-13)
    np.testing.assert_allclose(r.u, -np.einsum("nij,nj->ni", sched(Lp[:, 0]), X), rtol=1e-13)


def test_simulate_stable_flag_reports_a_fall():
    """A gain too weak to hold the robot: the run finishes but the leg falls past the bound."""
    K = 0.01 * wl.lqr_gain(MODEL, L0=0.2)
    r = wl.simulate(MODEL, K, q0=[0.0, 0.05, 0.0], qd0=Z3, t_end=1.5, L0=0.2, n_out=16)
    assert not bool(r.stable) and np.abs(r.signals["x"][:, [0, 4]]).max() >= wl.FALL_ANGLE


def test_scalar_rhs_matches_vectorised_dynamics():
    rng = np.random.default_rng(2)
    X, U = rng.normal(size=(30, 6)), rng.normal(size=(30, 2))
    L, Ld, Ldd, f = rng.uniform(0.1, 0.4, 30), rng.normal(size=30), rng.normal(size=30), rng.normal(size=30)
    a = dynamics(X, U, L, L0_dot=Ld, L0_ddot=Ldd, f_body=f)
    b = np.array([MODEL._rhs_scalar(X[i], U[i], L[i], Ld[i], Ldd[i], f[i]) for i in range(30)])
    checks.check_close("scalar vs vectorised", b, a, tol=1e-12, scale=np.abs(a).max())


def test_mass_matrix_spd_and_energy_conserved_without_input():
    from scipy.integrate import solve_ivp

    rng = np.random.default_rng(3)
    M = MODEL.mass_matrix(rng.normal(size=(100, 3)), L0=rng.uniform(0.1, 0.4, 100))
    assert np.allclose(M, np.swapaxes(M, -1, -2))
    assert np.linalg.eigvalsh(M).min() > 0

    def energy(s, L):
        q, qd = s[..., [2, 0, 4]], s[..., [3, 1, 5]]
        Mq = MODEL.mass_matrix(q, L0=L)
        kin = 0.5 * np.einsum("...i,...ij,...j->...", qd, Mq, qd)
        pot = P.g * (P.m_l * L / 2 * np.cos(s[..., 0]) + P.m_b * (L * np.cos(s[..., 0]) + P.l_c * np.cos(s[..., 4])))
        return kin + pot

    s0 = np.array([0.3, 0.0, 0.0, 0.0, -0.2, 0.5])
    sol = solve_ivp(lambda t, s: dynamics(s, np.zeros(2), 0.25), (0, 1.0), s0, rtol=1e-11, atol=1e-12)
    E = energy(sol.y.T, 0.25)
    assert np.abs(E - E[0]).max() < 1e-6 * abs(E[0])


def test_linearisation_matches_finite_differences():
    Ls = np.linspace(0.1, 0.4, 7)

    def f(z):
        return dynamics(z[..., :6], z[..., 6:], Ls.reshape((-1,) + (1,) * (z.ndim - 2)))

    def jac(z):
        A, B = wl.linearize(MODEL, L0=Ls)
        return np.concatenate([A, B], axis=-1)

    rep = checks.check_jacobian(jac, f, np.zeros((Ls.size, 8)), eps=1e-5, tol=1e-6)
    assert rep.passed
    # a wrong B sign is caught
    bad = lambda z: jac(z) * np.r_[np.ones(6), -1, 1]  # noqa: E731
    assert not checks.check_jacobian(bad, f, np.zeros((Ls.size, 8)), eps=1e-5, raise_on_fail=False).passed


def test_open_loop_unstable_and_lqr_stabilises():
    for L in (0.12, 0.2, 0.34):
        A, B = wl.linearize(MODEL, L0=L)
        assert np.linalg.eigvals(A).real.max() > 0.5  # an inverted pendulum falls
        K = wl.lqr_gain(MODEL, L0=L)
        assert np.linalg.eigvals(A - B @ K).real.max() < -0.1
        # K really solves the Riccati equation: compare with scipy's own residual
        import scipy.linalg

        Pm = scipy.linalg.solve_continuous_are(A, B, wl.Q_DEFAULT, wl.R_DEFAULT)
        res = A.T @ Pm + Pm @ A - Pm @ B @ np.linalg.solve(wl.R_DEFAULT, B.T @ Pm) + wl.Q_DEFAULT
        assert np.abs(res).max() < 1e-8 * np.abs(Pm).max()


def test_schedule_fit_and_stability_on_a_fine_grid(sched):
    fine = np.linspace(GRID[0], GRID[-1], 57)
    K = np.stack([wl.lqr_gain(MODEL, L0=L) for L in fine])
    rel = np.abs(sched(fine) - K).max(axis=0) / np.abs(K).max(axis=0)
    assert rel.max() < 1e-2
    assert wl.closed_loop_eigs(MODEL, fine, sched(fine)).real.max() < -0.1
    assert sched.degree == 3 and sched.coeffs.shape == (4, 2, 6)
    np.testing.assert_allclose(
        sched(0.2), np.polynomial.polynomial.polyval(0.2, sched.coeffs.reshape(4, -1)).reshape(2, 6)
    )


def test_fixed_crouched_gain_fails_on_a_long_leg():
    K = wl.lqr_gain(MODEL, L0=0.12)
    assert wl.closed_loop_eigs(MODEL, 0.34, K).real.max() > 0


def test_simulations_push_and_speed(sched):
    push = lambda t: 60.0 if 0.3 <= t < 0.4 else 0.0  # noqa: E731
    r = sim(sched, np.zeros(6), t_end=3.0, L0=0.2, push=push, n_out=61)
    assert np.abs(r.signals["x"][:, 0]).max() > 0.02  # the push did something
    assert np.abs(r.signals["x"][-1, [0, 1, 3, 4, 5]]).max() < 0.02
    assert r.signals["N"].min() > 0

    def ref(t):
        return np.array([0, 0, 0.5 * t, 0.5, 0, 0])

    r = sim(sched, np.zeros(6), t_end=4.0, L0=0.25, ref=ref, n_out=41)
    assert abs(r.signals["x"][-1, 3] - 0.5) < 0.02
    # torque limits are respected (and bind: the unconstrained peak is larger)
    lim = np.array([0.5, 0.5])
    r2 = sim(sched, np.zeros(6), t_end=4.0, L0=0.25, ref=ref, n_out=41, u_max=lim)
    assert np.abs(r.u).max() > 0.5 and np.all(np.abs(r2.u) <= lim + 1e-12)


def test_crouch_profile_and_normal_force(sched):
    prof = lambda t: quintic_step(t, t0=0.2, t1=0.7, v0=0.32, v1=0.14)  # noqa: E731
    r = sim(sched, [0.05, 0, 0, 0, 0, 0], t_end=2.0, L0=prof, n_out=41)
    assert abs(r.signals["L0"][-1] - 0.14) < 1e-12 and abs(r.signals["x"][-1, 0]) < 0.01
    # a very fast extension would need the ground to pull: normal force negative
    fast = lambda t: quintic_step(t, t0=0.1, t1=0.2, v0=0.14, v1=0.34)  # noqa: E731
    r = sim(sched, np.zeros(6), t_end=0.3, L0=fast, n_out=61)
    assert r.signals["N"].min() < 0 < r.signals["N"].max()


# ------------------------------------------------------------------ virtual leg and VMC


def _legs(rng, n):
    return np.stack([rng.uniform(0.15, 0.33, n), -np.pi / 2 + rng.uniform(-0.5, 0.5, n)], -1)


def test_virtual_leg_roundtrip_and_jacobian():
    rng = np.random.default_rng(5)
    leg = _legs(rng, 300)
    q = wl.virtual_leg_inverse(FB, leg)
    checks.check_close("leg round trip", wl.virtual_leg(FB, q), leg, tol=1e-12)
    checks.check_jacobian(lambda x: wl.virtual_leg_jacobian(FB, x), lambda x: wl.virtual_leg(FB, x), q)
    # straight down on the symmetric leg: motors mirror each other
    q0 = wl.virtual_leg_inverse(FB, [0.25, -np.pi / 2])
    from robokin.transforms import wrap_to_pi

    assert abs(wrap_to_pi(q0[0] + q0[1] - np.pi)) < 1e-12  # mirror about x = d/2: theta2 = pi - theta1


def test_vmc_virtual_work_and_statics():
    rng = np.random.default_rng(6)
    q = wl.virtual_leg_inverse(FB, _legs(rng, 200))
    qd = rng.normal(size=(200, 2))
    F, Tp = rng.normal(0, 100, 200), rng.normal(0, 10, 200)
    tau = wl.vmc_torques(FB, q, F, Tp)
    h = 1e-6
    legd = (wl.virtual_leg(FB, q + h * qd) - wl.virtual_leg(FB, q - h * qd)) / (2 * h)
    p_in = np.sum(tau * qd, -1)
    p_out = F * legd[:, 0] - Tp * legd[:, 1]
    checks.check_close("power", p_in, p_out, tol=1e-7, scale=np.abs(p_in).max())
    # pitfall: J^-1 in place of J^T breaks the power balance
    J = wl.virtual_leg_jacobian(FB, q)
    wrong = np.einsum("...ij,...j->...i", np.linalg.inv(J), np.stack([F, -Tp], -1))
    assert not checks.check_close(
        "power", np.sum(wrong * qd, -1), p_out, tol=1e-3, scale=np.abs(p_in).max(), raise_on_fail=False
    ).passed


def test_vmc_pure_thrust_symmetric():
    q = wl.virtual_leg_inverse(FB, [0.2, -np.pi / 2])
    tau = wl.vmc_torques(FB, q, 80.0, 0.0)
    assert abs(tau[0] + tau[1]) < 1e-12 * abs(tau[0]) and abs(tau[0]) > 1


@settings(deadline=None)
@given(L=st.floats(0.15, 0.34), a=st.floats(-0.5, 0.5), F=st.floats(-300, 300), Tp=st.floats(-30, 30))
def test_vmc_property_matches_fivebar_statics(L, a, F, Tp):
    q = wl.virtual_leg_inverse(FB, [L, -np.pi / 2 + a])
    tau = wl.vmc_torques(FB, q, F, Tp)
    phi0 = -np.pi / 2 + a
    rh = np.array([np.cos(phi0), np.sin(phi0)])
    f_foot = F * rh - Tp / L * np.array([-rh[1], rh[0]])
    np.testing.assert_allclose(tau, FB.static_torques(q, f_foot), atol=1e-9 * (1 + abs(F) + abs(Tp)))


@settings(deadline=None)
@given(L=st.floats(0.1, 0.45), th=st.floats(-0.3, 0.3), ph=st.floats(-0.3, 0.3))
def test_dynamics_batch_equals_loop(L, th, ph):
    s = np.array([[th, 0.1, 0, 0.2, ph, -0.1], [0, 0, 0, 0, 0, 0]])
    u = np.array([[0.5, -1.0], [0, 0]])
    batch = dynamics(s, u, L)
    loop = np.stack([dynamics(s[i], u[i], L) for i in range(2)])
    np.testing.assert_allclose(batch, loop, rtol=1e-13, atol=1e-13)
    assert np.all(batch[1] == 0)


def test_validate_reports_pass():
    reps = validate(fast=True)
    assert len(reps) >= 5 and all(r.passed for r in reps)


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("bad", [np.nan, np.inf, -1.0, 0.0, "x", True])
def test_params_reject_bad_values(bad):
    with pytest.raises(ValueError):
        wl.WheelLegParams(m_b=bad)
    assert set(wl.PARAM_UNITS) == {f.name for f in dataclasses.fields(wl.WheelLegParams)}


def test_bad_inputs_raise_value_error(sched):
    with pytest.raises(ValueError, match="shape"):
        dynamics(np.zeros(5), np.zeros(2), 0.2)
    with pytest.raises(ValueError, match="shape"):
        dynamics(np.zeros(6), np.zeros(3), 0.2)
    with pytest.raises(ValueError, match="non-finite"):
        dynamics([np.nan, 0, 0, 0, 0, 0], np.zeros(2), 0.2)
    with pytest.raises(ValueError, match="positive"):
        MODEL.forward_dynamics(Z3, Z3, np.zeros(2), L0=-0.2)
    with pytest.raises(ValueError, match="non-finite"):
        MODEL.forward_dynamics(Z3, Z3, np.zeros(2), L0=np.inf)
    with pytest.raises(ValueError, match="shape"):
        MODEL.forward_dynamics(Z3, np.zeros(6), np.zeros(2), L0=0.2)
    with pytest.raises(ValueError, match="WheelLegDynamics"):
        wl.linearize(P, L0=0.2)  # the parameters, not the model
    with pytest.raises(ValueError, match="shape"):
        MODEL.mass_matrix(np.zeros(2), L0=0.2)
    with pytest.raises(ValueError, match="shape"):
        MODEL.bias(Z3, np.zeros(4), L0=0.2)
    with pytest.raises(ValueError, match="non-finite"):
        MODEL.gravity([0, np.nan, 0], L0=0.2)
    with pytest.raises(ValueError, match="shape"):
        MODEL.inverse_dynamics(Z3, Z3, np.zeros(2), L0=0.2)
    with pytest.raises(ValueError, match="non-finite"):
        MODEL.normal_force(Z3, Z3, np.zeros(2), L0=0.2, L0_ddot=np.nan)
    with pytest.raises(TypeError):
        MODEL.mass_matrix(Z3, 0.2)  # L0 is keyword-only
    with pytest.raises(ValueError, match="non-finite"):
        wl.linearize(MODEL, L0=np.nan)
    with pytest.raises(ValueError, match="scalar"):
        wl.lqr_gain(MODEL, L0=[0.1, 0.2])
    with pytest.raises(ValueError, match="Q must"):
        wl.lqr_gain(MODEL, L0=0.2, Q=np.eye(5))
    with pytest.raises(ValueError, match="positive definite"):
        wl.lqr_gain(MODEL, L0=0.2, R=[1.0, 0.0])
    with pytest.raises(ValueError, match="semi-definite"):
        wl.lqr_gain(MODEL, L0=0.2, Q=-np.eye(6))
    with pytest.raises(ValueError, match="increasing"):
        wl.gain_schedule(MODEL, [0.3, 0.2, 0.1])
    with pytest.raises(ValueError, match="more grid points"):
        wl.gain_schedule(MODEL, [0.1, 0.2], degree=3)
    with pytest.raises(ValueError, match="degree"):
        wl.gain_schedule(MODEL, GRID, degree=1.5)
    with pytest.raises(ValueError, match="WheelLegDynamics"):
        wl.gain_schedule(P, GRID)
    with pytest.raises(ValueError, match="fitted range"):
        sched(0.5)
    assert np.all(np.isfinite(sched(0.5, extrapolate=True)))
    with pytest.raises(ValueError, match="shape"):
        wl.closed_loop_eigs(MODEL, 0.2, np.zeros((6, 2)))
    with pytest.raises(ValueError, match="q0"):
        wl.simulate(MODEL, sched, q0=np.zeros(2), qd0=Z3, t_end=1.0, L0=0.2)
    with pytest.raises(ValueError, match="qd0"):
        wl.simulate(MODEL, sched, q0=Z3, qd0=np.zeros((2, 3)), t_end=1.0, L0=0.2)
    with pytest.raises(ValueError, match="WheelLegDynamics"):
        wl.simulate(P, sched, q0=Z3, qd0=Z3, t_end=1.0, L0=0.2)
    with pytest.raises(ValueError, match="t_end"):
        sim(sched, np.zeros(6), t_end=-1.0, L0=0.2)
    with pytest.raises(ValueError, match="L0"):
        sim(sched, np.zeros(6), t_end=1.0, L0=np.nan)
    with pytest.raises(ValueError, match="shape"):
        sim(np.zeros((6, 2)), np.zeros(6), t_end=1.0, L0=0.2)
    with pytest.raises(ValueError, match="n_out"):
        sim(sched, np.zeros(6), t_end=1.0, L0=0.2, n_out=1)
    with pytest.raises(ValueError, match="u_max"):
        sim(sched, np.zeros(6), t_end=1.0, L0=0.2, u_max=[0.0, 1.0])


def test_virtual_leg_bad_inputs():
    with pytest.raises(ValueError, match="FiveBar"):
        wl.virtual_leg("leg", [0.0, 0.0])
    with pytest.raises(ValueError, match="shape"):
        wl.virtual_leg(FB, [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="non-finite"):
        wl.virtual_leg_jacobian(FB, [np.nan, 0.0])
    with pytest.raises(ValueError, match="assembly"):
        wl.virtual_leg(FB, [-2.0, -1.0], assembly="sideways")
    with pytest.raises(ValueError, match="positive"):
        wl.virtual_leg_inverse(FB, [-0.2, -1.5])
    with pytest.raises(UnreachableError):
        wl.virtual_leg_inverse(FB, [0.9, -1.5])  # longer than l1 + l3
    with pytest.raises(ValueError, match="branch"):
        wl.virtual_leg_inverse(FB, [0.2, -1.5], branch="up")
    with pytest.raises(TypeError):
        wl.virtual_leg_inverse(FB, [0.2, -1.5], knees="out")  # the old keyword is gone
    q = wl.virtual_leg_inverse(FB, [0.2, -1.5])
    with pytest.raises(ValueError, match="non-finite"):
        wl.vmc_torques(FB, q, np.inf, 0.0)
    with pytest.raises(ValueError, match="non-finite"):
        wl.vmc_torques(FB, q, 1.0, np.nan)


# ------------------------------------------------------------------ issue 16: no hang, callbacks checked
def _timed(fn, limit=10.0):
    """Run fn() and return (exception or None, seconds); the guard must answer well within ``limit``."""
    import signal
    import time

    def alarm(signum, frame):
        raise TimeoutError(f"hang: no answer within {limit} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    t0 = time.perf_counter()
    try:
        fn()
        err = None
    except TimeoutError:
        raise
    except Exception as e:  # noqa: BLE001 - returned to the caller
        err = e
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    dt = time.perf_counter() - t0
    assert dt < limit, f"took {dt:.1f} s"
    return err, dt


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(push=lambda t: np.nan), r"push\(t=0\) returned an invalid value.*non-finite"),
        (dict(push=lambda t: np.nan if t > 0.05 else 0.0), r"push\(t=0.0\d*\) returned an invalid value"),
        (dict(push=lambda t: [1.0, 2.0]), r"push\(t=0\) must return shape \(\), got shape \(2,\)"),
        (dict(push=lambda t: 1e300), r"magnitude above 1e\+12"),
        (dict(push=lambda t: 1j), r"complex"),
        (dict(ref=lambda t: np.full(6, np.inf)), r"ref\(t=0\) returned an invalid value"),
        (dict(ref=lambda t: np.zeros(5)), r"ref\(t=0\) must return shape \(6,\)"),
        (dict(L0=lambda t: (np.nan, 0.0, 0.0)), r"L0\(t=0\) returned an invalid value"),
        (dict(L0=lambda t: (-0.2, 0.0, 0.0)), r"non-positive leg length"),
        (dict(L0=lambda t: 0.2), r"L0\(t=0\) must return shape \(3,\)"),
        (dict(push=3.0), r"push must be a callable"),
    ],
)
def test_simulate_rejects_bad_callbacks_fast(sched, kw, match):
    """A NaN push used to make solve_ivp's first step NaN and loop forever."""
    args = dict(t_end=0.2, L0=0.2) | kw
    err, dt = _timed(lambda: sim(sched, [0.05, 0, 0, 0, 0, 0], **args))
    assert isinstance(err, ValueError), repr(err)
    assert __import__("re").search(match, str(err)), str(err)


def test_simulate_budget_raises_integration_error(sched):
    from robokin.errors import IntegrationError

    err, _ = _timed(lambda: sim(sched, [0.05, 0, 0, 0, 0, 0], t_end=1.0, L0=0.2, max_nfev=50))
    assert isinstance(err, IntegrationError) and "max_nfev=50" in str(err) and err.nfev == 50
    res = sim(sched, [0.05, 0, 0, 0, 0, 0], t_end=0.05, L0=0.2, n_out=2, max_nfev=100)
    assert res.t[-1] == 0.05


def test_simulate_diverging_model_stops(sched):
    """A destabilising gain makes the state explode; the guard stops it with a documented error."""
    from robokin.errors import IntegrationError

    K = -50 * sched(0.2)
    err, _ = _timed(lambda: sim(K, [0.1, 0, 0, 0, 0, 0], t_end=50.0, L0=0.2, max_step=0.05, max_nfev=20_000))
    assert isinstance(err, (IntegrationError, ValueError)), repr(err)


@pytest.mark.parametrize(
    "kw",
    [
        dict(rtol=1j),
        dict(atol="1e-9"),
        dict(n_out=2.0),
        dict(max_nfev=0),
        dict(max_step=np.nan),
        dict(t_end=1e300),
        dict(u_max=[1.0, -1.0]),
        dict(u_max=[1.0, 1.0, 1.0]),
        dict(q0=np.zeros(3) + 1j),
        dict(qd0=[0.0, np.nan, 0.0]),
    ],
)
def test_simulate_rejects_bad_options(sched, kw):
    args = dict(q0=Z3, qd0=Z3, t_end=0.1, L0=0.2) | kw
    with pytest.raises(ValueError):
        wl.simulate(MODEL, sched, **args)


def test_simulate_default_budget_is_enough_and_push_is_used(sched):
    kick = sim(sched, np.zeros(6), t_end=0.5, L0=0.2, push=lambda t: 50.0 * (t < 0.1), n_out=11)
    calm = sim(sched, np.zeros(6), t_end=0.5, L0=0.2, n_out=11)
    assert np.abs(calm.signals["x"]).max() == 0.0 and np.abs(kick.signals["x"]).max() > 1e-3


def test_wheel_inertia_cannot_exceed_rim_bound():
    rim = 1.6 * 0.06**2
    assert wl.WheelLegParams(I_w=rim).I_w == rim  # a pure rim is the limit
    with pytest.raises(ValueError, match="physically impossible"):
        wl.WheelLegParams(I_w=rim * (1 + 1e-9))
    with pytest.raises(ValueError, match="physically impossible"):
        wl.WheelLegParams(m_w=0.5)  # default I_w with lighter wheels
    with pytest.raises(ValueError, match="at most 1e\\+12"):
        wl.WheelLegParams(m_b=1e300)


def test_schedule_refuses_extrapolation_beyond_round_off(sched):
    lo, hi = sched.L_min, sched.L_max
    sched(np.array([lo, hi]))
    sched(hi + 1e-10 * (hi - lo))  # round-off slack (1e-9 of the range)
    for L in (hi + 1e-6 * (hi - lo), lo - 1e-6 * (hi - lo)):
        with pytest.raises(ValueError, match="outside the fitted range"):
            sched(L)
        assert np.all(np.isfinite(sched(L, extrapolate=True)))


# --------------------------------------------------------------- virtual leg -> joint PD handover
K_LEG, D_LEG = np.diag([800.0, 20.0]), np.diag([40.0, 1.0])


def _leg_law(q, qd, q_s, qd_s, w_s):
    """The virtual-leg controller near the switch: tau = J_v^T (w_s + K (x_s - x) - D (xdot - xdot_s))."""
    J = wl.virtual_leg_jacobian(FB, q)
    xdot_s = wl.virtual_leg_jacobian(FB, q_s) @ qd_s
    w = w_s + K_LEG @ (wl.virtual_leg(FB, q_s) - wl.virtual_leg(FB, q)) - D_LEG @ (J @ qd - xdot_s)
    return J.T @ w


def test_joint_handover_is_bumpless_and_matches_gains():
    q_s = wl.virtual_leg_inverse(FB, [0.22, -1.45])
    qd_s = np.array([0.4, -0.7])
    F, Tp = 75.0, 2.5
    q_ref, tau_ff, K_q, D_q = wl.joint_handover(FB, q_s, qd_s, F=F, Tp=Tp, K_leg=K_LEG, D_leg=D_LEG)
    np.testing.assert_array_equal(q_ref, q_s)
    w_s = np.array([F, -Tp])
    # exact at the switch pose, for the switch rate and any other rate
    for qd in (qd_s, np.array([-1.0, 2.0])):
        np.testing.assert_allclose(tau_ff - D_q @ qd, _leg_law(q_s, qd, q_s, qd_s, w_s), rtol=0, atol=1e-9)
    # damping exactly J^T D J; stiffness symmetric (the Hessian of w . x(q) plus J^T K J)
    J = wl.virtual_leg_jacobian(FB, q_s)
    np.testing.assert_allclose(D_q, J.T @ D_LEG @ J, atol=1e-12)
    np.testing.assert_allclose(K_q, K_q.T, atol=1e-6 * np.abs(K_q).max())
    # at rest: second order in the pose error with the geometric term, first order without it
    q_ref, tau_ff, K_q, D_q = wl.joint_handover(FB, q_s, np.zeros(2), F=F, Tp=Tp, K_leg=K_LEG, D_leg=D_LEG)
    d = np.array([0.6, -0.8])
    err, err_nogeo = [], []
    for h in (4e-3, 2e-3):
        q = q_s + h * d
        leg = _leg_law(q, np.zeros(2), q_s, np.zeros(2), w_s)
        err.append(np.linalg.norm(tau_ff + K_q @ (q_s - q) - leg))
        err_nogeo.append(np.linalg.norm(tau_ff + J.T @ K_LEG @ J @ (q_s - q) - leg))
    assert 3.5 < err[0] / err[1] < 4.5  # O(h^2)
    assert 1.8 < err_nogeo[0] / err_nogeo[1] < 2.2  # O(h): the geometric stiffness is missing


def test_joint_handover_batch_and_broadcast():
    legs = np.stack([np.linspace(0.14, 0.32, 5), np.linspace(-1.8, -1.3, 5)], -1)
    q = wl.virtual_leg_inverse(FB, legs)
    qd = np.zeros((5, 2))
    out = wl.joint_handover(FB, q, qd, F=np.linspace(20, 90, 5), Tp=1.0, K_leg=K_LEG, D_leg=D_LEG)
    assert [a.shape for a in out] == [(5, 2), (5, 2), (5, 2, 2), (5, 2, 2)]
    for i in range(5):
        one = wl.joint_handover(FB, q[i], qd[i], F=np.linspace(20, 90, 5)[i], Tp=1.0, K_leg=K_LEG, D_leg=D_LEG)
        for a, b in zip(out, one):
            np.testing.assert_allclose(a[i], b, rtol=1e-12, atol=1e-12)


@settings(deadline=None, max_examples=40)
@given(
    L=st.floats(0.13, 0.33),
    a=st.floats(-0.5, 0.5),
    F=st.floats(-200.0, 200.0),
    Tp=st.floats(-20.0, 20.0),
    qd=st.lists(st.floats(-5.0, 5.0), min_size=2, max_size=2),
    k=st.floats(0.0, 3000.0),
)
def test_joint_handover_property_torque_continuous(L, a, F, Tp, qd, k):
    q_s = wl.virtual_leg_inverse(FB, [L, -np.pi / 2 + a])
    qd = np.array(qd)
    K = np.diag([k, 0.02 * k])
    q_ref, tau_ff, K_q, D_q = wl.joint_handover(FB, q_s, qd, F=F, Tp=Tp, K_leg=K, D_leg=D_LEG)
    tau_leg = wl.vmc_torques(FB, q_s, F, Tp)  # the old command at the switch
    tau_joint = tau_ff + K_q @ (q_ref - q_s) - D_q @ qd  # the new command at the switch
    np.testing.assert_allclose(tau_joint, tau_leg, rtol=0, atol=1e-9 * (1 + np.abs(tau_leg).max()))
    np.testing.assert_allclose(K_q, K_q.T, rtol=0, atol=1e-6 * (1 + np.abs(K_q).max()))


def test_joint_handover_bad_inputs():
    q = wl.virtual_leg_inverse(FB, [0.2, -1.5])
    ok = dict(F=50.0, Tp=1.0, K_leg=K_LEG, D_leg=D_LEG)
    with pytest.raises(ValueError, match="FiveBar"):
        wl.joint_handover("leg", q, np.zeros(2), **ok)
    with pytest.raises(ValueError, match="K_leg"):
        wl.joint_handover(FB, q, np.zeros(2), **{**ok, "K_leg": np.eye(3)})
    with pytest.raises(ValueError, match="D_leg"):
        wl.joint_handover(FB, q, np.zeros(2), **{**ok, "D_leg": [1.0, 2.0]})
    with pytest.raises(ValueError, match="broadcast"):
        wl.joint_handover(FB, np.stack([q, q]), np.zeros(2), **{**ok, "F": np.ones(3)})
    with pytest.raises(ValueError, match="broadcast"):
        wl.joint_handover(FB, np.stack([q, q]), np.zeros((3, 2)), **ok)
    for name, bad in (("q", [np.nan, 0.0]), ("qd", [np.inf, 0.0]), ("qd", [1j, 0.0]), ("q", "ab")):
        args = {"q": q, "qd": np.zeros(2)}
        args[name] = bad
        with pytest.raises(ValueError):
            wl.joint_handover(FB, args["q"], args["qd"], **ok)
    for name in ("F", "Tp"):
        with pytest.raises(ValueError):
            wl.joint_handover(FB, q, np.zeros(2), **{**ok, name: np.nan})
    with pytest.raises(ValueError):
        wl.joint_handover(FB, q, np.zeros(2), **ok, assembly="sideways")
    short = dataclasses.replace(FB, l3=0.1, l4=0.1)  # shanks too short for thighs spread out
    with pytest.raises(UnreachableError):
        wl.joint_handover(short, [np.pi, 0.0], np.zeros(2), **ok)


# ------------------------------------------------------------------ issue 29: leg lengths outside the model's range
@pytest.mark.parametrize("L0", [1e-300, 1e-12, 1e-9, 1e-4])
def test_degenerate_leg_lengths_are_refused(L0):
    # L0=1e-300 gave silent 1e302 accelerations, 1e-12 a LinAlgError, 1e-9 an LQR gain that does not stabilise
    with pytest.raises(ValueError, match="L0 must be positive and at least 0.001 m"):
        MODEL.forward_dynamics(np.array([0, 0.1, 0]), np.zeros(3), np.zeros(2), L0=L0, L0_dot=0.1)
    with pytest.raises(ValueError, match="L0"):
        wl.lqr_gain(MODEL, L0=L0)


def test_shortest_accepted_leg_still_gives_a_stabilising_gain():
    L = wl.MIN_LEG_LENGTH
    assert wl.closed_loop_eigs(MODEL, L, wl.lqr_gain(MODEL, L0=L)).real.max() < 0


def test_lqr_weights_and_schedule_options():
    with pytest.raises(ValueError, match="R must be well conditioned"):
        wl.lqr_gain(MODEL, L0=0.2, R=[1.0, 1e-300])
    sched = wl.gain_schedule(MODEL, GRID, degree=2)
    with pytest.raises(ValueError, match="extrapolate must be True or False"):
        sched(0.2, extrapolate="no")


def test_simulate_options_are_capped():
    sched = wl.gain_schedule(MODEL, GRID, degree=2)
    kw = dict(q0=np.zeros(3), qd0=np.zeros(3), t_end=0.1, L0=0.2)
    for bad, match in (
        (dict(max_step=1e-300), "max_step = 1e-300 s allows"),
        (dict(n_out=10**30), "n_out must be at most"),
        (dict(rtol=1e-300), "rtol must be at least"),
        (dict(max_nfev=10**30), "max_nfev must be at most"),
    ):
        with pytest.raises(ValueError, match=match):
            wl.simulate(MODEL, sched, **kw, **bad)


# ----------------------------------------------------------------------------- sampled control, ground force (issue 33)
def test_dlqr_tends_to_continuous_and_stabilises_the_zoh_model():
    Kc = wl.lqr_gain(MODEL, L0=0.2)
    assert np.abs(wl.dlqr_gain(MODEL, L0=0.2, dt=1e-5) - Kc).max() < 1e-3 * np.abs(Kc).max()
    for dt in (0.005, 0.02, 0.05):
        Ad, Bd = wl.discretize(MODEL, L0=0.2, dt=dt)
        assert np.abs(np.linalg.eigvals(Ad - Bd @ wl.dlqr_gain(MODEL, L0=0.2, dt=dt))).max() < 1
    Ad, Bd = wl.discretize(MODEL, L0=0.2, dt=0.05)  # the continuous gain sampled too slowly
    assert np.abs(np.linalg.eigvals(Ad - Bd @ Kc)).max() > 1


@settings(max_examples=15, deadline=None)
@given(st.floats(1e-3, 0.1), st.floats(0.12, 0.34))
def test_discretize_is_the_exact_zoh(dt, L):
    import scipy.linalg

    A, B = wl.linearize(MODEL, L0=L)
    E = scipy.linalg.expm(np.block([[A, B], [np.zeros((2, 8))]]) * dt)
    Ad, Bd = wl.discretize(MODEL, L0=L, dt=dt)
    assert np.allclose(Ad, E[:6, :6], atol=1e-9) and np.allclose(Bd, E[:6, 6:], atol=1e-9)


def test_simulate_sampled_matches_the_linear_zoh_model_near_upright():
    dt, Kd = 0.01, wl.dlqr_gain(MODEL, L0=0.2, dt=0.01)
    x0 = np.array([1e-4, 0, 0, 0, 0, 0])
    res = sim_s = wl.simulate_sampled(MODEL, Kd, q0=wl.from_state(x0)[0], qd0=Z3, t_end=0.5, L0=0.2, dt=dt, substeps=8)
    Ad, Bd = wl.discretize(MODEL, L0=0.2, dt=dt)
    x, lin = x0.copy(), [x0]
    for _ in range(res.t.size - 1):
        x = (Ad - Bd @ Kd) @ x
        lin.append(x)
    assert np.abs(sim_s.signals["x"] - np.array(lin)).max() < 1e-3 * 1e-4  # nonlinear terms are second order
    assert np.allclose(res.u, res.signals["u_cmd"])  # no limit given


def test_simulate_sampled_saturates_and_push_recovery_orders():
    Kd = wl.dlqr_gain(MODEL, L0=0.2, dt=0.01)
    res = wl.simulate_sampled(MODEL, Kd, q0=[0, 0.1, 0], qd0=Z3, t_end=1.0, L0=0.2, dt=0.01, u_max=[1.0, 2.0])
    assert np.all(np.abs(res.u) <= [1.0, 2.0]) and np.abs(res.signals["u_cmd"][:, 0]).max() > 1.0
    amps = [10.0, 5000.0]
    assert wl.push_recovery(MODEL, Kd, L0=0.2, dt=0.01, amplitudes=amps).tolist() == [True, False]
    free = wl.push_recovery(MODEL, Kd, L0=0.2, dt=0.01, amplitudes=[100.0])
    tight = wl.push_recovery(MODEL, Kd, L0=0.2, dt=0.01, amplitudes=[100.0], u_max=[1.0, 2.0])
    assert free.tolist() == [True] and tight.tolist() == [False]


@pytest.mark.parametrize("amp", [100.0, 300.0, 2000.0])  # caught, caught only without limits, diverges
@pytest.mark.parametrize("umax", [None, np.array([3.0, 10.0])])
def test_rollout_of_one_run_matches_the_batched_kernel(amp, umax):
    # the plain-float path for a batch of one (simulate_sampled) against the batched kernel on a batch of two: the
    # same RK4 steps to round-off, the same samples frozen as NaN after a divergence. Trips on a wrong stage time,
    # a dropped push, the clip applied to the record instead of the held input, or a different divergence rule.
    K = wl.dlqr_gain(MODEL, L0=0.2, dt=0.01)
    X0 = np.zeros((2, 6))
    X0[:, 1] = 0.05
    push2 = lambda t: np.full(2, amp) if 0.2 <= t < 0.3 else np.zeros(2)  # noqa: E731
    push1 = lambda t: np.full(1, amp) if 0.2 <= t < 0.3 else np.zeros(1)  # noqa: E731
    batched = wl._rollout(MODEL, K, X0, 0.2, 0.01, 200, 8, push2, umax)
    one = wl._rollout(MODEL, K, X0[:1], 0.2, 0.01, 200, 8, push1, umax)
    for a, b in zip(batched, one):
        a = a[:, :1]
        assert a.shape == b.shape and np.array_equal(np.isnan(a), np.isnan(b))
        ok = ~np.isnan(b)
        assert np.allclose(a[ok], b[ok], rtol=1e-9, atol=1e-9)
    assert np.isnan(one[0]).any() == (amp == 2000.0)  # the divergence case does diverge


def _cone_by_hand(Kd, amps, mu, *, u_max=None, kw, commanded=False):
    """The cone verdicts from simulate_sampled's record: the ground force at both ends of every hold (the state at
    its start and at its end, with the torque held over it), through the public ground_force."""
    free = wl.push_recovery(MODEL, Kd, **kw, amplitudes=amps, u_max=u_max)
    want = []
    for a, f in zip(amps, free):
        if not f:  # a fall (its record may hold NaN after a divergence): not caught, cone or not
            want.append(False)
            continue
        push = lambda t, a=a: a if 0.2 - 1e-11 <= t < 0.3 - 1e-11 else 0.0  # noqa: E731 (push_recovery's edges)
        r = wl.simulate_sampled(
            MODEL, Kd, q0=Z3, qd0=Z3, t_end=kw["t_end"], L0=0.2, dt=0.01, substeps=1, push=push, u_max=u_max
        )
        u = (r.signals["u_cmd"] if commanded else r.u)[:-1]  # commanded: the mistake the test must see
        ends = [
            MODEL.ground_force(r.q[:-1], r.qd[:-1], u, L0=0.2, f_body=r.signals["f_body"][:-1]),
            MODEL.ground_force(r.q[1:], r.qd[1:], u, L0=0.2, f_body=[push(t) for t in r.t[1:]]),
        ]
        want.append(bool(all(np.all((g[:, 1] > 0) & (np.abs(g[:, 0]) <= mu * g[:, 1])) for g in ends)))
    return free, np.array(want)


@pytest.mark.parametrize(
    "mu, u_max",
    [(0.3, None), (0.6, None), (0.4, [3.5, 10.0])],  # the last: the commanded torque is clipped, the held one rules
)
def test_push_recovery_friction_cone_matches_the_sampled_runs(mu, u_max):
    # mu adds "N > 0 and |F_t| <= mu N at every integration step, with the torque held over the period" to the
    # verdict; with one RK4 step per period those are the two ends of every hold, computed here from
    # simulate_sampled's record with the public ground_force. Trips if the end of a hold is skipped (the state
    # moves while the torque is held: at 220 N and mu = 0.6 the wheel slips only there), if the commanded torque is
    # used instead of the held one, or if the cone is not applied (the grid crosses each threshold).
    Kd = wl.dlqr_gain(MODEL, L0=0.2, dt=0.01)
    amps = np.arange(20.0, 420.0, 20.0)
    kw = dict(L0=0.2, dt=0.01, t_end=2.0, tol=1.0, substeps=1)
    free, want = _cone_by_hand(Kd, amps, mu, u_max=u_max, kw=kw)
    cone = wl.push_recovery(MODEL, Kd, **kw, amplitudes=amps, mu=mu, u_max=u_max)
    assert cone.tolist() == want.tolist()
    if u_max is None:
        assert cone.any() and not np.array_equal(cone, free)  # the cone binds inside the caught range
    else:  # the commanded torque instead of the held one gives other verdicts here
        assert not np.array_equal(_cone_by_hand(Kd, amps, mu, u_max=u_max, kw=kw, commanded=True)[1], want)


def test_push_recovery_cone_is_checked_inside_holds():
    # more RK4 steps per period check states inside each hold: on a 2 N grid a push (212 N) is caught with the
    # force inside the cone at both ends of every hold but leaves it in between, so 8 steps catch fewer pushes
    # than one; the verdicts only get stricter
    Kd = wl.dlqr_gain(MODEL, L0=0.2, dt=0.01)
    amps = np.arange(150.0, 260.0, 2.0)
    kw = dict(L0=0.2, dt=0.01, t_end=2.0, tol=1.0, amplitudes=amps, mu=0.6)
    ok1, ok8 = (wl.push_recovery(MODEL, Kd, **kw, substeps=s) for s in (1, 8))
    assert np.all(ok8 <= ok1) and ok8.sum() < ok1.sum()
    assert not wl.push_recovery(MODEL, Kd, L0=0.2, dt=0.01, amplitudes=[20.0], mu=1e-3)[0]  # an icy floor


def test_push_recovery_cone_refuses_a_huge_trace():
    Kd = wl.dlqr_gain(MODEL, L0=0.2, dt=0.01)
    with pytest.raises(ValueError, match="fewer substeps"):
        wl.push_recovery(MODEL, Kd, L0=0.2, dt=0.01, amplitudes=np.ones(5000), substeps=1000, mu=0.6, t_end=3.0)


@pytest.mark.parametrize("mu", [0.0, -0.5, np.nan, np.inf, 11.0, True, "0.6", 1j])
def test_push_recovery_bad_mu_is_named(mu):
    Kd = wl.dlqr_gain(MODEL, L0=0.2, dt=0.01)
    with pytest.raises(ValueError, match="mu"):
        wl.push_recovery(MODEL, Kd, L0=0.2, dt=0.01, amplitudes=[20.0], mu=mu)


@settings(max_examples=20, deadline=None)
@given(st.floats(0.12, 0.34), st.floats(-0.4, 0.4), st.floats(-0.4, 0.4), st.floats(-10, 10), st.floats(-5, 5))
def test_ground_force_matches_wheel_spin_and_estimate_is_exact(L, th, ph, T, Ldd):
    q, qd, u = np.array([0.0, th, ph]), np.array([0.3, -0.5, 0.2]), np.array([T, 1.5])
    kw = dict(L0=L, L0_dot=0.2, L0_ddot=Ldd, f_body=7.0)
    qdd = MODEL.forward_dynamics(q, qd, u, **kw)
    Ft, N = MODEL.ground_force(q, qd, u, **kw)
    assert np.isclose(N, MODEL.normal_force(q, qd, u, **kw), rtol=0, atol=1e-9)
    # the wheel's own spin equation I_w xdd / R = T - R F_t: an independent route to F_t
    assert np.isclose(Ft, (T - P.I_w * qdd[0] / P.R) / P.R, rtol=0, atol=1e-8)
    # the thrust from the Lagrange equation of L (sympy-free here: inverse through the estimate is linear in F)
    args = dict(
        Tp=u[1], T=T, L0=L, L0_dot=0.2, L0_ddot=Ldd, theta=th, theta_dot=qd[1], theta_ddot=qdd[1], x_ddot=qdd[0]
    )
    s, c = np.sin(th), np.cos(th)
    d2c = Ldd * c - 2 * 0.2 * s * qd[1] - L * c * qd[1] ** 2 - L * s * qdd[1]
    z_hip = d2c  # wheel on the ground: the hip moves by the leg kinematics alone
    N0 = wl.normal_force_estimate(P, F=0.0, z_hip_ddot=z_hip, **args)
    N1 = wl.normal_force_estimate(P, F=1.0, z_hip_ddot=z_hip, **args)
    assert np.isclose(N1 - N0, c)  # a unit thrust adds cos(theta) to N
    assert np.isfinite(N0)


def test_sampled_and_estimate_bad_inputs():
    Kd = wl.lqr_gain(MODEL, L0=0.2)
    with pytest.raises(ValueError, match="dt"):
        wl.dlqr_gain(MODEL, L0=0.2, dt=0.0)
    with pytest.raises(ValueError, match="dt"):
        wl.discretize(MODEL, L0=0.2, dt=5.0)
    with pytest.raises(ValueError, match="K"):
        wl.simulate_sampled(MODEL, np.eye(3), q0=Z3, qd0=Z3, t_end=1.0, L0=0.2, dt=0.01)
    with pytest.raises(ValueError, match="fixed leg length"):
        wl.simulate_sampled(MODEL, Kd, q0=Z3, qd0=Z3, t_end=1.0, L0=lambda t: (0.2, 0, 0), dt=0.01)
    # a period longer than the run, or one that does not divide it, used to end the record at round(t_end/dt) dt
    for t_end, dt in [(0.01, 0.05), (1.0, 0.003), (1.0, 0.75)]:
        with pytest.raises(ValueError, match="whole number of control periods"):
            wl.simulate_sampled(MODEL, Kd, q0=Z3, qd0=Z3, t_end=t_end, L0=0.2, dt=dt)
    res = wl.simulate_sampled(MODEL, Kd, q0=Z3, qd0=Z3, t_end=0.3, L0=0.2, dt=0.1)  # 3 periods: float-safe
    assert res.t.shape == (4,) and np.isclose(res.t[-1], 0.3)
    with pytest.raises(ValueError, match="push"):
        wl.push_recovery(MODEL, Kd, L0=0.2, dt=0.01, amplitudes=[1.0], push_start=2.0, t_end=2.0)
    with pytest.raises(ValueError, match="amplitudes"):
        wl.push_recovery(MODEL, Kd, L0=0.2, dt=0.01, amplitudes=np.ones((2, 2)))
    with pytest.raises(ValueError, match="params"):
        wl.normal_force_estimate(
            {}, F=1, Tp=0, T=0, L0=0.2, L0_dot=0, L0_ddot=0, theta=0, theta_dot=0, theta_ddot=0, x_ddot=0, z_hip_ddot=0
        )
    with pytest.raises(ValueError, match="non-finite"):
        wl.normal_force_estimate(
            P,
            F=np.nan,
            Tp=0,
            T=0,
            L0=0.2,
            L0_dot=0,
            L0_ddot=0,
            theta=0,
            theta_dot=0,
            theta_ddot=0,
            x_ddot=0,
            z_hip_ddot=0,
        )


def test_speed_reference_is_the_smooth_step_and_its_integral():
    # the position reference is the integral of the speed (sympy), the speed is quintic_step's, and both are
    # continuous at t0 and t1. Trips on a wrong integral coefficient, a missing v (t - t1) tail or a shifted step.
    import sympy as sp

    from robokin.trajectory import quintic_step

    s_ = sp.symbols("s")
    p = 10 * s_**3 - 15 * s_**4 + 6 * s_**5
    assert sp.expand(sp.integrate(p, (s_, 0, s_)) - (sp.Rational(5, 2) * s_**4 - 3 * s_**5 + s_**6)) == 0
    ref = wl.speed_reference(1.3, t0=0.4, t1=1.9)
    t = np.linspace(0.0, 3.0, 3001)
    R = np.array([ref(x) for x in t])
    assert np.allclose(R[:, 3], quintic_step(t, t0=0.4, t1=1.9, v0=0.0, v1=1.3)[0], atol=1e-14)
    assert np.all(R[:, [0, 1, 4, 5]] == 0) and np.all(R[t <= 0.4, 2] == 0)
    dx = np.gradient(R[:, 2], t)  # the position's rate is the speed (second order, so small but not round-off)
    assert np.abs(dx - R[:, 3]).max() < 1e-5
    assert np.isclose(ref(1.9)[2], 1.3 * 1.5 / 2)  # the step covers half the distance of the final speed over it


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(v=np.nan), "v"),
        (dict(v=True), "v"),
        (dict(t0=-1.0), "t0"),
        (dict(t1=0.4), "t1 > t0"),
        (dict(t1=np.inf), "t1"),
        (dict(v=1j), "v"),
    ],
)
def test_speed_reference_bad_inputs(kw, match):
    args = dict(v=1.0, t0=0.4, t1=1.9) | kw
    with pytest.raises(ValueError, match=match):
        wl.speed_reference(args.pop("v"), **args)
