"""Tests for robokin.ident: base parameters, regressors, Fourier excitation and least squares."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robokin.control import friction_torque
from robokin.dynamics import TwoLinkArm
from robokin.errors import SingularityWarning
from robokin.ident import (
    BASE_NAMES,
    PARAM_NAMES,
    arm_from_base_parameters,
    base_parameters,
    encoder_reading,
    estimate_derivatives,
    fourier_excitation,
    gravity_regressor,
    least_squares,
    lowpass,
    motion_segments,
    qr_base_parameters,
    regressor,
    residual_rms,
    segment_excitation,
)
from robokin.robots import ARM2 as ARM
from robokin.validation.ident import validate

HSET = settings(deadline=None)  # example count and seeding come from the profile (tests/conftest.py)
val = st.floats(-4, 4)


@HSET
@given(st.lists(val, min_size=6, max_size=6), st.floats(0.5, 2.0), st.floats(0.01, 0.4))
def test_regressor_reproduces_inverse_dynamics_for_any_arm(x, m2, lc2):
    arm = ARM.replace(m2=m2, lc2=lc2)
    q, qd, qdd = np.array(x[:2]), np.array(x[2:4]), np.array(x[4:])
    fv, fc = np.array([0.2, 0.1]), np.array([0.3, 0.05])
    tau = arm.inverse_dynamics(q, qd, qdd) + friction_torque(qd, fv, fc)
    assert np.allclose(
        regressor(q, qd, qdd, friction=True) @ base_parameters(arm, fv=fv, fc=fc), tau, rtol=1e-12, atol=1e-12
    )


def test_gravity_regressor_matches_G_and_full_regressor():
    q = np.random.default_rng(0).uniform(-3, 3, (100, 2))
    th = base_parameters(ARM)
    assert np.allclose(gravity_regressor(q) @ th[3:], ARM.gravity(q), atol=1e-13)
    z = np.zeros_like(q)
    assert np.allclose(regressor(q, z, z)[..., 3:], gravity_regressor(q))


def test_base_parameters_are_not_separable_but_torques_are_identical():
    # two different arms with the same base parameters give the same torques: why only θ is identifiable
    a = TwoLinkArm(m1=1.0, m2=1.0, l1=1.0, l2=1.0, lc1=0.5, lc2=0.5, I1=0.1, I2=0.1)
    b = a.replace(m1=1.25, lc1=0.4, I1=0.1 + 0.25 - 1.25 * 0.16)  # same m1 lc1 and I1 + m1 lc1^2
    assert np.allclose(base_parameters(a), base_parameters(b))
    q, qd, qdd = np.random.default_rng(1).uniform(-2, 2, (3, 20, 2))
    assert np.allclose(a.inverse_dynamics(q, qd, qdd), b.inverse_dynamics(q, qd, qdd))


def test_fourier_excitation_derivatives_and_period():
    rng = np.random.default_rng(2)
    a, b = rng.normal(0, 0.3, (2, 2, 4))
    wf = 2 * np.pi * 0.2
    t = np.linspace(0, 5, 301)
    q, qd, qdd = fourier_excitation(t, a, b, wf=wf, q0=[0.1, -0.2])
    h = 1e-6
    qp, qdp, _ = fourier_excitation(t + h, a, b, wf=wf, q0=[0.1, -0.2])
    qm, qdm, _ = fourier_excitation(t - h, a, b, wf=wf, q0=[0.1, -0.2])
    assert np.allclose((qp - qm) / (2 * h), qd, atol=1e-7)
    assert np.allclose((qdp - qdm) / (2 * h), qdd, atol=1e-6)
    qT, _, _ = fourier_excitation(t + 2 * np.pi / wf, a, b, wf=wf, q0=[0.1, -0.2])
    assert np.allclose(qT, q, atol=1e-12)


def test_least_squares_with_noise_is_unbiased_within_standard_errors():
    rng = np.random.default_rng(3)
    a, b = rng.normal(0, 0.8, (2, 2, 5))
    t = np.linspace(0, 10, 2000)
    q, qd, qdd = fourier_excitation(t, a, b, wf=2 * np.pi * 0.1, q0=[0.0, 0.5])
    fv, fc = np.array([0.2, 0.1]), np.array([0.3, 0.05])
    th = base_parameters(ARM, fv=fv, fc=fc)
    Y = regressor(q, qd, qdd, friction=True)
    tau = Y @ th + rng.normal(0, 0.05, (t.size, 2))
    est = least_squares(Y, tau)
    z = np.abs(est.theta - th) / est.std
    assert np.all(z < 5)
    assert 0.03 < est.residual_rms < 0.07  # the residual reflects the noise level
    assert np.isfinite(est.cond) and est.cond > 1


@HSET
@given(st.integers(0, 2**32 - 1), st.integers(3, 9), st.booleans())
def test_least_squares_matches_lstsq_and_pinv(seed, p, deficient):
    """The one-factorisation solver returns what numpy's lstsq (minimum-norm) and pinv give, also rank deficient."""
    rng = np.random.default_rng(seed)
    Y = rng.normal(size=(40, 2, p)) * rng.uniform(0.1, 10.0, p)
    if deficient:
        Y[..., -1] = 2.0 * Y[..., 0]  # dependent columns: the minimum-norm solution
    tau = rng.normal(size=(3, 40, 2))
    if deficient:
        with pytest.warns(SingularityWarning):
            est = least_squares(Y, tau)
    else:
        est = least_squares(Y, tau)
    A = Y.reshape(-1, p)
    norms = np.linalg.norm(A, axis=0)
    As = A / norms
    ref = np.linalg.lstsq(As, tau.reshape(3, -1).T, rcond=None)[0] / norms[:, None]
    assert np.allclose(est.theta, ref.T, rtol=1e-9, atol=1e-9 * np.abs(ref).max())
    sv = np.linalg.svd(As, compute_uv=False)
    assert est.cond == pytest.approx(sv[0] / sv[-1] if sv[-1] > 0 else np.inf, rel=1e-6)
    r = tau.reshape(3, -1).T - A @ ref
    var = np.clip(np.diag(np.linalg.pinv(As.T @ As)), 0, None) / norms**2
    std = np.sqrt(np.sum(r * r, axis=0)[:, None] / (A.shape[0] - p) * var)
    if not deficient:  # pinv of a singular Gram matrix keeps round-off-sized eigenvalues: compare full rank only
        assert np.allclose(est.std, std, rtol=1e-8)
    assert np.allclose(est.residual_rms, np.sqrt(np.mean(r * r, axis=0)), rtol=1e-9)


