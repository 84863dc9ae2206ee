"""Multibody simulation with MuJoCo: models generated from robokin's own objects (chapter 13).

MuJoCo (Todorov, Erez and Tassa, IROS 2012) is an independent rigid-body engine. This module writes MJCF
(MuJoCo's XML) **from the parameters of robokin objects** (a :class:`~robokin.fivebar.FiveBar`
and stated link masses, a :class:`~robokin.dynamics.TwoLinkArm`, a DH
:class:`~robokin.serial.SerialArm` with :func:`robokin.ur5.inertial_parameters`), so that the
hand-derived models of the course can be checked against it. It also runs a controller at a
fixed rate and reads states, torques and contact forces.

MuJoCo is an optional dependency (the ``book`` extra): ``import robokin`` works without it,
and the first call that needs it raises an ``ImportError`` that says how to install it.

Notes
-----
Conventions:

* Five-bar models: the five-bar plane ``(x, y)`` of chapter 3 is MuJoCo's ``(x, z)`` plane
  (``y`` up becomes ``z`` up, gravity along ``-z``), so every hinge axis is ``(0, -1, 0)``:
  a positive joint angle turns ``+x`` towards ``+z``, counter-clockwise in the five-bar
  figures. Motor A sits at the origin of the mounting frame, motor B at ``(d, 0, 0)``.
  Joint order in ``qpos``: ``motor_A, knee_C, motor_B, knee_D`` (knee angles relative to
  their thigh). The loop is closed at the foot by a ``connect`` equality between the sites
  ``foot_C`` (end of shank CE) and ``foot_D`` (end of shank DE).
* Links are uniform rods unless inertias are given: centre of mass at mid-length, inertia
  ``m l^2 / 12`` about the hinge axis through the centre of mass (kg m^2).
* SI units, radians. Gravity magnitude ``g`` along ``-z`` (five-bar, UR5) or ``-y`` (the
  planar 2-link arm of chapter 11, whose joints turn about ``z``).

Examples
--------
>>> from robokin.fivebar import FiveBar
>>> leg = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
>>> model = fivebar_model(leg, masses=(0.05, 0.05, 0.08, 0.08))
>>> model.nq, model.nu, model.neq
(4, 2, 1)
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from ._primitives import wrap
from ._validate import as_array, callback_output, check_inertias, choice, count, finite_scalar, function, positive
from .dynamics import TwoLinkArm
from .errors import IntegrationError
from .fivebar import FiveBar
from .results import SimResult
from .serial import SerialArm
from .wheel_leg import WheelLegParams, virtual_leg_inverse

__all__ = [
    "require_mujoco",
    "FIVEBAR_JOINTS",
    "ACTUATORS",
    "INTEGRATORS",
    "fivebar_mjcf",
    "fivebar_model",
    "fivebar_qpos",
    "fivebar_feet",
    "fivebar_motor_angles",
    "fivebar_static_torques",
    "two_link_mjcf",
    "two_link_model",
    "two_link_terms",
    "dh_mjcf",
    "dh_model",
    "inverse_dynamics",
    "run_controller",
    "contact_normal_force",
    "WHEEL_LEG_ACTUATORS",
    "wheel_leg_mjcf",
    "wheel_leg_model",
    "wheel_leg_pose",
    "wheel_leg_state",
    "MotorModel",
    "FIXED_STEP_METHODS",
    "integrate_fixed_step",
    "step_limit",
]

#: Joint names of a five-bar model, in ``qpos`` order.
FIVEBAR_JOINTS = ("motor_A", "knee_C", "motor_B", "knee_D")
#: Actuation of the two motors: servo to a commanded angle, torque, or none.
ACTUATORS = ("position", "torque", "none")
#: MuJoCo integrators accepted by the builders.
INTEGRATORS = ("Euler", "RK4", "implicit", "implicitfast")


_MUJOCO = None  # the module, once imported (the simulation loops call require_mujoco often)
#: Logger that receives MuJoCo's warnings (MuJoCo's own handler prints them and appends them to MUJOCO_LOG.TXT in
#: the working directory, e.g. inside notebooks/). It has a NullHandler: configure ``logging`` to see them.
LOGGER = logging.getLogger("robokin.sim")
LOGGER.addHandler(logging.NullHandler())
#: Upper bound on loop counts (controller ticks, fixed steps, batch rows): a typo in ``t_end`` or ``rate`` must fail
#: at once, not allocate gigabytes or run for hours.
MAX_STEPS = 10_000_000
MAX_ROWS = 1_000_000
_MAX_STATE = 2000  # step_limit: 800 eigenvalue problems of this size are already minutes


def _mujoco_warning(msg):
    """MuJoCo's warning callback: the message goes to ``LOGGER`` instead of stdout and MUJOCO_LOG.TXT."""
    LOGGER.warning("MuJoCo: %s", str(msg).strip())


def require_mujoco() -> ModuleType:
    """Import and return the ``mujoco`` module, or raise an ``ImportError`` that says how to install it.

    On the first call it routes MuJoCo's warnings (``mju_warning``: unstable simulation, XML remarks) to the
    ``logging`` logger ``"robokin.sim"`` (``LOGGER``), unless a user warning handler is already installed:
    MuJoCo's default handler would print them and write ``MUJOCO_LOG.TXT`` into the working directory.
    ``run_controller`` detects divergence from ``data.warning`` counters, which the handler does not change.

    Examples
    --------
    >>> require_mujoco().__name__
    'mujoco'
    """
    global _MUJOCO
    if _MUJOCO is None:
        try:
            import mujoco
        except ImportError as exc:  # pragma: no cover - exercised only without the extra
            raise ImportError("robokin.sim needs MuJoCo: pip install mujoco (or pip install 'robokin[book]')") from exc
        if mujoco.get_mju_user_warning() is None:  # keep a handler the caller installed
            mujoco.set_mju_user_warning(_mujoco_warning)
        _MUJOCO = mujoco
    return _MUJOCO


def _f(x):
    """Number to MJCF text, full precision (repr of a Python float round-trips)."""
    return repr(float(x))


def _vec(v):
    return " ".join(_f(x) for x in np.ravel(v))


def _check_model(model, data=None):
    """``model`` (and ``data``) must be a compiled ``mujoco.MjModel`` (and an ``MjData`` of it)."""
    mujoco = require_mujoco()
    if not isinstance(model, mujoco.MjModel):
        raise ValueError(f"model must be a mujoco.MjModel (e.g. from robokin.sim.*_model), got {type(model).__name__}")
    if data is not None:
        if not isinstance(data, mujoco.MjData):
            raise ValueError(f"data must be a mujoco.MjData of the model, got {type(data).__name__}")
        if data.qpos.shape != (model.nq,) or data.qvel.shape != (model.nv,):
            raise ValueError(f"data does not belong to model (nq {data.qpos.size} vs {model.nq})")
    return mujoco


def _named(model, kind, name, arg):
    """Id of the element ``name`` of ``kind`` ("geom", "joint", "site", "body"), or a ValueError naming ``arg``."""
    if not isinstance(name, str):
        raise ValueError(f"{arg} must be a {kind} name (str), got {type(name).__name__} {name!r}")
    try:
        return int(getattr(model, kind)(name).id)
    except KeyError:
        n = getattr(model, "n" + ("jnt" if kind == "joint" else kind))
        valid = [v for v in (getattr(model, kind)(i).name for i in range(n)) if v]
        raise ValueError(f"{arg}: the model has no {kind} named {name!r}; its {kind}s are {valid}") from None


def _record_output(value, t, shape, name):
    """What a record callback returned at ``t``: real and finite, of the first call's shape once that is known."""
    if shape is None:
        try:
            out = as_array(value, name)
        except ValueError as exc:
            raise ValueError(f"{name}(t={t:g}) returned an invalid value: {exc}") from None
    else:
        out = callback_output(value, name, shape, t=t)
    return out.copy()  # the callback may return a live view such as data.qpos


def _diverged(mujoco, data, bad_before, max_qacc):
    """MuJoCo's bad-acceleration warning, a non-finite state or ``|qacc| > max_qacc``."""
    if int(data.warning[mujoco.mjtWarning.mjWARN_BADQACC].number) > bad_before:
        return True
    return not np.all(np.isfinite(data.qpos)) or np.abs(data.qacc).max(initial=0.0) > max_qacc


def _prefix(prefix):
    if not isinstance(prefix, str):
        raise ValueError(f"prefix must be a str (e.g. '' or 'L_'), got {type(prefix).__name__} {prefix!r}")
    return prefix


def _rows(x, name, n_cols):
    """A batch of states, shape (n, n_cols) or (n_cols,), with at most ``MAX_ROWS`` rows."""
    a = as_array(x, name, trailing=(n_cols,))
    if a.ndim > 2:
        raise ValueError(f"{name} must have shape (n, {n_cols}) or ({n_cols},), got {a.shape}")
    if a.ndim == 2 and a.shape[0] > MAX_ROWS:
        raise ValueError(f"{name} has {a.shape[0]} rows; at most {MAX_ROWS} per call (MuJoCo is called row by row)")
    return a


def _option(timestep, integrator, gravity):
    timestep = positive(timestep, "timestep")
    integrator = choice(integrator, "integrator", INTEGRATORS)
    g = as_array(gravity, "gravity", trailing=(3,))
    return f'<option timestep="{_f(timestep)}" integrator="{integrator}" gravity="{_vec(g)}"/>'


def _soft(solref, solimp):
    """solref / solimp attributes of a constraint, validated (MuJoCo's defaults when None)."""
    out = ""
    if solref is not None:
        sr = as_array(solref, "solref", trailing=(2,))
        if sr.ndim != 1:
            raise ValueError(f"solref must have shape (2,), got {sr.shape}")
        if sr[0] <= 0 or sr[1] <= 0:
            raise ValueError(f"solref = (timeconst, dampratio) must be positive, got {sr.tolist()}")
        out += f' solref="{_vec(sr)}"'
    if solimp is not None:
        si = as_array(solimp, "solimp")
        ok = si.shape in ((3,), (5,)) and 0 < si[0] < 1 and 0 < si[1] < 1 and si[2] > 0
        if ok and si.size == 5:
            ok = 0 < si[3] < 1 and si[4] >= 1
        if not ok:
            raise ValueError(
                "solimp must be (dmin, dmax, width[, midpoint, power]) with 0 < dmin, dmax < 1, "
                f"width > 0, 0 < midpoint < 1 and power >= 1, got {si.tolist()}"
            )
        out += f' solimp="{_vec(si)}"'
    return out


