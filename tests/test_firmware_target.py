"""The generated float library on an emulated Cortex-M4F (QEMU mps2-an386) against the same code on the host.

One self-test (generated ``selftest.c`` + the hand-written ``firmware/main.c``) is built twice: by the host compiler
and by ``arm-none-eabi-gcc -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard`` with newlib (nano, rdimon), and run
natively and under ``qemu-system-arm -semihosting``. Every kernel and selector value gets the same fixed float32
inputs (a NaN row and an out-of-reach row included); outputs are printed as IEEE bit patterns.

* Statuses agree on every call.
* Arithmetic is IEEE single on both sides with no fused multiply-add (``-ffp-contract=off``), so outputs differ
  only where the two C libraries' ``sinf``/``cosf``/``atan2f``/``acosf`` round differently (newlib vs glibc): the
  kernels that call no ``sinf``/``cosf`` (five-bar IK: ``atan2f`` and ``acosf``; two-link IK: ``atan2f`` only) are
  asserted bit-exact (a measurement on these two libraries, not an IEEE 754 guarantee), the others within
  ``64 * 2**-24`` times their largest output on the set (units of ``2**-24`` relative, not ulps: one float32 ulp of
  ``x`` lies between ``2**-24 |x|`` and ``2**-23 |x|``; measured: 28 for the five-bar Jacobian, whose near-singular
  rows amplify a 1-ulp ``sinf`` difference, <= 4 for the others; tests/test_firmware.py bounds the float error
  against double). The other libm calls of the float kernels (``sqrtf``, ``fabsf``, ``floorf``, ``fmaxf``,
  ``fminf``) are exact or correctly rounded on both sides.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from robokin.codegen import kernels
from robokin.codegen.host import CODES, compiler
from robokin.codegen.target import (
    build_host_selftest,
    build_m4,
    calls,
    cases,
    cross_tools,
    parse,
    run_qemu,
    section_sizes,
    sizes,
)

pytestmark = pytest.mark.skipif(
    cross_tools() is None or compiler() is None,
    reason="arm-none-eabi-gcc, libnewlib-arm-none-eabi or qemu-system-arm missing: `make firmware` as root "
    "installs them (apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm)",
)

EPS32 = 2.0**-24


KS = kernels()
NAMES = [k.name for k in KS]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    cs = cases(ks=KS)
    d = tmp_path_factory.mktemp("m4")
    obj, elf = build_m4(d, cs, KS)
    exe = build_host_selftest(d, cs, KS)
    host = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=True).stdout
    target = run_qemu(elf, timeout=60)
    return cs, parse(host), parse(target), host, target, obj, (d / "robokin.c").read_text()


def test_the_image_runs_every_case(runs):
    cs, host, target, host_text, target_text, *_ = runs
    assert target_text.splitlines()[0] == "robokin selftest"
    assert f"DONE {len(cs)}" in target_text and f"DONE {len(cs)}" in host_text
    assert sorted(target) == sorted(host) == list(range(len(cs)))
    assert {name for name, _, _ in target.values()} == set(NAMES)


def test_statuses_agree_and_trip(runs):
    cs, host, target, *_ = runs
    assert [target[i][1] for i in range(len(cs))] == [host[i][1] for i in range(len(cs))]
    statuses = {target[i][1] for i in range(len(cs))}
    assert {CODES["RK_OK"], CODES["RK_NONFINITE_INPUT"], CODES["RK_UNREACHABLE"]} <= statuses
    for i, c in enumerate(cs):
        if np.isnan(c.inputs[0][0]):
            assert target[i][1] == CODES["RK_NONFINITE_INPUT"] and np.isnan(target[i][2]).all()


def _uses_sin_cos(src, name):
    start = src.index(f"rk_status rk_{name}_f(")
    body = src[start : src.index("\n}\n", start)]
    return "sinf(" in body or "cosf(" in body


def test_outputs_match_the_host_float(runs):
    cs, host, target, *_, src = runs
    worst = {}
    for k in KS:
        idx = [i for i, c in enumerate(cs) if c.kernel == k.name and host[i][1] == CODES["RK_OK"]]
        assert len(idx) >= 4, k.name
        h = np.array([host[i][2] for i in idx], dtype=np.float64)
        t = np.array([target[i][2] for i in idx], dtype=np.float64)
        assert np.isfinite(t).all()
        if not _uses_sin_cos(src, k.name):
            assert np.array_equal(h.view(np.uint64), t.view(np.uint64)), k.name  # bit for bit
        worst[k.name] = np.max(np.abs(t - h)) / (EPS32 * np.max(np.abs(h)))  # in 2**-24 of the largest output
        assert worst[k.name] <= 64, (k.name, worst[k.name])
    assert any(not _uses_sin_cos(src, n) for n in worst)  # the bit-exact branch is exercised


def test_code_size_per_function(runs):
    *_, obj, _ = runs
    sz = sizes(obj)
    for k in KS:
        assert f"rk_{k.name}_f" in sz, k.name
        assert 0 < sz[f"rk_{k.name}_f"] < 4096, (k.name, sz[f"rk_{k.name}_f"])  # fits any Cortex-M4 flash
    # every float kernel runs on the single-precision FPU: no software double, no double libm
    soft = {"sin", "cos", "atan2", "acos", "sqrt", "floor", "fmax", "fmin", "fabs"}
    called = calls(obj)
    assert {f"rk_{k.name}_f" for k in KS} <= set(called)
    for fn, used in called.items():
        if fn.endswith("_f"):  # kernels and their parameter checks
            assert not {c for c in used if c.startswith("__aeabi_d")} and not used & soft, (fn, sorted(used))
    assert any(c.startswith("__aeabi_d") for c in called["rk_fivebar_fk_d"])  # the check sees double code
    sec = section_sizes(obj)
    assert sec["data"] == 0 and sec["bss"] == 0, sec  # no global state: no writable static data at all


def test_build_all_equals_the_separate_builds(runs, tmp_path):
    """The chapter's side-by-side build gives the same object code and the same host and QEMU printouts."""
    from robokin.codegen.target import build_all

    cs, host, target, host_text, target_text, obj, _ = runs
    obj2, elf2, exe2 = build_all(tmp_path, cs, KS)
    assert obj2.read_bytes() == obj.read_bytes()
    assert subprocess.run([str(exe2)], capture_output=True, text=True, timeout=60, check=True).stdout == host_text
    assert run_qemu(elf2, timeout=60) == target_text
