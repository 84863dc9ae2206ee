"""Mutations written without reading the tests (issue 29): ``python tools/mutate.py --list independent``.

Same format as ``tools/mutations.py`` (``id``, ``file``, ``find`` occurring exactly once, ``replace``, ``tests``,
optional ``equivalent``), but its author saw only the package source, never ``tests/``. Test paths follow the
naming convention (``tests/test_<module>.py`` plus the module's doctests). The mutants aim at what a real slip or
a weakened safeguard looks like: tolerances loosened as well as tightened, caps raised, internal Jacobians,
motor and friction models outside their usual range, branch selection, signs, indices, off-by-one loops and
default arguments.
"""

M = []


def mut(id, file, find, replace, tests, equivalent=None):
    M.append(dict(id=id, file=file, find=find, replace=replace, tests=list(tests), equivalent=equivalent))


def _t(module):
    return [f"tests/test_{module}.py", f"robokin/{module}.py"]


UR, L2, SI, ST, FB, TJ = _t("ur5"), _t("leg2"), _t("sim"), _t("stewart"), _t("fivebar"), _t("trajectory")
CH, IK, SE, TF, CT, MC = _t("checks"), _t("ik"), _t("serial"), _t("transforms"), _t("control"), _t("mecanum")
# tests/test_mutants.py holds the killing tests for modules whose own test files belong to other work
UR, L2, IK = (t + ["tests/test_mutants.py"] for t in (UR, L2, IK))
# _validate is tested in test_errors_validate.py and by the hostile sweep
VA = ["tests/test_errors_validate.py", "tests/test_hostile.py", "robokin/_validate.py"]
F = {
    k: f"robokin/{k}.py"
    for k in (
        "ur5",
        "leg2",
        "sim",
        "stewart",
        "fivebar",
        "trajectory",
        "checks",
        "ik",
        "_validate",
        "serial",
        "transforms",
        "control",
        "mecanum",
    )
}

# ---- UR5 IK: tolerances both ways, branch signs and labels ----------------------------------------------------
mut("ind-ur5-gain-loose", F["ur5"], "INPUT_ERROR_GAIN = 10.0", "INPUT_ERROR_GAIN = 100.0", UR)
mut("ind-ur5-gain-tight", F["ur5"], "INPUT_ERROR_GAIN = 10.0", "INPUT_ERROR_GAIN = 1.0", UR)
mut(
    "ind-ur5-wrist-tol-loose",
    F["ur5"],
    "stol = singular_tol + INPUT_ERROR_GAIN",
    "stol = 10 * singular_tol + INPUT_ERROR_GAIN",
    UR,
)
mut(
    "ind-ur5-valid-tol-loose",
    F["ur5"],
    "tk = tol + INPUT_ERROR_GAIN * e_in",
    "tk = 10 * tol + INPUT_ERROR_GAIN * e_in",
    UR,
)
mut(
    "ind-ur5-branch-order",
    F["ur5"],
    "for s in (1, -1) for e in (1, -1) for w in (1, -1)",
    "for s in (1, -1) for w in (1, -1) for e in (1, -1)",
    UR,
)
mut("ind-ur5-elbow-label", F["ur5"], "th3 = _wrap(E * S * np.arccos", "th3 = _wrap(E * np.arccos", UR)
mut(
    "ind-ur5-wrist-label",
    F["ur5"],
    "th5 = W * np.arctan2(np.hypot(x6, y6)",
    "th5 = -W * np.arctan2(np.hypot(x6, y6)",
    UR,
)
mut("ind-ur5-shoulder-flag-loose", F["ur5"], "np.maximum(t4, 1e-9) * D4", "np.maximum(t4, 1e-3) * D4", UR)
mut("ind-ur5-theta6-fix-window", F["ur5"], "(np.abs(cs5[1]) < 1e-3)", "(np.abs(cs5[1]) < 1e-9)", UR)
mut(
    "ind-ur5-alpha-check-loose",
    F["ur5"],
    "if not np.allclose(alpha, ALPHA, rtol=0, atol=1e-12)",
    "if not np.allclose(alpha, ALPHA, rtol=0, atol=1e-2)",
    UR,
)