def _masses_inertias(lengths, masses, inertias):
    m = as_array(masses, "masses", trailing=(len(lengths),))
    if m.ndim != 1 or np.any(m <= 0):
        raise ValueError(f"masses must be {len(lengths)} positive link masses (kg), got {np.ravel(m).tolist()}")
    if inertias is None:
        inertia = m * np.asarray(lengths) ** 2 / 12.0
    else:
        inertia = as_array(inertias, "inertias", trailing=(len(lengths),))
        if inertia.ndim != 1 or np.any(inertia <= 0):
            raise ValueError(
                "inertias must be positive moments of inertia about each link's centre of mass "
                f"(kg m^2; MuJoCo rejects zero inertia on a moving body), got {np.ravel(inertia).tolist()}"
            )
    return m, inertia


def _rod_body(name, pos, length, mass, inertia, radius, joint, axis, *, quat=None, extra="", jattr=""):
    """Opening tag and contents of a link body: hinge at its origin, rod along local +x."""
    q = "" if quat is None else f' quat="{_vec(quat)}"'
    i_small = min(0.5 * mass * radius**2, inertia)  # about the rod axis (no planar effect); keeps A + B >= C
    return (
        f'<body name="{name}" pos="{_vec(pos)}"{q}>'
        f'<joint name="{joint}" type="hinge" axis="{_vec(axis)}"{jattr}/>'
        f'<inertial pos="{_f(length / 2)} 0 0" mass="{_f(mass)}" '
        f'diaginertia="{_f(i_small)} {_f(inertia)} {_f(inertia)}"/>'
        f'<geom type="capsule" fromto="0 0 0 {_f(length)} 0 0" size="{_f(radius)}"/>' + extra
    )


def _fivebar_xml(fb, prefix, masses, inertias, radius, *, wheel="", pos=(0.0, 0.0, 0.0), motor_attr=""):
    """Bodies of one five-bar leg mounted at ``pos`` of the parent frame (MJCF fragment)."""
    L = (fb.l1, fb.l3, fb.l2, fb.l4)
    m, inertia = _masses_inertias(L, masses, inertias)
    ax = (0.0, -1.0, 0.0)
    p0 = np.asarray(pos, dtype=float)
    left = (
        _rod_body(f"{prefix}thigh_A", p0, fb.l1, m[0], inertia[0], radius, f"{prefix}motor_A", ax, jattr=motor_attr)
        + _rod_body(
            f"{prefix}shank_C",
            (fb.l1, 0, 0),
            fb.l3,
            m[1],
            inertia[1],
            radius,
            f"{prefix}knee_C",
            ax,
            extra=f'<site name="{prefix}foot_C" pos="{_f(fb.l3)} 0 0" size="{_f(radius)}"/>' + wheel,
        )
        + "</body></body>"
    )
    right = (
        _rod_body(
            f"{prefix}thigh_B",
            p0 + (fb.d, 0, 0),
            fb.l2,
            m[2],
            inertia[2],
            radius,
            f"{prefix}motor_B",
            ax,
            jattr=motor_attr,
        )
        + _rod_body(
            f"{prefix}shank_D",
            (fb.l2, 0, 0),
            fb.l4,
            m[3],
            inertia[3],
            radius,
            f"{prefix}knee_D",
            ax,
            extra=f'<site name="{prefix}foot_D" pos="{_f(fb.l4)} 0 0" size="{_f(radius)}"/>',
        )
        + "</body></body>"
    )
    return left + right


def _check_fivebar(fb):
    for name in ("l1", "l2", "l3", "l4", "d", "fk", "ik", "jacobian"):
        if not hasattr(fb, name):
            raise ValueError(f"fivebar must be a robokin.fivebar.FiveBar, got {type(fb).__name__}")
    return fb


def fivebar_mjcf(
    fivebar: FiveBar,
    *,
    masses: ArrayLike,
    inertias: ArrayLike | None = None,
    radius: float = 0.008,
    actuator: Literal["position", "torque", "none"] = "position",
    kp: float = 200.0,
    kv: float = 2.0,
    timestep: float = 1e-3,
    integrator: Literal["Euler", "RK4", "implicit", "implicitfast"] = "RK4",
    g: float = 9.81,
    solref: ArrayLike | None = None,
    solimp: ArrayLike | None = None,
    armature: float = 0.0,
    damping: float = 0.0,
    body_mass: float | None = None,
    foot_pin: ArrayLike | None = None,
) -> str:
    """MJCF text of a five-bar leg: two serial chains closed at the foot by an equality constraint.

    Parameters
    ----------
    fivebar : robokin.fivebar.FiveBar
        Link lengths ``l1, l2, l3, l4`` and motor spacing ``d`` (m).
    masses : array_like, shape (4,)
        Masses of thigh AC, shank CE, thigh BD, shank DE (kg), uniform rods.
    inertias : array_like, shape (4,), optional
        Moments of inertia about each centre of mass, hinge axis (kg m^2); default ``m l^2 / 12``.
    radius : float
        Capsule radius for drawing (m); the links do not collide.
    actuator : {"position", "torque", "none"}
        ``"position"``: servo ``tau = kp (q_cmd - q) - kv qdot`` on each motor (motion mode);
        ``"torque"``: ``ctrl`` is the motor torque (N m); ``"none"``: no actuators.
    kp, kv : float
        Servo gains (N m/rad, N m s/rad), used with ``actuator="position"``.
    timestep : float
        Integration step (s).
    integrator : {"Euler", "RK4", "implicit", "implicitfast"}
    g : float
        Gravity magnitude (m/s^2) along ``-z`` (five-bar ``-y``); 0 switches gravity off.
    solref, solimp : array_like, optional
        Soft-constraint parameters of the loop closure (MuJoCo's defaults when omitted).
    armature, damping : float
        Reflected rotor inertia (kg m^2) and viscous damping (N m s/rad) of the two motor joints.
    body_mass : float, optional
        If given, the motors sit on a body of this mass (kg, centre of mass midway between the
        motors) that slides vertically (joint ``lift``, ``z`` up, zero at the build pose), as the
        robot's body carried by one leg. Default: motors fixed to the world.
    foot_pin : array_like, shape (2,), optional
        Pin the foot (site ``foot_C``) to this world point, five-bar ``[x, y]`` (m): the wheel
        standing on the ground. Used with ``body_mass``.

    Returns
    -------
    str

    Examples
    --------
    >>> from robokin.fivebar import FiveBar
    >>> xml = fivebar_mjcf(FiveBar(0.06, 0.06, 0.10, 0.10, 0.07), masses=(0.05, 0.05, 0.08, 0.08))
    >>> '<connect site1="foot_C" site2="foot_D"' in xml
    True
    >>> fivebar_mjcf(FiveBar(0.06, 0.06, 0.10, 0.10, 0.07), masses=(0.05, 0.05, 0.08, 0.08), actuator="servo")
    Traceback (most recent call last):
    ...
    ValueError: actuator must be one of 'position', 'torque', 'none'; got 'servo'
    """
    fb = _check_fivebar(fivebar)
    actuator = choice(actuator, "actuator", ACTUATORS)
    radius = positive(radius, "radius")
    g = finite_scalar(g, "g")
    if g < 0:
        raise ValueError(f"g is the gravity magnitude (m/s^2) and must be >= 0, got {g}")
    armature, damping = finite_scalar(armature, "armature"), finite_scalar(damping, "damping")
    if armature < 0 or damping < 0:
        raise ValueError("armature and damping must be >= 0")
    kp, kv = positive(kp, "kp"), finite_scalar(kv, "kv")  # checked for every actuator mode: no silent garbage
    if kv < 0:
        raise ValueError(f"kv is a damping gain (N m s/rad) and must be >= 0, got {kv}")
    head = (
        '<mujoco model="fivebar"><compiler angle="radian" autolimits="true"/>'
        + _option(timestep, integrator, (0.0, 0.0, -g))
        + '<default><geom contype="0" conaffinity="0" rgba="0.3 0.5 0.8 1"/></default>'
    )
    jattr = f' armature="{_f(armature)}" damping="{_f(damping)}"'
    legs = _fivebar_xml(fb, "", masses, inertias, radius, motor_attr=jattr)
    soft = _soft(solref, solimp)
    pin = ""
    if body_mass is not None:
        mb = positive(body_mass, "body_mass")
        legs = (
            f'<body name="base" pos="0 0 0"><joint name="lift" type="slide" axis="0 0 1"/>'
            f'<inertial pos="{_f(fb.d / 2)} 0 0" mass="{_f(mb)}" diaginertia="{_vec([mb * 1e-3] * 3)}"/>'
            + legs
            + "</body>"
        )
    if foot_pin is not None:
        fp = as_array(foot_pin, "foot_pin", trailing=(2,))
        if fp.shape != (2,):
            raise ValueError(f"foot_pin must have shape (2,), got {fp.shape}")
        legs += f'<site name="foot_pin" pos="{_f(fp[0])} 0 {_f(fp[1])}"/>'
        pin = f'<connect site1="foot_C" site2="foot_pin"{soft}/>'
    body = "<worldbody>" + legs + "</worldbody>"
    eq = f'<equality><connect site1="foot_C" site2="foot_D"{soft}/>{pin}</equality>'
    act = ""
    if actuator == "position":
        act = "".join(f'<position joint="{j}" kp="{_f(kp)}" kv="{_f(kv)}"/>' for j in ("motor_A", "motor_B"))
    elif actuator == "torque":
        act = "".join(f'<motor joint="{j}" gear="1"/>' for j in ("motor_A", "motor_B"))
    if act:
        act = f"<actuator>{act}</actuator>"
    return head + body + eq + act + "</mujoco>"


def fivebar_model(fivebar: FiveBar, **options) -> Any:
    """Compiled ``mujoco.MjModel`` of :func:`fivebar_mjcf` (same keyword options).

    Examples
    --------
    >>> from robokin.fivebar import FiveBar
    >>> m = fivebar_model(FiveBar(0.06, 0.06, 0.10, 0.10, 0.07), masses=(0.05, 0.05, 0.08, 0.08),
    ...                   actuator="torque", armature=1e-4)
    >>> [m.joint(j).name for j in range(m.njnt)]
    ['motor_A', 'knee_C', 'motor_B', 'knee_D']
    >>> float(m.dof_armature[0]), float(m.dof_armature[1])
    (0.0001, 0.0)
    """
    return require_mujoco().MjModel.from_xml_string(fivebar_mjcf(fivebar, **options))


