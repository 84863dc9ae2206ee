"""Validation checks: Lagrangian dynamics (``robokin.dynamics``), on the chapters' arm ``robokin.robots.ARM2``."""

from __future__ import annotations

import numpy as np

from robokin.checks import CheckReport, check_close, check_errors
from robokin.dynamics import SerialDynamics, energy_drift
from robokin.robots import ARM2

LABEL = "Lagrangian dynamics"


def validate(*, rng: np.random.Generator | None = None, fast: bool = False) -> list[CheckReport]:
    """Headline checks of chapter 11 (M SPD, skew property, RNEA vs Lagrange, bias without gravity, energy drift).

    Examples
    --------
    >>> all(r.passed for r in validate(fast=True))
    True
    """
    rng = np.random.default_rng(11) if rng is None else rng
    arm = ARM2
    N = 200 if fast else 2000
    q = rng.uniform(-np.pi, np.pi, (N, 2))
    qd = rng.uniform(-3, 3, (N, 2))
    qdd = rng.uniform(-10, 10, (N, 2))
    M = arm.mass_matrix(q)
    lam = np.linalg.eigvalsh(M)
    reps = [
        check_errors(
            "M(q) symmetric", np.abs(M - np.swapaxes(M, -1, -2)).max(axis=(-2, -1)), tol=0.0, raise_on_fail=False
        ),
        check_errors(
            "M(q) positive definite (1 if min eigenvalue <= 0)",
            (lam[:, 0] <= 0).astype(float),
            tol=0.0,
            raise_on_fail=False,
        ),
    ]
    S = arm.mass_matrix_dot(q, qd) - 2 * arm.coriolis_matrix(q, qd)
    reps.append(
        check_errors(
            "Mdot - 2C skew-symmetric",
            np.abs(S + np.swapaxes(S, -1, -2)).max(axis=(-2, -1)),
            tol=1e-12,
            raise_on_fail=False,
        )
    )
    dyn = SerialDynamics.from_dh(**arm.rnea_params())
    reps.append(
        check_close(
            "RNEA vs Lagrangian 2-link torques",
            dyn.inverse_dynamics(q, qd, qdd),
            arm.inverse_dynamics(q, qd, qdd),
            tol=1e-12,
            scale=1.0,
            unit="N m",
            raise_on_fail=False,
        )
    )
    reps.append(
        check_close(
            "RNEA bias (C qd, no gravity) vs Lagrangian C(q, qd) qd",
            dyn.bias(q, qd),
            np.einsum("...ij,...j->...i", arm.coriolis_matrix(q, qd), qd),
            tol=1e-12,
            unit="N m",
            raise_on_fail=False,
        )
    )
    drift, _ = energy_drift(arm, [0.4, 0.6], [1.0, -2.0], t_end=1.0 if fast else 5.0)
    reps.append(
        check_errors(
            "energy drift, tau=0 (relative, solve_ivp DOP853 rtol=1e-12)", [drift], tol=1e-6, raise_on_fail=False
        )
    )
    return reps