# ---- 2-link leg: calibration Jacobian, analytic Jacobian, reach/limit slack, caps --------------------------------
mut(
    "ind-leg2-calib-jac-l1",
    F["leg2"],
    "jz = np.stack([-c1, -c12, l1 * s1 + l2 * s12, l2 * s12]",
    "jz = np.stack([-c1, -c12, l1 * s1 + l2 * s12, l1 * s12]",
    L2,
)
mut("ind-leg2-calib-jac-sign", F["leg2"], "jx = np.stack([s1, s12,", "jx = np.stack([s1, -s12,", L2)
mut(
    "ind-leg2-calib-jac-d1",
    F["leg2"],
    "jx = np.stack([s1, s12, l1 * c1 + l2 * c12,",
    "jx = np.stack([s1, s12, l1 * c1,",
    L2,
)
mut("ind-leg2-jac-l1", F["leg2"], "J[..., 1, 1] = self.l2 * s12", "J[..., 1, 1] = self.l1 * s12", L2)
mut("ind-leg2-reach-loose", F["leg2"], "_REACH_TOL = 1e-12", "_REACH_TOL = 1e-6", L2)
mut("ind-leg2-reach-tight", F["leg2"], "_REACH_TOL = 1e-12", "_REACH_TOL = 0.0", L2)
mut("ind-leg2-limit-loose", F["leg2"], "_LIMIT_TOL = 1e-12", "_LIMIT_TOL = 1e-3", L2)
mut("ind-leg2-nfev-cap", F["leg2"], "_MAX_NFEV = 10_000", "_MAX_NFEV = 10**12", L2)
mut("ind-leg2-hip-sign", F["leg2"], "np.arctan2(l2 * s2, l1 + l2 * c2)", "np.arctan2(l2 * s2, l1 - l2 * c2)", L2)
mut(
    "ind-leg2-all-any",
    F["leg2"],
    "failed = np.all(bad, axis=-1)",
    "failed = np.any(bad, axis=-1)",
    L2,
)

# ---- sim: motor model outside its range, caps, step limit --------------------------------------------------------
mut(
    "ind-sim-motor-clip-neg",
    F["sim"],
    "np.clip(1.0 - w / self.omega_free, 0.0, 1.0)",
    "np.clip(1.0 - w / self.omega_free, -1.0, 1.0)",
    SI,
)
mut(
    "ind-sim-motor-clip-high",
    F["sim"],
    "np.clip(1.0 - w / self.omega_free, 0.0, 1.0)",
    "np.clip(1.0 - w / self.omega_free, 0.0, 2.0)",
    SI,
    equivalent="w = N |speed| >= 0, so 1 - w / omega_free <= 1 already: the upper bound never binds",
)
mut(
    "ind-sim-saturate-guard",
    F["sim"],
    "np.minimum(np.abs(tau), np.maximum(lim, 0.0))",
    "np.minimum(np.abs(tau), lim)",
    SI,
    equivalent="max_joint_torque is clipped at 0 already, so np.maximum(lim, 0) is a second guard that never binds",
)
mut(
    "ind-sim-motor-abs-speed",
    F["sim"],
    'w = np.abs(as_array(joint_speed, "joint_speed")) * N',
    'w = as_array(joint_speed, "joint_speed") * N',
    SI,
)
mut("ind-sim-eta-bound", F["sim"], "if eta > 1:", "if eta > 10:", SI)
mut(
    "ind-sim-rotor-inertia",
    F["sim"],
    'if finite_scalar(self.rotor_inertia, "rotor_inertia") < 0:',
    'if finite_scalar(self.rotor_inertia, "rotor_inertia") < -1.0:',
    SI,
)
mut("ind-sim-max-state", F["sim"], "_MAX_STATE = 2000", "_MAX_STATE = 200_000", SI)
mut("ind-sim-max-rows", F["sim"], "MAX_ROWS = 1_000_000", "MAX_ROWS = 10**12", SI)
mut("ind-sim-step-limit-tol", F["sim"], "rho(h) - 1.0 - tol", "rho(h) - 1.0 + tol", SI)
mut(
    "ind-sim-fivebar-default",
    F["sim"],
    'q: ArrayLike, *, assembly: Literal["down", "up"] = "down") -> np.ndarray:',
    'q: ArrayLike, *, assembly: Literal["down", "up"] = "up") -> np.ndarray:',
    SI,
)

