"""verify for the families whose maps are vector to vector: Stewart leg lengths, mecanum wheel speeds, the
wheel-legged robot's virtual leg, and serial-arm Jacobians (internal to :mod:`robokin.params.verify`).

Each family and kind is one :class:`MapSpec`: the input names, the output names, a sampler of inputs where the
course's answer exists, the course's answer (with every branch, for a multi-branch IK), and the practitioners'
usual mistakes as hypotheses, each a model of the wrong code built from the course's own functions. The check is
the same for all: an output is right when it equals one of the course's branches to ``TOL`` of the output scale;
a failing set is explained by the first hypothesis that reproduces at least half of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..fivebar import FiveBar
from ..mecanum import Mecanum
from ..serial import SerialArm
from ..stewart import Stewart
from ..wheel_leg import WheelLegParams, virtual_leg_inverse, virtual_leg_jacobian

#: Families with a MapSpec (serial_arm: its Jacobian only).
FAMILIES = ("stewart", "mecanum", "wheel_leg", "serial_arm")
#: Hypothesis: (name, candidate answers (N, B, k) with NaN where a branch does not exist, the fix).
Hypothesis = tuple[str, np.ndarray, str]


@dataclass(frozen=True)
class MapSpec:
    """One family and kind: names, sampler, course answer and hypotheses."""

    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    sample: Callable  # (rng, n) -> X (N, m)
    course: Callable  # X -> (N, B, k)
    hypotheses: Callable  # X -> list[Hypothesis]
    branches: tuple[str, ...] = ("unique",)
    wrap: tuple[int, ...] = ()  # output columns compared modulo 2 pi
    scale: float = 1.0  # error scale (m, rad/s, ...): errors are |U - C| / max(scale, |C|)
    python_vector: bool = False  # the Python callable takes one list instead of positional floats
    default_branch: str = "unique"  # the course's answer: the branch its package function returns


def _wrap(a):
    return (a + np.pi) % (2 * np.pi) - np.pi


def _one(Y):
    """(N, k) -> (N, 1, k)."""
    return np.asarray(Y, dtype=float)[:, None, :]


# ---- Stewart: leg-length IK ----------------------------------------------------------------------------------
def _stewart_sample(st: Stewart, home_z):
    rad = float(np.mean(np.linalg.norm(st.base[:2], axis=0)))
    z0 = home_z if home_z is not None else (0.5 * sum(st.stroke) if st.stroke else rad)

    def sample(rng, n):
        # every component non-zero and distinct, so that a swapped angle or a transposed rotation shows
        X = np.concatenate(
            [
                rng.uniform(-0.12, 0.12, (4 * n, 2)) * rad,
                z0 + rng.uniform(-0.08, 0.08, (4 * n, 1)) * rad,
                rng.uniform(-0.3, 0.3, (4 * n, 3)),
            ],
            axis=-1,
        )
        ok = st.ik(X, on_unreachable="nan").valid
        return X[ok][:n]

    return sample


def _anchor_rowcol(A):
    """A (3, 6) anchor table as a 6x3 row-per-leg array read back as 3x6 (reshape instead of transpose)."""
    return A.T.reshape(3, 6)


def _stewart_ik(design) -> MapSpec:
    st = design.mechanism
    lo = st.stroke[0] if st.stroke else 0.0

    def L(X, other=st):
        return other.leg_lengths(X)

    def hyps(X):
        sw = X.copy()
        sw[:, [3, 5]] = X[:, [5, 3]]
        deg = X.copy()
        deg[:, 3:] = np.deg2rad(X[:, 3:])
        # R^T: the world-to-platform rotation, = Rx(-roll) Ry(-pitch) Rz(-yaw)
        Rt = np.swapaxes(_rpy(X[:, 3:]), -1, -2)
        s_t = np.swapaxes(Rt @ st.top, -1, -2) + X[:, None, :3] - st.base.T
        Rxyz = _rx(X[:, 3]) @ _ry(X[:, 4]) @ _rz(X[:, 5])
        s_x = np.swapaxes(Rxyz @ st.top, -1, -2) + X[:, None, :3] - st.base.T
        out = [
            (
                "eul2rotm argument order (roll and yaw swapped: R = Rz(roll) Ry(pitch) Rx(yaw))",
                _one(L(sw)),
                "MATLAB's eul2rotm takes [yaw pitch roll] for 'ZYX': pass the angles in that order",
            ),
            (
                "rotation transposed (R' used: the platform anchors rotated by the inverse rotation)",
                _one(np.linalg.norm(s_t, axis=-1)),
                "top anchors to the world frame are R p_i with R = Rz(yaw) Ry(pitch) Rx(roll), not R' p_i",
            ),
            (
                "XYZ angle order (R = Rx(roll) Ry(pitch) Rz(yaw) instead of Rz(yaw) Ry(pitch) Rx(roll))",
                _one(np.linalg.norm(s_x, axis=-1)),
                "compose ZYX: R = Rz(yaw) @ Ry(pitch) @ Rx(roll)",
            ),
            (
                "anchor row/column bug (a 6x3 row-per-leg anchor table read as 3x6)",
                _one(L(X, Stewart(_anchor_rowcol(st.base), _anchor_rowcol(st.top)))),
                "column i of the 3x6 anchor arrays is leg i: transpose the 6x3 table, do not reshape it",
            ),
            (
                "anchor row/column bug in the top anchors only",
                _one(L(X, Stewart(st.base, _anchor_rowcol(st.top)))),
                "column i of the 3x6 anchor arrays is leg i: transpose the 6x3 table, do not reshape it",
            ),
            (
                "anchor row/column bug in the base anchors only",
                _one(L(X, Stewart(_anchor_rowcol(st.base), st.top))),
                "column i of the 3x6 anchor arrays is leg i: transpose the 6x3 table, do not reshape it",
            ),
            (
                "degrees for radians (the angles are read as degrees)",
                _one(L(deg)),
                "the pose angles are rad: convert at the boundary",
            ),
            (
                "base and top anchors swapped",
                _one(L(X, Stewart(st.top, st.base))),
                "b_i (base frame) and p_i (platform frame) as the file states them",
            ),
            ("squared leg lengths (the square root forgotten)", _one(L(X) ** 2), "L_i = |s_i|, not s_i . s_i"),
        ]
        if lo > 0:
            out.append(
                (
                    "actuator extension instead of leg length (L - stroke min)",
                    _one(L(X) - lo),
                    "the IK returns the joint-to-joint length; subtract the stroke minimum only for the actuator",
                )
            )
        return out

    rad = float(np.mean(np.linalg.norm(st.base[:2], axis=0)))
    return MapSpec(
        ("x", "y", "z", "roll", "pitch", "yaw"),
        tuple(f"L{i + 1}" for i in range(6)),
        _stewart_sample(st, design.extra.get("home_z")),
        lambda X: _one(L(X)),
        hyps,
        scale=rad,
        python_vector=True,
    )


def _rx(a):
    c, s, o, z = np.cos(a), np.sin(a), np.ones_like(a), np.zeros_like(a)
    return np.stack([np.stack([o, z, z], -1), np.stack([z, c, -s], -1), np.stack([z, s, c], -1)], -2)


def _ry(a):
    c, s, o, z = np.cos(a), np.sin(a), np.ones_like(a), np.zeros_like(a)
    return np.stack([np.stack([c, z, s], -1), np.stack([z, o, z], -1), np.stack([-s, z, c], -1)], -2)


def _rz(a):
    c, s, o, z = np.cos(a), np.sin(a), np.ones_like(a), np.zeros_like(a)
    return np.stack([np.stack([c, -s, z], -1), np.stack([s, c, z], -1), np.stack([z, z, o], -1)], -2)


def _rpy(a):
    return _rz(a[..., 2]) @ _ry(a[..., 1]) @ _rx(a[..., 0])


# ---- mecanum: wheel-speed IK and FK --------------------------------------------------------------------------
_CW = [0, 1, 3, 2]  # FL, FR, RR, RL: clockwise numbering


def _mecanum_matrices(car: Mecanum):
    """The wrong wheel maps (4x3, ``w = M t``) a reader's code often implements."""
    r, lx, ly, a = car.r, car.lx, car.ly, car.roller_angle
    M = np.array(car.matrix)
    t = M[:, 1] * r  # signed tan(gamma_i)
    x = np.array([1.0, 1.0, -1.0, -1.0]) * lx
    y = np.array([1.0, -1.0, 1.0, -1.0]) * ly
    xy = np.stack([np.ones(4), t, y * t - x], -1) / r
    out = {
        "roller sign (the O layout: every roller angle mirrored)": (
            Mecanum(r, lx, ly, roller_angle=a, config="O" if car.config == "X" else "X").matrix,
            "check the roller directions seen from above (chapter 8's sign test) and flip tan(gamma)",
        ),
        "swapped lx and ly (half wheelbase used as half track)": (
            Mecanum(r, ly, lx, roller_angle=a, config=car.config).matrix,
            "lx is half the wheelbase (front-back), ly half the track (left-right)",
        ),
        "contact coordinates swapped in the spin term (x_i <-> y_i)": (
            xy,
            "the spin column is x_i tan(gamma_i) - y_i",
        ),
        "clockwise wheel numbering (FL, FR, RR, RL instead of FL, FR, RL, RR)": (
            M[_CW],
            "reorder the wheels (robokin.mecanum.reorder_wheels)",
        ),
        "spin sign (omega positive clockwise)": (M * [1, 1, -1], "omega is counter-clockwise seen from above"),
        "lateral sign (y to the right)": (M * [1, -1, 1], "body frame x forward, y left, z up"),
        "full wheelbase and track instead of half": (
            Mecanum(r, 2 * lx, 2 * ly, roller_angle=a, config=car.config).matrix,
            "lx, ly are half the wheelbase and half the track",
        ),
        "diameter for radius": (M / 2, "divide by the wheel radius, not the diameter"),
        "rpm for rad/s": (M * 60 / (2 * np.pi), "wheel speeds in rad/s (1 rpm = 2 pi / 60 rad/s)"),
    }
    # a mistake invisible on this chassis (lx and ly enter only as lx + ly with 45 degree rollers) is no mistake
    return {k: v for k, v in out.items() if not np.allclose(v[0], M, rtol=1e-12, atol=0)}