def test_poor_excitation_has_worse_conditioning():
    rng = np.random.default_rng(4)
    t = np.linspace(0, 10, 1000)
    rich = fourier_excitation(t, rng.normal(0, 0.8, (2, 5)), rng.normal(0, 0.8, (2, 5)), wf=0.6, q0=[0, 0.5])
    poor = fourier_excitation(t, [[0.05], [0.05]], [[0.0], [0.0]], wf=0.6, q0=[0, 0.5])
    assert (
        least_squares(regressor(*rich), np.zeros((1000, 2))).cond
        < least_squares(regressor(*poor), np.zeros((1000, 2))).cond / 10
    )


def test_rank_deficient_regressor_warns_and_zero_column_raises():
    t = np.linspace(0, 1, 100)
    q = np.stack([0.3 * t, 0.3 * t], -1)  # q1 = q2, constant speed, no acceleration
    Y = regressor(q, np.full_like(q, 0.3), np.zeros_like(q))
    Y[..., 1] = Y[..., 0]  # two identical columns
    Y[..., 0] += 1e-3
    Y[..., 1] += 1e-3
    with pytest.warns(SingularityWarning):
        least_squares(Y, np.zeros((100, 2)))
    with pytest.raises(ValueError, match="all zero"):
        least_squares(regressor(q, np.zeros_like(q), np.zeros_like(q)), np.zeros((100, 2)))


def test_arm_from_base_parameters_is_dynamically_equivalent():
    th = base_parameters(ARM)
    twin = arm_from_base_parameters(th, l1=ARM.l1, l2=ARM.l2, m1=2.0, m2=1.0)  # different masses
    q, qd, qdd = np.random.default_rng(5).uniform(-2, 2, (3, 30, 2))
    assert np.allclose(twin.inverse_dynamics(q, qd, qdd), ARM.inverse_dynamics(q, qd, qdd), atol=1e-12)
    assert twin.m1 == 2.0 and not np.isclose(twin.lc1, ARM.lc1)
    with pytest.raises(ValueError, match="consistent"):
        arm_from_base_parameters(th, l1=ARM.l1, l2=ARM.l2, m1=1.0, m2=10.0)
    with pytest.raises(ValueError):
        arm_from_base_parameters(th[:3], l1=1.0, l2=1.0, m1=1.0, m2=1.0)


def test_arm_from_base_parameters_refuses_theta3_that_breaks_l1_theta5():
    th = base_parameters(ARM)
    assert np.isclose(th[2], ARM.l1 * th[4], rtol=1e-15)  # the constraint every arm satisfies
    bad = th.copy()
    bad[2] *= 1 + 1e-6  # what a five-column fit delivers: θ3 and θ5 moved apart by noise
    with pytest.raises(ValueError, match=r"theta\[2\].*l1 θ5"):
        arm_from_base_parameters(bad, l1=ARM.l1, l2=ARM.l2, m1=ARM.m1, m2=ARM.m2)
    # a stated looser tolerance admits it; the arm then follows θ5 (θ3 is implied by it)
    arm = arm_from_base_parameters(bad, l1=ARM.l1, l2=ARM.l2, m1=ARM.m1, m2=ARM.m2, rtol=2e-6)
    assert np.isclose(arm.lc2, ARM.lc2, rtol=1e-12)
    with pytest.raises(ValueError, match=r"theta\[2\]"):  # the wrong l1 breaks it too
        arm_from_base_parameters(th, l1=1.1 * ARM.l1, l2=ARM.l2, m1=ARM.m1, m2=ARM.m2)
    with pytest.raises(ValueError, match="rtol"):
        arm_from_base_parameters(th, l1=ARM.l1, l2=ARM.l2, m1=ARM.m1, m2=ARM.m2, rtol=-1.0)
    with pytest.raises(ValueError, match="rtol"):
        arm_from_base_parameters(th, l1=ARM.l1, l2=ARM.l2, m1=ARM.m1, m2=ARM.m2, rtol=np.nan)


