"""Real actuators and sensors (chapter 15): motor drives, encoders, a MuJoCo IMU and a pitch estimator.

The controller of a real robot does not see the engine's state. It sees quantised encoder angles and an IMU whose
gyro and accelerometer carry noise and bias, and it commands a current that the drive limits, that the motor's
back-EMF limits further at speed and that friction eats. This module holds those pieces as small frozen dataclasses
and pure functions, so that chapter 15 can put them between chapter 13's balance controller and the MuJoCo robot and
measure what each one changes.

- :class:`MotorDrive`: torque constant, current limit, the torque-speed line of a DC motor at its supply voltage,
  gear ratio and efficiency, rotor inertia, Coulomb and viscous friction; :meth:`MotorDrive.deliver` maps commanded
  joint torques and joint speeds to delivered joint torques and motor currents (batched). The torque-speed envelope is
  :class:`robokin.sim.MotorModel`'s (reused, not repeated).
- :func:`load_motor`: a motor parameter file (TOML) in which every value names its source.
- :class:`Encoder` and :func:`rate_filter_step`: quantisation and the velocity estimate from quantised angles.
- :func:`wheel_leg_imu_model`, :class:`ImuNoise`, :func:`read_imu`: MuJoCo's own ``gyro`` and ``accelerometer``
  sensors on the wheel-legged robot's torso, plus white noise and a constant bias.
- :func:`accel_pitch`, :func:`complementary_step`: pitch from the accelerometer, and the complementary filter that
  blends it with the integrated gyro.
- :func:`wheel_leg_encoder_state`: the leg angle, leg length and wheel position that the encoders (and the pitch
  estimate) give, the quantities chapter 13 read from the engine.

Units SI, angles in radians. Frames: the IMU site frame is the torso frame (``x`` forward, ``y`` left, ``z`` up);
pitch is the rotation about ``+y`` (``robokin.sim.wheel_leg_state``'s ``phi``).
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validate import as_array, finite_scalar, generator, integer, positive, text
from .sim import MotorModel, require_mujoco, wheel_leg_mjcf

__all__ = [
    "MotorDrive",
    "MotorFile",
    "load_motor",
    "parse_motor",
    "Encoder",
    "rate_filter_step",
    "ImuNoise",
    "wheel_leg_imu_model",
    "read_imu",
    "accel_pitch",
    "complementary_step",
    "complementary_bias_error",
    "pitch_kalman_model",
    "pitch_kalman_gain",
    "pitch_kalman_step",
    "PITCH_KALMAN_H",
    "KALMAN_DEGENERATE_RATIO",
    "wheel_leg_encoder_state",
    "WHEEL_LEG_JOINTS",
]

#: Joints of :func:`robokin.sim.wheel_leg_model` that carry a motor and an encoder, in actuator order.
WHEEL_LEG_JOINTS = ("L_motor_A", "L_motor_B", "R_motor_A", "R_motor_B", "L_wheel", "R_wheel")


# ----------------------------------------------------------------------------- motor and drive
@dataclass(frozen=True)
class MotorDrive:
    """A DC (or field-oriented brushless) motor behind a current-limited drive and a gearbox.

    Motor side: the torque is ``K_t i``; at supply voltage ``V`` and winding resistance ``R`` the motor equations
    ``V = R i + K_e omega`` and ``tau = K_t i`` (``K_e = K_t`` in SI units) give the torque-speed line
    ``tau <= tau_s (1 - omega / omega_0)`` with ``tau_s = K_t V / R`` and ``omega_0 = V / K_t`` (chapter 15 derives
    it). The drive limits the current to ``|i| <= current_limit``. Joint side: ``tau_joint = eta N K_t i`` minus
    friction ``coulomb sign(w) + viscous w`` at the joint speed ``w``; the motor turns at ``N w``.

    Parameters
    ----------
    torque_constant : float
        ``K_t`` (N m/A), motor side.
    current_limit : float
        Drive current limit (A), magnitude.
    stall_torque : float
        ``tau_s`` (N m), motor side, at the supply voltage.
    free_speed : float
        ``omega_0`` (rad/s), motor side, no-load speed at the supply voltage.
    gear_ratio : float
        ``N`` (motor turns per joint turn), >= 1 is usual, any positive value is accepted.
    efficiency : float
        Gearbox efficiency ``eta`` in (0, 1].
    rotor_inertia : float
        Rotor inertia (kg m^2), motor side; the joint sees ``N^2 J``.
    coulomb : float
        Coulomb friction torque (N m) at the joint, >= 0.
    viscous : float
        Viscous friction (N m s/rad) at the joint, >= 0.
    name : str
        A label (the motor's name in its file).

    Examples
    --------
    >>> drv = MotorDrive(0.1, 10.0, 2.0, 300.0, gear_ratio=10.0, efficiency=0.9)
    >>> drv.peak_joint_torque  # the current limit binds first: 0.9 * 10 * 0.1 * 10 A
    9.0
    >>> tau, i = drv.deliver([5.0, 50.0, -50.0], [0.0, 0.0, 15.0])
    >>> tau.round(6).tolist(), i.round(6).tolist()  # as asked; current-limited; on the line at half free speed
    ([5.0, 9.0, -9.0], [5.555556, 10.0, -10.0])
    """

    torque_constant: float
    current_limit: float
    stall_torque: float
    free_speed: float
    gear_ratio: float = 1.0
    efficiency: float = 1.0
    rotor_inertia: float = 0.0
    coulomb: float = 0.0
    viscous: float = 0.0
    name: str = ""

    def __post_init__(self):
        for f in ("torque_constant", "current_limit", "stall_torque", "free_speed", "gear_ratio"):
            object.__setattr__(self, f, positive(getattr(self, f), f))
        eta = positive(self.efficiency, "efficiency")
        if eta > 1:
            raise ValueError(f"efficiency is a gearbox efficiency in (0, 1], got {eta}")
        object.__setattr__(self, "efficiency", eta)
        for f in ("rotor_inertia", "coulomb", "viscous"):
            v = finite_scalar(getattr(self, f), f)
            if v < 0:
                raise ValueError(f"{f} must be >= 0, got {v}")
            object.__setattr__(self, f, v)
        text(self.name, "name")

    @classmethod
    def from_electrical(
        cls, *, torque_constant: float, supply_voltage: float, resistance: float, current_limit: float, **options
    ) -> MotorDrive:
        """The drive from the motor's electrical constants: ``tau_s = K_t V / R``, ``omega_0 = V / K_t``.

        ``options`` are the other fields (``gear_ratio``, ``efficiency``, ...). Raises ``ValueError`` naming a
        non-positive or non-finite argument.

        Examples
        --------
        >>> d = MotorDrive.from_electrical(torque_constant=0.05, supply_voltage=24.0, resistance=0.5, current_limit=20.0)
        >>> round(d.stall_torque, 9), round(d.free_speed, 9)
        (2.4, 480.0)
        """
        kt = positive(torque_constant, "torque_constant")
        V, R = positive(supply_voltage, "supply_voltage"), positive(resistance, "resistance")
        return cls(kt, current_limit, kt * V / R, V / kt, **options)

    @classmethod
    def from_output_ratings(
        cls,
        *,
        stall_torque: float,
        stall_current: float,
        free_speed: float,
        gear_ratio: float,
        efficiency: float,
        current_limit: float,
        **options,
    ) -> MotorDrive:
        """The drive from a gear motor's catalogue ratings, all at the gearbox output.

        ``stall_torque`` (N m) at ``stall_current`` (A) and the no-load ``free_speed`` (rad/s) are output values;
        the motor-side constants follow: ``tau_s = stall_torque / (eta N)``, ``omega_0 = N free_speed`` and
        ``K_t = stall_torque / (eta N stall_current)`` (so that the stall current gives the stall torque). With
        these ratings the efficiency cancels from every joint-side torque of :meth:`deliver`.

        Examples
        --------
        >>> d = MotorDrive.from_output_ratings(stall_torque=2.5, stall_current=4.0, free_speed=30.0, gear_ratio=10.0,
        ...                                    efficiency=0.8, current_limit=4.0)
        >>> round(d.torque_constant, 9), round(d.peak_joint_torque, 9)
        (0.078125, 2.5)
        """
        ts, ic = positive(stall_torque, "stall_torque"), positive(stall_current, "stall_current")
        N, eta = positive(gear_ratio, "gear_ratio"), positive(efficiency, "efficiency")
        w0 = positive(free_speed, "free_speed")
        return cls(ts / (eta * N * ic), current_limit, ts / (eta * N), N * w0, N, eta, **options)

    @property
    def envelope(self) -> MotorModel:
        """The torque-speed line as :class:`robokin.sim.MotorModel` (motor-side stall torque and free speed)."""
        return MotorModel(self.stall_torque, self.free_speed, self.efficiency, self.rotor_inertia)

    @property
    def joint_torque_per_amp(self) -> float:
        """``eta N K_t`` (N m/A): joint torque per motor amp."""
        return self.efficiency * self.gear_ratio * self.torque_constant

    @property
    def peak_joint_torque(self) -> float:
        """Largest joint torque at zero speed (N m): the smaller of the current limit's and the stall torque's."""
        return float(
            min(self.joint_torque_per_amp * self.current_limit, self.envelope.max_joint_torque(self.gear_ratio, 0.0))
        )

    @property
    def reflected_inertia(self) -> float:
        """``N^2 J_rotor`` (kg m^2): the rotor inertia seen at the joint."""
        return self.gear_ratio**2 * self.rotor_inertia

    def deliver(
        self,
        tau_cmd: ArrayLike,
        joint_speed: ArrayLike,
        *,
        friction: bool = True,
        current_limit: bool = True,
        torque_speed: bool = True,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Delivered joint torque (N m) and motor current (A) for commanded joint torques at joint speeds (rad/s).

        In order: the current the command asks for, ``tau_cmd / (eta N K_t)``, clipped to the current limit; the
        torque clipped to the torque-speed line at the motor speed ``N w`` (:meth:`robokin.sim.MotorModel.saturate`:
        the request's sign or zero, never more); then, with ``friction=True``, ``coulomb sign(w) + viscous w``
        subtracted (``sign(0) = 0``: at rest the Coulomb term is the engine's job, see
        :func:`robokin.actuators.MotorDrive.joint_options`). Shapes broadcast; both outputs have the broadcast shape.
        ``current_limit=False`` or ``torque_speed=False`` switches that limit off (an intervention: chapter 15 runs
        the same manoeuvre with each limit on and off); with both off the drive is an ideal torque source.

        Raises
        ------
        ValueError
            Non-finite or non-real ``tau_cmd``/``joint_speed``, or shapes that do not broadcast.

        Examples
        --------
        >>> drv = MotorDrive(0.1, 10.0, 2.0, 300.0, gear_ratio=10.0)
        >>> both, no_line, no_cap = ({}, {"torque_speed": False}, {"current_limit": False})
        >>> [round(float(drv.deliver(50.0, 20.0, **k)[0]), 4) for k in (both, no_line, no_cap)]  # line 2/3 of free
        [6.6667, 10.0, 6.6667]
        >>> float(drv.deliver(50.0, 20.0, current_limit=False, torque_speed=False)[0])  # an ideal torque source
        50.0
        """
        for flag, v in (("current_limit", current_limit), ("torque_speed", torque_speed)):
            if not isinstance(v, (bool, np.bool_)):
                raise ValueError(f"{flag} switches a limit on or off and must be True or False, got {v!r}")
        tau = as_array(tau_cmd, "tau_cmd")
        w = as_array(joint_speed, "joint_speed")
        try:
            shape = np.broadcast_shapes(tau.shape, w.shape)
        except ValueError:
            raise ValueError(f"tau_cmd {tau.shape} and joint_speed {w.shape} must broadcast") from None
        tau, w = np.broadcast_to(tau, shape), np.broadcast_to(w, shape)
        kj = self.joint_torque_per_amp
        i = np.clip(tau / kj, -self.current_limit, self.current_limit) if current_limit else tau / kj
        tau_m = kj * i
        if torque_speed:
            tau_m = np.asarray(self.envelope.saturate(tau_m, self.gear_ratio, w), dtype=float).reshape(shape)
        i = tau_m / kj
        if friction:
            tau_m = tau_m - self.coulomb * np.sign(w) - self.viscous * w
        return tau_m, i

    def joint_options(self) -> dict[str, float]:
        """MuJoCo joint attributes that model the rest in the engine: ``armature`` = ``N^2 J``,
        ``damping`` = ``viscous``, ``frictionloss`` = ``coulomb`` (MuJoCo's dry friction, which sticks at rest).

        Examples
        --------
        >>> MotorDrive(0.1, 10.0, 2.0, 300.0, gear_ratio=10.0, rotor_inertia=1e-5, coulomb=0.05).joint_options()
        {'armature': 0.001, 'damping': 0.0, 'frictionloss': 0.05}
        """
        return {"armature": float(self.reflected_inertia), "damping": self.viscous, "frictionloss": self.coulomb}


# ----------------------------------------------------------------------------- the parameter file
#: Fields of a motor file: name -> (unit conversions to SI, required). Each field is a table with ``value``, ``unit``
#: and ``source`` (where the number comes from, or "assumed for this example: <reason>").
_UNITS = {
    "stall_torque": {"N m": 1.0},
    "stall_current": {"A": 1.0},
    "free_speed": {"rad/s": 1.0, "rpm": 2 * math.pi / 60},
    "gear_ratio": {"-": 1.0},
    "efficiency": {"-": 1.0},
    "current_limit": {"A": 1.0},
    "rotor_inertia": {"kg m^2": 1.0, "g cm^2": 1e-7},
    "coulomb_friction": {"N m": 1.0},
    "viscous_friction": {"N m s/rad": 1.0},
    "encoder_counts": {"counts/rev": 1.0},
}
_OPTIONAL = {"rotor_inertia": 0.0, "coulomb_friction": 0.0, "viscous_friction": 0.0}
#: What each field's value must be (checked on the file's own number, so that an error names the file's field).
_POSITIVE = ("stall_torque", "stall_current", "free_speed", "gear_ratio", "efficiency", "current_limit")
_NONNEGATIVE = ("rotor_inertia", "coulomb_friction", "viscous_friction")
#: The keys of a field's table.
_FIELD_KEYS = ("value", "unit", "source")
#: A source that says the value is assumed must use this prefix and give the reason after it.
ASSUMED_PREFIX = "assumed for this example:"


@dataclass(frozen=True)
class MotorFile:
    """A motor parameter file, read: the drive, the motor-side encoder and where every value comes from.

    ``values`` holds each field in SI units, ``sources`` each field's ``source`` text, ``assumed`` the fields whose
    source starts with "assumed".
    """

    drive: MotorDrive
    encoder: Encoder
    values: dict[str, float] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    page: str = ""

    @property
    def assumed(self) -> tuple[str, ...]:
        return tuple(k for k, s in self.sources.items() if s.lower().startswith("assumed"))


def parse_motor(data: dict[str, Any], *, where: str = "motor file") -> MotorFile:
    """Build a :class:`MotorFile` from the parsed TOML of a motor file (see :func:`load_motor` for the format).

    Raises
    ------
    ValueError
        A missing ``[motor]`` table or field, a field that is not a table with ``value``, ``unit`` and a non-empty
        ``source``, an unknown key in a field's table, a source that says "assumed" without the form
        "assumed for this example: <reason>", an unknown field or unit, or a value out of its range (the stall point,
        speed, ratio, efficiency and current limit positive, the efficiency at most 1, the inertia and friction
        ``>= 0``, the encoder counts a whole number ``>= 1``); the message names the file and the file's field.

    Examples
    --------
    >>> src = {"source": "assumed for this example: a doctest"}
    >>> f = {k: {"value": v, "unit": u, **src} for k, v, u in [("stall_torque", 2.0, "N m"), ("stall_current", 4.0, "A"),
    ...      ("free_speed", 300.0, "rpm"), ("gear_ratio", 10, "-"), ("efficiency", 0.9, "-"),
    ...      ("current_limit", 4.0, "A"), ("encoder_counts", 8192, "counts/rev")]}
    >>> mf = parse_motor({"motor": {"name": "demo", **f}})
    >>> round(mf.values["free_speed"], 6), mf.encoder.counts_per_rev, len(mf.assumed)
    (31.415927, 8192, 10)
    >>> parse_motor({"motor": {"name": "demo", **{**f, "gear_ratio": {"value": 10, "unit": "-"}}}})
    Traceback (most recent call last):
    ValueError: motor file: field [motor.gear_ratio] needs a non-empty `source` (where the value comes from, or 'assumed for this example: <reason>')
    """
    if not isinstance(data, dict) or not isinstance(data.get("motor"), dict):
        raise ValueError(f"{where}: needs a [motor] table")
    m = data["motor"]
    name = m.get("name", "")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{where}: field [motor].name must be a non-empty string")
    page = m.get("page", "")
    if not isinstance(page, str):
        raise ValueError(f"{where}: field [motor].page must be a string (the URL or document the values come from)")
    unknown = sorted(set(m) - set(_UNITS) - {"name", "page", "note"})
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {unknown} in [motor]; known: {sorted(_UNITS)}")
    values, sources = {}, {}
    for key, units in _UNITS.items():
        if key not in m:
            if key in _OPTIONAL:
                values[key], sources[key] = _OPTIONAL[key], "assumed for this example: not given (zero)"
                continue
            raise ValueError(f"{where}: missing field [motor.{key}] (a table with value, unit and source)")
        ent = m[key]
        if not isinstance(ent, dict) or "value" not in ent or "unit" not in ent:
            raise ValueError(f"{where}: field [motor.{key}] must be a table with `value`, `unit` and `source`")
        extra = sorted(set(ent) - set(_FIELD_KEYS))
        if extra:
            raise ValueError(f"{where}: unknown key(s) {extra} in field [motor.{key}]; known: {list(_FIELD_KEYS)}")
        src = ent.get("source")
        if not isinstance(src, str) or not src.strip():
            raise ValueError(
                f"{where}: field [motor.{key}] needs a non-empty `source` (where the value comes from, or "
                f"'{ASSUMED_PREFIX} <reason>')"
            )
        src = src.strip()
        if src.lower().startswith("assumed") and (
            not src.lower().startswith(ASSUMED_PREFIX) or len(src[len(ASSUMED_PREFIX) :].strip()) < 3
        ):
            raise ValueError(
                f"{where}: field [motor.{key}].source {src!r} says the value is assumed but not why; write "
                f"'{ASSUMED_PREFIX} <reason>'"
            )
        if ent["unit"] not in units:
            raise ValueError(f"{where}: field [motor.{key}].unit is {ent['unit']!r}; use one of {sorted(units)}")
        v = ent["value"]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"{where}: field [motor.{key}].value must be a finite number, got {v!r}")
        if key in _POSITIVE and v <= 0:
            raise ValueError(f"{where}: field [motor.{key}].value must be > 0, got {v!r}")
        if key in _NONNEGATIVE and v < 0:
            raise ValueError(f"{where}: field [motor.{key}].value must be >= 0, got {v!r}")
        if key == "efficiency" and v > 1:
            raise ValueError(f"{where}: field [motor.efficiency].value is a gearbox efficiency in (0, 1], got {v!r}")
        if key == "encoder_counts" and (v != int(v) or v < 1 or v > 2**40):
            raise ValueError(f"{where}: field [motor.encoder_counts].value must be a whole number >= 1, got {v!r}")
        values[key], sources[key] = float(v) * units[ent["unit"]], src
    try:
        drive = MotorDrive.from_output_ratings(
            stall_torque=values["stall_torque"],
            stall_current=values["stall_current"],
            free_speed=values["free_speed"],
            gear_ratio=values["gear_ratio"],
            efficiency=values["efficiency"],
            current_limit=values["current_limit"],
            rotor_inertia=values["rotor_inertia"],
            coulomb=values["coulomb_friction"],
            viscous=values["viscous_friction"],
            name=name,
        )
        encoder = Encoder(int(values["encoder_counts"]), gear_ratio=values["gear_ratio"])
    except ValueError as e:
        raise ValueError(f"{where}: {e} (check the [motor] fields)") from None
    return MotorFile(drive, encoder, values, sources, page)