def fivebar_qpos(fivebar: FiveBar, q: ArrayLike, *, assembly: Literal["down", "up"] = "down") -> np.ndarray:
    """Joint vector ``[motor_A, knee_C, motor_B, knee_D]`` of an assembled five-bar from motor angles.

    The knee angles are the shank directions (from ``FiveBar.fk``) relative to their thighs.

    Parameters
    ----------
    fivebar : robokin.fivebar.FiveBar
    q : array_like, shape (..., 2)
        Motor angles ``[theta1, theta2]`` (rad).
    assembly : {"down", "up"}

    Returns
    -------
    ndarray, shape (..., 4)

    Examples
    --------
    >>> from robokin.fivebar import FiveBar
    >>> leg = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
    >>> np.round(fivebar_qpos(leg, leg.ik([0.035, -0.12]).q), 4)
    array([-2.1954,  1.4012, -0.9462, -1.4012])
    """
    fb = _check_fivebar(fivebar)
    q = as_array(q, "q", trailing=(2,))
    assembly = choice(assembly, "assembly", ("down", "up"))
    J = fb.joints(q, assembly=assembly)
    if np.isnan(J).any():
        fb.fk(q, assembly=assembly)  # raises UnreachableError with the reason
    C, D, E = J[..., 2, :], J[..., 3, :], J[..., 4, :]
    a3 = np.arctan2(E[..., 1] - C[..., 1], E[..., 0] - C[..., 0])
    a4 = np.arctan2(E[..., 1] - D[..., 1], E[..., 0] - D[..., 0])
    return np.stack([q[..., 0], wrap(a3 - q[..., 0]), q[..., 1], wrap(a4 - q[..., 1])], axis=-1)


def _adr(model, names, kind="qpos"):
    out = []
    for n in names:
        j = model.joint(_named(model, "joint", n, "joint"))
        out.append(int(j.qposadr[0] if kind == "qpos" else j.dofadr[0]))
    return out


def fivebar_motor_angles(model: Any, data: Any, *, prefix: str = "") -> np.ndarray:
    """Motor angles ``[theta1, theta2]`` (rad) of the five-bar in ``data`` (five-bar convention).

    Raises ``ValueError`` when ``model``/``data`` are not MuJoCo objects or the model has no joints
    ``{prefix}motor_A``, ``{prefix}motor_B``.
    """
    _check_model(model, data)
    i = _adr(model, (f"{_prefix(prefix)}motor_A", f"{_prefix(prefix)}motor_B"))
    return np.array([data.qpos[i[0]], data.qpos[i[1]]])


def fivebar_feet(
    model: Any, data: Any, *, prefix: str = "", frame_origin: ArrayLike = (0.0, 0.0, 0.0)
) -> tuple[np.ndarray, np.ndarray]:
    """Foot positions of both chains in the five-bar frame: ``(E_C, E_D)``, each ``[x, y]`` (m).

    ``E_C`` is the end of shank CE, ``E_D`` the end of shank DE; ``|E_C - E_D|`` is the
    loop-closure violation. Positions are MuJoCo world ``(x, z)`` minus ``frame_origin``
    (the world position of motor A for a fixed leg), shape (3,) (m).
    Raises ``ValueError`` for a bad ``frame_origin`` or ``prefix`` or a model without those sites.
    """
    _check_model(model, data)
    o = as_array(frame_origin, "frame_origin", trailing=(3,))
    if o.shape != (3,):
        raise ValueError(f"frame_origin must have shape (3,), got {o.shape}")
    prefix = _prefix(prefix)
    a = data.site_xpos[_named(model, "site", f"{prefix}foot_C", "prefix")] - o
    b = data.site_xpos[_named(model, "site", f"{prefix}foot_D", "prefix")] - o
    return np.array([a[0], a[2]]), np.array([b[0], b[2]])


def fivebar_static_torques(
    model: Any, fivebar: FiveBar, q: ArrayLike, force: ArrayLike, *, assembly: Literal["down", "up"] = "down"
) -> np.ndarray:
    """Motor torques that hold a foot force, from MuJoCo's kinematics and constraint Jacobian.

    MuJoCo statics of the closed chain: the generalised force of the foot load
    (``mj_applyFT`` at the foot site of chain C) plus the loop-closure force ``J_c^T lambda``
    must vanish on the passive knees; ``lambda`` follows by least squares, and the motor
    torques are what is left on the motor rows. Independent of ``FiveBar.jacobian``.

    Parameters
    ----------
    model : mujoco.MjModel
        From :func:`fivebar_model` with ``g=0`` (the course's statics is massless).
    fivebar : robokin.fivebar.FiveBar
        Used only to assemble the configuration (``fivebar_qpos``).
    q : array_like, shape (n, 2) or (2,)
        Motor angles (rad).
    force : array_like, shape (n, 2) or (2,)
        Force the leg applies at the foot, five-bar ``[x, y]`` (N), as in ``FiveBar.static_torques``.

    Returns
    -------
    ndarray, shape (n, 2) or (2,)
        Motor torques (N m), five-bar sign convention.

    Raises
    ------
    ValueError
        A model with gravity or without the five-bar's joints and sites, bad ``q``/``force`` (shape, NaN/inf,
        more than ``MAX_ROWS`` rows), an unknown ``assembly``.
    """
    mujoco = _check_model(model)
    fivebar = _check_fivebar(fivebar)
    q, F = _rows(q, "q", 2), _rows(force, "force", 2)
    assembly = choice(assembly, "assembly", ("down", "up"))
    try:
        qb, Fb = np.broadcast_arrays(np.atleast_2d(q), np.atleast_2d(F))
    except ValueError:
        raise ValueError(f"q {q.shape} and force {F.shape} must broadcast to one batch of rows") from None
    if np.any(model.opt.gravity != 0):
        raise ValueError("fivebar_static_torques needs a model built with g=0 (massless statics)")
    data = mujoco.MjData(model)
    qpos = fivebar_qpos(fivebar, qb, assembly=assembly)
    site_body = model.site_bodyid[_named(model, "site", "foot_C", "model")]
    motors = _adr(model, ("motor_A", "motor_B"), "dof")
    knees = _adr(model, ("knee_C", "knee_D"), "dof")
    out = np.empty(qb.shape)
    for k in range(qb.shape[0]):
        data.qpos[:] = qpos[k]
        data.qvel[:] = 0.0
        mujoco.mj_forward(model, data)
        Jc = data.efc_J.reshape(-1, model.nv) if data.nefc else np.zeros((0, model.nv))
        Jc = Jc[data.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY]
        # the ground pushes on the foot with -F (the leg applies F): external load on the model
        ext = np.zeros(model.nv)
        mujoco.mj_applyFT(
            model,
            data,
            np.array([-Fb[k, 0], 0.0, -Fb[k, 1]]),
            np.zeros(3),
            data.site("foot_C").xpos.copy(),
            site_body,
            ext,
        )
        lam = np.linalg.lstsq(Jc[:, knees].T, -ext[knees], rcond=None)[0]
        out[k] = -(ext[motors] + Jc[:, motors].T @ lam)
    return out.reshape(np.broadcast_shapes(q.shape, F.shape))


# ----------------------------------------------------------------------------- serial arms
def two_link_mjcf(
    arm: TwoLinkArm, *, timestep: float = 1e-3, integrator: Literal["Euler", "RK4", "implicit", "implicitfast"] = "RK4"
) -> str:
    """MJCF of the planar 2-link arm of chapter 11 (``robokin.dynamics.TwoLinkArm``).

    Joints turn about ``+z``, gravity ``(0, -g, 0)``, links along local ``+x``; centres of
    mass at ``lc1``, ``lc2``; ``I1``, ``I2`` about ``z``. The in-plane-irrelevant inertias about
    ``x`` and ``y`` are set equal to ``I_i`` so that MuJoCo accepts the body.

    Examples
    --------
    >>> from robokin.dynamics import TwoLinkArm
    >>> xml = two_link_mjcf(TwoLinkArm(1.2, 0.8, 0.5, 0.4, 0.22, 0.17, 0.03, 0.012))
    >>> 'gravity="0.0 -9.81 0.0"' in xml
    True
    """
    for name in ("m1", "m2", "l1", "l2", "lc1", "lc2", "I1", "I2", "g"):
        if not hasattr(arm, name):
            raise ValueError(f"arm must be a robokin.dynamics.TwoLinkArm, got {type(arm).__name__}")
    if arm.batch_size != 1:
        raise ValueError("two_link_mjcf needs one arm (scalar parameters)")
    if arm.I1 <= 0 or arm.I2 <= 0:
        raise ValueError("MuJoCo needs positive link inertias I1, I2 (a point-mass link has no valid body)")
    z = (0.0, 0.0, 1.0)

    def link(name, pos, m, lc, inertia, length):
        return (
            f'<body name="{name}" pos="{_vec(pos)}"><joint name="{name}_joint" type="hinge" axis="{_vec(z)}"/>'
            f'<inertial pos="{_f(lc)} 0 0" mass="{_f(m)}" diaginertia="{_vec([inertia] * 3)}"/>'
            f'<geom type="capsule" fromto="0 0 0 {_f(length)} 0 0" size="0.01" contype="0" conaffinity="0"/>'
        )

    return (
        '<mujoco model="two_link"><compiler angle="radian"/>'
        + _option(timestep, integrator, (0, -arm.g, 0))
        + "<worldbody>"
        + link("link1", (0, 0, 0), arm.m1, arm.lc1, arm.I1, arm.l1)
        + link("link2", (arm.l1, 0, 0), arm.m2, arm.lc2, arm.I2, arm.l2)
        + "</body></body></worldbody></mujoco>"
    )


def two_link_model(arm: TwoLinkArm, **options) -> Any:
    """Compiled model of :func:`two_link_mjcf`."""
    return require_mujoco().MjModel.from_xml_string(two_link_mjcf(arm, **options))


