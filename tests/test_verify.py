"""python -m robokin verify: the checker names each shipped wrong implementation and passes the correct ones."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from robokin import params
from robokin.params.verify import load_impl, verify

FIX = Path(__file__).resolve().parent / "verify_fixtures"
LEG = params.load(params.EXAMPLES / "leg2_ch02.toml")
FIVEBAR = params.load(params.EXAMPLES / "fivebar_ch03.toml")
M = FIX / "leg_mistakes.py"

#: (design, spec, kind, the mistake the checker must name, the input range text it must give)
WRONG = [
    (LEG, f"{M}:ik_degrees", "ik", "degrees for radians", ""),
    (LEG, f"{M}:ik_swapped", "ik", "swapped lengths (l1 and l2)", ""),
    (LEG, f"{M}:ik_sign", "ik", "wrong sign convention of theta1 (measured from the forward horizontal)", ""),
    (LEG, f"{M}:ik_branch", "ik", "branch mismatch", "x in [-0.39"),
    (LEG, f"{M}:ik_nowrap", "ik", "missing wrap", ""),
    (LEG, f"{M}:ik_atan", "ik", "atan with a case split", "only at x = 0 exactly"),
    (LEG, str(FIX / "leg_ik_matlab_degrees.csv"), "ik", "degrees for radians", "120 of 120 inputs"),
    (LEG, f"{M}:fk_degrees", "fk", "degrees for radians", ""),
    (LEG, f"{M}:jacobian_transposed", "jacobian", "transposed Jacobian", ""),
    (FIVEBAR, f"{FIX / 'fivebar_ik.py'}:ik_branch", "ik", "branch mismatch", "x in [0.035"),
]
ARM = params.load(params.EXAMPLES / "contest_arm_mdh.toml")
AC = FIX / "arm_contest.py"
WRONG += [
    (ARM, f"{AC}:fk_standard_wrong", "fk", "convention mix-up (the modified-DH table used with standard-DH", ""),
    (ARM, f"{AC}:fk_no_tool_wrong", "fk", "tool transform ignored", "500 of 500"),
    (ARM, f"{AC}:fk_degrees_wrong", "fk", "degrees for radians", ""),
    (ARM, f"{AC}:ik_flange_wrong", "ik", "tool transform ignored", ""),
]
# the vector-map families: Stewart leg lengths, mecanum wheel speeds, the wheel-leg's virtual leg, arm Jacobians
STEWART = params.load(params.EXAMPLES / "stewart_ch09.toml")
MECANUM = params.load(params.EXAMPLES / "mecanum_ch08.toml")
MECANUM30 = params.load(FIX / "mecanum_30deg.toml")
WHEEL_LEG = params.load(params.EXAMPLES / "wheel_leg_ch04.toml")
SL, MM, WL = FIX / "stewart_legs.py", FIX / "mecanum_mistakes.py", FIX / "wheel_leg_mistakes.py"
WRONG += [
    (STEWART, f"{SL}:ik_eul2rotm_order_wrong", "ik", "eul2rotm argument order", "442 of 442"),
    (STEWART, f"{SL}:ik_rowcol_wrong", "ik", "anchor row/column bug (a 6x3 row-per-leg anchor table read as 3x6)", ""),
    (STEWART, f"{SL}:ik_transposed_wrong", "ik", "rotation transposed", ""),
    (STEWART, f"{SL}:ik_extension_wrong", "ik", "actuator extension instead of leg length", ""),
    (MECANUM, f"{MM}:ik_roller_sign_wrong", "ik", "roller sign", "500 of 500"),
    (MECANUM, f"{MM}:ik_xy_swapped_wrong", "ik", "contact coordinates swapped", ""),
    (MECANUM, f"{MM}:ik_clockwise_wrong", "ik", "clockwise wheel numbering", ""),
    (MECANUM, str(FIX / "mecanum_ik_firmware_roller_sign.csv"), "ik", "roller sign", "60 of 60"),
    (MECANUM, f"{MM}:fk_three_wheels_wrong", "fk", "FK from three wheels", "250 of 500"),
    (MECANUM30, f"{MM}:ik30_lxly_swapped_wrong", "ik", "swapped lx and ly", ""),
    (WHEEL_LEG, f"{WL}:fk_motor1_wrong", "fk", "leg measured from motor 1", ""),
    (WHEEL_LEG, f"{WL}:fk_vertical_wrong", "fk", "leg angle from the downward vertical", ""),
    (WHEEL_LEG, f"{WL}:fk_degrees_wrong", "fk", "degrees for radians", ""),
    (WHEEL_LEG, f"{WL}:jacobian_foot_wrong", "jacobian", "foot Jacobian d(x, y)/dq", ""),
    (WHEEL_LEG, f"{WL}:ik_branch_wrong", "ik", "branch mismatch", "phi0 in [-2.066, -1.572]"),
    (WHEEL_LEG, f"{WL}:ik_motor1_wrong", "ik", "leg measured from motor 1", ""),
    (WHEEL_LEG, f"{WL}:ik_degrees_wrong", "ik", "degrees for radians", ""),
    (ARM, f"{AC}:jacobian_omega_first_wrong", "jacobian", "rows [omega; v]", ""),
    (ARM, f"{AC}:jacobian_flange_wrong", "jacobian", "tool transform ignored", ""),
    (ARM, f"{AC}:jacobian_body_wrong", "jacobian", "tool-frame (body) Jacobian", ""),
]
# the five-bar's wrong Jacobians (the swapped-length hypotheses' FK is NaN where those linkages cannot close: the
# check must name the mistake, not stop), the other assembly mode, consistent non-default working modes, refusals
FM = FIX / "fivebar_mistakes.py"
WRONG += [
    (FIVEBAR, f"{FM}:jacobian_transposed_wrong", "jacobian", "transposed Jacobian", "509 of 509"),
    (FIVEBAR, f"{FM}:jacobian_degrees_wrong", "jacobian", "degrees for radians", "509 of 509"),
    (FIVEBAR, f"{FM}:jacobian_inverted_wrong", "jacobian", "inverse Jacobian", "509 of 509"),
    (FIVEBAR, f"{FM}:fk_up_wrong", "fk", "assembly mode 'up'", "509 of 509"),
    (FIVEBAR, f"{FM}:ik_in_wrong", "ik", "working mode 'in' everywhere; the course's FK (assembly 'down') expects", ""),
    (FIVEBAR, f"{FM}:ik_out_in_wrong", "ik", "working mode 'out-in' everywhere", ""),
    (FIVEBAR, f"{FM}:ik_ydown_wrong", "ik", "working mode 'in' everywhere", ""),
    (FIVEBAR, f"{FM}:ik_refuses_wrong", "ik", "refuses reachable targets (250 of 509)", "x in [0.035"),
]
RIGHT = [
    (FIVEBAR, f"{FM}:jacobian", "jacobian"),
    (FIVEBAR, f"{FM}:ik_float32", "ik"),
    (LEG, f"{FIX / 'leg_ik_correct.py'}:ik_float32", "ik"),
    (LEG, "course", "ik"),
    (LEG, "course", "fk"),
    (LEG, "course", "jacobian"),
    (LEG, f"{FIX / 'leg_ik_correct.py'}:ik", "ik"),
    (LEG, f"{FIX / 'leg_ik_correct.py'}:fk", "fk"),
    (LEG, f"{FIX / 'leg_ik_correct.py'}:jacobian", "jacobian"),
    (FIVEBAR, "course", "ik"),
    (FIVEBAR, "course", "jacobian"),
    (FIVEBAR, f"{FIX / 'fivebar_ik.py'}:ik", "ik"),
    (ARM, "course", "fk"),
    (ARM, "course", "ik"),
    (ARM, f"{AC}:fk", "fk"),
    (ARM, f"{AC}:ik", "ik"),
    (ARM, "course", "jacobian"),
    (ARM, f"{AC}:jacobian", "jacobian"),
    (STEWART, "course", "ik"),
    (STEWART, f"{SL}:ik", "ik"),
    (MECANUM, "course", "ik"),
    (MECANUM, "course", "fk"),
    (MECANUM, f"{MM}:ik", "ik"),
    (MECANUM, f"{MM}:fk", "fk"),
    # with 45 degree rollers lx and ly enter only as lx + ly: the swap changes no wheel speed, so it passes
    (MECANUM, f"{MM}:ik_lxly_swapped_45", "ik"),
    (MECANUM30, f"{MM}:ik30", "ik"),
    (WHEEL_LEG, "course", "ik"),
    (WHEEL_LEG, "course", "fk"),
    (WHEEL_LEG, "course", "jacobian"),
    (WHEEL_LEG, f"{WL}:ik", "ik"),
    (WHEEL_LEG, f"{WL}:fk", "fk"),
    (WHEEL_LEG, f"{WL}:jacobian", "jacobian"),
]


@pytest.mark.parametrize(
    ("design", "spec", "kind", "mistake", "where"), WRONG, ids=[w[1].split("/")[-1] for w in WRONG]
)
def test_checker_names_the_mistake(design, spec, kind, mistake, where):
    rep = verify(design, load_impl(spec, kind, design), kind=kind, fast=True)
    assert not rep.passed
    names = [f.mistake for f in rep.findings]
    assert any(n.startswith(mistake) for n in names), (names, str(rep))
    hit = next(f for f in rep.findings if f.mistake.startswith(mistake))
    assert where in hit.where and hit.explained >= 0.5 and hit.fix
    # the one named is the best explanation: no other finding explains more
    assert hit.explained >= max(f.explained for f in rep.findings)
    assert mistake in str(rep)


@pytest.mark.parametrize(("design", "spec", "kind"), RIGHT, ids=[f"{r[1].split('/')[-1]}-{r[2]}" for r in RIGHT])
def test_checker_passes_correct_implementations(design, spec, kind):
    rep = verify(design, load_impl(spec, kind, design), kind=kind, fast=True)
    assert rep.passed and not rep.findings, str(rep)


def test_a_correct_csv_passes(tmp_path):
    # the MATLAB fixture converted back to radians is a correct export
    rows = (FIX / "leg_ik_matlab_degrees.csv").read_text().splitlines()
    out = [rows[0]]
    for r in rows[1:]:
        x, y, a, b = (float(v) for v in r.split(","))
        out.append(f"{x!r},{y!r},{float(np.deg2rad(a))!r},{float(np.deg2rad(b))!r}")
    (tmp_path / "ok.csv").write_text("\n".join(out) + "\n")
    rep = verify(LEG, load_impl(str(tmp_path / "ok.csv"), "ik", LEG), kind="ik")
    # 6 printed decimals of a degree: ~1e-8 rad, inside the scan's 1e-6 of the leg length
    assert rep.passed and rep.samples == 120, str(rep)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_c_library_correct_and_degrees(tmp_path):
    src = FIX / "fivebar_ik.c"
    ok, bad = tmp_path / "libfb.so", tmp_path / "libfb_deg.so"
    for out, flags in ((ok, []), (bad, ["-DWRONG_DEGREES"])):
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", *flags, "-o", str(out), str(src), "-lm"], check=True)
    assert verify(FIVEBAR, load_impl(str(ok), "ik", FIVEBAR), kind="ik", fast=True).passed
    rep = verify(FIVEBAR, load_impl(str(bad), "ik", FIVEBAR), kind="ik", fast=True)
    assert not rep.passed and rep.findings[0].mistake.startswith("degrees for radians")
    # and through the command line, with its exit status
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "robokin",
            "verify",
            "fivebar",
            str(params.EXAMPLES / "fivebar_ch03.toml"),
            "--impl",
            str(bad),
            "--fast",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 1 and "degrees for radians" in r.stdout
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "robokin",
            "verify",
            "fivebar",
            str(params.EXAMPLES / "fivebar_ch03.toml"),
            "--impl",
            str(ok),
            "--symbol",
            "robokin_ik",
            "--fast",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0 and "[PASS]" in r.stdout


def test_bad_impl_specs_are_clear_errors(tmp_path):
    for spec, msg in (
        ("no_such_module_xyz:ik", "cannot import"),
        (f"{M}:no_such_function", "no function"),
        (str(tmp_path / "missing.csv"), "no such CSV"),
        ("plainword", "--impl must be"),
        (str(tmp_path / "missing.so"), "cannot load"),
    ):
        with pytest.raises(ValueError, match=msg):
            load_impl(spec, "ik", LEG)
    (tmp_path / "bad.csv").write_text("a,b,c,d\n1,2,3,4\n")
    with pytest.raises(ValueError, match="header"):
        load_impl(str(tmp_path / "bad.csv"), "ik", LEG)
    (tmp_path / "boom.py").write_text("raise RuntimeError('reader bug')\n")
    with pytest.raises(ValueError, match="reader bug"):
        load_impl(f"{tmp_path / 'boom.py'}:ik", "ik", LEG)
    with pytest.raises(ValueError, match="kind"):
        load_impl("course", "hessian", LEG)
    with pytest.raises(ValueError, match="two_link_leg, fivebar, serial_arm, stewart, mecanum, wheel_leg"):
        verify(params.load(params.EXAMPLES / "arm2_ch11.toml"), None)
    with pytest.raises(ValueError, match="give the task's arm file"):
        load_impl("course", "ik", params.load(params.EXAMPLES / "contest_gripper_task.toml"))
    with pytest.raises(ValueError, match="Stewart platform's ik"):
        load_impl("course", "fk", STEWART)
    with pytest.raises(ValueError, match="mecanum chassis' ik"):
        load_impl("course", "jacobian", MECANUM)
    (tmp_path / "short.py").write_text("def ik(pose):\n    return [1.0, 2.0]\n")
    with pytest.raises(ValueError, match="returned 2 numbers, expected 6"):
        verify(STEWART, load_impl(f"{tmp_path / 'short.py'}:ik", "ik", STEWART), kind="ik", fast=True)


def test_every_vector_map_hypothesis_differs_from_the_course():
    """Every hypothesis is detectable: it differs from the course's answer on at least half of the sampled inputs."""
    from robokin.params import _maps
    from robokin.params.verify import _arm_variants

    rng = np.random.default_rng(1)
    for design, kinds in ((STEWART, ["ik"]), (MECANUM, ["ik", "fk"]), (WHEEL_LEG, ["ik", "fk", "jacobian"])):
        for kind in kinds:
            spec = _maps.spec_for(design, kind)
            X = spec.sample(rng, 50)
            C = spec.course(X)
            for name, cand, _ in spec.hypotheses(X):
                e = _maps._row_err(C[:, 0], cand, spec).min(-1)
                assert np.mean(e > 1e-6) >= 0.5, (design.family, kind, name)
    spec = _maps.spec_for(ARM, "jacobian", _arm_variants(ARM))
    X = spec.sample(rng, 50)
    for name, cand, _ in spec.hypotheses(X):
        assert np.mean(_maps._row_err(spec.course(X)[:, 0], cand, spec).min(-1) > 1e-6) >= 0.5, name


