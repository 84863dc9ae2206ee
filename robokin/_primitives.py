"""Private, unchecked, batched primitives shared by the mechanism modules.

Every formula here is written once. Public functions check their input (``robokin._validate``) and then call
these; internal callers that already hold checked arrays call them directly. Nothing here validates, warns or
raises: inputs are float arrays of compatible shapes, and the leading axes broadcast.
"""

from __future__ import annotations

import numpy as np

TWO_PI = 2.0 * np.pi


def wrap(a):
    """Angles wrapped to ``[-pi, pi)`` (rad). ``floor`` is several times faster than ``%`` on arrays."""
    return a - TWO_PI * np.floor((a + np.pi) / TWO_PI)


def cos_sin(theta):
    """``(cos theta, sin theta)`` of an array of angles (rad) from one ``tan`` call (tangent half-angle identity).

    ``t = tan(theta / 2)``, ``cos = (1 - t^2) / (1 + t^2)``, ``sin = 2 t / (1 + t^2)``: exact identities, and numpy
    evaluates float64 ``tan`` with SIMD while ``sin`` and ``cos`` run one element at a time (measured on AVX-512:
    about 1 ns against 8 ns per element each), so FK checks of IK results cost a fraction. Within 1.5 ulp
    (absolute) of ``np.cos``/``np.sin`` on |theta| <= 1e6 (tests/test_kernels.py); exact at 0 and +-pi. No double
    is close enough to a pole of ``tan(theta / 2)`` for ``t^2`` to overflow.
    """
    t = np.tan(0.5 * theta)
    w = 2.0 / (1.0 + t * t)  # cos = w - 1 = (1 - t^2) / (1 + t^2), sin = t w: seven numpy calls in all
    return w - 1.0, t * w


def cross(u, v):
    """Cross product over the last axis of two (..., 3) arrays (``np.cross`` moves axes and is slow on small inputs)."""
    u0, u1, u2 = u[..., 0], u[..., 1], u[..., 2]
    v0, v1, v2 = v[..., 0], v[..., 1], v[..., 2]
    return np.stack([u1 * v2 - u2 * v1, u2 * v0 - u0 * v2, u0 * v1 - u1 * v0], -1)


def hat(w):
    """Skew matrix ``[w]x`` (..., 3, 3) of (..., 3): ``hat(w) @ v == cross(w, v)``."""
    S = np.zeros(w.shape[:-1] + (3, 3))
    S[..., 0, 1], S[..., 0, 2] = -w[..., 2], w[..., 1]
    S[..., 1, 0], S[..., 1, 2] = w[..., 2], -w[..., 0]
    S[..., 2, 0], S[..., 2, 1] = -w[..., 1], w[..., 0]
    return S


def rpy_matrix(a):
    """``Rz(yaw) Ry(pitch) Rx(roll)`` (..., 3, 3) of ``a = [roll, pitch, yaw]`` (..., 3), rad (RPY means ZYX)."""
    cr, cp, cy = np.cos(a[..., 0]), np.cos(a[..., 1]), np.cos(a[..., 2])
    sr, sp, sy = np.sin(a[..., 0]), np.sin(a[..., 1]), np.sin(a[..., 2])
    R = np.empty(a.shape[:-1] + (3, 3))
    R[..., 0, 0], R[..., 0, 1], R[..., 0, 2] = cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr
    R[..., 1, 0], R[..., 1, 1], R[..., 1, 2] = sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr
    R[..., 2, 0], R[..., 2, 1], R[..., 2, 2] = -sp, cp * sr, cp * cr
    return R


def zyx_rate_world(a):
    """World-frame ZYX rate matrix ``E`` (omega = E rpy_dot), (..., 3, 3) of ``a = [roll, pitch, yaw]`` (..., 3).

    Its columns are the roll, pitch and yaw axes in the world frame: ``Rz Ry e_x``, ``Rz e_y`` and ``e_z``.
    """
    cp, sp, cy, sy = np.cos(a[..., 1]), np.sin(a[..., 1]), np.cos(a[..., 2]), np.sin(a[..., 2])
    E = np.zeros(a.shape[:-1] + (3, 3))
    E[..., 0, 0], E[..., 1, 0], E[..., 2, 0] = cy * cp, sy * cp, -sp
    E[..., 0, 1], E[..., 1, 1] = -sy, cy
    E[..., 2, 2] = 1.0
    return E