def load_motor(path: str | Path) -> MotorFile:
    """Read a motor parameter file (TOML, ``tomllib``).

    Format: one ``[motor]`` table with ``name``, optional ``page`` (the document the values come from) and the fields
    ``stall_torque`` (N m), ``stall_current`` (A), ``free_speed`` (rpm or rad/s), ``gear_ratio``, ``efficiency``,
    ``current_limit`` (A), ``encoder_counts`` (counts/rev, on the motor shaft) and optionally ``rotor_inertia``
    (g cm^2 or kg m^2, motor side), ``coulomb_friction`` (N m, joint side), ``viscous_friction`` (N m s/rad, joint
    side). Torques and speeds are at the gearbox output, as catalogues list them. Each field is an inline table
    ``{ value = ..., unit = "...", source = "..." }``; the source names where the number comes from, or starts with
    "assumed for this example:" and gives the reason.

    Raises
    ------
    ValueError
        The file is missing or is not valid TOML, or any field error of :func:`parse_motor` (naming the field).

    Examples
    --------
    >>> from pathlib import Path
    >>> mf = load_motor(Path(__file__).resolve().parent.parent / "examples/motors/motor_mg4005.toml")
    >>> mf.drive.gear_ratio, round(mf.drive.peak_joint_torque, 6)
    (10.0, 2.5)
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise ValueError(f"motor file {p}: cannot be read ({e.strerror})") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"motor file {p}: not valid TOML ({e})") from None
    return parse_motor(data, where=f"motor file {p.name}")


# ----------------------------------------------------------------------------- encoder
@dataclass(frozen=True)
class Encoder:
    """An incremental (or absolute) encoder with ``counts_per_rev`` counts per turn of the shaft it sits on.

    On the motor side (``gear_ratio`` N) one count is ``2 pi / (counts_per_rev N)`` of joint angle. The count is
    the floor of the angle over the step (a count changes at each edge), so the quantised angle lies in
    ``(angle - step, angle]`` and a finite difference over ``dt`` is off the mean rate by less than ``step / dt``.

    Examples
    --------
    >>> enc = Encoder(8192, gear_ratio=10.0)
    >>> round(enc.step * 1e6, 3)  # micro-radians of joint angle per count
    76.699
    >>> enc.counts([0.0, 1e-4, -1e-4]).tolist()
    [0, 1, -2]
    """

    counts_per_rev: int
    gear_ratio: float = 1.0

    def __post_init__(self):
        object.__setattr__(
            self, "counts_per_rev", integer(self.counts_per_rev, "counts_per_rev", minimum=1, maximum=2**40)
        )
        object.__setattr__(self, "gear_ratio", positive(self.gear_ratio, "gear_ratio"))

    @property
    def step(self) -> float:
        """Joint angle of one count (rad)."""
        return 2 * math.pi / (self.counts_per_rev * self.gear_ratio)

    def counts(self, angle: ArrayLike) -> np.ndarray:
        """Counts (int64) of joint angles (rad), any shape."""
        return np.floor(as_array(angle, "angle") / self.step).astype(np.int64)

    def quantise(self, angle: ArrayLike) -> np.ndarray:
        """The joint angle the encoder reports (rad): ``counts * step``."""
        return self.counts(angle) * self.step

    def rate_error_bound(self, dt: float) -> float:
        """``step / dt`` (rad/s): the bound on a finite difference's error against the mean rate over ``dt``."""
        return self.step / positive(dt, "dt")