def _standard_regressor(q, qd, qdd, l1, g=9.81):
    """Regressor in the six standard inertial parameters (m1, m1 lc1, I1 + m1 lc1², m2, m2 lc2, I2 + m2 lc2²),
    written independently from the Lagrangian of the arm (not from robokin)."""
    c1, c2, s2, c12 = np.cos(q[..., 0]), np.cos(q[..., 1]), np.sin(q[..., 1]), np.cos(q[..., 0] + q[..., 1])
    v1, v2, a1, a2 = qd[..., 0], qd[..., 1], qdd[..., 0], qdd[..., 1]
    z = np.zeros_like(c1)
    # tau1 = J1 a1 + m2 l1² a1 + J2 (a1 + a2) + h2 l1 [c2 (2 a1 + a2) - s2 (2 v1 v2 + v2²)] + g (h1 c1 + m2 l1 c1 + h2 c12)
    row1 = [
        z,
        g * c1,
        a1,
        l1**2 * a1 + g * l1 * c1,
        l1 * (c2 * (2 * a1 + a2) - s2 * (2 * v1 * v2 + v2**2)) + g * c12,
        a1 + a2,
    ]
    row2 = [z, z, z, z, l1 * (c2 * a1 + s2 * v1**2) + g * c12, a1 + a2]
    return np.stack([np.stack(row1, -1), np.stack(row2, -1)], -2)


def test_base_set_is_four_when_l1_is_known():
    rng = np.random.default_rng(12)
    q, qd, qdd = rng.uniform(-2, 2, (3, 400, 2))
    Ys = _standard_regressor(q, qd, qdd, ARM.l1).reshape(-1, 6)
    phi = [
        ARM.m1,
        ARM.m1 * ARM.lc1,
        ARM.I1 + ARM.m1 * ARM.lc1**2,
        ARM.m2,
        ARM.m2 * ARM.lc2,
        ARM.I2 + ARM.m2 * ARM.lc2**2,
    ]
    assert np.allclose(Ys @ phi, ARM.inverse_dynamics(q, qd, qdd).reshape(-1), atol=1e-12)  # the reference is right
    Y = regressor(q, qd, qdd)
    assert np.linalg.matrix_rank(Y.reshape(-1, 5)) == 5  # the five columns are independent (l1 unknown) ...
    assert np.linalg.matrix_rank(Ys) == 4  # ... but with l1 known the torques depend on four combinations
    Yb = regressor(q, qd, qdd, l1=ARM.l1)
    assert Yb.shape == (400, 2, 4) and np.linalg.matrix_rank(Yb.reshape(-1, 4)) == 4
    # the base-parameter regressor spans the same torques as the standard one
    assert np.linalg.matrix_rank(np.hstack([Ys, Yb.reshape(-1, 4)])) == 4
    th, thb = base_parameters(ARM), base_parameters(ARM, minimal=True)
    np.testing.assert_array_equal(thb, th[[0, 1, 3, 4]])
    np.testing.assert_allclose(Yb @ thb, Y @ th, atol=1e-12)
    Ybf = regressor(q, qd, qdd, l1=ARM.l1, friction=True)
    assert Ybf.shape == (400, 2, 8)
    np.testing.assert_array_equal(Ybf[..., 4:], regressor(q, qd, qdd, friction=True)[..., 5:])
    with pytest.raises(ValueError, match="l1"):
        regressor(q, qd, qdd, l1=0.0)
    with pytest.raises(ValueError, match="minimal"):
        base_parameters(ARM, minimal=1)


def test_reduced_fit_recovers_the_arm_and_expands_consistently():
    rng = np.random.default_rng(13)
    a, b = rng.normal(0, 0.8, (2, 2, 5))
    q, qd, qdd = fourier_excitation(np.linspace(0, 10, 1500), a, b, wf=2 * np.pi * 0.1, q0=[0.0, 0.5])
    fv, fc = np.array([0.2, 0.1]), np.array([0.3, 0.05])
    th = base_parameters(ARM, fv=fv, fc=fc)
    Y = regressor(q, qd, qdd, friction=True)
    taus = Y @ th + rng.normal(0, 0.05, (3, 1500, 2))
    est = least_squares(regressor(q, qd, qdd, friction=True, l1=ARM.l1), taus)
    assert est.theta.shape == (3, 8) and len(BASE_NAMES) == 8
    thb = base_parameters(ARM, fv=fv, fc=fc, minimal=True)
    assert [PARAM_NAMES.index(n) for n in BASE_NAMES] == [0, 1, 3, 4, 5, 6, 7, 8]
    np.testing.assert_array_equal(thb, th[[0, 1, 3, 4, 5, 6, 7, 8]])
    assert np.all(np.abs(est.theta - thb) < 5 * est.std)
    arm = arm_from_base_parameters(est.theta[0], l1=ARM.l1, l2=ARM.l2, m1=ARM.m1, m2=ARM.m2)  # base set: accepted
    assert np.isclose(arm.lc2, ARM.lc2, rtol=1e-2)
    exact = arm_from_base_parameters(thb, l1=ARM.l1, l2=ARM.l2, m1=ARM.m1, m2=ARM.m2)
    np.testing.assert_allclose([exact.lc1, exact.lc2, exact.I1, exact.I2], [ARM.lc1, ARM.lc2, ARM.I1, ARM.I2])
    # the five-column fit of the same data breaks θ3 = l1 θ5, and the arm builder says so
    free = least_squares(Y, taus[0]).theta
    assert not np.isclose(free[2], ARM.l1 * free[4], rtol=1e-9)
    with pytest.raises(ValueError, match=r"theta\[2\]"):
        arm_from_base_parameters(free, l1=ARM.l1, l2=ARM.l2, m1=ARM.m1, m2=ARM.m2)