def _anchors_define():
    def table(A):
        return "{" + ",".join("{" + ",".join(repr(float(v)) for v in r) + "}" for r in A.T) + "}"

    return f"-DANCHORS={table(STEWART.mechanism.base)},{table(STEWART.mechanism.top)}"


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_stewart_c_library_correct_and_eul2rotm_order(tmp_path):
    src = FIX / "stewart_ik.c"
    ok, bad = tmp_path / "libst.so", tmp_path / "libst_eul.so"
    for out, flags in ((ok, []), (bad, ["-DWRONG_EUL_ORDER"])):
        subprocess.run(
            [
                "gcc",
                "-std=c99",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-O2",
                "-shared",
                "-fPIC",
                _anchors_define(),
                *flags,
                "-o",
                str(out),
                str(src),
                "-lm",
            ],
            check=True,
        )
    assert verify(STEWART, load_impl(str(ok), "ik", STEWART), kind="ik", fast=True).passed
    r = subprocess.run(
        [sys.executable, "-m", "robokin", "verify", "stewart", str(STEWART.source), "--impl", str(bad), "--fast"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 1 and "looks like: eul2rotm argument order" in r.stdout, r.stdout + r.stderr


def test_correct_exports_pass_for_the_new_families(tmp_path):
    """A CSV written from a correct implementation passes (the roller-sign fixture is the only wrong CSV)."""
    sys.path.insert(0, str(FIX))
    try:
        import mecanum_mistakes as mm
        import wheel_leg_mistakes as wl
    finally:
        sys.path.remove(str(FIX))
    rng = np.random.default_rng(5)
    T = rng.uniform(-1, 1, (40, 3))
    (tmp_path / "m.csv").write_text(
        "vx,vy,omega,w_fl,w_fr,w_rl,w_rr\n"
        + "".join(",".join(repr(float(v)) for v in [*t, *mm.ik(*t)]) + "\n" for t in T)
    )
    rep = verify(MECANUM, load_impl(str(tmp_path / "m.csv"), "ik", MECANUM), kind="ik")
    assert rep.passed and rep.samples == 40, str(rep)
    Q = [(0.3 * i - 0.5, -2.4 + 0.1 * i) for i in range(8)]
    rows = [(*q, *wl.fk(*q)) for q in Q if wl.fk(*q) is not None]
    (tmp_path / "w.csv").write_text(
        "theta1,theta2,L0,phi0\n" + "".join(",".join(repr(float(v)) for v in r) + "\n" for r in rows)
    )
    rep = verify(WHEEL_LEG, load_impl(str(tmp_path / "w.csv"), "fk", WHEEL_LEG), kind="fk")
    assert rep.passed and rep.samples == len(rows) >= 4, str(rep)


# ---- review findings (stop 38): a branch outside the limits, the wrap share, the reader's own exceptions ----------
LEG_LIMITED = params.load(params.EXAMPLES / "leg2_limited_ch02.toml")


def test_the_other_knee_outside_the_limits_is_named():
    rep = verify(LEG_LIMITED, load_impl(f"{M}:ik_knee_front", "ik", LEG_LIMITED), kind="ik", fast=True)
    assert not rep.passed
    assert "a branch outside the joint limits" in str(rep), str(rep)
    # without limits the same code is a consistent, legal branch: it passes
    assert verify(LEG, load_impl(f"{M}:ik_knee_front", "ik", LEG), kind="ik", fast=True).passed


def test_the_wrap_finding_explains_all_its_failures():
    rep = verify(LEG, load_impl(f"{M}:ik_nowrap", "ik", LEG), kind="ik", fast=True)
    wrap = [f for f in rep.findings if f.mistake.startswith("missing wrap")]
    assert wrap and wrap[0].explained == 1.0, [(f.mistake, f.explained) for f in rep.findings]
    assert "angle range:" in str(rep)


def test_the_readers_exceptions_are_shown():
    rep = verify(LEG, load_impl(f"{M}:ik_raises", "ik", LEG), kind="ik", fast=True)
    assert not rep.passed and "your code raised" in str(rep) and "boom: my solver gave up" in str(rep)
    with pytest.raises(ValueError, match="raised TypeError"):
        verify(LEG, load_impl(f"{M}:ik_typo", "ik", LEG), kind="ik", fast=True)


# ---- review findings (stop 41): the angle convention, the leg's x,z header, one explanation function ----------------
@pytest.mark.parametrize(("design", "spec"), [(LEG, f"{M}:ik_0_2pi"), (FIVEBAR, f"{FIX / 'fivebar_ik.py'}:ik_0_2pi")])
def test_angles_in_0_2pi_are_named_as_the_wrap(design, spec):
    """Right answers wrapped into [0, 2 pi): one finding, the wrap, explaining every failure, and the range shown."""
    rep = verify(design, load_impl(spec, "ik", design), kind="ik", fast=True)
    assert not rep.passed
    assert [f.mistake for f in rep.findings] == ["missing wrap (angles in [0, 2 pi) instead of [-pi, pi])"], str(rep)
    assert rep.findings[0].explained == 1.0 and "(q + pi) % (2 pi) - pi" in rep.findings[0].fix
    assert "answers outside [-pi, pi]" in str(rep) and "your angles span [0" in str(rep)
    # the same code with the wrap passes: the range is the whole finding
    assert rep.max_error <= 1e-12


def test_plus_pi_is_inside_the_convention(tmp_path):
    """[-pi, pi] is closed: atan2's +pi passes (the old check, [-pi, pi), refused it); pi + 0.1 rad does not."""
    m = LEG.mechanism
    qs = [(np.pi, 0.5), (np.pi, 1.0), (-np.pi, 0.7), (0.3, 1.2)]
    rows = ["x,z,q1,q2"] + [",".join(repr(float(v)) for v in (*m.fk(q), *q)) for q in qs]
    (tmp_path / "pi.csv").write_text("\n".join(rows) + "\n")
    rep = verify(LEG, load_impl(str(tmp_path / "pi.csv"), "ik", LEG), kind="ik")
    assert rep.passed and rep.samples == 4, str(rep)
    q = (-np.pi + 0.1, 0.5)  # the right hip angle -pi + 0.1 returned as pi + 0.1: outside by 0.1 rad
    rows[1] = ",".join(repr(float(v)) for v in (*m.fk(q), q[0] + 2 * np.pi, q[1]))
    (tmp_path / "out.csv").write_text("\n".join(rows) + "\n")
    rep = verify(LEG, load_impl(str(tmp_path / "out.csv"), "ik", LEG), kind="ik")
    assert not rep.passed and rep.findings[0].mistake == "missing wrap (angles outside [-pi, pi])", str(rep)
    assert "1 answers outside" in str(rep)


@pytest.mark.parametrize("frame", ["x,z", "x,y"])
def test_the_leg_csv_takes_x_z_or_x_y(tmp_path, frame):
    """The leg's hip frame is [x, z]: x,z,q1,q2 is the header; x,y,q1,q2 (the planar name) is accepted too."""
    m = LEG.mechanism
    Q = [(0.1 * i - 0.4, 0.3 + 0.2 * i) for i in range(8)]
    (tmp_path / "ik.csv").write_text(
        f"{frame},q1,q2\n" + "".join(",".join(repr(float(v)) for v in (*m.fk(q), *q)) + "\n" for q in Q)
    )
    rep = verify(LEG, load_impl(str(tmp_path / "ik.csv"), "ik", LEG), kind="ik")
    assert rep.passed and rep.samples == 8, str(rep)
    (tmp_path / "fk.csv").write_text(
        f"q1,q2,{frame}\n" + "".join(",".join(repr(float(v)) for v in (*q, *m.fk(q))) + "\n" for q in Q)
    )
    rep = verify(LEG, load_impl(str(tmp_path / "fk.csv"), "fk", LEG), kind="fk")
    assert rep.passed and rep.samples == 8, str(rep)


def test_a_wrong_csv_header_names_the_accepted_ones(tmp_path):
    (tmp_path / "bad.csv").write_text("x,y,z,q1,q2\n0.1,0,-0.3,0.1,0.2\n")
    with pytest.raises(ValueError, match=r"header must start with x,z,q1,q2 \(or x,y,q1,q2\) for ik, got x,y,z,q1,q2"):
        load_impl(str(tmp_path / "bad.csv"), "ik", LEG)
    with pytest.raises(ValueError, match=r"header must start with q1,q2,x,z \(or q1,q2,x,y\) for fk"):
        load_impl(str(tmp_path / "bad.csv"), "fk", LEG)
    # the five-bar's motor frame is [x, y] only: x,z is not its header
    (tmp_path / "fb.csv").write_text("x,z,q1,q2\n0.03,-0.1,1.0,2.0\n")
    with pytest.raises(ValueError, match=r"header must start with x,y,q1,q2 for ik, got x,z,q1,q2$"):
        load_impl(str(tmp_path / "fb.csv"), "ik", FIVEBAR)
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(ValueError, match="got an empty file"):
        load_impl(str(tmp_path / "empty.csv"), "ik", LEG)


def test_the_leg_findings_name_the_hip_frame():
    """A leg's input ranges are in its hip frame [x, z], a five-bar's in the motor frame [x, y]."""
    rep = verify(LEG, load_impl(f"{M}:ik_branch", "ik", LEG), kind="ik", fast=True)
    assert ", z in [" in rep.findings[0].where and ", y in [" not in rep.findings[0].where
    rep = verify(FIVEBAR, load_impl(f"{FIX / 'fivebar_ik.py'}:ik_branch", "ik", FIVEBAR), kind="ik", fast=True)
    assert ", y in [" in rep.findings[0].where


def test_one_explanation_function_for_ik_fk_and_jacobian():
    """Without dedup all findings in order; with it, mistakes predicting the same answers are one finding naming
    both (the checker cannot tell them apart), and at most ``top``."""
    from robokin.params import verify as v

    assert not hasattr(v, "_explain_ik")
    X = np.array([[0.1, -0.3], [0.2, -0.3], [0.0, -0.3]])
    bad = np.array([True, True, True])
    hyp = [("a", bad, "fa"), ("b", bad, "fb"), ("c", bad & [1, 1, 0], "fc")]
    assert [f.mistake for f in v._explain(hyp, X, bad, ("x", "z"), fallback="?")] == ["a", "b", "c"]
    top = v._explain(hyp, X, bad, ("x", "z"), fallback="?", dedup=True, top=2)
    assert [(f.mistake, round(f.explained, 3)) for f in top] == [
        ("a, or b (these predict the same answers here)", 1.0),
        ("c", 0.667),
    ]
    assert top[0].fix == "fa; or fb"


PAGE = Path(__file__).resolve().parents[1] / "book" / "your_robot.md"


def page_exit_statuses():
    """The exit-status table of book/your_robot.md: {status: (report's meaning, verify's meaning)}."""
    rows = re.findall(r"^\| ([0-9]) \| (.+?) \| (.+?) \|$", PAGE.read_text(encoding="utf-8"), re.M)
    return {int(code): (rep, ver) for code, rep, ver in rows}


def test_the_page_states_the_exit_statuses_verify_returns(tmp_path, capsys):
    """Each exit status of the page's table is what `python -m robokin verify` returns for that case."""
    from robokin import cli

    page = page_exit_statuses()
    assert sorted(page) == [0, 1, 2]
    leg = str(params.EXAMPLES / "leg2_ch02.toml")

    def run(*argv):
        try:
            return cli.main(["verify", *argv])
        except SystemExit as exc:  # argparse's usage error
            return exc.code

    assert "passes" in page[0][1] and run("two_link_leg", leg, "--impl", f"{FIX / 'leg_ik_correct.py'}:ik") == 0
    assert "a check fails" in page[1][1] and run("two_link_leg", leg, "--impl", f"{M}:ik_0_2pi", "--fast") == 1
    # a ValueError of the reader's code is a refusal of that input: a failing check, not a crash
    assert "count as refusing" in page[2][1] and run("two_link_leg", leg, "--impl", f"{M}:ik_raises", "--fast") == 1
    (tmp_path / "bad.csv").write_text("a,b,c,d\n1,2,3,4\n")
    for case, argv in (
        ("a bad parameter file", ("two_link_leg", str(params.EXAMPLES / "fivebar_ch03.toml"), "--impl", "course")),
        ("an unknown family", ("bogus", leg, "--impl", "course")),
        ("an unknown family", ("two_link_arm", str(params.EXAMPLES / "arm2_ch11.toml"), "--impl", "course")),
        ("a bad option", ("two_link_leg", leg, "--impl", "course", "--kind", "hessian")),
        ("cannot be loaded", ("two_link_leg", leg, "--impl", "no_such_module_xyz:ik")),
        ("another header", ("two_link_leg", leg, "--impl", str(tmp_path / "bad.csv"))),
        ("other than `ValueError`", ("two_link_leg", leg, "--impl", f"{M}:ik_typo", "--fast")),
    ):
        assert case in page[2][1], case
        assert run(*argv) == 2, case
    capsys.readouterr()


def test_the_page_states_the_angle_convention_the_check_uses():
    from robokin.params import verify as v

    text = PAGE.read_text(encoding="utf-8")
    assert "must lie in $[-\\pi, \\pi]$" in text and "`x,z,q1,q2`" in text and "`q1,q2,x,z`" in text
    assert "must lie in ``[-pi, pi]``" in v.__doc__ and v.ANGLE_TOL <= 1e-9


def _run(path, kind="ik", design=LEG):
    return verify(design, load_impl(str(path), kind, design), kind=kind)


def test_the_fivebar_up_assembly_names_both_explanations():
    """FK in the 'up' assembly predicts exactly what mirrored angles and y predict: both named, 'up' first."""
    rep = verify(FIVEBAR, load_impl(f"{FM}:fk_up_wrong", "fk", FIVEBAR), kind="fk", fast=True)
    (f,) = rep.findings
    assert f.mistake.startswith("assembly mode 'up'") and "wrong sign convention" in f.mistake
    assert "predict the same answers" in f.mistake


def test_the_y_down_fivebar_ik_is_listed_with_the_working_mode():
    for fn, ydown in (("ik_ydown_wrong", True), ("ik_in_wrong", True), ("ik_out_in_wrong", False)):
        rep = verify(FIVEBAR, load_impl(f"{FM}:{fn}", "ik", FIVEBAR), kind="ik", fast=True)
        (f,) = rep.findings
        assert ("y axis pointing down" in f.mistake) == ydown, (fn, f.mistake)
        assert "expects 'out'" in f.mistake and f.explained == 1.0


def test_float32_answers_are_matched_to_their_branch():
    """Before the branch tolerance scaled with the IK's sensitivity, 1e-6 rad failed float32 answers near stretch."""
    from robokin.params import verify as v

    rep = verify(LEG, load_impl(f"{FIX / 'leg_ik_correct.py'}:ik_float32", "ik", LEG), kind="ik")
    assert rep.passed and 1e-8 < rep.max_error < v.TOL, str(rep)
    tight = v.BRANCH_TOL
    try:
        v.BRANCH_TOL = (1e-6, 1e-6)  # the old fixed tolerance: the same answers fail
        assert not verify(LEG, load_impl(f"{FIX / 'leg_ik_correct.py'}:ik_float32", "ik", LEG), kind="ik").passed
    finally:
        v.BRANCH_TOL = tight


def test_csv_rows_with_one_input_are_all_checked(tmp_path):
    q = [float(a) for a in LEG.mechanism.ik([0.1, -0.3]).q]
    (tmp_path / "dup.csv").write_text(f"x,z,q1,q2\n0.1,-0.3,{q[0]!r},{q[1]!r}\n0.1,-0.3,{q[0] + 0.3!r},{q[1]!r}\n")
    rep = _run(tmp_path / "dup.csv")
    assert rep.samples == 2 and not rep.passed and "1 fail" in str(rep), str(rep)
    (tmp_path / "dup2.csv").write_text(f"x,z,q1,q2\n0.1,-0.3,{q[0] + 0.3!r},{q[1]!r}\n0.1,-0.3,{q[0]!r},{q[1]!r}\n")
    assert not _run(tmp_path / "dup2.csv").passed  # the wrong row first: the last row does not hide it


def test_answers_to_unreachable_targets_are_flagged(tmp_path):
    q = [float(a) for a in LEG.mechanism.ik([0.1, -0.3]).q]
    (tmp_path / "clamp.csv").write_text(f"x,z,q1,q2\n0.1,-0.3,{q[0]!r},{q[1]!r}\n0.0,-0.9,0.0,0.0\n0.0,-0.95,,\n")
    rep = _run(tmp_path / "clamp.csv")
    assert not rep.passed
    assert [f.mistake for f in rep.findings] == [
        "answers 1 unreachable target(s) (clamped acos, or no reachability check?)"
    ]
    assert "z = -0.9" in rep.findings[0].where


def test_bad_csv_and_python_answers_are_clear(tmp_path, capsys):
    (tmp_path / "head.csv").write_text("x,z,q1,q2\n\n")
    with pytest.raises(ValueError, match=r"head.csv: the file has a header \(x,z,q1,q2\) but no rows"):
        load_impl(str(tmp_path / "head.csv"), "ik", LEG)
    (tmp_path / "nan.csv").write_text("x,z,q1,q2\n0.1,-0.3,0.1,0.2\nnan,-0.3,0.1,0.2\n")
    with pytest.raises(ValueError, match="nan.csv: every row needs finite inputs .x, z.; row 3 has x=nan"):
        load_impl(str(tmp_path / "nan.csv"), "ik", LEG)
    (tmp_path / "inf.csv").write_text("x,z,q1,q2\n0.1,-0.3,inf,0.2\n0.1,-0.3,1e308,1e308\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy RuntimeWarning reaches the reader
        rep = _run(tmp_path / "inf.csv")
    assert not rep.passed and "2 fail" in str(rep)
    with pytest.raises(
        ValueError, match=r"fivebar_mistakes.py:ik_strings_wrong: returned \('0.1', '0.2'\) at input \["
    ):
        verify(FIVEBAR, load_impl(f"{FM}:ik_strings_wrong", "ik", FIVEBAR), kind="ik", fast=True)


def test_a_closed_pipe_is_no_traceback():
    cmd = [
        sys.executable,
        "-c",
        "import sys; from robokin.cli import main; sys.exit(main(sys.argv[1:]))",
        "verify",
        "fivebar",
        str(params.EXAMPLES / "fivebar_ch03.toml"),
        "--impl",
        f"{FM}:ik_in_wrong",
        "--fast",
    ]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # the reader's `| head -1` has gone before verify prints
    err = p.stderr.read().decode()
    assert p.wait() == 1 and "Traceback" not in err and "BrokenPipe" not in err, err


def test_the_report_page_title_is_the_design_name(tmp_path):
    import nbformat

    from robokin.params import render

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("report")])
    nb.metadata["papermill"] = {"parameters": {"param_file": str(params.EXAMPLES / "fivebar_ch03.toml")}}
    nbformat.write(nb, str(tmp_path / "report.ipynb"))
    html = render.to_html(tmp_path / "report.ipynb", tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<title>Chapter 3 five-bar (FIVEBAR) - robokin design report</title>" in html


def test_a_vector_map_refusal_is_its_own_finding():
    rep = verify(MECANUM, load_impl(f"{MM}:ik_refuses_reverse_wrong", "ik", MECANUM), kind="ik", fast=True)
    (f,) = rep.findings
    assert f.mistake.startswith("refuses inputs the course answers (") and f.explained == 1.0, str(rep)
    assert "vx in [-" in f.where and "none of the usual" not in str(rep)


def test_an_unexplained_arm_fk_failure_gets_the_fallback_line(tmp_path):
    (tmp_path / "eye.py").write_text("import numpy as np\n\ndef fk(q):\n    return np.eye(4)\n")
    rep = verify(ARM, load_impl(f"{tmp_path / 'eye.py'}:fk", "fk", ARM), kind="fk", fast=True)
    assert not rep.passed
    assert [f.mistake for f in rep.findings] == ["an error none of the usual mistakes explains"], str(rep)