# ---- Stewart: friction / Stribeck model, stroke flags, Newton caps -----------------------------------------------
mut(
    "ind-st-stribeck-exponent",
    F["stewart"],
    "peak = np.exp(-((ld / vst) ** 2))",
    "peak = np.exp(-np.abs(ld / vst))",
    ST,
)
mut(
    "ind-st-stribeck-excess",
    F["stewart"],
    "return f + (fs - fc) * peak * np.tanh(ld / vs)",
    "return f + fs * peak * np.tanh(ld / vs)",
    ST,
)
mut("ind-st-static-check", F["stewart"], "if fs < fc:", "if fs < 0:", ST)
mut("ind-st-coulomb-neg", F["stewart"], "if b < 0 or fc < 0:", "if b < 0:", ST)
mut(
    "ind-st-fk-stroke-upper",
    F["stewart"],
    "out = conv & ~np.all((L >= self.stroke[0]) & (L <= self.stroke[1])",
    "out = conv & ~np.all((L >= self.stroke[0]) & (L <= 10 * self.stroke[1])",
    ST,
)
mut(
    "ind-st-ik-stroke-or",
    F["stewart"],
    "ok &= np.all((L >= self.stroke[0]) & (L <= self.stroke[1])",
    "ok &= np.all((L >= self.stroke[0]) | (L <= self.stroke[1])",
    ST,
)
mut("ind-st-newton-cap", F["stewart"], "[0.1, 0.1, 0.1, 0.3, 0.3, 0.3]", "[10.0, 10.0, 10.0, 30.0, 30.0, 30.0]", ST)
mut("ind-st-gimbal", F["stewart"], "GIMBAL_COS = 1e-6", "GIMBAL_COS = 1e-14", ST)
mut(
    "ind-st-inertia-sym",
    F["stewart"],
    "np.allclose(I, I.T, atol=1e-12)",
    "np.allclose(I, I.T, atol=1e-2)",
    ST,
    equivalent="check_inertias(I) on the next line re-tests symmetry, stricter (atol 1e-12, rtol 1e-9 < 1e-5): "
    "an asymmetric inertia still raises ValueError naming inertia",
)

# ---- five-bar: assembly / working modes, workspace slack ---------------------------------------------------------
mut(
    "ind-fb-asm-swap",
    F["fivebar"],
    '_ASM_SIGN = {"down": -1.0, "up": 1.0}',
    '_ASM_SIGN = {"down": 1.0, "up": -1.0}',
    FB,
)
mut(
    "ind-fb-knee-swap",
    F["fivebar"],
    '"in-out": (1.0, 1.0), "out-in": (-1.0, -1.0)',
    '"in-out": (-1.0, -1.0), "out-in": (1.0, 1.0)',
    FB,
)
mut("ind-fb-slack-loose", F["fivebar"], "_REL = 1e-12", "_REL = 1e-6", FB)
mut("ind-fb-slack-tight", F["fivebar"], "_REL = 1e-12", "_REL = 0.0", FB)
mut(
    "ind-fb-mode-names",
    F["fivebar"],
    'names = np.array([["in", "in-out"], ["out-in", "out"]])',
    'names = np.array([["in", "out-in"], ["in-out", "out"]])',
    FB,
)
mut(
    "ind-fb-residual-sign",
    F["fivebar"],
    "sign = np.where(cross2(D - C, p - C) < 0, -1.0, 1.0)",
    "sign = np.where(cross2(D - C, p - C) > 0, -1.0, 1.0)",
    FB,
)
mut(
    "ind-fb-assembly-of",
    F["fivebar"],
    'return np.where(self.assembly_sign(q, p) < 0, "down", "up")',
    'return np.where(self.assembly_sign(q, p) < 0, "up", "down")',
    FB,
)
mut(
    "ind-fb-inner-reach",
    F["fivebar"],
    "ok = (r <= la + lb + slack) & (r >= abs(la - lb) - slack) & (r > slack)",
    "ok = (r <= la + lb + slack) & (r > slack)",
    FB,
)