def two_link_terms(model: Any, q: ArrayLike, qd: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """MuJoCo's ``M(q)``, ``C(q, qd) qd`` and ``G(q)`` of a 2-link (or any all-hinge) model.

    ``M`` from ``mj_fullM``; ``qfrc_bias`` (``mj_forward``) is ``C qd + G``, so ``G`` is the bias
    at ``qd = 0`` and ``C qd`` the difference.

    Parameters
    ----------
    q, qd : array_like, shape (n, nv) or (nv,)

    Returns
    -------
    M : ndarray, shape (n, nv, nv)
    Cqd, G : ndarray, shape (n, nv)

    Raises ``ValueError`` for a non-MuJoCo ``model`` or bad ``q``/``qd`` (shape, NaN/inf, > ``MAX_ROWS`` rows).
    """
    mujoco = _check_model(model)
    q = np.atleast_2d(_rows(q, "q", model.nv))
    qd = np.atleast_2d(_rows(qd, "qd", model.nv))
    try:
        q, qd = np.broadcast_arrays(q, qd)
    except ValueError:
        raise ValueError(f"q {q.shape} and qd {qd.shape} must broadcast to one batch of rows") from None
    data = mujoco.MjData(model)
    n = q.shape[0]
    M = np.zeros((n, model.nv, model.nv))
    Cqd, G = np.zeros((n, model.nv)), np.zeros((n, model.nv))
    for k in range(n):
        data.qpos[:] = q[k]
        data.qvel[:] = 0.0
        mujoco.mj_forward(model, data)
        mujoco.mj_fullM(model, data, M[k])
        G[k] = data.qfrc_bias
        data.qvel[:] = qd[k]
        mujoco.mj_forward(model, data)
        Cqd[k] = data.qfrc_bias - G[k]
    return M, Cqd, G


def _rotx(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])


def _rotz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def _quat(R):
    mujoco = require_mujoco()
    out = np.zeros(4)
    mujoco.mju_mat2Quat(out, np.ascontiguousarray(R, dtype=float).ravel())
    return out


def dh_mjcf(
    arm: SerialArm,
    *,
    masses: ArrayLike,
    coms: ArrayLike,
    inertias: ArrayLike,
    gravity: ArrayLike = (0.0, 0.0, -9.81),
    timestep: float = 1e-3,
    integrator: Literal["Euler", "RK4", "implicit", "implicitfast"] = "RK4",
) -> str:
    """MJCF of a revolute standard-DH arm (e.g. ``robokin.ur5.UR5``) with link inertial parameters.

    Body ``link{i}`` is frame ``i-1`` turned by ``theta_i`` about its ``z`` axis (the joint axis
    of the standard convention); link ``i``'s DH frame is ``Tz(d_i) Tx(a_i) Rx(alpha_i)`` inside it,
    so its centre of mass and inertia (given in DH frame ``i``, as for
    :meth:`robokin.dynamics.SerialDynamics.from_dh`)
    are moved there. The arm's ``base`` transform places the chain; the tool carries no mass.

    Parameters
    ----------
    arm : robokin.serial.SerialArm
        Standard-DH arm.
    masses : array_like, shape (n,)
    coms : array_like, shape (n, 3)
    inertias : array_like, shape (n, 3, 3)
        About each centre of mass, DH frame ``i`` axes; symmetric positive definite.
    gravity : array_like, shape (3,)

    Examples
    --------
    >>> from robokin import ur5
    >>> xml = dh_mjcf(ur5.UR5, **ur5.inertial_parameters())
    >>> xml.count("<joint ")
    6
    """
    if getattr(arm, "convention", None) != "standard":
        raise ValueError(
            f"arm must be a robokin.serial.SerialArm in the standard DH convention, got {type(arm).__name__}"
        )
    n = arm.n
    m = as_array(masses, "masses", trailing=(n,))
    c = as_array(coms, "coms", trailing=(n, 3))
    inertia = as_array(inertias, "inertias", trailing=(n, 3, 3))
    if m.shape != (n,) or c.shape != (n, 3) or inertia.shape != (n, 3, 3):
        raise ValueError(f"need masses (n,), coms (n, 3), inertias (n, 3, 3) for n = {n} joints")
    if np.any(m <= 0):
        raise ValueError(f"masses must be positive (kg), got {m.tolist()}")
    check_inertias(inertia, "inertias")  # symmetric, triangle inequality: a rigid body's inertia
    ev = np.linalg.eigvalsh(inertia)
    if np.any(ev[:, 0] <= 0):  # MuJoCo rejects a zero principal moment on a moving body
        k = int(np.argmax(ev[:, 0] <= 0))
        raise ValueError(f"inertias[{k}]: principal moments {ev[k].tolist()} kg m^2 must be positive for MuJoCo")
    base = np.asarray(arm.base, dtype=float)
    xml = '<mujoco model="dh_arm"><compiler angle="radian"/>' + _option(timestep, integrator, gravity) + "<worldbody>"
    pos, R = base[:3, 3], base[:3, :3]
    for i in range(n):
        Rb = R @ _rotz(float(arm.offset[i]))
        Ra = _rotx(float(arm.alpha[i]))
        p_dh = np.array([arm.a[i], 0.0, arm.d[i]])
        com = p_dh + Ra @ c[i]
        Ib = Ra @ inertia[i] @ Ra.T
        full = [Ib[0, 0], Ib[1, 1], Ib[2, 2], Ib[0, 1], Ib[0, 2], Ib[1, 2]]
        xml += (
            f'<body name="link{i + 1}" pos="{_vec(pos)}" quat="{_vec(_quat(Rb))}">'
            f'<joint name="joint{i + 1}" type="hinge" axis="0 0 1"/>'
            f'<inertial pos="{_vec(com)}" mass="{_f(m[i])}" fullinertia="{_vec(full)}"/>'
        )
        pos, R = p_dh, Ra
    return xml + "</body>" * n + "</worldbody></mujoco>"


def dh_model(arm: SerialArm, **options) -> Any:
    """Compiled model of :func:`dh_mjcf`."""
    return require_mujoco().MjModel.from_xml_string(dh_mjcf(arm, **options))


def inverse_dynamics(model: Any, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> np.ndarray:
    """Joint torques from MuJoCo's ``mj_inverse``: ``tau = M qdd + C qd + G`` (no constraints).

    Parameters
    ----------
    q, qd, qdd : array_like, shape (n, nv) or (nv,)

    Returns
    -------
    ndarray, shape (n, nv) or (nv,)

    Raises ``ValueError`` for a non-MuJoCo ``model`` or bad ``q``/``qd``/``qdd`` (shape, NaN/inf, more than
    ``MAX_ROWS`` rows, shapes that do not broadcast).
    """
    mujoco = _check_model(model)
    arrs = [_rows(x, name, model.nv) for x, name in ((q, "q"), (qd, "qd"), (qdd, "qdd"))]
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrs))
    except ValueError:
        raise ValueError(f"q, qd, qdd shapes {[a.shape for a in arrs]} do not broadcast") from None
    q, qd, qdd = (np.broadcast_to(a, shape).reshape(-1, model.nv) for a in arrs)
    data = mujoco.MjData(model)
    out = np.empty(q.shape)
    for k in range(q.shape[0]):
        data.qpos[:], data.qvel[:], data.qacc[:] = q[k], qd[k], qdd[k]
        mujoco.mj_inverse(model, data)
        out[k] = data.qfrc_inverse
    return out.reshape(shape)


