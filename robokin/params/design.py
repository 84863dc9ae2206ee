"""The chapters' checks, run on a reader's design: one function per family returning a pass/fail table.

Each function takes a design from :func:`robokin.params.load` and returns a :class:`Outcome`: the rows of the
report's table (:class:`Row`: the number, the bound it is held to, pass or fail and what to change when it fails)
and the arrays the report's figures draw. Every number comes from the package's own functions, with the
tolerances of the chapters (``CONTRIBUTING.md``: FK∘IK ≤ 1e-9 of the link scale, Jacobians ≤ 1e-6 relative).
``fast=True`` shrinks the scans (grids, sample counts) for tests; the verdicts use the same bounds.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import checks
from ..transforms import vee

__all__ = ["Row", "Outcome", "run", "rows_csv", "FAST_SEED"]

#: Seed of every random scan in a report (a report is a deterministic function of its file).
FAST_SEED = 30


@dataclass(frozen=True)
class Row:
    """One line of a report's check table.

    ``value`` is held to ``limit`` by ``relation`` (``"<="`` or ``">="``) in ``unit``; ``relation = "info"``
    marks a measured number without a verdict. ``fix`` says what to change when the check fails.
    """

    check: str
    value: float
    relation: str
    limit: float
    unit: str
    fix: str
    samples: int = 1

    @property
    def passed(self) -> bool | None:
        if self.relation == "info":
            return None
        if not np.isfinite(self.value):
            return False
        return bool(self.value <= self.limit) if self.relation == "<=" else bool(self.value >= self.limit)

    @property
    def status(self) -> str:
        return {None: "info", True: "PASS", False: "FAIL"}[self.passed]


@dataclass(frozen=True, eq=False)
class Outcome:
    """The rows of a report and the data of its figures."""

    family: str
    name: str
    rows: list[Row]
    data: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, tuple[list[str], list[list]]] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return all(r.passed is not False for r in self.rows)

    @property
    def failed(self) -> list[Row]:
        return [r for r in self.rows if r.passed is False]


def _fmt(x):
    """Numbers as text, the same on every run: 12 significant digits (no platform-dependent last digit)."""
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        x = float(x)
        if not np.isfinite(x):
            return str(x)
        return format(x, ".12g")
    return str(x)


def rows_csv(outcome: Outcome) -> str:
    """The check table as CSV text (``check, status, value, relation, limit, unit, samples, fix``)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["check", "status", "value", "relation", "limit", "unit", "samples", "fix"])
    for r in outcome.rows:
        w.writerow([r.check, r.status, _fmt(r.value), r.relation, _fmt(r.limit), r.unit, r.samples, r.fix])
    return buf.getvalue()


def table_csv(header, rows) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow([_fmt(x) for x in r])
    return buf.getvalue()


# ---- two-link leg ---------------------------------------------------------------------------------------------
def two_link_leg(design, *, fast=False, rng=None, progress=None):
    leg = design.mechanism
    rng = np.random.default_rng(FAST_SEED) if rng is None else rng
    rows = []
    lo, hi = leg.limits
    lo_s = np.where(np.isfinite(lo), lo, -np.pi)
    hi_s = np.where(np.isfinite(hi), hi, np.pi)
    n = 2000 if fast else 20000
    q = rng.uniform(lo_s, hi_s, (n, 2))
    p = leg.fk(q)
    scale = leg.l1 + leg.l2
    errs = []
    for b in leg.branches:
        res = leg.ik(p, branch=b, on_unreachable="nan")
        ok = res.valid
        errs.append(np.linalg.norm(leg.fk(res.q[ok]) - p[ok], axis=-1) / scale)
    e = np.concatenate(errs)
    rows.append(
        Row(
            "FK(IK(p)) residual / (l1 + l2), both knee branches",
            float(e.max()),
            "<=",
            1e-9,
            "",
            "report a bug: the closed form should hold to round-off",
            int(e.size),
        )
    )
    qs = q[np.abs(np.sin(q[:, 1])) > 0.05][:200]
    rep = checks.check_jacobian(leg.jacobian, leg.fk, qs, raise_on_fail=False)
    rows.append(
        Row(
            "Jacobian vs central finite differences (relative)",
            rep.max_error,
            "<=",
            1e-6,
            "",
            "report a bug: the analytic Jacobian disagrees with FK",
            rep.samples,
        )
    )
    # reach: the annulus |l1 - l2| <= r <= l1 + l2; the knee singularity at theta2 = 0
    rows.append(Row("reach l1 + l2", scale, "info", np.nan, "m", ""))
    rows.append(Row("inner reach |l1 - l2|", abs(leg.l1 - leg.l2), "info", np.nan, "m", ""))
    if leg.q_min is not None and leg.q_max is not None:
        k_lo, k_hi = lo[1], hi[1]
        margin = min(abs(np.sin(k_lo)), abs(np.sin(k_hi))) if k_lo * k_hi > 0 else 0.0
        rows.append(
            Row(
                "knee limits keep |sin theta2| away from 0 (no straight-knee singularity)",
                float(margin),
                ">=",
                0.05,
                "",
                "keep the knee range on one side of 0, at least ~3 deg from straight",
            )
        )
    return Outcome("two_link_leg", design.name, rows, {"q": q[:400], "p": p[:400]})


