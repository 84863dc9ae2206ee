"""The generated C library (robokin.codegen) against the Python package, in double and in float, on the host.

Compiled once per session with the system C compiler (``-std=c99 -Wall -Wextra -Werror -O2``), loaded with ctypes,
called through its row loops on 1e5 random inputs per function and branch.

* double: within ``1e-12`` of the package, relative to ``max(|value|, size)`` where the size is the mechanism's
  length scale (m) or 1 (rad): the library computes the same formulas in another operation order.
  Near the five-bar's type II singularity (``sin2 = |sin(CE, DE)|`` -> 0) the problem itself is ill-conditioned:
  the foot is known to ``~eps s / sin2`` and the Jacobian to ``~eps / sin2**2`` (relative), in the package as in
  the C, so 1e-12 is asserted where ``sin2 >= 0.05`` and ``16 eps / sin2**k`` nearer (measured constants up to ~10).
* float: the package evaluated at the float32-rounded inputs is the reference (input rounding is the caller's);
  bounds are first-order with a measured constant, ``EPS32 = 2**-24``: foot ``|dE| <= 16 EPS32 s / sin2`` (``s`` the
  leg's size; measured constant ~7), Jacobian and torque ``|dJ|_F / max(|J|_F, s) <= 32 EPS32 / sin2**2`` (measured constant ~16), so the
  status ``RK_SINGULAR`` trips at ``sin2 <= RK_SING_F = 1e-2``, where that bound reaches 2 % of the Jacobian.
* UR IK (8 branches): 1e-12 rad where ``min(|sin theta3|, |sin theta5|, sqrt((r - d4) / r)) >= 0.05``, ``512 eps /
  m`` nearer; float: every ``RK_OK`` branch is confirmed by its own FK within ``RK_POSE_F = 2e-4`` (dimensionless
  pose residual, ``robokin.ur5.pose_residual``), the wrist singularity returns ``RK_SINGULAR``.
* Wheel-leg controller step: the scheduled LQR with saturation of ``robokin.wheel_leg.simulate`` and chapter 13's
  leg-length loop, within ``8 eps`` (double) / ``16 eps`` (float) of the sum of the magnitudes of their terms.
* A planted transcription slip (two link lengths swapped in the generated source) fails the same comparison.
"""

from __future__ import annotations

import os
import time
import warnings
import zlib

import numpy as np
import pytest

from robokin.codegen import TOLERANCES, kernels
from robokin.codegen.controller import chapter_schedule
from robokin.codegen.host import CODES, HostLibrary, build, compiler
from robokin.codegen.kinematics import fivebar_kernels, leg2_kernels
from robokin.fivebar import FiveBar
from robokin.leg2 import TwoLinkLeg
from robokin.stewart import Stewart, paired_layout
from robokin.ur5 import UR5, UR5_GEOMETRY, pose_residual
from robokin.wheel_leg import vmc_torques

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler (install gcc) for the generated C library")

N = 100_000
EPS32 = 2.0**-24
EPS64 = 2.0**-53
REL64 = 1e-12
SING_F = float(TOLERANCES["SING"][0]["f"].rstrip("F"))
SING_D = float(TOLERANCES["SING"][0]["d"])
OK, UNREACHABLE, SINGULAR = CODES["RK_OK"], CODES["RK_UNREACHABLE"], CODES["RK_SINGULAR"]

# an asymmetric leg (a swapped length shows) whose knees can get too far apart or too close: every status occurs
FB = FiveBar(0.10, 0.09, 0.12, 0.13, 0.08)
FBP = {"l1": FB.l1, "l2": FB.l2, "l3": FB.l3, "l4": FB.l4, "d": FB.d}
LEG = TwoLinkLeg(0.21, 0.19)
LEGP = {"l1": LEG.l1, "l2": LEG.l2}
_B, _T = paired_layout(0.5, 0.35, base_pair_angle=0.35, top_pair_angle=0.35)
ST = Stewart(_B, _T, stroke=(0.35, 0.6))
STP = {"base": _B.T.ravel(), "top": _T.T.ravel(), "lmin": 0.35, "lmax": 0.6}
URP = dict(zip(("d1", "a2", "a3", "d4", "d5", "d6"), UR5_GEOMETRY))