def _mecanum(design, kind) -> MapSpec:
    car = design.mechanism
    vmax = float(design.extra.get("motor", {}).get("wheel_speed_max", 30.0)) * car.r
    twist_names, wheel_names = ("vx", "vy", "omega"), ("w_fl", "w_fr", "w_rl", "w_rr")
    wrong = _mecanum_matrices(car)
    lever = car.lx + car.ly

    def twists(rng, n):
        T = rng.uniform(-1, 1, (n, 3)) * [vmax / 3, vmax / 3, vmax / 3 / lever]
        return T

    if kind == "ik":
        return MapSpec(
            twist_names,
            wheel_names,
            twists,
            lambda X: _one(X @ np.array(car.matrix).T),
            lambda X: [(n, _one(X @ M.T), fix) for n, (M, fix) in wrong.items()],
            scale=vmax / car.r,
        )
    if kind == "fk":
        # consistent wheel speeds (those of a twist) and inconsistent ones (slip): FK is the least-squares twist

        def wheels(rng, n):
            W = twists(rng, n) @ np.array(car.matrix).T
            W[n // 2 :] += rng.normal(0, 0.05 * vmax / car.r, (n - n // 2, 4))
            return W

        return MapSpec(
            wheel_names,
            twist_names,
            wheels,
            lambda X: _one(X @ np.linalg.pinv(car.matrix).T),
            lambda X: (
                [(n, _one(X @ np.linalg.pinv(M).T), fix) for n, (M, fix) in wrong.items()]
                + [
                    (
                        "FK from three wheels (the fourth ignored)",
                        _one(X[:, :3] @ np.linalg.inv(np.array(car.matrix)[:3]).T),
                        "use all four wheels with the pseudo-inverse (least squares)",
                    )
                ]
            ),
            scale=vmax,
        )
    raise ValueError("verify checks a mecanum chassis' ik (twist -> wheel speeds) and fk (wheel speeds -> twist)")


# ---- wheel-legged robot: the virtual leg ---------------------------------------------------------------------
def _wheel_leg(design, kind) -> MapSpec:
    fb: FiveBar = design.extra["linkage"]
    lmin, lmax = design.extra["leg"]["length_min"], design.extra["leg"]["length_max"]
    hip = np.array([0.5 * fb.d, 0.0])

    def legs(rng, n):
        return np.stack([rng.uniform(lmin, lmax, n), -np.pi / 2 + rng.uniform(-0.5, 0.5, n)], -1)

    def configs(rng, n):
        P = legs(rng, 2 * n)
        ok = fb.ik(hip + P[:, :1] * np.stack([np.cos(P[:, 1]), np.sin(P[:, 1])], -1), on_unreachable="nan").valid
        return virtual_leg_inverse(fb, P[ok][:n])

    def vleg(fbx, Q, origin=hip):
        p = fbx.fk(Q, on_unreachable="nan") - origin
        return np.stack([np.hypot(p[:, 0], p[:, 1]), np.arctan2(p[:, 1], p[:, 0])], -1)

    swaps = {
        "driving and distal links (l1 <-> l3, l2 <-> l4)": FiveBar(fb.l3, fb.l4, fb.l1, fb.l2, fb.d),
        "the two sides (l1 <-> l2, l3 <-> l4)": FiveBar(fb.l2, fb.l1, fb.l4, fb.l3, fb.d),
    }
    swaps = {k: v for k, v in swaps.items() if v != fb}
    if kind == "fk":

        def hyps(Q):
            V = vleg(fb, Q)
            out = [
                (
                    "leg measured from motor 1 instead of the hip midpoint (the d/2 offset forgotten)",
                    _one(vleg(fb, Q, np.zeros(2))),
                    "the virtual leg runs from (d/2, 0), the midpoint of the motors, to the foot",
                ),
                (
                    "leg angle from the downward vertical (theta = phi0 + pi/2) instead of phi0 from +x",
                    _one(np.stack([V[:, 0], V[:, 1] + np.pi / 2], -1)),
                    "phi0 = atan2(y, x - d/2) from +x; the body-pitch angle theta is a different quantity",
                ),
                (
                    "degrees for radians (the angles are read as degrees)",
                    _one(vleg(fb, np.deg2rad(Q))),
                    "motor angles are rad",
                ),
            ]
            out += [(f"swapped lengths ({w})", _one(vleg(o, Q)), f"swap back {w}") for w, o in swaps.items()]
            return out

        return MapSpec(
            ("theta1", "theta2"), ("L0", "phi0"), configs, lambda Q: _one(vleg(fb, Q)), hyps, wrap=(1,), scale=lmax
        )
    if kind == "jacobian":

        def hyps(Q):
            J = virtual_leg_jacobian(fb, Q).reshape(-1, 4)
            return [
                (
                    "foot Jacobian d(x, y)/dq instead of d(L0, phi0)/dq",
                    _one(fb.jacobian(Q, warn=False).reshape(-1, 4)),
                    "chain rule: J_v = [r_hat; n / L0] J_f (robokin.wheel_leg.virtual_leg_jacobian)",
                ),
                (
                    "transposed Jacobian (rows and columns swapped)",
                    _one(J[:, [0, 2, 1, 3]]),
                    "J[i, j] = d leg_i / dq_j",
                ),
                ("columns swapped (motor order)", _one(J[:, [1, 0, 3, 2]]), "column j belongs to motor j"),
                ("wrong sign (the whole Jacobian negated)", _one(-J), "differentiate again; check the sign convention"),
            ]

        return MapSpec(
            ("theta1", "theta2"),
            ("J11", "J12", "J21", "J22"),
            configs,
            lambda Q: _one(virtual_leg_jacobian(fb, Q).reshape(-1, 4)),
            hyps,
            scale=lmax,
        )
    if kind == "ik":

        def all_ik(fbx, P, origin=hip):
            foot = origin + P[:, :1] * np.stack([np.cos(P[:, 1]), np.sin(P[:, 1])], -1)
            r = fbx.ik(foot, branch="all", on_unreachable="nan")
            return np.where(r.valid[..., None], r.q, np.nan)

        def hyps(P):
            C = all_ik(fb, P)
            out = [
                (
                    "leg measured from motor 1 instead of the hip midpoint (the d/2 offset forgotten)",
                    all_ik(fb, P, np.zeros(2)),
                    "the virtual leg runs from (d/2, 0), the midpoint of the motors, to the foot",
                ),
                (
                    "leg angle from the downward vertical (theta = phi0 + pi/2 taken as phi0)",
                    all_ik(fb, P - [0, np.pi / 2]),
                    "phi0 from +x: straight down is -pi/2",
                ),
                ("degrees for radians (the answer is in degrees)", np.rad2deg(C), "return radians"),
            ]
            out += [(f"swapped lengths ({w})", all_ik(o, P), f"swap back {w}") for w, o in swaps.items()]
            return out

        return MapSpec(
            ("L0", "phi0"),
            ("theta1", "theta2"),
            legs,
            lambda P: all_ik(fb, P),
            hyps,
            branches=tuple(fb.branches),
            wrap=(0, 1),
            scale=1.0,
            default_branch=fb.default_branch,
        )
    raise ValueError(f"kind must be one of ik, fk, jacobian; got {kind!r}")


# ---- serial arms: the geometric Jacobian ---------------------------------------------------------------------
def _arm_jacobian(design, variants) -> MapSpec:
    arm: SerialArm = design.mechanism
    n = arm.n
    lim = arm.qlim if arm.qlim is not None else np.tile([-np.pi, np.pi], (n, 1))
    lo, hi = np.maximum(lim[:, 0], -np.pi), np.minimum(lim[:, 1], np.pi)
    reach = float(np.sum(np.abs(arm.a)) + np.sum(np.abs(arm.d)) + np.linalg.norm(arm.tool[:3, 3]))

    def flat(J):
        return np.asarray(J).reshape(len(J), 6 * n)

    def hyps(Q):
        J = arm.jacobian(Q)
        T = arm.fk(Q)
        R, p = T[:, :3, :3], T[:, :3, 3]
        Rt = np.swapaxes(R, -1, -2)
        v, w = J[:, :3], J[:, 3:]
        out = [
            (
                "rows [omega; v] (angular rows first, the Modern Robotics order)",
                _one(flat(np.concatenate([w, v], 1))),
                "the course's rows are [v; omega]: linear velocity of the tool point first",
            ),
            (
                "tool-frame (body) Jacobian instead of the base frame",
                _one(flat(np.concatenate([Rt @ v, Rt @ w], 1))),
                "express both rows in the base frame: [R v_body; R omega_body]",
            ),
            (
                "spatial twist (v of the point at the base origin) instead of the tool-point velocity",
                _one(flat(np.concatenate([v + np.cross(p[:, :, None], w, axis=1), w], 1))),
                "the linear rows are z_i x (p_e - o_i): the velocity of the tool origin",
            ),
            (
                "degrees for radians (per degree instead of per radian)",
                _one(flat(J * np.pi / 180)),
                "differentiate in radians",
            ),
            ("columns in reverse joint order", _one(flat(J[:, :, ::-1])), "column j belongs to joint j"),
        ]
        if n == 6:
            out.append(
                (
                    "transposed Jacobian (rows and columns swapped)",
                    _one(flat(np.swapaxes(J, -1, -2))),
                    "J[i, j] = d twist_i / d q_j",
                )
            )
        for name, other in variants.items():
            out.append(
                (name, _one(flat(other.jacobian(Q))), "build the chain as the file states it (base @ chain @ tool)")
            )
        return out

    return MapSpec(
        tuple(f"q{j + 1}" for j in range(n)),
        tuple(f"J{i + 1}{j + 1}" for i in range(6) for j in range(n)),
        lambda rng, m: rng.uniform(lo, hi, (min(m, 500), n)),
        lambda Q: _one(flat(arm.jacobian(Q))),
        hyps,
        scale=reach,
        python_vector=True,
    )


def spec_for(design, kind, arm_variants=None) -> MapSpec | None:
    """The :class:`MapSpec` of a design and kind, or None for the families verify.py handles itself."""
    mech = design.mechanism
    if isinstance(mech, Stewart):
        if kind != "ik":
            raise ValueError("verify checks a Stewart platform's ik (pose -> six leg lengths)")
        return _stewart_ik(design)
    if isinstance(mech, Mecanum):
        return _mecanum(design, kind)
    if isinstance(mech, WheelLegParams):
        return _wheel_leg(design, kind)
    if isinstance(mech, SerialArm) and kind == "jacobian":
        return _arm_jacobian(design, arm_variants)
    return None


# ---- the check -----------------------------------------------------------------------------------------------
def _row_err(U, C, spec):
    """Per input and branch, ``max |U - C|`` relative to ``max(scale, |C|)`` (N, B); inf where C is missing."""
    d = U[:, None, :] - C
    if spec.wrap:
        d[..., list(spec.wrap)] = _wrap(d[..., list(spec.wrap)])
    with np.errstate(invalid="ignore"):
        ref = np.maximum(spec.scale, np.nanmax(np.abs(C), axis=-1, initial=0.0))
        e = np.abs(d).max(-1) / ref
    return np.where(np.isfinite(e), e, np.inf)


def check(spec: MapSpec, X, U, tol, box, finding):
    """Run the check; returns ``(max_error, passed, lines, findings)``."""
    C = spec.course(X)
    exists = np.isfinite(C).all(-1).any(-1)
    E = _row_err(U, C, spec)
    best = E.min(-1)
    bad = exists & ~(best <= tol)
    maxerr = float(np.max(np.where(exists, best, 0.0), initial=0.0))
    lines = [
        f"{', '.join(spec.outputs[:6])}{'...' if len(spec.outputs) > 6 else ''} against the course over "
        f"{int(exists.sum())} inputs: max error {maxerr:.2e} (relative, tol {tol:.0e}), {int(bad.sum())} fail"
    ]
    findings = []
    names = spec.inputs
    if len(spec.branches) > 1:
        br = np.where(best <= tol, E.argmin(-1), -1)
        used = sorted({int(b) for b in br[exists & (br >= 0)]})
        if len(used) > 1:
            counts = sorted(((int(np.sum(br == b)), b) for b in used), reverse=True)
            main = counts[0][1]
            minority = exists & (br >= 0) & (br != main)
            lines.append("branches used: " + ", ".join(f"{spec.branches[b]} ({c})" for c, b in counts))
            findings.append(
                finding(
                    "branch mismatch (the working mode changes between inputs)",
                    1.0,
                    f"where it returns {', '.join(spec.branches[b] for b in used if b != main)} instead of "
                    f"{spec.branches[main]}: " + box(X, minority, names),
                    f"pick one branch explicitly and keep it (the course's is {spec.default_branch!r})",
                )
            )
        elif used:
            lines.append(f"branch: {spec.branches[used[0]]} everywhere it is right")
    refused = exists & np.isnan(U).any(-1)  # None / NaN / an exception: a refusal, its own finding
    if refused.any():
        findings.append(
            finding(
                f"refuses inputs the course answers ({int(refused.sum())} of {int(exists.sum())})",
                float(refused.sum() / bad.sum()),
                box(X, refused, names),
                "answer every input the course answers: check your reachability test and the exception raised",
            )
        )
    answered = ~exists & np.isfinite(U).all(-1)
    if answered.any():
        findings.append(
            finding(
                f"answers {int(answered.sum())} input(s) the course has no answer for (outside the workspace or "
                "the stroke: a clamp, or no reachability check?)",
                1.0,
                box(X, answered, names),
                "return None / NaN (C: a non-zero status) where no configuration exists",
            )
        )
    wrong = bad & ~refused
    if wrong.any():
        seen = []
        for name, cand, fix in spec.hypotheses(X):
            hit = _row_err(U, cand, spec).min(-1) <= tol
            share = float(np.sum(hit & wrong) / wrong.sum())
            if share >= 0.5 and not any(np.array_equal(hit & wrong, s) for s in seen):
                seen.append(hit & wrong)
                findings.append(finding(name, share, box(X, hit & wrong, names), fix))
        if not seen:
            findings.append(
                finding(
                    "an error none of the usual mistakes explains",
                    1.0,
                    box(X, wrong, names),
                    "compare your formula with the chapter's at the first failing input",
                )
            )
    findings = sorted(findings, key=lambda f: -f.explained)
    return maxerr, not bad.any() and not findings, lines, findings
