"""The fixed list of mutations run by ``tools/mutate.py`` (``make mutate``).

Each entry: ``id``, ``file`` (under the repository root), ``find`` (an exact source snippet that must occur
exactly once in that file), ``replace`` (the mutated snippet), ``tests`` (pytest paths or node ids run against the
mutant; ``robokin/*.py`` entries are run as doctests) and optionally ``equivalent`` (why the mutant cannot change
any observable behaviour; such mutants are run and shown, but left out of the score).

A mutation is meaningful: a sign, a constant, a tolerance, an index or a branch choice that a real slip could
produce. Keep ``find`` short but unique; ``tools/mutate.py --check`` verifies every snippet.
"""

M = []


def mut(id, file, find, replace, tests, equivalent=None):
    M.append(dict(id=id, file=file, find=find, replace=replace, tests=list(tests), equivalent=equivalent))


TR = ["tests/test_transforms.py", "robokin/transforms.py"]
UR = ["tests/test_ur5.py", "robokin/ur5.py"]
IK = ["tests/test_ik.py", "robokin/ik.py"]
SE = ["tests/test_serial.py", "robokin/serial.py"]
CH = ["tests/test_checks.py", "robokin/checks.py"]
MU = ["tests/test_mutants.py"]

# ---- transforms ------------------------------------------------------------------------------
mut("tf-rotation-tol", "robokin/transforms.py", "ROTATION_TOL = 1e-6", "ROTATION_TOL = 1e-3", TR)
mut(
    "tf-series-threshold",
    "robokin/transforms.py",
    "    mid = theta < 0.2\n    ts = np.where(small",
    "    mid = theta < 2.0\n    ts = np.where(small",
    TR,
)
mut("tf-B-half-angle", "robokin/transforms.py", "h = np.sin(ts / 2) / (ts / 2)", "h = np.sin(ts) / ts", TR)
mut(
    "tf-D-factor",
    "robokin/transforms.py",
    "(1 - A / (2 * np.where(mid, 1.0, B)))",
    "(1 - A / np.where(mid, 1.0, B))",
    TR,
)
mut("tf-halfturn-division", "robokin/transforms.py", "2.0 / np.where(tiny, q[..., 0], 1.0)", "2.0 / q[..., 0]", TR)
mut("tf-gimbal-threshold", "robokin/transforms.py", "lock = cp < 1e-9", "lock = cp < 1e-3", TR)
mut(
    "tf-inverse-sign",
    "robokin/transforms.py",
    "out[..., :3, 3] = -(Rt @ T[..., :3, 3:4])[..., 0]",
    "out[..., :3, 3] = (Rt @ T[..., :3, 3:4])[..., 0]",
    TR,
)
mut(
    "tf-wrap-period",
    "robokin/transforms.py",
    "return (a + np.pi) % (2 * np.pi) - np.pi",
    "return (a + np.pi) % np.pi - np.pi",
    TR,
)
mut("tf-det-check", "robokin/transforms.py", "return (orth <= tol) & (det_err <= tol)", "return orth <= tol", TR)
mut("tf-elementary-sign", "robokin/transforms.py", "R[..., i, j] = -s", "R[..., i, j] = s", TR)
mut(
    "tf-slerp-lerp-swap",
    "robokin/transforms.py",
    "p = (1 - s[..., None]) * T0[..., :3, 3] + s[..., None] * T1[..., :3, 3]",
    "p = s[..., None] * T0[..., :3, 3] + (1 - s[..., None]) * T1[..., :3, 3]",
    TR,
)
mut("tf-bottom-row", "robokin/transforms.py", "    if not bottom <= tol:", "    if False:", TR)

# ---- ur5 -------------------------------------------------------------------------------------
mut("ur5-input-gain", "robokin/ur5.py", "INPUT_ERROR_GAIN = 10.0", "INPUT_ERROR_GAIN = 1.0", UR)
mut(
    "ur5-hint-ignored",
    "robokin/ur5.py",
    "th6 = _wrap(np.where(sing5, hint, th6c))",
    "th6 = _wrap(np.where(sing5, 0.0, th6c))",
    UR,
)
mut(
    "ur5-arc-no-clamp",
    "robokin/ur5.py",
    "clamped = phi + sgn * np.clip(np.abs(d), dmin, dmax)",
    "clamped = phi + sgn * np.abs(d)",
    UR,
)
mut(
    "ur5-arc-rmax",
    "robokin/ur5.py",
    "rmin, rmax = abs(abs(A2) - abs(A3)), abs(A2) + abs(A3)",
    "rmin, rmax = abs(abs(A2) - abs(A3)), abs(A2) + abs(A3) - D5",
    UR,
)
mut("ur5-shoulder-slack", "robokin/ur5.py", "ok1 = r >= D4 * (1 - t4)", "ok1 = r >= D4 * (1 + t4)", UR)
mut(
    "ur5-c5-sign",
    "robokin/ur5.py",
    "c5 = (p[..., 0] * s1 - p[..., 1] * c1 - D4) / D6",
    "c5 = (p[..., 0] * s1 - p[..., 1] * c1 + D4) / D6",
    UR,
)
mut("ur5-elbow-label", "robokin/ur5.py", "th3 = _wrap(E * S * np.arccos(", "th3 = _wrap(E * np.arccos(", UR)
mut("ur5-nearest-weights", "robokin/ur5.py", "np.sum(w * dq * dq, axis=-1)", "np.sum(dq * dq, axis=-1)", UR)
mut(
    "ur5-residual-norm",
    "robokin/ur5.py",
    "axis=(-2, -1)) / 2)\n    return dp + dR",
    "axis=(-2, -1)))\n    return dp + dR",
    UR,
)
mut("ur5-retry-dropped", "robokin/ur5.py", "    if np.any(retry):", "    if False:", UR)