def rate_filter_step(
    prev_angle: ArrayLike, prev_rate: ArrayLike, angle: ArrayLike, *, dt: float, tau: float = 0.0
) -> np.ndarray:
    """One step of a rate estimate from sampled angles: the finite difference, low-passed with time constant ``tau``.

    ``r_k = a r_{k-1} + (1 - a) (angle_k - angle_{k-1}) / dt`` with ``a = tau / (tau + dt)`` (``tau = 0``: the raw
    difference). A steady rate passes unchanged; white noise of variance ``s^2`` on the difference leaves
    ``s^2 (1 - a) / (1 + a)`` on the estimate. Shapes broadcast.

    Examples
    --------
    >>> float(rate_filter_step(0.0, 0.0, 0.01, dt=1e-3))
    10.0
    >>> round(float(rate_filter_step(0.0, 0.0, 0.01, dt=1e-3, tau=9e-3)), 12)  # a tenth of the jump
    1.0
    """
    dt = positive(dt, "dt")
    tau = finite_scalar(tau, "tau")
    if tau < 0:
        raise ValueError(f"tau is a time constant (s) and must be >= 0, got {tau}")
    a = tau / (tau + dt)
    d = (as_array(angle, "angle") - as_array(prev_angle, "prev_angle")) / dt
    return a * as_array(prev_rate, "prev_rate") + (1.0 - a) * d