@pytest.fixture(scope="session")
def lib(tmp_path_factory):
    t0 = time.perf_counter()
    path = build(tmp_path_factory.mktemp("firmware"))
    lib = HostLibrary(path)
    lib.build_seconds = time.perf_counter() - t0
    return lib


SEED = int(os.environ.get("ROBOKIN_SEED", "20261201"))  # ROBOKIN_SEED=<n> re-runs every draw with other samples


@pytest.fixture
def rng(request):
    """Each test its own generator, from the seed and the test's name: the samples do not depend on test order."""
    return np.random.default_rng([SEED, zlib.crc32(request.node.name.encode())])


def _f32(x):
    """The float32 input the C sees, back in double: the reference for the float variant."""
    return np.asarray(x, dtype=np.float32).astype(np.float64)


def _angle_diff(a, b):
    return np.abs((a - b + np.pi) % (2 * np.pi) - np.pi)


def _rel(err, ref, floor):
    return err / np.maximum(np.abs(ref), floor)


def _near_type2(rng, n):
    """Motor angles with the knees at ``|CD| = (l3 + l4)(1 - eta)``, eta log-uniform: the type II boundary."""
    t1 = rng.uniform(-np.pi, np.pi, n)
    L = (FB.l3 + FB.l4) * (1 - 10.0 ** rng.uniform(-15, -1, n))
    C = FB.l1 * np.stack([np.cos(t1), np.sin(t1)], -1)
    rB = C - np.array([FB.d, 0.0])  # D on the circle of radius l2 about B at distance L from C
    dB = np.linalg.norm(rB, axis=-1)
    c = np.clip((FB.l2**2 + dB**2 - L**2) / (2 * FB.l2 * dB), -1, 1)
    t2 = np.arctan2(rB[:, 1], rB[:, 0]) + rng.choice([-1.0, 1.0], n) * np.arccos(c)
    return np.stack([t1, t2], -1)


def _sin2(q, asm):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return FB.singularity_measures(q, assembly=asm)[1]


