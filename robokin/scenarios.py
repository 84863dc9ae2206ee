"""The scenarios a team tests on the wheel-legged robot in MuJoCo (chapter 16, issue 32).

Chapter 13 runs chapter 4's balance controller on the multibody robot of :func:`robokin.sim.wheel_leg_model` on flat
ground. This module adds what a competition team tries next, each as a runner that returns the record of every
MuJoCo step (the controller runs at the engine's 1 kHz step, so a tick is a step):

* ``"handover"`` -- the virtual-leg to straight-leg switch of chapter 4 (:func:`robokin.wheel_leg.joint_handover`)
  done in the engine while the robot balances, and back; the torque change per step across the switch is the claim;
* ``"landing"`` -- chapter 4's jump with stronger leg motors, with or without a landing mode (wheels off and the leg
  held at its landing length while no tyre carries load);
* ``"step"`` -- driving over a step of a given height;
* ``"slope"`` -- standing on a slope (the ground plane pitched about ``y``);
* ``"low_friction"`` -- a speed command on slippery ground, with the slip speed of each tyre;
* ``"roll"`` -- standing across a slope (the ground rolled about ``x``), with or without roll control by the
  difference of the two leg lengths;
* ``"yaw"`` -- a yaw-rate command by the difference of the two wheel torques.

Terrain and friction are added here with :class:`mujoco.MjSpec` on top of :func:`robokin.sim.wheel_leg_mjcf`
(:func:`terrain_model`); the robot is placed rigidly rotated onto a tilted ground (:func:`place_robot`).

Conventions: world ``x`` forward, ``y`` left, ``z`` up (chapter 13). ``slope`` > 0 is ground rising towards ``+x``;
``cross_slope`` > 0 is ground rising towards ``+y`` (the left wheel higher). Roll (rad) is the body's rotation about
its ``x`` axis, positive with the left side up; ``dL = L_left - L_right`` (m) the leg-length difference; the
differential wheel torque is ``dT = tau_right - tau_left`` (N m), positive turning the robot counter-clockwise seen
from above. SI units, radians.

Examples
--------
>>> import numpy as np
>>> r = run_scenario("slope", t_end=0.2, slope=0.05)
>>> r.t.shape, r.s.shape, r.u.shape
((200,), (200, 6), (200, 6))
>>> bool(np.all(np.diff(r.t) > 0)) and r.kind
'slope'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from . import sim
from . import wheel_leg as wl
from ._validate import as_array, choice, finite_scalar, flag, integer, positive
from .robots import WHEEL_LEG, WHEEL_LEG_FIVEBAR

__all__ = [
    "SCENARIOS",
    "Gains",
    "ScenarioResult",
    "terrain_model",
    "place_robot",
    "roll_from_legs",
    "legs_for_roll",
    "max_slope",
    "yaw_inertia",
    "yaw_acceleration",
    "run_scenario",
]

#: The scenario names of :func:`run_scenario`.
SCENARIOS = ("handover", "landing", "step", "slope", "low_friction", "roll", "yaw")

MAX_TILT = math.radians(30.0)  # rad: steeper ground than this is outside what the controller is built for
MAX_STEP = 0.5  # m: a "step" higher than this is a wall
MAX_FRICTION = 10.0
_LS = np.linspace(0.12, 0.34, 12)  # m: the gain schedule's leg lengths (chapter 13)
_SCHED: dict = {}  # the gain schedule, built once per parameter set (the LQR solves take a few ms each)


@dataclass(frozen=True)
class Gains:
    """Gains and limits of the balance controller (chapter 13's, plus roll control).

    Attributes
    ----------
    kL, dL : float
        Leg-length PD per side (N/m, N s/m).
    k_split, d_split : float
        PD on the difference of the two leg angles (N m/rad, N m s/rad): the legs must not scissor apart.
    k_yaw : float
        Yaw-rate gain of the differential wheel torque, ``dT = k_yaw (yaw_rate_ref - yaw_rate)`` (N m s/rad).
    kp_roll, ki_roll : float
        Roll control by leg-length difference, ``dL = -(kp_roll roll + ki_roll int roll dt)`` (m/rad, m/(rad s));
        both zero (the default) switch it off.
    leg_max, wheel_max : float
        Torque limits of each leg motor and each wheel motor (N m).

    Examples
    --------
    >>> Gains().leg_max, Gains(ki_roll=0.5).ki_roll
    (10.0, 0.5)
    >>> Gains(kL=-1.0)
    Traceback (most recent call last):
    ...
    ValueError: kL must be a positive finite number, got -1.0
    """

    kL: float = 800.0
    dL: float = 100.0
    k_split: float = 20.0
    d_split: float = 2.0
    k_yaw: float = 1.0
    kp_roll: float = 0.0
    ki_roll: float = 0.0
    leg_max: float = 10.0
    wheel_max: float = 2.5

    def __post_init__(self):
        for name in ("kL", "dL", "leg_max", "wheel_max"):
            object.__setattr__(self, name, positive(getattr(self, name), name))
        for name in ("k_split", "d_split", "k_yaw", "kp_roll", "ki_roll"):
            v = finite_scalar(getattr(self, name), name)
            if v < 0:
                raise ValueError(f"{name} must be >= 0 (a gain), got {v!r}")
            object.__setattr__(self, name, v)


@dataclass(frozen=True)
class ScenarioResult:
    """The record of one scenario, one row per MuJoCo step (= controller tick, 1 ms).

    Attributes
    ----------
    kind : str
        The scenario name (:data:`SCENARIOS`).
    t : ndarray, shape (K,)
        Time of each tick (s); the row holds the state at ``t`` and the inputs held over the next step.
    s : ndarray, shape (K, 6)
        Chapter 4's state ``[theta, theta_dot, x, x_dot, phi, phi_dot]`` (:func:`robokin.sim.wheel_leg_state`).
    L0 : ndarray, shape (K, 2)
        Leg length of each side ``[left, right]`` (m).
    roll, yaw_rate : ndarray, shape (K,)
        Body roll (rad, left side up positive) and yaw rate about world ``z`` (rad/s).
    normal_force : ndarray, shape (K,)
        Total normal contact force on both tyres (N), from the contacts of the last step.
    slip : ndarray, shape (K, 2)
        Speed of each tyre's contact point along the ground (m/s): zero when the wheel rolls without slipping.
    wheel_z : ndarray, shape (K, 2)
        Height of each wheel centre above the world origin (m).
    u : ndarray, shape (K, 6)
        Motor torques in :data:`robokin.sim.WHEEL_LEG_ACTUATORS` order (N m).
    mode : ndarray, shape (K,)
        The leg controller in charge: 0 virtual leg (VMC), 1 joint-space law (handover) or landing mode.
    friction_use : ndarray, shape (K,)
        Tangential over normal contact force of both tyres together (0 without contact): the friction coefficient
        the ground has to supply; the tyres slip where it reaches the coefficient.
    info : dict
        Scalars of the run (the options used, switch times, ...).
    """

    kind: str
    t: np.ndarray
    s: np.ndarray
    L0: np.ndarray
    roll: np.ndarray
    yaw_rate: np.ndarray
    normal_force: np.ndarray
    slip: np.ndarray
    wheel_z: np.ndarray
    u: np.ndarray
    mode: np.ndarray
    friction_use: np.ndarray
    info: dict = field(default_factory=dict)

    def torque_steps(self) -> np.ndarray:
        """Largest change of a leg-motor torque from one step to the next (N m), shape (K - 1,).

        Examples
        --------
        >>> r = run_scenario("slope", t_end=0.05)
        >>> r.torque_steps().shape
        (49,)
        """
        return np.abs(np.diff(self.u[:, :4], axis=0)).max(axis=1)


# ----------------------------------------------------------------------------- terrain
def _tilt(slope, cross_slope):
    """Rotation of the ground: R_y(-slope) R_x(cross_slope) (world frame)."""
    ca, sa, cb, sb = math.cos(slope), math.sin(slope), math.cos(cross_slope), math.sin(cross_slope)
    Ry = np.array([[ca, 0.0, -sa], [0.0, 1.0, 0.0], [sa, 0.0, ca]])
    Rx = np.array([[1.0, 0.0, 0.0], [0.0, cb, -sb], [0.0, sb, cb]])
    return Ry @ Rx


def _angle(value, name):
    v = finite_scalar(value, name)
    if abs(v) > MAX_TILT:
        raise ValueError(f"{name} must be at most {math.degrees(MAX_TILT):g} degrees in magnitude (rad), got {v!r}")
    return v


def _terrain_options(slope, cross_slope, step_height, step_x, friction):
    slope, cross_slope = _angle(slope, "slope"), _angle(cross_slope, "cross_slope")
    h = finite_scalar(step_height, "step_height")
    if not 0.0 <= h <= MAX_STEP:
        raise ValueError(f"step_height must be in [0, {MAX_STEP:g}] m, got {step_height!r}")
    step_x = positive(step_x, "step_x", max_abs=100.0)
    friction = positive(friction, "friction", max_abs=MAX_FRICTION)
    if h > 0 and (slope or cross_slope):
        raise ValueError("step_height needs level ground: pass slope=0 and cross_slope=0 with a step")
    return slope, cross_slope, h, step_x, friction


def terrain_model(
    params: wl.WheelLegParams = WHEEL_LEG,
    fivebar: Any = WHEEL_LEG_FIVEBAR,
    *,
    slope: float = 0.0,
    cross_slope: float = 0.0,
    step_height: float = 0.0,
    step_x: float = 0.5,
    friction: float = 1.0,
    tyre: Literal["cylinder", "sphere"] = "cylinder",
    tyre_width: float | None = None,
    timestep: float = 1e-3,
    solref: ArrayLike = (0.004, 1.0),
) -> Any:
    """Chapter 13's robot on a terrain: :func:`robokin.sim.wheel_leg_mjcf` edited through :class:`mujoco.MjSpec`.

    The ground plane is rotated by ``R_y(-slope) R_x(cross_slope)`` about the world origin; a step is a box of height
    ``step_height`` whose edge is at ``x = step_x``, across the whole width, 20 m long. Every ground geom (plane and
    step) and both tyres get the sliding ``friction`` coefficient (MuJoCo combines a contact's two coefficients by
    their maximum, so both sides are set).

    Parameters
    ----------
    params, fivebar : WheelLegParams, FiveBar
        The robot (default chapter 4's, :data:`robokin.robots.WHEEL_LEG` and ``WHEEL_LEG_FIVEBAR``).
    slope, cross_slope : float
        Ground pitch (rising towards +x) and roll (rising towards +y), rad, each at most 30 degrees.
    step_height : float
        Height of the step (m, 0 = no step, at most 0.5 m); needs level ground.
    step_x : float
        Position of the step's edge along world ``x`` (m, positive).
    friction : float
        Sliding friction coefficient (> 0, at most 10).
    tyre : {"cylinder", "sphere"}
        The tyre geom: chapter 13's cylinder (width ``0.4 R``, a line of contact across the tread) or a sphere of
        radius ``R`` (a thin tyre: one contact point below the axle; the wheel's inertia is unchanged, it is
        stated separately in the MJCF).
    tyre_width : float, optional
        Width of the cylinder tyre (m, positive, at most ``2 R``; default chapter 13's ``0.4 R``); only with
        ``tyre="cylinder"``. The wheel's inertia is unchanged.
    timestep, solref :
        As in :func:`robokin.sim.wheel_leg_mjcf` (the default loop stiffness is chapter 13's).

    Returns
    -------
    mujoco.MjModel

    Raises
    ------
    ValueError
        A non-finite or out-of-range option, named.

    Examples
    --------
    >>> m = terrain_model(step_height=0.02)
    >>> float(m.geom("step").size[2])   # half height of the box
    0.01
    >>> terrain_model(friction=0.0)
    Traceback (most recent call last):
    ...
    ValueError: friction must be a positive finite number, got 0.0
    """
    mujoco = sim.require_mujoco()
    slope, cross_slope, h, step_x, friction = _terrain_options(slope, cross_slope, step_height, step_x, friction)
    tyre = choice(tyre, "tyre", ("cylinder", "sphere"))
    if tyre_width is not None:
        if tyre != "cylinder":
            raise ValueError(f"tyre_width needs tyre='cylinder', got tyre={tyre!r}")
        tyre_width = positive(tyre_width, "tyre_width", max_abs=2.0 * params.R)
    spec = mujoco.MjSpec.from_string(
        sim.wheel_leg_mjcf(params, fivebar, friction=friction, timestep=timestep, solref=solref)
    )
    ground = spec.geom("ground")
    ground.quat = sim._quat(_tilt(slope, cross_slope))
    for side in ("L_", "R_"):
        g = spec.geom(side + "tyre")
        if tyre == "sphere":  # a thin tyre: one contact point below the axle
            g.type, g.size, g.fromto = mujoco.mjtGeom.mjGEOM_SPHERE, [params.R, 0.0, 0.0], [np.nan] * 6
        elif tyre_width is not None:
            g.fromto = [0.0, -0.5 * tyre_width, 0.0, 0.0, 0.5 * tyre_width, 0.0]
    if h > 0:
        step = spec.worldbody.add_geom()
        step.name = "step"
        step.type = mujoco.mjtGeom.mjGEOM_BOX
        step.size = [10.0, 5.0, 0.5 * h]
        step.pos = [step_x + 10.0, 0.0, 0.5 * h]
        step.friction = [friction, 0.005, 0.0001]
        step.contype, step.conaffinity = 1, 1
        step.rgba = [0.6, 0.6, 0.6, 1.0]
    return spec.compile()


def place_robot(
    model: Any,
    data: Any,
    *,
    L0: float,
    slope: float = 0.0,
    cross_slope: float = 0.0,
    theta: float = 0.0,
    params: wl.WheelLegParams = WHEEL_LEG,
    fivebar: Any = WHEEL_LEG_FIVEBAR,
) -> None:
    """Place the robot standing on the (tilted) ground: :func:`robokin.sim.wheel_leg_pose`, then rotated rigidly.

    The robot is posed on level ground (legs of length ``L0`` m at leg angle ``theta`` rad) and the whole of it is
    rotated with the ground of :func:`terrain_model` about the world origin, so the tyres touch the tilted plane.

    Raises
    ------
    ValueError
        Bad ``L0``/``theta`` (as :func:`robokin.sim.wheel_leg_pose`), ``slope``/``cross_slope`` out of range.
    """
    mujoco = sim.require_mujoco()
    slope, cross_slope = _angle(slope, "slope"), _angle(cross_slope, "cross_slope")
    sim.wheel_leg_pose(model, data, params, fivebar, L0=L0, theta=theta)
    Rg = _tilt(slope, cross_slope)
    data.qpos[:3] = Rg @ data.qpos[:3]
    data.qpos[3:7] = sim._quat(Rg)
    mujoco.mj_forward(model, data)


# ----------------------------------------------------------------------------- the derived laws
def roll_from_legs(dL: ArrayLike, *, track: float, cross_slope: ArrayLike = 0.0) -> np.ndarray:
    """Body roll (rad) of the two-leg robot standing with leg-length difference ``dL = L_left - L_right`` (m).

    Both wheel centres lie ``R`` from the ground plane; with the legs in the body's ``x``-``z`` plane that gives
    ``tan(roll - cross_slope) = dL / track`` (chapter 16 derives it). Batched over ``dL`` and ``cross_slope``.

    Examples
    --------
    >>> round(float(roll_from_legs(0.04, track=0.4)), 12)
    0.099668652491
    >>> float(roll_from_legs(0.0, track=0.4, cross_slope=0.1))
    0.1
    """
    track = positive(track, "track")
    dL, beta = as_array(dL, "dL"), as_array(cross_slope, "cross_slope")
    return np.asarray(beta + np.arctan(dL / track), dtype=float)


def legs_for_roll(roll: ArrayLike, *, track: float, cross_slope: ArrayLike = 0.0) -> np.ndarray:
    """Leg-length difference ``L_left - L_right`` (m) that gives the body ``roll`` (rad): the inverse of
    :func:`roll_from_legs`, ``dL = track tan(roll - cross_slope)``.

    Examples
    --------
    >>> round(float(legs_for_roll(0.0, track=0.4, cross_slope=0.1)), 9)   # level the body across a 0.1 rad slope
    -0.040133869
    """
    track = positive(track, "track")
    roll, beta = as_array(roll, "roll"), as_array(cross_slope, "cross_slope")
    if np.any(np.abs(roll - beta) >= 0.5 * np.pi):
        raise ValueError("roll - cross_slope must be within (-pi/2, pi/2)")
    return np.asarray(track * np.tan(roll - beta), dtype=float)


def max_slope(
    *, friction: float, wheel_torque: float, mass: float, R: float, g: float = 9.81, n_wheels: int = 2
) -> tuple[float, str]:
    """Steepest slope (rad) on which the robot can stand still, and which limit sets it.

    Standing still on a slope ``alpha`` needs the tangential ground force ``m g sin(alpha)``. The friction cone
    allows at most ``mu m g cos(alpha)``, so ``tan(alpha) <= mu``; the wheel motors give at most
    ``n_wheels wheel_torque / R``, so ``sin(alpha) <= n_wheels wheel_torque / (m g R)`` (quasi-static: the wheels'
    rolling inertia and the body's lean do not change the force needed to stand still).

    Returns
    -------
    (alpha_max, limit) : (float, {"friction", "torque"})

    Examples
    --------
    >>> a, lim = max_slope(friction=0.15, wheel_torque=2.5, mass=14.8, R=0.06)
    >>> round(math.degrees(a), 2), lim
    (8.53, 'friction')
    """
    mu = positive(friction, "friction", max_abs=MAX_FRICTION)
    tau, m, R, g = (positive(v, n) for v, n in ((wheel_torque, "wheel_torque"), (mass, "mass"), (R, "R"), (g, "g")))
    n_wheels = integer(n_wheels, "n_wheels", minimum=1)
    a_f = math.atan(mu)
    ratio = n_wheels * tau / (m * g * R)
    a_t = math.asin(ratio) if ratio < 1 else 0.5 * math.pi
    return (a_f, "friction") if a_f <= a_t else (a_t, "torque")


def yaw_inertia(model: Any, data: Any) -> float:
    """Effective yaw inertia (kg m^2) of the robot turning on the spot, the wheels rolling without slip.

    ``I = M_zz + I_spin track^2 / (2 R^2)``: ``M_zz`` is the composite inertia of the whole robot about the body's
    vertical axis (MuJoCo's mass matrix at the free joint, joints locked) and the second term the two wheels' spin
    inertia ``I_spin`` turning at ``+-yaw_rate track / (2 R)``. ``data`` must hold a standing pose
    (:func:`place_robot` or :func:`robokin.sim.wheel_leg_pose`).

    Examples
    --------
    >>> import mujoco
    >>> m = terrain_model(); d = mujoco.MjData(m)
    >>> place_robot(m, d, L0=0.2)
    >>> 0.2 < yaw_inertia(m, d) < 1.0
    True
    """
    mujoco = sim.require_mujoco()
    if not isinstance(data, mujoco.MjData):
        raise ValueError(f"data must be a mujoco.MjData of the model (a standing pose), got {type(data).__name__}")
    sim.wheel_leg_state(model, data)  # checks the model and that data holds kinematics
    M = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, M)
    Mrot = M[3:6, 3:6]  # rotational block of the free joint, body frame
    e = data.body("torso").xmat.reshape(3, 3).T @ np.array([0.0, 0.0, 1.0])  # world vertical in the body frame
    spin = float(model.body_inertia[model.body("L_wheel").id, 1])
    y = [data.body(n).xpos for n in ("L_wheel", "R_wheel")]
    track = float(np.linalg.norm(y[0] - y[1]))
    R = float(model.geom_size[model.geom("L_tyre").id, 0])
    return float(e @ Mrot @ e) + spin * track**2 / (2 * R**2)


def yaw_acceleration(dT: ArrayLike, *, track: float, R: float, inertia: float) -> np.ndarray:
    """Yaw acceleration (rad/s^2) from the differential wheel torque ``dT = tau_right - tau_left`` (N m).

    The wheel torques push the ground with ``tau / R`` at ``y = +-track/2``; the generalised force on the yaw angle is
    ``dT track / (2 R)`` and the yaw acceleration that over ``inertia`` (:func:`yaw_inertia`).

    Examples
    --------
    >>> float(yaw_acceleration(1.0, track=0.4, R=0.06, inertia=0.5))
    6.666666666666667
    """
    track, R, inertia = positive(track, "track"), positive(R, "R"), positive(inertia, "inertia")
    return np.asarray(as_array(dT, "dT") * track / (2 * R * inertia), dtype=float)


# ----------------------------------------------------------------------------- the runner
def _schedule(params):
    key = tuple(getattr(params, n) for n in ("m_b", "I_b", "l_c", "m_l", "m_w", "I_w", "R", "g"))
    if key not in _SCHED:
        _SCHED[key] = wl.gain_schedule(wl.WheelLegDynamics(params), _LS, degree=3)
    return _SCHED[key]


def _quintic(t, t0, t1, v0, v1):
    """Quintic 0-velocity step from v0 at t0 to v1 at t1: value, rate, acceleration."""
    T = t1 - t0
    s = min(max((t - t0) / T, 0.0), 1.0)
    d = v1 - v0
    return (
        v0 + d * (10 * s**3 - 15 * s**4 + 6 * s**5),
        d / T * (30 * s**2 - 60 * s**3 + 30 * s**4),
        d / T**2 * (60 * s - 180 * s**2 + 120 * s**3),
    )


def run_scenario(
    kind: Literal["handover", "landing", "step", "slope", "low_friction", "roll", "yaw"],
    *,
    t_end: float = 1.0,
    L0: float = 0.2,
    gains: Gains | None = None,
    slope: float = 0.0,
    cross_slope: float = 0.0,
    step_height: float = 0.0,
    friction: float = 1.0,
    speed: float = 0.0,
    yaw_rate: float = 0.0,
    switch: Literal["bumpless", "naive"] = "bumpless",
    t_switch: float = 0.3,
    t_back: float = 0.6,
    landing: bool = True,
    yaw_torque: float = 0.0,
    tyre: Literal["cylinder", "sphere"] = "cylinder",
    tyre_width: float | None = None,
    noise: float = 0.0,
    seed: int = 0,
    params: wl.WheelLegParams = WHEEL_LEG,
    fivebar: Any = WHEEL_LEG_FIVEBAR,
) -> ScenarioResult:
    """Run one scenario of chapter 16 on the MuJoCo robot; the record of every 1 ms step.

    The controller is chapter 13's: the scheduled LQR of chapter 4 gives the wheel torque ``T`` and the hip torque
    ``Tp`` from the averaged state, a leg-length PD per side gives the thrust ``F`` (with the weight as
    feed-forward), :func:`robokin.wheel_leg.vmc_torques` maps ``(F, Tp)`` to the motors, a PD keeps the two leg
    angles together, and the wheel torques split as ``T/2 -+ dT/2``. Every torque is clipped to its limit.
    Scenario by scenario:

    ``"handover"``
        Standing at ``L0``; at ``t_switch`` both legs go over to the joint-space law ``tau_ff + K_q (q_ref - q) -
        D_q qdot`` of :func:`robokin.wheel_leg.joint_handover` (``switch="bumpless"``, gains ``K_leg = diag(kL,
        K_10/2)``, ``D_leg = diag(dL, K_11/2)`` from the VMC law and the LQR gain ``K`` at ``L0``), or to chapter 4's
        naive PD towards the straight leg (``switch="naive"``: 30 N m/rad, 1 N m s/rad); at ``t_back`` back to VMC,
        the difference between the two laws at that instant kept as an offset that decays with a 50 ms time constant.
    ``"landing"``
        Chapter 4's jump (leg 0.14 -> 0.34 m in 0.1 s from t = 0.1 s) with ``leg_max`` raised to 40 N m unless
        ``gains`` says otherwise. With ``landing=True``, after 3 steps without normal force the wheels are switched
        off and the leg is servoed to ``L0`` without the weight feed-forward, leg angle held at the body's vertical;
        the first step with normal force hands back to the balance controller at ``L0``.
    ``"step"``, ``"low_friction"``
        A smooth speed command 0 -> ``speed`` (m/s) between 0.3 and 1.3 s, over a step of ``step_height`` (edge at
        0.5 m) or on ground of ``friction``.
    ``"slope"``, ``"roll"``
        Standing on ground of pitch ``slope`` or roll ``cross_slope`` (placed with the leg vertical in the world and
        the body parallel to the ground); roll control is on when ``gains`` has ``kp_roll``/``ki_roll``.
    ``"yaw"``
        A yaw-rate command ``yaw_rate`` (rad/s) from 0.1 s through ``k_yaw``; or, with ``yaw_torque`` != 0, an open-loop
        differential torque of that size from 0.1 s (the yaw damper off).

    Parameters
    ----------
    kind : str
        One of :data:`SCENARIOS`.
    t_end : float
        Duration (s), at most 20.
    noise : float
        Standard deviation of a Gaussian noise added to every measured state entry (SI units; 0 = none), drawn
        from ``numpy.random.default_rng(seed)``.
    tyre, tyre_width
        The tyre geom, as in :func:`terrain_model`.
    others
        As above; every option is keyword-only and checked.

    Returns
    -------
    ScenarioResult

    Raises
    ------
    ValueError
        Unknown ``kind`` or ``switch``, a non-finite or out-of-range option (named), or a switch time outside the run.
    robokin.errors.IntegrationError
        The simulation diverged.

    Examples
    --------
    >>> r = run_scenario("yaw", t_end=0.3, yaw_rate=1.0)
    >>> bool(r.yaw_rate[-1] > 0.2)
    True
    >>> run_scenario("jump")
    Traceback (most recent call last):
    ...
    ValueError: kind must be one of 'handover', 'landing', 'step', 'slope', 'low_friction', 'roll', 'yaw'; got 'jump'
    """
    mujoco = sim.require_mujoco()
    kind = choice(kind, "kind", SCENARIOS)
    switch = choice(switch, "switch", ("bumpless", "naive"))
    t_end = positive(t_end, "t_end", max_abs=20.0)
    L0 = positive(L0, "L0")
    if not _LS[0] <= L0 <= _LS[-1]:
        raise ValueError(f"L0 must be in [{_LS[0]:g}, {_LS[-1]:g}] m (the gain schedule's range), got {L0!r}")
    slope, cross_slope, step_height, _, friction = _terrain_options(slope, cross_slope, step_height, 0.5, friction)
    speed = finite_scalar(speed, "speed", max_abs=5.0)
    yaw_rate_ref = finite_scalar(yaw_rate, "yaw_rate", max_abs=10.0)
    yaw_torque = finite_scalar(yaw_torque, "yaw_torque", max_abs=100.0)
    t_switch, t_back = positive(t_switch, "t_switch"), positive(t_back, "t_back")
    if kind == "handover" and not t_switch < t_back < t_end:
        raise ValueError(f"need t_switch < t_back < t_end, got {t_switch!r}, {t_back!r}, {t_end!r}")
    landing = flag(landing, "landing")
    noise = finite_scalar(noise, "noise", max_abs=1.0)
    if noise < 0:
        raise ValueError(f"noise must be >= 0 (a standard deviation), got {noise!r}")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if gains is None:
        gains = Gains(leg_max=40.0) if kind == "landing" else Gains()
    if not isinstance(gains, Gains):
        raise ValueError(f"gains must be a robokin.scenarios.Gains, got {type(gains).__name__}")
    P, FB, G = params, fivebar, gains
    sched = _schedule(P)
    model = terrain_model(
        P,
        FB,
        slope=slope,
        cross_slope=cross_slope,
        step_height=step_height,
        friction=friction,
        tyre=tyre,
        tyre_width=tyre_width,
    )
    data = mujoco.MjData(model)
    L_start = 0.14 if kind == "landing" else L0
    # the leg starts vertical in the world (theta = slope before the rigid rotation), the body level with the ground
    place_robot(model, data, L0=L_start, slope=slope, cross_slope=cross_slope, theta=slope, params=P, fivebar=FB)
    rng = np.random.default_rng(int(seed))
    tid = model.body("torso").id
    wheels = [model.body(n).id for n in ("L_wheel", "R_wheel")]
    tyres = (model.geom("L_tyre").id, model.geom("R_tyre").id)
    Rg = _tilt(slope, cross_slope)
    n_g = Rg[:, 2]
    track = float(np.linalg.norm(data.xpos[wheels[0]] - data.xpos[wheels[1]]))
    R = P.R
    K0 = sched(L0)
    K_leg, D_leg = np.diag([G.kL, K0[1, 0] / 2]), np.diag([G.dL, K0[1, 1] / 2])
    m_up = P.m_b + 0.5 * P.m_l
    v6, dt = np.zeros(6), float(model.opt.timestep)
    st_ = {"mode": 0, "roll_i": 0.0, "joint": None, "offset": None, "t_off": 0.0, "air": 0, "flown": False}
    info: dict[str, Any] = dict(
        slope=slope, cross_slope=cross_slope, step_height=step_height, friction=friction, speed=speed, track=track
    )
    log = []

    def profile(t):
        if kind == "landing" and not st_["flown"]:
            return _quintic(t, 0.1, 0.2, 0.14, 0.34)
        return (L0, 0.0, 0.0)

    def vmc(t, st, s, dl):
        L, Ld, _ = profile(t)
        Lr = L + np.array([0.5, -0.5]) * dl
        T, Tp = -sched(np.clip(st["L0"].mean(), _LS[0], _LS[-1])) @ s
        F = m_up * P.g / (2 * np.cos(st["theta_b"])) + G.kL * (Lr - st["L0"]) + G.dL * (Ld - st["L0_dot"])
        split = G.k_split * np.diff(st["theta_b"])[0] + G.d_split * np.diff(st["theta_b_dot"])[0]
        Tp_side = Tp / 2 + np.array([split, -split]) / 2
        return T, F, Tp_side, wl.vmc_torques(FB, st["q"], F, Tp_side)

    speed_ref = wl.speed_reference(speed, t0=0.3, t1=1.3)  # chapter 4's smooth speed step and its integral

    def ctrl(t, d):
        st = sim.wheel_leg_state(model, d)
        s = st["s"] + (rng.normal(0.0, noise, 6) if noise else 0.0)
        if kind in ("step", "low_friction", "handover"):
            s = s - speed_ref(t)
        roll = st["roll"]
        st_["roll_i"] += G.ki_roll * roll * dt
        dl = -(G.kp_roll * roll + st_["roll_i"])
        N, Ft = _tyre_forces(model, d, tyres)
        slip, slip_x = [], []
        for w in wheels:
            mujoco.mj_objectVelocity(model, d, mujoco.mjtObj.mjOBJ_BODY, w, v6, 0)
            vc = v6[3:] + np.cross(v6[:3], -R * n_g)  # contact point (below the centre, along the normal)
            vt = vc - (vc @ n_g) * n_g
            slip.append(float(np.linalg.norm(vt)))
            slip_x.append(float(vt @ d.body(tid).xmat.reshape(3, 3)[:, 0]))  # along the heading
        T, F, Tp_side, tau = vmc(t, st, s, dl)
        tau = np.asarray(tau, dtype=float)
        mode = 0
        if kind == "handover" and t_switch - 1e-9 <= t:
            if st_["joint"] is None:  # the switch tick: hand over from the state now
                q, qd = st["q"], _motor_rates(model, d)
                if switch == "bumpless":
                    st_["joint"] = wl.joint_handover(FB, q, qd, F=F, Tp=Tp_side, K_leg=K_leg, D_leg=D_leg)
                else:
                    qs = wl.virtual_leg_inverse(FB, [L0, -0.5 * np.pi])
                    st_["joint"] = (np.stack([qs, qs]), np.zeros((2, 2)), 30.0 * np.eye(2), 1.0 * np.eye(2))
            q_ref, ff, Kq, Dq = st_["joint"]
            q, qd = st["q"], _motor_rates(model, d)
            tau_j = ff + np.einsum("...ij,...j->...i", Kq, q_ref - q) - np.einsum("...ij,...j->...i", Dq, qd)
            if t < t_back - 1e-9:
                tau, mode = tau_j, 1
            else:  # the way back: the difference of the two laws now is kept as an offset that decays
                if st_["offset"] is None:
                    st_["offset"], st_["t_off"] = tau_j - tau, t
                tau = tau + st_["offset"] * math.exp(-(t - st_["t_off"]) / 0.05)
        if kind == "landing" and landing:
            st_["air"] = st_["air"] + 1 if N <= 0.0 else 0
            if st_["mode"] == 0 and st_["air"] >= 3 and t > 0.1:
                st_["mode"], st_["flown"] = 1, True
                info.setdefault("t_flight", t)
            elif st_["mode"] == 1 and N > 0.0:
                st_["mode"] = 0
                info.setdefault("t_touchdown", t)
            if st_["mode"] == 1:  # landing mode: leg at L0 under the body, wheel speed matched to the ground
                Fa = G.kL * (L0 - st["L0"]) - G.dL * st["L0_dot"]
                Tpa = -(20.0 * st["theta_b"] + 1.0 * st["theta_b_dot"])
                tau = np.asarray(wl.vmc_torques(FB, st["q"], Fa, Tpa), dtype=float)
                mode = 1
        if kind == "landing" and not landing and t > 0.2:
            st_["flown"] = True  # after the jump profile the reference is L0
        dT = G.k_yaw * ((yaw_rate_ref if t >= 0.1 else 0.0) - st["yaw_rate"])
        if kind == "yaw" and yaw_torque:
            dT = yaw_torque if t >= 0.1 else 0.0
        wheel = np.array([T / 2 - dT / 2, T / 2 + dT / 2])
        if mode == 1 and kind == "landing":  # spin each wheel so its contact point stops: 1 N m per m/s of slip
            wheel = 1.0 * np.array(slip_x)
        u = np.r_[np.clip(tau.ravel(), -G.leg_max, G.leg_max), np.clip(wheel, -G.wheel_max, G.wheel_max)]
        log.append(
            np.r_[
                t,
                st["s"],
                st["L0"],
                roll,
                st["yaw_rate"],
                N,
                slip,
                d.xpos[wheels[0], 2],
                d.xpos[wheels[1], 2],
                u,
                mode,
                Ft / N if N > 0 else 0.0,
            ]
        )
        return u

    sim.run_controller(model, data, ctrl, t_end=t_end, rate=1.0 / model.opt.timestep)
    A = np.array(log)
    return ScenarioResult(
        kind=kind,
        t=A[:, 0],
        s=A[:, 1:7],
        L0=A[:, 7:9],
        roll=A[:, 9],
        yaw_rate=A[:, 10],
        normal_force=A[:, 11],
        slip=A[:, 12:14],
        wheel_z=A[:, 14:16],
        u=A[:, 16:22],
        mode=A[:, 22].astype(int),
        friction_use=A[:, 23],
        info=info,
    )


def _tyre_forces(model, data, tyres):
    """Total normal force (N) and magnitude of the total tangential force (N) of the tyres' contacts."""
    mujoco = sim.require_mujoco()
    f6, N, Ft = np.zeros(6), 0.0, np.zeros(3)
    for i in range(data.ncon):
        con = data.contact[i]
        if con.geom1 in tyres or con.geom2 in tyres:
            mujoco.mj_contactForce(model, data, i, f6)
            N += f6[0]
            Ft += con.frame.reshape(3, 3)[1:].T @ f6[1:3]  # tangential force in world coordinates
    return N, float(np.linalg.norm(Ft))


def _motor_rates(model, data):
    """Motor joint rates (rad/s), shape (2, 2): [[A, B] left, [A, B] right]."""
    return np.array([[data.qvel[model.joint(s + j).dofadr[0]] for j in ("motor_A", "motor_B")] for s in ("L_", "R_")])