# ----------------------------------------------------------------------------- IMU
@dataclass(frozen=True)
class ImuNoise:
    """White noise (standard deviation per sample) and constant bias of a 3-axis gyro and accelerometer.

    ``gyro_sigma`` (rad/s), ``gyro_bias`` (3,) rad/s, ``accel_sigma`` (m/s^2), ``accel_bias`` (3,) m/s^2, in the IMU
    site frame. The default is a perfect IMU.

    Examples
    --------
    >>> ImuNoise(gyro_bias=(0.0, 0.01, 0.0)).gyro_bias.tolist()
    [0.0, 0.01, 0.0]
    """

    gyro_sigma: float = 0.0
    gyro_bias: Any = (0.0, 0.0, 0.0)
    accel_sigma: float = 0.0
    accel_bias: Any = (0.0, 0.0, 0.0)

    def __post_init__(self):
        for f in ("gyro_sigma", "accel_sigma"):
            v = finite_scalar(getattr(self, f), f)
            if v < 0:
                raise ValueError(f"{f} is a standard deviation and must be >= 0, got {v}")
            object.__setattr__(self, f, v)
        for f in ("gyro_bias", "accel_bias"):
            b = as_array(getattr(self, f), f, trailing=(3,))
            if b.shape != (3,):
                raise ValueError(f"{f} must be a 3-vector (IMU frame), got shape {b.shape}")
            b.setflags(write=False)
            object.__setattr__(self, f, b)