def test_validate_reports_pass():
    assert all(r.passed for r in validate(fast=True))


def test_bad_inputs():
    with pytest.raises(ValueError):
        base_parameters("arm")
    with pytest.raises(ValueError):
        base_parameters(ARM.replace(m1=np.ones(3)))
    with pytest.raises(ValueError):
        base_parameters(ARM, fv=[0.1, 0.1])
    with pytest.raises(ValueError):
        base_parameters(ARM, fv=[0.1, -0.1], fc=[0, 0])
    with pytest.raises(ValueError):
        gravity_regressor([0.0, np.nan])
    with pytest.raises(ValueError):
        gravity_regressor([0.0, 0.0], g=-9.81)
    with pytest.raises(ValueError):
        regressor([0, 0], [0, 0], [0, 0, 0])
    with pytest.raises(ValueError):
        regressor([0, 0], [0, 0], [0, 0], friction="yes")
    with pytest.raises(ValueError):
        regressor([0, 0], [0, np.inf], [0, 0])
    with pytest.raises(ValueError):
        fourier_excitation([[0.0]], [[1.0], [1.0]], [[0.0], [0.0]], wf=1.0, q0=[0, 0])
    with pytest.raises(ValueError):
        fourier_excitation([0.0], [[1.0], [1.0]], [[0.0, 1.0], [0.0, 1.0]], wf=1.0, q0=[0, 0])
    with pytest.raises(ValueError):
        fourier_excitation([0.0], [[1.0], [1.0]], [[0.0], [0.0]], wf=0.0, q0=[0, 0])
    with pytest.raises(ValueError):
        least_squares(np.ones((2, 2, 5)), np.ones((2, 2)))
    with pytest.raises(ValueError):
        least_squares(np.ones((10, 2, 5)), np.ones((9, 2)))
    with pytest.raises(ValueError):
        least_squares(np.ones((10, 3, 5)), np.ones((10, 3)))
    with pytest.raises(ValueError):
        least_squares(np.full((10, 2, 2), np.nan), np.ones((10, 2)))


# ------------------------------------------------------------------------ regressor against an independent derivation
def test_regressor_matches_an_independent_lagrangian_derivation():
    # Lagrange's equations in sympy, written from the link energies (not from TwoLinkArm): a flipped sign or a
    # changed constant in any regressor column changes these torques
    import sympy as sp

    q1, q2, v1, v2, a1, a2 = sp.symbols("q1 q2 v1 v2 a1 a2")
    m1, m2, l1, lc1, lc2, I1, I2, g = 1.3, 0.7, 0.45, 0.2, 0.15, 0.04, 0.01, 9.81
    tt = sp.Symbol("t")
    f1, f2 = sp.Function("f1")(tt), sp.Function("f2")(tt)
    p1 = sp.Matrix([lc1 * sp.cos(f1), lc1 * sp.sin(f1)])
    p2 = sp.Matrix([l1 * sp.cos(f1) + lc2 * sp.cos(f1 + f2), l1 * sp.sin(f1) + lc2 * sp.sin(f1 + f2)])
    T = (
        m1 * p1.diff(tt).dot(p1.diff(tt))
        + m2 * p2.diff(tt).dot(p2.diff(tt))
        + I1 * f1.diff(tt) ** 2
        + I2 * (f1.diff(tt) + f2.diff(tt)) ** 2
    ) / 2
    L = T - g * (m1 * p1[1] + m2 * p2[1])
    sub = {f1.diff(tt, 2): a1, f2.diff(tt, 2): a2, f1.diff(tt): v1, f2.diff(tt): v2}
    tau = [(L.diff(f.diff(tt)).diff(tt) - L.diff(f)).subs(sub).subs({f1: q1, f2: q2}) for f in (f1, f2)]
    f_tau = sp.lambdify((q1, q2, v1, v2, a1, a2), tau)
    arm = TwoLinkArm(m1=m1, m2=m2, l1=l1, l2=0.3, lc1=lc1, lc2=lc2, I1=I1, I2=I2)
    fv, fc = np.array([0.2, 0.1]), np.array([0.3, 0.05])
    th = base_parameters(arm, fv=fv, fc=fc)
    x = np.random.default_rng(8).uniform(-3, 3, (40, 6))
    want = np.array([f_tau(*r) for r in x], dtype=float)
    want += fv * x[:, 2:4] + fc * np.tanh(x[:, 2:4] / 0.01)  # friction as documented
    got = regressor(x[:, :2], x[:, 2:4], x[:, 4:], friction=True) @ th
    assert np.allclose(got, want, rtol=0, atol=1e-11)
    # the friction columns sit where PARAM_NAMES says
    Y = regressor([0.0, 0.0], [0.01, -0.02], [0.0, 0.0], friction=True)
    assert np.allclose(Y[0, 5:], [0.01, 0, np.tanh(1.0), 0]) and np.allclose(Y[1, 5:], [0, -0.02, 0, -np.tanh(2.0)])