# ----------------------------------------------------------------------------- running
def run_controller(
    model: Any,
    data: Any,
    controller: Callable[[float, Any], ArrayLike],
    *,
    t_end: float,
    rate: float,
    record: Callable[[float, Any], ArrayLike] | None = None,
    max_qacc: float = 1e8,
    step_record: Callable[[float, Any], ArrayLike] | None = None,
    on_diverge: Literal["raise", "stop"] = "raise",
) -> SimResult:
    """Step ``data`` to ``t_end`` with a discrete controller held constant between its ticks.

    At every tick ``t_k = t_0 + k / rate`` the controller is called as ``controller(t_k, data)`` and
    must return ``model.nu`` finite actuator inputs; they are held (zero-order hold) for
    ``round(1 / (rate * timestep))`` MuJoCo steps. ``record(t, data)`` (optional) is called at
    every tick before the controller and its return values are stacked; ``step_record(t, data)`` (optional)
    is called after every MuJoCo step, the engine's native rate, for extrema and first times that a
    once-per-tick log could miss.

    Parameters
    ----------
    model, data : mujoco.MjModel, mujoco.MjData
    controller : callable ``(t, data) -> array (nu,)``
    t_end : float
        Duration (s) from the current ``data.time``.
    rate : float
        Controller rate (Hz); ``1 / rate`` must be a whole number of timesteps.
    record : callable ``(t, data) -> array``, optional
        Anything else to log at each tick (site positions, actuator forces, ...).
    max_qacc : float
        A joint acceleration above this (rad/s^2 or m/s^2), a non-finite state or MuJoCo's own
        bad-acceleration warning counts as divergence (positive, finite).
    step_record : callable ``(t, data) -> array``, optional
        Logged after every ``mj_step`` (``t = data.time``), also between controller ticks.
    on_diverge : {"raise", "stop"}
        On divergence raise :class:`~robokin.errors.IntegrationError`, or stop and return the ticks
        recorded so far with ``stable=False``.

    Returns
    -------
    robokin.results.SimResult
        One row per tick ``k``: ``t`` (K,) s; ``q`` (K, nq) = ``data.qpos`` and ``qd`` (K, nv) =
        ``data.qvel`` at ``t_k``; ``u`` (K, nu) the inputs held over ``[t_k, t_k + 1/rate)``;
        ``stable`` (bool) False only when ``on_diverge="stop"`` ended the run;
        ``signals["record"]`` (K, ...) the stacked ``record`` values (only when ``record`` is given);
        ``signals["step_t"]`` (S,) and ``signals["step_record"]`` (S, ...) the time and ``step_record`` values after
        each of the ``S`` MuJoCo steps (only when ``step_record`` is given).

    Raises
    ------
    ValueError
        The controller or ``record`` returned NaN/inf or the wrong shape, ``rate`` does not divide the step,
        ``t_end * rate`` is below one tick or above ``MAX_STEPS``, or a bad option (``max_qacc``,
        ``on_diverge``, a non-callable ``controller``/``record``, ``model``/``data`` not MuJoCo objects).
    robokin.errors.IntegrationError
        The simulation diverged (with ``on_diverge="raise"``).

    Examples
    --------
    >>> import mujoco
    >>> from robokin.fivebar import FiveBar
    >>> leg = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
    >>> m = fivebar_model(leg, masses=(0.05, 0.08, 0.05, 0.08), actuator="torque")
    >>> d = mujoco.MjData(m)
    >>> res = run_controller(m, d, lambda t, d: [0.0, 0.0], t_end=0.1, rate=100)
    >>> res.t.shape, res.q.shape, res.u.shape, bool(res.stable)
    ((10,), (10, 4), (10, 2), True)
    """
    mujoco = _check_model(model, data)
    t_end, rate = positive(t_end, "t_end"), positive(rate, "rate")
    max_qacc = positive(max_qacc, "max_qacc", max_abs=None)
    on_diverge = choice(on_diverge, "on_diverge", ("raise", "stop"))
    if record is not None and not callable(record):
        raise ValueError("record must be None or a callable (t, data) -> values to log")
    if step_record is not None and not callable(step_record):
        raise ValueError("step_record must be None or a callable (t, data) -> values to log after every step")
    sub = 1.0 / (rate * model.opt.timestep)
    n_sub = int(round(sub))
    if n_sub < 1 or abs(sub - n_sub) > 1e-6 * sub:
        raise ValueError(
            f"the control period 1/rate = {1 / rate:g} s must be a whole number of timesteps ({model.opt.timestep:g} s)"
        )
    if not callable(controller):
        raise ValueError("controller must be a callable (t, data) -> actuator inputs")
    n_ticks = int(round(t_end * rate))
    if not 1 <= n_ticks <= MAX_STEPS:
        raise ValueError(
            f"t_end * rate = {t_end * rate:.6g} controller ticks; need between 1 and {MAX_STEPS} per call "
            "(check the units: t_end in s, rate in Hz)"
        )
    t0 = float(data.time)
    mujoco.mj_forward(model, data)  # sites and sensors consistent with qpos for the first controller call
    u = callback_output(controller(t0, data), "controller", (model.nu,), t=t0)
    data.ctrl[:] = u
    mujoco.mj_forward(model, data)  # actuator forces of the first command in the first record
    T = t0 + np.arange(n_ticks) / rate
    Q, QD, U = np.empty((n_ticks, model.nq)), np.empty((n_ticks, model.nv)), np.empty((n_ticks, model.nu))
    rec, srec, stimes = [], [], []
    bad_before = int(data.warning[mujoco.mjtWarning.mjWARN_BADQACC].number)
    k_done, stable = n_ticks, True
    for k in range(n_ticks):
        t = float(T[k])
        if record is not None:
            r = _record_output(record(t, data), t, None if k == 0 else rec[0].shape, "record")
            rec.append(r)
        if k > 0:  # tick 0 was computed above
            u = callback_output(controller(t, data), "controller", (model.nu,), t=t)
            data.ctrl[:] = u
        Q[k], QD[k], U[k] = data.qpos, data.qvel, u
        step_bad = False
        for _ in range(n_sub):
            mujoco.mj_step(model, data)
            if step_record is not None:  # native-rate log: divergence is also checked at every step
                step_bad = _diverged(mujoco, data, bad_before, max_qacc)
                if step_bad:
                    break  # reported below; the steps before it are kept
                ts = float(data.time)
                srec.append(_record_output(step_record(ts, data), ts, srec[0].shape if srec else None, "step_record"))
                stimes.append(ts)
        if step_bad or _diverged(mujoco, data, bad_before, max_qacc):
            if on_diverge == "raise":
                raise IntegrationError(
                    float(data.time),
                    t0 + t_end,
                    (k + 1) * n_sub,
                    "robokin.sim.run_controller: the simulation diverged (non-finite state or "
                    f"|qacc| > {max_qacc:g}); reduce the timestep or soften the command",
                )
            k_done, stable = k + 1, False  # tick k's state was finite; the step after it was not
            break
    signals = {} if record is None else {"record": np.array(rec[:k_done])}
    if step_record is not None:
        signals["step_t"] = np.array(stimes)
        signals["step_record"] = np.array(srec)
    return SimResult(t=T[:k_done], q=Q[:k_done], qd=QD[:k_done], u=U[:k_done], stable=np.array(stable), signals=signals)


def contact_normal_force(model: Any, data: Any, geom: str) -> float:
    """Total normal contact force (N) on the geom named ``geom``, summed over its contacts.

    Uses ``mj_contactForce`` (the first component of the contact-frame force is the normal). The forces are those
    of the last ``mj_step``/``mj_forward``: zero when the geom has no contact at that step.

    Raises
    ------
    ValueError
        ``geom`` is not a str or the model has no geom of that name (the message lists the model's geoms), or
        ``model``/``data`` are not MuJoCo objects.

    Examples
    --------
    >>> import mujoco
    >>> from robokin.robots import WHEEL_LEG, WHEEL_LEG_FIVEBAR
    >>> m = wheel_leg_model(WHEEL_LEG, WHEEL_LEG_FIVEBAR)
    >>> d = mujoco.MjData(m)
    >>> wheel_leg_pose(m, d, WHEEL_LEG, WHEEL_LEG_FIVEBAR, L0=0.2)
    >>> contact_normal_force(m, d, "L_tire")
    Traceback (most recent call last):
    ...
    ValueError: geom: the model has no geom named 'L_tire'; its geoms are ['ground', 'L_tyre', 'R_tyre']
    """
    mujoco = _check_model(model, data)
    gid = _named(model, "geom", geom, "geom")
    f6 = np.zeros(6)
    total = 0.0
    for i in range(data.ncon):
        con = data.contact[i]
        if gid in (con.geom1, con.geom2):
            mujoco.mj_contactForce(model, data, i, f6)
            total += f6[0]
    return total


# ----------------------------------------------------------------------------- the wheel-legged robot
#: Actuator order of :func:`wheel_leg_model`: four leg motors (five-bar sign), then the two wheels.
WHEEL_LEG_ACTUATORS = ("L_motor_A", "L_motor_B", "R_motor_A", "R_motor_B", "L_wheel", "R_wheel")


def _check_params(params):
    for name in ("m_b", "I_b", "l_c", "m_l", "m_w", "I_w", "R", "g"):
        if not hasattr(params, name):
            raise ValueError(f"params must be a robokin.wheel_leg.WheelLegParams, got {type(params).__name__}")
    return params


def wheel_leg_mjcf(
    params: WheelLegParams,
    fivebar: FiveBar,
    *,
    track: float = 0.4,
    roll_yaw_inertia: tuple[float, float] = (0.15, 0.2),
    friction: float = 1.0,
    timestep: float = 1e-3,
    integrator: Literal["Euler", "RK4", "implicit", "implicitfast"] = "RK4",
    solref: ArrayLike | None = None,
    radius: float = 0.01,
) -> str:
    """MJCF of the whole wheel-legged robot of chapter 4: body, two five-bar legs, two wheels, ground.

    Every parameter comes from the two objects: the body has mass ``m_b`` with its centre of mass
    ``l_c`` above the hip axis and pitch inertia ``I_b``; each leg is ``fivebar`` (motors at
    ``-d/2`` and ``+d/2`` along the body's ``x`` from the hip midpoint) whose four links share
    ``m_l / 2`` in proportion to their lengths (uniform rods); each wheel (radius ``R``, mass
    ``m_w / 2``, spin inertia ``I_w / 2``) turns about the body's lateral axis at the end of shank CE.
    Stated here, because the planar model has no such parameters: the lateral distance ``track``
    between the wheels (m), the body's roll and yaw inertias (kg m^2) and the wheel-ground
    ``friction`` coefficient.

    Conventions: world ``x`` forward, ``y`` left, ``z`` up; the body has a free joint
    (``qpos[:7]`` = position, quaternion). Leg joints ``L_motor_A`` ... follow :func:`fivebar_mjcf`
    (axis ``(0, -1, 0)``, five-bar sign); wheel joints turn about ``+y`` (rolling forward is
    positive, as the wheel angle ``x / R`` of chapter 4). Actuators: torque motors in the order
    :data:`WHEEL_LEG_ACTUATORS`. ``radius`` (m) is the drawn radius of the link capsules (they do not
    collide). Bad options (non-positive or non-finite ``track``, ``friction``, ``timestep``, ``radius``,
    inertias violating the triangle inequality, a bad ``solref``) raise ``ValueError`` naming the option.

    Examples
    --------
    >>> from robokin.wheel_leg import WheelLegParams
    >>> from robokin.fivebar import FiveBar
    >>> xml = wheel_leg_mjcf(WheelLegParams(), FiveBar(0.15, 0.15, 0.25, 0.25, 0.108))
    >>> xml.count("<connect ")
    2
    """
    p = _check_params(params)
    fb = _check_fivebar(fivebar)
    track = positive(track, "track")
    ri = as_array(roll_yaw_inertia, "roll_yaw_inertia", trailing=(2,))
    if ri.shape != (2,) or np.any(ri <= 0):
        raise ValueError("roll_yaw_inertia must be two positive inertias (kg m^2)")
    Ixx, Iyy, Izz = float(ri[0]), p.I_b, float(ri[1])
    if Ixx + Iyy < Izz or Iyy + Izz < Ixx or Ixx + Izz < Iyy:
        raise ValueError(f"body inertias (roll {Ixx}, pitch {Iyy}, yaw {Izz}) violate the triangle inequality")
    friction = positive(friction, "friction")
    radius = positive(radius, "radius")
    L = np.array([fb.l1, fb.l3, fb.l2, fb.l4])
    link_m = 0.5 * p.m_l * L / L.sum()
    mw, iw = 0.5 * p.m_w, 0.5 * p.I_w
    it = 0.6 * iw  # transverse inertia of the wheel: any value with 2 it >= iw is physical
    half_w = 0.2 * p.R
    legs = ""
    for side, y in (("L_", 0.5 * track), ("R_", -0.5 * track)):
        wheel = (
            f'<body name="{side}wheel" pos="{_f(fb.l3)} 0 0">'
            f'<joint name="{side}wheel" type="hinge" axis="0 1 0"/>'
            f'<inertial pos="0 0 0" mass="{_f(mw)}" diaginertia="{_f(it)} {_f(iw)} {_f(it)}"/>'
            f'<geom name="{side}tyre" type="cylinder" fromto="0 {_f(-half_w)} 0 0 {_f(half_w)} 0" '
            f'size="{_f(p.R)}" contype="1" conaffinity="1" condim="3" friction="{_f(friction)} 0.005 0.0001"/>'
            "</body>"
        )
        legs += _fivebar_xml(fb, side, link_m, None, radius, wheel=wheel, pos=(-0.5 * fb.d, y, 0.0))
    soft = _soft(solref, solimp=None)
    return (
        '<mujoco model="wheel_leg"><compiler angle="radian" autolimits="true"/>'
        + _option(timestep, integrator, (0.0, 0.0, -p.g))
        + '<default><geom contype="0" conaffinity="0" rgba="0.3 0.5 0.8 1"/></default>'
        + '<worldbody><geom name="ground" type="plane" size="50 50 0.1" contype="1" conaffinity="1" '
        f'friction="{_f(friction)} 0.005 0.0001"/>'
        + '<body name="torso" pos="0 0 0"><freejoint name="root"/>'
        + f'<inertial pos="0 0 {_f(p.l_c)}" mass="{_f(p.m_b)}" diaginertia="{_f(Ixx)} {_f(Iyy)} {_f(Izz)}"/>'
        + f'<geom type="box" size="0.15 {_f(0.5 * track - 0.03)} 0.04" pos="0 0 0.05" rgba="0.9 0.6 0.2 1"/>'
        + legs
        + "</body></worldbody><equality>"
        + "".join(f'<connect site1="{s}foot_C" site2="{s}foot_D"{soft}/>' for s in ("L_", "R_"))
        + "</equality><actuator>"
        + "".join(f'<motor name="{a}" joint="{a}" gear="1"/>' for a in WHEEL_LEG_ACTUATORS)
        + "</actuator></mujoco>"
    )