def wheel_leg_imu_model(params: Any, fivebar: Any, *, imu_pos: ArrayLike = (0.0, 0.0, 0.0), **options) -> Any:
    """:func:`robokin.sim.wheel_leg_model` with an IMU: a site ``imu`` on the torso and MuJoCo's sensors on it.

    The MJCF of :func:`robokin.sim.wheel_leg_mjcf` (``options`` are passed on) is edited through ``mujoco.MjSpec``:
    a site ``imu`` at ``imu_pos`` (m, torso frame, axes aligned with the torso) and two sensors, ``gyro`` (angular
    velocity, rad/s, site frame) and ``accel`` (``accelerometer``: specific force, linear acceleration minus
    gravity, m/s^2, site frame; at rest it reads ``+g`` upwards). ``sensordata[0:3]`` is the gyro,
    ``sensordata[3:6]`` the accelerometer.

    Raises
    ------
    ValueError
        A bad ``imu_pos`` (not a finite 3-vector) or any option error of :func:`robokin.sim.wheel_leg_mjcf`.

    Examples
    --------
    >>> from robokin.robots import WHEEL_LEG, WHEEL_LEG_FIVEBAR
    >>> m = wheel_leg_imu_model(WHEEL_LEG, WHEEL_LEG_FIVEBAR)
    >>> int(m.nsensor), int(m.sensor("gyro").adr[0]), int(m.sensor("accel").adr[0])
    (2, 0, 3)
    """
    mujoco = require_mujoco()
    pos = as_array(imu_pos, "imu_pos", trailing=(3,))
    if pos.shape != (3,):
        raise ValueError(f"imu_pos must be a 3-vector (m, torso frame), got shape {pos.shape}")
    spec = mujoco.MjSpec.from_string(wheel_leg_mjcf(params, fivebar, **options))
    spec.body("torso").add_site(name="imu", pos=pos.tolist())
    site = mujoco.mjtObj.mjOBJ_SITE
    spec.add_sensor(name="gyro", type=mujoco.mjtSensor.mjSENS_GYRO, objtype=site, objname="imu")
    spec.add_sensor(name="accel", type=mujoco.mjtSensor.mjSENS_ACCELEROMETER, objtype=site, objname="imu")
    return spec.compile()