# ------------------------------------------------------------------------ encoder readings and derivative estimates
def test_encoder_reading_quantises_within_half_a_count():
    q = np.random.default_rng(9).uniform(-3, 3, (500, 2))
    res = 2 * np.pi / 4096
    r = encoder_reading(q, counts_per_rev=4096)
    assert np.allclose(r / res, np.round(r / res), atol=1e-9)
    assert np.abs(r - q).max() <= res / 2 + 1e-15 and np.abs(r - q).max() > 0.45 * res
    noisy = encoder_reading(q, counts_per_rev=2**20, noise_std=1e-3, rng=np.random.default_rng(0))
    assert 0.9e-3 < np.std(noisy - q) < 1.1e-3


@settings(deadline=None)
@given(st.lists(st.floats(-2, 2), min_size=8, max_size=8), st.sampled_from([7, 11, 21]))
def test_savgol_is_exact_on_polynomials_of_its_degree(c, window):
    t = np.arange(0, 0.5, 0.005)
    q = np.stack([c[0] + c[1] * t + c[2] * t**2 + c[3] * t**3, c[4] + c[5] * t + c[6] * t**2 + c[7] * t**3], -1)
    qd = np.stack([c[1] + 2 * c[2] * t + 3 * c[3] * t**2, c[5] + 2 * c[6] * t + 3 * c[7] * t**2], -1)
    qdd = np.stack([2 * c[2] + 6 * c[3] * t, 2 * c[6] + 6 * c[7] * t], -1)
    got = estimate_derivatives(q, dt=0.005, method="savgol", window=window, polyorder=3)
    for g_, w in zip(got, (q, qd, qdd)):
        assert np.allclose(g_, w, atol=1e-7)


def test_filters_recover_a_slow_motion_and_central_differences_amplify_noise():
    dt = 0.002
    t = np.arange(0, 4, dt)
    w = 2 * np.pi * 0.5
    q = np.stack([np.sin(w * t), 0.5 * np.cos(w * t)], -1)
    qdd = -(w**2) * q
    rng = np.random.default_rng(10)
    meas = encoder_reading(q, counts_per_rev=2**14, noise_std=2e-4, rng=rng)
    inner = slice(250, -250)
    errs = {}
    for method, kw in (("central", {}), ("savgol", dict(window=101, polyorder=4)), ("butterworth", dict(cutoff=5.0))):
        _, _, a = estimate_derivatives(meas, dt=dt, method=method, **kw)
        errs[method] = np.abs(a - qdd)[inner].max()
    # central differences: noise / dt^2 swamps a 10 rad/s^2 signal; both filters stay within a few percent
    assert errs["central"] > w**2 and errs["savgol"] < 0.05 * w**2 and errs["butterworth"] < 0.05 * w**2
    # without noise central differences are second-order accurate
    _, _, a = estimate_derivatives(q, dt=dt, method="central")
    assert np.abs(a - qdd)[inner].max() < w**4 * dt**2


def test_lowpass_is_zero_phase_and_attenuates():
    dt = 0.001
    t = np.arange(0, 3, dt)
    slow, fast = np.sin(2 * np.pi * 1.0 * t), np.sin(2 * np.pi * 100 * t)
    y = lowpass(slow + fast, dt=dt, cutoff=10.0)
    assert np.abs(y - slow)[300:-300].max() < 2e-3  # no delay on the slow part, fast part gone


def test_measurement_bad_inputs():
    q = np.zeros((50, 2))
    with pytest.raises(ValueError):
        encoder_reading(q, counts_per_rev=0)
    with pytest.raises(ValueError):
        encoder_reading(q, counts_per_rev=1024.0)
    with pytest.raises(ValueError, match="rng"):
        encoder_reading(q, counts_per_rev=1024, noise_std=1e-3)
    with pytest.raises(ValueError):
        encoder_reading(q, counts_per_rev=1024, noise_std=-1.0, rng=np.random.default_rng(0))
    with pytest.raises(ValueError):
        encoder_reading([0.0, np.nan], counts_per_rev=1024)
    with pytest.raises(ValueError, match="method"):
        estimate_derivatives(q, dt=0.01, method="spline")
    with pytest.raises(ValueError):
        estimate_derivatives(q, dt=0.0, method="central")
    with pytest.raises(ValueError, match="window"):
        estimate_derivatives(q, dt=0.01, method="savgol", window=10, polyorder=3)
    with pytest.raises(ValueError, match="window"):
        estimate_derivatives(q, dt=0.01, method="savgol", window=3, polyorder=3)
    with pytest.raises(ValueError, match="polyorder"):
        estimate_derivatives(q, dt=0.01, method="savgol", window=5, polyorder=1)
    with pytest.raises(ValueError, match="cutoff"):
        estimate_derivatives(q, dt=0.01, method="butterworth")
    with pytest.raises(ValueError, match="Nyquist"):
        estimate_derivatives(q, dt=0.01, method="butterworth", cutoff=60.0)
    with pytest.raises(ValueError):
        estimate_derivatives(np.zeros((2, 2)), dt=0.01, method="central")
    with pytest.raises(ValueError):
        estimate_derivatives(np.full((50, 2), np.nan), dt=0.01, method="central")
    with pytest.raises(ValueError, match="order"):
        lowpass(q, dt=0.01, cutoff=1.0, order=0)