# ---- trajectory: limit-ratio tolerance, caps, branch_sequence defaults and loops ---------------------------------
mut("ind-tj-limit-tol-cap", F["trajectory"], "MAX_LIMIT_TOL = 0.1", "MAX_LIMIT_TOL = 10.0", TJ)
mut("ind-tj-limit-tol-check", F["trajectory"], "if not 0.0 <= t <= MAX_LIMIT_TOL:", "if not 0.0 <= t:", TJ)
mut("ind-tj-grid-cap", F["trajectory"], "MAX_GRID_VALUES = 5_000_000", "MAX_GRID_VALUES = 5_000_000_000", TJ)
mut("ind-tj-max-iter-cap", F["trajectory"], "MAX_ITER = 100_000", "MAX_ITER = 10**12", TJ)
mut("ind-tj-max-step-default-big", F["trajectory"], "DEFAULT_MAX_STEP = 1.0", "DEFAULT_MAX_STEP = 3.1", TJ)
mut(
    "ind-tj-max-step-default-none",
    F["trajectory"],
    "max_step: float | None = DEFAULT_MAX_STEP,",
    "max_step: float | None = None,",
    TJ,
)
mut(
    "ind-tj-step-compare",
    F["trajectory"],
    "bad = np.flatnonzero(steps > max_step)",
    "bad = np.flatnonzero(steps > 2 * max_step)",
    TJ,
)
mut(
    "ind-tj-backtrack-off-by-one",
    F["trajectory"],
    "for k in range(K1 - 1, 0, -1):",
    "for k in range(K1 - 2, 0, -1):",
    TJ,
)
mut(
    "ind-tj-jump-index",
    F["trajectory"],
    "raise BranchJumpError(k if qs is not None else k + 1,",
    "raise BranchJumpError(k + 1 if qs is not None else k,",
    TJ,
)
mut("ind-tj-unwrap-off", F["trajectory"], "out[k] = prev + wrap(out[k] - prev)", "out[k] = prev + (out[k] - prev)", TJ)
mut(
    "ind-tj-min-limit",
    F["trajectory"],
    'if np.any(a < MIN_LIMIT):\n        raise ValueError(f"{name} must be at least MIN_LIMIT = {MIN_LIMIT:g} (or inf',
    'if np.any(a < 0):\n        raise ValueError(f"{name} must be at least MIN_LIMIT = {MIN_LIMIT:g} (or inf',
    TJ,
)
mut(
    "ind-tj-jog-tol",
    F["trajectory"],
    "rep = check_limits(tr, vmax=vmax, amax=amax, jmax=jmax, tol=1e-9)",
    "rep = check_limits(tr, vmax=vmax, amax=amax, jmax=jmax, tol=1e-2)",
    TJ,
)
mut("ind-tj-ratio-order", F["trajectory"], "return tr, r ** (1.0 / _ORDER)[:, None, None]", "return tr, r", TJ)

# ---- checks: verdict tolerances and the FD Jacobian check --------------------------------------------------------
mut("ind-ch-rel-tol-cap", F["checks"], "MAX_REL_TOL = 0.1", "MAX_REL_TOL = 10.0", CH)
mut("ind-ch-scale-cap", F["checks"], "if tol * float(sc.max()) > MAX_TOL:", "if tol * float(sc.max()) > 1e300:", CH)
mut("ind-ch-scale-finite", F["checks"], "np.all(np.isfinite(sc)) and np.all(sc > 0)", "np.all(sc > 0)", CH)
mut("ind-ch-jac-atol-bound", F["checks"], "bound = 1e-3 * max(1.0,", "bound = 1e3 * max(1.0,", CH)
mut(
    "ind-ch-jac-central",
    F["checks"],
    "J = (y[..., :n, :] - y[..., n:, :]) / (2 * eps)",
    "J = (y[..., :n, :] - y[..., n:, :]) / eps",
    CH,
)
mut("ind-ch-jac-err-floor", F["checks"], "err = diff / (size + atol)", "err = diff / (size + atol + 1.0)", CH)

