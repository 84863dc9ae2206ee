"""Benchmark of issue #19: robokin against pinocchio, roboticstoolbox (C paths), scipy and toppra, one process.

Every peer runs on its fastest path from Python and on the same model:

* pinocchio (C++), called once per configuration the way a user calls it (``framesForwardKinematics`` +
  ``oMf``, ``computeFrameJacobian`` LOCAL_WORLD_ALIGNED, ``rnea``, ``crba``), model built from robokin's UR5 DH
  table and ``ur5.inertial_parameters()`` (``bench_dynamics._pinocchio_ur5``);
* roboticstoolbox: its UR5 ships d1 = 0.089459 m against UR's official 0.089159 m, so the arm is rebuilt
  (``rtb.DHRobot`` of ``RevoluteDH`` links) from robokin's DH table and inertial parameters, motor inertia,
  friction and gearing zero. Its C paths are timed: ``ETS.eval`` / ``ETS.jacob0`` per call, ``DHRobot.rne``
  batched, ``ETS.ik_LM`` (C++) per pose;
* scipy ``PPoly`` (4 calls, derivatives 0..3) for piecewise-quintic evaluation; toppra for ``minimum_time``.

Answers are compared before anything is timed (asserts: FK, Jacobian, RNEA, M to 1e-12; IK solutions confirmed
by FK to the stated |e|). The IK tolerance is stated on the pose-error norm |e| (m and rad, 6-D):
robokin ``tol = 1e-10``; ``ik_LM`` stops on ``E = 1/2 e^T e < tol`` so it gets ``tol = 1/2 (1e-10)^2``, and both
results are re-checked with robokin's ``pose_error``. Same seeds (each target's q perturbed by N(0, 0.1^2) rad).

Each figure is the median of ``REPEATS`` timed blocks (min and max shown); "batched" is one call on B items
divided by B, "per call" is a Python loop of one-item calls divided by the number of items. Ratios are
peer time / robokin time (> 1: robokin faster), computed from the medians.

Run: ``.venv/bin/python benchmarks/bench_peers.py`` (``--quick`` for a smoke run).
"""

from __future__ import annotations

import logging
import os
import statistics
import sys
import time
import warnings

import numpy as np

from robokin import trajectory as tj
from robokin.dynamics import SerialDynamics
from robokin.errors import SingularityWarning
from robokin.ik import ik_dls
from robokin.serial import _pose_error
from robokin.ur5 import UR5, inertial_parameters

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_dynamics import _pinocchio_ur5  # noqa: E402

REPEATS = 7
B = 10_000
TOL = 1e-10  # |e| of the numerical IK, m and rad


def blocks(fn, items, repeats=REPEATS):
    """(median, min, max) seconds per item over ``repeats`` timed calls of ``fn`` (each handles ``items``)."""
    fn()  # warm-up (caches, kernels)
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) / items)
    return statistics.median(ts), min(ts), max(ts)


def fmt(t):
    if t is None:
        return "—"
    med, lo, hi = t
    return f"{med * 1e6:.3g} [{lo * 1e6:.3g}–{hi * 1e6:.3g}]"