def test_batched_measurements_equal_one_at_a_time():
    rng = np.random.default_rng(11)
    Y = regressor(*rng.uniform(-2, 2, (3, 300, 2)), friction=True)
    th = base_parameters(ARM, fv=[0.2, 0.1], fc=[0.3, 0.05])
    taus = Y @ th + rng.normal(0, 0.05, (6, 300, 2))
    batch = least_squares(Y, taus)
    assert batch.theta.shape == (6, 9) and batch.std.shape == (6, 9) and batch.residual_rms.shape == (6,)
    for k in range(6):
        one = least_squares(Y, taus[k])
        assert np.allclose(batch.theta[k], one.theta, rtol=0, atol=1e-12)
        assert np.allclose(batch.std[k], one.std, rtol=1e-12) and np.isclose(batch.residual_rms[k], one.residual_rms)
    with pytest.raises(ValueError):
        least_squares(Y, taus[:, :10])
    with pytest.raises(ValueError):
        least_squares(Y, taus[None])


# ------------------------------------------------------------------------------------ segment validation
V_SEG = np.array([[0.8, -1.0], [-0.8, 1.0], [0.0, 0.0]])


def test_segment_excitation_is_consistent_and_cruises_exactly():
    t = np.arange(0.0, 5.0, 1e-4)
    q, qd, qdd = segment_excitation(t, V_SEG, t_acc=0.6, t_cruise=1.0, q0=[0.1, 0.6])
    np.testing.assert_allclose(np.gradient(q, 1e-4, axis=0)[2:-2], qd[2:-2], atol=1e-7)
    np.testing.assert_allclose(np.gradient(qd, 1e-4, axis=0)[2:-2], qdd[2:-2], atol=2e-6)
    cruise = (t >= 0.6) & (t < 1.6)
    assert np.all(qdd[cruise] == 0) and np.allclose(qd[cruise], V_SEG[0])
    np.testing.assert_allclose(q[0], [0.1, 0.6])
    np.testing.assert_allclose(qd[-1], 0.0, atol=1e-12)  # ends at rest after the zero segment
    # net displacement: each blend covers its mean velocity times t_acc, each cruise v t_cruise
    want = 0.6 * (0 + 0.8) / 2 + 0.8 + 0.6 * (0.8 - 0.8) / 2 - 0.8 + 0.6 * (-0.8 + 0) / 2
    assert np.isclose(q[t < 4.8][-1][0] - 0.1, want, atol=1e-3)


@settings(deadline=None, max_examples=30)
@given(
    st.lists(st.floats(-2, 2), min_size=2, max_size=2),
    st.lists(st.floats(-2, 2), min_size=2, max_size=2),
    st.floats(0.1, 1.0),
    st.floats(0.1, 1.0),
)
def test_segment_excitation_property_velocity_integrates_to_angle(v1, v2, t_acc, t_cruise):
    v = np.array([v1, v2])
    dt = 1e-4
    t = np.arange(0.0, 2 * (t_acc + t_cruise), dt)
    q, qd, qdd = segment_excitation(t, v, t_acc=t_acc, t_cruise=t_cruise, q0=[0.0, 0.0])
    from scipy.integrate import cumulative_trapezoid

    np.testing.assert_allclose(q, cumulative_trapezoid(qd, dx=dt, axis=0, initial=0.0), atol=1e-6)
    assert np.abs(qd).max() <= np.abs(v).max() + 1e-12  # the smooth step never overshoots


def test_motion_segments_labels_and_disjointness():
    t = np.arange(0.0, 5.0, 1e-3)
    _, qd, qdd = segment_excitation(t, V_SEG, t_acc=0.6, t_cruise=1.0, q0=[0.0, 0.0])
    const, acc = motion_segments(qd, qdd, v_min=0.1, a_tol=0.0, a_min=1.0)
    assert not np.any(const & acc)
    assert np.all(qdd[const] == 0) and np.all(np.abs(qd[const]).max(axis=1) >= 0.1)
    assert np.all(np.abs(qdd[acc]).max(axis=1) >= 1.0)
    assert np.isclose(const.mean(), 2.0 / 5.0, atol=2e-3)  # the two cruises
    assert not const[-1]  # at rest: neither


def test_residual_rms_values_batches_and_mask():
    rng = np.random.default_rng(3)
    Y = rng.normal(size=(200, 2, 3))
    th = np.array([1.0, -2.0, 0.5])
    noise = rng.normal(0, 0.1, (4, 200, 2))
    tau = Y @ th + noise
    np.testing.assert_allclose(residual_rms(Y, tau, th), np.sqrt(np.mean(noise**2, axis=1)))
    ths = np.stack([th, th + 1.0])
    r = residual_rms(Y, tau[0], ths)
    assert r.shape == (2, 2) and np.allclose(r[0], residual_rms(Y, tau[0], th)) and np.all(r[1] > r[0])
    m = np.arange(200) < 50
    np.testing.assert_allclose(residual_rms(Y, tau[0], th, mask=m), np.sqrt(np.mean(noise[0, :50] ** 2, axis=0)))


