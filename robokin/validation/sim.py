"""Validation checks: Multibody simulation (MuJoCo) (``robokin.sim``), the headline checks of chapter 13.

MuJoCo models written by :mod:`robokin.sim` from the reference robots of :mod:`robokin.robots` are compared
with the package's own hand-derived models: five-bar statics and kinematics, the 2-link arm's dynamics terms,
the UR5 inverse dynamics and the whole wheel-legged robot's geometry and mass.
"""

from __future__ import annotations

import numpy as np

from robokin.checks import CheckReport, check_close
from robokin.dynamics import SerialDynamics
from robokin.robots import ARM2, FIVEBAR, UR5, WHEEL_LEG, WHEEL_LEG_FIVEBAR, ur5_inertials
from robokin.sim import (
    dh_model,
    fivebar_feet,
    fivebar_model,
    fivebar_qpos,
    fivebar_static_torques,
    inverse_dynamics,
    require_mujoco,
    two_link_model,
    two_link_terms,
    wheel_leg_model,
    wheel_leg_pose,
    wheel_leg_state,
)
from robokin.wheel_leg import virtual_leg

__all__ = ["LABEL", "validate"]

LABEL = "Multibody simulation (MuJoCo)"

#: Link masses of the chapter 3 leg in MuJoCo (thigh AC, shank CE, thigh BD, shank DE; kg), stated in chapter 13.
FIVEBAR_MASSES = (0.05, 0.08, 0.05, 0.08)


def validate(*, rng: np.random.Generator | None = None, fast: bool = False) -> list[CheckReport]:
    """Headline checks of chapter 13: MuJoCo against the package's hand-derived models.

    Returns
    -------
    list of robokin.checks.CheckReport

    Examples
    --------
    >>> reps = validate(fast=True)
    >>> len(reps), all(r.passed for r in reps)
    (6, True)
    """
    mujoco = require_mujoco()
    rng = np.random.default_rng(13) if rng is None else rng
    n = 20 if fast else 100
    reports = []

    # five-bar statics: MuJoCo's constraint Jacobian against J^T F (massless statics: gravity off)
    leg = FIVEBAR
    m0 = fivebar_model(leg, masses=FIVEBAR_MASSES, g=0.0, actuator="none")
    p = np.stack([rng.uniform(0.01, 0.06, n), rng.uniform(-0.14, -0.08, n)], -1)
    q = leg.ik(p).q
    F = rng.normal(0, 50, (n, 2))
    tau_mj = fivebar_static_torques(m0, leg, q, F)
    tau_rk = leg.static_torques(q, F)
    reports.append(
        check_close(
            "five-bar statics: MuJoCo constraint Jacobian vs J^T F",
            tau_mj,
            tau_rk,
            tol=1e-9,
            scale=np.abs(tau_rk).max(),
            raise_on_fail=False,
        )
    )

    # five-bar kinematics: both foot sites against FiveBar.fk (the loop is closed on assembled poses)
    d0 = mujoco.MjData(m0)
    errs = []
    for qp in fivebar_qpos(leg, q):
        d0.qpos[:] = qp
        mujoco.mj_kinematics(m0, d0)
        eC, eD = fivebar_feet(m0, d0)
        errs.append(max(np.abs(eC - leg.fk(qp[[0, 2]])).max(), np.abs(eD - eC).max()))
    reports.append(
        check_close(
            "five-bar FK: MuJoCo foot sites vs FiveBar.fk",
            np.array(errs),
            0.0,
            tol=1e-12,
            unit="m",
            raise_on_fail=False,
        )
    )

    # the 2-link arm of chapter 11: mass matrix, C qd and gravity
    arm = ARM2
    q2, qd2 = rng.uniform(-np.pi, np.pi, (n, 2)), rng.normal(0, 2, (n, 2))
    M, Cqd, G = two_link_terms(two_link_model(arm), q2, qd2)
    M_rk = arm.mass_matrix(q2)
    reports.append(
        check_close(
            "2-link M(q): MuJoCo mj_fullM vs TwoLinkArm.mass_matrix",
            M,
            M_rk,
            tol=1e-12,
            scale=np.abs(M_rk).max(),
            raise_on_fail=False,
        )
    )
    h_rk = arm.bias(q2, qd2) + arm.gravity(q2)
    reports.append(
        check_close(
            "2-link C qd + g: MuJoCo qfrc_bias vs TwoLinkArm.bias + gravity",
            Cqd + G,
            h_rk,
            tol=1e-12,
            scale=np.abs(h_rk).max(),
            raise_on_fail=False,
        )
    )

    # the UR5 with its stated inertial set: mj_inverse against the package's RNEA
    ip = ur5_inertials()
    q6, qd6, qdd6 = (rng.uniform(-np.pi, np.pi, (n, 6)), rng.normal(0, 1, (n, 6)), rng.normal(0, 1, (n, 6)))
    tau_mj = inverse_dynamics(dh_model(UR5, **ip), q6, qd6, qdd6)
    dyn = SerialDynamics.from_dh(UR5.a, UR5.alpha, UR5.d, convention="standard", **ip, gravity=[0.0, 0.0, -9.81])
    tau_rk = dyn.inverse_dynamics(q6, qd6, qdd6)
    reports.append(
        check_close(
            "UR5 inverse dynamics: MuJoCo mj_inverse vs SerialDynamics.inverse_dynamics",
            tau_mj,
            tau_rk,
            tol=1e-10,
            scale=np.abs(tau_rk).max(),
            raise_on_fail=False,
        )
    )

    # the whole wheel-legged robot: leg length and angle read from MuJoCo's sites, and its total mass
    P, fb4 = WHEEL_LEG, WHEEL_LEG_FIVEBAR
    mr = wheel_leg_model(P, fb4)
    dr = mujoco.MjData(mr)
    errs = []
    k = 5 if fast else 20
    for L0, th in zip(rng.uniform(0.14, 0.32, k), rng.uniform(-0.3, 0.3, k)):
        wheel_leg_pose(mr, dr, P, fb4, L0=L0, theta=th)
        st = wheel_leg_state(mr, dr)
        vl = virtual_leg(fb4, st["q"])
        errs.append(
            max(np.abs(st["L0"] - vl[:, 0]).max(), np.abs(st["s"][0] - th), abs(mr.body_subtreemass[1] - P.total_mass))
        )
    reports.append(
        check_close(
            "wheel-leg robot: MuJoCo leg sites and mass vs virtual_leg and WheelLegParams",
            np.array(errs),
            0.0,
            tol=1e-12,
            raise_on_fail=False,
        )
    )
    return reports
