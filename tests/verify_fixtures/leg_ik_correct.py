"""A reader's correct two-link leg IK (chapter 2's convention), knee-back branch; thigh 0.21 m, shank 0.19 m."""

from math import acos, atan2, cos, pi, sin

L1, L2 = 0.21, 0.19


def ik(x, z):
    c2 = (x * x + z * z - L1 * L1 - L2 * L2) / (2 * L1 * L2)
    if abs(c2) > 1:
        return None
    t2 = acos(c2)
    t1 = atan2(x, -z) - atan2(L2 * sin(t2), L1 + L2 * cos(t2))
    return (t1 + pi) % (2 * pi) - pi, t2  # angles in [-pi, pi), the course's convention


def fk(t1, t2):
    return L1 * sin(t1) + L2 * sin(t1 + t2), -L1 * cos(t1) - L2 * cos(t1 + t2)


def jacobian(t1, t2):
    c1, s1, c12, s12 = cos(t1), sin(t1), cos(t1 + t2), sin(t1 + t2)
    return [[L1 * c1 + L2 * c12, L2 * c12], [L1 * s1 + L2 * s12, L2 * s12]]


def ik_float32(x, z):
    """The same IK computed in float32 (a firmware's float arithmetic): correct to float32 rounding."""
    import numpy as np

    f = np.float32
    x, z = f(x), f(z)
    c2 = (x * x + z * z - f(L1) * f(L1) - f(L2) * f(L2)) / (f(2) * f(L1) * f(L2))
    if abs(c2) > 1:
        return None
    t2 = np.arccos(c2)
    t1 = np.arctan2(x, -z) - np.arctan2(f(L2) * np.sin(t2), f(L1) + f(L2) * np.cos(t2))
    t1 = (t1 + f(pi)) % f(2 * pi) - f(pi)
    return float(t1), float(t2)
