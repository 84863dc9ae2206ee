"""Tests of robokin.serial: DH conventions, FK, link frames, geometric Jacobian."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robokin import plotting
from robokin._primitives import dh_frame
from robokin.checks import check_jacobian, check_rigid
from robokin.serial import SerialArm, dh_transform, pose_error, pose_error_bound, to_modified, to_standard
from robokin.transforms import make_transform, rotx, rotz, so3_exp, so3_log, transform_inverse
from robokin.ur5 import UR5, UR5Arm
from robokin.validation.serial import validate

RNG = np.random.default_rng(20260530)


def _trans(x, y, z):
    return make_transform(np.eye(3), [x, y, z])


def _rot(R):
    return make_transform(R, [0.0, 0.0, 0.0])


def _random_arm(rng, convention, n=6, base=False):
    a, d = rng.uniform(-0.5, 0.5, n), rng.uniform(-0.5, 0.5, n)
    alpha, off = rng.uniform(-np.pi, np.pi, n), rng.uniform(-np.pi, np.pi, n)
    kw = {}
    if base:
        kw = dict(
            base=make_transform(so3_exp(rng.normal(size=3)), rng.normal(size=3)),
            tool=make_transform(so3_exp(rng.normal(size=3)), rng.normal(size=3)),
        )
    return SerialArm.from_dh(a, alpha, d, offset=off, convention=convention, **kw)


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_dh_is_product_of_elementary_transforms(convention):
    for _ in range(50):
        a, alpha, d, th = RNG.uniform(-2, 2, 4)
        T = dh_transform(a, alpha, d, th, convention=convention)
        if convention == "standard":
            ref = _rot(rotz(th)) @ _trans(0, 0, d) @ _trans(a, 0, 0) @ _rot(rotx(alpha))
        else:
            ref = _rot(rotx(alpha)) @ _trans(a, 0, 0) @ _rot(rotz(th)) @ _trans(0, 0, d)
        np.testing.assert_allclose(T, ref, atol=1e-14)


def test_conventions_differ():
    # the same numbers mean different transforms: the convention is not cosmetic
    T1 = dh_transform(0.3, 0.7, 0.2, 1.1, convention="standard")
    T2 = dh_transform(0.3, 0.7, 0.2, 1.1, convention="modified")
    assert np.abs(T1 - T2).max() > 0.1


def test_dh_batched_broadcast():
    th = RNG.uniform(-3, 3, (4, 5))
    T = dh_transform(0.2, np.pi / 2, 0.1, th, convention="standard")
    assert T.shape == (4, 5, 4, 4)
    np.testing.assert_allclose(T[2, 3], dh_transform(0.2, np.pi / 2, 0.1, th[2, 3], convention="standard"))


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_link_frames_are_the_dh_transforms(convention):
    arm = _random_arm(RNG, convention)
    q = RNG.uniform(-np.pi, np.pi, 6)
    F = arm.fk_all(q)
    assert F.shape == (7, 4, 4)
    np.testing.assert_allclose(F[0], np.eye(4))
    for i in range(6):
        A = dh_transform(arm.a[i], arm.alpha[i], arm.d[i], q[i] + arm.offset[i], convention=convention)
        np.testing.assert_allclose(transform_inverse(F[i]) @ F[i + 1], A, atol=1e-12)
    np.testing.assert_allclose(arm.fk(q), F[-1], atol=1e-14)


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_fk_matches_matrix_product_with_base_and_tool(convention):
    arm = _random_arm(RNG, convention, base=True)
    q = RNG.uniform(-np.pi, np.pi, (10, 6))
    for qi, T in zip(q, arm.fk(q)):
        ref = arm.base.copy()
        for i in range(6):
            ref = ref @ dh_transform(arm.a[i], arm.alpha[i], arm.d[i], qi[i] + arm.offset[i], convention=convention)
        np.testing.assert_allclose(T, ref @ arm.tool, atol=1e-12)


def _pose_vec(arm, q_ref):
    """FK as [p, log(R R_ref^T)]: a chart of SE(3) around q_ref (rotation log, not Euler angles)."""
    R0 = arm.fk(q_ref)[..., :3, :3]

    def f(q):
        T = arm.fk(q)
        R0b = R0[..., None, :, :] if q.ndim == q_ref.ndim + 1 else R0
        return np.concatenate([T[..., :3, 3], so3_log(T[..., :3, :3] @ np.swapaxes(R0b, -1, -2))], -1)

    return f


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_jacobian_vs_finite_differences(convention):
    arm = _random_arm(RNG, convention, base=True)
    q = RNG.uniform(-np.pi, np.pi, (200, 6))
    rep = check_jacobian(arm.jacobian, _pose_vec(arm, q), q, eps=1e-6, tol=1e-6)
    assert rep.samples == 200


def test_jacobian_angular_rows_match_rotation_derivative():
    arm = _random_arm(RNG, "standard")
    q = RNG.uniform(-np.pi, np.pi, 6)
    J = arm.jacobian(q)
    R = arm.fk(q)[:3, :3]
    h = 1e-6
    for i in range(6):
        dq = np.zeros(6)
        dq[i] = h
        dR = (arm.fk(q + dq)[:3, :3] - arm.fk(q - dq)[:3, :3]) / (2 * h)
        W = dR @ R.T  # = hat(omega_i)
        np.testing.assert_allclose([W[2, 1], W[0, 2], W[1, 0]], J[3:, i], atol=1e-8)


def test_planar_two_link_closed_forms():
    l1, l2 = 0.7, 0.4
    arm = SerialArm.from_dh([l1, l2], [0, 0], [0, 0], convention="standard")
    q = RNG.uniform(-np.pi, np.pi, (100, 2))
    x = l1 * np.cos(q[:, 0]) + l2 * np.cos(q.sum(1))
    y = l1 * np.sin(q[:, 0]) + l2 * np.sin(q.sum(1))
    np.testing.assert_allclose(arm.fk(q)[:, 0, 3], x, atol=1e-14)
    np.testing.assert_allclose(arm.fk(q)[:, 1, 3], y, atol=1e-14)
    # Yoshikawa: w = l1 l2 |sin q2| for the planar 2R position Jacobian
    np.testing.assert_allclose(arm.manipulability(q, part="position"), l1 * l2 * np.abs(np.sin(q[:, 1])), atol=1e-12)


def test_manipulability_is_abs_det_for_six_joints():
    arm = _random_arm(RNG, "modified")
    q = RNG.uniform(-np.pi, np.pi, (20, 6))
    np.testing.assert_allclose(arm.manipulability(q), np.abs(np.linalg.det(arm.jacobian(q))), rtol=1e-9, atol=1e-14)
    sv = arm.singular_values(q)
    assert sv.shape == (20, 6) and np.all(np.diff(sv, axis=-1) <= 1e-15)
    assert arm.singular_values(q, part="orientation").shape == (20, 3)


def test_within_limits():
    arm = SerialArm.from_dh([1, 1], [0, 0], [0, 0], convention="standard", qlim=[[-1, 1], [-2, 2]])
    assert arm.within_limits([[0, 0], [1.5, 0], [0, -2.5]]).tolist() == [True, False, False]
    assert arm.within_limits([1.0 + 1e-9, 0], tol=1e-8)


def test_pose_error_uses_rotation_vector():
    R = so3_exp([0.1, -0.2, 0.3])
    e = pose_error(make_transform(R, [1, 2, 3]), np.eye(4))
    np.testing.assert_allclose(e, [1, 2, 3, 0.1, -0.2, 0.3], atol=1e-14)
    # near pi the rotation vector stays correct where Euler differences would wrap
    e = pose_error(_rot(rotz(np.pi - 1e-3)), _rot(rotz(-np.pi + 1e-3)))
    np.testing.assert_allclose(e[3:], [0, 0, -2e-3], atol=1e-12)


def test_validate_reports_pass():
    reps = validate(rng=np.random.default_rng(0), fast=True)
    assert len(reps) == 3 and all(r.passed for r in reps)


@settings(deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["standard", "modified"]), st.integers(1, 7))
def test_property_fk_rigid_and_batch_consistent(seed, convention, n):
    rng = np.random.default_rng(seed)
    arm = _random_arm(rng, convention, n=n, base=True)
    q = rng.uniform(-10, 10, (3, 2, n))
    T = arm.fk(q)
    check_rigid(T, tol=1e-12)
    np.testing.assert_allclose(T[1, 0], arm.fk(q[1, 0]), atol=1e-15)
    assert arm.jacobian(q).shape == (3, 2, 6, n)
    assert arm.fk_all(q).shape == (3, 2, n + 1, 4, 4)


# ---- bad input -------------------------------------------------------------------------------


def test_convention_is_required_and_checked():
    with pytest.raises(TypeError):
        SerialArm.from_dh([1.0], [0.0], [0.0])  # no default convention on purpose
    with pytest.raises(TypeError):
        dh_transform(1, 0, 0, 0)
    with pytest.raises(ValueError, match="convention"):
        dh_transform(1, 0, 0, 0, convention="craig")
    with pytest.raises(ValueError, match="convention"):
        SerialArm.from_dh([1.0], [0.0], [0.0], convention="Standard")


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_rejected(bad):
    arm = SerialArm.from_dh([1, 1], [0, 0], [0, 0], convention="standard")
    for fn in (arm.fk, arm.fk_all, arm.jacobian, arm.manipulability, arm.singular_values, arm.within_limits):
        with pytest.raises(ValueError, match="non-finite"):
            fn([0.0, bad])
    with pytest.raises(ValueError, match="non-finite"):
        dh_transform(bad, 0, 0, 0, convention="modified")
    with pytest.raises(ValueError, match="non-finite"):
        SerialArm.from_dh([1, bad], [0, 0], [0, 0], convention="standard")
    with pytest.raises(ValueError, match="non-finite"):
        pose_error(np.full((4, 4), bad), np.eye(4))


def test_bad_shapes_rejected():
    arm = SerialArm.from_dh([1, 1], [0, 0], [0, 0], convention="standard")
    with pytest.raises(ValueError, match=r"\(\.\.\., 2\)"):
        arm.fk([0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"\(\.\.\., 2\)"):
        arm.jacobian(np.zeros((3, 1)))
    with pytest.raises(ValueError, match="shape"):
        SerialArm.from_dh([1, 1], [0, 0, 0], [0, 0], convention="standard")
    with pytest.raises(ValueError, match="non-empty"):
        SerialArm.from_dh([], [], [], convention="standard")
    with pytest.raises(ValueError, match="qlim"):
        SerialArm.from_dh([1, 1], [0, 0], [0, 0], convention="standard", qlim=[[1, -1], [0, 1]])
    with pytest.raises(ValueError, match="qlim"):
        SerialArm.from_dh([1, 1], [0, 0], [0, 0], convention="standard", qlim=[[-1, 1]])
    with pytest.raises(ValueError, match="rigid|FAIL"):
        SerialArm.from_dh([1], [0], [0], convention="standard", base=2 * np.eye(4))
    with pytest.raises(ValueError, match="broadcast"):
        dh_transform(np.zeros(2), 0, 0, np.zeros(3), convention="standard")
    with pytest.raises(ValueError, match="part"):
        arm.manipulability([0, 0], part="linear")
    with pytest.raises(ValueError, match="numeric"):
        arm.fk("zero")


# ---- issue #16: transforms checked where taken, complex and huge input, chunked batches ------


def test_pose_error_checks_its_transforms():
    T = make_transform(rotz(0.3), [1.0, 2.0, 3.0])
    Tb = T.copy()
    Tb[3, 2] = 1e-3
    for a, b in ((Tb, T), (T, Tb)):
        with pytest.raises(ValueError, match="homogeneous"):
            pose_error(a, b)
    Tr = T.copy()
    Tr[:3, :3] *= 1.001
    with pytest.raises(ValueError, match="not a rotation"):
        pose_error(Tr, T)
    with pytest.raises(ValueError, match="complex"):
        pose_error(T + 0j, T)


@pytest.mark.parametrize(
    "call",
    [
        lambda x: dh_transform(x, 0.0, 0.0, 0.0, convention="standard"),
        lambda x: dh_transform(0.0, 0.0, 0.0, x, convention="modified"),
        lambda x: SerialArm.from_dh([x, 1.0], [0, 0], [0, 0], convention="standard"),
        lambda x: SerialArm.from_dh([1.0, 1.0], [0, 0], [0, 0], convention="standard").fk([0.0, x]),
        lambda x: SerialArm.from_dh([1.0, 1.0], [0, 0], [0, 0], convention="standard").jacobian([[0.0, x]]),
        lambda x: SerialArm.from_dh([1.0, 1.0], [0, 0], [0, 0], convention="standard").fk_all([x, 0.0]),
    ],
)
def test_complex_and_huge_inputs_rejected(call):
    call(0.5)
    with pytest.raises(ValueError, match="complex"):
        call(0.5 + 1e-3j)
    with pytest.raises(ValueError, match="magnitude"):
        call(1e300)


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_batched_jacobian_equals_single_and_chunking_is_exact(monkeypatch, convention):
    from robokin import transforms

    rng = np.random.default_rng(3)
    arm = _random_arm(rng, convention, n=5, base=True)
    arm = SerialArm.from_dh(
        arm.a,
        arm.alpha,
        arm.d,
        offset=arm.offset,
        convention=convention,
        base=arm.base,
        tool=make_transform(rotz(0.4), [0.1, -0.2, 0.3]),
    )
    q = rng.uniform(-3, 3, (23, 5))
    J, T, F = arm.jacobian(q), arm.fk(q), arm.fk_all(q)
    np.testing.assert_allclose(J, np.array([arm.jacobian(x) for x in q]), rtol=0, atol=1e-14)
    np.testing.assert_allclose(T, np.array([arm.fk(x) for x in q]), rtol=0, atol=1e-14)
    monkeypatch.setattr(transforms, "_CHUNK", 4)
    np.testing.assert_array_equal(arm.jacobian(q), J)
    np.testing.assert_array_equal(arm.fk(q), T)
    np.testing.assert_array_equal(arm.fk_all(q), F)


@pytest.mark.parametrize(
    "field,value", [("a", [1.0, np.nan]), ("alpha", [0.0, 1e300]), ("d", [0.0]), ("offset", [0.0, 1j]), ("a", "ab")]
)
def test_direct_constructor_checks_every_field(field, value):
    kw = dict(a=[1.0, 1.0], alpha=[0.0, 0.0], d=[0.0, 0.0], offset=[0.0, 0.0], convention="standard") | {field: value}
    with pytest.raises(ValueError):
        SerialArm(**kw)
    arm = SerialArm(a=[1.0, 1.0], alpha=[0.0, 0.0], d=[0.0, 0.0], offset=[0.0, 0.0], convention="standard")
    np.testing.assert_allclose(arm.fk([0.0, 0.0])[:3, 3], [2.0, 0.0, 0.0])


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_fk_all_batched_frames_equal_the_single_call_products(convention, rng=np.random.default_rng(19)):
    # batched frames come from the column recursion, one configuration from 4x4 DH products: same frames
    arm = SerialArm.from_dh(
        rng.uniform(-1, 1, 5),
        rng.uniform(-3, 3, 5),
        rng.uniform(-1, 1, 5),
        offset=rng.uniform(-1, 1, 5),
        convention=convention,
    )
    q = rng.uniform(-np.pi, np.pi, (40, 5))
    F = arm.fk_all(q)
    assert np.abs(F - np.array([arm.fk_all(qk) for qk in q])).max() <= 1e-12
    assert np.abs(F[:, -1] - arm.fk(q)).max() <= 1e-12


# ---- issue #20: one DH formula; validation outside the mechanism module; plotting helpers --------------------


def test_dh_transform_is_the_shared_kernel_plus_checks():
    rng = np.random.default_rng(7)
    a, al, d, th = rng.uniform(-2, 2, (4, 30))
    for conv in ("standard", "modified"):
        np.testing.assert_array_equal(
            dh_transform(a, al, d, th, convention=conv), dh_frame(a, al, d, th, conv == "standard")
        )
    import robokin.serial

    assert not hasattr(robokin.serial, "validate") and "validate" not in robokin.serial.__all__


def test_draw_arm_and_tidy3d():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    arm = SerialArm.from_dh([0.5, 0.4, 0.0], [0, np.pi / 2, 0], [0.1, 0, 0.2], convention="standard")
    q = np.array([0.3, -0.7, 1.1])
    fig, ax = plotting.new_3d_axes()
    P = plotting.draw_arm(ax, arm, q, color="C3", label="arm")
    np.testing.assert_array_equal(P, arm.fk_all(q)[:, :3, 3])
    (line,) = ax.lines
    x, y, z = line.get_data_3d()
    np.testing.assert_array_equal(np.stack([x, y, z], -1), P)  # the drawn polyline is the link origins
    assert line.get_label() == "arm" and line.get_color() == "C3"
    plotting.draw_arm(ax, arm, q, frames=True, frame_length=0.1)
    assert len(ax.lines) == 1 + 1 + 3 * (arm.n + 1)
    x, y, z = ax.lines[2].get_data_3d()  # base frame's x axis, 0.1 long
    np.testing.assert_allclose([x[1] - x[0], y[1] - y[0], z[1] - z[0]], [0.1, 0.0, 0.0], atol=1e-15)
    assert plotting.tidy3d(ax, lim=0.6, zlim=(-0.5, 1.0), ticksize=6) is ax
    assert ax.get_xlim() == (-0.6, 0.6) and ax.get_zlim() == (-0.5, 1.0)
    with pytest.raises(ValueError, match="one configuration"):
        plotting.draw_arm(ax, arm, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="zlim"):
        plotting.tidy3d(ax, zlim=(1.0, -1.0))
    with pytest.raises(ValueError, match="lim"):
        plotting.tidy3d(ax, lim=-1.0)
    plt.close(fig)


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_special_twists_batched_frames(convention, rng=np.random.default_rng(23)):
    # twists of 0, +-pi/2 and pi make exact 0, 1 and -1 coefficients that the column recursion skips: the frames
    # must still equal the products of the DH transforms (random twists, as above, never hit those branches)
    arm = SerialArm.from_dh(
        rng.uniform(-1, 1, 6),
        [0.0, np.pi / 2, -np.pi / 2, np.pi, -np.pi / 2, np.pi / 2],
        rng.uniform(-1, 1, 6),
        offset=rng.uniform(-1, 1, 6),
        convention=convention,
    )
    q = rng.uniform(-np.pi, np.pi, (30, 6))
    F = arm.fk_all(q)
    ref = np.broadcast_to(np.eye(4), (30, 4, 4))
    for i in range(6):
        ref = ref @ dh_transform(arm.a[i], arm.alpha[i], arm.d[i], q[:, i] + arm.offset[i], convention=convention)
        assert np.abs(F[:, i + 1] - ref).max() <= 1e-12, i


# --------------------------------------------------------------------------- pose_error_bound
def test_pose_error_bound_planar_exact():
    # planar 2R, both joints perturbed the same way at q = 0: the tip moves by the bound to first order
    arm = SerialArm.from_dh([1.0, 0.5], [0, 0], [0, 0], convention="standard")
    pos, rot = pose_error_bound(arm, [1e-6, 1e-6])
    assert pos == pytest.approx(2e-6) and rot == pytest.approx(2e-6)
    moved = np.linalg.norm(arm.fk([1e-6, 1e-6])[:3, 3] - arm.fk([0.0, 0.0])[:3, 3])
    assert moved == pytest.approx(pos, rel=1e-5)  # tight: the bound is attained here
    # a tool offset adds to every joint's reach; the batch axis is kept
    tooled = SerialArm.from_dh(
        [1.0, 0.5], [0, 0], [0, 0], convention="standard", tool=make_transform(np.eye(3), [0.2, 0, 0])
    )
    pos_b, rot_b = pose_error_bound(tooled, [[1e-3, 0.0], [0.0, 1e-3]])
    assert np.allclose(pos_b, [1.7e-3, 0.7e-3]) and np.allclose(rot_b, 1e-3)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["standard", "modified"]), st.integers(1, 7))
def test_pose_error_bound_holds(seed, convention, n):
    rng = np.random.default_rng(seed)
    arm = SerialArm.from_dh(
        rng.uniform(-1, 1, n),
        rng.uniform(-np.pi, np.pi, n),
        rng.uniform(-1, 1, n),
        convention=convention,
        tool=make_transform(so3_exp(rng.normal(size=3)), rng.uniform(-0.3, 0.3, 3)),
    )
    dq = rng.uniform(0, 0.05, n)
    q = rng.uniform(-np.pi, np.pi, (200, n))
    dl = rng.uniform(-1, 1, q.shape) * dq
    e = pose_error(arm.fk(q), arm.fk(q + dl))
    pos, rot = pose_error_bound(arm, dq)
    assert np.linalg.norm(e[:, :3], axis=1).max() <= pos * (1 + 1e-9) + 1e-15
    assert np.linalg.norm(e[:, 3:], axis=1).max() <= rot * (1 + 1e-9) + 1e-15


@pytest.mark.parametrize(
    "arm, dq",
    [
        ("not an arm", [0.1]),
        (None, [0.1]),
        ("arm", [0.1]),  # wrong length
        ("arm", [-0.1, 0.1]),
        ("arm", [np.nan, 0.1]),
        ("arm", [1j, 0.1]),
        ("arm", "ab"),
    ],
)
def test_pose_error_bound_bad_input(arm, dq):
    real = SerialArm.from_dh([1.0, 0.5], [0, 0], [0, 0], convention="standard")
    with pytest.raises(ValueError):
        pose_error_bound(real if arm == "arm" else arm, dq)


# ---- standard <-> modified DH ------------------------------------------------------------------------------------
def test_dh_conversion_round_trip():
    rng = np.random.default_rng(31)
    for _ in range(20):
        n = int(rng.integers(1, 8))
        arm = SerialArm.from_dh(
            rng.uniform(-1, 1, n),
            rng.uniform(-np.pi, np.pi, n),
            rng.uniform(-1, 1, n),
            offset=rng.uniform(-1, 1, n),
            convention=str(rng.choice(["standard", "modified"])),
        )
        q = rng.uniform(-np.pi, np.pi, (50, n))
        for other in (to_modified(arm), to_standard(arm), to_standard(to_modified(arm))):
            assert np.abs(other.fk(q) - arm.fk(q)).max() < 1e-13
            assert np.abs(other.jacobian(q) - arm.jacobian(q)).max() < 1e-13
        z1, o1 = arm.joint_axes(q)
        z2, _ = to_modified(arm).joint_axes(q) if arm.convention == "standard" else to_standard(arm).joint_axes(q)
        assert np.abs(z1 - z2).max() < 1e-13


def test_dh_conversion_is_not_the_naive_relabel():
    # copying a standard table into the modified convention unchanged (the classic mistake) changes the FK
    arm = UR5
    naive = SerialArm.from_dh(arm.a, arm.alpha, arm.d, convention="modified")
    q = np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7])
    assert np.abs(naive.fk(q) - arm.fk(q)).max() > 0.1
    assert np.abs(to_modified(arm).fk(q) - arm.fk(q)).max() < 1e-15
    with pytest.raises(ValueError, match="SerialArm"):
        to_modified("UR5")
    assert type(UR5Arm) is type  # the UR5 class stays importable


# ------------------------------------------------------------------ issue 29: within_limits(tol) is validated
@pytest.mark.parametrize("bad", [np.inf, np.nan, -1e-3, 1.0, "abc", None, 1j, np.array([0.1, 0.1])])
def test_within_limits_refuses_a_tolerance_that_fools_it(bad):
    arm = SerialArm.from_dh([1.0], [0], [0], convention="standard", qlim=[[-1, 1]])
    with pytest.raises(ValueError, match="tol must be"):
        arm.within_limits([100.0], tol=bad)  # with tol=inf, 100 rad would be "within" [-1, 1]


def test_within_limits_small_tolerance_still_works():
    arm = SerialArm.from_dh([1.0], [0], [0], convention="standard", qlim=[[-1, 1]])
    assert arm.within_limits([1.05], tol=0.1) and not arm.within_limits([1.05], tol=np.float32(0.01))


# ------------------------------------------------------------------ issue 33: product of exponentials
from robokin.serial import poe_fk, screw_axes  # noqa: E402


@pytest.mark.parametrize("frame", ["space", "body"])
@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_poe_equals_dh_fk_on_random_arms(frame, convention):
    rng = np.random.default_rng(33)
    for _ in range(5):
        arm = _random_arm(rng, convention, n=int(rng.integers(1, 8)), base=True)
        M, S = screw_axes(arm, frame=frame)
        assert S.shape == (arm.n, 6) and np.allclose(np.linalg.norm(S[:, 3:], axis=1), 1.0)
        q = rng.uniform(-2 * np.pi, 2 * np.pi, (40, arm.n))
        assert np.abs(poe_fk(M, S, q, frame=frame) - arm.fk(q)).max() < 1e-12
        assert np.abs(poe_fk(M, S, q[0], frame=frame) - arm.fk(q[0])).max() < 1e-12  # unbatched


def test_poe_space_and_body_axes_are_related_by_the_home_adjoint():
    M, S = screw_axes(UR5, frame="space")
    M2, B = screw_axes(UR5, frame="body")
    assert np.array_equal(M, M2) and np.allclose(M, UR5.fk(np.zeros(6)))
    # S_i = Ad(M) B_i; v = -omega x o: the moment of each axis about the origin
    R, p = M[:3, :3], M[:3, 3]
    w_s, v_s = B[:, 3:] @ R.T, B[:, :3] @ R.T + np.cross(p, B[:, 3:] @ R.T)
    assert np.allclose(np.hstack([v_s, w_s]), S, atol=1e-15)
    z, o = UR5.joint_axes(np.zeros(6))
    assert np.allclose(S[:, 3:], z) and np.allclose(S[:, :3], np.cross(o, z))
    # the swapped twist order (Modern Robotics writes [omega; v]) gives a different, wrong FK
    q = np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7])
    assert np.abs(poe_fk(M, S[:, [3, 4, 5, 0, 1, 2]], q, frame="space") - UR5.fk(q)).max() > 0.1
    # and so do body screws used as space screws
    assert np.abs(poe_fk(M, B, q, frame="space") - UR5.fk(q)).max() > 0.1


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-10, 10, allow_nan=False), min_size=6, max_size=6))
def test_poe_property_ur5_matches_dh(q):
    for frame in ("space", "body"):
        M, S = screw_axes(UR5, frame=frame)
        assert np.abs(poe_fk(M, S, q, frame=frame) - UR5.fk(q)).max() < 1e-12


def test_poe_bad_input():
    M, S = screw_axes(UR5, frame="space")
    with pytest.raises(ValueError, match="arm must be"):
        screw_axes("UR5", frame="space")
    with pytest.raises(ValueError, match="frame"):
        screw_axes(UR5, frame="world")
    with pytest.raises(ValueError, match="frame"):
        poe_fk(M, S, np.zeros(6), frame="spatial")
    with pytest.raises(ValueError, match="M"):
        poe_fk(np.ones((4, 4)), S, np.zeros(6), frame="space")
    with pytest.raises(ValueError, match="M"):
        poe_fk(np.stack([M, M]), S, np.zeros(6), frame="space")
    with pytest.raises(ValueError, match="screws"):
        poe_fk(M, S[:, :5], np.zeros(6), frame="space")
    with pytest.raises(ValueError, match="screws"):
        poe_fk(M, S[None], np.zeros(6), frame="space")
    with pytest.raises(ValueError, match="q"):
        poe_fk(M, S, np.zeros(5), frame="space")
    with pytest.raises(ValueError, match="q"):
        poe_fk(M, S, [0, 0, 0, 0, 0, np.nan], frame="space")
    with pytest.raises(ValueError, match="q"):
        poe_fk(M, S, 0.0, frame="space")


def test_conversion_and_poe_match_the_robotics_toolbox():
    # an outside reference (chapter 5): RTB's modified-DH links and its PoERobot, built from our tables and screws
    rtb = pytest.importorskip("roboticstoolbox")
    from spatialmath import SE3

    q = np.random.default_rng(35).uniform(-2 * np.pi, 2 * np.pi, (20, 6))
    m = to_modified(UR5)
    robot = rtb.DHRobot([rtb.RevoluteMDH(a=m.a[i], alpha=m.alpha[i], d=m.d[i]) for i in range(6)])
    M, S = screw_axes(UR5, frame="space")
    poe = rtb.PoERobot([rtb.PoERevolute(S[i, 3:], np.cross(S[i, 3:], S[i, :3])) for i in range(6)], SE3(M, check=False))
    for qk in q:
        assert np.abs(np.asarray(robot.fkine(qk).A) - UR5.fk(qk)).max() < 1e-12
        assert np.abs(np.asarray(poe.fkine(qk).A) - poe_fk(M, S, qk, frame="space")).max() < 1e-12


def test_a_converted_arm_with_a_tool_matches_the_robotics_toolbox():
    # chapter 5's 3R arm: its conversion leaves a tool transform (a_3 != 0), which RTB carries as the robot's tool;
    # dropping it (tool=None) moves the tool by |a_3| = 0.1 m, so the comparison can fail
    rtb = pytest.importorskip("roboticstoolbox")
    from spatialmath import SE3

    arm = SerialArm.from_dh([0.3, 0.25, 0.1], [np.pi / 2, 0.0, 0.0], [0.2, 0.0, 0.0], convention="standard")
    m = to_modified(arm)
    links = [rtb.RevoluteMDH(a=m.a[i], alpha=m.alpha[i], d=m.d[i]) for i in range(3)]
    with_tool = rtb.DHRobot(links, tool=SE3(m.tool, check=False))
    without = rtb.DHRobot([rtb.RevoluteMDH(a=m.a[i], alpha=m.alpha[i], d=m.d[i]) for i in range(3)])
    assert not np.allclose(m.tool, np.eye(4))
    for qk in np.random.default_rng(53).uniform(-np.pi, np.pi, (20, 3)):
        assert np.abs(np.asarray(with_tool.fkine(qk).A) - arm.fk(qk)).max() < 1e-12
        gap = np.linalg.norm(np.asarray(without.fkine(qk).A)[:3, 3] - arm.fk(qk)[:3, 3])
        assert abs(gap - 0.1) < 1e-12
