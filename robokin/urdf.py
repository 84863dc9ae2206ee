"""URDF export of the course's serial mechanisms, for ROS tools and for MuJoCo (which compiles URDF).

A team's simulator usually reads URDF; a DH table typed into a URDF by hand is where "runs but is wrong" starts
again (a joint origin in the wrong frame, an ``rpy`` in the wrong order, a centre of mass left in the DH frame).
These writers derive every joint origin from the same DH table the package uses, and chapter 13 and
``tests/test_urdf.py`` compile the result in MuJoCo and compare its frames, and its gravity torques, with the
package to round-off.

Frames. URDF puts the joint rotation *after* the joint origin. Standard DH, ``A_i = Rz(q_i) [Rz(offset_i) Tz(d_i)
Tx(a_i) Rx(alpha_i)]``, therefore becomes a joint about ``z`` whose origin is the fixed bracket of the *previous*
row (the base for joint 1); the link frame of URDF link ``i`` is DH frame ``i`` turned back by that bracket, so a
link's centre of mass and inertia (given in DH frame ``i``) are written with the bracket as the inertial origin.
Modified DH, ``A_i = [Rx(alpha_{i-1}) Tx(a_{i-1}) Rz(offset_i) Tz(d_i)] Rz(q_i)``, maps row by row: URDF link ``i``
*is* DH frame ``i``. The tool transform becomes a fixed joint to a link named ``tool``. ``rpy`` is URDF's fixed-axis
roll, pitch, yaw: ``R = Rz(yaw) Ry(pitch) Rx(roll)``, the course's RPY (:func:`robokin.transforms.matrix_to_rpy`).

A ``<mujoco><compiler fusestatic="false" discardvisual="false"/></mujoco>`` element keeps the fixed ``tool`` link
as its own body when MuJoCo compiles the file; other URDF readers ignore it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._validate import as_array
from .leg2 import TwoLinkLeg
from .serial import SerialArm
from .transforms import matrix_to_rpy

__all__ = ["serial_urdf", "two_link_leg_urdf"]

#: Mass (kg) and inertia (kg m^2) written for a link whose inertial data are not given: MuJoCo refuses a moving
#: body without mass, and a kinematic model needs none. Say so when the file is used for dynamics.
PLACEHOLDER_MASS = 1e-3
PLACEHOLDER_INERTIA = 1e-6


def _num(x: float) -> str:
    # repr of a float is the shortest string that reads back to the same double: the file is exact
    return repr(float(x)) if x != 0 else "0"


def _origin(T: np.ndarray) -> str:
    xyz = " ".join(_num(v) for v in T[:3, 3])
    rpy = " ".join(_num(v) for v in matrix_to_rpy(T[:3, :3]))
    return f'<origin xyz="{xyz}" rpy="{rpy}"/>'


def _rotz(t):
    c, s = np.cos(t), np.sin(t)
    T = np.eye(4)
    T[:2, :2] = [[c, -s], [s, c]]
    return T


def _rotx(t):
    c, s = np.cos(t), np.sin(t)
    T = np.eye(4)
    T[1:3, 1:3] = [[c, -s], [s, c]]
    return T


def _trans(x, y, z):
    T = np.eye(4)
    T[:3, 3] = [x, y, z]
    return T


def _inertial(mass, com, inertia, frame=None):
    """``<inertial>`` of a link whose centre of mass and inertia are given in ``frame`` (a transform of the link)."""
    frame = np.eye(4) if frame is None else frame
    origin = frame @ np.r_[com, 1.0]
    T = frame.copy()
    T[:3, 3] = origin[:3]
    i = inertia
    return (
        f'<inertial>{_origin(T)}<mass value="{_num(mass)}"/>'
        f'<inertia ixx="{_num(i[0, 0])}" ixy="{_num(i[0, 1])}" ixz="{_num(i[0, 2])}" '
        f'iyy="{_num(i[1, 1])}" iyz="{_num(i[1, 2])}" izz="{_num(i[2, 2])}"/></inertial>'
    )


def _placeholder():
    return _inertial(PLACEHOLDER_MASS, np.zeros(3), PLACEHOLDER_INERTIA * np.eye(3))


def _joint(name, parent, child, T, axis, limit=None):
    lim = "" if limit is None else f'<limit lower="{_num(limit[0])}" upper="{_num(limit[1])}" effort="0" velocity="0"/>'
    kind = "revolute" if limit is not None else "continuous"
    return (
        f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>{_origin(T)}'
        f'<axis xyz="{axis}"/>{lim}</joint>'
    )


def _check_name(name):
    if not isinstance(name, str) or not name or not all(ch.isalnum() or ch in "_-" for ch in name):
        raise ValueError(f"name must be letters, digits, '_' or '-', got {name!r}")
    return name


def serial_urdf(
    arm: SerialArm,
    *,
    masses: ArrayLike | None = None,
    coms: ArrayLike | None = None,
    inertias: ArrayLike | None = None,
    name: str = "arm",
) -> str:
    """URDF text of a DH arm (standard or modified), with its base and tool transforms and joint limits.

    Parameters
    ----------
    arm : SerialArm
    masses : array_like, shape (n,), optional
        Link masses (kg). With ``coms`` and ``inertias`` (all three or none): the same inertial data as
        :class:`robokin.dynamics.SerialDynamics` takes (centre of mass in DH frame ``i``, m; inertia about the
        centre of mass in the axes of frame ``i``, kg m^2). Without them each link gets
        ``PLACEHOLDER_MASS`` (1e-3 kg) (kinematics only).
    name : str
        The robot's name in the file.

    Returns
    -------
    str
        Links ``base``, ``link1`` ... ``linkN`` and ``tool``; joints ``joint1`` ... ``jointN`` (``revolute`` with
        the arm's limits, else ``continuous``) about ``z``, and the fixed joint ``tool_joint``.

    Examples
    --------
    >>> from robokin.robots import UR5
    >>> text = serial_urdf(UR5)
    >>> text.count("<joint "), text.count('type="revolute"')
    (7, 6)
    """
    if not isinstance(arm, SerialArm):
        raise TypeError(f"arm must be a robokin.serial.SerialArm, got {type(arm).__name__}")
    name = _check_name(name)
    n = arm.n
    given = [v is not None for v in (masses, coms, inertias)]
    if any(given) and not all(given):
        raise ValueError("give masses, coms and inertias together (or none of them, for a kinematic model)")
    if all(given):
        m = as_array(masses, "masses")
        c = as_array(coms, "coms")
        J = as_array(inertias, "inertias")
        if m.shape != (n,) or c.shape != (n, 3) or J.shape != (n, 3, 3):
            raise ValueError(
                f"masses, coms, inertias must have shapes ({n},), ({n}, 3), ({n}, 3, 3); got {m.shape}, {c.shape}, "
                f"{J.shape}"
            )
        if np.any(m <= 0):
            raise ValueError("masses must be positive (a URDF link with a joint needs mass in MuJoCo)")
        if not np.allclose(J, np.swapaxes(J, -1, -2), atol=1e-12):
            raise ValueError("inertias must be symmetric 3x3 tensors")
    limits = arm.qlim
    if arm.convention == "standard":
        # bracket_i = Rz(offset_i) Tz(d_i) Tx(a_i) Rx(alpha_i): after joint i, before joint i + 1
        brackets = [
            _rotz(arm.offset[i]) @ _trans(0, 0, arm.d[i]) @ _trans(arm.a[i], 0, 0) @ _rotx(arm.alpha[i])
            for i in range(n)
        ]
        origins = [arm.base] + brackets[:-1]
        tool = brackets[-1] @ arm.tool
        frames = brackets  # DH frame i seen from URDF link i
    else:
        origins = [
            _rotx(arm.alpha[i]) @ _trans(arm.a[i], 0, 0) @ _rotz(arm.offset[i]) @ _trans(0, 0, arm.d[i])
            for i in range(n)
        ]
        origins[0] = arm.base @ origins[0]
        tool = arm.tool
        frames = [np.eye(4)] * n
    parts = [
        f'<robot name="{name}">',
        '<mujoco><compiler fusestatic="false" discardvisual="false"/></mujoco>',
        '<link name="base"/>',  # the fixed base: no mass needed
    ]
    for i in range(n):
        inertial = _inertial(m[i], c[i], J[i], frames[i]) if all(given) else _placeholder()
        parts.append(f'<link name="link{i + 1}">{inertial}</link>')
        parent = "base" if i == 0 else f"link{i}"
        parts.append(
            _joint(f"joint{i + 1}", parent, f"link{i + 1}", origins[i], "0 0 1", None if limits is None else limits[i])
        )
    parts.append('<link name="tool"/>')  # massless: a frame, not a body (MuJoCo accepts it on a fixed joint)
    parts.append(
        f'<joint name="tool_joint" type="fixed"><parent link="link{n}"/><child link="tool"/>{_origin(tool)}</joint>'
    )
    parts.append("</robot>")
    return "\n".join(parts) + "\n"


def two_link_leg_urdf(
    leg: TwoLinkLeg,
    *,
    masses: ArrayLike | None = None,
    name: str = "leg",
) -> str:
    """URDF text of the planar two-link leg of chapter 2 (hip at the origin, the leg hanging along ``-z``).

    Joints ``hip`` and ``knee`` turn about ``-y`` so that positive angles swing the foot towards ``+x``, as in
    :meth:`robokin.leg2.TwoLinkLeg.fk` (``x = l1 sin q1 + l2 sin(q1 + q2)``, ``z = -l1 cos q1 - l2 cos(q1 + q2)``);
    the fixed joint ``foot_joint`` puts the link ``foot`` at the foot. Each link is a uniform rod of the given mass
    (kg; default ``PLACEHOLDER_MASS`` (1e-3 kg)), its centre of mass halfway, inertia ``m l^2 / 12`` about ``x`` and ``y``.

    Examples
    --------
    >>> from robokin.robots import LEG2
    >>> print(two_link_leg_urdf(LEG2).count("<joint "))
    3
    """
    if not isinstance(leg, TwoLinkLeg):
        raise TypeError(f"leg must be a robokin.leg2.TwoLinkLeg, got {type(leg).__name__}")
    name = _check_name(name)
    if masses is None:
        m = np.full(2, PLACEHOLDER_MASS)
    else:
        m = as_array(masses, "masses")
        if m.shape != (2,) or np.any(m <= 0):
            raise ValueError(f"masses must be two positive numbers (thigh, shank; kg), got {np.asarray(masses)!r}")
    lims = [None, None]
    if leg.q_min is not None:
        lims = [(leg.q_min[k], leg.q_max[k]) for k in range(2)]
    parts = [
        f'<robot name="{name}">',
        '<mujoco><compiler fusestatic="false" discardvisual="false"/></mujoco>',
        '<link name="base"/>',
    ]
    for k, (link, length) in enumerate((("thigh", leg.l1), ("shank", leg.l2))):
        rod = m[k] * length**2 / 12 * np.diag([1.0, 1.0, 0.0]) + PLACEHOLDER_INERTIA * np.eye(3)
        parts.append(f'<link name="{link}">{_inertial(m[k], [0.0, 0.0, -length / 2], rod)}</link>')
    parts.append(_joint("hip", "base", "thigh", np.eye(4), "0 -1 0", lims[0]))
    parts.append(_joint("knee", "thigh", "shank", _trans(0, 0, -leg.l1), "0 -1 0", lims[1]))
    parts.append('<link name="foot"/>')  # a frame on the shank, massless
    parts.append(
        f'<joint name="foot_joint" type="fixed"><parent link="shank"/><child link="foot"/>'
        f"{_origin(_trans(0, 0, -leg.l2))}</joint>"
    )
    parts.append("</robot>")
    return "\n".join(parts) + "\n"
