"""Physically consistent identification (robokin.ident.consistency_margin, consistent_least_squares)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize

from robokin.dynamics import TwoLinkArm
from robokin.errors import ConvergenceError
from robokin.ident import (
    base_parameters,
    consistency_margin,
    consistent_least_squares,
    least_squares,
    regressor,
)

ARM = TwoLinkArm(m1=1.2, m2=0.8, l1=0.5, l2=0.4, lc1=0.25, lc2=0.2, I1=0.03, I2=0.012)


def _mass_matrix(theta, q2, l1):
    """M(q) of the base parameters (θ1, θ2, θ4, θ5), written out independently of robokin: θ3 = l1 θ5."""
    t1, t2, t3 = theta[0], theta[1], l1 * theta[3]
    c = np.cos(q2)
    return np.stack(
        [np.stack([t1 + t2 + 2 * t3 * c, t2 + t3 * c], -1), np.stack([t2 + t3 * c, np.full_like(c, t2)], -1)], -2
    )


def _data(rng, n=300, *, friction=True, noise=0.0):
    q, qd, qdd = (rng.uniform(-2, 2, (n, 2)) for _ in range(3))
    Y = regressor(q, qd, qdd, friction=friction, l1=ARM.l1)
    th = base_parameters(ARM, fv=[0.2, 0.1], fc=[0.1, 0.05], minimal=True) if friction else None
    th = th if friction else base_parameters(ARM, minimal=True)
    return Y, Y @ th + noise * rng.normal(size=(n, 2)), th


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_margin_sign_is_that_of_the_mass_matrix_at_every_pose(seed):
    """λ_min(P(θ)) > 0 exactly when M(q) ≻ 0 at every q2 (dense grid with 0 and π): trips if P used θ3 without l1
    or the wrong entries. Random θ far from the boundary on both sides."""
    rng = np.random.default_rng(seed)
    q2 = np.r_[np.linspace(-np.pi, np.pi, 4001), 0.0]
    for _ in range(200):
        th = rng.uniform([-0.2, -0.1, -1, -1], [1.0, 0.5, 1, 1])
        marg = float(consistency_margin(th, l1=0.7))
        if abs(marg) < 1e-3:
            continue
        eig_min = np.linalg.eigvalsh(_mass_matrix(th, q2, 0.7))[:, 0].min()
        assert (marg > 0) == (eig_min > 0), (th, marg, eig_min)


def test_margin_of_an_arm_is_positive_and_batched():
    th = base_parameters(ARM, minimal=True)
    assert consistency_margin(th, l1=ARM.l1) > 0
    batch = np.stack([th, th * [1, -1, 1, 1]])
    got = consistency_margin(batch, l1=ARM.l1)
    assert got.shape == (2,) and got[0] > 0 > got[1]


def test_every_consistent_theta_belongs_to_an_arm():
    """Sufficiency (the chapter's construction): for P(θ) ≻ 0, m2 the geometric mean of θ5²/θ2 and θ1/l1² (the
    interval is not empty exactly when P ≻ 0), a large m1, and the formulas for lc and I give I1, I2 >= 0 and the
    same θ. Trips if the margin admitted a θ no arm has."""
    rng = np.random.default_rng(5)
    l1 = 0.6
    done = 0
    for _ in range(500):
        th = rng.uniform([0.0, 0.0, -1, -1], [1.0, 0.5, 1, 1])
        if consistency_margin(th, l1=l1) <= 1e-4 or th[3] == 0:
            continue
        lo, hi = th[3] ** 2 / th[1], th[0] / l1**2
        m2 = np.sqrt(lo * hi)
        lc2 = th[3] / m2
        I2 = th[1] - m2 * lc2**2
        slack = th[0] - m2 * l1**2
        m1 = 2 * (th[2] - m2 * l1) ** 2 / slack + 1.0
        lc1 = (th[2] - m2 * l1) / m1
        I1 = th[0] - m1 * lc1**2 - m2 * l1**2
        assert I1 >= 0 and I2 >= 0 and m1 > 0 and m2 > 0
        back = [I1 + m1 * lc1**2 + m2 * l1**2, I2 + m2 * lc2**2, m1 * lc1 + m2 * l1, m2 * lc2]
        np.testing.assert_allclose(back, th, rtol=1e-12, atol=1e-14)
        done += 1
    assert done > 100


def test_consistent_data_returns_the_ordinary_fit_unchanged():
    Y, tau, th = _data(np.random.default_rng(0), noise=0.01)
    fit = consistent_least_squares(Y, tau, l1=ARM.l1)
    assert fit.active == () and np.array_equal(fit.theta, least_squares(Y, tau).theta)
    assert fit.residual_rms == fit.unconstrained.residual_rms and fit.margin > 1e-6


def _reference(Y, tau, l1, margin):
    """The same problem by another method (trust-constr, unscaled θ, numerical constraint Jacobian)."""
    A, y = Y.reshape(-1, Y.shape[-1]), tau.reshape(-1)
    p = A.shape[1]
    cons = {"type": "ineq", "fun": lambda th: float(consistency_margin(th, l1=l1)) - margin}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # trust-constr's quasi-Newton notes on the linear bounds
        res = minimize(
            lambda th: float(np.sum((A @ th - y) ** 2)),
            np.r_[1.0, 1.0, 0.0, 0.0, np.ones(p - 4)],
            method="trust-constr",
            constraints=[cons],
            bounds=[(None, None)] * 4 + [(0, None)] * (p - 4),
            options={"maxiter": 5000, "xtol": 1e-14, "gtol": 1e-12},
        )
    return res.x


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_an_inconsistent_fit_is_moved_to_the_optimum_on_the_boundary(seed):
    """Torques of a θ no arm has (θ2 < 0, a negative friction) plus noise: the result meets the constraints, its
    residual is the smallest of the two methods (another solver from another start agrees to 1e-6 relative), and
    no feasible point nearby does better. Trips if the constraint is ignored or the optimum missed."""
    rng = np.random.default_rng(seed)
    Y, _, _ = _data(rng)
    bad = np.array([0.05, -0.01, 0.5, 0.1, 0.2, -0.1, 0.1, 0.05])
    tau = Y @ bad + 0.01 * rng.normal(size=Y.shape[:2])
    fit = consistent_least_squares(Y, tau, l1=ARM.l1, margin=1e-5)
    assert consistency_margin(fit.theta, l1=ARM.l1) >= 1e-5 and np.all(fit.theta[4:] >= 0)
    assert "mass matrix" in fit.active and "fv2" in fit.active
    assert fit.residual_rms >= fit.unconstrained.residual_rms
    A, y = Y.reshape(-1, 8), tau.reshape(-1)
    ref = _reference(Y, tau, ARM.l1, 1e-5)

    def cost(th):
        return float(np.sum((A @ th - y) ** 2))

    assert cost(fit.theta) <= cost(ref) * (1 + 1e-6)
    np.testing.assert_allclose(fit.theta, ref, rtol=1e-4, atol=1e-6)
    tried = 0
    for _ in range(400):  # feasible neighbours
        th = fit.theta + 1e-4 * rng.normal(size=8)
        if consistency_margin(th, l1=ARM.l1) >= 1e-5 and np.all(th[4:] >= 0):
            assert cost(th) >= cost(fit.theta) * (1 - 1e-12)
            tried += 1
    assert tried >= 10


def test_without_friction_columns_and_margin_zero():
    rng = np.random.default_rng(4)
    Y, _, _ = _data(rng, friction=False)
    tau = Y @ np.array([0.3, 0.01, 0.8, 0.2])  # θ1 θ2 = 0.003 < (l1 θ5)² = 0.01: no arm
    fit = consistent_least_squares(Y, tau, l1=ARM.l1, margin=0.0)
    assert fit.active == ("mass matrix",) and abs(fit.margin) <= 1e-9 and fit.theta.shape == (4,)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"l1": -1.0}, "l1"),
        ({"l1": float("nan")}, "l1"),
        ({"l1": 0.5, "margin": -1e-3}, "margin"),
        ({"l1": 0.5, "margin": float("inf")}, "margin"),
        ({"l1": 0.5, "margin": 10.0}, "margin"),  # larger than the inertias: the constraint would set them
        ({"l1": 0.5, "maxiter": 0}, "maxiter"),
    ],
)
def test_bad_options_are_named(kwargs, words):
    Y, tau, _ = _data(np.random.default_rng(0), n=50)
    with pytest.raises(ValueError, match=words):
        consistent_least_squares(Y, tau, **kwargs)


def test_bad_shapes_are_named():
    rng = np.random.default_rng(0)
    q, qd, qdd = (rng.uniform(-2, 2, (50, 2)) for _ in range(3))
    Y5 = regressor(q, qd, qdd)  # five columns: not the base set
    with pytest.raises(ValueError, match="base-parameter regressor"):
        consistent_least_squares(Y5, Y5 @ np.ones(5), l1=0.5)
    Y, tau, _ = _data(rng, n=50)
    with pytest.raises(ValueError, match="tau"):
        consistent_least_squares(Y, tau[:-1], l1=0.5)
    with pytest.raises(ValueError, match="one record"):
        consistent_least_squares(Y, np.stack([tau, tau]), l1=0.5)
    with pytest.raises(ValueError, match="theta"):
        consistency_margin([1.0, 2.0, 3.0], l1=0.5)
    with pytest.raises(ValueError, match="tau"):
        consistent_least_squares(Y, np.where(tau > 0, np.nan, tau), l1=0.5)


def test_an_iteration_cap_too_small_raises_instead_of_returning_an_infeasible_theta():
    rng = np.random.default_rng(0)
    Y, _, _ = _data(rng)
    tau = Y @ np.array([0.05, -0.01, 0.5, 0.1, 0.2, -0.1, 0.1, 0.05])
    with pytest.raises(ConvergenceError, match="consistent_least_squares"):
        consistent_least_squares(Y, tau, l1=ARM.l1, maxiter=1)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_an_optimum_at_the_apex_of_the_cone_is_certified(seed):
    """An ordinary fit with θ1, θ2 < 0 and θ5 = 0 projects to P = margin·I, where λ_min is not differentiable: the
    certificate must use its whole subdifferential (trips if it uses one gradient there: ConvergenceError), and no
    feasible neighbour does better."""
    rng = np.random.default_rng(seed)
    Y, _, _ = _data(rng, friction=False)
    tau = Y @ np.array([-0.05, -0.02, 0.5, 0.0])
    fit = consistent_least_squares(Y, tau, l1=ARM.l1, margin=1e-4)
    np.testing.assert_allclose(fit.theta[:2], [1e-4, 1e-4], rtol=1e-5)  # the apex
    assert abs(fit.theta[3]) < 1e-8 and fit.active == ("mass matrix",)
    A, y = Y.reshape(-1, 4), tau.reshape(-1)
    best = float(np.sum((A @ fit.theta - y) ** 2))
    tried = 0
    for _ in range(400):
        th = fit.theta + 1e-5 * rng.normal(size=4)
        if consistency_margin(th, l1=ARM.l1) >= 1e-4:
            assert float(np.sum((A @ th - y) ** 2)) >= best * (1 - 1e-12)
            tried += 1
    assert tried >= 10


@pytest.mark.parametrize("scale", [1e-3, 1.0, 1e3, 1e5])
def test_the_fit_does_not_depend_on_the_units(scale):
    """Torques and inertias of an arm 1e3 times heavier (or lighter): the same relative answer. Trips if SLSQP's
    tolerances are absolute (a heavy arm then fails to converge, a light one stops early)."""
    rng = np.random.default_rng(3)
    Y, _, _ = _data(rng)
    bad = np.array([0.05, -0.01, 0.5, 0.1, 0.2, -0.1, 0.1, 0.05])
    tau = Y @ bad + 0.01 * rng.normal(size=Y.shape[:2])
    ref = consistent_least_squares(Y, tau, l1=ARM.l1, margin=1e-5)
    got = consistent_least_squares(Y, scale * tau, l1=ARM.l1, margin=1e-5 * scale)
    np.testing.assert_allclose(got.theta, scale * ref.theta, rtol=1e-6, atol=1e-9 * scale)
    assert got.active == ref.active
