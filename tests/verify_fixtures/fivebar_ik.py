"""A reader's five-bar IK (chapter 3's frame: motors at (0, 0) and (d, 0)), knees outward; and wrong variants."""

from math import atan2, hypot, pi, sqrt

L1, L2, L3, L4, D = 0.06, 0.06, 0.10, 0.10, 0.07


def _knee(cx, cy, px, py, r_link, r_dist, side):
    """Knee of a 2-link chain from the motor (cx, cy) to the foot (px, py); side +1 / -1 picks the intersection."""
    dx, dy = px - cx, py - cy
    dist = hypot(dx, dy)
    if dist > r_link + r_dist or dist < abs(r_link - r_dist) or dist == 0:
        return None
    a = (r_link * r_link - r_dist * r_dist + dist * dist) / (2 * dist)
    h = sqrt(max(r_link * r_link - a * a, 0.0))
    ux, uy = dx / dist, dy / dist
    return cx + a * ux - side * h * uy, cy + a * uy + side * h * ux


def ik(x, y):
    c = _knee(0.0, 0.0, x, y, L1, L3, -1)  # knee C outward (away from motor B)
    d = _knee(D, 0.0, x, y, L2, L4, +1)  # knee D outward
    if c is None or d is None:
        return None
    return atan2(c[1], c[0]), atan2(d[1], d[0] - D)


def ik_branch(x, y):
    """Knee C flips inward when the foot is right of the midpoint: a branch mismatch."""
    q = ik(x, y)
    if q is None or x <= D / 2:
        return q
    c = _knee(0.0, 0.0, x, y, L1, L3, +1)
    return atan2(c[1], c[0]), q[1]


def ik_0_2pi(x, y):
    """Both motor angles wrapped into [0, 2 pi) instead of [-pi, pi]."""
    q = ik(x, y)
    return None if q is None else (q[0] % (2 * pi), q[1] % (2 * pi))