def wheel_leg_model(params: WheelLegParams, fivebar: FiveBar, **options) -> Any:
    """Compiled model of :func:`wheel_leg_mjcf`."""
    return require_mujoco().MjModel.from_xml_string(wheel_leg_mjcf(params, fivebar, **options))


def wheel_leg_pose(
    model: Any, data: Any, params: WheelLegParams, fivebar: FiveBar, *, L0: float, theta: float = 0.0, x: float = 0.0
) -> None:
    """Place the robot standing on its wheels: both legs of length ``L0`` (m), leg angle ``theta`` (rad), body level.

    The wheels touch the ground (axle at height ``R``); the hip is ``L0`` from the axle at ``theta``
    from the vertical (hip ahead of the wheel for ``theta > 0``, chapter 4's convention); ``x`` (m) is the
    wheels' position along world ``x``. Velocities are zeroed and ``mj_forward`` is called.

    Raises
    ------
    ValueError
        Non-finite or out-of-range ``L0`` (> 0), ``theta`` (``|theta| < pi/2``), ``x``; ``model``/``data`` not
        MuJoCo objects of a :func:`wheel_leg_model`.
    robokin.errors.UnreachableError
        No five-bar pose has a virtual leg of length ``L0`` (from ``FiveBar.ik``).
    """
    mujoco = _check_model(model, data)
    _check_params(params)
    L0, theta, x = positive(L0, "L0"), finite_scalar(theta, "theta"), finite_scalar(x, "x")
    if abs(theta) >= 0.5 * np.pi:
        raise ValueError(f"theta is the leg angle from the vertical and must satisfy |theta| < pi/2, got {theta}")
    for side in ("L_", "R_"):
        for j in FIVEBAR_JOINTS:
            _named(model, "joint", side + j, "model")
    q = virtual_leg_inverse(fivebar, [L0, -0.5 * np.pi - theta])
    qp = fivebar_qpos(fivebar, q)
    mujoco.mj_resetData(model, data)
    data.qpos[:3] = [x + L0 * math.sin(theta), 0.0, params.R + L0 * math.cos(theta)]
    data.qpos[3:7] = [1.0, 0.0, 0.0, 0.0]
    for side in ("L_", "R_"):
        for j, v in zip(FIVEBAR_JOINTS, qp):
            data.qpos[model.joint(side + j).qposadr[0]] = v
    mujoco.mj_forward(model, data)


def _cross3(a, b):
    """Cross product of two 3-vectors: a scalar fast path kept on purpose (not ``_primitives.cross``).

    Measured in ``wheel_leg_state`` (called once per 1 kHz control tick): 30 us per call with this, 42 us with
    ``_primitives.cross`` (its ``np.stack`` of 0-d arrays) and 49 us for a version vectorised over both legs.
    """
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def wheel_leg_state(model: Any, data: Any) -> dict[str, Any]:
    """Chapter 4's planar state of the simulated robot, read from MuJoCo's bodies and sites.

    Both sides are averaged. The virtual leg of each side is the foot site ``foot_C`` seen from the
    hip midpoint (the body frame origin) in the body's ``x``-``z`` plane: ``L0`` its length and
    ``theta_b = -pi/2 - atan2(z, x)`` its angle from the body's ``-z`` axis (chapter 4's
    ``virtual_leg``, here measured by the engine, including the loop-closure gap).

    The body's pitch ``phi``, its rate and the wheel position ``x`` and speed ``x_dot`` are measured in the heading
    frame (world ``z`` rotated by the yaw, from the body's ``x`` axis projected on the ground): a robot turned about
    world ``z`` has the same state. ``x`` is the wheel centres' position projected on the current heading.

    Returns
    -------
    dict
        ``s``: ``[theta, theta_dot, x, x_dot, phi, phi_dot]`` (rad, rad/s, m, m/s, rad, rad/s);
        ``L0``, ``L0_dot``, ``theta_b``, ``theta_b_dot``: per side (2,) ``[left, right]`` (m, m/s,
        rad, rad/s); ``q``: motor angles (2, 2) ``[[A, B] left, [A, B] right]``; ``roll`` (rad) and
        ``yaw_rate`` (rad/s, about world ``z``).

    Raises
    ------
    ValueError
        ``data`` holds no kinematics yet (call ``mujoco.mj_forward(model, data)`` or :func:`wheel_leg_pose`
        first: before it every body frame is zero and the leg lengths would be NaN), a foot site at the hip
        (zero leg length), a non-finite state, or a model that is not a :func:`wheel_leg_model`.
    """
    mujoco = _check_model(model, data)
    tor = data.body(_named(model, "body", "torso", "model"))
    Rb = tor.xmat.reshape(3, 3)
    if not abs(float(Rb[:, 0] @ Rb[:, 0]) - 1.0) < 1e-6:  # zero (never computed) or NaN frames fail
        raise ValueError(
            "wheel_leg_state: data has no kinematics (body frames are not rotations); call "
            "mujoco.mj_forward(model, data) or robokin.sim.wheel_leg_pose first"
        )
    if not (np.all(np.isfinite(data.qpos)) and np.all(np.isfinite(data.qvel))):
        raise ValueError("wheel_leg_state: data.qpos or data.qvel is not finite (a diverged simulation?)")
    hip = tor.xpos
    v_hip = data.qvel[0:3]  # free joint: world linear velocity of the body origin
    w = Rb @ data.qvel[3:6]  # free joint: angular velocity in the body frame -> world
    # the heading: the body's x axis projected on the ground, (cos psi, sin psi) of the yaw psi (ZYX angles). Pitch,
    # its rate and x are measured in the heading frame R_z(psi), so they do not depend on where the robot faces
    hn = math.hypot(Rb[0, 0], Rb[1, 0])
    if not hn > 1e-9:
        raise ValueError("wheel_leg_state: the body's x axis is vertical (pitch of 90 degrees): no heading")
    cy, sy = Rb[0, 0] / hn, Rb[1, 0] / hn
    phi = math.atan2(cy * Rb[0, 2] + sy * Rb[1, 2], Rb[2, 2])
    roll = math.atan2(Rb[2, 1], Rb[2, 2])
    v6 = np.zeros(6)
    L, Ld, tb, tbd, xs, xds, q = [], [], [], [], [], [], []
    for side in ("L_", "R_"):
        site = model.site(side + "foot_C").id
        r_w = data.site_xpos[site] - hip
        mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_SITE, site, v6, 0)
        rd_w = v6[3:] - v_hip - _cross3(w, r_w)
        r, rd = Rb.T @ r_w, Rb.T @ rd_w  # in the body frame; the leg plane is x-z
        L2 = r[0] ** 2 + r[2] ** 2
        if not L2 > 0.0:
            raise ValueError(f"wheel_leg_state: the {side}foot_C site is at the hip (zero leg length)")
        L.append(math.sqrt(L2))
        Ld.append((r[0] * rd[0] + r[2] * rd[2]) / L[-1])
        tb.append(-0.5 * math.pi - math.atan2(r[2], r[0]))
        tbd.append(-(r[0] * rd[2] - r[2] * rd[0]) / L2)
        wheel = model.body(side + "wheel").id
        mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_BODY, wheel, v6, 0)
        xs.append(cy * data.xpos[wheel][0] + sy * data.xpos[wheel][1])
        xds.append(cy * v6[3] + sy * v6[4])
        q.append([data.qpos[model.joint(side + j).qposadr[0]] for j in ("motor_A", "motor_B")])
    phid = float(cy * w[1] - sy * w[0])  # about the heading frame's y axis: the exact rate of the ZYX pitch
    st = np.array(
        [
            0.5 * (tb[0] + tb[1]) + phi,
            0.5 * (tbd[0] + tbd[1]) + phid,
            0.5 * (xs[0] + xs[1]),
            0.5 * (xds[0] + xds[1]),
            phi,
            phid,
        ]
    )
    tb, tbd = np.array(tb), np.array(tbd)
    return {
        "s": st,
        "L0": np.array(L),
        "L0_dot": np.array(Ld),
        "theta_b": tb,
        "theta_b_dot": tbd,
        "q": np.array(q),
        "roll": roll,
        "yaw_rate": float(w[2]),
    }