# ---- ik: DLS damping law, convergence test, caps, loop bound -----------------------------------------------------
mut("ind-ik-tol-cap", F["ik"], "MAX_TOL = 1e-3", "MAX_TOL = 1e3", IK)
mut("ind-ik-done-loose", F["ik"], "done = err <= tol", "done = err <= 10 * tol", IK)
mut(
    "ind-ik-valid-limits",
    F["ik"],
    "ok = (e <= tol) & inside",
    "ok = e <= tol",
    IK,
    equivalent="q0 must lie inside qlim, every iterate is np.clip-ped into qlim and restart seeds are drawn in "
    "[lo, hi): the returned q is always inside, so `inside` is a re-check that is always True",
)
mut(
    "ind-ik-fade-linear",
    F["ik"],
    "return on * np.minimum(1.0, err / fade) ** 2",
    "return on * np.minimum(1.0, err / fade)",
    IK,
)
mut(
    "ind-ik-onset-linear",
    F["ik"],
    "(1 - (smin / sigma_threshold) ** 2) * damping**2",
    "(1 - smin / sigma_threshold) * damping**2",
    IK,
)
mut(
    "ind-ik-step-cap",
    F["ik"],
    "dq *= np.minimum(1.0, max_step / np.maximum(step, 1e-300))",
    "dq *= np.minimum(10.0, max_step / np.maximum(step, 1e-300))",
    IK,
)
mut("ind-ik-loop-off-by-one", F["ik"], "for k in range(max_iter + 1):", "for k in range(max_iter):", IK)
mut("ind-ik-iter-cap", F["ik"], "MAX_ITER = 100_000", "MAX_ITER = 10**12", IK)
mut("ind-ik-fade-small", F["ik"], "FADE = 1e-2", "FADE = 1e-6", IK)

# ---- shared validators and other caps ----------------------------------------------------------------------------
mut("ind-va-max-abs", F["_validate"], "MAX_ABS = 1e12", "MAX_ABS = 1e300", VA)
mut("ind-va-max-count", F["_validate"], "MAX_COUNT = 10**8", "MAX_COUNT = 10**18", VA)
mut("ind-va-max-rtol", F["_validate"], "MAX_RTOL = 0.1", "MAX_RTOL = 10.0", VA)
mut(
    "ind-va-positive-zero",
    F["_validate"],
    "if not (np.isfinite(v) and v > 0):",
    "if not (np.isfinite(v) and v >= 0):",
    VA,
)
mut("ind-va-integer-bool", F["_validate"], "if isinstance(value, bool) or not isinstance", "if not isinstance", VA)
mut("ind-se-limit-slack-cap", F["serial"], "MAX_LIMIT_SLACK = 0.1", "MAX_LIMIT_SLACK = 10.0", SE)
mut("ind-tf-rotation-tol-cap", F["transforms"], "MAX_ROTATION_TOL = 1e-2", "MAX_ROTATION_TOL = 1.0", TF)
mut("ind-ct-friction-smoothing", F["control"], "V_EPS = 0.01", "V_EPS = 1.0", CT)
mut("ind-ct-steps-cap", F["control"], "MAX_STEPS = 10**8", "MAX_STEPS = 10**14", CT)
mut(
    "ind-mc-wheel-sign",
    F["mecanum"],
    "y = np.array([1.0, -1.0, 1.0, -1.0]) * self.ly",
    "y = np.array([1.0, 1.0, -1.0, -1.0]) * self.ly",
    MC,
)

