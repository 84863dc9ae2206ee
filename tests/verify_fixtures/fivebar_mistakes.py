"""Wrong five-bar FK, IK and Jacobians (chapter 3's frame and sizes), each a mistake the checker must name."""

import numpy as np

from robokin.fivebar import FiveBar

FB = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)


def _J(t1, t2):
    return FB.jacobian([t1, t2], warn=False)


def jacobian(t1, t2):
    return _J(t1, t2).tolist()


def jacobian_transposed_wrong(t1, t2):
    return _J(t1, t2).T.tolist()


def jacobian_degrees_wrong(t1, t2):
    return (_J(t1, t2) * np.pi / 180).tolist()


def jacobian_inverted_wrong(t1, t2):
    """The inverse Jacobian dq/dp (what a velocity IK needs) returned for dp/dq."""
    return np.linalg.inv(_J(t1, t2)).tolist()


def fk_up_wrong(t1, t2):
    """The other circle intersection: the foot above the knees (assembly 'up')."""
    return FB.fk([t1, t2], assembly="up", on_unreachable="nan").tolist()


def _ik(x, y, branch):
    r = FB.ik([x, y], branch=branch, on_unreachable="nan")
    return r.q.tolist() if bool(r.valid) else None


def ik_in_wrong(x, y):
    """Both knees inward everywhere: a consistent working mode, not the course's."""
    return _ik(x, y, "in")


def ik_out_in_wrong(x, y):
    return _ik(x, y, "out-in")


def ik_float32(x, y):
    """The course's IK rounded to float32 at input and output (a float32 firmware): correct."""
    x, y = float(np.float32(x)), float(np.float32(y))
    r = FB.ik([x, y], on_unreachable="nan")
    return None if not bool(r.valid) else [float(np.float32(v)) for v in r.q]


def ik_ydown_wrong(x, y):
    """The course's IK written for a y axis pointing down (the target mirrored, the angles negated)."""
    q = _ik(x, -y, "out")
    return None if q is None else [-q[0], -q[1]]


def ik_refuses_wrong(x, y):
    """Raises ValueError for every target right of the midpoint (a too strict reachability test)."""
    if x > FB.d / 2:
        raise ValueError("target out of reach")
    return _ik(x, y, "out")


def ik_strings_wrong(x, y):
    return ("0.1", "0.2")
