"""Tests of robokin.ur5: the official UR5 model and its 8-branch analytic IK."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robokin import transforms, ur5
from robokin._primitives import wrap
from robokin.errors import SingularityWarning, UnreachableError
from robokin.results import IKResult
from robokin.serial import SerialArm, dh_transform
from robokin.transforms import make_transform, rotx, rpy_to_matrix, so3_exp
from robokin.ur5 import (
    A2,
    A3,
    D1,
    D4,
    D5,
    D6,
    INPUT_ERROR_GAIN,
    UR5,
    UR5Arm,
    contest_table,
    input_error,
    make_ur5,
    nearest,
    pose_residual,
    wrist_singular,
)
from robokin.validation.ur5 import validate

RNG = np.random.default_rng(55)


def ik(T, **kw):
    """All 8 branches as (q, valid), NaN rows where invalid (the old tuple view of UR5.ik, for these tests)."""
    res = UR5.ik(T, **({"on_unreachable": "nan"} | kw))
    return res.q, res.valid


def tol_of(T, tol=1e-9):
    """The per-pose validity tolerance UR5.ik documents: tol + INPUT_ERROR_GAIN * input_error(T)."""
    return tol + INPUT_ERROR_GAIN * input_error(T)


def test_official_table():
    # UR's published standard-DH values (metres, radians)
    np.testing.assert_array_equal(UR5.d, [0.089159, 0, 0, 0.10915, 0.09465, 0.0823])
    np.testing.assert_array_equal(UR5.a, [0, -0.425, -0.39225, 0, 0, 0])
    np.testing.assert_allclose(UR5.alpha, [np.pi / 2, 0, 0, np.pi / 2, -np.pi / 2, 0])
    assert UR5.convention == "standard" and np.all(UR5.offset == 0)


def test_zero_pose_from_the_table_by_hand():
    # at q = 0 the arm is stretched along -x; d4 and d6 point along -y; d5 points down
    T = UR5.fk(np.zeros(6))
    np.testing.assert_allclose(T[:3, 3], [A2 + A3, -(D4 + D6), D1 - D5], atol=1e-15)
    np.testing.assert_allclose(T[:3, :3], rotx(np.pi / 2), atol=1e-15)


def test_fk_is_product_of_standard_links():
    q = RNG.uniform(-np.pi, np.pi, 6)
    ref = np.eye(4)
    a, d = [0, A2, A3, 0, 0, 0], [D1, 0, 0, D4, D5, D6]
    al = [np.pi / 2, 0, 0, np.pi / 2, -np.pi / 2, 0]
    for i in range(6):
        ref = ref @ dh_transform(a[i], al[i], d[i], q[i], convention="standard")
    np.testing.assert_allclose(UR5.fk(q), ref, atol=1e-14)


def test_ik_roundtrip_10k_poses():
    q = RNG.uniform(-np.pi, np.pi, (10_000, 6))
    T = UR5.fk(q)
    Q, valid = ik(T)
    assert Q.shape == (10_000, 8, 6) and valid.shape == (10_000, 8)
    # NaN rows exactly where invalid
    assert np.array_equal(np.isnan(Q).any(-1), ~valid) and np.array_equal(np.isnan(Q).all(-1), ~valid)
    res = pose_residual(UR5.fk(np.where(valid[..., None], Q, 0.0)), T[:, None])
    assert res[valid].max() <= 1e-9
    # the generating q is among the branches (angles wrapped)
    d = np.where(valid, np.abs(wrap(Q - q[:, None])).max(-1), np.inf).min(-1)
    assert np.all(d < 1e-6), d.max()
    assert np.all((Q[valid] >= -np.pi) & (Q[valid] < np.pi))


def test_branch_labels_match_geometry():
    assert len(UR5.branches) == 8 and len(set(UR5.branches)) == 8
    q = RNG.uniform(-np.pi, np.pi, (500, 6))
    T = UR5.fk(q)
    Q, valid = ik(T)
    F = UR5.fk_all(np.where(valid[..., None], Q, 0.0))
    o1, x1, z1 = F[..., 1, :3, 3], F[..., 1, :3, 0], F[..., 1, :3, 2]
    p05 = T[:, None, :3, 3] - D6 * T[:, None, :3, 2]
    reach = np.sum((p05 - o1)[..., :2] * (-x1[..., :2]), -1)
    f = p05[..., :2]
    left = (-f[..., 1] * z1[..., 0] + f[..., 0] * z1[..., 1]) > 0  # (z x f) . z1
    for k, name in enumerate(UR5.branches):
        sh, el, wr = name.split("-")
        m = valid[:, k] & (np.abs(np.sin(Q[:, k, 4])) > 1e-6) & (np.abs(np.sin(Q[:, k, 2])) > 1e-6)
        assert m.sum() > 100
        assert np.all((reach[m, k] > 0) == (sh == "left"))
        assert np.all(left[m, k] == (sh == "left"))
        s = 1 if sh == "left" else -1
        assert np.all((s * np.sign(Q[m, k, 2]) > 0) == (el == "up"))
        assert np.all((Q[m, k, 4] > 0) == (wr == "noflip"))


def test_elbow_up_is_above_in_the_usual_pose():
    # upper arm up, forearm forward: elbow above the shoulder-wrist chord
    q = np.array([0.2, -1.3, 1.2, -1.5, -1.4, 0.3])
    Q, valid = ik(UR5.fk(q))
    k = int(np.argmin(np.where(valid, np.abs(wrap(Q - q)).max(-1), np.inf)))
    assert UR5.branches[k].startswith("left-up-")
    F = UR5.fk_all(q)
    o1, o2, o3 = F[1, :3, 3], F[2, :3, 3], F[3, :3, 3]
    u = (o3 - o1) / np.linalg.norm(o3 - o1)
    w = o2 - o1
    assert (w - (w @ u) * u)[2] > 0


def test_wrist_singularity_predictable():
    q = np.array([0.4, -1.0, 1.3, -0.5, 0.0, 0.9])  # theta5 = 0: joints 4 and 6 coaxial
    T = UR5.fk(q)
    with pytest.warns(SingularityWarning, match="wrist singularity"):
        Q, valid = ik(T)
    sing = valid & (np.abs(np.sin(np.nan_to_num(Q[:, 4]))) < 1e-9)
    assert sing.sum() >= 2
    np.testing.assert_array_equal(Q[sing][:, 5], 0.0)  # theta6 = q6_singular (default 0)
    assert pose_residual(UR5.fk(Q[valid]), T).max() <= 1e-9
    # theta6 is free (self-motion of the parallel joints 2, 3, 4, 6); choosing it gives q back
    with pytest.warns(SingularityWarning):
        Q2, v2 = ik(T, q6_singular=0.9)
    d = np.abs(wrap(Q2[v2] - q)).max(-1)
    assert d.min() < 1e-9
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ik(T, warn=False)


def test_double_singularity_flagged_not_silent():
    q = np.array([0.0, 3.0, 0.0, 0.0, 0.0, 1.0])  # stretched elbow and theta5 = 0
    with pytest.warns(SingularityWarning):
        Q, valid = ik(UR5.fk(q), q6_singular=1.0)
    assert np.abs(wrap(Q[valid] - q)).max(-1).min() < 1e-9
    Q, valid = ik(UR5.fk(q), warn=False)  # theta6 = 0 cannot reach: mask says so, rows are NaN
    assert np.array_equal(np.isnan(Q).any(-1), ~valid)
    if valid.any():
        assert pose_residual(UR5.fk(Q[valid]), UR5.fk(q)).max() <= 1e-9


def test_shoulder_boundary_and_unreachable():
    # wrist point inside the cylinder r < d4 around the base axis: no branch exists
    R = np.eye(3)
    T = make_transform(R, [0.01, 0.0, 0.3 + D6])
    Q, valid = ik(T)
    assert not valid.any() and np.isnan(Q).all()
    with pytest.raises(UnreachableError, match="1 of 1"):
        UR5.ik(T)  # the default is "raise"
    # far away: unreachable, mask says so
    Q, valid = ik(make_transform(np.eye(3), [2.0, 0, 0]))
    assert not valid.any()
    # on the shoulder singularity r = d4 the two shoulder branches coincide, with a warning
    q = np.array([0.3, -1.0, 1.0, -0.7, 1.2, 0.4])
    T = UR5.fk(q)
    p05 = T[:3, 3] - D6 * T[:3, 2]
    r = np.hypot(*p05[:2])
    T2 = T.copy()
    T2[:2, 3] -= p05[:2] * (1 - D4 / r)  # move the wrist point radially onto r = d4
    with pytest.warns(SingularityWarning, match="shoulder"):
        Q, valid = ik(T2)
    assert valid.any()
    np.testing.assert_allclose(Q[0, 0], Q[4, 0], atol=1e-6)


def test_nearest_along_path_is_continuous():
    t = np.linspace(0, 1, 200)
    qpath = np.stack([0.5 + 2.5 * t, -1.0 + 0.3 * t, 1.2 - 0.2 * t, -0.3 + 0 * t, 0.8 + 0 * t, 3.0 * t], -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularityWarning)
        Q, valid = ik(UR5.fk(qpath))
    qp = qpath[0].copy()
    out = []
    for k in range(len(t)):
        qp, idx = nearest(Q[k], valid[k], qp)
        out.append(qp)
    out = np.array(out)
    assert np.abs(np.diff(out, axis=0)).max() < 0.1  # no branch jump, no 2 pi jump
    np.testing.assert_allclose(out, qpath, atol=1e-8)  # unwrapped towards the reference


def test_nearest_weights_and_none_valid():
    Q = np.array([[0.0, 0.0], [1.0, 0.1], [np.nan, np.nan]])
    v = np.array([True, True, False])
    q, k = nearest(Q, v, [0.9, 0.0])
    assert int(k) == 1
    q, k = nearest(Q, v, [0.9, 0.0], weights=[0.0, 100.0])
    assert int(k) == 0
    q, k = nearest(Q, np.zeros(3, bool), [0.0, 0.0])
    assert int(k) == -1 and np.isnan(q).all()


def test_validate_reports_pass():
    assert all(r.passed for r in validate(rng=np.random.default_rng(3), fast=True))


@settings(deadline=None)
@given(st.lists(st.floats(-np.pi, np.pi), min_size=6, max_size=6))
def test_property_generating_q_found(qlist):
    q = np.array(qlist)
    double = abs(np.sin(q[4])) < 1e-6  # documented: at the wrist singularity pass the current theta6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularityWarning)
        Q, valid = ik(UR5.fk(q), q6_singular=float(q[5]) if double else 0.0)
    assert valid.any()
    assert pose_residual(UR5.fk(Q[valid]), UR5.fk(q)).max() <= 1e-9
    if abs(np.sin(q[4])) > 1e-6:  # away from the wrist singularity the exact q is returned
        assert np.abs(wrap(Q[valid] - q)).max(-1).min() < 1e-6


def test_make_ur5_d1():
    arm = make_ur5(d1=0.089459)
    assert arm.d[0] == 0.089459
    np.testing.assert_allclose(arm.fk(np.zeros(6))[2, 3] - UR5.fk(np.zeros(6))[2, 3], 0.0003, atol=1e-15)


# ---- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_ik_non_finite(bad):
    T = np.eye(4)
    T[0, 3] = bad
    with pytest.raises(ValueError, match="non-finite"):
        ik(T)


def test_ik_bad_inputs():
    with pytest.raises(ValueError, match=r"\(\.\.\., 4, 4\)"):
        ik(np.eye(3))
    with pytest.raises(ValueError, match="warn"):
        ik(np.eye(4), warn="no")
    with pytest.raises(ValueError, match="not homogeneous"):
        ik(2 * np.eye(4))
    T = make_transform(np.eye(3), [0.3, 0.2, 0.1])
    T[2, 2] = 1.01  # not orthonormal
    with pytest.raises(ValueError, match="not a rotation"):
        ik(T)
    with pytest.raises(ValueError, match="on_unreachable"):
        ik(np.eye(4), on_unreachable="skip")
    with pytest.raises(ValueError, match="tol"):
        ik(np.eye(4), tol=-1)
    with pytest.raises(ValueError, match="singular_tol"):
        ik(np.eye(4), singular_tol=np.nan)
    with pytest.raises(ValueError, match="q6_singular"):
        ik(np.eye(4), q6_singular=np.inf)
    with pytest.raises(ValueError, match="tol must be at most 1"):
        ik(np.eye(4), tol=2.0)  # a residual bar above 1 would accept any pose
    with pytest.raises(ValueError, match="singular_tol"):
        ik(np.eye(4), singular_tol=1j)
    with pytest.raises(ValueError, match="d1"):
        make_ur5(d1=True)
    with pytest.raises(ValueError, match="singular_tol"):
        wrist_singular(np.zeros(6), singular_tol="1e-9")


def test_nearest_bad_inputs():
    Q, v = np.zeros((8, 6)), np.ones(8, bool)
    with pytest.raises(ValueError, match="boolean"):
        nearest(Q, v.astype(int), np.zeros(6))
    with pytest.raises(ValueError, match="valid has shape"):
        nearest(Q, v[:4], np.zeros(6))
    with pytest.raises(ValueError, match="q_ref"):
        nearest(Q, v, np.zeros(5))
    with pytest.raises(ValueError, match="non-finite"):
        nearest(Q, v, [0, 0, 0, 0, 0, np.nan])
    Qn = Q.copy()
    Qn[0, 0] = np.nan
    with pytest.raises(ValueError, match="rows marked valid"):
        nearest(Qn, v, np.zeros(6))
    with pytest.raises(ValueError, match="weights"):
        nearest(Q, v, np.zeros(6), weights=-np.ones(6))


def test_pose_residual_bad_input():
    with pytest.raises(ValueError):
        pose_residual(np.eye(3), np.eye(4))
    with pytest.raises(ValueError, match="non-finite"):
        pose_residual(np.full((4, 4), np.nan), np.eye(4))


def test_pose_residual_small_rotation():
    T = make_transform(so3_exp([0, 0, 1e-5]), [0, 0, 0])
    np.testing.assert_allclose(pose_residual(T, np.eye(4)), 1e-5, rtol=1e-6)


# ---------------------------------------------------------------- total on reachable poses (issue #16)
def _random_q(n, seed):
    return np.random.default_rng(seed).uniform(-np.pi, np.pi, (n, 6))


@pytest.mark.parametrize("kind", ["float32", "rounded to 8 decimals"])
def test_float32_and_rounded_poses_are_solved(kind):
    q = _random_q(2000, 1)
    T = UR5.fk(q)
    Tin = T.astype(np.float32) if kind == "float32" else np.round(T, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularityWarning)
        Q0, v0 = ik(T)
        res = UR5.ik(Tin, on_unreachable="nan")
    Q, v = res.q, res.valid
    assert v.any(-1).all()  # every pose keeps a branch (the old code gave 0 of 8 for float32)
    np.testing.assert_array_equal(v.sum(-1), v0.sum(-1))  # and the same number of branches
    # the residual is reported and within the per-pose tolerance, which follows the input's own error
    e_in = input_error(Tin)
    assert np.all(res.residual[v] <= np.broadcast_to(tol_of(Tin)[:, None], v.shape)[v])
    assert 1e-9 < e_in.max() <= (2e-7 if kind == "float32" else 3e-8)
    assert input_error(T).max() < 1e-14  # the exact poses
    assert np.array_equal(np.isnan(res.residual), ~v)  # NaN exactly where q is NaN
    Tb = np.broadcast_to(Tin[:, None].astype(float), Q.shape[:2] + (4, 4))
    np.testing.assert_allclose(res.residual[v], pose_residual(UR5.fk(Q[v]), Tb[v]), rtol=0, atol=1e-14)
    # the generating configuration is found to the precision of the input, amplified by the Jacobian's
    # conditioning (large only near singularities): 99 % of poses within 1e-5 rad
    d = np.nanmin(np.abs(wrap(Q - q[:, None])).max(-1), axis=-1)
    assert np.quantile(d, 0.99) < 1e-5


def test_input_error_gain_covers_the_measured_residuals():
    # rotations perturbed entry-wise by up to eps: the branches' FK residual is at most a few times the input
    # error e_in (measured <= 2.1), so INPUT_ERROR_GAIN = 10 keeps every branch that the exact pose has
    rng = np.random.default_rng(4)
    q = _random_q(3000, 2)
    T = UR5.fk(q)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularityWarning)
        _, v0 = ik(T)
        for eps in (1e-9, 1e-8, 1e-7, 2.5e-7):
            Tp = T.copy()
            Tp[:, :3, :3] += rng.uniform(-eps, eps, (len(T), 3, 3))
            res = UR5.ik(Tp, on_unreachable="nan")
            v = res.valid
            ratio = res.residual[v0] / np.broadcast_to(input_error(Tp)[:, None], v0.shape)[v0]
            assert ratio.max() <= INPUT_ERROR_GAIN / 2.5, (eps, ratio.max())
            assert np.all(v[v0])


def test_every_random_wrist_singular_pose_gets_its_branches():
    # q5 = 0 (and q5 = pi): theta6 free. The old code left ~3.5 % of these poses with no valid branch.
    q = _random_q(5000, 3)
    q[:2500, 4] = 0.0
    q[2500:, 4] = np.pi
    T = UR5.fk(q)
    with pytest.warns(SingularityWarning, match="wrist singularity"):
        res = UR5.ik(T, on_unreachable="nan")
    v = res.valid
    assert v.any(-1).all()
    assert np.all(wrist_singular(res.q).any(-1))  # every pose has wrist-singular branches
    assert np.all(res.residual[v] <= 1e-9 + 1e-15)
    UR5.ik(T, on_unreachable="raise", warn=False)  # reachable poses never raise
    # with the generating theta6 as the hint, the generating q is among the branches
    Q2, v2 = ik(T, q6_singular=q[:, 5], warn=False)
    d = np.nanmin(np.abs(wrap(Q2 - q[:, None])).max(-1), axis=-1)
    assert d.max() < 1e-9


@settings(deadline=None)
@given(
    st.lists(st.floats(-np.pi, np.pi), min_size=6, max_size=6),
    st.floats(-np.pi, np.pi),
    st.sampled_from([0.0, 1e-13, -1e-11, 1e-10, 1e-9, 3e-9, np.pi]),
)
def test_property_wrist_singular_poses_always_solved(qlist, hint, q5):
    q = np.array(qlist)
    q[4] = q5
    T = UR5.fk(q)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularityWarning)
        res = UR5.ik(T, q6_singular=hint, on_unreachable="raise")
    Q, v = res.q, res.valid
    assert v.any()
    assert pose_residual(UR5.fk(Q[v]), T).max() <= tol_of(T)
    ws = wrist_singular(Q, singular_tol=1e-9 + INPUT_ERROR_GAIN * input_error(T))
    if ws.any():
        # the documented rule: theta6 = hint where that branch reaches the pose
        kk = ws & v
        on_hint = np.abs(wrap(Q[kk, 5] - hint)) < 1e-12
        Qh, vh = ik(T, q6_singular=hint, warn=False)
        assert on_hint.any() or not np.isclose(wrap(Qh[vh, 5] - hint), 0).any()


def test_wrist_singular_hint_rule_clamps_into_the_reachable_arc():
    # near full stretch only some theta6 keep the wrist in reach: the returned theta6 is the nearest to the hint
    q = np.array([0.0, 3.0, 0.0, 0.0, 0.0, 1.0])
    T = UR5.fk(q)
    Q, v = ik(T, q6_singular=0.0, warn=False)
    assert v.any() and wrist_singular(Q[v]).all()
    assert pose_residual(UR5.fk(Q[v]), T).max() <= 1e-9
    # a finer scan of theta6 between the hint and the returned one finds no reachable value closer to the hint
    k = int(np.flatnonzero(v)[0])
    t6 = Q[k, 5]
    closer = np.linspace(0.0, t6, 50)[:-3]
    for t in closer:
        Qt, vt = ik(T, q6_singular=t, warn=False)
        assert not np.any(np.abs(wrap(Qt[vt, 5] - t)) < 1e-12)


def test_q6_singular_broadcasts_against_the_poses():
    q = _random_q(4, 5)
    q[:, 4] = 0.0
    T = UR5.fk(q)
    Q, v = ik(T, q6_singular=q[:, 5], warn=False)
    assert np.nanmin(np.abs(wrap(Q - q[:, None])).max(-1), axis=-1).max() < 1e-9
    with pytest.raises(ValueError, match="broadcast"):
        ik(T, q6_singular=np.zeros(3))


def test_ik_checks_the_bottom_row_and_refuses_complex_and_huge_input():
    T = UR5.fk(np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7]))
    Tb = T.copy()
    Tb[3, 0] = 1e-3
    for fn in (ik, lambda X: pose_residual(X, T), lambda X: pose_residual(T, X)):
        with pytest.raises(ValueError, match="homogeneous"):
            fn(Tb)
        with pytest.raises(ValueError, match="complex"):
            fn(T + 0j)
        Th = T.copy()
        Th[0, 3] = 1e300
        with pytest.raises(ValueError, match="magnitude"):
            fn(Th)
    with pytest.raises(ValueError, match="complex"):
        UR5.fk(np.zeros(6) + 1j)
    with pytest.raises(ValueError, match="magnitude"):
        UR5.jacobian(np.full(6, 1e300))


@pytest.mark.parametrize("chunk", [1, 7, 100])
def test_chunked_batches_equal_one_pass(monkeypatch, chunk):
    q = _random_q(257, 6)
    q[::5, 4] = 0.0  # include wrist-singular poses
    T = UR5.fk(q)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularityWarning)
        one = UR5.ik(T, on_unreachable="nan")
        one1 = UR5.ik(T, branch="right-up-flip", on_unreachable="nan")
        fk1, J1, F1 = UR5.fk(q), UR5.jacobian(q), UR5.fk_all(q)
        monkeypatch.setattr(transforms, "_CHUNK", chunk)
        many = UR5.ik(T, on_unreachable="nan")
        many1 = UR5.ik(T, branch="right-up-flip", on_unreachable="nan")
        fk2, J2, F2 = UR5.fk(q), UR5.jacobian(q), UR5.fk_all(q)
    for r1, r2 in ((one, many), (one1, many1)):
        for f in ("q", "valid", "residual"):
            np.testing.assert_array_equal(getattr(r1, f), getattr(r2, f))
    np.testing.assert_array_equal(fk1, fk2)
    np.testing.assert_array_equal(J1, J2)
    np.testing.assert_array_equal(F1, F2)
    # batched Jacobian and FK equal the single-configuration path
    np.testing.assert_allclose(J2[:20], np.array([UR5.jacobian(x) for x in q[:20]]), rtol=0, atol=1e-15)
    np.testing.assert_allclose(F2[:20], np.array([UR5.fk_all(x) for x in q[:20]]), rtol=0, atol=1e-15)


def test_near_singular_pose_falls_back_to_the_computed_theta6():
    # |sin q5| = 8e-10 is flagged singular (< 1e-9), but a hint 2 rad away from the true theta6 moves the tool by
    # ~2 |s5| |d| > tol: the branch then uses the theta6 computed from the tool axes, and still reaches the pose
    q = np.array([0.4, -1.0, 1.3, -0.5, 8e-10, 0.9])
    T = UR5.fk(q)
    res = UR5.ik(T, q6_singular=q[5] + 2.0, warn=False)
    Q, v = res.q, res.valid
    assert wrist_singular(Q[v]).any()
    assert np.nanmin(np.abs(wrap(Q - q)).max(-1)) < 1e-6
    _, v0 = ik(T, q6_singular=q[5], warn=False)
    assert v.sum() == v0.sum()
    assert np.all(res.residual[v] <= 1e-9)


# ---------------------------------------------------------------- the mechanism protocol (issue #20)
def _poses(n=300, seed=9):
    q = np.random.default_rng(seed).uniform(-np.pi, np.pi, (n, 6))
    q[::6, 4] = 0.0  # wrist-singular poses too
    return UR5.fk(q)


def test_ik_returns_an_ikresult_whatever_the_options():
    T = _poses(20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularityWarning)
        for kw in ({}, {"on_unreachable": "nan"}, {"branch": "left-down-flip", "on_unreachable": "nan"}):
            res = UR5.ik(T, **kw)
            assert isinstance(res, IKResult)
            assert res.iterations is None and res.reason is None  # a closed form has neither
        res = UR5.ik(T[0])
    assert isinstance(res, IKResult) and res.q.shape == (8, 6) and res.valid.shape == res.residual.shape == (8,)
    assert not hasattr(ur5, "ik") and not hasattr(ur5, "IKInfo") and not hasattr(ur5, "validate")


def test_branch_names_and_all_order():
    assert UR5Arm.branches == UR5.branches and UR5.default_branch == "all"
    assert all(isinstance(b, str) for b in UR5.branches)
    assert UR5.branches == tuple(
        f"{s}-{e}-{w}" for s in ("left", "right") for e in ("up", "down") for w in ("noflip", "flip")
    )
    res = UR5.ik(_poses(5, 1), on_unreachable="nan", warn=False)
    assert res.branch == UR5.branches  # "all" returns every branch, in the order of branches
    assert res.q.shape == (5, 8, 6) and res.valid.shape == (5, 8) and res.residual.shape == (5, 8)


@pytest.mark.parametrize("name", UR5.branches)
def test_single_branch_equals_the_slice_of_all(name):
    T = _poses(400, 2)
    k = UR5.branches.index(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularityWarning)
        every = UR5.ik(T, on_unreachable="nan", q6_singular=0.3)
        one = UR5.ik(T, branch=name, on_unreachable="nan", q6_singular=0.3)
    assert one.branch == name and one.q.shape == (400, 6) and one.valid.shape == (400,)
    np.testing.assert_array_equal(one.q, every.q[:, k])
    np.testing.assert_array_equal(one.valid, every.valid[:, k])
    np.testing.assert_array_equal(one.residual, every.residual[:, k])
    assert one.valid.any() and not one.valid.all()  # not vacuous: both cases occur


@pytest.mark.parametrize("bad", ["left-up", "LEFT-UP-NOFLIP", 0, ("left", "up", "noflip"), None, "knee-back"])
def test_unknown_branch_is_refused(bad):
    with pytest.raises(ValueError, match="branch"):
        UR5.ik(_poses(1), branch=bad)


def test_unreachable_raises_by_default_and_nan_mode_masks():
    far = make_transform(np.eye(3), [2.0, 0.0, 0.0])
    T = np.stack([_poses(2)[1], far])  # pose 0 of _poses is wrist-singular (a warning)
    with pytest.raises(UnreachableError, match="1 of 2"):
        UR5.ik(T)
    res = UR5.ik(T, on_unreachable="nan", warn=False)
    assert res.valid[0].any() and not res.valid[1].any()
    assert np.isnan(res.q[1]).all() and np.isnan(res.residual[1]).all()
    with pytest.raises(ValueError, match="on_unreachable"):
        UR5.ik(T, on_unreachable="skip")


def test_one_branch_raises_where_that_branch_is_missing():
    # a pose with some branches but not all: asking for a missing one raises, the "all" call does not
    T = _poses(400, 3)
    every = UR5.ik(T, on_unreachable="nan", warn=False)
    i = int(np.flatnonzero(every.valid.any(-1) & ~every.valid.all(-1))[0])
    k = int(np.flatnonzero(~every.valid[i])[0])
    UR5.ik(T[i], warn=False)
    with pytest.raises(UnreachableError, match=UR5.branches[k]):
        UR5.ik(T[i], branch=UR5.branches[k], warn=False)
    one = UR5.ik(T[i], branch=UR5.branches[k], on_unreachable="nan", warn=False)
    assert not one.valid and np.isnan(one.q).all() and np.isnan(one.residual)


def test_make_ur5_and_replace_keep_the_class_and_its_ik():
    from dataclasses import replace

    twin = make_ur5(d1=0.089459)
    assert type(twin) is UR5Arm and type(replace(UR5, qlim=None)) is UR5Arm
    q = np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7])
    res = twin.ik(twin.fk(q))  # the IK uses the arm's own d1
    assert np.abs(wrap(res.q - q)).max(-1).min() < 1e-9
    assert pose_residual(twin.fk(res.q[res.valid]), twin.fk(q)).max() <= 1e-9
    other = UR5.ik(twin.fk(q))  # the official arm reaches that pose too, with other angles (d1 is 0.3 mm less)
    assert np.nanmin(np.abs(wrap(other.q - q)).max(-1)) > 1e-4


@pytest.mark.parametrize(
    "kw",
    [
        dict(a=[0.0, -0.5, A3, 0.0, 0.0, 0.0]),
        dict(alpha=[0.0] * 6),
        dict(d=[D1, 0.0, 0.0, D4, D5, 0.1]),
        dict(offset=[0.1, 0, 0, 0, 0, 0]),
        dict(convention="modified"),
        dict(tool=make_transform(np.eye(3), [0.0, 0.0, 0.1])),
    ],
)
def test_ur5arm_refuses_another_table(kw):
    fields = dict(a=UR5.a, alpha=UR5.alpha, d=UR5.d, offset=UR5.offset, convention="standard") | kw
    with pytest.raises(ValueError, match="UR5Arm"):
        UR5Arm(**fields)
    SerialArm(**fields)  # the same table is a fine SerialArm


def test_joint_limits_reject_or_shift_branches():
    T = _poses(500, 4)
    every = UR5.ik(T, on_unreachable="nan", warn=False)
    lim = np.tile([-2 * np.pi, 2 * np.pi], (6, 1))
    lim[1] = [-np.pi, 0.0]  # q2: elbow at or above the shoulder
    lim[0] = [0.0, 2 * np.pi]  # q1: needs the negative angles moved by 2 pi
    tight = make_ur5(qlim=lim)
    res = tight.ik(T, on_unreachable="nan", warn=False)
    inside = every.valid & (every.q[..., 1] <= 0.0)  # q2 in [-pi, 0] as returned in [-pi, pi)
    np.testing.assert_array_equal(res.valid, inside)
    assert res.valid.any() and (every.valid & ~res.valid).any()
    assert np.all(tight.within_limits(res.q[res.valid]))
    assert (every.q[..., 0][res.valid] < 0).any()  # some q1 were moved into [0, 2 pi)
    np.testing.assert_allclose(wrap(res.q[res.valid] - every.q[res.valid]), 0.0, atol=1e-15)
    assert np.array_equal(np.isnan(res.q).all(-1), ~res.valid)
    Tb = np.broadcast_to(T[:, None], res.q.shape[:-1] + (4, 4))
    assert pose_residual(tight.fk(res.q[res.valid]), Tb[res.valid]).max() <= 1e-9
    # a pose whose only branches break the limits is unreachable for that arm
    bad = np.flatnonzero(every.valid.any(-1) & ~res.valid.any(-1))
    if bad.size:
        with pytest.raises(UnreachableError):
            tight.ik(T[bad[0]], warn=False)


def test_input_error_and_wrist_singular_helpers():
    q = np.array([0.4, -1.0, 1.3, -0.5, 0.0, 0.9])
    T = UR5.fk(q)
    assert input_error(T) < 1e-15 and input_error(np.stack([T, T])).shape == (2,)
    Tp = T.copy()
    Tp[0, 0] += 1e-7
    assert input_error(Tp) == pytest.approx(abs(2 * T[0, 0] * 1e-7), rel=1e-3)  # R^T R - I, first order
    with pytest.raises(ValueError, match="not a rotation"):
        input_error(2 * np.eye(4) - np.diag([0, 0, 0, 1.0]))
    assert wrist_singular(q) and not wrist_singular(q + [0, 0, 0, 0, 1e-6, 0])
    assert wrist_singular(q + [0, 0, 0, 0, 1e-6, 0], singular_tol=1e-5)
    assert not wrist_singular(np.full(6, np.nan))  # a NaN row (invalid branch) is not singular
    with pytest.raises(ValueError, match="singular_tol"):
        wrist_singular(q, singular_tol=-1.0)


# --------------------------------------------------------------------------- contest_table
def _contest_plan():
    from robokin.trajectory import minimum_time

    q = np.array(
        [[0.0, -1.6, 1.6, -1.5, -1.57, 0.0], [0.4, -1.2, 1.1, -1.0, -1.2, 0.5], [1.0, -1.4, 1.5, -1.3, -1.0, 1.0]]
    )
    return q, minimum_time(q, vmax=1.0, amax=2.0).traj


def test_contest_table_values():
    from robokin.trajectory import check_limits, plan_quintic, segment_peaks

    q, tr = _contest_plan()
    (hw, rw), (hs, rs) = contest_table(tr, branch=["a", "b", "c"], decimals=4, time_decimals=2)
    assert hw[:3] == ["waypoint", "t (s)", "branch"] and len(hw) == 9 and len(rw) == 3
    assert len(hs) == 4 + 12 and len(rs) == 2 and [r[:3] for r in rs] == [[1, 0, 1], [2, 1, 2]]
    Q = np.array([r[3:] for r in rw])
    assert np.abs(Q - q).max() <= 0.5e-4 + 1e-15  # rounded to nearest
    T = np.array([r[3] for r in rs])
    assert np.all(T >= tr.durations - 1e-12) and np.all(T - tr.durations < 0.01)  # rounded up
    assert np.allclose(np.diff([r[1] for r in rw]), T)
    # the peaks describe the tabulated plan and are rounded up
    tab = plan_quintic(Q, [r[1] for r in rw])
    pk = segment_peaks(tab)[:2]
    P = np.array([[r[4:10], r[10:16]] for r in rs]).transpose(1, 0, 2)
    assert np.all(P >= pk) and np.all(P - pk < 1e-4)
    assert check_limits(tab, vmax=1.0, amax=2.0).feasible  # rounding the times up kept the limits


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 8))
def test_contest_table_bounds(seed, dec):
    from robokin.trajectory import plan_quintic, segment_peaks

    rng = np.random.default_rng(seed)
    K = int(rng.integers(1, 4))
    q = rng.uniform(-2, 2, (K + 1, 6))
    tr = plan_quintic(q, np.concatenate([[0.0], np.cumsum(rng.uniform(0.3, 2.0, K))]))
    (_, rw), (_, rs) = contest_table(tr, branch=["x"] * (K + 1), decimals=dec, time_decimals=3)
    Q = np.array([r[3:] for r in rw])
    assert np.abs(Q - q).max() <= 0.5 * 10.0**-dec * (1 + 1e-9) + 1e-12
    pk = segment_peaks(plan_quintic(Q, [r[1] for r in rw]))[:2]
    P = np.array([[r[4:10], r[10:16]] for r in rs]).transpose(1, 0, 2)
    assert np.all(P >= pk)


@pytest.mark.parametrize(
    "kw",
    [
        dict(traj="not a plan"),
        dict(branch=["a", "b"]),  # one per waypoint: 3
        dict(branch="abc"),
        dict(branch=[1, 2, 3]),
        dict(decimals=0),
        dict(decimals=13),
        dict(decimals=2.0),
        dict(time_decimals=-1),
        dict(time_decimals=7),
    ],
)
def test_contest_table_bad_input(kw):
    _, tr = _contest_plan()
    args = dict(traj=tr, branch=["a", "b", "c"]) | kw
    with pytest.raises(ValueError):
        contest_table(args.pop("traj"), **args)


# ---- UR-family arms with base, tool and offsets (robokin.ur5.URArm) ----------------------------------------------
def _gripper_arm(rng):
    from robokin.ur5 import make_ur_arm

    base = make_transform(rpy_to_matrix(rng.uniform(-1, 1, 3)), rng.uniform(-0.5, 0.5, 3))
    tool = make_transform(rpy_to_matrix(rng.uniform(-1, 1, 3)), [0.02, -0.01, 0.16])
    geom = (0.1273, -0.612, -0.5723, 0.163941, 0.1157, 0.0922)  # a UR10
    return make_ur_arm(geom, offset=rng.uniform(-0.5, 0.5, 6), base=base, tool=tool)


def test_ur_family_ik_with_base_tool_and_offsets_all_eight_branches():
    rng = np.random.default_rng(3030)
    arm = _gripper_arm(rng)
    q = rng.uniform(-np.pi, np.pi, (2000, 6))
    T = arm.fk(q)
    res = arm.ik(T, on_unreachable="nan", warn=False)
    assert res.q.shape == (2000, 8, 6)
    # every returned branch reaches the target by the whole arm's FK (base and tool included)
    ok = res.valid
    err = np.abs(arm.fk(np.where(ok[..., None], res.q, 0.0))[ok] - np.broadcast_to(T[:, None], ok.shape + (4, 4))[ok])
    assert err.max() < 1e-9
    # the configuration that made the pose is among the branches, and all 8 exist for almost every pose
    hit = np.any(np.all(np.abs(wrap(res.q - q[:, None])) < 1e-7, axis=-1), axis=-1)
    assert hit.mean() > 0.999 and (ok.sum(-1) == 8).mean() > 0.5
    # the same branches as the bare arm's closed form on the flange poses, shifted by the offsets
    from robokin.ur5 import make_ur_arm

    bare = make_ur_arm(arm.geometry)
    Tf = transforms.transform_inverse(arm.base) @ T @ transforms.transform_inverse(arm.tool)
    rb = bare.ik(Tf, on_unreachable="nan", warn=False)
    assert np.array_equal(rb.valid, ok)
    assert np.abs(wrap(rb.q - arm.offset - res.q)[ok]).max() < 1e-9
    # the 8 branches are distinct solutions
    i = int(np.argmax(ok.sum(-1) == 8))
    assert len({tuple(np.round(r, 6)) for r in res.q[i]}) == 8


def test_ur_family_ik_agrees_with_the_numerical_solver():
    from robokin.ik import ik_dls

    rng = np.random.default_rng(3031)
    arm = _gripper_arm(rng)
    q = rng.uniform(-np.pi, np.pi, (50, 6))
    T = arm.fk(q)
    res = arm.ik(T, on_unreachable="nan", warn=False)
    num = ik_dls(arm, T, q0=q + rng.normal(0, 0.05, q.shape))
    assert num.valid.mean() > 0.9
    # the numerical answer is one of the analytic branches
    d = np.abs(wrap(res.q - num.q[:, None])).max(-1)
    assert np.all(np.nanmin(np.where(res.valid, d, np.nan), axis=-1)[num.valid] < 1e-6)


def test_ur_family_tool_is_not_ignored():
    # the mistake: solving the flange IK for a gripper target; FK of the answer misses by the tool offset
    from robokin.ur5 import make_ur_arm

    rng = np.random.default_rng(3032)
    arm = _gripper_arm(rng)
    bare = make_ur_arm(arm.geometry, offset=arm.offset, base=arm.base)
    T = arm.fk(rng.uniform(-np.pi, np.pi, 6))
    wrong = bare.ik(T, on_unreachable="nan", warn=False)
    right = arm.ik(T, warn=False)
    assert right.valid.all()
    if wrong.valid.any():
        miss = np.linalg.norm(arm.fk(wrong.q[wrong.valid])[:, :3, 3] - T[:3, 3], axis=-1)
        assert miss.min() > 0.05


def test_ur5_arm_matches_general_ur_arm():
    from robokin.ur5 import UR5_GEOMETRY, make_ur_arm

    general = make_ur_arm(UR5_GEOMETRY, tool=make_transform(np.eye(3), [0.0, 0.0, 1e-3]))
    q = np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7])
    a = UR5.ik(UR5.fk(q)).q
    b = general.ik(general.fk(q)).q
    assert np.abs(wrap(a - b)).max() < 1e-6  # a 1 mm tool shifts the answers a little, same branch order
    with pytest.raises(ValueError, match="UR-family"):
        make_ur_arm((0.1, 0.0, -0.4, 0.1, 0.1, 0.1))


# ------------------------------------------------------------------ issue 29: errors name the argument
@pytest.mark.parametrize("bad", [1.0, None, object(), np.nan, float])
def test_contest_table_refuses_a_branch_that_is_not_a_sequence(bad):
    from robokin.trajectory import plan_quintic

    tr = plan_quintic([[0.0], [1.0]], [0.0, 1.0])
    with pytest.raises(ValueError, match="branch must be a sequence of 2 branch names"):
        ur5.contest_table(tr, branch=bad)


def test_ur5arm_names_the_dh_entries_that_differ():
    arm = ur5.make_ur5()
    for alpha in (np.zeros(6), arm.alpha.astype(np.float32)):
        with pytest.raises(ValueError, match="UR5Arm: alpha differ"):
            ur5.UR5Arm(a=arm.a, alpha=alpha, d=arm.d, offset=np.zeros(6), convention="standard", qlim=arm.qlim)


def test_nearest_shape_errors_name_their_arguments():
    Q = np.zeros((2, 8, 6))
    with pytest.raises(ValueError, match="to match q_branches"):
        ur5.nearest(np.zeros((2, 8, 7)), np.ones((2, 8), bool), np.zeros(6))
    with pytest.raises(ValueError, match="valid must be a boolean mask"):
        ur5.nearest(Q, [[True] * 8, [True]], np.zeros(6))


@pytest.mark.parametrize("case", ["random", "q5=0", "q5 tiny", "q3=0", "float32", "rounded"])
def test_fk_check_verdicts_match_public_fk(case):
    """The IK's own FK check (tan half-angle cos/sin, specialised FK kernel on the branch-by-pose layout) gives
    the residual and verdict that the public ``UR5.fk`` (np.cos/np.sin, one pose per row) gives for every
    returned branch, at the wrist singularity and for inexact input too; a residual taken from other angles
    than the returned ones, or a kernel fed the wrong joint, fails here."""
    rng = np.random.default_rng(3500 + len(case))
    q = rng.uniform(-np.pi, np.pi, (3000, 6))
    if case == "q5=0":
        q[:, 4] = 0.0
    elif case == "q5 tiny":
        q[:, 4] = rng.choice([-1, 1], len(q)) * 10 ** rng.uniform(-12, -6, len(q))
    elif case == "q3=0":
        q[:, 2] = 0.0
    T = UR5.fk(q)
    T = T.astype(np.float32) if case == "float32" else np.round(T, 8) if case == "rounded" else T
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularityWarning)
        res = UR5.ik(T, on_unreachable="nan")
    v = res.valid
    assert np.array_equal(np.isnan(res.q).any(-1), ~v) and np.array_equal(np.isnan(res.residual), ~v)
    assert v.any(-1).all() and v.mean() > 0.5
    Tv = np.broadcast_to(np.asarray(T, float)[:, None], res.q.shape[:-1] + (4, 4))[v]
    ref = pose_residual(UR5.fk(res.q[v]), Tv)
    assert np.abs(res.residual[v] - ref).max() <= 1e-14
    tol = np.broadcast_to(tol_of(T)[:, None], v.shape)[v]
    assert np.all(ref <= tol)
    if case == "random":  # exact, well-conditioned poses: the generating q is one of the branches
        d = np.abs(wrap(res.q - q[:, None])).max(-1)
        assert np.all(np.nanmin(d, axis=-1) <= 1e-8)


def test_cos_sin_of_pm_pairs_is_bit_for_bit_numpy():
    """``_cos_sin_pm`` (cos/sin of +- angle pairs from the first member) equals np.cos/np.sin of every member,
    bit for bit, at 0, -0, +-pi (wrapped to -pi) too; taking the wrong slice or dropping the sign fails."""
    a = np.concatenate([np.random.default_rng(7).uniform(0, np.pi, 5000), [0.0, np.pi, np.nextafter(np.pi, 0)]])
    t = wrap(np.array([1.0, -1.0])[:, None] * a)[None]  # (1, 2, n): the +- pair on axis 1
    c, s = ur5._cos_sin_pm(t, 1)
    assert np.array_equal(np.broadcast_to(c, t.shape), np.cos(t)) and np.array_equal(s, np.sin(t))
    assert np.signbit(s[0, 1, -3]) and t[0, 0, -2] == -np.pi and np.signbit(s[0, 0, -2])


def test_ik_residual_is_pose_residual_of_fk_of_the_returned_q():
    """The FK check takes cos/sin of the wrapped angles it returns, as UR5.fk does: the residual agrees with
    ``pose_residual(UR5.fk(q), T)`` to 1e-15 (chapter 6 asserts this); unwrapped or approximate trig drifts."""
    q = np.random.default_rng(66).uniform(-np.pi, np.pi, (4000, 6))
    T = UR5.fk(q)
    res = UR5.ik(T)
    v = res.valid
    ref = pose_residual(UR5.fk(np.where(v[..., None], res.q, 0.0)), T[:, None])
    assert np.abs(res.residual[v] - ref[v]).max() <= 2e-16


# ------------------------------------------------------------------ issue 33: +-2 pi joint-limit representatives
from robokin.ur5 import QLIM, joint_representatives, nearest_representative  # noqa: E402


def test_representatives_of_a_ur_joint_are_two_per_angle():
    rng = np.random.default_rng(33)
    q = rng.uniform(-np.pi, np.pi, (500, 6))
    r = joint_representatives(q, QLIM)
    assert r.shape == (500, 6, 3)
    assert np.all(np.sum(np.isfinite(r), axis=-1) == 2)  # two, except at exact multiples of 2 pi
    fin = np.isfinite(r)
    assert np.all((r[fin] >= -2 * np.pi) & (r[fin] <= 2 * np.pi))
    assert np.allclose(np.cos(r[..., :2]), np.cos(q)[..., None]) and np.allclose(
        np.sin(r[..., :2]), np.sin(q)[..., None]
    )
    assert np.allclose(np.diff(r[..., :2], axis=-1), 2 * np.pi)
    z = joint_representatives(np.zeros(6), QLIM)
    assert np.all(np.isfinite(z)) and np.allclose(z, [-2 * np.pi, 0.0, 2 * np.pi])  # 0: three
    # a range shorter than a turn: at most one, and none for an angle outside it
    one = joint_representatives([3.0], [[-1.0, 1.0]])
    assert one.shape == (1, 1) and np.isnan(one).all()


def test_nearest_representative_beats_wrapping_and_stays_in_limits():
    rng = np.random.default_rng(34)
    q = rng.uniform(-np.pi, np.pi, (1000, 6))
    q_ref = rng.uniform(-2 * np.pi, 2 * np.pi, (1000, 6))
    best = nearest_representative(q, q_ref, QLIM)
    assert np.all((best >= -2 * np.pi) & (best <= 2 * np.pi))
    assert np.allclose(np.cos(best), np.cos(q)) and np.allclose(np.sin(best), np.sin(q))
    move_best, move_wrap = np.abs(best - q_ref), np.abs(wrap(q) - q_ref)
    assert np.all(move_best <= move_wrap + 1e-12) and move_wrap.max() > 2 * np.pi  # wrapping can cost > a turn
    assert np.all(move_best <= 2 * np.pi + 1e-12)  # a +-2 pi joint: within one turn of any current angle
    # the nearest angle with the limits ignored leaves them near the ends of the range: that is why the limits count
    free = q_ref + wrap(q - q_ref)
    out = (free < -2 * np.pi) | (free > 2 * np.pi)
    assert out.any() and np.all(move_best[~out] <= np.pi + 1e-12) and np.all(move_best[out] > np.pi - 1e-12)
    # broadcasting: eight branches against one current configuration
    sol = UR5.ik(UR5.fk(q[0]))
    b = nearest_representative(np.where(sol.valid[:, None], sol.q, 0.0), q_ref[0], QLIM)
    assert b.shape == (8, 6) and np.all(np.isfinite(b))
    assert np.allclose(UR5.fk(b[sol.valid]), UR5.fk(q[0]), atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.floats(-20, 20), st.floats(-2 * np.pi, 2 * np.pi))
def test_nearest_representative_property(q, q_ref):
    best = float(nearest_representative([q], [q_ref], QLIM[:1])[0])
    assert -2 * np.pi <= best <= 2 * np.pi and abs(wrap(best - q)) < 1e-9
    alts = np.array([best - 2 * np.pi, best + 2 * np.pi])
    alts = alts[(alts >= -2 * np.pi) & (alts <= 2 * np.pi)]
    assert np.all(np.abs(alts - q_ref) >= abs(best - q_ref) - 1e-12)


def test_representatives_bad_input():
    with pytest.raises(ValueError, match="qlim"):
        joint_representatives(np.zeros(6), np.zeros((5, 2)))
    with pytest.raises(ValueError, match="qlim"):
        joint_representatives([0.0], [[1.0, -1.0]])
    for bad in (np.inf, np.nan):
        with pytest.raises(ValueError, match="q"):
            joint_representatives([bad], [[-1.0, 1.0]])
    with pytest.raises(ValueError, match="q"):
        joint_representatives(0.0, [[-1.0, 1.0]])
    with pytest.raises(ValueError, match="q_ref"):
        nearest_representative(np.zeros(6), np.zeros(5), QLIM)
    with pytest.raises(ValueError, match="broadcast"):
        nearest_representative(np.zeros((3, 6)), np.zeros((2, 6)), QLIM)
    with pytest.raises(ValueError, match="q_ref"):
        nearest_representative(np.zeros(6), [0, 0, 0, 0, 0, np.inf], QLIM)
    # a joint with no representative inside its limits is NaN, not a silently clipped angle
    assert np.isnan(nearest_representative([3.0], [0.0], [[-1.0, 1.0]])).all()
    # limits in degrees (or huge ones) would give one representative per turn without bound: refused, named
    with pytest.raises(ValueError, match=r"qlim of joint 1 spans 115 turns .*degrees"):
        joint_representatives([0.0], [[-360.0, 360.0]])
    with pytest.raises(ValueError, match="qlim of joint 2 spans"):
        joint_representatives([0.0, 0.0], [[-1.0, 1.0], [-1e9, 1e9]])
    assert joint_representatives([0.0], [[-8 * np.pi, 8 * np.pi]]).shape == (1, 9)  # 8 turns: accepted
    with pytest.raises(ValueError, match="at least one joint"):
        joint_representatives(np.zeros((3, 0)), np.zeros((0, 2)))