# ---- ik (DLS) --------------------------------------------------------------------------------
mut(
    "ik-damping-law",
    "robokin/ik.py",
    "(1 - (smin / sigma_threshold) ** 2) * damping**2",
    "(1 - smin / sigma_threshold) * damping**2",
    IK,
)
mut("ik-constant-damping-lambda", "robokin/ik.py", "err.shape), damping**2)", "err.shape), damping)", IK)
mut("ik-fade-linear", "robokin/ik.py", "np.minimum(1.0, err / fade) ** 2", "np.minimum(1.0, err / fade)", IK)
mut("ik-step-cap", "robokin/ik.py", "dq *= np.minimum(1.0, max_step", "dq *= np.maximum(1.0, max_step", IK)
mut(
    "ik-limits-ignored",
    "robokin/ik.py",
    "ok = (e <= tol) & inside",
    "ok = e <= tol",
    IK,
    equivalent="q0 is refused outside qlim, every iterate is clipped into qlim and restart seeds are drawn inside "
    "it, so `inside` is always True here; the final limit check is a guard against future changes",
)

# ---- serial ----------------------------------------------------------------------------------
mut(
    "dh-standard-row",
    "robokin/_primitives.py",
    "p = np.stack([a * ct * o, a * st * o, d * o], -1)",
    "p = np.stack([a * st * o, a * st * o, d * o], -1)",
    SE,
)
mut("dh-special-snap", "robokin/_kernels.py", "abs(v - np.round(v)) < 1e-15", "abs(v - np.round(v)) < 1e-3", SE)
mut(
    "jac-cross-sign",
    "robokin/_kernels.py",
    "cols.append(_cross(z, (pe[0] - o[0], pe[1] - o[1], pe[2] - o[2]))",
    "cols.append(_cross((pe[0] - o[0], pe[1] - o[1], pe[2] - o[2]), z)",
    SE,
)
mut(
    "jac-tool-offset",
    "robokin/_kernels.py",
    "return cols[0], cols[1], cols[2], _add(P, cols[3])",
    "return cols[0], cols[1], cols[2], P",
    SE,
)
mut(
    "kernel-modified-axis",
    "robokin/_kernels.py",
    "P = _add(_add(P, _scale(a, X)), _scale(d, Za))",
    "P = _add(_add(P, _scale(a, X)), _scale(d, Z))",
    SE,
)
mut(
    "kernel-fold-negation",
    "robokin/_kernels.py",
    "            return a + _Sym(self.tr, self.tr.negof[b.tok])",
    "            return a - _Sym(self.tr, self.tr.negof[b.tok])",
    SE,
)
mut(
    "dh-modified-axis", "robokin/serial.py", "Pn = shift(shift(P, a, X), d, Za)", "Pn = shift(shift(P, a, X), d, Z)", SE
)

# ---- checks ----------------------------------------------------------------------------------
mut(
    "checks-report-10tol",
    "robokin/checks.py",
    "return bool(self.max_error <= self.tol)",
    "return bool(self.max_error <= 10 * self.tol)",
    CH,
)
mut(
    "checks-rate-upper-bound",
    "robokin/checks.py",
    "beta.ppf(alpha, k, n - k + 1)",
    "beta.ppf(1 - alpha, k, n - k + 1)",
    CH,
)
mut(
    "checks-nan-passes",
    "robokin/checks.py",
    "e = np.where(np.isnan(e), np.inf, e)",
    "e = np.where(np.isnan(e), 0.0, e)",
    CH,
)
mut(
    "checks-fd-step",
    "robokin/checks.py",
    "(y[..., :n, :] - y[..., n:, :]) / (2 * eps)",
    "(y[..., :n, :] - y[..., n:, :]) / eps",
    CH,
)
mut(
    "checks-scale-inf",
    "robokin/checks.py",
    "if not (sc.size and np.all(np.isfinite(sc)) and np.all(sc > 0)):",
    "if not (sc.size and np.all(sc > 0)):",
    CH,
)