@settings(deadline=None, max_examples=30)
@given(st.floats(0.01, 10.0), st.integers(5, 60))
def test_residual_rms_property_scales_with_the_residual(k, n):
    rng = np.random.default_rng(n)
    Y = rng.normal(size=(n, 2, 2))
    th = np.array([0.3, -0.4])
    e = rng.normal(size=(n, 2))
    np.testing.assert_allclose(residual_rms(Y, Y @ th + k * e, th), k * residual_rms(Y, Y @ th + e, th), rtol=1e-10)


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(t=[[0.0, 1.0]]), "t"),
        (dict(t=[-1.0, 0.0]), "t"),
        (dict(v=[1.0, 2.0]), "v"),
        (dict(v=[[np.nan, 1.0]]), "v"),
        (dict(t_acc=0.0), "t_acc"),
        (dict(t_cruise=-1.0), "t_cruise"),
        (dict(q0=[0.0, 0.0, 0.0]), "q0"),
    ],
)
def test_segment_excitation_bad_inputs(kw, match):
    args = dict(t=[0.0, 0.5], v=[[1.0, 0.0]], t_acc=0.5, t_cruise=0.5, q0=[0.0, 0.0])
    args.update(kw)
    t, v = args.pop("t"), args.pop("v")
    with pytest.raises(ValueError, match=match):
        segment_excitation(t, v, **args)


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(qd=[1.0, 2.0]), "qd"),
        (dict(qdd=[[0.0, 0.0, 0.0]]), "same shape"),
        (dict(v_min=-1.0), "non-negative"),
        (dict(a_tol=2.0), "below a_min"),
        (dict(a_min=0.0), "a_min"),
        (dict(qdd=[[np.inf, 0.0]]), "qdd"),
    ],
)
def test_motion_segments_bad_inputs(kw, match):
    args = dict(qd=[[1.0, 0.0]], qdd=[[0.0, 0.0]], v_min=0.1, a_tol=0.0, a_min=1.0)
    args.update(kw)
    qd, qdd = args.pop("qd"), args.pop("qdd")
    with pytest.raises(ValueError, match=match):
        motion_segments(qd, qdd, **args)


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(Y=np.ones((4, 3, 1))), "Y"),
        (dict(tau=np.ones((5, 2))), "tau"),
        (dict(theta=[1.0, 2.0]), "theta"),
        (dict(theta=np.ones((3, 1)), tau=np.ones((2, 4, 2))), "records"),
        (dict(mask=[1, 0, 1, 0]), "boolean"),
        (dict(mask=[False] * 4), "no sample"),
        (dict(tau=np.full((4, 2), np.nan)), "tau"),
    ],
)
def test_residual_rms_bad_inputs(kw, match):
    args = dict(Y=np.ones((4, 2, 1)), tau=np.ones((4, 2)), theta=[1.0])
    args.update(kw)
    with pytest.raises(ValueError, match=match):
        residual_rms(**args)


# ------------------------------------------------------------------ issue 29: every option checked
_Q40 = np.stack([np.linspace(0, 1, 40) ** 2] * 2, -1)


@pytest.mark.parametrize("bad", [np.nan, "abc", object(), 0, [1, 2]])
def test_encoder_reading_checks_rng_even_without_noise(bad):
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        encoder_reading([0.1, 0.2], counts_per_rev=4096, rng=bad)


@pytest.mark.parametrize(
    ("kw", "name"),
    [
        (dict(cutoff=np.nan), "cutoff"),
        (dict(cutoff="abc"), "cutoff"),
        (dict(cutoff=-5.0), "cutoff"),
        (dict(order=np.nan), "order"),
        (dict(order=None), "order"),
        (dict(order=10**30), "order"),
        (dict(polyorder=2.5), "polyorder"),
        (dict(window=object()), "window"),
    ],
)
def test_estimate_derivatives_checks_every_option_whatever_the_method(kw, name):
    args = dict(q=_Q40, dt=0.01, method="central") | kw
    with pytest.raises(ValueError, match=name):
        estimate_derivatives(**args)


def test_tiny_sample_period_is_refused_not_divided_by():
    with pytest.raises(ValueError, match="dt must be at least"):
        estimate_derivatives(_Q40, dt=1e-300, method="central")
    with pytest.raises(ValueError, match="dt must be at least"):
        lowpass(np.sin(np.linspace(0, 6, 200)), dt=1e-300, cutoff=20.0)


def test_singular_butterworth_is_refused_naming_cutoff():
    with pytest.raises(ValueError, match="cutoff = 1e-300 Hz"):
        lowpass(np.sin(np.linspace(0, 6, 200)), dt=0.001, cutoff=1e-300)
    with pytest.raises(ValueError, match="order must be at most 20"):
        lowpass(np.sin(np.linspace(0, 6, 200)), dt=0.001, cutoff=20.0, order=10**30)


def test_tiny_masses_are_refused_without_overflow_warnings():
    theta = base_parameters(ARM)
    for kw in (dict(m1=1e-300, m2=1.0), dict(m1=1.0, m2=1e-300)):
        with pytest.raises(ValueError, match="not physically consistent"):
            arm_from_base_parameters(theta, l1=ARM.l1, l2=ARM.l2, **kw)