# ---- five-bar -------------------------------------------------------------------------------------------------
def fivebar(design, *, fast=False, rng=None, progress: Callable[[str], None] | None = None):
    from scipy import ndimage

    fb = design.mechanism
    rng = np.random.default_rng(FAST_SEED) if rng is None else rng
    ws = design.extra.get("workspace", {})
    margin = float(ws.get("margin", 0.05 * fb.scale))
    asm = ws.get("assembly", "down")
    step_ = (2.0 if fast else 1.0) * fb.scale / 160
    reach = max(fb.l1 + fb.l3, fb.l2 + fb.l4)
    xs = np.arange(min(-reach, fb.d - reach), max(reach, fb.d + reach) + step_ / 2, step_)
    ys = np.arange(-reach, reach + step_ / 2, step_)
    X, Y = np.meshgrid(xs, ys)
    P = np.stack([X, Y], -1)
    rows = []
    # 1. workspace and safe workspace (knees out, the usual mode), as in chapter 3
    res = fb.ik(P, branch="out", on_unreachable="nan")
    q, ok = res.q, res.valid
    qz = np.where(ok[..., None], q, 0.0)
    s = np.where(ok, fb.assembly_sign(qz, P), np.nan)
    ok = ok & (s < 0 if asm == "down" else s > 0)
    t1 = np.full(ok.shape, np.nan)
    t2 = np.full(ok.shape, np.nan)
    t1[ok], t2[ok] = fb.singularity_measures(q[ok], assembly=asm)
    clear = np.full(ok.shape, np.nan)
    clear[ok] = fb.link_clearance(q[ok], assembly=asm).min(axis=-1)
    regular = ok & (t2 > 0.02) & (t1 > 0.02) & (clear > 0)
    r = int(round(margin / step_))
    yy, xx = np.mgrid[-r : r + 1, -r : r + 1]
    safe = ndimage.binary_erosion(regular, structure=xx**2 + yy**2 <= r * r, border_value=0)
    cell = step_ * step_
    rows.append(
        Row(
            f"reachable workspace ('out' mode, {asm} assembly)",
            float(ok.sum() * cell),
            ">=",
            cell,
            "m^2",
            "the linkage reaches nothing in this mode: check the lengths",
            int(ok.size),
        )
    )
    rows.append(
        Row(
            f"safe workspace (margin {margin * 1e3:.1f} mm from both singularity types and collisions)",
            float(safe.sum() * cell),
            ">=",
            cell,
            "m^2",
            "no target is clear of the singularities: lengthen l3, l4 relative to l1, l2 or reduce the margin",
            int(ok.size),
        )
    )
    # 2. the task: the foot straight below the motors' midpoint between the load's heights
    load = design.extra.get("load") or {}
    h0, h1 = (load["height_min"], load["height_max"]) if load else (0.5 * reach, 0.8 * reach)
    heights = np.linspace(h0, h1, 81)
    Ph = np.stack([np.full_like(heights, fb.d / 2), -heights], -1)
    rh = fb.ik(Ph, branch="out", on_unreachable="nan")
    okh = rh.valid
    ij = np.stack([np.round((Ph[:, 1] - ys[0]) / step_), np.round((Ph[:, 0] - xs[0]) / step_)], -1).astype(int)
    in_safe = okh & safe[ij[:, 0], ij[:, 1]]
    rows.append(
        Row(
            f"task heights {h0 * 1e3:.0f}..{h1 * 1e3:.0f} mm reachable in the chosen mode (fraction)",
            float(okh.mean()),
            ">=",
            1.0,
            "",
            "move the task heights into the workspace or resize the links",
            81,
        )
    )
    # the margin is a design target, not a law: how much of the task keeps it is reported, the singularity
    # margins below are the verdict
    rows.append(
        Row(
            f"task heights inside the safe workspace (margin {margin * 1e3:.1f} mm), fraction",
            float(in_safe.mean()),
            "info",
            np.nan,
            "",
            "",
            81,
        )
    )
    qh = np.where(okh[:, None], rh.q, 0.0)
    tt1, tt2 = fb.singularity_measures(qh[okh], assembly=asm) if okh.any() else (np.array([np.nan]),) * 2
    rows.append(
        Row(
            "type I (boundary) singularity margin along the task, min |sin|",
            float(np.min(tt1)),
            ">=",
            0.02,
            "",
            "a distal link nearly in line with its driver: shorten the stroke or lengthen the links",
        )
    )
    rows.append(
        Row(
            "type II (C, E, D in line) singularity margin along the task, min |sin|",
            float(np.min(tt2)),
            ">=",
            0.02,
            "",
            "the distal links nearly in line: the motors lose the foot; change l3, l4 or d",
        )
    )
    cl = fb.link_clearance(qh[okh], assembly=asm).min() if okh.any() else np.nan
    rows.append(
        Row(
            "link interference along the task: smallest centre-line distance of non-adjacent links",
            float(cl),
            ">=",
            0.0,
            "m",
            "links cross on the task: change d or the link lengths",
        )
    )
    if progress:
        progress("workspace")
    # 3. FK∘IK residual scan over every working mode (random targets in the box)
    n = 2000 if fast else 20000
    Pr = np.stack([rng.uniform(xs[0], xs[-1], n), rng.uniform(ys[0], ys[-1], n)], -1)
    ra = fb.ik(Pr, branch="all", on_unreachable="nan")
    errs = []
    for k in range(len(fb.branches)):
        okk = ra.valid[:, k]
        qk, pk = ra.q[okk, k], Pr[okk]
        sg = fb.assembly_sign(qk, pk)
        back = np.where((sg < 0)[:, None], fb.fk(qk, assembly="down"), fb.fk(qk, assembly="up"))
        errs.append(np.linalg.norm(back - pk, axis=-1) / fb.scale)
    e = np.concatenate(errs)
    rows.append(
        Row(
            "FK(IK(p)) residual / scale, all 4 working modes",
            float(e.max()) if e.size else np.inf,
            "<=",
            1e-9,
            "",
            "report a bug: the closed form should hold to round-off",
            int(e.size),
        )
    )
    # 4. Jacobian against finite differences inside the safe workspace
    qs = q[safe][:: max(1, int(safe.sum()) // 200)][:200]
    if len(qs):
        rep = checks.check_jacobian(
            lambda x: fb.jacobian(x, assembly=asm, warn=False),
            lambda x: fb.fk(x, assembly=asm, on_unreachable="nan"),
            qs,
            raise_on_fail=False,
        )
        rows.append(
            Row(
                "Jacobian vs central finite differences in the safe workspace (relative)",
                rep.max_error,
                "<=",
                1e-6,
                "",
                "report a bug: the analytic Jacobian disagrees with FK",
                rep.samples,
            )
        )
    data = {"X": X, "Y": Y, "ok": ok, "safe": safe, "t2": t2, "Ph": Ph, "heights": heights}
    # 5. torque and gear-ratio sizing with the motor's torque-speed line (chapter 3)
    motor, gear = design.extra.get("motor") or {}, design.extra.get("gearbox") or {}
    if load and motor:
        data.update(_fivebar_sizing(fb, load, motor, gear, rows))
    return Outcome("fivebar", design.name, rows, data)


def _fivebar_sizing(fb, load, motor, gear, rows):
    g = 9.81
    legs = load.get("legs", 2)
    F_static = load["body_mass"] * g / legs
    F_peak = load.get("landing_factor", 3.0) * F_static
    tau_s, omega_0, eta = motor["stall_torque"], motor["no_load_speed"], gear.get("efficiency", 1.0)
    h0, h1, T_sw = load["height_min"], load["height_max"], load["switch_time"]
    heights = np.linspace(h0, h1, 81)
    P_h = np.stack([np.full_like(heights, fb.d / 2), -heights], -1)
    Q_h = fb.ik(P_h).q
    tau_peak = float(np.abs(fb.static_torques(Q_h, [0.0, -F_peak])).max())
    s_q = np.linspace(0, 1, 401)
    h_t = h0 + (h1 - h0) * (10 * s_q**3 - 15 * s_q**4 + 6 * s_q**5)
    hdot_t = (h1 - h0) / T_sw * (30 * s_q**2 - 60 * s_q**3 + 30 * s_q**4)
    hddot_t = (h1 - h0) / T_sw**2 * (60 * s_q - 180 * s_q**2 + 120 * s_q**3)
    P_sw = np.stack([np.full_like(h_t, fb.d / 2), -h_t], -1)
    Q_sw = fb.ik(P_sw).q
    qdot_sw = np.linalg.solve(fb.jacobian(Q_sw), np.stack([0 * hdot_t, -hdot_t], -1)[..., None])[..., 0]
    F_sw = load["body_mass"] * (g + hddot_t) / legs
    tau_sw = fb.static_torques(Q_sw, np.stack([0 * F_sw, -F_sw], -1))
    N = np.arange(1.0, 100.0 + 1e-9, 0.25)
    eta_N = N[:, None, None] * eta
    ok_force = tau_peak / (N * eta) <= tau_s
    motor_speed = np.abs(qdot_sw)[None] * N[:, None, None]
    ok_speed = np.all(np.abs(tau_sw)[None] / eta_N <= tau_s * (1 - motor_speed / omega_0), axis=(1, 2))
    feasible = ok_force & ok_speed
    rows.append(Row("peak joint torque at landing (x load factor)", tau_peak, "info", np.nan, "N m", ""))
    rows.append(Row("peak joint speed in the height switch", float(np.abs(qdot_sw).max()), "info", np.nan, "rad/s", ""))
    n_lo = float(N[feasible].min()) if feasible.any() else np.nan
    n_hi = float(N[feasible].max()) if feasible.any() else np.nan
    rows.append(
        Row("feasible gear ratios: lowest (landing torque and switch speed both met)", n_lo, "info", np.nan, "", "")
    )
    rows.append(Row("feasible gear ratios: highest", n_hi, "info", np.nan, "", ""))
    rows.append(
        Row(
            "gear ratios meeting landing torque and switch speed (count on a 0.25 grid)",
            float(feasible.sum()),
            ">=",
            1.0,
            "",
            "no ratio meets both: a stronger motor (stall torque), a faster one (no-load speed), or a slower switch",
            int(N.size),
        )
    )
    if "ratio" in gear:
        Ng = gear["ratio"]
        okg_f = tau_peak / (Ng * eta) <= tau_s
        spd = np.abs(qdot_sw) * Ng
        okg_s = bool(np.all(np.abs(tau_sw) / (Ng * eta) <= tau_s * (1 - spd / omega_0)))
        need_f = tau_peak / (Ng * eta)
        rows.append(
            Row(
                f"gearbox N = {Ng:g}: landing torque at the motor / stall torque",
                need_f / tau_s,
                "<=",
                1.0,
                "",
                f"raise the ratio to at least {tau_peak / (eta * tau_s):.2f} or use a stronger motor",
            )
        )
        worst = float(np.max(np.abs(tau_sw) / (Ng * eta) / (tau_s * (1 - spd / omega_0) + 1e-300)))
        rows.append(
            Row(
                f"gearbox N = {Ng:g}: switch torque / torque-speed line (worst point)",
                worst if okg_s or worst > 1 else worst,
                "<=",
                1.0,
                "",
                "choose a ratio in the feasible range above (the switch is too fast for this motor and N)",
            )
        )
        del okg_f
    return {
        "N": N,
        "ok_force": ok_force,
        "ok_speed": ok_speed,
        "qdot_sw": qdot_sw,
        "tau_sw": tau_sw,
        "tau_peak": tau_peak,
        "tau_s": tau_s,
        "omega_0": omega_0,
        "eta": eta,
        "N_lo": n_lo,
        "N_hi": n_hi,
    }


# ---- serial arm -----------------------------------------------------------------------------------------------
def _sample_q(arm, rng, n):
    lim = arm.qlim if arm.qlim is not None else np.tile([-np.pi, np.pi], (arm.n, 1))
    lo, hi = np.maximum(lim[:, 0], -np.pi), np.minimum(lim[:, 1], np.pi)
    return rng.uniform(lo, hi, (n, arm.n))


def _angular_fd(arm, q, eps=1e-6):
    """Angular-velocity Jacobian by central differences of R: column j = vee(dR/dq_j R^T)."""
    n = arm.n
    E = eps * np.eye(n)
    Rp = arm.fk(q[:, None, :] + E)[..., :3, :3]
    Rm = arm.fk(q[:, None, :] - E)[..., :3, :3]
    R = arm.fk(q)[:, None, :3, :3]
    W = (Rp - Rm) / (2 * eps) @ np.swapaxes(R, -1, -2)
    return np.swapaxes(vee(0.5 * (W - np.swapaxes(W, -1, -2))), -1, -2)


def _chain_fk(arm, q):
    """FK by the textbook product of DH matrices (robokin.serial.dh_transform), independent of the fast kernels."""
    from ..serial import dh_transform

    A = dh_transform(arm.a, arm.alpha, arm.d, q + arm.offset, convention=arm.convention)  # (m, n, 4, 4)
    T = np.broadcast_to(arm.base, q.shape[:-1] + (4, 4)).copy()
    for i in range(arm.n):
        T = T @ A[..., i, :, :]
    return T @ arm.tool


def serial_arm(design, *, fast=False, rng=None, progress=None):
    from ..ik import ik_dls
    from ..ur5 import URArm

    arm = design.mechanism
    rng = np.random.default_rng(FAST_SEED) if rng is None else rng
    rows = []
    n = 1000 if fast else 10000
    q = _sample_q(arm, rng, n)
    T = arm.fk(q)
    reach = float(np.sum(np.abs(arm.a)) + np.sum(np.abs(arm.d)) + np.linalg.norm(arm.tool[:3, 3]))
    e = np.abs(_chain_fk(arm, q[:500]) - T[:500]).max()
    rows.append(
        Row(
            "FK vs the product of the file's DH matrices (base and tool included)",
            float(e),
            "<=",
            1e-12 * max(1.0, reach),
            "m",
            "report a bug: the FK kernel disagrees with the DH product",
            500,
        )
    )
    written = design.extra.get("as_written")
    if written is not None and written is not arm:
        e = np.abs(written.fk(q) - T).max()
        rows.append(
            Row(
                f"FK of the solved arm vs the {written.convention}-DH table as written",
                float(e),
                "<=",
                1e-12 * max(1.0, reach),
                "m",
                "report a bug: the DH conversion changed the arm",
                n,
            )
        )
    rows.append(Row("reach bound: sum |a| + |d| + |tool offset|", reach, "info", np.nan, "m", ""))
    if progress:
        progress("fk")
    if isinstance(arm, URArm):
        res = arm.ik(T, on_unreachable="nan", warn=False)
        ok = res.valid
        err = np.where(ok, res.residual, 0.0).max()
        rows.append(
            Row(
                "analytic IK (UR family, 8 branches): FK residual of every valid branch",
                float(err),
                "<=",
                1e-9,
                "",
                "report a bug: a returned branch misses its pose",
                int(ok.sum()),
            )
        )
        dq = np.abs(np.angle(np.exp(1j * (res.q - q[:, None]))))
        hit = np.any(np.all(np.where(ok[..., None], dq, np.inf) < 1e-6, axis=-1), axis=-1)
        rows.append(
            Row(
                "analytic IK recovers the configuration that made the pose (fraction)",
                float(hit.mean()),
                ">=",
                0.999,
                "",
                "report a bug: a branch is missing",
                n,
            )
        )
        counts = np.bincount(ok.sum(-1), minlength=9)
        rows.append(
            Row("poses with all 8 branches inside the limits (fraction)", float(counts[8] / n), "info", np.nan, "", "")
        )
        data = {"branch_counts": counts}
    else:
        m = 20 if fast else 100
        Ts = T[:m]
        best = ik_dls(arm, Ts, q0=_sample_q(arm, rng, m), restarts=8 if fast else 20, rng=rng)
        rows.append(
            Row(
                "numerical IK (damped least squares, multi-start): poses solved (fraction)",
                float(np.mean(best.valid)),
                ">=",
                0.95,
                "",
                "raise the restarts, or the arm is hard to invert: check the joint limits",
                m,
            )
        )
        rows.append(
            Row(
                "numerical IK: worst residual of the solved poses",
                float(np.max(best.residual[best.valid])) if best.valid.any() else np.inf,
                "<=",
                1e-10,
                "m, rad",
                "",
                int(best.valid.sum()),
            )
        )
        data = {}
    if progress:
        progress("ik")
    qj = q[:200]
    J = arm.jacobian(qj)
    Jp = checks.jacobian_fd(lambda x: arm.fk(x)[..., :3, 3], qj)
    Jw = _angular_fd(arm, qj)
    scale = np.abs(J).max(axis=(-2, -1))[:, None, None] + 1e-12
    e = np.abs(np.concatenate([Jp, Jw], axis=-2) - J) / scale
    rows.append(
        Row(
            "geometric Jacobian vs central finite differences of FK (relative)",
            float(e.max()),
            "<=",
            1e-6,
            "",
            "report a bug: the Jacobian disagrees with FK",
            len(qj),
        )
    )
    sv = np.linalg.svd(J[..., :3, :], compute_uv=False)[..., -1]
    rows.append(
        Row(
            "position singular value, 1st percentile over random configurations",
            float(np.percentile(sv, 1)),
            "info",
            np.nan,
            "m/rad",
            "",
        )
    )
    data["sigma_min"] = sv
    return Outcome("serial_arm", design.name, rows, data)


# ---- contest --------------------------------------------------------------------------------------------------
def _ik_set(arm, T, rng, fast):
    """All branches (analytic) or a multi-start set of distinct numerical solutions per pose: (k, B, n), (k, B)."""
    from ..ik import ik_dls
    from ..ur5 import URArm

    if isinstance(arm, URArm):
        r = arm.ik(T, on_unreachable="nan", warn=False)
        return r.q, r.valid, list(r.branch)
    starts = 16 if fast else 48
    q0 = _sample_q(arm, rng, starts)
    sols = ik_dls(arm, T[:, None], q0=q0[None], restarts=0)
    Q = np.where(sols.valid[..., None], sols.q, np.nan)
    B = starts
    out = np.full((len(T), B, arm.n), np.nan)
    val = np.zeros((len(T), B), bool)
    for i in range(len(T)):
        uniq = []
        for j in range(B):
            if sols.valid[i, j] and not any(np.allclose(Q[i, j], u, atol=1e-6) for u in uniq):
                uniq.append(Q[i, j])
        for j, u in enumerate(uniq):
            out[i, j], val[i, j] = u, True
    return out, val, [f"seeded-{j}" for j in range(B)]


def contest(task, *, fast=False, rng=None, progress=None):
    from .. import trajectory as tj
    from ..serial import pose_error, pose_error_bound
    from ..ur5 import URArm, contest_table, nearest

    arm = task.mechanism
    rng = np.random.default_rng(FAST_SEED) if rng is None else rng
    rows = []
    Qb, Vb, names = _ik_set(arm, task.targets, rng, fast)
    nvalid = Vb.sum(-1)
    for i, nm in enumerate(task.target_names):
        rows.append(
            Row(
                f"IK of target {nm!r}: solutions inside the joint limits",
                float(nvalid[i]),
                ">=",
                1.0,
                "",
                "the pose is out of reach or outside the limits: move it, or change the tool orientation",
            )
        )
    if progress:
        progress("ik")
    if not np.all(nvalid):
        return Outcome("contest", task.name, rows, {})
    # sparse waypoints: one step is a whole segment, so no per-step jump bound
    q_seq, b_seq = tj.branch_sequence(Qb, Vb, q_start=task.q_start, weights=task.weights, max_step=None)
    lim = dict(vmax=task.vmax, amax=task.amax, jmax=task.jmax)
    opt = tj.minimum_time(np.vstack([task.q_start, q_seq]), **lim)
    if progress:
        progress("plan")
    traj = opt.traj
    rows.append(Row("minimum-time plan: duration", float(opt.total), "info", np.nan, "s", ""))
    rows.append(
        Row(
            "minimum-time plan: largest joint speed/acceleration/jerk over its limit (dense grid)",
            float(opt.report.ratio.max()),
            "<=",
            1 + 1e-9,
            "",
            f"binding: {opt.report.active}",
        )
    )
    tq, qd = traj.sample(per_segment=100 if fast else 400)[:2]
    Tt = arm.fk(qd)
    if len(task.spheres):
        dist = np.linalg.norm(Tt[:, None, :3, 3] - task.spheres[None, :, :3], axis=-1) - task.spheres[None, :, 3]
        cmin = float(dist.min())
        rows.append(
            Row(
                "tool clearance from the obstacles along the plan (min, dense grid)",
                cmin,
                ">=",
                task.clearance,
                "m",
                "add a via pose above the obstacle between the targets that pass it ([[target]] with via = true)",
                len(tq),
            )
        )
    sv = np.linalg.svd(arm.jacobian(qd), compute_uv=False)[..., -1]
    rows.append(
        Row(
            "singularity distance along the plan: smallest singular value of J",
            float(sv.min()),
            ">=",
            1e-3,
            "",
            "the path passes a singularity: change a target's orientation or the branch",
            len(tq),
        )
    )
    # the answer table, written and re-read as a contest sheet would be; waypoint 0 named by the branch q_start is
    # on, as chapter 6's table (and its site workbook) names it
    start = "start"
    if isinstance(arm, URArm):
        r0 = arm.ik(arm.fk(task.q_start), on_unreachable="nan", warn=False)
        if np.any(r0.valid):
            start = names[int(nearest(r0.q, r0.valid, task.q_start)[1])]
    branch_names = [start] + [names[int(b)] for b in b_seq]
    (h_wp, rows_wp), (h_seg, rows_seg) = contest_table(
        traj, branch=branch_names, decimals=task.decimals, time_decimals=task.time_decimals
    )
    q_tab = np.array([r[3:] for r in rows_wp], dtype=float)
    t_tab = np.array([r[1] for r in rows_wp], dtype=float)
    e_tab = pose_error(task.targets, arm.fk(q_tab[1:]))
    pos_tab = float(np.linalg.norm(e_tab[:, :3], axis=1).max())
    pos_bd, rot_bd = pose_error_bound(arm, np.full(arm.n, 0.5 * 10.0**-task.decimals))
    rows.append(
        Row(
            "answer table: tool position error of the rounded angles",
            pos_tab,
            "<=",
            float(pos_bd),
            "m",
            "use more decimals ([plan] decimals)",
        )
    )
    plan_tab = tj.plan_quintic(q_tab, t_tab)
    rep_tab = tj.check_limits(plan_tab, **lim)
    rows.append(
        Row(
            "answer table: re-planned from the rounded table, peak / limit",
            float(rep_tab.ratio.max()),
            "<=",
            1 + 1e-9,
            "",
            "round the times up less coarsely ([plan] time_decimals)",
        )
    )
    if len(task.spheres):
        Ttab = arm.fk(plan_tab.sample(per_segment=100 if fast else 400)[1])
        d2 = np.linalg.norm(Ttab[:, None, :3, 3] - task.spheres[None, :, :3], axis=-1) - task.spheres[None, :, 3]
        rows.append(
            Row(
                "answer table: tool clearance of the tabulated plan",
                float(d2.min()),
                ">=",
                task.clearance,
                "m",
                "add a via pose or more clearance margin",
            )
        )
    data = {"t": tq, "q": qd, "tool": Tt[:, :3, 3], "sigma": sv}
    return Outcome("contest", task.name, rows, data, {"waypoints": (h_wp, rows_wp), "segments": (h_seg, rows_seg)})


# ---- Stewart --------------------------------------------------------------------------------------------------
def stewart(design, *, fast=False, rng=None, progress=None):
    st = design.mechanism
    rng = np.random.default_rng(FAST_SEED) if rng is None else rng
    rows = []
    stroke = st.stroke
    z0 = design.extra.get("home_z")
    if z0 is None:
        z0 = 0.5 * (stroke[0] + stroke[1]) if stroke else float(np.linalg.norm(st.base[:, 0]))
    home = np.array([0, 0, z0, 0, 0, 0.0])
    L = st.ik(home, on_unreachable="nan").q
    rows.append(
        Row(
            "home pose leg lengths inside the stroke",
            float(np.all(np.isfinite(L))),
            ">=",
            1.0,
            "",
            "set [workspace] home_z_m to a height the legs reach",
        )
    )
    n = 500 if fast else 5000
    span = np.array([0.1, 0.1, 0.05, 0.15, 0.15, 0.2]) * np.array([z0, z0, z0, 1, 1, 1])
    poses = home + rng.uniform(-1, 1, (n, 6)) * span
    reach = np.asarray(st.reachable(poses))
    rows.append(
        Row(
            "leg-stroke workspace: sampled poses around home reachable (fraction)",
            float(reach.mean()),
            "info",
            np.nan,
            "",
            "",
            n,
        )
    )
    Jd = st.jacobian_pose_rates(poses[reach][:200])
    cond = np.linalg.cond(Jd) if len(Jd) else np.array([np.inf])
    rows.append(
        Row(
            "singularity map: largest condition number of J over the reachable samples",
            float(cond.max()),
            "<=",
            1e4,
            "",
            "the layout is (near) singular: stagger the anchor pairs (paired layout, pair "
            "angles) or avoid a top hexagon similar to the base",
            int(len(Jd)),
        )
    )
    # FK∘IK: Newton FK from the leg lengths recovers the pose
    pr = poses[reach][: 50 if fast else 300]
    if len(pr):
        Lr = st.ik(pr).q
        fkr = st.fk_solve(Lr, guess=np.broadcast_to(home, pr.shape))
        e = np.abs(fkr.pose - pr).max(axis=-1)
        rows.append(
            Row(
                "FK(IK(pose)) by Newton from the home guess: worst pose error",
                float(e.max()),
                "<=",
                1e-9,
                "m, rad",
                "far poses converge to another assembly: shrink the workspace",
                len(pr),
            )
        )
        rep = checks.check_jacobian(st.jacobian_pose_rates, st.leg_lengths, pr[:100], raise_on_fail=False)
        rows.append(
            Row(
                "leg-length Jacobian vs central finite differences (relative)",
                rep.max_error,
                "<=",
                1e-6,
                "",
                "report a bug",
                rep.samples,
            )
        )
    pay = design.extra.get("payload")
    if pay is not None and len(pr):
        from ..stewart import StewartDynamics

        dyn = StewartDynamics(st, pay)  # (robot, params)
        f = dyn.leg_forces(pr, np.zeros_like(pr), np.zeros_like(pr))
        rows.append(
            Row("static leg forces holding the payload: largest |f|", float(np.abs(f).max()), "info", np.nan, "N", "")
        )
    if progress:
        progress("stewart")
    # the singularity map: condition number of dL/dpose over x, y at the home height and attitude
    k = 21 if fast else 61
    gx = np.linspace(-span[0] * 2, span[0] * 2, k)
    GX, GY = np.meshgrid(gx, gx)
    grid = np.zeros((k, k, 6))
    grid[..., 0], grid[..., 1], grid[..., 2] = GX, GY, z0
    okg = np.asarray(st.reachable(grid))
    cmap = np.full((k, k), np.nan)
    if okg.any():
        with np.errstate(divide="ignore"):
            cmap[okg] = np.linalg.cond(st.jacobian_pose_rates(grid[okg]))
    return Outcome(
        "stewart", design.name, rows, {"poses": poses, "reach": reach, "cond": cond, "GX": GX, "GY": GY, "cmap": cmap}
    )


# ---- mecanum --------------------------------------------------------------------------------------------------
def mecanum(design, *, fast=False, rng=None, progress=None):
    car = design.mechanism
    rng = np.random.default_rng(FAST_SEED) if rng is None else rng
    rows = []
    tw = rng.normal(size=(2000, 3))
    back = car.fk(car.ik(tw).q)
    rows.append(
        Row("FK(IK(twist)) round trip", float(np.abs(back - tw).max()), "<=", 1e-12, "m/s, rad/s", "report a bug", 2000)
    )
    rows.append(
        Row(
            "condition number of the wheel matrix",
            float(car.cond),
            "<=",
            10.0,
            "",
            "'O' layout or very unequal lx, ly lose a direction: use config = 'X'",
        )
    )
    rank = int(np.linalg.matrix_rank(car.matrix))
    rows.append(
        Row(
            "rank of the wheel matrix (full mobility needs 3)",
            float(rank),
            ">=",
            3.0,
            "",
            "the chassis cannot move sideways: use config = 'X'",
        )
    )
    wmax = (design.extra.get("motor") or {}).get("wheel_speed_max")
    if wmax:
        # top speeds: straight, sideways, turning, from the largest wheel speed
        for name, t in (("forward", [1, 0, 0]), ("sideways", [0, 1, 0]), ("turning", [0, 0, 1])):
            w = np.abs(car.ik(np.array(t, float)).q).max()
            rows.append(
                Row(
                    f"top {name} speed at the wheel speed limit",
                    float(wmax / w),
                    "info",
                    np.nan,
                    "m/s" if name != "turning" else "rad/s",
                    "",
                )
            )
    return Outcome("mecanum", design.name, rows, {})


# ---- wheel-legged ---------------------------------------------------------------------------------------------
def wheel_leg(design, *, fast=False, rng=None, progress=None):
    from ..wheel_leg import WheelLegDynamics, closed_loop_eigs, gain_schedule, lqr_gain, vmc_torques

    p = design.mechanism
    fb = design.extra["linkage"]
    lmin, lmax = design.extra["leg"]["length_min"], design.extra["leg"]["length_max"]
    motor = design.extra["motor"]
    model = WheelLegDynamics(p)
    rows = []
    sched = gain_schedule(model, np.linspace(lmin, lmax, 12), degree=3)
    fine = np.linspace(lmin, lmax, 23 if fast else 89)
    K_exact = np.stack([lqr_gain(model, L0=float(L)) for L in fine])
    K_fit = sched(fine)
    scale = np.abs(K_exact).max(axis=0) + 1e-12
    fit = float((np.abs(K_fit - K_exact) / scale).max())
    rows.append(
        Row(
            "LQR gain schedule K(L): polynomial fit error (relative per entry)",
            fit,
            "<=",
            0.05,
            "",
            "fit a higher degree or a narrower leg range",
            len(fine),
        )
    )
    if progress:
        progress("lqr")
    eig = closed_loop_eigs(model, fine, K_fit)
    re = float(np.max(eig.real))
    rows.append(
        Row(
            "closed-loop poles across the leg range with the fitted gains: largest real part",
            re,
            "<=",
            -1e-3,
            "1/s",
            "the fitted gains destabilise some leg length: schedule on a finer grid",
        )
    )
    # VMC: motor torques to hold the body (static thrust) across the leg range
    q_leg = fb.ik(np.stack([np.full_like(fine, fb.d / 2), -fine], -1)).q  # the foot straight below the hips
    F = np.full_like(fine, (p.m_b + p.m_l) * p.g / 2)  # two legs share the weight above the axles
    tau = vmc_torques(fb, q_leg, F, np.zeros_like(fine))
    peak = float(np.abs(tau).max())
    rows.append(
        Row(
            "VMC hip torque to carry the body, peak over the leg range (per motor)",
            peak,
            "<=",
            motor["hip_torque_max"],
            "N m",
            "a stronger hip motor, or avoid the longest leg lengths",
        )
    )
    # balance and push on the nonlinear planar model (chapter 4): a push of 15 % of the weight for 0.2 s at the
    # middle and the longest leg length; the robot must stay up and the wheel torque stay within its motors
    from ..wheel_leg import simulate

    total = p.m_b + p.m_l + p.m_w
    F = 0.15 * total * p.g
    peaks, ends, ok = [], [], True
    for L in (0.5 * (lmin + lmax), lmax):
        sim = simulate(
            model,
            sched,
            q0=np.zeros(3),
            qd0=np.zeros(3),
            t_end=2.0 if fast else 4.0,
            L0=float(L),
            push=lambda t: F if 0.2 <= t < 0.4 else 0.0,
            n_out=201 if fast else 801,
        )
        ok = ok and bool(sim.stable)
        peaks.append(float(np.abs(sim.u[:, 0]).max()))
        ends.append(float(np.abs(sim.q[-1, 1]) + np.abs(sim.q[-1, 2])))
    rows.append(
        Row(
            f"push {F:.0f} N for 0.2 s (nonlinear planar model): stays up at mid and longest leg",
            float(ok),
            ">=",
            1.0,
            "",
            "raise the LQR weights on the pitch angles or lower the body",
        )
    )
    rows.append(
        Row(
            "push: leg and body angles at the end of the run, |theta| + |phi| (worst leg length)",
            max(ends),
            "<=",
            0.02,
            "rad",
            "the balance is too slow to recover: raise the LQR state weights",
        )
    )
    rows.append(
        Row(
            "push: peak wheel torque (both wheels) against twice the wheel-motor limit",
            max(peaks),
            "<=",
            2 * motor["wheel_torque_max"],
            "N m",
            "stronger wheel motors or softer LQR gains (larger R)",
        )
    )
    rows += _mujoco_push(p, fb, sched, (lmin, lmax), motor, F, fast)
    if progress:
        progress("mujoco")
    return Outcome("wheel_leg", design.name, rows, {"L": fine, "K": K_exact, "K_fit": K_fit, "eig": eig, "tau": tau})


def _mujoco_push(p, fb, sched, leg_range, motor, F, fast):
    """Chapter 13's balance-and-push run of chapter 4's controller on the 3-D MuJoCo robot, at 1 kHz.

    The controller is the chapter's (scheduled LQR on the wheel and leg torques, a leg-length PD, VMC to the motor
    torques, an anti-scissor PD and a yaw damper), without sensor noise, with the motor limits of the file. The push
    is ``F`` on the body for 0.2 s.
    """
    try:
        import mujoco

        from .. import sim
        from ..wheel_leg import FALL_ANGLE, vmc_torques
    except ImportError:  # the [peers] extra is not installed
        return [Row("MuJoCo balance-and-push run (needs the mujoco package)", np.nan, "info", np.nan, "", "")]
    leg_max, wheel_max = motor["hip_torque_max"], motor["wheel_torque_max"]
    lmin, lmax = leg_range
    L_ref = 0.5 * (lmin + lmax)
    robot = sim.wheel_leg_model(p, fb, timestep=1e-3, solref=(0.004, 1.0))
    tid = robot.body("torso").id
    d = mujoco.MjData(robot)
    sim.wheel_leg_pose(robot, d, p, fb, L0=L_ref)
    kL, dL, k_split, d_split, k_yaw = 800.0, 100.0, 20.0, 2.0, 1.0  # chapter 13's gains
    log = []

    def ctrl(t, d):
        st = sim.wheel_leg_state(robot, d)
        s = st["s"]
        T, Tp = -sched(np.clip(st["L0"].mean(), lmin, lmax)) @ s
        Fz = (p.m_b + 0.5 * p.m_l) * p.g / (2 * np.cos(st["theta_b"])) + kL * (L_ref - st["L0"]) - dL * st["L0_dot"]
        split = k_split * np.diff(st["theta_b"])[0] + d_split * np.diff(st["theta_b_dot"])[0]
        tau = vmc_torques(fb, st["q"], Fz, Tp / 2 + np.array([split, -split]) / 2).ravel()
        dT = -k_yaw * st["yaw_rate"]
        u = np.r_[np.clip(tau, -leg_max, leg_max), np.clip([T / 2 - dT / 2, T / 2 + dT / 2], -wheel_max, wheel_max)]
        d.xfrc_applied[tid, :3] = [F if 0.5 <= t < 0.7 else 0.0, 0.0, 0.0]
        log.append(np.r_[t, s, np.abs(tau).max(), abs(T) / 2 + abs(dT) / 2])
        return u

    sim.run_controller(robot, d, ctrl, t_end=2.5 if fast else 4.0, rate=1000, on_diverge="stop")
    A = np.array(log)
    tilt = np.abs(A[:, [1, 5]]).max()
    end = float(np.abs(A[-1, [1, 5]]).sum())
    return [
        Row(
            f"MuJoCo 3-D robot, 1 kHz, push {F:.0f} N for 0.2 s: largest leg or body angle (every tick)",
            float(tilt),
            "<=",
            FALL_ANGLE / 3,
            "rad",
            "the robot nearly falls: stronger motors or larger LQR weights",
            len(A),
        ),
        Row(
            "MuJoCo: leg and body angles at the end, |theta| + |phi|",
            end,
            "<=",
            0.05,
            "rad",
            "the balance does not settle: check the masses and the LQR weights",
        ),
        Row(
            "MuJoCo: peak hip-motor torque demanded (before the limit)", float(A[:, 7].max()), "info", np.nan, "N m", ""
        ),
        Row(
            "MuJoCo: peak wheel-motor torque demanded (before the limit)",
            float(A[:, 8].max()),
            "info",
            np.nan,
            "N m",
            "",
        ),
    ]


def two_link_arm(design, *, fast=False, rng=None, progress=None):
    arm = design.mechanism
    rng = np.random.default_rng(FAST_SEED) if rng is None else rng
    q = rng.uniform(-np.pi, np.pi, (200, 2))
    M = arm.mass_matrix(q)
    lam = float(np.linalg.eigvalsh(M).min())
    rows = [
        Row(
            "mass matrix positive definite: smallest eigenvalue",
            lam,
            ">=",
            1e-9,
            "kg m^2",
            "check the inertias and centre-of-mass distances",
            200,
        )
    ]
    return Outcome("two_link_arm", design.name, rows, {})


CHECKS = {
    "two_link_leg": two_link_leg,
    "fivebar": fivebar,
    "wheel_leg": wheel_leg,
    "serial_arm": serial_arm,
    "stewart": stewart,
    "mecanum": mecanum,
    "two_link_arm": two_link_arm,
    "contest": contest,
}


def run(design, *, fast: bool = False, progress=None) -> Outcome:
    """The family's checks on ``design`` (a result of :func:`robokin.params.load`)."""
    return CHECKS[design.family](design, fast=fast, progress=progress)