def read_imu(data: Any, noise: ImuNoise, rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Gyro (rad/s) and accelerometer (m/s^2) readings of a :func:`wheel_leg_imu_model`, with noise and bias.

    ``sensordata[0:3] + gyro_bias + N(0, gyro_sigma^2)`` and ``sensordata[3:6] + accel_bias + N(0,
    accel_sigma^2)``; ``rng`` (a ``numpy.random.Generator``) is needed when a sigma is non-zero. The accelerometer
    reading depends on the accelerations, so ``data`` must be after ``mj_step`` or ``mj_forward``.

    Raises
    ------
    ValueError
        ``noise`` not an :class:`ImuNoise`, ``data`` without the model's 6 finite sensor values, or ``rng`` not a
        generator (or None while a sigma is non-zero).
    """
    if not isinstance(noise, ImuNoise):
        raise ValueError(f"noise must be a robokin.actuators.ImuNoise, got {type(noise).__name__}")
    sd = np.asarray(getattr(data, "sensordata", None), dtype=float)
    if sd.shape[:1] != (6,) or not np.all(np.isfinite(sd)):
        raise ValueError("data must be MjData of a wheel_leg_imu_model (6 finite sensor values: gyro, accel)")
    g, a = sd[0:3] + noise.gyro_bias, sd[3:6] + noise.accel_bias
    if noise.gyro_sigma or noise.accel_sigma:
        rng = generator(rng, "rng")
        if rng is None:
            raise ValueError(
                "rng must be a numpy.random.Generator when the noise has a non-zero sigma "
                f"(gyro_sigma={noise.gyro_sigma}, accel_sigma={noise.accel_sigma}): pass np.random.default_rng(seed)"
            )
        g = g + rng.normal(0.0, noise.gyro_sigma, 3)
        a = a + rng.normal(0.0, noise.accel_sigma, 3)
    return g, a


def accel_pitch(accel: ArrayLike) -> np.ndarray:
    """Pitch (rad, about ``+y``) from accelerometer readings (..., 3) in the body frame:
    ``atan2(-f_x, sqrt(f_y^2 + f_z^2))``.

    Exact, at any roll, when the specific force is gravity's reaction alone (``f = R^T [0, 0, g]`` with ``R`` of
    yaw-pitch-roll angles, the body not accelerating): ``f = g [-sin phi, cos phi sin psi, cos phi cos psi]`` at
    pitch ``phi`` and roll ``psi``. The shorter ``atan2(-f_x, f_z)`` gives ``atan2(sin phi, cos phi cos psi)``
    instead, exact only at zero roll. A forward acceleration ``a`` tilts the estimate by ``-atan(a / g)`` (chapter
    15's pitfall). The pitch returned lies in ``[-pi/2, pi/2]``.

    Examples
    --------
    >>> phi, psi = 0.1, 0.3
    >>> f = 9.81 * np.array([-np.sin(phi), np.cos(phi) * np.sin(psi), np.cos(phi) * np.cos(psi)])
    >>> round(float(accel_pitch(f)), 12)
    0.1
    """
    f = as_array(accel, "accel", trailing=(3,))
    return np.arctan2(-f[..., 0], np.hypot(f[..., 1], f[..., 2]))


def complementary_step(pitch: ArrayLike, rate: ArrayLike, pitch_acc: ArrayLike, *, dt: float, tau: float) -> np.ndarray:
    """One step of the complementary filter: ``a (pitch + rate dt) + (1 - a) pitch_acc``, ``a = tau / (tau + dt)``.

    ``rate`` is the gyro's pitch rate (rad/s), ``pitch_acc`` the accelerometer's pitch (:func:`accel_pitch`). Its
    transfer function is ``tau s / (tau s + 1)`` on the integrated gyro plus ``1 / (tau s + 1)`` on the accelerometer;
    a constant gyro bias ``b`` leaves a steady error ``tau b`` (:func:`complementary_bias_error`). ``tau = inf`` is
    not accepted (pure integration drifts without bound); shapes broadcast.

    Examples
    --------
    >>> p = 0.0
    >>> for _ in range(20000):  # 20 s at 1 kHz of a level, still body with a 0.01 rad/s gyro bias
    ...     p = complementary_step(p, 0.01, 0.0, dt=1e-3, tau=0.5)
    >>> round(float(p), 6)  # tau * bias
    0.005
    """
    dt, tau = positive(dt, "dt"), positive(tau, "tau")
    a = tau / (tau + dt)
    return a * (as_array(pitch, "pitch") + as_array(rate, "rate") * dt) + (1.0 - a) * as_array(pitch_acc, "pitch_acc")


def pitch_kalman_model(dt: float, *, accel_psd: float, bias_psd: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Discrete model ``x_{k+1} = F x_k + w_k``, ``cov(w_k) = Q`` of the pitch Kalman filter, state
    ``x = [pitch (rad), pitch rate (rad/s), gyro bias (rad/s)]``.

    The pitch acceleration is white noise of spectral density ``accel_psd`` ((rad/s^2)^2 s) and the bias a random
    walk of density ``bias_psd`` ((rad/s)^2/s); sampling the continuous model over ``dt`` gives
    ``F = [[1, dt, 0], [0, 1, 0], [0, 0, 1]]`` and ``Q = accel_psd [[dt^3/3, dt^2/2, 0], [dt^2/2, dt, 0], [0, 0, 0]]
    + bias_psd dt e3 e3^T`` (chapter 15 derives both with sympy). The measurements are ``H x`` with
    ``H = [[1, 0, 0], [0, 1, 1]]``: the accelerometer's pitch and the gyro's rate plus its bias.

    Examples
    --------
    >>> F, Q = pitch_kalman_model(0.1, accel_psd=3.0)
    >>> F[0].tolist(), Q[:2, :2].round(6).tolist()
    ([1.0, 0.1, 0.0], [[0.001, 0.015], [0.015, 0.3]])
    """
    dt, q = positive(dt, "dt"), positive(accel_psd, "accel_psd")
    qb = finite_scalar(bias_psd, "bias_psd")
    if qb < 0:
        raise ValueError(f"bias_psd must be >= 0, got {qb}")
    F = np.array([[1.0, dt, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    Q = np.zeros((3, 3))
    Q[:2, :2] = q * np.array([[dt**3 / 3, dt**2 / 2], [dt**2 / 2, dt]])
    Q[2, 2] = qb * dt
    return F, Q


#: Measurement matrix of :func:`pitch_kalman_model`: rows accelerometer pitch, gyro rate.
PITCH_KALMAN_H = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]])


class PitchKalmanGain(np.ndarray):
    """A (3, 2) steady-state gain of :func:`pitch_kalman_gain` that remembers the tick ``dt`` (s) it was solved for;
    :func:`pitch_kalman_step` refuses a different ``dt``. Otherwise a plain array."""

    dt: float | None

    def __new__(cls, K: np.ndarray, dt: float) -> PitchKalmanGain:
        obj = np.asarray(K, float).view(cls)
        obj.dt = float(dt)
        return obj

    def __array_finalize__(self, obj: Any) -> None:
        self.dt = getattr(obj, "dt", None)


#: Below this ratio of a measurement's variance to its innovation variance the gain just copies that measurement
#: and the Riccati solution loses its accuracy: :func:`pitch_kalman_gain` warns.
KALMAN_DEGENERATE_RATIO = 1e-9


def pitch_kalman_gain(
    dt: float, *, accel_psd: float, bias_psd: float, pitch_sigma: float, gyro_sigma: float
) -> PitchKalmanGain:
    """Steady-state Kalman gain (3, 2) of :func:`pitch_kalman_model` with measurement noise ``pitch_sigma`` (rad,
    the accelerometer's pitch) and ``gyro_sigma`` (rad/s), white and independent (``R = diag(pitch_sigma^2,
    gyro_sigma^2)``): ``K = P H^T (H P H^T + R)^-1`` with ``P`` the predicted covariance of the discrete Riccati
    equation. Use it in :func:`pitch_kalman_step`; the gain remembers ``dt`` (``PitchKalmanGain``).

    A sigma whose square underflows (R singular) raises ``ValueError``; a sigma so small against the predicted
    spread that the gain only copies that measurement (variance ratio below :data:`KALMAN_DEGENERATE_RATIO`) gives
    a ``RuntimeWarning``: such a gain is degenerate, not a filter.

    Examples
    --------
    >>> K = pitch_kalman_gain(1e-3, accel_psd=10.0, bias_psd=1e-6, pitch_sigma=0.005, gyro_sigma=0.005)
    >>> K.shape, bool(0 < K[0, 0] < 1 and 0 < K[1, 1] < 1), K.dt
    ((3, 2), True, 0.001)
    """
    import warnings

    from scipy.linalg import solve_discrete_are

    F, Q = pitch_kalman_model(dt, accel_psd=accel_psd, bias_psd=bias_psd)
    sig = {"pitch_sigma": positive(pitch_sigma, "pitch_sigma"), "gyro_sigma": positive(gyro_sigma, "gyro_sigma")}
    for name, v in sig.items():
        if not v * v >= np.finfo(float).tiny:
            raise ValueError(f"{name} = {v:g}: its square underflows, R would be singular; give a larger {name}")
    R = np.diag([sig["pitch_sigma"] ** 2, sig["gyro_sigma"] ** 2])
    H = PITCH_KALMAN_H
    P = solve_discrete_are(F.T, H.T, Q, R)
    S = H @ P @ H.T + R
    for i, name in enumerate(sig):
        if R[i, i] < KALMAN_DEGENERATE_RATIO * S[i, i]:
            warnings.warn(
                f"{name} = {sig[name]:g} is negligible against the predicted spread (variance ratio "
                f"{R[i, i] / S[i, i]:.1e}): the gain only copies that measurement (degenerate)",
                RuntimeWarning,
                stacklevel=2,
            )
    K = P @ H.T @ np.linalg.inv(S)
    if not np.all(np.isfinite(K)):
        raise ValueError("pitch_kalman_gain: the Riccati solution is not finite for these noise levels")
    return PitchKalmanGain(K, F[0, 1])


def pitch_kalman_step(
    state: ArrayLike, rate: ArrayLike, pitch_acc: ArrayLike, *, dt: float, gain: ArrayLike
) -> np.ndarray:
    """One step of the steady-state pitch Kalman filter: predict ``F x``, correct with
    ``gain @ ([pitch_acc, rate] - H F x)``.

    ``state`` (..., 3) is ``[pitch, pitch rate, gyro bias]`` (rad, rad/s, rad/s), ``rate`` the gyro's pitch rate and
    ``pitch_acc`` the accelerometer's pitch (:func:`accel_pitch`); their batch shapes broadcast (else ``ValueError``
    naming the three). ``gain`` from :func:`pitch_kalman_gain` at the same ``dt``: a ``PitchKalmanGain`` with
    another ``dt`` raises ``ValueError`` (a plain (3, 2) array is taken as solved for this ``dt``). Returns the new
    state (..., 3).

    Examples
    --------
    >>> K = pitch_kalman_gain(1e-3, accel_psd=10.0, bias_psd=1e-6, pitch_sigma=0.005, gyro_sigma=0.005)
    >>> x = np.zeros(3)
    >>> for _ in range(30000):  # 30 s of a still body at 0.1 rad, gyro bias 0.01 rad/s
    ...     x = pitch_kalman_step(x, 0.01, 0.1, dt=1e-3, gain=K)
    >>> (x.round(4) + 0.0).tolist()  # the bias is estimated, the pitch has no steady error
    [0.1, 0.0, 0.01]
    """
    dt = positive(dt, "dt")
    gain_dt = getattr(gain, "dt", None)
    if gain_dt is not None and not math.isclose(dt, gain_dt, rel_tol=1e-9):
        raise ValueError(f"dt = {dt:g} s but the gain was solved for dt = {gain_dt:g} s (pitch_kalman_gain)")
    x = as_array(state, "state", trailing=(3,))
    K = as_array(gain, "gain")
    if K.shape != (3, 2):
        raise ValueError(f"gain must have shape (3, 2) (pitch_kalman_gain), got {K.shape}")
    pa, w = as_array(pitch_acc, "pitch_acc"), as_array(rate, "rate")
    try:
        np.broadcast_shapes(x.shape[:-1], w.shape, pa.shape)
    except ValueError:
        raise ValueError(
            f"batch shapes do not broadcast: state {x.shape} (batch {x.shape[:-1]}), rate {w.shape}, "
            f"pitch_acc {pa.shape}"
        ) from None
    F, _ = pitch_kalman_model(dt, accel_psd=1.0)
    xp = x @ F.T
    z = np.stack(np.broadcast_arrays(pa, w), axis=-1)
    return xp + (z - xp @ PITCH_KALMAN_H.T) @ K.T


def complementary_bias_error(gyro_bias: ArrayLike, *, tau: float) -> np.ndarray:
    """Steady pitch error (rad) of :func:`complementary_step` under a constant gyro bias (rad/s): ``tau * bias``.

    Examples
    --------
    >>> float(complementary_bias_error(0.01, tau=0.5))
    0.005
    """
    return positive(tau, "tau") * as_array(gyro_bias, "gyro_bias")


# ----------------------------------------------------------------------------- the robot's encoder state
def wheel_leg_encoder_state(
    fivebar: Any, q_motor: ArrayLike, wheel_angle: ArrayLike, pitch: ArrayLike, *, R: float
) -> dict[str, np.ndarray]:
    """Leg angle, leg length and wheel position from encoder angles and a pitch estimate (chapter 13's geometry).

    Parameters
    ----------
    fivebar : robokin.fivebar.FiveBar
        The leg.
    q_motor : array_like, shape (..., 2, 2)
        Motor angles ``[[A, B] left, [A, B] right]`` (rad, five-bar convention, as the MuJoCo joints).
    wheel_angle : array_like, shape (..., 2)
        Wheel joint angles ``[left, right]`` (rad, about the wheel's ``+y`` axis, relative to shank CE).
    pitch : array_like, shape (...)
        Body pitch (rad, about ``+y``).
    R : float
        Wheel radius (m).

    Returns
    -------
    dict
        ``theta_b`` (..., 2): each leg's angle from the body's ``-z`` axis (rad, hip ahead of the wheel positive);
        ``L0`` (..., 2) m; ``x`` (..., 2): each wheel's rolled distance ``R (pitch - a_CE + wheel_angle)`` (m,
        zero at the pose where all three angles are zero), with ``a_CE`` the shank's angle in the leg plane (the
        wheel joint turns with the shank, the leg hinges turn about ``-y``).

    Examples
    --------
    >>> from robokin.robots import WHEEL_LEG_FIVEBAR
    >>> from robokin.wheel_leg import virtual_leg_inverse
    >>> q = virtual_leg_inverse(WHEEL_LEG_FIVEBAR, [0.2, -np.pi / 2 - 0.1])
    >>> st = wheel_leg_encoder_state(WHEEL_LEG_FIVEBAR, [q, q], [0.0, 0.0], 0.0, R=0.06)
    >>> st["theta_b"].round(9).tolist(), st["L0"].round(9).tolist()
    ([0.1, 0.1], [0.2, 0.2])
    """
    q = as_array(q_motor, "q_motor", trailing=(2, 2))
    wa = as_array(wheel_angle, "wheel_angle", trailing=(2,))
    ph = as_array(pitch, "pitch")
    R = positive(R, "R")
    J = fivebar.joints(q)  # (..., 2, 5, 2): A, B, C, D, E of each leg in the five-bar plane
    if np.isnan(J).any():
        fivebar.fk(q)  # raises UnreachableError with the reason
    C, E = J[..., 2, :], J[..., 4, :]
    r = E - np.array([0.5 * fivebar.d, 0.0])  # foot seen from the hip midpoint
    a_ce = np.arctan2(E[..., 1] - C[..., 1], E[..., 0] - C[..., 0])  # shank CE angle in the leg plane
    return {
        "theta_b": -0.5 * np.pi - np.arctan2(r[..., 1], r[..., 0]),
        "L0": np.hypot(r[..., 0], r[..., 1]),
        "x": R * (ph[..., None] - a_ce + wa),
    }
