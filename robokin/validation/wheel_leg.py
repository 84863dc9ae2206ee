"""Validation checks: Wheel-legged balance (``robokin.wheel_leg``), on the chapter's robot (``robokin.robots``)."""

from __future__ import annotations

import numpy as np

from robokin.checks import CheckReport, check_close, check_errors, check_jacobian
from robokin.robots import WHEEL_LEG, WHEEL_LEG_FIVEBAR
from robokin.wheel_leg import (
    WheelLegDynamics,
    closed_loop_eigs,
    gain_schedule,
    linearize,
    lqr_gain,
    virtual_leg,
    virtual_leg_inverse,
    virtual_leg_jacobian,
    vmc_torques,
)

LABEL = "Wheel-legged balance"


def validate(*, rng: np.random.Generator | None = None, fast: bool = False) -> list[CheckReport]:
    """Headline checks of the chapter, for the validation report.

    Returns
    -------
    list of robokin.checks.CheckReport

    Examples
    --------
    >>> reps = validate(fast=True)
    >>> all(r.passed for r in reps)
    True
    """
    rng = np.random.default_rng(4) if rng is None else rng
    model = WheelLegDynamics(WHEEL_LEG)
    reports = []
    # 1. linearisation vs finite differences of the nonlinear dynamics, at upright, over leg lengths
    Ls = np.linspace(0.12, 0.34, 5 if fast else 12)

    def f(z):
        return model.state_derivative(z[..., :6], z[..., 6:], L0=Ls.reshape((-1,) + (1,) * (z.ndim - 2)))

    def jac(z):
        A, B = linearize(model, L0=Ls)
        return np.concatenate([A, B], axis=-1)

    reports.append(
        check_jacobian(
            jac,
            f,
            np.zeros((Ls.size, 8)),
            eps=1e-5,
            tol=1e-6,
            name="wheel-leg linearisation vs FD of nonlinear dynamics",
            raise_on_fail=False,
        )
    )
    # 2. scheduled gains: fit error and stability on a fine grid
    sched = gain_schedule(model, np.linspace(0.12, 0.34, 12), degree=3)
    fine = np.linspace(0.12, 0.34, 23 if fast else 89)
    K_exact = np.stack([lqr_gain(model, L0=float(L)) for L in fine])
    K_fit = sched(fine)
    scale = np.abs(K_exact).max(axis=0) + 1e-12
    reports.append(
        check_errors(
            "LQR gain polynomial fit error (relative per entry)",
            (np.abs(K_fit - K_exact) / scale).max(axis=(-2, -1)),
            tol=1e-2,
            raise_on_fail=False,
        )
    )
    ev = closed_loop_eigs(model, fine, K_fit)
    reports.append(
        check_errors(
            "fitted-gain closed loop: Re(eig) above the -0.1 1/s margin",
            np.maximum(ev.real.max(axis=-1) + 0.1, 0.0),
            tol=0.0,
            unit="1/s",
            raise_on_fail=False,
        )
    )
    # 3. VMC on the chapter's five-bar: virtual work, statics, virtual-leg Jacobian
    fb = WHEEL_LEG_FIVEBAR
    n = 50 if fast else 400
    leg = np.stack([rng.uniform(0.15, 0.32, n), -np.pi / 2 + rng.uniform(-0.4, 0.4, n)], axis=-1)
    q = virtual_leg_inverse(fb, leg)
    qd = rng.normal(size=(n, 2))
    F, Tp = rng.normal(0, 100, n), rng.normal(0, 10, n)
    tau = vmc_torques(fb, q, F, Tp)
    h = 1e-6  # leg rates by central differences along qd: independent of the Jacobian
    legd = (virtual_leg(fb, q + h * qd) - virtual_leg(fb, q - h * qd)) / (2 * h)
    p_in = np.einsum("...i,...i->...", tau, qd)
    p_out = F * legd[:, 0] - Tp * legd[:, 1]
    reports.append(
        check_close(
            "VMC power balance tau.qdot = F L0dot + Tp theta_b_dot (FD rates)",
            p_in,
            p_out,
            tol=1e-7,
            scale=np.abs(p_in).max(),
            raise_on_fail=False,
        )
    )
    r = virtual_leg(fb, q)
    rh = np.stack([np.cos(r[:, 1]), np.sin(r[:, 1])], axis=-1)
    nh = np.stack([-rh[:, 1], rh[:, 0]], axis=-1)
    f_foot = F[:, None] * rh - (Tp / r[:, 0])[:, None] * nh  # the same load as a foot force
    reports.append(
        check_close(
            "VMC torques vs five-bar statics J_foot^T f_foot",
            tau,
            fb.static_torques(q, f_foot),
            tol=1e-9,
            scale=np.abs(tau).max(),
            raise_on_fail=False,
        )
    )
    reports.append(
        check_jacobian(
            lambda x: virtual_leg_jacobian(fb, x),
            lambda x: virtual_leg(fb, x),
            q,
            name="virtual leg Jacobian vs finite differences",
            raise_on_fail=False,
        )
    )
    return reports