# ----------------------------------------------------------------------------------------------- five-bar FK
@pytest.mark.parametrize("ai", [0, 1], ids=FiveBar.assemblies)
def test_fivebar_fk_double_and_float(lib, rng, ai):
    asm = FiveBar.assemblies[ai]
    q = np.concatenate([rng.uniform(-np.pi, np.pi, (N, 2)), _near_type2(rng, N // 10)])
    E = FB.fk(q, assembly=asm, on_unreachable="nan")
    (Ec,), st = lib.call("fivebar_fk", "d", FBP, [q], ai)
    reach = np.isfinite(E).all(-1)
    assert 0.05 < np.mean(~reach) < 0.95  # both outcomes are exercised
    assert np.array_equal(st == OK, reach) and set(st[~reach]) == {UNREACHABLE}
    err = np.linalg.norm(Ec - E, axis=-1)[reach]
    s2 = _sin2(q, asm)[reach]
    far = s2 > 1e-2
    assert np.count_nonzero(far) > N // 2 and np.count_nonzero(~far) > 1000
    assert np.max(_rel(err[far], np.linalg.norm(E[reach][far], axis=-1), FB.scale)) < REL64
    # nearer type II both sides round differently and the sqrt amplifies it: the same bound as the float's
    assert np.all(err <= 16 * EPS64 * FB.scale / s2 + REL64 * FB.scale)

    q32 = _f32(q)
    E32 = FB.fk(q32, assembly=asm, on_unreachable="nan")
    (Ef,), stf = lib.call("fivebar_fk", "f", FBP, [q], ai)
    both = np.isfinite(E32).all(-1) & (stf == OK)
    # reach decided differently only within float round-off of the boundary, where sin2 -> 0
    s2 = _sin2(q32, asm)
    differ = np.isfinite(E32).all(-1) != (stf == OK)
    assert np.all(s2[differ & np.isfinite(s2)] < 1e-2)
    err = np.linalg.norm(Ef - E32, axis=-1)[both]
    assert np.all(err <= 16 * EPS32 * FB.scale / np.maximum(s2[both], 1e-300) + 2 * EPS32 * FB.scale)


# ----------------------------------------------------------------------------------------------- five-bar IK
@pytest.mark.parametrize("bi", range(4), ids=FiveBar.branches)
def test_fivebar_ik_double_and_float(lib, rng, bi):
    branch = FiveBar.branches[bi]
    p = rng.uniform([-0.2, -0.28], [0.28, 0.28], (N, 2))
    res = FB.ik(p, branch=branch, on_unreachable="nan")
    (qc,), st = lib.call("fivebar_ik", "d", FBP, [p], bi)
    assert 0.05 < np.mean(~res.valid) < 0.95
    assert np.array_equal(st == OK, res.valid) and set(st[~res.valid]) == {UNREACHABLE}
    assert np.max(_angle_diff(qc, res.q)[res.valid]) < REL64 * np.pi
    assert np.all((qc[res.valid] >= -np.pi) & (qc[res.valid] < np.pi))

    # float: foot error of the float solution, evaluated in double with the solution's own assembly mode
    p32 = _f32(p)
    (qf,), stf = lib.call("fivebar_ik", "f", FBP, [p], bi)
    ok = stf == OK
    ref = FB.ik(p32, branch=branch, on_unreachable="nan")
    assert np.mean(ok != ref.valid) < 1e-3  # only targets within round-off of the annulus edges
    qf = qf[ok & ref.valid].astype(np.float64)
    err = np.linalg.norm(qf - ref.q[ok & ref.valid], axis=-1)
    # the acos at the annulus edge turns an eps in its argument into sqrt(eps) of angle
    assert np.max(err) < 4 * np.sqrt(EPS32)
    assert np.quantile(err, 0.99) < 64 * EPS32


# ----------------------------------------------------------------------------------------- five-bar Jacobian
@pytest.mark.parametrize("ai", [0, 1], ids=FiveBar.assemblies)
def test_fivebar_jacobian_and_statics(lib, rng, ai):
    asm = FiveBar.assemblies[ai]
    q = np.concatenate([rng.uniform(-np.pi, np.pi, (N, 2)), _near_type2(rng, N // 2)])
    E = FB.fk(q, assembly=asm, on_unreachable="nan")
    q = q[np.isfinite(E).all(-1)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        J = FB._jac_core(q, asm)[0]
    s2 = _sin2(q, asm)
    F = rng.normal(0, 50, q.shape)
    (Jc,), st = lib.call("fivebar_jacobian", "d", FBP, [q], ai)
    (tc,), stt = lib.call("fivebar_statics", "d", FBP, [q, F], ai)
    sing = s2 <= SING_D
    assert 100 < np.count_nonzero(sing) < len(q) // 2
    assert np.array_equal(st == SINGULAR, sing) and np.array_equal(stt, st) and set(st[~sing]) == {OK}
    Jc = Jc.reshape(-1, 2, 2)
    size = np.maximum(np.linalg.norm(J, axis=(1, 2)), FB.scale)
    rel = (np.linalg.norm(Jc - J, axis=(1, 2)) / size)[~sing]
    tau = np.einsum("nij,ni->nj", J, F)
    assert np.allclose(tau[:100], FB.static_torques(q[:100], F[:100], assembly=asm), rtol=0, atol=1e-9)
    trel = (np.linalg.norm(tc - tau, axis=-1) / (size * np.linalg.norm(F, axis=-1)))[~sing]
    far = s2[~sing] >= 0.05
    assert np.count_nonzero(far) > N // 2
    assert np.max(rel[far]) < REL64 and np.max(trel[far]) < REL64
    # nearer type II the foot is only known to eps / sin2 and J to eps / sin2^2, in the package as in the C
    assert np.all(rel <= 16 * EPS64 / s2[~sing] ** 2 + REL64) and np.all(trel <= 16 * EPS64 / s2[~sing] ** 2 + REL64)

    # float: the status trips at the float threshold; the Jacobian error obeys 32 eps / sin2^2 (relative)
    q32 = _f32(q)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        J32 = FB._jac_core(q32, asm)[0]
    s2 = _sin2(q32, asm)
    (Jf,), stf = lib.call("fivebar_jacobian", "f", FBP, [q], ai)
    (tf,), stt = lib.call("fivebar_statics", "f", FBP, [q, F], ai)
    margin = 32 * EPS32 / SING_F**2  # the float's own sin2 is off by the same relative error as its J
    near = stf[s2 < SING_F * (1 - margin)]
    assert np.all((near == SINGULAR) | (near == UNREACHABLE)) and np.mean(near == SINGULAR) > 0.9
    assert np.all(stf[s2 > SING_F * (1 + margin)] == OK)  # (the float may find the knees a hair too far apart)
    assert np.array_equal(stt, stf)
    ok = stf == OK
    size = np.maximum(np.linalg.norm(J32, axis=(1, 2)), FB.scale)[ok]
    rel = np.linalg.norm(Jf.reshape(-1, 2, 2).astype(np.float64) - J32, axis=(1, 2))[ok] / size
    tau = np.einsum("nij,ni->nj", J32, _f32(F))[ok]
    trel = np.linalg.norm(tf[ok] - tau, axis=-1) / (size * np.linalg.norm(F[ok], axis=-1))
    assert np.all(rel <= 32 * EPS32 / s2[ok] ** 2) and np.all(trel <= 32 * EPS32 / s2[ok] ** 2)
    assert np.max(rel) < 32 * EPS32 / SING_F**2 < 0.02  # the worst case the threshold lets through: 2 % of |J|


def test_fivebar_vmc(lib, rng):
    q = rng.uniform(-np.pi, np.pi, (N, 2))
    q = q[np.isfinite(FB.fk(q, on_unreachable="nan")).all(-1)]
    q = q[_sin2(q, "down") > 0.05]
    w = np.stack([rng.normal(0, 80, len(q)), rng.normal(0, 5, len(q))], -1)
    # the natural size of tau = J^T f: |J| times the equivalent foot force |f| = hypot(F, Tp / L0); a leg much
    # shorter than the linkage (foot near the hip midpoint) amplifies the rounding of its direction by s / L0
    L0 = np.linalg.norm(FB.fk(q) - [FB.d / 2, 0.0], axis=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        J = FB._jac_core(q, "down")[0]
    size = np.maximum(np.linalg.norm(J, axis=(1, 2)), FB.scale) * np.hypot(w[:, 0], w[:, 1] / L0)
    size *= np.maximum(1.0, FB.scale / L0)
    for prec, ref_q, ref_w, tol in (("d", q, w, REL64), ("f", _f32(q), _f32(w), 32 * EPS32 / 0.05**2)):
        tau = vmc_torques(FB, ref_q, ref_w[:, 0], ref_w[:, 1])
        (tc,), st = lib.call("fivebar_vmc", prec, FBP, [q, w], 0)
        assert set(st) == {OK}
        assert np.max(np.linalg.norm(tc - tau, axis=-1) / size) < tol, prec


# ------------------------------------------------------------------------------------------------ two-link leg
def test_leg2_fk_jacobian(lib, rng):
    q = rng.uniform(-np.pi, np.pi, (N, 2))
    for prec, ref_q, tol in (("d", q, REL64), ("f", _f32(q), 4 * EPS32)):
        (p,), st = lib.call("leg2_fk", prec, LEGP, [q])
        (J,), stj = lib.call("leg2_jacobian", prec, LEGP, [q])
        assert set(st) == set(stj) == {OK}
        s = LEG.l1 + LEG.l2
        assert np.max(np.abs(p - LEG.fk(ref_q))) < tol * s
        assert np.max(np.abs(J.reshape(-1, 2, 2) - LEG.jacobian(ref_q))) < tol * s


@pytest.mark.parametrize("bi", [0, 1], ids=TwoLinkLeg.branches)
def test_leg2_ik(lib, rng, bi):
    branch = TwoLinkLeg.branches[bi]
    p = rng.uniform(-0.45, 0.45, (N, 2))
    res = LEG.ik(p, branch=branch, on_unreachable="nan")
    (qc,), st = lib.call("leg2_ik", "d", LEGP, [p], bi)
    assert 0.05 < np.mean(~res.valid) < 0.95
    assert np.array_equal(st == OK, res.valid) and set(st[~res.valid]) == {UNREACHABLE}
    assert np.max(_angle_diff(qc, res.q)[res.valid]) < REL64 * np.pi
    (qf,), stf = lib.call("leg2_ik", "f", LEGP, [p], bi)
    ref = LEG.ik(_f32(p), branch=branch, on_unreachable="nan")
    ok = (stf == OK) & ref.valid
    assert np.mean((stf == OK) != ref.valid) < 1e-3
    foot = np.linalg.norm(LEG.fk(qf[ok].astype(np.float64)) - _f32(p)[ok], axis=-1)
    # the foot error of the float solution: a few ulps of the reach, as the knee angle only enters via the FK
    assert np.max(foot) < 16 * EPS32 * (LEG.l1 + LEG.l2)


# ---------------------------------------------------------------------------------------------------- Stewart
def _stewart_workspace_poses(rng, n):
    """Poses about mid-stroke (z 0.25-0.45 m, +-5 cm, +-0.1 rad): inside the workspace (measured ~98 % reachable)."""
    return np.concatenate(
        [rng.uniform([-0.05, -0.05, 0.25], [0.05, 0.05, 0.45], (n, 3)), rng.uniform(-0.1, 0.1, (n, 3))], axis=-1
    )


def test_stewart_ik(lib, rng):
    inside = _stewart_workspace_poses(rng, N - N // 10)
    beyond = _stewart_workspace_poses(rng, N // 10) + [0, 0, 0.3, 0, 0, 0]  # 0.3 m higher: legs beyond lmax
    pose = np.concatenate([inside, beyond])
    res = ST.ik(pose, on_unreachable="nan")
    (Lc,), st = lib.call("stewart_ik", "d", STP, [pose])
    assert np.mean(res.valid[: len(inside)]) > 0.95 and not res.valid[len(inside) :].any()  # the draw is as stated
    assert np.array_equal(st == OK, res.valid) and set(st[~res.valid]) == {UNREACHABLE}
    assert np.max(np.abs(Lc - res.q)[res.valid]) < REL64
    (Lf,), stf = lib.call("stewart_ik", "f", STP, [pose])
    ref = ST.leg_lengths(_f32(pose))
    ok = stf == OK
    assert np.max(np.abs(Lf[ok] - ref[ok])) < 16 * EPS32 * 1.0  # 1 m: the size of the platform's geometry


def test_selftest_stewart_poses_are_reachable():
    """The MCU self-test's Stewart rows (robokin.codegen.target.cases) lie inside the workspace, NaN/far rows aside."""
    from robokin.codegen.target import cases

    cs = [c for c in cases() if c.kernel == "stewart_ik"]
    assert cs and cs[0].params["lmin"] == ST.stroke[0] and cs[0].params["lmax"] == ST.stroke[1]
    assert np.allclose(cs[0].params["base"], STP["base"]) and np.allclose(cs[0].params["top"], STP["top"])
    pose = np.array([c.inputs[0] for c in cs], dtype=np.float64)
    assert np.isnan(pose[0, 0]) and not ST.ik(pose[1:2], on_unreachable="nan").valid.any()  # the special rows
    assert np.mean(ST.ik(pose[2:], on_unreachable="nan").valid) >= 0.9  # measured: 30 of 30


# -------------------------------------------------------------------------------------------------------- UR
POSE_F = float(TOLERANCES["POSE"][0]["f"].rstrip("F"))


def _ur_rows(T):
    return np.concatenate([T[..., :3, :3].reshape(-1, 9), T[..., :3, 3]], axis=-1)


def _ur_conditioning(q, T):
    """min(|sin theta3|, |sin theta5|, sqrt((r - d4) / r)): distance to the elbow, wrist and shoulder singularities."""
    p05 = T[:, :3, 3] - UR5_GEOMETRY.d6 * T[:, :3, 2]
    r = np.hypot(p05[:, 0], p05[:, 1])
    m = np.minimum(np.abs(np.sin(q[:, 2])), np.abs(np.sin(q[:, 4])))
    return np.minimum(m, np.sqrt(np.abs(r - UR5_GEOMETRY.d4) / r))


@pytest.fixture(scope="module")
def ur_poses():
    rng = np.random.default_rng([SEED, 5])
    q = rng.uniform(-np.pi, np.pi, (N, 6))
    T = UR5.fk(q)
    far = T[: N // 10, :3, 3]
    T[: N // 10, :3, 3] = 2.0 * far / np.linalg.norm(far, axis=-1, keepdims=True)  # a tenth 2 m away: beyond reach
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = UR5.ik(T, on_unreachable="nan")
    return T, res


@pytest.mark.parametrize("k", range(8), ids=UR5.branches)
def test_ur_ik_every_branch(lib, ur_poses, k):
    T, res = ur_poses
    valid, qref = res.valid[:, k], res.q[:, k]
    (qc,), st = lib.call("ur_ik", "d", URP, [_ur_rows(T)], k)
    assert 0.05 < np.mean(~valid) < 0.95 and np.all(st[: N // 10] == UNREACHABLE)
    assert np.array_equal(st == OK, valid)  # the same branches exist (no random pose is wrist-singular)
    d = _angle_diff(qc, qref).max(-1)[valid]
    m = _ur_conditioning(qref, T)[valid]
    assert np.count_nonzero(m >= 0.05) > N // 2
    assert np.max(d[m >= 0.05]) < REL64 * np.pi
    # near the elbow / wrist / shoulder singularities both lose digits like eps / m (measured constant <= 230)
    assert np.all(d <= 512 * EPS64 / m + REL64)

    # float: every RK_OK branch reaches the pose (FK in double) within the float confirmation tolerance
    T32 = T.astype(np.float32).astype(np.float64)
    (qf,), stf = lib.call("ur_ik", "f", URP, [_ur_rows(T)], k)
    ok = stf == OK
    assert np.mean(ok != valid) < 2e-3  # refused only within the float tolerance of a singularity
    pr = pose_residual(UR5.fk(qf[ok].astype(np.float64)), T32[ok])
    assert np.max(pr) <= 2 * POSE_F and np.quantile(pr, 0.99) < 64 * EPS32


def test_ur_ik_singular_and_bad_poses(lib, rng):
    q = rng.uniform(-np.pi, np.pi, (1000, 6))
    q[:, 4] = 0.0  # wrist singularity: theta6 free
    rows = _ur_rows(UR5.fk(q))
    for prec in "df":
        calls = [lib.call("ur_ik", prec, URP, [rows], k) for k in range(8)]
        st = np.stack([c[1] for c in calls], -1)
        qs = np.stack([c[0][0] for c in calls], 1)
        # the wrist branches of the original shoulder are singular; the other shoulder has a regular wrist
        assert np.all(np.sum(st == SINGULAR, axis=-1) >= 2) and np.isnan(qs[st == SINGULAR]).all()
        bad = rows.copy()
        bad[:, :9] *= 1.01  # not a rotation
        assert set(lib.call("ur_ik", prec, URP, [bad], 0)[1]) == {CODES["RK_BAD_ARGUMENT"]}


# ------------------------------------------------------------------------------------------ wheel-leg controller
@pytest.fixture(scope="module")
def chapter13():
    p = chapter_schedule()
    return p.pop("schedule"), p


def _wheel_leg_reference(sched, par, s, ref, leg, coeffs):
    """robokin.wheel_leg.simulate's law (gains from ``coeffs``) and chapter 13's leg-length loop, in double."""
    L = np.clip(leg[:, 0], sched.L_min, sched.L_max)
    K = np.zeros((len(L), 2, 6))
    for c in coeffs[::-1]:  # GainSchedule.__call__'s Horner
        K = K * L[:, None, None] + c
    if coeffs is sched.coeffs:
        assert np.array_equal(K, sched(L))
    u = -np.einsum("nij,nj->ni", K, s - ref)
    cb = np.cos(s[:, 0] - s[:, 4])
    terms = np.stack([par["f_ff"] / cb, par["kL"] * (leg[:, 2] - leg[:, 0]), par["dL"] * (leg[:, 3] - leg[:, 1])], 1)
    size_u = np.abs(K).max(axis=2) * np.abs(s - ref).sum(1)[:, None]  # bounds |sum_j K_ij e_j| / 6
    # a difference of two lengths (rates) rounds relative to their magnitudes, not to the difference
    # and f_ff / cos(theta - phi) amplifies the rounding of theta - phi by |tan theta_b|
    ff = np.abs(terms[:, 0]) * (1 + np.abs(np.tan(s[:, 0] - s[:, 4])) * np.abs(s[:, [0, 4]]).sum(1))
    size_F = ff + par["kL"] * np.abs(leg[:, [0, 2]]).sum(1) + par["dL"] * np.abs(leg[:, [1, 3]]).sum(1)
    return u, terms.sum(1), size_u, size_F, cb


def test_wheel_leg_step(lib, rng, chapter13):
    sched, par = chapter13
    s = rng.normal(0, 0.3, (N, 6))
    ref = rng.normal(0, 0.1, (N, 6))
    leg = np.stack(
        [rng.uniform(0.10, 0.36, N), rng.normal(0, 0.2, N), rng.uniform(0.12, 0.34, N), rng.normal(0, 0.2, N)], 1
    )
    inside = (leg[:, 0] >= sched.L_min) & (leg[:, 0] <= sched.L_max)
    umax = np.array([par["T_max"], par["Tp_max"]])
    for prec, eps, c in (("d", EPS64, 8), ("f", EPS32, 16)):
        r = (lambda x: x) if prec == "d" else _f32
        p = {k: (r(v) if k != "K" else v) for k, v in par.items()}
        u, F, size_u, size_F, cb = _wheel_leg_reference(
            sched, p, r(s), r(ref), r(leg), sched.coeffs if prec == "d" else _f32(sched.coeffs)
        )
        uc = np.clip(u, -umax, umax)
        assert 0.05 < np.mean(np.abs(u) > umax) < 0.95  # saturation is exercised
        (o,), st = lib.call("wheel_leg_step", prec, par, [s, ref, leg])
        assert np.array_equal(st[~inside], np.full(np.count_nonzero(~inside), UNREACHABLE))
        ok = st == OK
        assert np.array_equal(st[inside] == SINGULAR, (cb < 0.05)[inside]) and np.count_nonzero(ok) > N // 2
        assert np.all(np.abs(o[ok, :2] - uc[ok]) <= c * eps * size_u[ok]), prec
        assert np.all(np.abs(o[ok, 2] - F[ok]) <= c * eps * size_F[ok]), prec
        if prec == "d":
            assert np.max(np.abs(o[ok, :2] - uc[ok]) / np.maximum(np.abs(uc[ok]), size_u[ok])) < REL64


# ---------------------------------------------------------------------------------------------------- statuses
def test_bad_inputs_return_the_documented_status(lib):
    q = np.array([[0.5, 2.5], [np.nan, 0.0], [0.0, np.inf]])
    for prec in "df":
        for name, par, x in (
            ("fivebar_fk", FBP, q),
            ("fivebar_jacobian", FBP, q),
            ("leg2_fk", LEGP, q),
            ("leg2_ik", LEGP, q * 0.1),
            ("stewart_ik", STP, np.tile(q, 3) * [1, 1, 0.2, 1, 1, 1]),
        ):
            sel = 0 if lib.kernels[name].selector is not None else None
            outs, st = lib.call(name, prec, par, [x], sel)
            assert list(st[1:]) == [CODES["RK_NONFINITE_INPUT"]] * 2, (name, prec, st)
            assert np.isnan(outs[0][1:]).all()  # nothing written
        (E,), st = lib.call("fivebar_fk", prec, FBP, [q[:1]], 2)  # no assembly mode 2
        assert st[0] == CODES["RK_BAD_ARGUMENT"] and np.isnan(E).all()
        (E,), st = lib.call("fivebar_fk", prec, {**FBP, "l3": -0.1}, [q[:1]], 0)
        assert st[0] == CODES["RK_BAD_ARGUMENT"]
        (E,), st = lib.call("fivebar_fk", prec, {**FBP, "d": float("nan")}, [q[:1]], 0)
        assert st[0] == CODES["RK_BAD_ARGUMENT"]
        (L,), st = lib.call("stewart_ik", prec, {**STP, "lmin": 0.7}, [[0, 0, 0.4, 0, 0, 0]])
        assert st[0] == CODES["RK_BAD_ARGUMENT"]  # lmin >= lmax
        (qi,), st = lib.call("leg2_ik", prec, LEGP, [[[1e30, 0.0], [0.0, -0.5], [0.0, -0.01]]], 0)
        assert list(st) == [UNREACHABLE] * 3  # overflow, too far, too close
        assert np.isnan(qi).all()
        # exactly at the type II singularity: the knees at |CD| = l3 + l4
        q_sing = _near_type2(np.random.default_rng(0), 1)
        (J,), st = lib.call("fivebar_jacobian", prec, FBP, [q_sing], 0)
        assert st[0] == SINGULAR or _sin2(q_sing, "down")[0] > SING_D


def test_every_kernel_is_checked_here():
    """A new generated kernel must get a comparison in this file."""
    source = open(__file__).read()
    missing = [k.name for k in kernels() if f'"{k.name}"' not in source]
    assert not missing, f"no host comparison for {missing}"


# ----------------------------------------------------------------------------------------- transcription slips
def _swap(src, fn, a, b):
    """Swap two parameter loads inside one generated function (a transcription slip of two link lengths)."""
    start = src.index(f"rk_status rk_{fn}(")
    end = src.index("\n}\n", start)
    body = src[start:end]
    la, lb = f"= prm->{a};", f"= prm->{b};"
    assert la in body and lb in body
    body = body.replace(la, "= SWAP_TMP;").replace(lb, la).replace("= SWAP_TMP;", lb)
    return src[:start] + body + src[end:]


def test_a_planted_slip_fails_the_comparison(tmp_path, rng):
    ks = fivebar_kernels() + leg2_kernels()

    def slip(src):
        src = _swap(src, "fivebar_fk_d", "l3", "l4")
        return _swap(src, "leg2_ik_f", "l1", "l2")

    bad = HostLibrary(build(tmp_path, ks=ks, patch=slip), ks)
    q = rng.uniform(-np.pi, np.pi, (2000, 2))
    E = FB.fk(q, on_unreachable="nan")
    (Ec,), st = bad.call("fivebar_fk", "d", FBP, [q], 0)
    both = np.isfinite(E).all(-1) & (st == OK)
    wrong = np.linalg.norm(Ec - E, axis=-1)[both] / FB.scale
    assert np.max(wrong) > 1e3 * REL64 or not np.array_equal(st == OK, np.isfinite(E).all(-1))
    assert np.max(wrong) > 1e-3  # millimetres, not round-off
    p = rng.uniform(-0.3, 0.3, (2000, 2))
    ref = LEG.ik(p, on_unreachable="nan")
    (qf,), stf = bad.call("leg2_ik", "f", LEGP, [p], 0)
    ok = (stf == OK) & ref.valid
    foot = np.linalg.norm(LEG.fk(qf[ok].astype(np.float64)) - p[ok], axis=-1)
    assert np.max(foot) > 1e3 * 16 * EPS32 * (LEG.l1 + LEG.l2)


@pytest.mark.parametrize(
    ("flags", "refused"),
    [
        ((), False),
        (("-ffast-math",), True),
        (("-ffinite-math-only",), True),
        (("-Ofast",), True),
        # the part of -ffast-math that breaks isfinite switched back off: nothing left to refuse
        (("-ffast-math", "-fno-finite-math-only"), False),
    ],
    ids=["plain", "fast-math", "finite-math-only", "Ofast", "fast-math-but-finite-off"],
)
def test_header_refuses_fast_math_builds(tmp_path, flags, refused):
    """robokin.h stops a -ffast-math build with #error: there isfinite may fold to true and NaN come back RK_OK."""
    import subprocess

    from robokin.codegen import generate
    from robokin.codegen.host import CFLAGS

    generate(tmp_path, leg2_kernels())
    cmd = [compiler(), *[f for f in CFLAGS if f not in ("-shared", "-fPIC")], *flags, "-c", "robokin.c", "-o", "x.o"]
    r = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert (r.returncode != 0) == refused, r.stderr
    assert ("#error" in r.stderr and "-ffast-math or -ffinite-math-only" in r.stderr) == refused, r.stderr
