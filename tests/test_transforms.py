"""Tests for robokin.transforms: unit, property (hypothesis), cross-checks with scipy, bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.spatial.transform import Rotation

from robokin import transforms as tf

rng = np.random.default_rng(12345)
finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)
vec3 = arrays(float, 3, elements=finite)


def random_rotations(n):
    return Rotation.random(n, random_state=np.random.default_rng(7)).as_matrix()


# ---------------------------------------------------------------- elementary rotations and Euler angles
def test_elementary_rotations_match_scipy():
    t = rng.uniform(-np.pi, np.pi, 50)
    for fn, ax in ((tf.rotx, "x"), (tf.roty, "y"), (tf.rotz, "z")):
        np.testing.assert_allclose(fn(t), Rotation.from_euler(ax, t[:, None]).as_matrix(), atol=1e-15)


def test_rpy_is_zyx_matches_scipy_intrinsic_ZYX():
    rpy = rng.uniform(-3, 3, (200, 3))
    expected = Rotation.from_euler("ZYX", rpy[:, ::-1]).as_matrix()
    np.testing.assert_allclose(tf.rpy_to_matrix(rpy), expected, atol=1e-14)


@pytest.mark.parametrize("order", ["xyz", "zyx", "zyz", "xzx", "yxz"])
def test_euler_to_matrix_matches_scipy(order):
    a = rng.uniform(-3, 3, (100, 3))
    np.testing.assert_allclose(
        tf.euler_to_matrix(a, order=order), Rotation.from_euler(order.upper(), a).as_matrix(), atol=1e-14
    )


def test_euler_order_matters():
    a = np.array([0.3, 0.4, 0.5])
    assert tf.rotation_distance(tf.euler_to_matrix(a, order="zyx"), tf.euler_to_matrix(a, order="xyz")) > 0.1


def test_matrix_to_rpy_roundtrip_and_gimbal_lock():
    rpy = np.column_stack(
        [rng.uniform(-np.pi, np.pi, 500), rng.uniform(-1.5, 1.5, 500), rng.uniform(-np.pi, np.pi, 500)]
    )
    np.testing.assert_allclose(tf.matrix_to_rpy(tf.rpy_to_matrix(rpy)), rpy, atol=1e-12)
    for pitch in (np.pi / 2, -np.pi / 2):
        R = tf.rpy_to_matrix([0.4, pitch, -0.7])
        back = tf.matrix_to_rpy(R)
        assert back[0] == 0.0  # documented choice at gimbal lock
        np.testing.assert_allclose(tf.rpy_to_matrix(back), R, atol=1e-12)


@given(arrays(float, 3, elements=st.floats(-1.5, 1.5)))
@settings(deadline=None)
def test_zyx_rate_matrix_is_derivative_of_rotation(rpy):
    # omega_hat = Rdot R^T; compare with finite differences along a random rate
    rate = np.array([0.3, -0.2, 0.5])
    h = 1e-6
    Rdot = (tf.rpy_to_matrix(rpy + h * rate) - tf.rpy_to_matrix(rpy - h * rate)) / (2 * h)
    R = tf.rpy_to_matrix(rpy)
    w_world = tf.vee(Rdot @ R.T)
    w_body = tf.vee(R.T @ Rdot)
    np.testing.assert_allclose(tf.zyx_rate_matrix(rpy, frame="world") @ rate, w_world, atol=1e-8)
    np.testing.assert_allclose(tf.zyx_rate_matrix(rpy, frame="body") @ rate, w_body, atol=1e-8)


def test_wrap_to_pi_half_open():
    a = np.array([np.pi, -np.pi, 3 * np.pi, 0.0, -1e-300, 7.0])
    w = tf.wrap_to_pi(a)
    assert np.all(w >= -np.pi) and np.all(w < np.pi)
    np.testing.assert_allclose(np.sin(w), np.sin(a), atol=1e-12)
    np.testing.assert_allclose(np.cos(w), np.cos(a), atol=1e-12)


# ---------------------------------------------------------------- exp / log
def test_so3_exp_log_match_scipy():
    R = random_rotations(1000)
    np.testing.assert_allclose(tf.so3_log(R), Rotation.from_matrix(R).as_rotvec(), atol=1e-12)
    w = rng.normal(size=(1000, 3))
    np.testing.assert_allclose(tf.so3_exp(w), Rotation.from_rotvec(w).as_matrix(), atol=1e-13)


@pytest.mark.parametrize("theta", [0.0, 1e-12, 1e-8, 1e-5, 1e-4, 2e-4, 1.0, np.pi - 1e-6, np.pi - 1e-9, np.pi])
def test_so3_log_edge_angles(theta):
    axis = np.array([1.0, -2.0, 0.5]) / np.linalg.norm([1.0, -2.0, 0.5])
    R = tf.so3_exp(theta * axis)
    w = tf.so3_log(R)
    assert abs(np.linalg.norm(w) - theta) < 1e-9
    np.testing.assert_allclose(tf.so3_exp(w), R, atol=1e-12)  # at pi the axis sign is free, the rotation is not


@given(vec3)
@settings(deadline=None)
def test_so3_log_exp_property(w):
    theta = np.linalg.norm(w)
    if theta > np.pi - 1e-6:  # log returns the equivalent vector with angle in [0, pi]
        w = w / theta * (theta % (2 * np.pi))
    R = tf.so3_exp(w)
    assert tf.is_rotation(R, tol=1e-12)
    np.testing.assert_allclose(tf.so3_exp(tf.so3_log(R)), R, atol=1e-12)


def test_se3_exp_log_roundtrip_and_batch():
    xi = np.concatenate([rng.normal(size=(300, 3)), rng.uniform(-1.5, 1.5, (300, 3))], axis=1)
    xi = xi[np.linalg.norm(xi[:, 3:], axis=1) < np.pi - 1e-3]  # log returns angles in [0, pi]
    T = tf.se3_exp(xi)
    assert T.shape == (300, 4, 4)
    np.testing.assert_allclose(tf.se3_log(T), xi, atol=1e-11)
    small = xi * 1e-9
    np.testing.assert_allclose(tf.se3_log(tf.se3_exp(small)), small, atol=1e-20)


# ---------------------------------------------------------------- exp / log to round-off at the edges
# theta on a log scale near 0 and near pi: (exponent, side); side 0 means theta = 10**e, side 1 pi - 10**e.
edge_theta = st.tuples(st.floats(-16, np.log10(np.pi)), st.sampled_from([0, 1])).map(
    lambda t: 10 ** t[0] if t[1] == 0 else max(np.pi - 10 ** t[0], 0.0)
)
unit3 = (
    arrays(float, 3, elements=st.floats(-1, 1))
    .filter(lambda a: np.linalg.norm(a) > 0.1)
    .map(lambda a: a / np.linalg.norm(a))
)


@given(edge_theta, unit3)
@settings(deadline=None)
def test_so3_log_exp_relative_round_off_near_0_and_pi(theta, axis):
    w = theta * axis
    R = Rotation.from_rotvec(w).as_matrix()  # independent of so3_exp
    np.testing.assert_allclose(tf.so3_exp(tf.so3_log(R)), R, rtol=0, atol=1e-12)
    for r in (tf.so3_log(tf.so3_exp(w)), tf.so3_log(R)):
        err = np.linalg.norm(r - w)
        if np.pi - theta <= 1e-12:  # within 1e-12 of a half-turn, -w is the same rotation to 2e-12
            err = min(err, np.linalg.norm(r + w))
        assert err <= 1e-12 * theta, (theta, err / theta)


@given(edge_theta, unit3, arrays(float, 3, elements=st.floats(-2, 2)), st.floats(-12, 0))
@settings(deadline=None)
def test_se3_log_exp_relative_round_off_near_0_and_pi(theta, axis, v, log_scale):
    if np.pi - theta <= 1e-12:
        theta = np.pi - 1e-12  # exactly at pi the twist's sign is free; tested with half-turns below
    xi = np.concatenate([v * 10**log_scale, theta * axis])
    if np.linalg.norm(xi) == 0:
        return
    back = tf.se3_log(tf.se3_exp(xi))
    assert np.linalg.norm(back - xi) <= 1e-12 * np.linalg.norm(xi)
    T = tf.make_transform(Rotation.from_rotvec(theta * axis).as_matrix(), v)
    np.testing.assert_allclose(tf.se3_exp(tf.se3_log(T)), T, rtol=0, atol=1e-12 * (1 + np.linalg.norm(v)))


def test_se3_log_keeps_every_digit_just_above_the_series_threshold():
    # (1 - cos t) / t^2 by subtraction lost ~8 digits here (relative error 2.7e-9 at t = 2e-4)
    for theta in (1.01e-4, 2e-4, 5e-4, 1e-3, 1e-2, 0.19, 0.21):
        xi = np.array([0.3, -0.2, 0.5, 0.6 * theta, 0.8 * theta, 0.0])
        back = tf.se3_log(tf.se3_exp(xi))
        assert np.linalg.norm(back - xi) <= 2e-15 * np.linalg.norm(xi), theta


HALF_TURN_AXES = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, -1, 1], [0.3, -0.2, 0.9], [-1, 2, 0.5]]


@pytest.mark.parametrize("axis", HALF_TURN_AXES)
def test_exact_half_turns_from_scipy(axis):
    a = np.array(axis, float) / np.linalg.norm(axis)
    R = Rotation.from_rotvec(np.pi * a).as_matrix()
    w = tf.so3_log(R)  # no division by zero (it would raise: warnings are errors in the tests)
    assert abs(np.linalg.norm(w) - np.pi) <= 1e-12
    assert min(np.linalg.norm(w - np.pi * a), np.linalg.norm(w + np.pi * a)) <= 1e-12
    np.testing.assert_allclose(tf.so3_exp(w), R, rtol=0, atol=1e-12)
    T = tf.make_transform(R, [0.5, -1.0, 2.0])
    np.testing.assert_allclose(tf.se3_exp(tf.se3_log(T)), T, rtol=0, atol=1e-12)


@pytest.mark.parametrize("diag", [(1, -1, -1), (-1, 1, -1), (-1, -1, 1)])
def test_so3_log_of_exact_diagonal_half_turns(diag):
    import warnings

    R = Rotation.from_quat(np.r_[np.array(diag) > 0, 0.0].astype(float)).as_matrix()  # scipy: exact half-turn
    assert np.array_equal(R, np.diag(np.array(diag, float)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the old code evaluated 2 / 0 here
        w = tf.so3_log(R)
    np.testing.assert_allclose(np.abs(w), np.pi * (np.array(diag) > 0), atol=1e-15)
    np.testing.assert_allclose(tf.so3_exp(w), R, atol=1e-15)


def test_transform_inverse_and_points():
    R = random_rotations(20)
    p = rng.normal(size=(20, 3))
    T = tf.make_transform(R, p)
    np.testing.assert_allclose(tf.transform_inverse(T) @ T, np.broadcast_to(np.eye(4), T.shape), atol=1e-14)
    pts = rng.normal(size=(20, 3))
    np.testing.assert_allclose(tf.transform_points(T, pts), np.einsum("nij,nj->ni", R, pts) + p, atol=1e-14)


def test_rigid_transform_preserves_distances():
    T = tf.make_transform(random_rotations(1)[0], [1.0, -2.0, 0.5])
    a, b = rng.normal(size=(2, 100, 3))
    d0 = np.linalg.norm(a - b, axis=-1)
    d1 = np.linalg.norm(tf.transform_points(T, a) - tf.transform_points(T, b), axis=-1)
    np.testing.assert_allclose(d1, d0, atol=1e-13)


# ---------------------------------------------------------------- interpolation
@pytest.mark.parametrize("method", ["decoupled", "screw"])
def test_interpolate_pose_endpoints_and_constant_rate(method):
    T0 = tf.make_transform(tf.rpy_to_matrix([0.1, 0.2, 0.3]), [0, 0, 0])
    T1 = tf.make_transform(tf.rpy_to_matrix([1.0, -0.5, 2.0]), [1, 2, 3])
    s = np.linspace(0, 1, 21)
    T = tf.interpolate_pose(T0, T1, s, method=method)
    np.testing.assert_allclose(T[0], T0, atol=1e-13)
    np.testing.assert_allclose(T[-1], T1, atol=1e-12)
    steps = tf.rotation_distance(T[:-1, :3, :3], T[1:, :3, :3])
    np.testing.assert_allclose(steps, steps[0], atol=1e-12)  # constant angular speed


def test_decoupled_interpolation_moves_on_straight_line():
    T0 = np.eye(4)
    T1 = tf.make_transform(tf.rotz(2.0), [1.0, 1.0, 0.0])
    p = tf.interpolate_pose(T0, T1, np.linspace(0, 1, 11))[:, :3, 3]
    np.testing.assert_allclose(p[:, 0], p[:, 1], atol=1e-15)


# ---------------------------------------------------------------- bad input
BAD_R = [np.eye(3) * 2, np.diag([1.0, 1.0, -1.0]), np.ones((3, 3))]


@pytest.mark.parametrize("R", BAD_R)
@pytest.mark.parametrize("fn", [tf.so3_log, tf.matrix_to_rpy, lambda R: tf.make_transform(R, [0, 0, 0])])
def test_non_rotation_rejected(fn, R):
    with pytest.raises(ValueError, match="not a rotation"):
        fn(R)


@pytest.mark.parametrize(
    "call",
    [
        lambda x: tf.rotx(x),
        lambda x: tf.rpy_to_matrix([x, 0, 0]),
        lambda x: tf.so3_exp([0, x, 0]),
        lambda x: tf.hat([x, 0, 0]),
        lambda x: tf.wrap_to_pi(x),
        lambda x: tf.se3_exp([x, 0, 0, 0, 0, 0]),
        lambda x: tf.transform_points(np.eye(4), [x, 0, 0]),
        lambda x: tf.zyx_rate_matrix([0, x, 0], frame="world"),
        lambda x: tf.euler_to_matrix([0, x, 0], order="zyx"),
        lambda x: tf.interpolate_pose(np.eye(4), np.eye(4), x),
        lambda x: tf.make_transform(np.eye(3), [0, x, 0]),
    ],
)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_rejected(call, bad):
    with pytest.raises(ValueError, match="non-finite"):
        call(bad)


@pytest.mark.parametrize(
    "call",
    [
        lambda: tf.rpy_to_matrix([0.1, 0.2]),
        lambda: tf.so3_exp(np.zeros((4, 2))),
        lambda: tf.so3_log(np.eye(4)),
        lambda: tf.hat(np.zeros(4)),
        lambda: tf.vee(np.zeros((2, 2))),
        lambda: tf.transform_inverse(np.eye(3)),
        lambda: tf.se3_log(np.eye(3)),
        lambda: tf.se3_exp(np.zeros(3)),
        lambda: tf.make_transform(np.eye(3), [1, 2]),
        lambda: tf.transform_points(np.eye(4), [1, 2]),
        lambda: tf.matrix_to_rpy(np.zeros(3)),
    ],
)
def test_wrong_shape_rejected(call):
    with pytest.raises(ValueError, match="shape"):
        call()


def test_bad_options_rejected():
    with pytest.raises(ValueError, match="order"):
        tf.euler_to_matrix([0, 0, 0], order="zzx")
    with pytest.raises(ValueError, match="order"):
        tf.euler_to_matrix([0, 0, 0], order="abc")
    with pytest.raises(ValueError, match="frame"):
        tf.zyx_rate_matrix([0, 0, 0], frame="space")
    with pytest.raises(ValueError, match="method"):
        tf.interpolate_pose(np.eye(4), np.eye(4), 0.5, method="euler")
    bad_T = np.eye(4)
    bad_T[3, 0] = 1.0
    with pytest.raises(ValueError, match="homogeneous"):
        tf.transform_inverse(bad_T)


def test_non_numeric_rejected():
    with pytest.raises(ValueError, match="numeric"):
        tf.rotx("abc")


# ---------------------------------------------------------------- every public function, hostile input
_T = tf.make_transform(tf.rotz(0.3), [1.0, 2.0, 3.0])
PUBLIC = {
    "wrap_to_pi": (tf.wrap_to_pi, [np.array([0.1, 4.0])]),
    "rotx": (tf.rotx, [np.array([0.1, 0.2])]),
    "roty": (tf.roty, [np.array(0.1)]),
    "rotz": (tf.rotz, [np.array(0.1)]),
    "euler_to_matrix": (lambda a: tf.euler_to_matrix(a, order="xyz"), [np.array([0.1, 0.2, 0.3])]),
    "rpy_to_matrix": (tf.rpy_to_matrix, [np.array([0.1, 0.2, 0.3])]),
    "matrix_to_rpy": (tf.matrix_to_rpy, [tf.rotx(0.2)]),
    "zyx_rate_matrix": (lambda a: tf.zyx_rate_matrix(a, frame="body"), [np.array([0.1, 0.2, 0.3])]),
    "hat": (tf.hat, [np.array([1.0, 2.0, 3.0])]),
    "vee": (tf.vee, [tf.hat([1.0, 2.0, 3.0])]),
    "so3_exp": (tf.so3_exp, [np.array([0.1, 0.2, 0.3])]),
    "so3_log": (tf.so3_log, [tf.rotx(0.2)]),
    "rotation_distance": (tf.rotation_distance, [tf.rotx(0.2), tf.roty(0.1)]),
    "is_rotation": (tf.is_rotation, [tf.rotx(0.2)]),
    "check_rotation": (tf.check_rotation, [tf.rotx(0.2)]),
    "make_transform": (tf.make_transform, [tf.rotx(0.2), np.array([1.0, 2.0, 3.0])]),
    "transform_inverse": (tf.transform_inverse, [_T]),
    "transform_points": (tf.transform_points, [_T, np.array([1.0, 2.0, 3.0])]),
    "se3_exp": (tf.se3_exp, [np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])]),
    "se3_log": (tf.se3_log, [_T]),
    "interpolate_pose": (tf.interpolate_pose, [np.eye(4), _T, np.array([0.0, 0.5])]),
    "quat_from_matrix": (lambda R: tf.quat_from_matrix(R, order="xyzw"), [tf.rotx(0.2)]),
    "matrix_from_quat": (lambda q: tf.matrix_from_quat(q, order="wxyz"), [np.array([0.5, 0.5, 0.5, 0.5])]),
    "quat_multiply": (
        lambda p, q: tf.quat_multiply(p, q, order="wxyz"),
        [np.array([0.5, 0.5, 0.5, 0.5]), np.array([1.0, 0.0, 0.0, 0.0])],
    ),
    "adjoint": (tf.adjoint, [_T]),
}


def test_public_list_is_complete():
    assert set(PUBLIC) == set(tf.__all__)


@pytest.mark.parametrize("name", sorted(PUBLIC))
@given(data=st.data())
@settings(max_examples=max(5, settings.default.max_examples // 7), deadline=None)  # scales with the profile
def test_every_function_rejects_nan_and_inf_anywhere(name, data):
    fn, args = PUBLIC[name]
    fn(*args)  # the valid call works
    k = data.draw(st.integers(0, len(args) - 1))
    bad = np.array(args[k], dtype=float, copy=True)
    idx = data.draw(st.integers(0, bad.size - 1))
    bad.flat[idx] = data.draw(st.sampled_from([np.nan, np.inf, -np.inf]))
    poisoned = list(args)
    poisoned[k] = bad
    with pytest.raises(ValueError):
        fn(*poisoned)


@pytest.mark.parametrize("name", sorted(n for n, (_, a) in PUBLIC.items() if a[0].ndim >= 1))
def test_every_function_rejects_a_wrong_trailing_shape(name):
    fn, args = PUBLIC[name]
    if name in ("wrap_to_pi", "rotx"):  # element-wise: any shape is valid
        return
    wrong = np.zeros(args[0].shape[:-1] + (args[0].shape[-1] + 1,))
    with pytest.raises(ValueError, match="shape"):
        fn(wrong, *args[1:])


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_every_function_rejects_complex_input(name):
    fn, args = PUBLIC[name]
    for k in range(len(args)):
        bad = list(args)
        bad[k] = np.asarray(args[k]) + 0j
        bad[k].flat[0] += 1e-3j
        with pytest.raises(ValueError, match="complex"):
            fn(*bad)


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_every_function_gives_a_clear_error_on_huge_input(name):
    # 1e300 anywhere: a ValueError naming the argument, never inf/NaN with an overflow warning (warnings are errors)
    fn, args = PUBLIC[name]
    for k in range(len(args)):
        bad = [np.array(a, dtype=float, copy=True) for a in args]
        flat = bad[k].reshape(-1)
        flat[3 if bad[k].shape[-2:] == (4, 4) else flat.size - 1] = 1e300
        with pytest.raises(ValueError, match="magnitude|not a rotation"):
            fn(*bad)


def test_large_rotation_entries_are_not_a_rotation():
    R = np.eye(3)
    R[0, 1] = 1e10
    assert not tf.is_rotation(R)
    with pytest.raises(ValueError, match="not a rotation"):
        tf.check_rotation(np.where(np.eye(3) > 0, 1e10, 0.0))


@pytest.mark.parametrize(
    "fn",
    [
        lambda T: tf.transform_points(T, [1.0, 2.0, 3.0]),
        tf.transform_inverse,
        tf.se3_log,
        lambda T: tf.interpolate_pose(np.eye(4), T, 0.5),
    ],
)
def test_bottom_row_checked_wherever_a_transform_is_taken(fn):
    T = tf.make_transform(tf.rotz(0.3), [1.0, 2.0, 3.0])
    fn(T)
    T[3, 1] = 1e-3
    with pytest.raises(ValueError, match="homogeneous"):
        fn(T)


def test_default_rotation_tolerance_is_tight():
    # ROTATION_TOL is a documented 1e-6: an orthogonality error of 1e-5 is refused, 1e-8 accepted
    R = tf.rotz(0.3) @ np.diag([1 + 5e-6, 1.0, 1.0])
    assert not tf.is_rotation(R)
    with pytest.raises(ValueError, match="tol=1e-06"):
        tf.check_rotation(R)
    assert tf.is_rotation(tf.rotz(0.3) @ np.diag([1 + 5e-9, 1.0, 1.0]))


@pytest.mark.parametrize("pitch", [np.pi / 2 - 1e-5, -np.pi / 2 + 1e-5, np.pi / 2 - 1e-7])
def test_matrix_to_rpy_round_trip_just_off_gimbal_lock(pitch):
    # only |pitch| = pi/2 to round-off (cos pitch < 1e-9) is treated as gimbal lock; at 1e-5..1e-7 away,
    # roll and yaw are still separately defined and recovered
    rpy = np.array([0.4, pitch, -0.7])
    back = tf.matrix_to_rpy(tf.rpy_to_matrix(rpy))
    np.testing.assert_allclose(back, rpy, atol=1e-7)


def test_closed_form_rpy_kernels_equal_the_generic_products():
    """The closed-form kernels behind rpy_to_matrix and zyx_rate_matrix (robokin._primitives, also used
    unchecked by the Stewart ODE) equal the elementary-rotation products they expand."""
    rpy = np.random.default_rng(25).uniform(-3, 3, size=(200, 3))
    np.testing.assert_allclose(tf.rpy_to_matrix(rpy), tf.euler_to_matrix(rpy[:, ::-1], order="zyx"), atol=4e-16)
    R = tf.rpy_to_matrix(rpy)
    ex, ey, ez = np.eye(3)
    Rz_Ry_ex = R @ ex  # Rz Ry Rx e_x = Rz Ry e_x
    Rz_ey = np.einsum(
        "nij,j->ni", tf.euler_to_matrix(np.stack([rpy[:, 2], 0 * rpy[:, 0], 0 * rpy[:, 0]], -1), order="zyx"), ey
    )
    E = tf.zyx_rate_matrix(rpy, frame="world")
    np.testing.assert_allclose(E[..., 0], Rz_Ry_ex, atol=4e-16)
    np.testing.assert_allclose(E[..., 1], Rz_ey, atol=4e-16)
    np.testing.assert_allclose(E[..., 2], np.broadcast_to(ez, (200, 3)), atol=0)
    w = np.random.default_rng(26).normal(size=(50, 3))
    v = np.random.default_rng(27).normal(size=(50, 3))
    np.testing.assert_allclose(tf.hat(w) @ v[..., None], np.cross(w, v)[..., None], atol=1e-15)


# ------------------------------------------------------------------ issue 29: the rotation tolerance is validated
REFLECTION = np.diag([1.0, 1.0, -1.0])


@pytest.mark.parametrize("tol", [np.inf, 1e300, 2.0, 0.5, np.nan, -1e-6, 0.0, 1j, "1e-6", None])
def test_no_tolerance_lets_a_reflection_pass(tol):
    # so3_log(reflection, tol=inf) returned the identity's log before
    for fn in (tf.so3_log, tf.is_rotation, tf.matrix_to_rpy, lambda R, tol: tf.check_rotation(R, tol=tol)):
        with pytest.raises(ValueError, match="^tol "):
            fn(REFLECTION, tol=tol)
    T = np.eye(4)
    T[:3, :3] = REFLECTION
    for fn in (tf.se3_log, tf.transform_inverse, lambda T, tol: tf.transform_points(T, [1.0, 0, 0], tol=tol)):
        with pytest.raises(ValueError, match="^tol "):
            fn(T, tol=tol)


def test_loosest_allowed_tolerance_still_refuses_a_reflection():
    assert not tf.is_rotation(REFLECTION, tol=tf.MAX_ROTATION_TOL)
    with pytest.raises(ValueError, match="not a rotation"):
        tf.so3_log(REFLECTION, tol=tf.MAX_ROTATION_TOL)
    np.testing.assert_allclose(tf.so3_log(tf.rotz(0.4), tol=np.float32(1e-6)), [0, 0, 0.4], atol=1e-15)


def test_interpolation_and_distance_keep_their_internal_slack():
    R = tf.rotz(0.3) + 2e-3  # off by a few 1e-3: within tol=1e-2
    assert float(tf.rotation_distance(R, R, tol=1e-2)) < 1e-2
    with pytest.raises(ValueError, match="name must be a string"):
        tf.check_rotation(np.eye(3), 3.0)


# ---------------------------------------------------------------- quaternions (both component orders) and the adjoint
unit4 = (
    arrays(float, 4, elements=st.floats(-1, 1))
    .filter(lambda q: np.linalg.norm(q) > 0.1)
    .map(lambda q: q / np.linalg.norm(q))
)


@pytest.mark.parametrize("order", ["wxyz", "xyzw"])
def test_quaternions_match_scipy_in_both_orders(order):
    R = random_rotations(500)
    q = tf.quat_from_matrix(R, order=order)
    assert q.shape == (500, 4)
    ref = Rotation.from_matrix(R).as_quat(canonical=False, scalar_first=(order == "wxyz"))
    w = q[:, 0] if order == "wxyz" else q[:, 3]
    assert np.all(w >= 0)
    sign = np.sign(np.sum(q * ref, axis=1))[:, None]  # scipy may return -q: the same rotation
    np.testing.assert_allclose(q, sign * ref, atol=1e-14)
    np.testing.assert_allclose(tf.matrix_from_quat(q, order=order), R, atol=1e-14)
    np.testing.assert_allclose(
        tf.matrix_from_quat(ref, order=order),
        Rotation.from_quat(ref, scalar_first=(order == "wxyz")).as_matrix(),
        atol=1e-14,
    )


def test_quaternions_match_mujoco_scalar_first():
    mujoco = pytest.importorskip("mujoco")
    R = random_rotations(50)
    for Ri in R:
        q_mj = np.zeros(4)
        mujoco.mju_mat2Quat(q_mj, Ri.reshape(-1).copy())
        q = tf.quat_from_matrix(Ri, order="wxyz")
        np.testing.assert_allclose(q, np.sign(q @ q_mj) * q_mj, atol=1e-14)
        M = np.zeros(9)
        mujoco.mju_quat2Mat(M, q)
        np.testing.assert_allclose(tf.matrix_from_quat(q, order="wxyz"), M.reshape(3, 3), atol=1e-15)


@given(unit4, unit4)
@settings(deadline=None)
def test_hamilton_product_is_the_matrix_product(p, q):
    for order in ("wxyz", "xyzw"):
        pp, qq = (p, q) if order == "wxyz" else (p[[1, 2, 3, 0]], q[[1, 2, 3, 0]])
        pq = tf.quat_multiply(pp, qq, order=order)
        np.testing.assert_allclose(np.linalg.norm(pq), 1.0, atol=1e-14)
        np.testing.assert_allclose(
            tf.matrix_from_quat(pq, order=order),
            tf.matrix_from_quat(pp, order=order) @ tf.matrix_from_quat(qq, order=order),
            atol=1e-14,
        )


@given(unit4)
@settings(deadline=None)
def test_double_cover_and_round_trip(q):
    R = tf.matrix_from_quat(q, order="wxyz")
    np.testing.assert_array_equal(R, tf.matrix_from_quat(-q, order="wxyz"))
    back = tf.quat_from_matrix(R, order="wxyz")
    np.testing.assert_allclose(back, np.sign(back @ q) * q, atol=1e-13)


def test_quat_multiply_units_and_batch():
    one = np.array([1.0, 0, 0, 0])
    i, j, k = np.eye(4)[1:]
    np.testing.assert_array_equal(tf.quat_multiply(i, j, order="wxyz"), k)
    np.testing.assert_array_equal(tf.quat_multiply(i, i, order="wxyz"), -one)
    np.testing.assert_array_equal(tf.quat_multiply(i[[1, 2, 3, 0]], j[[1, 2, 3, 0]], order="xyzw"), k[[1, 2, 3, 0]])
    q = tf.quat_from_matrix(random_rotations(7), order="wxyz")
    assert tf.quat_multiply(q, one, order="wxyz").shape == (7, 4)
    np.testing.assert_array_equal(tf.quat_multiply(q, one, order="wxyz"), q)


def test_swapped_order_is_a_different_rotation_near_identity():
    # the classic slip: scipy's [x, y, z, w] read as [w, x, y, z]; near the identity it is a half-turn
    q_xyzw = tf.quat_from_matrix(tf.rotx(0.01), order="xyzw")
    assert tf.rotation_distance(tf.matrix_from_quat(q_xyzw, order="wxyz"), tf.rotx(0.01)) > 3.0


def test_float32_sensor_quaternion_accepted_and_normalised():
    q = np.float32([0.7071068, 0.0, 0.0, 0.7071068])
    R = tf.matrix_from_quat(q, order="wxyz")
    assert tf.is_rotation(R, tol=1e-14)


def test_adjoint_maps_twists_between_frames():
    T = tf.make_transform(random_rotations(20), rng.normal(size=(20, 3)))
    xi = rng.normal(size=(20, 6))
    lhs = T @ tf.se3_exp(xi) @ tf.transform_inverse(T)
    np.testing.assert_allclose(lhs, tf.se3_exp((tf.adjoint(T) @ xi[..., None])[..., 0]), atol=1e-12)
    Ad = tf.adjoint(T)
    np.testing.assert_allclose(tf.adjoint(tf.transform_inverse(T)), np.linalg.inv(Ad), atol=1e-12)
    np.testing.assert_allclose(tf.adjoint(T[:-1] @ T[1:]), Ad[:-1] @ Ad[1:], atol=1e-12)
    np.testing.assert_array_equal(tf.adjoint(np.eye(4)), np.eye(6))


@given(vec3, arrays(float, 6, elements=st.floats(-3, 3)), vec3)
@settings(deadline=None)
def test_adjoint_conjugation_property(w, xi, p):
    T = tf.make_transform(tf.so3_exp(w), p)
    hat6 = lambda x: np.block([[tf.hat(x[3:]), x[:3, None]], [np.zeros((1, 4))]])  # noqa: E731
    np.testing.assert_allclose(
        T @ hat6(xi) @ tf.transform_inverse(T), hat6(tf.adjoint(T) @ xi), atol=1e-12 * (1 + np.abs(p).max()) ** 2
    )


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: tf.quat_from_matrix(np.eye(3), order="wxyz "), "order"),
        (lambda: tf.quat_from_matrix(np.eye(3), order="scalar_first"), "order"),
        (lambda: tf.matrix_from_quat([1.0, 0, 0, 0], order="WXYZ"), "order"),
        (lambda: tf.quat_multiply([1.0, 0, 0, 0], [1.0, 0, 0, 0], order=None), "order"),
        (lambda: tf.matrix_from_quat([0.0, 0, 0, 0], order="wxyz"), "q is not a unit quaternion"),
        (lambda: tf.matrix_from_quat([1.0, 0, 0, 0.01], order="xyzw"), "q is not a unit quaternion"),
        (lambda: tf.matrix_from_quat([1.0, 0, 0, 0], order="wxyz", tol=0.5), "tol"),
        (lambda: tf.matrix_from_quat([1.0, 0, 0], order="wxyz"), "q .*shape"),
        (lambda: tf.quat_multiply([1.0, 0, 0, 0], [1.0, 0, 0], order="wxyz"), "q .*shape"),
        (lambda: tf.quat_from_matrix(np.diag([1.0, 1.0, -1.0]), order="wxyz"), "R is not a rotation"),
        (lambda: tf.adjoint(2 * np.eye(4)), "T is not|T\\[..., :3, :3\\] is not"),
        (lambda: tf.adjoint(np.eye(3)), "T .*shape"),
    ],
)
def test_quaternion_and_adjoint_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_order_is_required():
    with pytest.raises(TypeError, match="order"):
        tf.quat_from_matrix(np.eye(3))  # no default: the caller must say which convention
    with pytest.raises(TypeError, match="order"):
        tf.matrix_from_quat([1.0, 0, 0, 0])


def test_quat_multiply_names_p_and_q_when_batches_do_not_broadcast():
    with pytest.raises(ValueError, match="p and q must broadcast together"):
        tf.quat_multiply(np.tile([1.0, 0, 0, 0], (2, 1)), np.tile([1.0, 0, 0, 0], (3, 1)), order="wxyz")


def test_a_reflection_is_named_by_its_determinant():
    # orthogonal but det -1: the orthogonality error is 0, so the message must report the determinant
    with pytest.raises(ValueError, match=r"worst \|det R - 1\| 2 \(a reflection: det R = -1\)"):
        tf.quat_from_matrix(np.diag([1.0, 1.0, -1.0]), order="wxyz")