def _rtb_ur5():
    """roboticstoolbox DHRobot with robokin's DH table and inertial parameters (None when rtb is missing)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import roboticstoolbox as rtb
    except ImportError:
        return None
    P = inertial_parameters()
    links = [
        rtb.RevoluteDH(
            a=float(UR5.a[i]),
            alpha=float(UR5.alpha[i]),
            d=float(UR5.d[i]),
            m=float(P["masses"][i]),
            r=P["coms"][i],
            I=P["inertias"][i],
            Jm=0.0,
            B=0.0,
            Tc=[0.0, 0.0],
            G=1.0,
        )
        for i in range(6)
    ]
    return rtb.DHRobot(links, name="UR5 (robokin DH table)", gravity=[0.0, 0.0, -9.81])


def goal_lines(rows):
    """One verdict line per goal of issue #19 from the table rows ``(name, rb, r1, peer label, peer, goal)``.

    ``rb``/``r1``/``peer`` are ``(median, min, max)`` in µs per item; ``goal`` is ``(key, bar)`` or None. Each goal is
    judged against its fastest peer, as peer time / robokin batched time (``>= bar`` holds); ``minimum_time`` must be
    within 2x toppra (ratio >= 0.5); one call of FK, Jacobian and RNEA within 10x pinocchio's per-call time.
    """
    lines, best = [], {}
    for name, rb, _r1, plabel, pt, goal in rows:
        if goal is None or pt is None:
            continue
        key, bar = goal
        if key not in best or pt[0] < best[key][1][0]:
            best[key] = (name, pt, bar, plabel, rb)
    for key, (name, pt, bar, plabel, rb) in best.items():
        r = pt[0] / rb[0]
        if key == "mt":
            lines.append(
                f"  minimum_time compute within 2x toppra: toppra/robokin = {r:.2f} (bar >= 0.5): "
                f"{'holds' if r >= 0.5 else 'DOES NOT HOLD'}"
            )
        else:
            verdict = "holds" if r >= bar else "DOES NOT HOLD"
            lines.append(f"  {name}: best peer {plabel}: ratio {r:.2f} (bar >= {bar:g}): {verdict}")
    for name, _rb, r1, plabel, pt, goal in rows:
        if goal and goal[0] in ("fk", "jac", "rnea") and plabel.startswith("pinocchio"):
            r = r1[0] / pt[0]
            lines.append(
                f"  {name} one call <= 10x pinocchio per call: {r:.2f}x: {'holds' if r <= 10 else 'DOES NOT HOLD'}"
            )
    return lines


def main(quick=False):
    global REPEATS
    if quick:
        REPEATS = 3
    t_start = time.perf_counter()
    warnings.simplefilter("ignore", SingularityWarning)
    rng = np.random.default_rng(19)
    nb = 2000 if quick else B
    q, qd, qdd = rng.uniform(-np.pi, np.pi, (3, nb, 6))
    P = inertial_parameters()
    dyn = SerialDynamics(UR5, **P, gravity=[0.0, 0.0, -9.81])
    pin, model, fid = _pinocchio_ur5()
    data = model.createData()
    LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
    robot = _rtb_ur5()
    ets = robot.ets() if robot is not None else None
    m1 = 500  # items of a per-call loop (robokin and rtb)
    mp = 2000  # items of a pinocchio per-call loop
    rows = []  # (quantity, robokin batched, robokin per call, peer label, peer time, goal)

    # ---------------------------------------------------------------- answers first
    T = UR5.fk(q)
    J = UR5.jacobian(q[:200])
    for k in range(200):
        pin.framesForwardKinematics(model, data, q[k])
        assert np.abs(data.oMf[fid].homogeneous - T[k]).max() <= 1e-12
        assert np.abs(pin.computeFrameJacobian(model, data, q[k], fid, LWA) - J[k]).max() <= 1e-12
    tau = dyn.inverse_dynamics(q, qd, qdd)
    M = dyn.mass_matrix(q[:200])
    for k in range(200):
        assert np.abs(pin.rnea(model, data, q[k], qd[k], qdd[k]) - tau[k]).max() <= 1e-12
        Mp = pin.crba(model, data, q[k])
        assert np.abs(np.triu(Mp) - np.triu(M[k])).max() <= 1e-12
    if robot is not None:
        assert np.abs(np.array([ets.eval(x) for x in q[:200]]) - T[:200]).max() <= 1e-12
        assert np.abs(np.array([ets.jacob0(x) for x in q[:200]]) - J).max() <= 1e-12
        assert np.abs(robot.rne(q[:200], qd[:200], qdd[:200]) - tau[:200]).max() <= 1e-10

    # ---------------------------------------------------------------- FK, Jacobian
    def pin_fk():
        for x in q[:mp]:
            pin.framesForwardKinematics(model, data, x)
            _ = data.oMf[fid].homogeneous

    def pin_jac():
        for x in q[:mp]:
            pin.computeFrameJacobian(model, data, x, fid, LWA)

    fk_b = blocks(lambda: UR5.fk(q), nb)
    fk_1 = blocks(lambda: [UR5.fk(x) for x in q[:m1]], m1)
    fk_p = blocks(pin_fk, mp)
    rows.append(("UR5 FK", fk_b, fk_1, "pinocchio framesForwardKinematics, per call", fk_p, ("fk", 2.0)))
    jac_b = blocks(lambda: UR5.jacobian(q), nb)
    jac_1 = blocks(lambda: [UR5.jacobian(x) for x in q[:m1]], m1)
    jac_p = blocks(pin_jac, mp)
    rows.append(("UR5 Jacobian", jac_b, jac_1, "pinocchio computeFrameJacobian, per call", jac_p, ("jac", 2.0)))
    if ets is not None:
        rows.append(
            (
                "UR5 FK",
                fk_b,
                fk_1,
                "rtb ETS.eval (C), per call",
                blocks(lambda: [ets.eval(x) for x in q[:m1]], m1),
                None,
            )
        )
        rows.append(
            (
                "UR5 Jacobian",
                jac_b,
                jac_1,
                "rtb ETS.jacob0 (C), per call",
                blocks(lambda: [ets.jacob0(x) for x in q[:m1]], m1),
                None,
            )
        )

    # ---------------------------------------------------------------- RNEA, mass matrix
    def pin_rnea():
        for k in range(mp):
            pin.rnea(model, data, q[k], qd[k], qdd[k])

    def pin_crba():
        for x in q[:mp]:
            pin.crba(model, data, x)

    rn_b = blocks(lambda: dyn.inverse_dynamics(q, qd, qdd), nb)
    rn_1 = blocks(lambda: [dyn.inverse_dynamics(q[k], qd[k], qdd[k]) for k in range(m1)], m1)
    rows.append(("RNEA", rn_b, rn_1, "pinocchio rnea, per call", blocks(pin_rnea, mp), ("rnea", 1.0)))
    if robot is not None:
        rows.append(
            (
                "RNEA",
                rn_b,
                rn_1,
                f"rtb DHRobot.rne (C), batched {nb}",
                blocks(lambda: robot.rne(q, qd, qdd), nb),
                ("rnea", 1.0),
            )
        )
    mm_b = blocks(lambda: dyn.mass_matrix(q), nb)
    mm_1 = blocks(lambda: [dyn.mass_matrix(x) for x in q[:m1]], m1)
    rows.append(("mass matrix (CRBA)", mm_b, mm_1, "pinocchio crba, per call", blocks(pin_crba, mp), ("mm", 1.0)))

    # ---------------------------------------------------------------- numerical and analytic IK
    ni = 1000 if quick else B
    qt = q[:ni]
    q0 = qt + rng.normal(scale=0.1, size=qt.shape)
    Tt = UR5.fk(qt)
    res = ik_dls(UR5, Tt, q0=q0, tol=TOL)
    e_rk = np.linalg.norm(_pose_error(Tt, UR5.fk(res.q)), axis=-1)
    assert np.all(e_rk[res.valid] <= TOL)
    dls_b = blocks(lambda: ik_dls(UR5, Tt, q0=q0, tol=TOL), ni, repeats=max(3, REPEATS - 2))
    dls_1 = blocks(lambda: [ik_dls(UR5, Tt[k], q0=q0[k], tol=TOL) for k in range(50)], 50, repeats=3)
    an_b = blocks(lambda: UR5.ik(T), nb)
    an_1 = blocks(lambda: [UR5.ik(Tk) for Tk in T[:200]], 200, repeats=3)
    assert np.all(UR5.ik(T[:200]).valid.any(axis=-1))
    dls_row = ("DLS IK, |e| <= 1e-10, seeds 0.1 rad", dls_b, dls_1)
    an_row = ("analytic IK, 8 branches + FK check", an_b, an_1)
    if ets is not None:
        kl = 100 if quick else 300
        lm = [ets.ik_LM(Tt[k], q0=q0[k], tol=0.5 * TOL**2, ilimit=100, slimit=1) for k in range(kl)]
        q_lm = np.array([s.q for s in lm])
        e_lm = np.linalg.norm(_pose_error(Tt[:kl], UR5.fk(q_lm)), axis=-1)
        ok_lm = np.array([s.success for s in lm]) & (e_lm <= TOL)
        lm_t = blocks(
            lambda: [ets.ik_LM(Tt[k], q0=q0[k], tol=0.5 * TOL**2, ilimit=100, slimit=1) for k in range(kl)],
            kl,
            repeats=max(3, REPEATS - 2),
        )
        label = f"rtb ETS.ik_LM (C++), per pose; solved {ok_lm.mean():.1%} vs robokin {res.valid[:kl].mean():.1%}"
        rows.append(dls_row + (label, lm_t, ("dls", 1.0)))
        rows.append(an_row + ("rtb ETS.ik_LM (C++), seeds 0.1 rad, per pose", lm_t, ("an", 10.0)))
    else:
        rows.append(dls_row + ("rtb not installed", None, None))
        rows.append(an_row + ("rtb not installed", None, None))

    # ---------------------------------------------------------------- quintic evaluation
    from scipy.interpolate import PPoly

    wp = np.cumsum(rng.normal(size=(21, 6)), axis=0)
    tr = tj.plan_quintic(wp, tj.allocate_times(wp, 20.0, method="distance"))
    pp = PPoly(np.moveaxis(tr.coeffs[..., ::-1], -1, 0), tr.times)
    tg = np.linspace(0.0, tr.duration, nb)
    ours, theirs = tr.evaluate(tg), [pp(tg, nu) for nu in range(4)]
    assert max(np.abs(a - b).max() / np.abs(b).max() for a, b in zip(ours, theirs)) <= 1e-12
    tl = tg[:m1].tolist()
    qe_b = blocks(lambda: tr.evaluate(tg), nb)
    qe_1 = blocks(lambda: [tr.evaluate(x) for x in tl], m1)
    rows.append(
        (
            "quintic evaluation, q..jerk, 6 joints x 20 segments",
            qe_b,
            qe_1,
            f"scipy PPoly (4 calls), batched {nb}",
            blocks(lambda: [pp(tg, nu) for nu in range(4)], nb),
            ("qe", 1.0),
        )
    )
    rows.append(
        (
            "quintic evaluation, q..jerk, 6 joints x 20 segments",
            qe_b,
            qe_1,
            "scipy PPoly (4 calls), per call",
            blocks(lambda: [[pp(x, nu) for nu in range(4)] for x in tl], m1),
            None,
        )
    )

    # ---------------------------------------------------------------- minimum_time vs toppra
    mt = _minimum_time_rows(quick)
    if mt is not None:
        rows.append(mt)

    # ---------------------------------------------------------------- table
    print(
        f"robokin vs peers, issue #19 ({'quick' if quick else 'full'}); µs per item, median [min–max] of "
        f"{REPEATS} blocks; B = {nb} unless stated"
    )
    print("| quantity | robokin batched | robokin one call | peer (path) | peer | ratio peer/robokin |")
    print("|---|---|---|---|---|---|")
    for name, rb, r1, plabel, pt, _goal in rows:
        ratio = ""
        if pt is not None and rb is not None:
            ratio = f"{pt[0] / rb[0]:.2f} (batched)"
            if r1 is not None:
                ratio += f", {pt[0] / r1[0]:.3g} (one call)"
        print(f"| {name} | {fmt(rb)} | {fmt(r1)} | {plabel} | {fmt(pt)} | {ratio} |")
    print()
    print("Goals (issue #19, item 3):")
    for line in goal_lines(rows):
        print(line)
    _scaling(dyn, quick)
    print(f"total benchmark time {time.perf_counter() - t_start:.0f} s")


def _scaling(dyn, quick):
    """Per-item time of the batched kernels from B = 1e3 to 1e6 (chunked: it should stay flat)."""
    sizes = (1_000, 10_000, 100_000) if quick else (1_000, 10_000, 100_000, 1_000_000)
    rng = np.random.default_rng(6)
    print()
    print("Batch-size scaling, µs per item, median [min–max] of 3 blocks (same machine, same run)")
    print("| B | " + " | ".join(("FK", "Jacobian", "RNEA", "mass matrix")) + " |")
    print("|---|---|---|---|---|")
    for n in sizes:
        q, qd, qdd = rng.uniform(-np.pi, np.pi, (3, n, 6))
        cells = [
            blocks(fn, n, repeats=3)
            for fn in (
                lambda: UR5.fk(q),
                lambda: UR5.jacobian(q),
                lambda: dyn.inverse_dynamics(q, qd, qdd),
                lambda: dyn.mass_matrix(q),
            )
        ]
        print(f"| {n:.0e} | " + " | ".join(fmt(c) for c in cells) + " |")


def _minimum_time_rows(quick):
    """minimum_time (v + a limits) vs toppra on the UR5-sized path of bench_trajectory; None without toppra."""
    try:
        import toppra as ta
        import toppra.algorithm as algo
        import toppra.constraint as constraint
    except ImportError:
        return None
    logging.getLogger("toppra").setLevel(logging.ERROR)
    from bench_trajectory import UR5_AMAX, UR5_PATH, UR5_VMAX

    wp, vmax, amax = UR5_PATH, UR5_VMAX, UR5_AMAX

    def run_toppra():
        ss = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(wp, axis=0), axis=1))])
        path = ta.SplineInterpolator(ss, wp)
        cons = [
            constraint.JointVelocityConstraint(np.column_stack([-vmax, vmax])),
            constraint.JointAccelerationConstraint(np.column_stack([-amax, amax])),
        ]
        return algo.TOPPRA(cons, path, parametrizer="ParametrizeConstAccel").compute_trajectory(0, 0)

    res = tj.minimum_time(wp, vmax=vmax, amax=amax)
    assert res.report.feasible, "minimum_time result violates its limits"
    assert run_toppra() is not None
    reps = 3 if quick else 5
    ours = blocks(lambda: tj.minimum_time(wp, vmax=vmax, amax=amax), 1, repeats=reps)
    theirs = blocks(run_toppra, 1, repeats=reps)
    return (
        f"minimum_time (v+a limits, 5 waypoints; {res.traj.duration:.3g} s trajectory)",
        ours,
        None,
        "toppra TOPPRA compute (fixed spline path)",
        theirs,
        ("mt", 0.5),
    )


if __name__ == "__main__":  # pragma: no cover
    main(quick="--quick" in sys.argv)
