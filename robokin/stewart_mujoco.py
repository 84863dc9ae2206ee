"""The Stewart platform in MuJoCo: six legs closed by equality constraints, for checking chapter 10's dynamics.

Chapter 10 writes the platform's equations of motion by hand (:class:`~robokin.stewart.StewartDynamics`: a rigid
platform, the legs' moving mass lumped at their top anchors, massless legs otherwise). This module builds the same
machine as an independent multibody model — a free platform, six legs each with a universal joint at the base, a
prismatic joint along the leg and a ball-joint closure at the top (a ``connect`` equality) — so that the engine's
answer to "which leg forces move the platform along this trajectory" can be compared with the hand-derived one.

Notes
-----
Conventions:

* World frame ``z`` up, gravity ``-params.gravity`` along ``z``, as in chapter 10.
* Pose ``q = [x, y, z, roll, pitch, yaw]`` (m, rad; ZYX, world frame) and pose rates ``qd`` (m/s, rad/s of the
  angles), exactly as :class:`~robokin.stewart.StewartDynamics`. MuJoCo's free joint uses a quaternion and the
  angular velocity in the platform frame; :func:`stewart_pose` and :func:`stewart_set_state` convert.
* Leg ``i`` joins base anchor ``robot.base[:, i]`` to top anchor ``robot.top[:, i]``. Its slide joint ``leg{i}``
  is the extension from the build pose; the leg length is ``L_build[i] + qpos[slide]``. Actuator ``f{i}`` is the
  force along the leg (N), positive pushing the platform away from the base — the sign of chapter 10's ``f``.
* Mass: the platform's mass, centre of mass and inertia from ``params``; each leg's ``leg_mass`` is a point
  mass welded to the platform at the top anchor (chapter 10's lumping). The leg bodies themselves get
  ``leg_body_mass`` (kg per leg, default 1 g, split evenly over the cylinder and the rod): MuJoCo needs a positive
  mass behind every joint.
* Two modelling differences from chapter 10 remain, both measured in tests/test_stewart_mujoco.py: that leg-body
  mass, and the softness of MuJoCo's constraints (the closures give way a little under load; MuJoCo caps the
  impedance ``d`` at 0.9999). The force gap grows linearly with ``leg_body_mass`` above a floor set by the softness.
* Coordinates: the conversion of the engine's accelerations to pose coordinates uses the rate map ``E`` of
  :func:`robokin.transforms.zyx_rate_matrix` (checked in chapter 1) and its own difference quotient for ``dE/dt``,
  not chapter 10's formula for it, so an error in that term would show as a gap.
* Friction: none in the engine. Chapter 10's smoothed actuator friction is a function of the leg rate; a
  controller that wants it applies it as part of its leg force.

Examples
--------
>>> from robokin.robots import STEWART, STEWART_PAYLOAD
>>> model = stewart_model(STEWART, STEWART_PAYLOAD, pose=[0, 0, 0.55, 0, 0, 0])
>>> model.nq, model.nv, model.nu, model.neq   # free joint (7/6) + 6 legs x (2 hinges + 1 slide)
(25, 24, 6, 6)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._primitives import rpy_matrix
from ._validate import as_array, choice, finite_scalar, positive
from .sim import INTEGRATORS, _f, _quat, _vec, require_mujoco  # the MJCF text helpers of robokin.sim
from .stewart import PlatformParams, Stewart
from .transforms import matrix_to_rpy, zyx_rate_matrix

__all__ = [
    "stewart_mjcf",
    "stewart_model",
    "stewart_set_state",
    "stewart_pose",
    "stewart_leg_lengths",
    "stewart_accel",
    "stewart_force_map",
    "stewart_engine_leg_forces",
]


def _align_z(u):
    """A rotation whose third column is the unit vector ``u`` (the leg frame: local ``z`` along the leg)."""
    z = u / np.linalg.norm(u)
    helper = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


def _check(robot, params, pose):
    if not isinstance(robot, Stewart):
        raise ValueError(f"robot must be a robokin.stewart.Stewart, got {type(robot).__name__}")
    if not isinstance(params, PlatformParams):
        raise ValueError(f"params must be a robokin.stewart.PlatformParams, got {type(params).__name__}")
    q = as_array(pose, "pose", trailing=(6,))
    if q.ndim != 1:
        raise ValueError(f"pose must have shape (6,): one build pose, got {q.shape}")
    L = robot.leg_lengths(q)
    if np.any(L < 1e-3):
        raise ValueError(f"pose: leg lengths {L.round(4).tolist()} m; a leg shorter than 1 mm cannot be modelled")
    return q, L


def stewart_mjcf(
    robot: Stewart,
    params: PlatformParams,
    *,
    pose: ArrayLike,
    leg_body_mass: float = 1e-3,
    timestep: float = 1e-3,
    integrator: str = "implicitfast",
    solref: ArrayLike = (0.004, 1.0),
    solimp: ArrayLike = (0.9999, 0.9999, 0.001),
) -> str:
    """MJCF text of the platform on six closed legs, built at ``pose``.

    Parameters
    ----------
    robot : Stewart
        Anchors (and stroke, used as slide-joint limits when given).
    params : PlatformParams
        Platform mass, centre of mass, inertia, ``leg_mass`` and ``gravity``; friction fields are not modelled.
    pose : array_like, shape (6,), keyword-only
        Build pose ``[x, y, z, roll, pitch, yaw]`` (m, rad): every slide joint is zero here and the closures are
        exact. Must give legs longer than 1 mm.
    leg_body_mass : float, keyword-only
        Mass of each leg's own bodies (kg; > 0, MuJoCo needs it behind every joint), split evenly over the
        cylinder and the rod, each a slender rod of the leg's build length.
    timestep : float, keyword-only
        MuJoCo step (s).
    integrator : {"Euler", "RK4", "implicit", "implicitfast"}, keyword-only
    solref : array_like, shape (2,), keyword-only
        ``(timeconst, dampratio)`` of the six closures (s, -); ``timeconst`` at least twice ``timestep``
        (MuJoCo's own rule for a stable soft constraint).
    solimp : array_like, shape (3,), keyword-only
        ``(dmin, dmax, width)`` impedance of the closures, ``0 < dmin, dmax < 1``, ``width > 0`` (m). The default
        is MuJoCo's largest impedance: MuJoCo clamps ``d`` to at most 0.9999, so values above that act as 0.9999.

    Returns
    -------
    str
        MJCF XML.

    Raises
    ------
    ValueError
        Not a ``Stewart``/``PlatformParams``, a bad pose, a non-positive mass or step, an unknown integrator, a
        ``solref`` that is not positive or faster than two steps, a ``solimp`` outside the ranges above.
    """
    q, L = _check(robot, params, pose)
    mb = positive(leg_body_mass, "leg_body_mass")
    dt = positive(timestep, "timestep")
    integrator = choice(integrator, "integrator", INTEGRATORS)
    sr = as_array(solref, "solref", trailing=(2,))
    if sr.ndim != 1 or sr[0] <= 0 or sr[1] <= 0:
        raise ValueError(f"solref = (timeconst, dampratio) must be two positive numbers, got {np.ravel(sr).tolist()}")
    if sr[0] < 2 * dt:
        raise ValueError(f"solref timeconst {sr[0]:g} s must be at least twice the timestep ({2 * dt:g} s)")
    si = as_array(solimp, "solimp", trailing=(3,))
    if si.ndim != 1 or not (0 < si[0] < 1 and 0 < si[1] < 1 and si[2] > 0):
        raise ValueError(
            f"solimp = (dmin, dmax, width) needs 0 < dmin, dmax < 1 and width > 0, got {np.ravel(si).tolist()}"
        )
    g = finite_scalar(params.gravity, "params.gravity")
    R = rpy_matrix(q[3:])
    I = params.inertia
    parts = [
        '<mujoco model="stewart">',
        '<compiler angle="radian" autolimits="true"/>',
        f'<option timestep="{_f(dt)}" integrator="{integrator}" gravity="0 0 {_f(-g)}"/>',
        '<visual><global offwidth="640" offheight="480"/></visual>',
        "<worldbody>",
        '<light pos="0 0 3" dir="0 0 -1"/>',
        '<geom name="floor" type="plane" size="1.5 1.5 0.01" rgba="0.85 0.85 0.85 1" contype="0" conaffinity="0"/>',
        f'<body name="platform" pos="{_vec(q[:3])}" quat="{_vec(_quat(R))}">',
        '<freejoint name="platform"/>',
        f'<inertial pos="{_vec(params.com)}" mass="{_f(params.mass)}" '
        f'fullinertia="{_vec([I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]])}"/>',
        f'<geom type="cylinder" size="{_f(np.linalg.norm(robot.top, axis=0).max())} 0.01" mass="0" '
        'rgba="0.3 0.5 0.8 1" contype="0" conaffinity="0"/>',
    ]
    for i in range(6):
        p = robot.top[:, i]
        parts.append(f'<site name="top{i}" pos="{_vec(p)}" size="0.008"/>')
        if params.leg_mass > 0:  # the leg's moving mass, lumped at the top anchor as in chapter 10
            parts.append(
                f'<body name="legmass{i}" pos="{_vec(p)}"><inertial pos="0 0 0" mass="{_f(params.leg_mass)}" '
                'diaginertia="1e-12 1e-12 1e-12"/></body>'
            )
    parts.append("</body>")
    stroke = robot.stroke
    for i in range(6):
        b = robot.base[:, i]
        s = R @ robot.top[:, i] + q[:3] - b
        Rl = _align_z(s)
        m_half, l = 0.5 * mb, L[i]
        I_rod = m_half * l * l / 12.0
        inertial = f'<inertial pos="0 0 {_f(l / 2)}" mass="{_f(m_half)}" diaginertia="{_vec([I_rod, I_rod, 1e-9])}"/>'
        rng = ""
        if stroke is not None:
            rng = f' range="{_f(stroke[0] - l)} {_f(stroke[1] - l)}"'
        parts += [
            f'<body name="cyl{i}" pos="{_vec(b)}" quat="{_vec(_quat(Rl))}">',
            f'<joint name="u{i}x" type="hinge" axis="1 0 0"/>',
            f'<joint name="u{i}y" type="hinge" axis="0 1 0"/>',
            inertial,
            f'<geom type="capsule" fromto="0 0 0 0 0 {_f(0.6 * l)}" size="0.015" mass="0" rgba="0.5 0.5 0.5 1" '
            'contype="0" conaffinity="0"/>',
            f'<body name="rod{i}">',
            f'<joint name="leg{i}" type="slide" axis="0 0 1"{rng}/>',
            inertial,
            f'<geom type="capsule" fromto="0 0 {_f(0.4 * l)} 0 0 {_f(l)}" size="0.01" mass="0" '
            'rgba="0.8 0.4 0.2 1" contype="0" conaffinity="0"/>',
            f'<site name="tip{i}" pos="0 0 {_f(l)}" size="0.008"/>',
            "</body>",
            "</body>",
        ]
    parts += ["</worldbody>", "<equality>"]
    parts += [
        f'<connect name="close{i}" site1="tip{i}" site2="top{i}" solref="{_vec(sr)}" solimp="{_vec(si)}"/>'
        for i in range(6)
    ]
    parts += ["</equality>", "<actuator>"]
    parts += [f'<motor name="f{i}" joint="leg{i}" gear="1"/>' for i in range(6)]
    parts += ["</actuator>", "</mujoco>"]
    return "\n".join(parts)


def stewart_model(robot: Stewart, params: PlatformParams, **options) -> Any:
    """Compiled ``mujoco.MjModel`` of :func:`stewart_mjcf` (same arguments); ``qpos0`` is the build pose."""
    mujoco = require_mujoco()
    return mujoco.MjModel.from_xml_string(stewart_mjcf(robot, params, **options))


def _check_md(model, data):
    """``model``/``data`` must be a compiled model of :func:`stewart_model` and its ``MjData``."""
    mujoco = require_mujoco()
    if not isinstance(model, mujoco.MjModel):
        raise ValueError(f"model must be a mujoco.MjModel from stewart_model, got {type(model).__name__}")
    if not isinstance(data, mujoco.MjData) or data.qpos.shape != (model.nq,):
        raise ValueError(f"data must be the mujoco.MjData of model, got {type(data).__name__}")
    names = ["platform"] + [f"leg{i}" for i in range(6)] + [f"u{i}{a}" for i in range(6) for a in "xy"]
    missing = [n for n in names if mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, n) < 0]
    if missing or model.nu != 6:
        raise ValueError(f"model is not a Stewart model from stewart_model (missing joints {missing[:3]} ...)")
    return mujoco


def _ids(model):
    legs = [model.joint(f"leg{i}") for i in range(6)]
    return [int(j.qposadr[0]) for j in legs], [int(j.dofadr[0]) for j in legs]


def stewart_pose(model: Any, data: Any) -> tuple[np.ndarray, np.ndarray]:
    """Platform pose ``q`` (6,) and pose rates ``qd`` (6,) in chapter 10's coordinates, from MuJoCo's state.

    ``qd[:3]`` is the world-frame velocity of the platform centre; ``qd[3:]`` the ZYX angle rates, from the
    engine's body-frame angular velocity ``w_b`` by ``w_world = R w_b = E(rpy) rpy_dot``.
    """
    mujoco = _check_md(model, data)
    adr = int(model.joint("platform").qposadr[0])
    vadr = int(model.joint("platform").dofadr[0])
    R = np.empty(9)
    mujoco.mju_quat2Mat(R, data.qpos[adr + 3 : adr + 7])
    R = R.reshape(3, 3)
    rpy = matrix_to_rpy(R)
    w_world = R @ data.qvel[vadr + 3 : vadr + 6]
    rpy_dot = np.linalg.solve(zyx_rate_matrix(rpy, frame="world"), w_world)
    return np.concatenate([data.qpos[adr : adr + 3], rpy]), np.concatenate([data.qvel[vadr : vadr + 3], rpy_dot])


def stewart_leg_lengths(model: Any, data: Any, build_lengths: ArrayLike) -> np.ndarray:
    """Leg lengths (m) from the slide joints: ``build_lengths + qpos[leg_i]`` (``build_lengths`` shape (6,), m)."""
    _check_md(model, data)
    Lb = as_array(build_lengths, "build_lengths", trailing=(6,))
    if Lb.ndim != 1:
        raise ValueError(f"build_lengths must have shape (6,), got {Lb.shape}")
    qadr, _ = _ids(model)
    return Lb + data.qpos[qadr]


def stewart_set_state(model: Any, data: Any, robot: Stewart, q: ArrayLike, qd: ArrayLike, *, build: ArrayLike) -> None:
    """Put the engine in pose ``q`` with pose rates ``qd`` (chapter 10's coordinates), legs consistent.

    Every joint is solved from the geometry (no constraint violation at the start): the platform's free joint
    from ``q``; each leg's universal-joint angles from the direction of ``x + R p_i - b_i`` in the leg's build
    frame, its slide from the length; the leg rates from a least-squares solve of the closure velocities.

    Parameters
    ----------
    model, data : mujoco.MjModel, mujoco.MjData
        From :func:`stewart_model` built at ``build``.
    robot : Stewart
    q, qd : array_like, shape (6,)
        Pose and pose rates (m, rad; m/s, rad/s of the ZYX angles).
    build : array_like, shape (6,), keyword-only
        The build pose the model was made at.
    """
    mujoco = _check_md(model, data)
    if not isinstance(robot, Stewart):
        raise ValueError(f"robot must be a robokin.stewart.Stewart, got {type(robot).__name__}")
    q = as_array(q, "q", trailing=(6,))
    qd = as_array(qd, "qd", trailing=(6,))
    qb = as_array(build, "build", trailing=(6,))
    if q.ndim != 1 or qd.ndim != 1 or qb.ndim != 1:
        raise ValueError("q, qd and build must each have shape (6,)")
    adr = int(model.joint("platform").qposadr[0])
    vadr = int(model.joint("platform").dofadr[0])
    R = rpy_matrix(q[3:])
    data.qpos[adr : adr + 3] = q[:3]
    data.qpos[adr + 3 : adr + 7] = _quat(R)
    w_world = zyx_rate_matrix(q[3:], frame="world") @ qd[3:]
    data.qvel[vadr : vadr + 3] = qd[:3]
    data.qvel[vadr + 3 : vadr + 6] = R.T @ w_world
    Rb = rpy_matrix(qb[3:])
    L_build = robot.leg_lengths(qb)
    for i in range(6):
        b = robot.base[:, i]
        Rl = _align_z(Rb @ robot.top[:, i] + qb[:3] - b)
        s = Rl.T @ (R @ robot.top[:, i] + q[:3] - b)  # leg vector in the leg's build frame
        L = np.linalg.norm(s)
        u = s / L
        # R_x(a) R_y(c) e_z = u: c = asin(u_x), a = atan2(-u_y, u_z)
        a, c = np.arctan2(-u[1], u[2]), np.arcsin(np.clip(u[0], -1.0, 1.0))
        for name, val in ((f"u{i}x", a), (f"u{i}y", c), (f"leg{i}", L - L_build[i])):
            data.qpos[int(model.joint(name).qposadr[0])] = val
    # leg joint rates: velocity of each closure zero, given the platform's velocity (least squares, exact here)
    mujoco.mj_forward(model, data)
    leg_dofs = [d for d in range(model.nv) if not vadr <= d < vadr + 6]
    jac = np.zeros((3 * 6, model.nv))
    for i in range(6):
        jp, jr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
        jt, jr2 = np.zeros((3, model.nv)), np.zeros((3, model.nv))
        mujoco.mj_jacSite(model, data, jp, jr, model.site(f"tip{i}").id)
        mujoco.mj_jacSite(model, data, jt, jr2, model.site(f"top{i}").id)
        jac[3 * i : 3 * i + 3] = jp - jt
    v = np.linalg.lstsq(jac[:, leg_dofs], -jac[:, vadr : vadr + 6] @ data.qvel[vadr : vadr + 6], rcond=None)[0]
    data.qvel[leg_dofs] = v
    mujoco.mj_forward(model, data)
    gap = float(np.abs(jac @ data.qvel).max())
    if not gap <= 1e-9 * max(1.0, float(np.abs(qd).max())):  # a leg along a universal-joint axis
        raise ValueError(f"q: the legs' joint rates cannot close the loops at this pose (velocity gap {gap:.3g} m/s)")


def stewart_accel(model: Any, data: Any) -> np.ndarray:
    """Pose accelerations ``qdd`` (6,) in chapter 10's coordinates from MuJoCo's ``qacc`` (after ``mj_forward``).

    Linear part: the platform centre's world acceleration. Angular part: ``rpy_dd = E^-1 (alpha_world - Edot
    rpy_dot)`` with ``alpha_world = R qacc[3:6]`` (MuJoCo's free-joint angular acceleration is in the platform
    frame, and ``d/dt (R w_b) = R dw_b/dt`` because ``w_b x w_b = 0``). ``Edot rpy_dot`` is a central difference
    of ``E`` along ``rpy_dot`` (step 1e-6 rad, error about 1e-12), independent of chapter 10's closed form.
    """
    q, qd = stewart_pose(model, data)  # checks model and data
    vadr = int(model.joint("platform").dofadr[0])
    R = data.xmat[model.body("platform").id].reshape(3, 3)
    alpha = R @ data.qacc[vadr + 3 : vadr + 6]
    E = zyx_rate_matrix(q[3:], frame="world")
    h = 1e-6
    E_dot = (
        zyx_rate_matrix(q[3:] + h * qd[3:], frame="world") - zyx_rate_matrix(q[3:] - h * qd[3:], frame="world")
    ) / (2 * h)
    return np.concatenate([data.qacc[vadr : vadr + 3], np.linalg.solve(E, alpha - E_dot @ qd[3:])])


def stewart_force_map(model: Any, data: Any) -> tuple[np.ndarray, np.ndarray]:
    """The engine's affine map from leg forces to pose accelerations at the current state: ``qdd = a0 + B f``.

    MuJoCo's forward dynamics is affine in the actuator inputs at a fixed state (the constraint solve of the six
    closures included, as long as no slide-joint stroke limit is active: a limit constraint switches on or off
    with the force), so seven ``mj_forward`` calls give it exactly: ``a0`` with zero forces and one column of
    ``B`` per unit leg force. ``data.ctrl`` is left at zero. In chapter 10's model ``B = M^-1 Jq^T``.

    Returns
    -------
    a0 : ndarray, shape (6,)
        Pose accelerations with zero leg forces (gravity and velocity terms).
    B : ndarray, shape (6, 6)
        ``d qdd / d f`` (1/kg-like units per leg, N -> m/s^2 or rad/s^2).
    """
    mujoco = _check_md(model, data)
    data.ctrl[:] = 0.0
    mujoco.mj_forward(model, data)
    a0 = stewart_accel(model, data)
    B = np.empty((6, 6))
    for j in range(6):
        data.ctrl[:] = 0.0
        data.ctrl[j] = 1.0
        mujoco.mj_forward(model, data)
        B[:, j] = stewart_accel(model, data) - a0
    data.ctrl[:] = 0.0
    mujoco.mj_forward(model, data)
    return a0, B


def stewart_engine_leg_forces(
    model: Any, data: Any, robot: Stewart, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, build: ArrayLike
) -> np.ndarray:
    """The leg forces (N) that give pose acceleration ``qdd`` in the engine at state ``(q, qd)``: ``B^-1 (qdd - a0)``.

    The engine's answer to chapter 10's inverse dynamics (:meth:`robokin.stewart.StewartDynamics.leg_forces`),
    from the multibody model, not from the hand-derived equations. Near a singular pose ``B`` becomes singular and
    the forces grow without bound, as they do in the hand-derived model.

    Parameters
    ----------
    model, data : mujoco.MjModel, mujoco.MjData
        From :func:`stewart_model`, built at ``build``.
    robot : Stewart
    q, qd, qdd : array_like, shape (6,)
        Pose, pose rates and pose accelerations (m, rad; per s; per s^2).
    build : array_like, shape (6,), keyword-only
        The build pose of the model.

    Raises
    ------
    ValueError
        Bad shapes or non-finite values; ``B`` numerically singular (condition number above 1e12: a singular pose).

    Examples
    --------
    >>> import mujoco
    >>> from robokin.robots import STEWART, STEWART_PAYLOAD
    >>> from robokin.stewart import StewartDynamics
    >>> home = np.array([0, 0, 0.42, 0, 0, 0])
    >>> m = stewart_model(STEWART, STEWART_PAYLOAD, pose=home, leg_body_mass=1e-4)
    >>> d = mujoco.MjData(m)
    >>> f_mj = stewart_engine_leg_forces(m, d, STEWART, home, np.zeros(6), np.zeros(6), build=home)
    >>> f_10 = StewartDynamics(STEWART, STEWART_PAYLOAD).leg_forces(home, np.zeros(6), np.zeros(6))
    >>> bool(np.abs(f_mj - f_10).max() < 5e-3 * np.abs(f_10).max())   # the holding forces agree
    True
    """
    qdd = as_array(qdd, "qdd", trailing=(6,))
    if qdd.ndim != 1:
        raise ValueError(f"qdd must have shape (6,), got {qdd.shape}")
    stewart_set_state(model, data, robot, q, qd, build=build)
    a0, B = stewart_force_map(model, data)
    c = np.linalg.cond(B)
    if not np.isfinite(c) or c > 1e12:
        raise ValueError(f"the engine's force map is singular at this pose (cond {c:.3g}): no leg forces give qdd")
    return np.linalg.solve(B, qdd - a0)