# ---- other modules (killing tests in their own files and tests/test_mutants.py) ---------------
mut("leg2-reach-tol", "robokin/leg2.py", "_REACH_TOL = 1e-12", "_REACH_TOL = 1e-6", ["tests/test_leg2.py"] + MU)
mut(
    "leg2-cond-sqrt",
    "robokin/leg2.py",
    "cond = np.sqrt((fro2 + r) / np.maximum(fro2 - r, 0.0))",
    "cond = (fro2 + r) / np.maximum(fro2 - r, 0.0)",
    ["tests/test_leg2.py"] + MU,
)
mut(
    "mecanum-gyro-bias-slice",
    "robokin/mecanum.py",
    "rate = g - bias[..., :-1]",
    "rate = g - bias[..., 1:]",
    ["tests/test_mecanum.py"] + MU,
)
mut(
    "mecanum-twist-transpose",
    "robokin/mecanum.py",
    "        w = t @ self._M.T\n",
    "        w = t @ self._M[:, ::-1].T\n",
    ["tests/test_mecanum.py"],
)
mut(
    "fivebar-circle-sign",
    "robokin/fivebar.py",
    "a = (self.l3**2 - self.l4**2 + L2) / (2 * Ls)",
    "a = (self.l4**2 - self.l3**2 + L2) / (2 * Ls)",
    ["tests/test_fivebar.py"],
)
mut(
    "fivebar-side-sign",
    "robokin/fivebar.py",
    "c = np.clip((la**2 + r2 - lb**2) / (2 * la * rs), -1.0, 1.0)",
    "c = np.clip((la**2 + r2 + lb**2) / (2 * la * rs), -1.0, 1.0)",
    ["tests/test_fivebar.py"],
)
mut(
    "stewart-stroke-upper",
    "robokin/stewart.py",
    "ok &= np.all((L >= self.stroke[0]) & (L <= self.stroke[1]), axis=-1)",
    "ok &= np.all(L >= self.stroke[0], axis=-1)",
    ["tests/test_stewart.py"],
)
mut(
    "wheel-leg-com-half",
    "robokin/wheel_leg.py",
    "    a = 0.5 * L  # leg centre of mass from the axle",
    "    a = L  # leg centre of mass from the axle",
    ["tests/test_wheel_leg.py"],
)
mut(
    "wheel-leg-lqr-gain",
    "robokin/wheel_leg.py",
    "return np.linalg.solve(Rm, B.T @ P)",
    "return np.linalg.solve(Rm, B.T @ P.T @ P)",
    ["tests/test_wheel_leg.py"],
)
mut(
    "dynamics-coriolis-cross",
    "robokin/_kernels.py",
    "a_c = _add(_add(accJ, _cross(wd, rc)), _cross(w, _cross(w, rc)))",
    "a_c = _add(_add(accJ, _cross(wd, rc)), _cross(_cross(w, rc), w))",
    ["tests/test_dynamics.py"],
)
mut(
    "crba-shift-cross-term",
    "robokin/_kernels.py",
    "                - p[r] * hr[k]\n                - hr[r] * p[k]\n",
    "                + p[r] * hr[k]\n                + hr[r] * p[k]\n",
    ["tests/test_dynamics.py"],
)
mut(
    "crba-joint-point",
    "robokin/_kernels.py",
    "Mfull[j, i] = _dot(zj, _add(no, _scale(-1.0, _cross(sj, f))))",
    "Mfull[j, i] = _dot(zj, no)",
    ["tests/test_dynamics.py"],
)
mut(
    "control-quintic-jerkless",
    "robokin/_primitives.py",
    "10.0 + s * (-15.0 + 6.0 * s)",
    "10.0 + s * (-15.0 + 5.0 * s)",
    ["tests/test_control.py", "tests/test_trajectory.py"],
)
mut(
    "control-pid-kd-index",
    "robokin/control.py",
    "u2 = kp[1] * (r2 - q2) + kd[1] * (rd2 - v2)",
    "u2 = kp[1] * (r2 - q2) + kd[0] * (rd2 - v2)",
    ["tests/test_control.py"] + MU,
)
mut(
    "ident-regressor-angle",
    "robokin/ident.py",
    "c1, c12 = np.cos(q[..., 0]), np.cos(q[..., 0] + q[..., 1])",
    "c1, c12 = np.cos(q[..., 0]), np.cos(q[..., 1])",
    ["tests/test_ident.py"],
)
mut(
    "validate-max-abs",
    "robokin/_validate.py",
    "MAX_ABS = 1e12",
    "MAX_ABS = 1e300",
    ["tests/test_errors_validate.py"] + MU,
)
mut(
    "trajectory-derivative-factor",
    "robokin/trajectory.py",
    "        fall = fall * (i - j)\n",
    "        fall = fall * (i - j + 1)\n",
    ["tests/test_trajectory.py"],
)
mut(
    "report-exit-status",
    "robokin/report.py",
    "    return 1 if failed else 0",
    "    return 0",
    ["tests/test_report.py"] + MU,
)
mut(
    "symbolic-roty-sign",
    "robokin/symbolic.py",
    "    return sp.Matrix([[c, 0, s], [0, 1, 0], [-s, 0, c]])",
    "    return sp.Matrix([[c, 0, -s], [0, 1, 0], [s, 0, c]])",
    MU,
)

MUTATIONS = M
