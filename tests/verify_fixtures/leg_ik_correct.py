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
