"""Validation checks: Parameter identification (``robokin.ident``), on the chapters' arm ``robokin.robots.ARM2``."""

from __future__ import annotations

import numpy as np

from robokin.checks import CheckReport, check_close, check_errors
from robokin.control import friction_torque
from robokin.ident import base_parameters, gravity_regressor, least_squares, regressor
from robokin.robots import ARM2

LABEL = "Parameter identification"


def validate(*, rng: np.random.Generator | None = None, fast: bool = False) -> list[CheckReport]:
    """Headline checks: regressor vs inverse dynamics, noise-free recovery (five and base set), static gravity fit.

    Examples
    --------
    >>> all(r.passed for r in validate(fast=True))
    True
    """
    rng = np.random.default_rng(13) if rng is None else rng
    arm = ARM2
    N = 200 if fast else 2000
    q = rng.uniform(-np.pi, np.pi, (N, 2))
    qd = rng.uniform(-3, 3, (N, 2))
    qdd = rng.uniform(-10, 10, (N, 2))
    fv, fc = np.array([0.2, 0.1]), np.array([0.3, 0.15])
    th = base_parameters(arm, fv=fv, fc=fc)
    Y = regressor(q, qd, qdd, friction=True)
    tau = arm.inverse_dynamics(q, qd, qdd) + friction_torque(qd, fv, fc)
    reps = [
        check_close(
            "regressor Y θ vs inverse dynamics + friction", Y @ th, tau, tol=1e-12, unit="N m", raise_on_fail=False
        )
    ]
    est = least_squares(Y, tau)
    reps.append(
        check_close(
            "noise-free least squares recovers θ (relative)", est.theta / th, 1.0, tol=1e-9, raise_on_fail=False
        )
    )
    # with l1 known the base set is four (θ3 = l1 θ5): its regressor has full rank and the fit recovers it
    Yb = regressor(q, qd, qdd, friction=True, l1=arm.l1)
    est_b = least_squares(Yb, tau)
    reps.append(
        check_close(
            "noise-free base-parameter fit (l1 known, 8 columns) recovers θ_b (relative)",
            est_b.theta / base_parameters(arm, fv=fv, fc=fc, minimal=True),
            1.0,
            tol=1e-9,
            raise_on_fail=False,
        )
    )
    qs = rng.uniform(-np.pi, np.pi, (N, 2))
    noisy = arm.gravity(qs) + rng.normal(0, 0.01, (N, 2))
    fit = least_squares(gravity_regressor(qs), noisy)
    reps.append(
        check_errors(
            "static gravity fit, 0.01 N m noise: |θ̂ - θ| within 5 standard errors",
            np.abs(fit.theta - th[3:5]) / (5 * fit.std),
            tol=1.0,
            raise_on_fail=False,
        )
    )
    return reps
