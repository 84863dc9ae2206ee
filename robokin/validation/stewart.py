"""Validation checks: Stewart platform (``robokin.stewart``), the headline checks of chapters 9 and 10."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from robokin._validate import solve_ivp_guarded
from robokin.checks import CheckReport, check_close, check_errors, check_jacobian
from robokin.robots import STEWART, STEWART_PAYLOAD
from robokin.stewart import Stewart, StewartDynamics
from robokin.transforms import rpy_to_matrix

__all__ = ["LABEL", "validate"]

LABEL = "Stewart platform"


def _sample_poses(rng, n, z0=0.42):
    """Poses around the home height ``z0``: +-5 cm, +-0.2 rad roll and pitch, +-0.3 rad yaw."""
    lo = np.array([-0.05, -0.05, z0 - 0.05, -0.2, -0.2, -0.3])
    return rng.uniform(lo, -lo + [0, 0, 2 * z0, 0, 0, 0], size=(n, 6))


def validate(*, rng: np.random.Generator | None = None, fast: bool = False) -> list[CheckReport]:
    """Headline checks of chapters 9-10 for the validation report (``raise_on_fail=False``).

    Geometry of ``robots.STEWART`` without its stroke limits (the checks are about the maths, not the limits),
    mass properties of ``robots.STEWART_PAYLOAD``.

    Returns
    -------
    list of robokin.checks.CheckReport

    Examples
    --------
    >>> all(r.passed for r in validate(fast=True))
    True
    """
    rng = np.random.default_rng(9) if rng is None else rng
    n = 200 if fast else 2000
    st = Stewart(STEWART.base, STEWART.top)
    q = _sample_poses(rng, n)
    reps = []
    R = rpy_to_matrix(q[:, 3:])
    orth = np.abs(np.swapaxes(R, -1, -2) @ R - np.eye(3)).max(axis=(-2, -1))
    a = st.anchors_world(q)
    dist = np.linalg.norm(a[:, :, None] - a[:, None], axis=-1)
    d0 = np.linalg.norm(st.top.T[:, None] - st.top.T[None], axis=-1)
    reps.append(
        check_errors(
            "stewart: R^T R = I and anchor distances preserved",
            np.maximum(orth, np.abs(dist - d0).max(axis=(-2, -1))),
            tol=1e-12,
            raise_on_fail=False,
        )
    )
    reps.append(
        check_jacobian(
            st.jacobian_pose_rates,
            st.leg_lengths,
            q,
            tol=1e-6,
            name="stewart: dL/dq vs finite differences",
            raise_on_fail=False,
        )
    )
    L = st.ik(q).q
    res = st.fk_solve(L, guess=st.home_guess(L))
    err = np.where(res.valid, np.abs(res.pose - q).max(axis=-1), np.inf)
    reps.append(check_errors("stewart: Newton FK(IK(q)) pose error", err, tol=1e-9, raise_on_fail=False))
    dyn = StewartDynamics(st, replace(STEWART_PAYLOAD, viscous=20.0, coulomb=5.0))
    qd, qdd = rng.normal(size=(2, n, 6)) * 0.5
    tau = dyn.inverse_dynamics(q, qd, qdd)
    reps.append(
        check_close(
            "stewart: forward(inverse(qdd)) = qdd", dyn.forward_dynamics(q, qd, tau), qdd, tol=1e-9, raise_on_fail=False
        )
    )
    # the same motion from the leg forces: Jq^T f = tau
    Jq = st.jacobian_pose_rates(q)
    f = dyn.leg_forces(q, qd, qdd)
    reps.append(
        check_close(
            "stewart: Jq^T leg_forces = inverse_dynamics",
            (np.swapaxes(Jq, -1, -2) @ f[..., None])[..., 0],
            tau,
            tol=1e-8,
            raise_on_fail=False,
        )
    )
    # energy of a frictionless platform on passive spring legs (conservative) over a short simulation
    d0 = StewartDynamics(st, STEWART_PAYLOAD)
    home = np.array([0.0, 0.0, 0.42, 0.0, 0.0, 0.0])
    L0, k = st.leg_lengths(home), 2e3
    f0 = d0.leg_forces(home, np.zeros(6), np.zeros(6))

    def total(y):
        L = st.leg_lengths(y[:6].T)
        return d0.energy(y[:6].T, y[6:].T) + 0.5 * k * np.sum((L - L0) ** 2, -1) - L @ f0

    y0 = np.r_[home + [0.01, -0.005, 0.01, 0.03, -0.02, 0.05], np.zeros(6)]
    sol = solve_ivp_guarded(
        d0.ode(lambda t, q_, qd_: f0 - k * (st.leg_lengths(q_) - L0)),
        (0, 0.05 if fast else 0.3),
        y0,
        name="stewart energy check",
        max_nfev=200_000,
        method="DOP853",
        rtol=1e-10,
        atol=1e-12,
    )
    E = total(sol.y)
    E_eq = total(np.r_[home, np.zeros(6)][:, None])[0]
    reps.append(
        check_errors(
            "stewart: energy drift without friction (relative)",
            (E - E[0]) / (E[0] - E_eq),
            tol=1e-6,
            raise_on_fail=False,
        )
    )
    return reps
