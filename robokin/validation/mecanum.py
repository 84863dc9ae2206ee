"""Validation checks: Mecanum chassis (``robokin.mecanum``, chapter 8)."""

from __future__ import annotations

import numpy as np

from robokin.checks import CheckReport, check_close, check_errors
from robokin.mecanum import fit_pwm, integrate_twist, pwm_model
from robokin.robots import CHASSIS
from robokin.transforms import se3_exp

LABEL = "Mecanum chassis"


def validate(*, rng: np.random.Generator | None = None, fast: bool = False) -> list[CheckReport]:
    """Headline checks of chapter 8 on the chapter's chassis (:data:`robokin.robots.CHASSIS`).

    Returns
    -------
    list of robokin.checks.CheckReport

    Examples
    --------
    >>> all(rep.passed for rep in validate(fast=True))
    True
    """
    rng = np.random.default_rng(8) if rng is None else rng
    n = 2_000 if fast else 50_000
    reports = []
    car = CHASSIS
    tw = rng.uniform(-2, 2, (n, 3))
    sol = car.ik(tw)
    w = sol.q
    reports.append(
        check_close("fk(ik(t).q) round trip (relative)", car.fk(w), tw, tol=1e-12, scale=2.0, raise_on_fail=False)
    )
    reports.append(
        check_errors("ik residual |fk(q) - t| (relative)", sol.residual / 2.0, tol=1e-12, raise_on_fail=False)
    )
    # rolling constraint: contact velocity minus wheel drive lies along the roller's free direction
    p = car.contact_points
    vc = np.stack([tw[:, None, 0] - tw[:, None, 2] * p[:, 1], tw[:, None, 1] + tw[:, None, 2] * p[:, 0]], -1)
    slip_along_axis = np.einsum("nik,ik->ni", vc, car.roller_axes) - car.r * w * car.roller_axes[:, 0]
    reports.append(
        check_errors("roller-axis rolling constraint", slip_along_axis, tol=1e-12, unit="m/s", raise_on_fail=False)
    )
    reports.append(
        check_errors(
            "slip residual of consistent wheels (relative)",
            car.inconsistency(w) / np.abs(w).max(),
            tol=1e-13,
            raise_on_fail=False,
        )
    )
    sg = car.sign_tests()
    reports.append(
        check_errors("sign tests (pure vx, vy, omega)", np.abs(sg.executed - np.eye(3)), tol=1e-12, raise_on_fail=False)
    )
    # exact odometry step vs the SE(3) exponential of the planar twist
    dt = 0.1
    xi = np.zeros((n, 6))
    xi[:, 0:2], xi[:, 5] = tw[:, 0:2] * dt, tw[:, 2] * dt
    T = se3_exp(xi)
    step = integrate_twist(np.zeros(3), tw, dt)
    ref = np.stack([T[:, 0, 3], T[:, 1, 3], np.arctan2(T[:, 1, 0], T[:, 0, 0])], -1)
    reports.append(check_close("exact SE(2) odometry step vs se3_exp", step, ref, tol=1e-12, raise_on_fail=False))
    # PWM fit: the truth lies within 4 standard errors
    u = np.linspace(-1, 1, 101)
    truth = np.array([42.0, 0.11, 30.0])
    fit = fit_pwm(u, pwm_model(u, truth, model="saturating") + rng.normal(0, 0.4, u.size), model="saturating")
    reports.append(
        check_errors(
            "PWM fit: |error| / standard error", (fit.params - truth) / fit.stderr, tol=4.0, raise_on_fail=False
        )
    )
    return reports