# ---- second pass (issue 29): parameter files, command line, C generator, verdict guards ---------------------------
# Written from the package source only, without reading tests/test_params.py, test_checks.py, test_errors_validate.py,
# test_reports.py or the firmware tests.
PA = ["tests/test_params.py", "robokin/params/__init__.py", "robokin/params/_fields.py"]
# the command line in-process, then end to end (only test_reports.py's command-line tests: the rest renders reports)
CL = [
    "tests/test_cli.py",
    "tests/test_reports.py::test_cli_report_passes_and_fails_with_the_exit_status",
    "tests/test_reports.py::test_cli_bad_file_and_list",
    "tests/test_verify.py",
]
FW = ["tests/test_codegen.py", "tests/test_firmware.py"]
VE = ["tests/test_errors_validate.py", "robokin/_validate.py"]
FLD, FAM, PI_ = "robokin/params/_fields.py", "robokin/params/families.py", "robokin/params/__init__.py"

mut("ind2-pa-mm-factor", FLD, '"length": {"m": 1.0, "mm": 1e-3}', '"length": {"m": 1.0, "mm": 1e-2}', PA)
mut("ind2-pa-deg-factor", FLD, '"deg": math.pi / 180.0', '"deg": 180.0 / math.pi', PA)
mut(
    "ind2-pa-positive-zero",
    FLD,
    '"positive": (v <= 0, "a positive value")',
    '"positive": (v < 0, "a positive value")',
    PA,
)
mut(
    "ind2-pa-unit-interval-zero",
    FLD,
    '"unit_interval": ((v <= 0) | (v > 1)',
    '"unit_interval": ((v < 0) | (v > 1)',
    PA,
)
mut("ind2-pa-two-units", FLD, "if len(present) > 1:", "if len(present) > 2:", PA)
mut(
    "ind2-pa-integer-bool",
    FLD,
    "if isinstance(raw, bool) or not isinstance(raw, int):",
    "if not isinstance(raw, int):",
    PA,
)
mut("ind2-pa-numeric-bool", FLD, "    if isinstance(raw, bool):\n        return False\n", "", PA)
mut("ind2-pa-magnitude", FLD, "np.any(np.abs(arr) > 1e12)", "np.any(np.abs(arr) > 1e300)", PA)
mut("ind2-pa-family-asked", PI_, "if family is not None and fam != family:", "if family is None and fam != family:", PA)
mut("ind2-pa-leg-limit-range", FAM, "np.any(np.abs(v) > np.pi + 1e-12)", "np.any(np.abs(v) > 2 * np.pi + 1e-12)", PA)
mut(
    "ind2-pa-leg-limit-order",
    FAM,
    "if lo is not None and hi is not None and not np.all(lo < hi):",
    "if lo is not None and hi is not None and not np.any(lo < hi):",
    PA,
)
mut("ind2-pa-legs-min", FAM, 'load.get("legs", 2) < 1', 'load.get("legs", 2) < 0', PA)
mut("ind2-pa-wheel-inertia", FAM, "if I_w > m_w * R * R:", "if I_w > m_w * R:", PA)
mut("ind2-pa-arm-limit-equal", FAM, "bad = np.flatnonzero(lo >= hi)", "bad = np.flatnonzero(lo > hi)", PA)
mut(
    "ind2-pa-roller-default",
    FAM,
    '"roller_angle": ch.get("roller_angle", np.pi / 4)',
    '"roller_angle": ch.get("roller_angle", np.pi / 3)',
    PA,
)
mut("ind2-pa-com-on-link", FAM, "if v[c] > v[l]:", "if v[c] > 2 * v[l]:", PA)
mut("ind2-pa-decimals-min", FAM, "if not 1 <= dec <= 12:", "if not 0 <= dec <= 12:", PA)
mut("ind2-pa-decimals-default", FAM, 'plan.get("decimals", 4)', 'plan.get("decimals", 6)', PA)
mut(
    "ind2-pa-wl-gravity-default",
    FAM,
    'g = 9.81 if env is None else env.get("gravity", 9.81)',
    'g = 9.81 if env is None else env.get("gravity", 0.0)',
    PA,
)
mut("ind2-pa-stroke-order", FAM, "if not smin < smax:", "if not smin <= smax:", PA)
mut(
    "ind2-pa-cd-min",
    FAM,
    "cd_min, cd_max = max(0.0, d - l1 - l2, abs(l1 - l2) - d), d + l1 + l2",
    "cd_min, cd_max = max(0.0, d - l1 - l2), d + l1 + l2",
    PA,
)
mut("ind2-pa-start-limits", FAM, "if not bool(arm.mechanism.within_limits(q0)):", "if False:", PA)

