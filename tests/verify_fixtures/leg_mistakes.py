"""Wrong two-link leg implementations: each is the correct code (leg_ik_correct.py) with one typical mistake."""

from math import acos, atan, atan2, cos, degrees, pi, radians, sin

from leg_ik_correct import L1, L2, fk, ik, jacobian


def ik_degrees(x, z):
    """Returns degrees (a servo library's unit) where radians are expected."""
    q = ik(x, z)
    return None if q is None else (degrees(q[0]), degrees(q[1]))


def ik_swapped(x, z):
    """Thigh and shank lengths swapped."""
    c2 = (x * x + z * z - L1 * L1 - L2 * L2) / (2 * L1 * L2)
    if abs(c2) > 1:
        return None
    t2 = acos(c2)
    return atan2(x, -z) - atan2(L1 * sin(t2), L2 + L1 * cos(t2)), t2


def ik_sign(x, z):
    """The hip angle measured from the forward horizontal (the textbook planar-arm convention)."""
    c2 = (x * x + z * z - L1 * L1 - L2 * L2) / (2 * L1 * L2)
    if abs(c2) > 1:
        return None
    t2 = acos(c2)
    return atan2(z, x) - atan2(L2 * sin(t2), L1 + L2 * cos(t2)), t2


def ik_branch(x, z):
    """Knee-back in front of the hip, knee-front behind it: the working mode flips at x = 0."""
    q = ik(x, z)
    if q is None or x >= 0:
        return q
    phi = atan2(x, -z)
    return (2 * phi - q[0] + pi) % (2 * pi) - pi, -q[1]


def ik_nowrap(x, z):
    """theta1 left in [0, 2 pi) instead of [-pi, pi)."""
    q = ik(x, z)
    return None if q is None else (q[0] % (2 * pi), q[1])


def ik_atan(x, z):
    """The hip-foot direction from atan with a case split on the sign of x instead of atan2."""
    c2 = (x * x + z * z - L1 * L1 - L2 * L2) / (2 * L1 * L2)
    if abs(c2) > 1:
        return None
    t2 = acos(c2)
    if x > 0:
        psi = atan(z / x)
    elif x < 0:
        psi = atan(z / x) + pi
    else:
        psi = pi / 2  # the bug: straight below the hip is -pi/2
    return psi + pi / 2 - atan2(L2 * sin(t2), L1 + L2 * cos(t2)), t2


def fk_degrees(t1, t2):
    """Treats its (radian) inputs as degrees."""
    return fk(radians(t1), radians(t2))


def jacobian_transposed(t1, t2):
    J = jacobian(t1, t2)
    return [[J[0][0], J[1][0]], [J[0][1], J[1][1]]]


def ik_knee_front(x, z):
    """The other knee everywhere (q2 = -acos): right on a leg without limits, outside them on one with limits."""
    q = ik(x, z)
    if q is None:
        return None
    phi = atan2(x, -z)
    return (2 * phi - q[0] + pi) % (2 * pi) - pi, -q[1]


def ik_raises(x, z):
    """Refuses by raising (as numpy-free code often does) instead of returning None."""
    c2 = (x * x + z * z - L1 * L1 - L2 * L2) / (2 * L1 * L2)
    if abs(c2) > 1 or x > 0.1:
        raise ValueError("boom: my solver gave up")
    return ik(x, z)


def ik_typo(x, z):
    """A bug that is not a refusal: a TypeError from inside the reader's code."""
    return ik(x, z) + None


def ik_0_2pi(x, z):
    """Both angles wrapped into [0, 2 pi) (a firmware's unsigned-angle habit) instead of [-pi, pi]."""
    q = ik(x, z)
    return None if q is None else (q[0] % (2 * pi), q[1] % (2 * pi))
