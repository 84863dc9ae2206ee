"""python -m robokin verify: the checker names each shipped wrong implementation and passes the correct ones."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

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
RIGHT = [
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
    import numpy as np

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
    with pytest.raises(ValueError, match="two_link_leg, fivebar and serial_arm"):
        verify(params.load(params.EXAMPLES / "mecanum_ch08.toml"), None)