# command line
mut("ind2-cli-exit-fail", "robokin/cli.py", "return 1 if failed else 0", "return 0", CL)
mut(
    "ind2-cli-fail-status",
    "robokin/cli.py",
    'failed = [r for r in rows if r["status"] == "FAIL"]',
    'failed = [r for r in rows if r["status"] == "fail"]',
    CL,
)
mut(
    "ind2-cli-bad-file-status",
    "robokin/cli.py",
    'except params.ParameterFileError as exc:\n        print(f"error: {exc}", file=sys.stderr)\n        return 2',
    'except params.ParameterFileError as exc:\n        print(f"error: {exc}", file=sys.stderr)\n        return 1',
    CL,
)
mut("ind2-cli-validate-word", "robokin/cli.py", 'argv[1:] if argv[:1] == ["validate"] else argv', "argv", CL)
mut("ind2-cli-family-check", "robokin/cli.py", "if family not in render.FAMILIES_WITH_REPORT:", "if False:", CL)

# C generator
mut(
    "ind2-cg-rel-double",
    "robokin/codegen/__init__.py",
    '{"d": "1e-12", "f": "5e-7F"}',
    '{"d": "1e-9", "f": "5e-7F"}',
    FW,
)
mut(
    "ind2-cg-sing-double",
    "robokin/codegen/__init__.py",
    '{"d": "1e-7", "f": "1e-2F"}',
    '{"d": "1e-5", "f": "1e-2F"}',
    FW,
)
mut(
    "ind2-cg-positive-param",
    "robokin/codegen/_emit.py",
    "if (!(prm->{f} > 0)) return RK_BAD_ARGUMENT;",
    "if (!(prm->{f} >= 0)) return RK_BAD_ARGUMENT;",
    FW,
)
mut(
    "ind2-cg-nonfinite-output",
    "robokin/codegen/_emit.py",
    "if (!isfinite(res[i])) return RK_NONFINITE_OUTPUT;",
    "if (0) return RK_NONFINITE_OUTPUT;",
    FW,
)
mut(
    "ind2-cg-nonfinite-input",
    "robokin/codegen/_emit.py",
    "if (!isfinite({a.name}[i])) return RK_NONFINITE_INPUT;",
    "if (0) return RK_NONFINITE_INPUT;",
    FW,
)
mut(
    "ind2-cg-typeII-scale",
    "robokin/codegen/kinematics.py",
    "sp.Abs(det_s) > SING * l3 * l4,",
    "sp.Abs(det_s) > SING * l3,",
    FW,
)
mut(
    "ind2-cg-leg2-far",
    "robokin/codegen/kinematics.py",
    'Check(omc >= -REL, "RK_UNREACHABLE"',
    'Check(omc >= -1e3 * REL, "RK_UNREACHABLE"',
    FW,
)

