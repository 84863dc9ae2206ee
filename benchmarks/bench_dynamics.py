"""Benchmark for chapters 11-12: dynamics Monte Carlo and RNEA throughput, printed as a table of ratios.

1. Monte Carlo of 1000 closed-loop 2-link runs (computed torque, 5 s at 1 ms, fixed-step RK4
   vectorised across samples) against a per-sample ``solve_ivp`` loop (RK45 and LSODA, rtol=1e-6, atol=1e-8,
   the scipy defaults tightened a little; the bar applies to the faster), timed on a few samples and scaled to 1000.
   Bars (COURSE.md section 7): <= 10 s, and >= 20x faster than the loop.
2. The UR5 model helpers (``_pinocchio_ur5``) used by ``bench_peers.py``, which times RNEA and the CRBA mass
   matrix against pinocchio and roboticstoolbox (medians of repeated blocks, answers compared first).

Run: ``.venv/bin/python benchmarks/bench_dynamics.py`` (``--quick`` for a smoke run).
"""

import sys
import time

import numpy as np

from robokin.control import quintic_reference, sample_arms, simulate, simulate_ivp, tracking_controller
from robokin.ur5 import UR5, inertial_parameters
from robokin.validation.control import scenario  # the chapter-12 set-up (ARM2 and its move)


def _fmt_row(name, value, unit, ratio=""):
    print(f"| {name:<58} | {value:>10.4g} {unit:<8} | {ratio:>14} |")


def bench_monte_carlo(n, n_ivp):
    s = scenario()
    nom = s["nominal"]
    ctl = tracking_controller(nom, kind="computed_torque", kp=300.0, kd=30.0, ki=1000.0)
    ref = quintic_reference(s["q0"], s["qf"], s["t_move"])
    arms, fv, fc = sample_arms(nom, n, rng=np.random.default_rng(0))
    t0 = time.perf_counter()
    res = simulate(arms, ctl, q0=s["q0"], qd0=[0, 0], ref=ref, t_end=s["t_end"], dt=1e-3, fv=fv, fc=fc, record_every=10)
    t_batch = time.perf_counter() - t0
    t_ivp, worst = {}, 0.0
    for method in ("RK45", "LSODA"):  # explicit and stiff-switching: the baseline is the faster one
        t0 = time.perf_counter()
        for k in range(n_ivp):
            one = arms.replace(
                **{f: float(getattr(arms, f)[k]) for f in ("m1", "m2", "l1", "l2", "lc1", "lc2", "I1", "I2")}
            )
            iv = simulate_ivp(
                one,
                ctl,
                q0=s["q0"],
                qd0=[0, 0],
                ref=ref,
                t_end=s["t_end"],
                t_eval=res.t,
                fv=fv[k],
                fc=fc[k],
                rtol=1e-6,
                atol=1e-8,
                method=method,
            )
            worst = max(worst, float(np.abs(iv.q - res.q[k]).max()))
        t_ivp[method] = (time.perf_counter() - t0) / n_ivp * n
    return t_batch, t_ivp, worst


def _ur5():
    """UR5 DH table and the stated inertial parameters of ``robokin.ur5.inertial_parameters``."""
    return dict(
        a=UR5.a,
        alpha=UR5.alpha,
        d=UR5.d,
        convention="standard",
        **inertial_parameters(),
        gravity=np.array([0.0, 0.0, -9.81]),
    )


def _rx(t):
    c, s = np.cos(t), np.sin(t)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def _pin_model(kw):
    """Hand-built pinocchio model of a standard-DH chain: joint i sits in DH frame i-1 (axis z)."""
    import pinocchio as pin

    model = pin.Model()
    model.gravity = pin.Motion(np.r_[kw["gravity"], 0, 0, 0])
    parent = 0
    a, alpha, d = kw["a"], kw["alpha"], kw["d"]
    for i in range(6):
        place = pin.SE3.Identity() if i == 0 else pin.SE3(_rx(alpha[i - 1]), np.array([a[i - 1], 0, d[i - 1]]))
        R, p = _rx(alpha[i]), np.array([a[i], 0.0, d[i]])
        jid = model.addJoint(parent, pin.JointModelRZ(), place, f"j{i}")
        model.appendBodyToJoint(
            jid,
            pin.Inertia(float(kw["masses"][i]), R @ kw["coms"][i] + p, R @ kw["inertias"][i] @ R.T),
            pin.SE3.Identity(),
        )
        parent = jid
    return pin, model


def _pinocchio_ur5():
    """UR5 as a pinocchio model (inertials of ``_ur5()``) plus an OP_FRAME "tool" at DH frame 6.

    Returns ``(pin, model, tool_frame_id)``; raises ImportError without pinocchio. The tool frame is the
    last DH transform ``Tz(d6) Tx(a6) Rx(alpha6)`` placed on joint 6, so it coincides with robokin's
    ``UR5.fk`` (joint placements alone stop at DH frame 5).
    """
    kw = _ur5()
    pin, model = _pin_model(kw)
    a, alpha, d = kw["a"], kw["alpha"], kw["d"]
    tool = pin.SE3(_rx(alpha[5]), np.array([a[5], 0.0, d[5]]))
    fid = model.addFrame(pin.Frame("tool", model.njoints - 1, tool, pin.FrameType.OP_FRAME))
    return pin, model, fid


def main(quick=False):
    n_mc = 100 if quick else 1000
    t_batch, t_ivp, worst = bench_monte_carlo(n_mc, 2 if quick else 5)
    print(f"robokin dynamics benchmark ({'quick' if quick else 'full'}); 2-link Monte Carlo N={n_mc}, 5 s at 1 ms")
    print(f"| {'quantity':<58} | {'value':>19} | {'ratio':>14} |")
    print(f"|{'-' * 60}|{'-' * 21}|{'-' * 16}|")
    _fmt_row(f"Monte Carlo, batch RK4 ({n_mc} runs)", t_batch, "s", f"{'bar <= 10 s' if not quick else ''}")
    for method, t in t_ivp.items():
        _fmt_row(
            f"per-sample solve_ivp loop ({method} 1e-6, scaled to {n_mc})", t, "s", f"{t / t_batch:.1f}x (bar 20x)"
        )
    _fmt_row("max |q_RK4 - q_solve_ivp| on the timed samples", worst, "rad")
    print("UR5 RNEA, CRBA mass matrix, FK, Jacobian and IK against pinocchio and roboticstoolbox: bench_peers.py")


if __name__ == "__main__":  # pragma: no cover
    main(quick="--quick" in sys.argv)