@dataclass(frozen=True)
class MotorModel:
    """A motor with a linear torque-speed envelope behind a gearbox.

    The envelope is chapter 3's :eq:`eq-ch3-motor` line, symmetric in the signs of torque and speed: at a joint
    speed ``w`` through ratio ``N`` the joint torque magnitude is at most ``N eta tau_stall (1 - N |w| / omega_free)``,
    clamped at zero from the free speed ``N |w| >= omega_free`` on (the line itself would turn negative there, and a
    negative bound would flip the sign of a clipped torque). So :meth:`saturate` never reverses or amplifies a
    request: its result has the request's sign (or is zero) and a magnitude at most the request's. The model is
    conservative in the braking quadrants, where a real drive can resist motion with more than the line's torque.

    Parameters
    ----------
    tau_stall : float
        Motor stall torque (N m).
    omega_free : float
        Motor no-load speed (rad/s).
    eta : float
        Gearbox efficiency in (0, 1].
    rotor_inertia : float
        Rotor inertia (kg m^2); reflected to the joint as ``N^2 J``.

    Examples
    --------
    >>> mot = MotorModel(3.0, 220.0, 0.85, 2e-5)
    >>> float(mot.max_joint_torque(10.0, 0.0)), float(mot.max_joint_torque(10.0, 22.0))
    (25.5, 0.0)
    >>> float(mot.saturate(5.0, 10.0, 44.0)), float(mot.saturate(-100.0, 10.0, -11.0))  # past free speed; half speed
    (0.0, -12.75)
    """

    tau_stall: float
    omega_free: float
    eta: float
    rotor_inertia: float = 0.0

    def __post_init__(self):
        positive(self.tau_stall, "tau_stall")
        positive(self.omega_free, "omega_free")
        eta = positive(self.eta, "eta")
        if eta > 1:
            raise ValueError(f"eta is an efficiency in (0, 1], got {eta}")
        if finite_scalar(self.rotor_inertia, "rotor_inertia") < 0:
            raise ValueError("rotor_inertia must be >= 0")

    def max_joint_torque(self, N: float, joint_speed: ArrayLike) -> float | np.ndarray:
        """Largest joint torque magnitude (N m) at a joint speed (rad/s, any sign) through gear ratio ``N`` (> 0).

        ``N eta tau_stall max(0, 1 - N |joint_speed| / omega_free)``: never negative, zero at and beyond the
        free speed. Raises ``ValueError`` for a bad ``N`` or ``joint_speed`` (NaN/inf, complex, > 1e12).
        """
        N = positive(N, "N")
        w = np.abs(as_array(joint_speed, "joint_speed")) * N
        return N * self.eta * self.tau_stall * np.clip(1.0 - w / self.omega_free, 0.0, 1.0)

    def saturate(self, tau: ArrayLike, N: float, joint_speed: ArrayLike) -> float | np.ndarray:
        """Clip joint torques (N m) to the envelope at the current joint speeds (rad/s); shapes broadcast.

        Returns ``sign(tau) min(|tau|, max_joint_torque(N, joint_speed))``: the request's sign or zero, never more
        than the request. Raises ``ValueError`` for bad ``tau``, ``N``, ``joint_speed`` or shapes that do not
        broadcast.
        """
        tau = as_array(tau, "tau")
        lim = self.max_joint_torque(N, joint_speed)
        try:
            shape = np.broadcast_shapes(tau.shape, np.shape(lim))
        except ValueError:
            raise ValueError(f"tau {tau.shape} and joint_speed {np.shape(lim)} must broadcast") from None
        # min of magnitudes, then the request's sign: a negative bound cannot reverse the torque
        out = np.sign(tau) * np.minimum(np.abs(tau), np.maximum(lim, 0.0))
        return out.reshape(shape) if shape else float(out)


# ----------------------------------------------------------------------------- fixed-step integration (chapter 10)
#: Fixed-step integrators of :func:`integrate_fixed_step` and :func:`step_limit`: three explicit, two implicit.
FIXED_STEP_METHODS = ("euler", "semi_implicit_euler", "rk4", "backward_euler", "trapezoid")
_IMPLICIT = ("backward_euler", "trapezoid")
_Method = Literal["euler", "semi_implicit_euler", "rk4", "backward_euler", "trapezoid"]


def _second_order(y0_or_A, name):
    n2 = y0_or_A.shape[-1]
    if n2 % 2:
        raise ValueError(f"{name} must have an even size 2n (state [q, qd]) for method 'semi_implicit_euler', got {n2}")
    return n2 // 2


def integrate_fixed_step(
    rhs: Callable[[float, np.ndarray], ArrayLike],
    y0: ArrayLike,
    *,
    dt: float,
    t_end: float,
    method: _Method,
    bound: float = 1e6,
    newton_tol: float = 1e-10,
    max_newton: int = 20,
) -> SimResult:
    """Integrate ``y' = rhs(t, y)`` with a fixed step, as a controller board or a real-time simulator does.

    The state is ``y = [q, qd]`` (shape (2n,)) and ``rhs`` is the right-hand side that
    :func:`scipy.integrate.solve_ivp` takes, e.g. :meth:`robokin.stewart.StewartDynamics.ode`. One step of
    length ``h = dt`` from ``y_k`` at ``t_k``:

    * ``"euler"`` (explicit): ``y_{k+1} = y_k + h f(t_k, y_k)``, one call per step;
    * ``"semi_implicit_euler"`` (symplectic Euler): ``qd_{k+1} = qd_k + h a(t_k, y_k)``, then
      ``q_{k+1} = q_k + h qd_{k+1}`` (``a`` = the second half of ``rhs``; the first half must be ``qd``),
      one call per step;
    * ``"rk4"``: the classical fourth-order Runge-Kutta method, four calls per step;
    * ``"backward_euler"`` (implicit, first order): ``y_{k+1} = y_k + h f(t_{k+1}, y_{k+1})``;
    * ``"trapezoid"`` (implicit trapezoidal rule, second order): ``y_{k+1} = y_k + h/2 (f(t_k, y_k) +
      f(t_{k+1}, y_{k+1}))``.

    The implicit steps solve their equation by Newton's method: the Jacobian of ``rhs`` by forward differences at
    the start of each step (2n calls), factorised once, then iterations until the correction is at most
    ``newton_tol (1 + |y|)`` (infinity norm). They are A-stable: on ``y' = lambda y`` with ``Re lambda <= 0`` no
    step size makes them grow. The stability limits of all five on a linearised system are :func:`step_limit`
    (chapter 10).

    Parameters
    ----------
    rhs : callable
        ``rhs(t, y) -> (2n,)``; its output must be real and finite (else ``ValueError``).
    y0 : array_like, shape (2n,)
        Initial state ``[q, qd]`` (SI units, rad).
    dt : float, keyword-only
        Step (s); it must divide ``t_end`` into a whole number of steps.
    t_end : float, keyword-only
        Duration (s).
    method : {"euler", "semi_implicit_euler", "rk4", "backward_euler", "trapezoid"}, keyword-only
    bound : float, keyword-only
        Divergence bound: the run stops, with ``stable`` False, at the first step where a state is
        non-finite or departs from ``y0`` by more than ``bound`` in any component (SI units).
    newton_tol : float, keyword-only
        Implicit methods: relative size of the last Newton correction at which a step counts as solved, in
        ``[1e-14, 1e-3]`` (a looser one is no solve at all, a tighter one below round-off cannot be met).
    max_newton : int, keyword-only
        Implicit methods: Newton iterations allowed per step (1 to 100).

    Returns
    -------
    robokin.results.SimResult
        ``t`` (K,) s, ``q`` and ``qd`` (K, n) at every step (``K = t_end / dt + 1`` when the run is
        stable, fewer when it stopped: the last row is the last state within the bound); ``u`` (K, 0)
        (no inputs are recorded); ``stable`` (bool); ``signals["rhs_calls"]`` (K,): calls of ``rhs`` made up to
        each recorded step (the cost of the run, Jacobian columns included).

    Raises
    ------
    ValueError
        Bad ``y0``, ``dt``, ``t_end``, ``bound``, ``method``, ``newton_tol`` or ``max_newton``; ``dt`` not
        dividing ``t_end`` or more than ``MAX_STEPS`` steps; ``rhs`` returning the wrong shape or a non-finite value.
    robokin.errors.IntegrationError
        An implicit step whose Newton iteration did not converge in ``max_newton`` iterations, left the domain of
        ``rhs`` (a non-finite value at an iterate where the step's start state gives a finite one), or whose
        iteration matrix ``I - h J`` is singular: the message names the step and its time (shrink ``dt``).

    Examples
    --------
    Undamped oscillator ``q'' = -q`` over one period: RK4 is accurate, explicit Euler gains energy.

    >>> f = lambda t, y: np.array([y[1], -y[0]])
    >>> T = 2 * np.pi
    >>> r = integrate_fixed_step(f, [1.0, 0.0], dt=T / 200, t_end=T, method="rk4")
    >>> round(float(r.q[-1, 0]), 6), r.t.shape
    (1.0, (201,))
    >>> e = integrate_fixed_step(f, [1.0, 0.0], dt=T / 200, t_end=T, method="euler")
    >>> round(float(e.q[-1, 0] ** 2 + e.qd[-1, 0] ** 2), 3)  # energy grows by (1 + h^2)^200
    1.218

    A stiff damper ``y' = -1e4 y`` at a step 100 times RK4's limit: the implicit steps stay bounded.

    >>> g = lambda t, y: np.array([y[1], -1e4 * y[1]])
    >>> [bool(integrate_fixed_step(g, [0.0, 1.0], dt=0.03, t_end=0.3, method=m).stable) for m in ("rk4", "trapezoid")]
    [False, True]
    """
    function(rhs, "rhs")  # a class (float, a dataclass) is callable but not a right-hand side
    method = choice(method, "method", FIXED_STEP_METHODS)
    y = as_array(y0, "y0", trailing=(None,))
    if y.ndim != 1 or y.size == 0:
        raise ValueError(f"y0 must have shape (2n,) with n >= 1, got shape {y.shape}")
    n = _second_order(y, "y0")
    if method in _IMPLICIT and y.size > _MAX_STATE:
        raise ValueError(f"y0 has {y.size} states; the implicit methods take at most {_MAX_STATE} (a dense Jacobian)")
    dt, t_end, bound = positive(dt, "dt"), positive(t_end, "t_end"), positive(bound, "bound")
    newton_tol = positive(newton_tol, "newton_tol")
    if not 1e-14 <= newton_tol <= 1e-3:
        raise ValueError(f"newton_tol must be in [1e-14, 1e-3] (relative correction), got {newton_tol!r}")
    max_newton = count(max_newton, "max_newton", max=100)
    ratio = t_end / dt
    if ratio > MAX_STEPS:
        raise ValueError(f"t_end / dt = {ratio:.6g} steps; at most {MAX_STEPS} per call (check dt and t_end, in s)")
    steps = int(round(ratio))
    if steps < 1 or abs(ratio - steps) > 1e-9 * max(1.0, ratio):
        raise ValueError(
            f"dt = {dt:g} s must divide t_end = {t_end:g} s into a whole number (>= 1) of steps "
            f"(t_end / dt = {ratio:.6g})"
        )
    shape = y.shape
    calls = 0

    def f(t, x):
        nonlocal calls
        calls += 1
        return callback_output(rhs(t, x), "rhs", shape, t=t)

    Y = np.empty((steps + 1, y.size))
    n_calls = np.zeros(steps + 1, dtype=np.int64)
    Y[0] = y0 = y
    h, k_done, stable = dt, steps + 1, True
    for k in range(steps):
        t = k * h
        if method in _IMPLICIT:
            y = _implicit_step(f, t, y, h, method, newton_tol, max_newton, k, t_end, lambda: calls)
        elif method == "euler":
            y = y + h * f(t, y)
        elif method == "semi_implicit_euler":
            v = y[n:] + h * f(t, y)[n:]
            y = np.concatenate([y[:n] + h * v, v])
        else:
            k1 = f(t, y)
            k2 = f(t + h / 2, y + (h / 2) * k1)
            k3 = f(t + h / 2, y + (h / 2) * k2)
            k4 = f(t + h, y + h * k3)
            y = y + (h / 6) * (k1 + 2 * (k2 + k3) + k4)
        with np.errstate(invalid="ignore"):
            if not np.abs(y - y0).max() <= bound:  # NaN fails the comparison
                k_done, stable = k + 1, False
                break
        Y[k + 1] = y
        n_calls[k + 1] = calls
    Y = Y[:k_done]
    return SimResult(
        t=np.arange(k_done) * h,
        q=Y[:, :n],
        qd=Y[:, n:],
        u=np.empty((k_done, 0)),
        stable=np.array(stable),
        signals={"rhs_calls": n_calls[:k_done]},
    )


