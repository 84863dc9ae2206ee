"""Rotations and rigid transforms, batched over leading axes.

Conventions (see the Conventions page of the book):

* SI units, radians.
* Rotation matrices act on column vectors: ``p_world = R @ p_body``.
* RPY means **ZYX**: ``R = Rz(yaw) @ Ry(pitch) @ Rx(roll)`` with the vector
  ordered ``[roll, pitch, yaw]``.
* A rotation vector (axis-angle) is ``omega = theta * axis`` with
  ``theta`` in ``[0, pi]``.
* Homogeneous transforms are ``(..., 4, 4)`` arrays ``[[R, p], [0, 1]]``.
* Angles are wrapped to ``[-pi, pi)``.
* Unit quaternions are Hamilton quaternions ``w + x i + y j + z k``; every quaternion function takes the
  component order as a required keyword, ``order="wxyz"`` (scalar first: MuJoCo, Eigen's constructor) or
  ``order="xyzw"`` (scalar last: scipy's ``Rotation.as_quat``, ROS arrays). There is no default.
* Twists are ordered ``xi = [v, omega]`` (linear, then angular), as in :func:`se3_exp`.

Every function accepts arrays with any number of leading (batch) axes and
returns float64 arrays with the same leading axes.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from . import _primitives as _p
from ._validate import as_array, broadcast, choice, text, tolerance

__all__ = [
    "wrap_to_pi",
    "rotx",
    "roty",
    "rotz",
    "euler_to_matrix",
    "rpy_to_matrix",
    "matrix_to_rpy",
    "zyx_rate_matrix",
    "hat",
    "vee",
    "so3_exp",
    "so3_log",
    "rotation_distance",
    "is_rotation",
    "check_rotation",
    "make_transform",
    "transform_inverse",
    "transform_points",
    "se3_exp",
    "se3_log",
    "interpolate_pose",
    "quat_from_matrix",
    "matrix_from_quat",
    "quat_multiply",
    "adjoint",
]

ROTATION_TOL = 1e-6  # default tolerance for "is this a rotation matrix?"
#: Largest ``tol`` of a rotation check: a looser one would accept matrices that are not rotations (a reflection
#: has ``|det R - 1| = 2``, a 10 % scaling ``max|R^T R - I| = 0.21``).
MAX_ROTATION_TOL = 1e-2
_CHUNK = 8192  # items per chunk for large batches (bounded temporaries; see benchmarks/bench_memory.py)


def _tol(tol):
    """A rotation-check tolerance in ``(0, MAX_ROTATION_TOL]``, as float."""
    return tolerance(tol, "tol", max=MAX_ROTATION_TOL)


def _chunks(n):
    """Slices that cut ``range(n)`` into chunks of ``_CHUNK`` items (one slice when ``n`` is small)."""
    step = max(int(_CHUNK), 1)
    return [slice(i, min(i + step, n)) for i in range(0, max(n, 1), step)]


def wrap_to_pi(angle: ArrayLike) -> float | np.ndarray:
    """Wrap angles to the half-open interval ``[-pi, pi)``.

    Parameters
    ----------
    angle : array_like
        Angles in radians, any shape.

    Returns
    -------
    ndarray
        Same shape, float64, in ``[-pi, pi)``.

    Examples
    --------
    >>> wrap_to_pi([np.pi, -np.pi, 3 * np.pi / 2])
    array([-3.14159265, -3.14159265, -1.57079633])
    """
    a = as_array(angle, "angle")
    return (a + np.pi) % (2 * np.pi) - np.pi


def _elementary(theta, axis):
    t = as_array(theta, "theta")
    c, s = np.cos(t), np.sin(t)
    R = np.zeros(t.shape + (3, 3))
    i, j = [(1, 2), (2, 0), (0, 1)][axis]  # the plane rotated by this axis
    R[..., axis, axis] = 1.0
    R[..., i, i] = c
    R[..., j, j] = c
    R[..., i, j] = -s
    R[..., j, i] = s
    return R


def rotx(theta: ArrayLike) -> np.ndarray:
    """Rotation about x by ``theta`` (rad): ``(...) -> (..., 3, 3)``.

    Examples
    --------
    >>> rotx(np.pi / 2) @ [0, 1, 0]
    array([0.000000e+00, 6.123234e-17, 1.000000e+00])
    """
    return _elementary(theta, 0)


def roty(theta: ArrayLike) -> np.ndarray:
    """Rotation about y by ``theta`` (rad): ``(...) -> (..., 3, 3)``.

    Examples
    --------
    >>> np.round(roty(np.pi / 2) @ [0, 0, 1], 12)
    array([1., 0., 0.])
    """
    return _elementary(theta, 1)


def rotz(theta: ArrayLike) -> np.ndarray:
    """Rotation about z by ``theta`` (rad): ``(...) -> (..., 3, 3)``.

    Examples
    --------
    >>> np.round(rotz(np.pi / 2) @ [1, 0, 0], 12)
    array([0., 1., 0.])
    """
    return _elementary(theta, 2)


_AXES = {"x": 0, "y": 1, "z": 2}


def euler_to_matrix(angles: ArrayLike, *, order: str) -> np.ndarray:
    """Rotation from three **intrinsic** Euler angles.

    ``R = R_{order[0]}(angles[0]) @ R_{order[1]}(angles[1]) @ R_{order[2]}(angles[2])``,
    i.e. rotate about the first axis, then about the *new* second axis, and so on.
    Intrinsic ``"zyx"`` with ``[yaw, pitch, roll]`` equals extrinsic XYZ with
    ``[roll, pitch, yaw]``; it is what :func:`rpy_to_matrix` computes.

    Parameters
    ----------
    angles : array_like, shape (..., 3)
        Angles in radians, in the order of the axes in ``order``.
    order : str
        Three axis letters, such as ``"zyx"``, ``"xyz"`` or ``"zyz"``;
        no axis may repeat back to back.

    Returns
    -------
    ndarray, shape (..., 3, 3)

    Examples
    --------
    >>> a = [0.3, -0.2, 0.1]
    >>> np.allclose(euler_to_matrix(a, order="zyx"), rotz(0.3) @ roty(-0.2) @ rotx(0.1))
    True
    """
    if not (isinstance(order, str) and len(order) == 3 and set(order) <= set("xyz")):
        raise ValueError(f"order must be three letters from 'xyz' such as 'zyx', got {order!r}")
    if order[0] == order[1] or order[1] == order[2]:
        raise ValueError(f"order {order!r} repeats an axis back to back; it has only 2 DOF")
    a = as_array(angles, "angles", trailing=(3,))
    R = _elementary(a[..., 0], _AXES[order[0]])
    R = R @ _elementary(a[..., 1], _AXES[order[1]])
    return R @ _elementary(a[..., 2], _AXES[order[2]])


def rpy_to_matrix(rpy: ArrayLike) -> np.ndarray:
    """ZYX roll-pitch-yaw to a rotation matrix.

    ``R = Rz(yaw) @ Ry(pitch) @ Rx(roll)`` for ``rpy = [roll, pitch, yaw]``
    (equation :eq:`eq-ch1-rpy` in chapter 1).

    Parameters
    ----------
    rpy : array_like, shape (..., 3)
        ``[roll, pitch, yaw]`` in radians.

    Returns
    -------
    ndarray, shape (..., 3, 3)

    Examples
    --------
    >>> R = rpy_to_matrix([0.1, 0.2, 0.3])
    >>> np.allclose(R, rotz(0.3) @ roty(0.2) @ rotx(0.1))
    True
    """
    return _p.rpy_matrix(as_array(rpy, "rpy", trailing=(3,)))


def matrix_to_rpy(R: ArrayLike, *, tol: float = ROTATION_TOL) -> np.ndarray:
    """Rotation matrix to ZYX roll-pitch-yaw.

    Returns ``[roll, pitch, yaw]`` with pitch in ``[-pi/2, pi/2]`` and roll,
    yaw in ``[-pi, pi)``. At gimbal lock (``|pitch| = pi/2``) only
    ``yaw -/+ roll`` is defined; we return ``roll = 0``.

    Parameters
    ----------
    R : array_like, shape (..., 3, 3)
        Rotation matrices; checked to be orthonormal with det +1 within ``tol``.
    tol : float
        Tolerance of the rotation check.

    Returns
    -------
    ndarray, shape (..., 3)

    Examples
    --------
    >>> matrix_to_rpy(rpy_to_matrix([0.1, -0.2, 0.3]))
    array([ 0.1, -0.2,  0.3])
    """
    R = _check_rotation(R, "R", _tol(tol))
    r20 = np.clip(R[..., 2, 0], -1.0, 1.0)
    cp = np.hypot(R[..., 0, 0], R[..., 1, 0])
    pitch = np.arctan2(-r20, cp)
    lock = cp < 1e-9
    yaw = np.where(lock, np.arctan2(-R[..., 0, 1], R[..., 1, 1]), np.arctan2(R[..., 1, 0], R[..., 0, 0]))
    roll = np.where(lock, 0.0, np.arctan2(R[..., 2, 1], R[..., 2, 2]))
    out = np.stack([roll, pitch, yaw], axis=-1)
    out[..., 0] = wrap_to_pi(out[..., 0])
    out[..., 2] = wrap_to_pi(out[..., 2])
    return out


def zyx_rate_matrix(rpy: ArrayLike, *, frame: Literal["world", "body"]) -> np.ndarray:
    """Map ZYX angle rates to angular velocity: ``omega = E(rpy) @ [roll', pitch', yaw']``.

    Parameters
    ----------
    rpy : array_like, shape (..., 3)
        ``[roll, pitch, yaw]`` in radians.
    frame : {"world", "body"}
        Frame in which ``omega`` is expressed (required: there is no safe default).

    Returns
    -------
    ndarray, shape (..., 3, 3)
        Singular when ``cos(pitch) = 0`` (gimbal lock).

    Examples
    --------
    >>> zyx_rate_matrix([0, 0, 0], frame="world")
    array([[ 1., -0.,  0.],
           [ 0.,  1.,  0.],
           [-0.,  0.,  1.]])
    """
    choice(frame, "frame", ("world", "body"))
    a = as_array(rpy, "rpy", trailing=(3,))
    E = _p.zyx_rate_world(a)  # columns: R_z R_y e_x (roll), R_z e_y (pitch), e_z (yaw)
    if frame == "body":
        E = np.swapaxes(_p.rpy_matrix(a), -1, -2) @ E
    return E


def hat(w: ArrayLike) -> np.ndarray:
    """Skew-symmetric matrix of a 3-vector: ``hat(w) @ v == cross(w, v)``.

    Examples
    --------
    >>> hat([1, 2, 3]) @ [4, 5, 6]
    array([-3.,  6., -3.])
    """
    return _p.hat(as_array(w, "w", trailing=(3,)))


def vee(S: ArrayLike) -> np.ndarray:
    """Inverse of :func:`hat` (uses the antisymmetric part).

    Examples
    --------
    >>> vee(hat([1.0, 2.0, 3.0]))
    array([1., 2., 3.])
    """
    S = as_array(S, "S", trailing=(3, 3))
    return 0.5 * np.stack(
        [S[..., 2, 1] - S[..., 1, 2], S[..., 0, 2] - S[..., 2, 0], S[..., 1, 0] - S[..., 0, 1]],
        axis=-1,
    )


def _sinc_terms(theta):
    """A = sin t / t, B = (1 - cos t) / t^2, C = (t - sin t) / t^3, accurate to round-off for every t >= 0.

    ``B`` is evaluated as ``2 sin^2(t/2) / t^2``: the textbook ``1 - cos t`` cancels (at ``t = 2e-4`` it keeps
    only 8 digits). ``C`` cancels in ``t - sin t`` (relative error ``~6 eps / t^2``), so its Taylor series is used
    below ``t = 0.2`` (truncation < 1e-18); ``A`` and ``B`` use theirs below ``1e-4``.
    """
    small = theta < 1e-4
    mid = theta < 0.2
    ts = np.where(small, 1.0, theta)  # avoid 0/0; the series branch is used there
    t2 = np.where(mid, theta, 0.0) ** 2  # series arguments only where the series is used (no overflow)
    A = np.where(small, 1 - t2 / 6 + t2 * t2 / 120, np.sin(ts) / ts)
    h = np.sin(ts / 2) / (ts / 2)
    B = np.where(small, 0.5 - t2 / 24 + t2 * t2 / 720, 0.5 * h * h)
    Cs = 1 / 6 + t2 * (-1 / 120 + t2 * (1 / 5040 + t2 * (-1 / 362880 + t2 * (1 / 39916800 - t2 / 6227020800))))
    tm = np.where(mid, 1.0, theta)
    C = np.where(mid, Cs, (tm - np.sin(tm)) / tm**3)
    return A, B, C


def _dinv_term(theta, A, B):
    """D = (1 - A / (2B)) / t^2 of ``V^-1 = I - W/2 + D W^2``, with its series below ``t = 0.2``."""
    mid = theta < 0.2
    t2 = np.where(mid, theta, 0.0) ** 2
    Ds = 1 / 12 + t2 * (
        1 / 720 + t2 * (1 / 30240 + t2 * (1 / 1209600 + t2 * (1 / 47900160 + t2 * 691 / 1307674368000)))
    )
    tm = np.where(mid, 1.0, theta)
    return np.where(mid, Ds, (1 - A / (2 * np.where(mid, 1.0, B))) / tm**2)


def so3_exp(omega: ArrayLike) -> np.ndarray:
    """Rotation vector (axis * angle) to rotation matrix, by Rodrigues' formula.

    ``R = I + A [w] + B [w]^2`` with ``A = sin t / t``, ``B = (1 - cos t) / t^2 = 2 sin^2(t/2) / t^2``
    (the second form does not cancel) and ``t = |w|``; Taylor series are used for ``t < 1e-4``.

    Parameters
    ----------
    omega : array_like, shape (..., 3)
        Rotation vectors in radians.

    Returns
    -------
    ndarray, shape (..., 3, 3)

    Examples
    --------
    >>> np.allclose(so3_exp([0, 0, np.pi / 2]), rotz(np.pi / 2))
    True
    """
    w = as_array(omega, "omega", trailing=(3,))
    theta = np.linalg.norm(w, axis=-1)
    A, B, _ = _sinc_terms(theta)
    W = hat(w)
    return np.eye(3) + A[..., None, None] * W + B[..., None, None] * (W @ W)


def _quat_from_matrix(R):
    """Unit quaternion [w, x, y, z] with w >= 0 (Shepperd's method, stable everywhere)."""
    m00, m11, m22 = R[..., 0, 0], R[..., 1, 1], R[..., 2, 2]
    tr = m00 + m11 + m22
    cand = np.stack([tr, m00, m11, m22], axis=-1)
    k = np.argmax(cand, axis=-1)
    q = np.empty(R.shape[:-2] + (4,))
    # case 0: w largest
    r = np.sqrt(np.maximum(1.0 + np.stack([tr, 2 * m00 - tr, 2 * m11 - tr, 2 * m22 - tr], -1), 0.0))
    d21, d02, d10 = R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0], R[..., 1, 0] - R[..., 0, 1]
    s21, s02, s10 = R[..., 2, 1] + R[..., 1, 2], R[..., 0, 2] + R[..., 2, 0], R[..., 1, 0] + R[..., 0, 1]
    rk = np.take_along_axis(r, k[..., None], axis=-1)[..., 0]
    h = 0.5 / rk
    rows = [
        np.stack([0.5 * rk, d21 * h, d02 * h, d10 * h], -1),
        np.stack([d21 * h, 0.5 * rk, s10 * h, s02 * h], -1),
        np.stack([d02 * h, s10 * h, 0.5 * rk, s21 * h], -1),
        np.stack([d10 * h, s02 * h, s21 * h, 0.5 * rk], -1),
    ]
    for i, row in enumerate(rows):
        sel = k == i
        q[sel] = row[sel]
    q *= np.where(q[..., :1] < 0, -1.0, 1.0)
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def so3_log(R: ArrayLike, *, tol: float = ROTATION_TOL) -> np.ndarray:
    """Rotation matrix to rotation vector ``theta * axis`` with ``theta`` in ``[0, pi]``.

    Goes through a unit quaternion (Shepperd's method), which stays accurate at
    ``theta -> 0`` and ``theta -> pi``. The textbook ``arccos((tr R - 1) / 2)`` formula fails at both: below
    about ``2e-8`` rad the arccos returns exactly 0 and ``vee(R - R^T) / (2 sin theta)`` is 0/0 (its rotation
    vector is accurate until then), and near ``pi`` the ``sin theta`` division loses the axis (chapter 1).
    At exactly ``theta = pi`` the axis sign is arbitrary (both are correct).

    Parameters
    ----------
    R : array_like, shape (..., 3, 3)
        Rotation matrices, checked within ``tol``.
    tol : float
        Tolerance of the rotation check.

    Returns
    -------
    ndarray, shape (..., 3)
        Note: this is ``theta * axis``, not the unit axis.

    Examples
    --------
    >>> so3_log(rotz(0.5))
    array([0. , 0. , 0.5])
    >>> so3_log(np.diag([1.0, 1.0, -1.0]), tol=np.inf)
    Traceback (most recent call last):
    ...
    ValueError: tol must be a finite positive number, got inf
    """
    return _so3_log(R, _tol(tol))


def _so3_log(R, tol):
    R = _check_rotation(R, "R", tol)
    q = _quat_from_matrix(R)
    v = q[..., 1:]
    n = np.linalg.norm(v, axis=-1)
    theta = 2.0 * np.arctan2(n, q[..., 0])
    # theta / n -> 2 / w as n -> 0 (w -> 1); both forms agree to round-off there. Each branch only divides
    # where it is used: on an exact half-turn w = 0 (and 2 / w would raise under warnings-as-errors).
    tiny = n <= 1e-12
    scale = np.where(tiny, 2.0 / np.where(tiny, q[..., 0], 1.0), theta / np.where(tiny, 1.0, n))
    return v * scale[..., None]


def rotation_distance(R1: ArrayLike, R2: ArrayLike, *, tol: float = ROTATION_TOL) -> float | np.ndarray:
    """Geodesic angle between rotations: ``|log(R1^T R2)|`` in ``[0, pi]`` (rad).

    Examples
    --------
    >>> round(float(rotation_distance(rotz(0.1), rotz(0.4))), 12)
    0.3
    """
    tol = _tol(tol)
    R1 = _check_rotation(R1, "R1", tol)
    R2 = _check_rotation(R2, "R2", tol)
    return np.linalg.norm(_so3_log(np.swapaxes(R1, -1, -2) @ R2, 10 * tol), axis=-1)


def is_rotation(R: ArrayLike, *, tol: float = ROTATION_TOL) -> np.bool_ | np.ndarray:
    """True where ``R`` is orthonormal with determinant +1 within ``tol``.

    Parameters
    ----------
    R : array_like, shape (..., 3, 3)
    tol : float
        Max abs entry of ``R^T R - I`` and of ``det R - 1``; in ``(0, 1e-2]`` (a looser test accepts
        reflections and scalings).

    Returns
    -------
    ndarray of bool, shape (...)

    Examples
    --------
    >>> bool(is_rotation(rotx(0.3))), bool(is_rotation(np.diag([1.0, 1.0, -1.0])))
    (True, False)
    """
    tol = _tol(tol)
    R = as_array(R, "R", trailing=(3, 3))
    orth, det_err = _rotation_errors(R)
    return (orth <= tol) & (det_err <= tol)


def _rotation_errors(R):
    """Per matrix: ``max|R^T R - I|`` and ``|det R - 1|``, in chunks (bounded temporaries for big batches)."""
    lead = R.shape[:-2]
    Rf = R.reshape(-1, 3, 3)
    orth = np.empty(len(Rf))
    det = np.empty(len(Rf))
    for sl in _chunks(len(Rf)):
        Rc = Rf[sl]
        orth[sl] = np.abs(np.swapaxes(Rc, -1, -2) @ Rc - np.eye(3)).max(axis=(-2, -1), initial=0.0)
        det[sl] = np.abs(np.linalg.det(Rc) - 1.0)
    return orth.reshape(lead), det.reshape(lead)


def check_rotation(R: ArrayLike, name: str = "R", *, tol: float = ROTATION_TOL) -> np.ndarray:
    """Return ``R`` as float64 or raise ``ValueError`` if it is not a rotation.

    Examples
    --------
    >>> check_rotation(2 * np.eye(3))
    Traceback (most recent call last):
    ...
    ValueError: R is not a rotation matrix (R^T R != I or det R != 1 within tol=1e-06); 1 of 1 fail, worst orthogonality error 3, worst |det R - 1| 7
    """
    return _check_rotation(R, text(name, "name"), _tol(tol))


def _check_rotation(R, name, tol):
    R = as_array(R, name, trailing=(3, 3))
    orth, det_err = _rotation_errors(R)
    ok = (orth <= tol) & (det_err <= tol)
    if not np.all(ok):
        raise ValueError(
            f"{name} is not a rotation matrix (R^T R != I or det R != 1 within tol={tol:g}); "
            f"{np.size(ok) - np.count_nonzero(ok)} of {np.size(ok)} fail, "
            f"worst orthogonality error {np.max(orth):.3g}, worst |det R - 1| {np.max(det_err):.3g}"
            + (" (a reflection: det R = -1)" if np.any(np.abs(det_err - 2.0) <= 0.1) else "")
        )
    return R


def make_transform(R: ArrayLike, p: ArrayLike, *, tol: float = ROTATION_TOL) -> np.ndarray:
    """Homogeneous transform ``[[R, p], [0, 0, 0, 1]]``.

    Parameters
    ----------
    R : array_like, shape (..., 3, 3)
        Rotations (checked).
    p : array_like, shape (..., 3)
        Translations in metres; broadcast against ``R``.

    Returns
    -------
    ndarray, shape (..., 4, 4)

    Examples
    --------
    >>> make_transform(np.eye(3), [1, 2, 3])[:3, 3]
    array([1., 2., 3.])
    """
    R = _check_rotation(R, "R", _tol(tol))
    p = as_array(p, "p", trailing=(3,))
    lead = np.broadcast_shapes(R.shape[:-2], p.shape[:-1])
    T = np.zeros(lead + (4, 4))
    T[..., :3, :3] = R
    T[..., :3, 3] = p
    T[..., 3, 3] = 1.0
    return T


def _check_transform(T, name, tol):
    """``T`` as float64 ``(..., 4, 4)``, or ValueError unless bottom row ``[0, 0, 0, 1]`` and rotation block hold."""
    tol = _tol(tol)
    T = as_array(T, name, trailing=(4, 4))
    bottom = np.abs(T[..., 3, :] - [0, 0, 0, 1]).max() if T.size else 0.0
    if not bottom <= tol:
        raise ValueError(f"{name} is not homogeneous: bottom row differs from [0, 0, 0, 1] by {bottom:.3g}")
    _check_rotation(T[..., :3, :3], f"{name}[..., :3, :3]", tol)
    return T


def transform_inverse(T: ArrayLike, *, tol: float = ROTATION_TOL) -> np.ndarray:
    """Inverse of a rigid transform, ``[[R^T, -R^T p], [0, 1]]`` (no general inverse).

    Examples
    --------
    >>> T = make_transform(rotz(0.3), [1.0, 2.0, 3.0])
    >>> np.allclose(transform_inverse(T) @ T, np.eye(4))
    True
    """
    T = _check_transform(T, "T", tol)
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    out = np.zeros_like(T)
    out[..., :3, :3] = Rt
    out[..., :3, 3] = -(Rt @ T[..., :3, 3:4])[..., 0]
    out[..., 3, 3] = 1.0
    return out


def transform_points(T: ArrayLike, points: ArrayLike, *, tol: float = ROTATION_TOL) -> np.ndarray:
    """Apply rigid transforms to 3-D points: ``R @ p + t``.

    Parameters
    ----------
    T : array_like, shape (..., 4, 4)
        Rigid transforms: bottom row ``[0, 0, 0, 1]`` and rotation block checked within ``tol``.
    points : array_like, shape (..., 3)
        Broadcast against the leading axes of ``T``.
    tol : float
        Tolerance of the transform check.

    Returns
    -------
    ndarray, shape (..., 3)

    Examples
    --------
    >>> transform_points(make_transform(rotz(np.pi / 2), [1, 0, 0]), [1.0, 0, 0]).round(12)
    array([1., 1., 0.])
    """
    T = _check_transform(T, "T", tol)
    p = as_array(points, "points", trailing=(3,))
    return (T[..., :3, :3] @ p[..., None])[..., 0] + T[..., :3, 3]


def se3_exp(xi: ArrayLike) -> np.ndarray:
    """Twist ``xi = [v, omega]`` (6-vector) to a rigid transform (screw motion).

    ``T = [[exp(omega), V v], [0, 1]]`` with ``V = I + B [w] + C [w]^2``.

    Examples
    --------
    >>> np.allclose(se3_exp([1, 0, 0, 0, 0, 0]), make_transform(np.eye(3), [1, 0, 0]))
    True
    """
    xi = as_array(xi, "xi", trailing=(6,))
    v, w = xi[..., :3], xi[..., 3:]
    theta = np.linalg.norm(w, axis=-1)
    A, B, C = _sinc_terms(theta)
    W = hat(w)
    W2 = W @ W
    R = np.eye(3) + A[..., None, None] * W + B[..., None, None] * W2
    V = np.eye(3) + B[..., None, None] * W + C[..., None, None] * W2
    T = np.zeros(xi.shape[:-1] + (4, 4))
    T[..., :3, :3] = R
    T[..., :3, 3] = (V @ v[..., None])[..., 0]
    T[..., 3, 3] = 1.0
    return T


def se3_log(T: ArrayLike, *, tol: float = ROTATION_TOL) -> np.ndarray:
    """Rigid transform to twist ``[v, omega]`` (inverse of :func:`se3_exp`).

    Examples
    --------
    >>> xi = np.array([0.1, -0.2, 0.3, 0.4, 0.5, -0.6])
    >>> np.allclose(se3_log(se3_exp(xi)), xi)
    True
    """
    tol = _tol(tol)
    T = _check_transform(T, "T", tol)
    w = _so3_log(T[..., :3, :3], tol)
    theta = np.linalg.norm(w, axis=-1)
    A, B, _ = _sinc_terms(theta)
    # V^-1 = I - W/2 + D W^2 with D = (1 - A / (2B)) / theta^2 -> 1/12 near 0. B without cancellation keeps
    # D exact to round-off; (1 - cos) / theta^2 here lost ~8 digits just above theta = 1e-4.
    D = _dinv_term(theta, A, B)
    W = hat(w)
    Vinv = np.eye(3) - 0.5 * W + D[..., None, None] * (W @ W)
    v = (Vinv @ T[..., :3, 3:4])[..., 0]
    return np.concatenate([v, w], axis=-1)


def interpolate_pose(
    T0: ArrayLike,
    T1: ArrayLike,
    s: ArrayLike,
    *,
    method: Literal["decoupled", "screw"] = "decoupled",
    tol: float = ROTATION_TOL,
) -> np.ndarray:
    """Interpolate between two poses at fractions ``s`` in ``[0, 1]``.

    ``method="decoupled"``: rotation by slerp ``R0 exp(s log(R0^T R1))`` and
    position along the straight line; the origin moves on a straight line.
    ``method="screw"``: ``T0 exp(s log(T0^-1 T1))``, constant twist in the body
    frame; the origin moves on a helix.
    Both give constant angular velocity, unlike interpolating Euler angles.

    Parameters
    ----------
    T0, T1 : array_like, shape (4, 4) or (..., 4, 4)
    s : array_like, shape (...)
        Fractions; ``s[..., None, None]`` broadcasts against the transforms.
    method : {"decoupled", "screw"}

    Returns
    -------
    ndarray, shape (..., 4, 4)

    Examples
    --------
    >>> T0, T1 = np.eye(4), make_transform(rotz(1.0), [1.0, 0.0, 0.0])
    >>> Tm = interpolate_pose(T0, T1, 0.5)
    >>> np.allclose(Tm[:3, :3], rotz(0.5)), Tm[:3, 3]
    (True, array([0.5, 0. , 0. ]))
    """
    choice(method, "method", ("decoupled", "screw"))
    tol = _tol(tol)
    T0 = _check_transform(T0, "T0", tol)
    T1 = _check_transform(T1, "T1", tol)
    s = as_array(s, "s")
    if method == "screw":
        xi = se3_log(transform_inverse(T0) @ T1)
        return T0 @ se3_exp(s[..., None] * xi)
    R0, R1 = T0[..., :3, :3], T1[..., :3, :3]
    w = _so3_log(np.swapaxes(R0, -1, -2) @ R1, 10 * tol)
    R = R0 @ so3_exp(s[..., None] * w)
    p = (1 - s[..., None]) * T0[..., :3, 3] + s[..., None] * T1[..., :3, 3]
    lead = np.broadcast_shapes(R.shape[:-2], p.shape[:-1])
    T = np.zeros(lead + (4, 4))
    T[..., :3, :3] = R
    T[..., :3, 3] = p
    T[..., 3, 3] = 1.0
    return T


_QUAT_ORDERS = ("wxyz", "xyzw")
#: Largest accepted ``| |q| - 1 |`` of :func:`matrix_from_quat`: a looser one would accept a quaternion that is
#: not a rotation at all (``|q| = 0.9`` scales every vector by 0.81 before the normalisation hides it).
MAX_QUAT_NORM_TOL = 1e-2


def _to_wxyz(q, order):
    return q if order == "wxyz" else q[..., [3, 0, 1, 2]]


def _from_wxyz(q, order):
    return q if order == "wxyz" else q[..., [1, 2, 3, 0]]


def quat_from_matrix(R: ArrayLike, *, order: Literal["wxyz", "xyzw"], tol: float = ROTATION_TOL) -> np.ndarray:
    """Rotation matrix to unit quaternion, with the scalar part ``w >= 0``.

    ``q`` and ``-q`` give the same rotation (the double cover); this returns the one with ``w >= 0``
    (Shepperd's method: accurate for every angle, including ``pi``, where the sign is arbitrary).

    Parameters
    ----------
    R : array_like, shape (..., 3, 3)
        Rotation matrices (body to world), checked within ``tol``.
    order : {"wxyz", "xyzw"}
        Component order of the result: scalar first (MuJoCo, Eigen's ``Quaterniond(w, x, y, z)``) or scalar
        last (scipy ``Rotation.as_quat``, ROS arrays). Required: there is no safe default.
    tol : float
        Tolerance of the rotation check.

    Returns
    -------
    ndarray, shape (..., 4)
        Unit quaternions, dimensionless.

    Examples
    --------
    >>> quat_from_matrix(rotz(np.pi / 2), order="wxyz").round(6)
    array([0.707107, 0.      , 0.      , 0.707107])
    >>> quat_from_matrix(rotz(np.pi / 2), order="xyzw").round(6)
    array([0.      , 0.      , 0.707107, 0.707107])
    """
    choice(order, "order", _QUAT_ORDERS)
    R = _check_rotation(R, "R", _tol(tol))
    return _from_wxyz(_quat_from_matrix(R), order)


def _quat_wxyz(q, name, order):
    q = as_array(q, name, trailing=(4,))
    return _to_wxyz(q, order)


def matrix_from_quat(q: ArrayLike, *, order: Literal["wxyz", "xyzw"], tol: float = ROTATION_TOL) -> np.ndarray:
    """Unit quaternion to rotation matrix.

    For ``q = w + x i + y j + z k`` with ``|q| = 1``::

        R = [[1 - 2(y^2 + z^2), 2(x y - w z),     2(x z + w y)],
             [2(x y + w z),     1 - 2(x^2 + z^2), 2(y z - w x)],
             [2(x z - w y),     2(y z + w x),     1 - 2(x^2 + y^2)]]

    ``q`` and ``-q`` give the same ``R``. The input is divided by its norm after the check, so float32 sensor
    output (``| |q| - 1 |`` about 1e-7) is accepted with the default ``tol``.

    Parameters
    ----------
    q : array_like, shape (..., 4)
        Unit quaternions in the component order ``order``.
    order : {"wxyz", "xyzw"}
        Scalar first (MuJoCo, Eigen's constructor) or scalar last (scipy ``as_quat``, ROS arrays). Required.
    tol : float
        Accepted ``| |q| - 1 |``, in ``(0, 1e-2]``; a low-resolution sensor may need ``1e-3``.

    Returns
    -------
    ndarray, shape (..., 3, 3)

    Raises
    ------
    ValueError
        If ``order`` is not one of the two names, ``q`` has the wrong shape, is not finite, or is not unit
        within ``tol`` (the zero quaternion included).

    Examples
    --------
    >>> np.allclose(matrix_from_quat([np.cos(0.25), 0, 0, np.sin(0.25)], order="wxyz"), rotz(0.5))
    True
    >>> matrix_from_quat([0, 0, 0, 2.0], order="wxyz")
    Traceback (most recent call last):
    ...
    ValueError: q is not a unit quaternion: 1 of 1 have | |q| - 1 | > tol=1e-06, worst 1
    """
    choice(order, "order", _QUAT_ORDERS)
    tol = tolerance(tol, "tol", max=MAX_QUAT_NORM_TOL)
    q = _quat_wxyz(q, "q", order)
    n = np.linalg.norm(q, axis=-1)
    bad = ~(np.abs(n - 1.0) <= tol)
    if np.any(bad):
        raise ValueError(
            f"q is not a unit quaternion: {np.count_nonzero(bad)} of {np.size(bad)} have | |q| - 1 | > "
            f"tol={tol:g}, worst {np.max(np.abs(n - 1.0)):.3g}"
        )
    w, x, y, z = np.moveaxis(q / n[..., None], -1, 0)
    R = np.stack(
        [
            1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
            2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
            2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
        ],
        axis=-1,
    )  # fmt: skip
    return R.reshape(q.shape[:-1] + (3, 3))


def quat_multiply(p: ArrayLike, q: ArrayLike, *, order: Literal["wxyz", "xyzw"]) -> np.ndarray:
    """Hamilton product ``p q``; for unit quaternions ``R(p q) = R(p) @ R(q)``.

    ``(pw + pv)(qw + qv) = pw qw - pv . qv + pw qv + qw pv + pv x qv``. Inputs need not be unit; the
    product is returned in the same component order as the inputs.

    Parameters
    ----------
    p, q : array_like, shape (..., 4)
        Quaternions in the order ``order``; leading axes broadcast.
    order : {"wxyz", "xyzw"}
        Component order of both inputs and of the result. Required.

    Returns
    -------
    ndarray, shape (..., 4)

    Examples
    --------
    >>> i, j = [0, 1.0, 0, 0], [0, 0, 1.0, 0]
    >>> quat_multiply(i, j, order="wxyz")  # i j = k
    array([0., 0., 0., 1.])
    >>> quat_multiply(j, i, order="wxyz")  # j i = -k
    array([ 0.,  0.,  0., -1.])
    """
    choice(order, "order", _QUAT_ORDERS)
    a = _quat_wxyz(p, "p", order)
    b = _quat_wxyz(q, "q", order)
    a, b = broadcast([a, b], ("p", "q"))
    aw, av = a[..., 0], a[..., 1:]
    bw, bv = b[..., 0], b[..., 1:]
    w = aw * bw - np.sum(av * bv, axis=-1)
    v = aw[..., None] * bv + bw[..., None] * av + np.cross(av, bv)
    return _from_wxyz(np.concatenate([w[..., None], v], axis=-1), order)


def adjoint(T: ArrayLike, *, tol: float = ROTATION_TOL) -> np.ndarray:
    """Adjoint ``Ad_T`` (6 x 6) of a rigid transform, acting on twists ``xi = [v, omega]``.

    ``Ad_T = [[R, [p] R], [0, R]]`` for ``T = [[R, p], [0, 1]]``. It maps a twist written in frame {b} to the
    same motion written in frame {a} when ``T = T_ab``: ``T exp([xi]) T^-1 = exp([Ad_T xi])``, and
    ``Ad_{T1 T2} = Ad_{T1} Ad_{T2}``, ``Ad_{T^-1} = (Ad_T)^-1``. Units: ``v`` in m/s (or m), ``omega`` in
    rad/s (or rad).

    Parameters
    ----------
    T : array_like, shape (..., 4, 4)
        Rigid transforms (bottom row and rotation block checked within ``tol``).
    tol : float
        Tolerance of the transform check.

    Returns
    -------
    ndarray, shape (..., 6, 6)

    Examples
    --------
    >>> T = make_transform(rotz(0.3), [1.0, 2.0, 0.5])
    >>> xi = np.array([0.1, -0.2, 0.3, 0.4, 0.5, -0.6])
    >>> np.allclose(T @ se3_exp(xi) @ transform_inverse(T), se3_exp(adjoint(T) @ xi))
    True
    """
    T = _check_transform(T, "T", tol)
    R, p = T[..., :3, :3], T[..., :3, 3]
    Ad = np.zeros(T.shape[:-2] + (6, 6))
    Ad[..., :3, :3] = R
    Ad[..., 3:, 3:] = R
    Ad[..., :3, 3:] = hat(p) @ R
    return Ad