def cross2(u, v):
    """Scalar planar cross product ``u_x v_y - u_y v_x`` over the last axis of two (..., 2) arrays."""
    return u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]


def point_segment_distance(p, a, b):
    """Distance (...,) from points p to segments [a, b] (all (..., n), any n): the clamped projection.

    ``t* = clip((p - a).(b - a) / |b - a|^2, 0, 1)``; a zero-length segment is its point (t* = 0).
    """
    w = b - a
    ww = np.sum(w * w, axis=-1)
    t = np.clip(np.sum((p - a) * w, axis=-1) / np.where(ww > 0, ww, 1.0), 0.0, 1.0)
    return np.linalg.norm(p - a - t[..., None] * w, axis=-1)


def smooth_step(s):
    """Quintic rest-to-rest blend on ``s`` in [0, 1] and its first two derivatives with respect to ``s``.

    ``p = 10 s^3 - 15 s^4 + 6 s^5``: p(0) = 0, p(1) = 1, with zero first and second derivatives at both ends.
    Callers clip ``s`` and scale the derivatives by ``1/T`` and ``1/T^2``.
    """
    s2 = s * s
    return (
        s2 * s * (10.0 + s * (-15.0 + 6.0 * s)),
        s2 * (30.0 + s * (-60.0 + 30.0 * s)),
        s * (60.0 + s * (-180.0 + 120.0 * s)),
    )


def smoothed_friction(v, viscous, coulomb, v_eps):
    """Viscous plus smoothed Coulomb friction ``viscous v + coulomb tanh(v / v_eps)`` (force or torque units)."""
    return viscous * v + coulomb * np.tanh(v / v_eps)


def dh_rotation_origin(a, alpha, d, theta, standard):
    """One DH link: rotation ``R`` (..., 3, 3) and origin ``p`` (..., 3) of frame i in frame i-1.

    ``standard=True``: ``Rz(theta) Tz(d) Tx(a) Rx(alpha)`` (Denavit-Hartenberg, Spong); ``False``: the modified
    convention ``Rx(alpha) Tx(a) Rz(theta) Tz(d)`` (Craig). Angles in rad, lengths in m.
    """
    theta = np.asarray(theta, dtype=float)
    ct, st = np.cos(theta), np.sin(theta)
    ca, sa = np.cos(alpha), np.sin(alpha)
    shape = np.broadcast_shapes(np.shape(ct), np.shape(ca), np.shape(a), np.shape(d))
    z, o = np.zeros(shape), np.ones(shape)
    if standard:
        R = np.stack(
            [
                np.stack([ct * o, -st * ca, st * sa], -1),
                np.stack([st * o, ct * ca, -ct * sa], -1),
                np.stack([z, sa * o, ca * o], -1),
            ],
            -2,
        )
        p = np.stack([a * ct * o, a * st * o, d * o], -1)
    else:
        R = np.stack(
            [
                np.stack([ct * o, -st * o, z], -1),
                np.stack([ca * st, ca * ct, -sa * o], -1),
                np.stack([sa * st, sa * ct, ca * o], -1),
            ],
            -2,
        )
        p = np.stack([a * o, -d * sa * o, d * ca * o], -1)
    return R, p


def dh_frame(a, alpha, d, theta, standard):
    """One DH link as a homogeneous transform (..., 4, 4); see :func:`dh_rotation_origin`."""
    R, p = dh_rotation_origin(a, alpha, d, theta, standard)
    T = np.zeros(R.shape[:-2] + (4, 4))
    T[..., :3, :3] = R
    T[..., :3, 3] = p
    T[..., 3, 3] = 1.0
    return T