def test_arm_from_base_parameters_refuses_a_vacuous_rtol():
    for rtol, match in ((np.inf, "rtol must be a finite"), (0.9, "rtol must be at most 0.5")):
        with pytest.raises(ValueError, match=match):  # 0.9 would let θ3 = 0.9 pass for l1 θ5 = 0.5
            arm_from_base_parameters([1.35, 0.35, 0.9, 1.5, 0.5], l1=1.0, l2=1.0, m1=1.0, m2=1.0, rtol=rtol)
    with pytest.raises(ValueError, match="minimal must be True or False"):
        base_parameters(ARM, minimal=1)


@pytest.mark.parametrize("q0", [np.zeros((0, 2)), np.zeros((3, 2))])
def test_fourier_excitation_needs_one_offset(q0):
    with pytest.raises(ValueError, match=r"q0 must have shape \(2,\)"):
        fourier_excitation([0.0, 1.0], [[1.0], [0.0]], [[0.0], [0.0]], wf=1.0, q0=q0)


def test_residual_rms_and_least_squares_messages_name_the_regressor():
    with pytest.raises(ValueError, match="columns of Y"):
        residual_rms(np.ones((4, 2, 2)), np.ones((4, 2)), [1.0])
    with pytest.raises(ValueError, match="mask must be a boolean array"):
        residual_rms(np.ones((2, 2, 1)), np.ones((2, 2)), [1.0], mask=[[True, False], [True]])
    with pytest.raises(ValueError, match="Y: regressor column"):
        least_squares(np.zeros((20, 2, 3)), np.ones((20, 2)))


# ---------------------------------------------------------------------------- base parameters by pivoted QR
def _lagrangian_columns(q, qd, qdd, l1, g=9.81):
    """The six standard-parameter columns (m1, h1, J1, m2, h2, J2) from robokin's Y: m1 none, m2 = l1 Y4 + l1^2 Y1."""
    Y = regressor(q, qd, qdd, g=g)
    z = np.zeros_like(Y[..., 0])
    J1, J2, h2l1, h1, h2 = (Y[..., k] for k in range(5))
    return np.stack([z, h1, J1, l1**2 * J1 + l1 * h1, h2 + l1 * h2l1, J2], -1)


def test_qr_base_parameters_folds_m2_and_drops_m1():
    rng = np.random.default_rng(3)
    x = rng.uniform(-2, 2, (3, 40, 2))
    Y6 = _lagrangian_columns(*x, l1=ARM.l1)
    bp = qr_base_parameters(Y6)
    assert bp.rank == 4 == np.linalg.matrix_rank(Y6.reshape(-1, 6))
    assert sorted(bp.dependent.tolist()) == [0, 3]  # m1 (no column) and m2 (folded)
    k_m2 = bp.dependent.tolist().index(3)
    coef = dict(zip(bp.independent.tolist(), bp.beta[:, k_m2]))
    assert np.isclose(coef[1], ARM.l1) and np.isclose(coef[2], ARM.l1**2)  # h1 + l1 m2, J1 + l1^2 m2
    assert np.isclose(coef[4], 0, atol=1e-12) and np.isclose(coef[5], 0, atol=1e-12)
    assert np.allclose(bp.beta[:, bp.dependent.tolist().index(0)], 0)
    assert np.all(np.diff(bp.r_diag) <= 1e-12 * bp.r_diag[0])


@HSET
@given(st.integers(0, 2**32 - 1), st.integers(2, 7), st.integers(0, 3))
def test_qr_base_parameters_property_rank_and_torques(seed, r, k):
    rng = np.random.default_rng(seed)
    p = r + k
    A = rng.normal(size=(30, r)) @ rng.normal(size=(r, p))  # rank r, p columns
    bp = qr_base_parameters(A)
    assert bp.rank == r == np.linalg.matrix_rank(A)
    phi = rng.normal(size=(4, p))
    assert np.allclose(bp.combine(phi) @ A[:, bp.independent].T, phi @ A.T, atol=1e-9 * np.abs(A).max())
    assert sorted(np.r_[bp.independent, bp.dependent].tolist()) == list(range(p))


@pytest.mark.parametrize(
    "Y, kw, match",
    [
        (np.zeros((5, 2)), {}, "all zero"),
        (np.ones((2, 3)), {}, "at least as many rows"),
        (np.ones(3), {}, "sample axis"),
        (np.array([[1.0, np.nan], [0.0, 1.0]]), {}, "Y"),
        (np.eye(3), {"tol": 0.9}, "tol"),
        (np.eye(3), {"tol": -1.0}, "tol"),
    ],
)
def test_qr_base_parameters_bad_inputs(Y, kw, match):
    with pytest.raises(ValueError, match=match):
        qr_base_parameters(Y, **kw)


def test_base_parameter_set_combine_checks_shape():
    bp = qr_base_parameters(np.eye(3))
    assert bp.rank == 3 and bp.beta.shape == (3, 0)
    with pytest.raises(ValueError, match="phi"):
        bp.combine(np.ones(2))


def test_lowpass_far_below_the_sampling_rate_keeps_dc():
    # order 4 at 0.5 Hz sampled at 1 kHz: the transfer-function form (butter's b, a + filtfilt) passes a constant
    # with an error of 8e-6; the second-order sections keep it to 1e-10
    y = lowpass(np.ones(5000), dt=1e-3, cutoff=0.5)
    assert np.abs(y - 1.0).max() < 1e-9