# shared tolerance guards (_validate)
mut("ind2-va-tol-max", "robokin/_validate.py", "    if v > max:\n", "    if v > 10 * max:\n", VE)
mut(
    "ind2-va-tol-zero",
    "robokin/_validate.py",
    "if not np.isfinite(v) or v < 0 or (v == 0 and not allow_zero):",
    "if not np.isfinite(v) or v < 0:",
    VE,
)
mut(
    "ind2-va-tol-min",
    "robokin/_validate.py",
    "if v < min and not (allow_zero and v == 0):",
    "if v < min / 10 and not (allow_zero and v == 0):",
    VE,
)
mut("ind2-va-max-atol", "robokin/_validate.py", "MAX_ATOL = 1.0", "MAX_ATOL = 1e3", VE)
mut(
    "ind2-va-min-rtol",
    "robokin/_validate.py",
    "MIN_RTOL = 100 * np.finfo(float).eps",
    "MIN_RTOL = np.finfo(float).eps",
    VE,
)
mut("ind2-va-max-cond", "robokin/_validate.py", "MAX_COND = 1e16", "MAX_COND = 1e20", VE)
mut(
    "ind2-va-flat-body",
    "robokin/_validate.py",
    "tri = lam[:, 0] + lam[:, 1] < lam[:, 2] - slack",
    "tri = lam[:, 0] + lam[:, 1] < lam[:, 2] + slack",
    VE,
)
mut(
    "ind2-va-inertia-psd",
    "robokin/_validate.py",
    "neg = lam[:, 0] < -slack",
    "neg = lam[:, 0] < -1e3 * slack",
    VE,
    equivalent="for sorted moments lam0 + lam1 - lam2 <= lam0, so lam0 < -slack already violates the triangle "
    "inequality: the tensor is still refused with a ValueError naming it (only the stated reason differs)",
)

# checks: verdicts
CK = "robokin/checks.py"
mut("ind2-ch-nan-passes", CK, "e = np.where(np.isnan(e), np.inf, e)", "e = np.where(np.isnan(e), 0.0, e)", CH)
mut(
    "ind2-ch-passed-strict", CK, "return bool(self.max_error <= self.tol)", "return bool(self.max_error < self.tol)", CH
)
mut("ind2-ch-max-tol", CK, "MAX_TOL = MAX_ABS", "MAX_TOL = 1e300", CH)
mut(
    "ind2-ch-rigid-tol-cap",
    CK,
    '    tol = _check_tol(tol, max_tol=MAX_REL_TOL)\n    name, _, raise_on_fail = _labels(name, "", raise_on_fail)\n    T = ',
    '    tol = _check_tol(tol)\n    name, _, raise_on_fail = _labels(name, "", raise_on_fail)\n    T = ',
    CH,
)
mut("ind2-ch-rigid-det", CK, "err = np.maximum(err, np.abs(np.linalg.det(R) - 1))", "err = err", CH)
mut("ind2-ch-rigid-bottom-row", CK, "- [0, 0, 0, 1]).max(axis=-1))", "- T[..., 3, :]).max(axis=-1))", CH)
mut("ind2-ch-rate-lower", CK, "lower = _rate_lower(k, n, alpha)", "lower = k / n", CH)
mut("ind2-ch-rate-beta", CK, "beta.ppf(alpha, k, n - k + 1)", "beta.ppf(alpha, k, n - k)", CH)
mut("ind2-ch-rate-one", CK, "if max_rate >= 1:", "if max_rate > 1:", CH)
mut("ind2-ch-cp-two-sided", CK, "a = (1 - confidence) / 2", "a = 1 - confidence", CH)
mut("ind2-ch-answer-atol-cap", CK, "max_tol=max(MAX_REL_TOL * ref, 1e-6)", "max_tol=max(ref, 1e-6)", CH)
mut("ind2-ch-answer-deg-swap", CK, "if close(np.deg2rad(v)):", "if close(np.rad2deg(v)):", CH)
mut("ind2-ch-residual-scale", CK, "axis=-1) / float(sc)", "axis=-1) * float(sc)", CH)
mut(
    "ind2-ch-scale-zero",
    CK,
    "np.all(np.isfinite(sc)) and np.all(sc > 0)",
    "np.all(np.isfinite(sc)) and np.all(sc >= 0)",
    CH,
)
mut("ind2-ch-fd-round-away", CK, "np.any((x + eps) - x < 0.5 * eps)", "np.any((x + eps) - x < 0.0 * eps)", CH)

MUTATIONS = M
