"""The wheel-legged balance controller step (chapters 4 and 13) as a generated kernel.

One 1 kHz tick of the sagittal controller: the scheduled LQR ``u = -K(L0) (s - s_ref)`` (``K`` a polynomial in the
leg length, evaluated by Horner's rule, coefficients in the parameter struct as fitted by
:func:`robokin.wheel_leg.gain_schedule`), saturated component-wise at ``[T_max, Tp_max]`` as in
:func:`robokin.wheel_leg.simulate`, and the leg-length loop of chapter 13, per side::

    F = f_ff / cos(theta_b) + kL (L_ref - L0) + dL (L_ref_dot - L0_dot),   theta_b = theta - phi

(``f_ff`` the weight each leg carries, ``(m_b + m_l / 2) g / 2``). ``F`` and ``Tp / 2`` then go to
``rk_fivebar_vmc`` for the motor torques of each leg.

Examples
--------
>>> [k.name for k in controller_kernels()]
['wheel_leg_step']
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ._emit import Arg, Check, Kernel, Let, Params

__all__ = ["DEGREE", "controller_kernels", "chapter_schedule", "horner"]

DEGREE = 3  # polynomial degree of the gain schedule (chapter 4's fit)

WHEEL_LEG = Params(
    "wheel_leg",
    (
        Arg("K", 12 * (DEGREE + 1), "gain polynomial coefficients: K[12*k + 6*i + j] = GainSchedule.coeffs[k, i, j]"),
        Arg("L_min", 1, "shortest leg length of the fit (m)"),
        Arg("L_max", 1, "longest leg length of the fit (m)"),
        Arg("T_max", 1, "wheel torque limit (N m, lumped: both wheels)"),
        Arg("Tp_max", 1, "hip torque limit (N m, lumped: both legs)"),
        Arg("f_ff", 1, "weight per leg for the feed-forward thrust (N): (m_b + m_l / 2) g / 2"),
        Arg("kL", 1, "leg length stiffness per side (N/m)"),
        Arg("dL", 1, "leg length damping per side (N s/m)"),
    ),
    positive=("L_max", "T_max", "Tp_max"),
    extra_checks=(
        (
            sp.And(sp.Symbol("L_min", real=True) > 0, sp.Symbol("L_min", real=True) < sp.Symbol("L_max", real=True)),
            "0 < L_min < L_max",
        ),
        (sp.And(sp.Symbol("kL", real=True) >= 0, sp.Symbol("dL", real=True) >= 0), "kL, dL >= 0"),
    ),
    doc="Wheel-legged balance controller (robokin.wheel_leg.GainSchedule, simulate's u_max, chapter 13's leg loop)",
)


def _S(n):
    return sp.Symbol(n, real=True)


def horner(coeffs: list, x: sp.Symbol) -> sp.Expr:
    """``sum_k coeffs[k] x^k`` nested as Horner's rule (the evaluation order of ``GainSchedule.__call__``).

    >>> horner([sp.Symbol("a"), sp.Symbol("b"), sp.Symbol("c")], sp.Symbol("x"))
    a + x*(b + c*x)
    """
    out = coeffs[-1]
    for c in coeffs[-2::-1]:
        out = c + x * out
    return out


def controller_kernels() -> list[Kernel]:
    """The controller step kernel."""
    Kc = WHEEL_LEG.syms("K")
    Lmin, Lmax, Tmax, Tpmax, fff, kL, dL = (
        WHEEL_LEG.sym(n) for n in ("L_min", "L_max", "T_max", "Tp_max", "f_ff", "kL", "dL")
    )
    s = Arg("s", 6, "").symbols()
    r = Arg("ref", 6, "").symbols()
    L0, L0d, Lr, Lrd = Arg("leg", 4, "").symbols()
    e = [_S(f"e{i}") for i in range(6)]
    Kij = [[_S(f"gain{i}_{j}") for j in range(6)] for i in range(2)]
    u = [_S("uT"), _S("uTp")]
    cb = _S("cb")
    steps = (
        Check(sp.And(L0 >= Lmin, L0 <= Lmax), "RK_UNREACHABLE", "L0 outside the fitted range [L_min, L_max]"),
        Let(
            tuple(
                (Kij[i][j], horner([Kc[12 * k + 6 * i + j] for k in range(DEGREE + 1)], L0))
                for i in range(2)
                for j in range(6)
            )
        ),
        Let(tuple((e[j], s[j] - r[j]) for j in range(6))),
        Let(tuple((u[i], -sum(Kij[i][j] * e[j] for j in range(6))) for i in range(2))),
        Let(((cb, sp.cos(s[0] - s[4])),)),
        Check(cb >= 0.05, "RK_SINGULAR", "leg within 3 degrees of horizontal (cos theta_b < 0.05): no thrust balance"),
    )
    clip = [sp.Min(sp.Max(u[0], -Tmax), Tmax), sp.Min(sp.Max(u[1], -Tpmax), Tpmax)]
    F = fff / cb + kL * (Lr - L0) + dL * (Lrd - L0d)
    k = Kernel(
        "wheel_leg_step",
        WHEEL_LEG,
        (
            Arg("s", 6, "state [theta, theta_dot, x, x_dot, phi, phi_dot] (rad, rad/s, m, m/s, rad, rad/s)"),
            Arg("ref", 6, "state reference, same order"),
            Arg("leg", 4, "[L0, L0_dot] measured and [L_ref, L_ref_dot] planned (m, m/s)"),
        ),
        (Arg("u", 3, "[T wheel torque, Tp hip torque] (N m, lumped, saturated) and F thrust per leg (N)"),),
        steps,
        (*clip, F),
        "Wheel-legged controller tick: scheduled LQR with saturation, and the leg-length loop (chapters 4, 13).",
    )
    return [k]


def chapter_schedule() -> dict:
    """Parameter values of chapter 13's controller (chapter 4's robot, its gain schedule and limits).

    Returns the struct fields as a dict (``K`` flattened in the struct's order) and the ``GainSchedule``.
    """
    from ..robots import WHEEL_LEG as P
    from ..wheel_leg import WheelLegDynamics, gain_schedule

    sched = gain_schedule(WheelLegDynamics(P), np.linspace(0.12, 0.34, 12), degree=DEGREE)
    return {
        "K": sched.coeffs.ravel(),
        "L_min": sched.L_min,
        "L_max": sched.L_max,
        "T_max": 5.0,  # 2 x 2.5 N m wheel motors (chapter 13)
        "Tp_max": 20.0,  # 2 x 10 N m leg motors
        "f_ff": (P.m_b + 0.5 * P.m_l) * P.g / 2,
        "kL": 800.0,
        "dL": 100.0,
        "schedule": sched,
    }
