"""Validation checks: Control under model error (``robokin.control``), on the chapter-12 scenario."""

from __future__ import annotations

from typing import Any

import numpy as np

from robokin.checks import CheckReport, check_close, check_errors
from robokin.control import (
    quintic_reference,
    sample_arms,
    simulate,
    simulate_ivp,
    steady_state_error,
    tracking_controller,
    tracking_error,
)
from robokin.robots import ARM2

LABEL = "Control under model error"


def scenario() -> dict[str, Any]:
    """The chapter-12 set-up: model ``ARM2``, a plant with link masses +5 % / +10 %, and the set-point move.

    Returns
    -------
    dict with keys ``nominal``, ``plant`` (TwoLinkArm), ``q0``, ``qf`` (rad, shape (2,)), ``t_move``, ``t_end`` (s).

    Examples
    --------
    >>> s = scenario()
    >>> round(s["plant"].m2 / s["nominal"].m2, 6), s["t_move"], s["t_end"]
    (1.1, 2.0, 5.0)
    """
    return dict(
        nominal=ARM2,
        plant=ARM2.replace(m2=0.88, m1=1.26),
        q0=np.array([-np.pi / 2, 0.0]),
        qf=np.array([0.2, 0.9]),
        t_move=2.0,
        t_end=5.0,
    )


def validate(*, rng: np.random.Generator | None = None, fast: bool = False) -> list[CheckReport]:
    """Headline checks of chapter 12: RK4 vs solve_ivp, predicted vs simulated steady-state error, integral action.

    Examples
    --------
    >>> all(r.passed for r in validate(fast=True))
    True
    """
    rng = np.random.default_rng(12) if rng is None else rng
    s = scenario()
    ctl = tracking_controller(s["nominal"], kind="computed_torque", kp=100.0, kd=20.0)
    # 1. the fixed-step batch integrator against solve_ivp, with friction, on a few sampled plants
    arms, fv, fc = sample_arms(s["nominal"], 2, rng=rng)
    T1 = 0.3 if fast else 0.6
    ref = quintic_reference(s["q0"], s["qf"], 1.0)
    common = dict(q0=s["q0"], qd0=[0, 0], ref=ref, t_end=T1)
    rk = simulate(arms, ctl, **common, fv=fv, fc=fc, record_every=50)
    err = []
    for k in range(1 if fast else 2):
        one = arms.replace(
            **{f: float(getattr(arms, f)[k]) for f in ("m1", "m2", "l1", "l2", "lc1", "lc2", "I1", "I2")}
        )
        iv = simulate_ivp(one, ctl, **common, t_eval=rk.t, fv=fv[k], fc=fc[k], rtol=1e-8, atol=1e-8)
        err.append(np.abs(rk.q[k] - iv.q))
    reps = [
        check_errors(
            "RK4 (1 ms, batch) vs solve_ivp, sampled plants with friction",
            np.array(err),
            tol=1e-6,
            unit="rad",
            raise_on_fail=False,
        )
    ]
    # 2. predicted steady-state error vs simulation (coarser step: the error dynamics are slow)
    common = dict(q0=s["q0"], qd0=[0, 0], ref=ref, t_end=4.0, dt=0.01 if fast else 0.005, record_every=10)
    run = simulate(s["plant"], ctl, **common)
    e_pred = steady_state_error(s["plant"], ctl, s["qf"])
    reps.append(
        check_close(
            "predicted vs simulated steady-state error",
            tracking_error(run)[-1],
            e_pred,
            tol=1e-6,
            unit="rad",
            raise_on_fail=False,
        )
    )
    ctl_i = tracking_controller(s["nominal"], kind="computed_torque", kp=300.0, kd=30.0, ki=1000.0)
    run_i = simulate(s["plant"], ctl_i, **common)
    reps.append(
        check_errors(
            "integral action removes the steady-state error",
            np.abs(tracking_error(run_i)[-1]),
            tol=1e-6,
            unit="rad",
            raise_on_fail=False,
        )
    )
    return reps
