"""A reader's mecanum wheel-speed IK and FK for examples/robots/mecanum_ch08.toml, and the typical mistakes.

Wheel order FL, FR, RL, RR; body frame x forward, y left; X layout (roller angles -45, +45, +45, -45 deg from x).
``ROLLER_30`` is the same chassis with 30 degree rollers (verify_fixtures/mecanum_30deg.toml), where a swapped
lx and ly shows (with 45 degree rollers lx and ly enter only as lx + ly, so the swap is harmless there).
"""

from math import radians, tan

import numpy as np

R, LX, LY = 0.076, 0.21, 0.18
SIGNS = (-1.0, 1.0, 1.0, -1.0)  # of the roller angle, FL, FR, RL, RR
POS = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def _ik(vx, vy, omega, *, lx=LX, ly=LY, angle=45.0, signs=SIGNS, swap_xy=False):
    w = []
    for (sx, sy), sg in zip(POS, signs):
        x, y = sx * lx, sy * ly
        if swap_xy:
            x, y = y, x
        t = sg * tan(radians(angle))
        w.append((vx - omega * y + t * (vy + omega * x)) / R)
    return w


def ik(vx, vy, omega):
    return _ik(vx, vy, omega)


def fk(w_fl, w_fr, w_rl, w_rr):
    M = np.array([_ik(*e) for e in np.eye(3)]).T  # columns: the wheel speeds of a unit vx, vy, omega
    return np.linalg.lstsq(M, [w_fl, w_fr, w_rl, w_rr], rcond=None)[0]


def ik_roller_sign_wrong(vx, vy, omega):
    """The rollers' signs mirrored (the chassis built as the O layout in code)."""
    return _ik(vx, vy, omega, signs=tuple(-s for s in SIGNS))


def ik_xy_swapped_wrong(vx, vy, omega):
    """x_i and y_i of the contact points swapped in the formula."""
    return _ik(vx, vy, omega, swap_xy=True)


def ik_clockwise_wrong(vx, vy, omega):
    """Wheels returned in clockwise order FL, FR, RR, RL."""
    w = _ik(vx, vy, omega)
    return [w[0], w[1], w[3], w[2]]


def fk_three_wheels_wrong(w_fl, w_fr, w_rl, w_rr):
    """The twist solved from FL, FR, RL only: fine for consistent wheels, wrong when one slips."""
    M = np.array([_ik(*e) for e in np.eye(3)]).T
    return np.linalg.solve(M[:3], [w_fl, w_fr, w_rl])


def ik30(vx, vy, omega):
    return _ik(vx, vy, omega, angle=30.0)


def ik30_lxly_swapped_wrong(vx, vy, omega):
    """Half wheelbase and half track swapped, on the 30 degree roller chassis."""
    return _ik(vx, vy, omega, lx=LY, ly=LX, angle=30.0)


def ik_lxly_swapped_45(vx, vy, omega):
    """The same swap with 45 degree rollers: the wheel speeds are unchanged (it passes, correctly)."""
    return _ik(vx, vy, omega, lx=LY, ly=LX)


def ik_refuses_reverse_wrong(vx, vy, omega):
    """Raises ValueError for every backward twist (a speed check with the wrong sign)."""
    if vx < 0:
        raise ValueError("speed out of range")
    return _ik(vx, vy, omega)
