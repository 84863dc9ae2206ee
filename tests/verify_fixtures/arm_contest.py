"""A team's code for the contest arm of examples/robots/contest_arm_mdh.toml (modified DH, base on a table, gripper).

``fk`` is written from the contest sheet by hand; the ``*_wrong`` functions are the typical mistakes. The IK
functions use robokin's closed form (a team that uses the library), once right and once with the gripper forgotten.
"""

import numpy as np

A = np.array([0.0, 0.0, -0.612, -0.5723, 0.0, 0.0])
ALPHA = np.deg2rad([0.0, 90.0, 0.0, 0.0, 90.0, -90.0])
D = np.array([0.1273, 0.0, 0.0, 0.163941, 0.1157, 0.0922])


def _rx(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])


def _rz(t):
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])


def _tr(x, y, z):
    T = np.eye(4)
    T[:3, 3] = x, y, z
    return T


BASE = _tr(0.0, 0.0, 0.8) @ _rz(np.pi / 2)
TOOL = _tr(0.0, 0.02, 0.16)


def fk(q, *, modified=True, tool=True, scale=1.0):
    T = BASE.copy()
    for i in range(6):
        th = scale * q[i]
        if modified:  # Craig: Rx(alpha_{i-1}) Tx(a_{i-1}) Rz(theta_i) Tz(d_i)
            T = T @ _rx(ALPHA[i]) @ _tr(A[i], 0, 0) @ _rz(th) @ _tr(0, 0, D[i])
        else:  # the standard formula applied to the modified table
            T = T @ _rz(th) @ _tr(0, 0, D[i]) @ _tr(A[i], 0, 0) @ _rx(ALPHA[i])
    return T @ TOOL if tool else T


def fk_standard_wrong(q):
    return fk(q, modified=False)


def fk_no_tool_wrong(q):
    return fk(q, tool=False)


def fk_degrees_wrong(q):
    return fk(q, scale=np.pi / 180)


def _arm(with_tool):
    from robokin import params

    arm = params.load(__file__.replace("tests/verify_fixtures/arm_contest.py", "examples/robots/contest_arm_mdh.toml"))
    arm = arm.mechanism
    if with_tool:
        return arm
    from robokin.ur5 import make_ur_arm

    return make_ur_arm(arm.geometry, offset=arm.offset, qlim=arm.qlim, base=arm.base)


def ik(T):
    arm = _arm(True)
    r = arm.ik(T, branch="left-up-noflip", on_unreachable="nan", warn=False)
    return r.q if r.valid else None


def ik_flange_wrong(T):
    arm = _arm(False)
    r = arm.ik(T, branch="left-up-noflip", on_unreachable="nan", warn=False)
    return r.q if r.valid else None


def jacobian(q, *, tool=True, omega_first=False, body=False):
    """Geometric Jacobian [v; omega] of the tool point in the world frame, from the chain's own frames."""
    T = BASE.copy()
    axes, origins = [], []
    for i in range(6):
        T = T @ _rx(ALPHA[i]) @ _tr(A[i], 0, 0)
        axes.append(T[:3, 2].copy())
        origins.append(T[:3, 3].copy())
        T = T @ _rz(q[i]) @ _tr(0, 0, D[i])
    E = T @ TOOL if tool else T
    p = E[:3, 3]
    J = np.zeros((6, 6))
    for i in range(6):
        J[:3, i] = np.cross(axes[i], p - origins[i])
        J[3:, i] = axes[i]
    if body:
        R = E[:3, :3]
        J = np.vstack([R.T @ J[:3], R.T @ J[3:]])
    return np.vstack([J[3:], J[:3]]) if omega_first else J


def jacobian_omega_first_wrong(q):
    """Rows [omega; v], the order of Modern Robotics' twists."""
    return jacobian(q, omega_first=True)


def jacobian_flange_wrong(q):
    """The velocity of the flange, the gripper offset forgotten."""
    return jacobian(q, tool=False)


def jacobian_body_wrong(q):
    """Both rows expressed in the tool frame."""
    return jacobian(q, body=True)
