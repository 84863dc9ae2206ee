"""A reader's virtual-leg code for the five-bar of examples/robots/wheel_leg_ch04.toml, and the typical mistakes.

Motor angles theta1, theta2 from +x (rad), motors at (0, 0) and (D, 0), foot below (the "down" assembly); the
virtual leg [L0, phi0] runs from the hip midpoint (D/2, 0) to the foot, phi0 from +x (straight down: -pi/2).
The FK and Jacobian are written by hand; the IK uses robokin's five-bar (a team that uses the library).
"""

from math import atan2, cos, degrees, hypot, pi, radians, sin, sqrt

L1, L2, L3, L4, D = 0.15, 0.15, 0.25, 0.25, 0.108


def foot(t1, t2):
    cx, cy = L1 * cos(t1), L1 * sin(t1)
    dx, dy = D + L2 * cos(t2), L2 * sin(t2)
    ux, uy = dx - cx, dy - cy
    dist = hypot(ux, uy)
    if not abs(L3 - L4) < dist < L3 + L4:
        return None
    a = (L3 * L3 - L4 * L4 + dist * dist) / (2 * dist)
    h = sqrt(max(L3 * L3 - a * a, 0.0))
    ux, uy = ux / dist, uy / dist
    return cx + a * ux + h * uy, cy + a * uy - h * ux  # the lower intersection: foot below the knees


def fk(t1, t2, *, origin=D / 2):
    p = foot(t1, t2)
    if p is None:
        return None
    x, y = p[0] - origin, p[1]
    return hypot(x, y), atan2(y, x)


def jacobian(t1, t2, *, h=1e-6, f=fk):
    """Central differences of the FK (the team's quick Jacobian), phi0 unwrapped across the difference."""
    cols = []
    for dq in ((h, 0.0), (0.0, h)):
        a, b = f(t1 + dq[0], t2 + dq[1]), f(t1 - dq[0], t2 - dq[1])
        d = [(a[i] - b[i]) for i in range(2)]
        d[1] = (d[1] + pi) % (2 * pi) - pi
        cols.append([v / (2 * h) for v in d])
    return [[cols[0][0], cols[1][0]], [cols[0][1], cols[1][1]]]


def fk_motor1_wrong(t1, t2):
    """L0 and phi0 measured from motor 1's axis, the d/2 offset forgotten."""
    return fk(t1, t2, origin=0.0)


def fk_vertical_wrong(t1, t2):
    """The leg angle from the downward vertical (the pendulum angle), returned as phi0."""
    r = fk(t1, t2)
    return None if r is None else (r[0], r[1] + pi / 2)


def fk_degrees_wrong(t1, t2):
    """Motor angles from an encoder library in degrees, fed radians."""
    return fk(radians(t1), radians(t2))


def jacobian_foot_wrong(t1, t2):
    """d(x, y)/dq of the foot where d(L0, phi0)/dq is asked for."""
    return jacobian(t1, t2, f=foot)


def _ik(L0, phi0, branch, origin=D / 2):
    from robokin.fivebar import FiveBar

    r = FiveBar(L1, L2, L3, L4, D).ik([origin + L0 * cos(phi0), L0 * sin(phi0)], branch=branch, on_unreachable="nan")
    return tuple(r.q) if r.valid else None


def ik(L0, phi0):
    return _ik(L0, phi0, "out")


def ik_branch_wrong(L0, phi0):
    """Knees in ("in") when the leg leans back: a working-mode switch in the middle of the range."""
    return _ik(L0, phi0, "out" if phi0 <= -pi / 2 else "in")


def ik_motor1_wrong(L0, phi0):
    return _ik(L0, phi0, "out", origin=0.0)


def ik_degrees_wrong(L0, phi0):
    q = ik(L0, phi0)
    return None if q is None else (degrees(q[0]), degrees(q[1]))