def _implicit_step(f, t, y, h, method, newton_tol, max_newton, k, t_end, n_calls):
    """One backward-Euler or trapezoidal step of :func:`integrate_fixed_step`, solved by Newton's method."""
    import warnings

    from scipy.linalg import LinAlgWarning, lu_factor, lu_solve

    c = h if method == "backward_euler" else h / 2
    where = f"robokin.sim.integrate_fixed_step ({method}), step {k + 1} (t = {t + h:.6g} s)"

    def factor(tj, yj, fj):
        """LU of I - c J, J the forward-difference Jacobian of rhs at (tj, yj), one column per state."""
        e = np.sqrt(np.finfo(float).eps) * np.maximum(1.0, np.abs(yj))
        J = np.empty((yj.size, yj.size))
        for j in range(yj.size):
            yp = yj.copy()
            yp[j] += e[j]
            J[:, j] = (f(tj, yp) - fj) / e[j]
        G = np.eye(yj.size) - c * J
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", LinAlgWarning)
            lu = lu_factor(G, check_finite=False)
        if not np.all(np.isfinite(lu[0])) or np.abs(np.diag(lu[0])).min() <= 1e-14 * np.abs(G).max():
            raise IntegrationError(t, t_end, n_calls(), f"{where}: the iteration matrix I - h J is singular; shrink dt")
        return lu

    def f_iterate(y1):
        """rhs at a Newton iterate: a bad value there is the iteration's failure (it left rhs's domain), not rhs's."""
        try:
            return f(t + h, y1)
        except ValueError as err:
            f(t + h, y)  # rhs also fails at the step's start state: its own problem, raised as such
            raise IntegrationError(
                t, t_end, n_calls(), f"{where}: Newton's method left the domain of rhs ({err}); shrink dt"
            ) from err

    f0 = f(t, y)
    lu = factor(t, y, f0)  # the Jacobian at the start of the step, kept while Newton contracts fast
    base = y if method == "backward_euler" else y + c * f0
    y1 = y + h * f0 if method == "trapezoid" else y.copy()  # predictor: an explicit Euler step (trapezoid)
    f1 = f_iterate(y1)
    prev = np.inf
    for it in range(max_newton):
        dy = lu_solve(lu, y1 - base - c * f1, check_finite=False)
        y1 = y1 - dy
        size = np.abs(dy).max()
        if size <= newton_tol * (1.0 + np.abs(y1).max()):
            return y1
        if not np.isfinite(size):
            break
        f1 = f_iterate(y1)
        if size > 0.25 * prev and it + 1 < max_newton:  # slow contraction: refresh the Jacobian at the iterate
            lu = factor(t + h, y1, f1)
        prev = size
    raise IntegrationError(
        t,
        t_end,
        n_calls(),
        f"{where}: Newton's method did not converge in {max_newton} iteration(s) (last correction {size:.3g}); "
        "shrink dt",
    )


def _rk4_amplification(z):
    return 1 + z * (1 + z / 2 * (1 + z / 3 * (1 + z / 4)))


def step_limit(A: ArrayLike, *, method: _Method, tol: float = 1e-9) -> float:
    """Largest fixed step (s) for which ``method`` is stable on the linear system ``y' = A y``.

    One step maps ``y_{k+1} = Phi(h) y_k``; the method is stable while the spectral radius
    ``rho(Phi(h)) <= 1 + tol``. For the explicit methods ``Phi(h) = R(h A)`` with the stability
    polynomial ``R(z) = 1 + z`` (Euler) or ``R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24`` (RK4), so
    ``rho = max |R(h lambda)|`` over the eigenvalues ``lambda`` of ``A``; on a real eigenvalue the limits
    are ``h = 2 / |lambda|`` and ``h = 2.785 / |lambda|``. The implicit methods have the rational ``R(z) = 1 / (1 -
    z)`` (backward Euler) and ``R(z) = (1 + z / 2) / (1 - z / 2)`` (trapezoid), ``|R| <= 1`` on the whole left
    half-plane, so their limit is ``inf`` when no eigenvalue of ``A`` has a positive real part (one accepted within
    ``tol`` on the positive side gives a finite limit). Semi-implicit Euler needs the second-order
    structure ``y = [q, qd]``, ``A = [[0, I], [A21, A22]]``: ``Phi(h) = [[I + h^2 A21, h (I + h A22)],
    [h A21, I + h A22]]``, whose eigenvalues are computed directly (on one mode ``q'' + c q' + k q = 0``
    the limit is ``h c < 2`` and ``h^2 k + 2 h c < 4``; chapter 10 derives all three).

    The result is the first crossing of ``rho = 1 + tol`` from ``h = 0`` (found on a geometric grid of
    ``h |lambda|_max`` in ``[1e-4, 10]``, then refined by ``scipy.optimize.brentq``), ``inf`` when no step up to
    ``10 / |lambda|_max`` is unstable (e.g. ``A = 0``). An eigenvalue on the imaginary axis makes explicit
    Euler unstable for every step; the result is then about ``sqrt(2 tol) / |lambda|``.

    Parameters
    ----------
    A : array_like, shape (m, m)
        System matrix (1/s), e.g. the Jacobian of an ODE right-hand side at an equilibrium
        (:func:`robokin.checks.jacobian_fd`). For ``"semi_implicit_euler"``, ``m = 2n`` and the upper
        block row must be ``[0, I]`` within 1e-6 (only the lower blocks are used).
    method : {"euler", "semi_implicit_euler", "rk4", "backward_euler", "trapezoid"}, keyword-only
    tol : float, keyword-only
        Allowed excess of the spectral radius over 1 (marginal modes, round-off in ``A``), in (0, 1e-3].

    Returns
    -------
    float
        The step limit (s), > 0, or ``inf``.

    Raises
    ------
    ValueError
        ``A`` not square (or larger than 2000 x 2000), not real and finite, or with an eigenvalue of positive real part (above
        ``tol |lambda|_max``: the continuous system itself is unstable, no step is stable); a bad
        ``method`` or ``tol``; for semi-implicit Euler, an odd size or an upper block row that is not ``[0, I]``.

    Examples
    --------
    >>> A = np.array([[-1000.0]])                      # a fast damper, 1/s
    >>> round(step_limit(A, method="euler") * 1e3, 6)  # 2 / |lambda|, in ms
    2.0
    >>> round(step_limit(A, method="rk4") * 1e3, 4)
    2.7853
    >>> osc = np.array([[0.0, 1.0], [-1e4, -2.0]])     # q'' + 2 q' + 1e4 q = 0
    >>> round(step_limit(osc, method="euler") * 1e3, 4), round(step_limit(osc, method="semi_implicit_euler") * 1e3, 4)
    (0.2, 19.801)
    >>> step_limit(osc, method="trapezoid")             # A-stable: no step limit
    inf
    """
    from scipy.optimize import brentq

    method = choice(method, "method", FIXED_STEP_METHODS)
    A = as_array(A, "A", trailing=(None, None))
    if A.ndim != 2 or A.shape[0] != A.shape[1] or A.shape[0] == 0:
        raise ValueError(f"A must be a square (m, m) matrix, got shape {A.shape}")
    if A.shape[0] > _MAX_STATE:
        raise ValueError(f"A is {A.shape[0]} x {A.shape[0]}; step_limit takes at most {_MAX_STATE} states")
    tol = positive(tol, "tol")
    if tol > 1e-3:
        raise ValueError(f"tol must be in (0, 1e-3], got {tol!r}")
    if method == "semi_implicit_euler":  # checked first: A = 0 has no [0, I] row, whatever its spectrum
        n = _second_order(A, "A")
        if np.abs(A[:n, :n]).max() > 1e-6 or np.abs(A[:n, n:] - np.eye(n)).max() > 1e-6:
            raise ValueError("for 'semi_implicit_euler', A must be [[0, I], [A21, A22]] (state [q, qd])")
    lam = np.linalg.eigvals(A)
    scale = float(np.abs(lam).max())
    if scale == 0.0:
        return math.inf
    if lam.real.max() > tol * scale:
        k = int(np.argmax(lam.real))
        raise ValueError(
            f"A has an eigenvalue with positive real part ({complex(lam[k]):.4g} 1/s): the continuous system is "
            "unstable, so no step is stable"
        )
    if method == "semi_implicit_euler":
        A21, A22, I = A[n:, :n], A[n:, n:], np.eye(n)

        def rho(h):
            P = np.block([[I + h * h * A21, h * (I + h * A22)], [h * A21, I + h * A22]])
            return float(np.abs(np.linalg.eigvals(P)).max())

    else:
        R = {
            "euler": lambda z: 1 + z,
            "rk4": _rk4_amplification,
            "backward_euler": lambda z: 1 / (1 - z),
            "trapezoid": lambda z: (1 + z / 2) / (1 - z / 2),
        }[method]

        def rho(h):
            return float(np.abs(R(h * lam)).max())

    grid = np.geomspace(1e-4, 10.0, 800) / scale
    excess = np.array([rho(h) for h in grid]) - 1.0 - tol
    bad = np.flatnonzero(excess > 0)
    if bad.size == 0:
        return math.inf
    i = int(bad[0])
    lo = 0.0 if i == 0 else float(grid[i - 1])
    return float(brentq(lambda h: rho(h) - 1.0 - tol, lo, float(grid[i]), xtol=1e-15 * grid[i], rtol=1e-13))
