"""The schema of every family and the builders that turn a parsed file into a design (internal to params).

Each builder reads its tables with :class:`~robokin.params._fields.Section`, checks what the mechanism's own
constructor cannot know (joint counts, closure, leg ranges) and calls the public constructor; a ``ValueError`` from
the constructor is re-raised as :class:`ParameterFileError` naming the table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..dynamics import TwoLinkArm
from ..fivebar import FiveBar
from ..leg2 import TwoLinkLeg
from ..mecanum import Mecanum
from ..serial import SerialArm, to_standard
from ..stewart import PlatformParams, Stewart, paired_layout, uniform_layout
from ..transforms import make_transform, rpy_to_matrix
from ..ur5 import UR5Arm, make_ur_arm, ur_geometry
from ..wheel_leg import WheelLegParams
from ._fields import Field, ParameterFileError, Section

F = Field


@dataclass(frozen=True, eq=False)
class Design:
    """A design read from a parameter file.

    Attributes
    ----------
    family : str
        One of ``FAMILIES``.
    name : str
        The file's ``name`` (its stem when absent).
    source : str
        The file the design was read from.
    mechanism : object
        The robokin object: ``TwoLinkLeg``, ``FiveBar``, ``WheelLegParams``, ``SerialArm`` (a ``URArm`` for
        UR-family tables), ``Stewart``, ``Mecanum`` or ``TwoLinkArm``.
    extra : dict
        Family data beyond the mechanism, in SI units (motor, gearbox, load, leg range, payload, ...); keys are
        the schema's field names without unit suffix, grouped by table (``extra["motor"]["stall_torque"]``).
    """

    family: str
    name: str
    source: str
    mechanism: Any
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class ContestTask:
    """A contest task: an arm design, a start configuration, target poses, obstacles and limits (SI).

    Attributes
    ----------
    arm : Design
        The arm (a ``serial_arm`` design).
    q_start : ndarray, shape (n,)
        Start configuration, rad.
    targets : ndarray, shape (k, 4, 4)
        Target tool poses in the world frame, in visiting order (via poses included).
    target_names : tuple of str
    is_via : ndarray of bool, shape (k,)
        True for via poses (waypoints added to clear an obstacle, not contest targets).
    spheres : ndarray, shape (m, 4)
        Obstacle spheres ``[x, y, z, radius]`` (m); ``(0, 4)`` when none.
    clearance : float
        Required distance of the tool origin from every obstacle surface, m.
    vmax, amax, jmax : ndarray, shape (n,)
        Joint speed (rad/s), acceleration (rad/s^2) and jerk (rad/s^3) limits; ``jmax`` may be None.
    weights : ndarray, shape (n,)
        Joint weights of the branch choice (weighted joint travel).
    decimals, time_decimals : int
        Rounding of the answer table (angles and peaks; times).
    """

    family: str
    name: str
    source: str
    arm: Design
    q_start: np.ndarray
    targets: np.ndarray
    target_names: tuple
    is_via: np.ndarray
    spheres: np.ndarray
    clearance: float
    vmax: np.ndarray
    amax: np.ndarray
    jmax: np.ndarray | None
    weights: np.ndarray
    decimals: int
    time_decimals: int

    @property
    def mechanism(self):
        """The arm's mechanism object (a ``SerialArm``)."""
        return self.arm.mechanism


# ---- schema ---------------------------------------------------------------------------------------------------
def _lengths(*names_docs, check="positive"):
    return [F(n, "length", d, check=check) for n, d in names_docs]


LEG = [
    *_lengths(("l1", "thigh length, hip to knee"), ("l2", "shank length, knee to foot")),
    F("q_min", "angle", "lower joint limits [hip, knee] within [-pi, pi]", (2,), required=False),
    F("q_max", "angle", "upper joint limits [hip, knee] within [-pi, pi]", (2,), required=False),
]
LINKAGE = _lengths(
    ("l1", "driving link AC at motor A (origin)"),
    ("l2", "driving link BD at motor B"),
    ("l3", "distal link CE"),
    ("l4", "distal link DE"),
    ("d", "motor spacing AB along x"),
)
MOTOR = [
    F("stall_torque", "torque", "motor stall torque (torque-speed line at zero speed)", check="positive"),
    F("no_load_speed", "angular_speed", "motor no-load speed (torque-speed line at zero torque)", check="positive"),
]
GEARBOX = [
    F(
        "ratio",
        "number",
        "reduction ratio (motor turns per output turn), checked against the feasible range",
        (),
        False,
        "positive",
    ),
    F("efficiency", "number", "gearbox efficiency in (0, 1]", required=False, check="unit_interval"),
]
FIVEBAR_LOAD = [
    F("body_mass", "mass", "robot mass carried by the legs", check="positive"),
    F("legs", "integer", "number of legs sharing the body mass (default 2)", required=False),
    F(
        "landing_factor",
        "number",
        "peak landing force as a multiple of the static leg load (default 3)",
        (),
        False,
        "positive",
    ),
    F("height_min", "length", "lowest foot height below the motors in the task", check="positive"),
    F("height_max", "length", "highest foot height below the motors in the task", check="positive"),
    F("switch_time", "time", "time of the quintic height switch from height_min to height_max", check="positive"),
]
FIVEBAR_WORKSPACE = [
    F("assembly", "string", "assembly mode of the foot", required=False, options=("down", "up")),
    F("margin", "length", "clearance from the workspace boundary for the safe workspace", (), False, "nonnegative"),
]
WL_BODY = [
    F("mass", "mass", "body mass with the hip motors", check="positive"),
    F("pitch_inertia", "inertia", "body pitch inertia about its centre of mass", check="positive"),
    F("com_height", "length", "height of the body centre of mass above the hip axis", check=None),
]
WL_LEG = [
    F("mass", "mass", "mass of both legs (uniform rods axle to hip)", check="positive"),
    F("length_min", "length", "shortest virtual leg length used", check="positive"),
    F("length_max", "length", "longest virtual leg length used", check="positive"),
]
WL_WHEEL = [
    F("mass", "mass", "mass of both wheels", check="positive"),
    F("spin_inertia", "inertia", "wheel spin inertia, at most mass * radius^2", check="positive"),
    F("radius", "length", "wheel radius", check="positive"),
]
WL_MOTOR = [
    F("hip_torque_max", "torque", "peak torque of one hip (leg) motor", check="positive"),
    F("wheel_torque_max", "torque", "peak torque of one wheel motor", check="positive"),
]
ENV = [F("gravity", "acceleration", "gravitational acceleration", required=False, check="positive")]
DH = [
    F("convention", "string", "DH convention", options=("standard", "modified")),
    F("a", "length", "link lengths a_i (modified: a_{i-1})", ("n",), check=None),
    F("alpha", "angle", "link twists alpha_i (modified: alpha_{i-1})", ("n",), check=None),
    F("d", "length", "link offsets d_i", ("n",), check=None),
    F("offset", "angle", "joint zero offsets, theta_i = q_i + offset_i", ("n",), required=False),
]
LIMITS = [
    F("q_min", "angle", "lower joint limits", ("n",)),
    F("q_max", "angle", "upper joint limits", ("n",)),
]
FRAME = [
    F("xyz", "length", "translation", (3,), required=False),
    F("rpy", "angle", "ZYX roll-pitch-yaw [roll, pitch, yaw]", (3,), required=False),
]
ST_LAYOUT = [
    F("kind", "string", "anchor layout", options=("paired", "uniform", "anchors")),
    F("base_radius", "length", "base anchor circle radius (paired, uniform)", required=False, check="positive"),
    F("top_radius", "length", "top anchor circle radius (paired, uniform)", required=False, check="positive"),
    F("base_pair_angle", "angle", "angle within a base anchor pair (paired)", required=False, check="positive"),
    F("top_pair_angle", "angle", "angle within a top anchor pair (paired)", required=False, check="positive"),
    F("phase", "angle", "top anchors' rotation from the base ones (uniform)", required=False),
    F("base_anchors", "length", "base anchors, one row per leg, world frame (anchors)", (6, 3), required=False),
    F("top_anchors", "length", "top anchors, one row per leg, platform frame (anchors)", (6, 3), required=False),
]
#: Per-link inertials of the engine model (``[links.<link>]``, robokin.params.engine): the link frame is the one the
#: engine model gives the link (its docstring); the inertia is about the centre of mass, in the link frame's axes.
LINK = [
    F("mass", "mass", "link mass", check="positive"),
    F("com", "length", "centre of mass in the link frame (default: halfway along the link)", (3,), False, None),
    F(
        "inertia",
        "inertia",
        "inertia about the centre of mass, link axes: `[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]` or a 3x3 array "
        "(default: a uniform rod)",
        (6,),
        False,
        None,
    ),
]
FOOT = [
    F("hub_mass", "mass", "hub motor (wheel) mass at the foot", check="positive"),
    F(
        "hub_radius",
        "length",
        "hub radius, for its disc inertia (default: a point mass)",
        required=False,
        check="positive",
    ),
]
FB_LIMITS = [
    F("q_min", "angle", "lower motor angle limits [motor A, motor B]", (2,)),
    F("q_max", "angle", "upper motor angle limits [motor A, motor B]", (2,)),
]
#: The links a ``[links.<link>]`` table may name, per family (``serial_arm``: ``link1`` ... ``linkN``).
LINK_NAMES = {
    "two_link_leg": ("thigh", "shank"),
    "fivebar": ("thigh_A", "shank_C", "thigh_B", "shank_D"),
    "serial_arm": None,
}
#: The table of the per-link inertials in SCHEMAS (one such table per link).
LINKS_TABLE = "links.<link>"

ST_STROKE = [
    F("min", "length", "shortest leg length", check="nonnegative"),
    F("max", "length", "longest leg length", check="positive"),
]
ST_PAYLOAD = [
    F("mass", "mass", "platform and payload mass", check="positive"),
    F("inertia", "inertia", "principal inertias about the centre [Ixx, Iyy, Izz]", (3,), check="positive"),
    F("leg_mass", "mass", "mass of one leg", required=False, check="nonnegative"),
]
ST_WORKSPACE = [F("home_z", "length", "platform height of the home pose", required=False, check="positive")]
CHASSIS = [
    F("wheel_radius", "length", "wheel radius to the roller contact", check="positive"),
    F("half_wheelbase", "length", "centre to the front axle along x (lx)", check="positive"),
    F("half_track", "length", "centre to a wheel contact along y (ly)", check="positive"),
    F("roller_angle", "angle", "roller axis to rolling direction, in (0, pi/2)", required=False, check="positive"),
    F("config", "string", "roller layout", required=False, options=("X", "O")),
]
MEC_MOTOR = [F("wheel_speed_max", "angular_speed", "largest wheel speed", check="positive")]
ARM2 = [
    F("m1", "mass", "link 1 mass", check="positive"),
    F("m2", "mass", "link 2 mass", check="positive"),
    *_lengths(("l1", "link 1 length"), ("l2", "link 2 length")),
    *_lengths(("lc1", "joint 1 to link 1 centre of mass"), ("lc2", "joint 2 to link 2 centre of mass")),
    F("I1", "inertia", "link 1 inertia about its centre of mass", check="positive"),
    F("I2", "inertia", "link 2 inertia about its centre of mass", check="positive"),
]
C_START = [F("q", "angle", "start configuration", ("n",))]
C_TARGET = [
    F("name", "string", "target name", required=False),
    F("xyz", "length", "tool position, world frame", (3,)),
    F("rpy", "angle", "tool orientation, ZYX roll-pitch-yaw", (3,)),
    F("via", "boolean", "a via pose added to clear an obstacle, not a contest target", required=False),
]
C_OBSTACLE = [
    F("kind", "string", "obstacle shape", options=("sphere",)),
    F("center", "length", "sphere centre, world frame", (3,), check=None),
    F("radius", "length", "sphere radius", check="positive"),
]
C_LIMITS = [
    F("qd_max", "angular_speed", "joint speed limits", ("n",), check="positive"),
    F("qdd_max", "angular_acceleration", "joint acceleration limits", ("n",), check="positive"),
    F("qddd_max", "angular_jerk", "joint jerk limits", ("n",), required=False, check="positive"),
    F("clearance", "length", "required tool distance from every obstacle surface", required=False, check=None),
]
C_PLAN = [
    F("joint_weights", "number", "weights of the branch choice (weighted joint travel)", ("n",), False, "positive"),
    F("decimals", "integer", "decimals of angles and peaks in the answer table (1..12)", required=False),
    F("time_decimals", "integer", "decimals of times in the answer table (0..6)", required=False),
]

#: Schema per family: ``[(table, fields), ...]``; ``""`` is the top level.
SCHEMAS: dict[str, list[tuple[str, list[Field]]]] = {
    "two_link_leg": [("leg", LEG), (LINKS_TABLE, LINK), ("foot", FOOT)],
    "fivebar": [
        ("linkage", LINKAGE),
        ("motor", MOTOR),
        ("gearbox", GEARBOX),
        ("load", FIVEBAR_LOAD),
        ("workspace", FIVEBAR_WORKSPACE),
        ("limits", FB_LIMITS),
        (LINKS_TABLE, LINK),
        ("foot", FOOT),
    ],
    "wheel_leg": [
        ("body", WL_BODY),
        ("leg", WL_LEG),
        ("wheel", WL_WHEEL),
        ("linkage", LINKAGE),
        ("motor", WL_MOTOR),
        ("environment", ENV),
    ],
    "serial_arm": [("dh", DH), ("limits", LIMITS), ("base", FRAME), ("tool", FRAME), (LINKS_TABLE, LINK)],
    "stewart": [("layout", ST_LAYOUT), ("stroke", ST_STROKE), ("payload", ST_PAYLOAD), ("workspace", ST_WORKSPACE)],
    "mecanum": [("chassis", CHASSIS), ("motor", MEC_MOTOR)],
    "two_link_arm": [("arm", ARM2), ("environment", ENV)],
    "contest": [
        ("", [F("arm", "string", "path of the arm's serial_arm file, relative to this file")]),
        ("start", C_START),
        ("target", C_TARGET),
        ("obstacle", C_OBSTACLE),
        ("limits", C_LIMITS),
        ("plan", C_PLAN),
    ],
}
#: Tables that must be present (the others are optional).
REQUIRED = {
    "two_link_leg": {"leg"},
    "fivebar": {"linkage"},
    "wheel_leg": {"body", "leg", "wheel", "linkage", "motor"},
    "serial_arm": {"dh"},
    "stewart": {"layout"},
    "mecanum": {"chassis"},
    "two_link_arm": {"arm"},
    "contest": {"start", "target", "limits"},
}
ARRAYS_OF_TABLES = {"target", "obstacle"}


# ---- helpers --------------------------------------------------------------------------------------------------
class _File:
    """The top level of one parsed file: its tables, checked against the family's schema."""

    def __init__(self, data, family, file):
        self.data, self.family, self.file = data, family, file
        tables = {s.split(".")[0] for s, _ in SCHEMAS[family] if s}  # [links.<link>] is the table links
        top_fields = {k for s, fs in SCHEMAS[family] if not s for f in fs for k in f.keys()}
        for key, value in data.items():
            if key in ("family", "name") or key in top_fields:
                continue
            if key not in tables:
                raise ParameterFileError(
                    file, key, value, f"a table of the {family!r} schema: " + ", ".join(sorted(tables | top_fields))
                )
        for t in REQUIRED[family]:
            if t not in data:
                raise ParameterFileError(file, t, None, f"a [{t}] table")
        name = data.get("name", Path(str(file)).stem)
        if not isinstance(name, str):
            raise ParameterFileError(file, "name", name, "a string")
        self.name = name

    def fields(self, table):
        return dict(SCHEMAS[self.family])[table]

    def section(self, table, *, n=None, optional=False):
        if table not in self.data:
            return None if optional else Section(self.file, table, {}, self.fields(table), n=n)
        return Section(self.file, table, self.data[table], self.fields(table), n=n)

    def top(self):
        top_data = {
            k: v for k, v in self.data.items() if k not in ("family", "name") and k not in dict(SCHEMAS[self.family])
        }
        return Section(self.file, "", top_data, self.fields(""))

    def build(self, table, fn, *args, **kwargs):
        """``fn(*args, **kwargs)``; a ValueError from the constructor becomes a ParameterFileError on ``table``."""
        try:
            return fn(*args, **kwargs)
        except ParameterFileError:
            raise
        except (ValueError, TypeError) as exc:
            raise ParameterFileError(self.file, table, self.data.get(table), f"a valid design ({exc})") from None


def _read_all(sec: Section | None) -> dict:
    if sec is None:
        return {}
    return {name: sec.get(name) for name, fld in sec.fields.items() if sec.has(name) or fld.required}


def _inertia(sec: Section, where: str):
    """The ``inertia`` field of a link table as a checked 3x3 tensor (kg m^2), or None when absent."""
    if not sec.has("inertia"):
        return None
    key = next(k for k in sec.fields["inertia"].keys() if k in sec.table)
    raw = sec.table[key]
    square = isinstance(raw, list) and bool(raw) and all(isinstance(r, list) for r in raw)
    fld = sec.fields["inertia"]
    reader = Section(sec.file, sec.path, {key: raw}, [Field(fld.name, fld.kind, fld.doc, (3, 3) if square else (6,))])
    v = reader.get("inertia")
    if square:
        inertia = v
        if not np.allclose(inertia, inertia.T, rtol=0.0, atol=1e-12 * max(1.0, np.abs(inertia).max())):
            raise ParameterFileError(sec.file, f"{where}.{key}", raw, "a symmetric 3x3 tensor (not symmetric)")
    else:
        ixx, iyy, izz, ixy, ixz, iyz = v
        inertia = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    ev = np.linalg.eigvalsh(inertia)
    if ev[0] <= 0:
        raise ParameterFileError(
            sec.file,
            f"{where}.{key}",
            raw,
            f"a positive definite tensor (not positive definite: principal moments "
            f"{', '.join(f'{e:.6g}' for e in ev)} kg m^2)",
        )
    if ev[0] + ev[1] < ev[2] * (1 - 1e-9):
        raise ParameterFileError(
            sec.file,
            f"{where}.{key}",
            raw,
            f"principal moments obeying the triangle inequality I1 + I2 >= I3 "
            f"(a rigid body's; these are {', '.join(f'{e:.6g}' for e in ev)} kg m^2)",
        )
    return inertia


def _links(f: _File, names: tuple[str, ...]) -> dict:
    """The ``[links.<link>]`` tables: ``{link: {"mass", "com", "inertia"}}`` in SI (com, inertia None if absent)."""
    tab = f.data.get("links")
    if tab is None:
        return {}
    if not isinstance(tab, dict) or not all(isinstance(v, dict) for v in tab.values()):
        raise ParameterFileError(f.file, "links", tab, "one table per link, [links.<link>], with mass_kg ...")
    out = {}
    for link, sub in tab.items():
        if link not in names:
            raise ParameterFileError(f.file, f"links.{link}", sub, "a table of one of the links " + ", ".join(names))
        sec = Section(f.file, f"links.{link}", sub, f.fields(LINKS_TABLE))
        out[link] = {"mass": sec.get("mass"), "com": sec.get("com"), "inertia": _inertia(sec, f"links.{link}")}
    return out


def _foot(f: _File) -> dict:
    sec = f.section("foot", optional=True)
    return {} if sec is None else _read_all(sec)


def _frame(f: _File, table):
    sec = f.section(table, optional=True)
    if sec is None:
        return None
    xyz = sec.get("xyz", np.zeros(3))
    rpy = sec.get("rpy", np.zeros(3))
    return make_transform(rpy_to_matrix(rpy), xyz)


def _joint_count(f: _File, table, key_base):
    tab = f.data.get(table)
    if not isinstance(tab, dict):
        raise ParameterFileError(f.file, table, tab, f"a [{table}] table")
    for unit in ("m", "mm", "rad", "deg"):
        key = f"{key_base}_{unit}"
        if key in tab:
            v = tab[key]
            if not isinstance(v, list) or not v:
                raise ParameterFileError(f.file, f"{table}.{key}", v, "a non-empty array with one entry per joint")
            return len(v)
    raise ParameterFileError(f.file, f"{table}.{key_base}_m", None, "the DH column a (one entry per joint)")


def _written(section, name: str) -> str:
    """The field as the file wrote it, unit suffix included (``leg.q_max_deg``)."""
    key = next((k for k in section.fields[name].keys() if k in section.table), section.fields[name].keys()[0])
    return section._key(key)


def _raw(section, name: str):
    """The value as the file wrote it (in the file's unit)."""
    return next((section.table[k] for k in section.fields[name].keys() if k in section.table), None)


# ---- builders -------------------------------------------------------------------------------------------------
def two_link_leg(data, *, file, base_dir) -> Design:
    f = _File(data, "two_link_leg", file)
    leg = f.section("leg")
    l1, l2 = leg.get("l1"), leg.get("l2")
    lo, hi = leg.get("q_min"), leg.get("q_max")
    if (lo is None) != (hi is None):
        have, miss = ("q_min", "q_max") if hi is None else ("q_max", "q_min")
        raise ParameterFileError(
            file, f"leg.{miss}", None, f"q_min and q_max together, or neither ({_written(leg, have)} is given)"
        )
    for key, v in (("q_min", lo), ("q_max", hi)):
        if v is not None and np.any(np.abs(v) > np.pi + 1e-12):
            raise ParameterFileError(file, _written(leg, key), _raw(leg, key), "angles within [-pi, pi] rad")
    if lo is not None and hi is not None and not np.all(lo < hi):
        raise ParameterFileError(
            file, _written(leg, "q_max"), _raw(leg, "q_max"), f"each entry above {_written(leg, 'q_min')}"
        )
    kw = {k: (None if v is None else tuple(float(x) for x in v)) for k, v in (("q_min", lo), ("q_max", hi))}
    mech = f.build("leg", TwoLinkLeg, l1, l2, **kw)
    extra = {"links": _links(f, LINK_NAMES["two_link_leg"]), "foot": _foot(f)}
    return Design("two_link_leg", f.name, str(file), mech, extra)


def _linkage(f: _File, table="linkage") -> FiveBar:
    sec = f.section(table)
    l1, l2, l3, l4, d = (sec.get(k) for k in ("l1", "l2", "l3", "l4", "d"))
    # the knees C, D are |CD| in [max(0, d - l1 - l2, |l1 - l2| - d), d + l1 + l2] apart; the distal links close
    # only for |CD| in [|l3 - l4|, l3 + l4]
    cd_min, cd_max = max(0.0, d - l1 - l2, abs(l1 - l2) - d), d + l1 + l2
    if cd_min > l3 + l4:
        raise ParameterFileError(
            f.file,
            f"{table}.d_m",
            d,
            f"a motor spacing the linkage can close over: d <= l1 + l2 + l3 + l4 "
            f"(the knees are at least {cd_min:.6g} m apart, the distal links reach {l3 + l4:.6g} m)",
        )
    if cd_max < abs(l3 - l4):
        raise ParameterFileError(
            f.file, f"{table}.l3_m", l3, f"|l3 - l4| <= d + l1 + l2 = {cd_max:.6g} m so that the distal links meet"
        )
    return f.build(table, FiveBar, l1, l2, l3, l4, d)


def fivebar(data, *, file, base_dir) -> Design:
    f = _File(data, "fivebar", file)
    mech = _linkage(f)
    extra = {t: _read_all(f.section(t, optional=True)) for t in ("motor", "gearbox", "load", "workspace")}
    load = extra["load"]
    if load and not load["height_min"] < load["height_max"]:
        raise ParameterFileError(file, "load.height_max_m", load["height_max"], "a height above load.height_min")
    if load and load.get("legs", 2) < 1:
        raise ParameterFileError(file, "load.legs", load["legs"], "a positive number of legs")
    if load:
        feet = np.array([[mech.d / 2, -load["height_min"]], [mech.d / 2, -load["height_max"]]])
        ok = mech.ik(feet, on_unreachable="nan").valid
        for key, good in zip(("height_min", "height_max"), ok):
            if not good:
                raise ParameterFileError(
                    file, f"load.{key}_m", load[key], "a foot height the linkage reaches straight below the motors"
                )
    if extra["load"] and not extra["motor"]:
        raise ParameterFileError(file, "motor", None, "a [motor] table (the [load] sizing needs the motor)")
    if extra["gearbox"] and not extra["motor"]:
        raise ParameterFileError(file, "motor", None, "a [motor] table (a [gearbox] drives a motor)")
    lim = f.section("limits", optional=True)
    extra["limits"] = {}
    if lim is not None:
        lo, hi = lim.get("q_min"), lim.get("q_max")
        if not np.all(lo < hi):
            raise ParameterFileError(
                file, _written(lim, "q_max"), _raw(lim, "q_max"), f"each entry above {_written(lim, 'q_min')}"
            )
        extra["limits"] = {"q_min": lo, "q_max": hi}
    extra["links"], extra["foot"] = _links(f, LINK_NAMES["fivebar"]), _foot(f)
    return Design("fivebar", f.name, str(file), mech, extra)


def wheel_leg(data, *, file, base_dir) -> Design:
    f = _File(data, "wheel_leg", file)
    body, leg, wheel = f.section("body"), f.section("leg"), f.section("wheel")
    env = f.section("environment", optional=True)
    g = 9.81 if env is None else env.get("gravity", 9.81)
    m_w, R, I_w = wheel.get("mass"), wheel.get("radius"), wheel.get("spin_inertia")
    if I_w > m_w * R * R:
        raise ParameterFileError(
            file, "wheel.spin_inertia_kg_m2", I_w, f"at most mass * radius^2 = {m_w * R * R:.6g} kg m^2"
        )
    params = f.build(
        "body",
        WheelLegParams,
        m_b=body.get("mass"),
        I_b=body.get("pitch_inertia"),
        l_c=body.get("com_height"),
        m_l=leg.get("mass"),
        m_w=m_w,
        I_w=I_w,
        R=R,
        g=g,
    )
    link = _linkage(f)
    lmin, lmax = leg.get("length_min"), leg.get("length_max")
    if not lmin < lmax:
        raise ParameterFileError(file, "leg.length_max_m", lmax, f"a length above length_min = {lmin:.6g} m")
    # the virtual leg runs from the motors' midpoint to the foot; both ends of the range must be reachable straight
    # below the body
    feet = np.array([[link.d / 2, -lmin], [link.d / 2, -lmax]])
    reach = link.ik(feet, on_unreachable="nan").valid
    for key, L, ok in (("length_min", lmin, reach[0]), ("length_max", lmax, reach[1])):
        if not ok:
            raise ParameterFileError(
                file, f"leg.{key}_m", L, "a leg length the [linkage] five-bar reaches straight below the motors"
            )
    motor = _read_all(f.section("motor"))
    return Design(
        "wheel_leg",
        f.name,
        str(file),
        params,
        {"linkage": link, "leg": {"length_min": lmin, "length_max": lmax}, "motor": motor},
    )


def serial_arm(data, *, file, base_dir) -> Design:
    f = _File(data, "serial_arm", file)
    n = _joint_count(f, "dh", "a")
    dh = f.section("dh", n=n)
    conv = dh.get("convention")
    a, alpha, d = dh.get("a"), dh.get("alpha"), dh.get("d")
    offset = dh.get("offset", np.zeros(n))
    qlim = None
    lim = f.section("limits", n=n, optional=True)
    if lim is not None:
        lo, hi = lim.get("q_min"), lim.get("q_max")
        bad = np.flatnonzero(lo >= hi)
        if bad.size:
            j = int(bad[0])
            raise ParameterFileError(
                file,
                _written(lim, "q_max"),
                _raw(lim, "q_max"),
                f"q_max[{j}] above q_min[{j}] for every joint ({_written(lim, 'q_min')})",
            )
        qlim = np.stack([lo, hi], axis=-1)
    base, tool = _frame(f, "base"), _frame(f, "tool")
    written = f.build(
        "dh", SerialArm.from_dh, a, alpha, d, offset=offset, convention=conv, qlim=qlim, base=base, tool=tool
    )
    # a UR-family table (in either convention) gets the analytic IK: the UR5 itself as UR5Arm, others as URArm
    std = to_standard(written)
    geom = ur_geometry(std.a, std.alpha, std.d)
    mech = written
    if geom is not None:
        try:
            mech = UR5Arm(std.a, std.alpha, std.d, std.offset, "standard", std.qlim, std.base, std.tool)
        except ValueError:
            mech = make_ur_arm(geom, offset=std.offset, qlim=std.qlim, base=std.base, tool=std.tool)
    links = _links(f, tuple(f"link{i + 1}" for i in range(n)))
    return Design("serial_arm", f.name, str(file), mech, {"as_written": written, "ur_geometry": geom, "links": links})


def stewart(data, *, file, base_dir) -> Design:
    f = _File(data, "stewart", file)
    lay = f.section("layout")
    kind = lay.get("kind")
    need = {
        "paired": ("base_radius", "top_radius", "base_pair_angle", "top_pair_angle"),
        "uniform": ("base_radius", "top_radius", "phase"),
        "anchors": ("base_anchors", "top_anchors"),
    }[kind]
    for name in lay.fields:
        if name != "kind" and lay.has(name) and name not in need:
            key = next(k for k in lay.fields[name].keys() if k in lay.table)
            raise ParameterFileError(file, f"layout.{key}", lay.table[key], f"only {', '.join(need)} for kind {kind!r}")
    v = {}
    for name in need:
        if not lay.has(name):
            fld = lay.fields[name]
            raise ParameterFileError(file, f"layout.{fld.keys()[0]}", None, f"{fld.doc} (needed by kind {kind!r})")
        v[name] = lay.get(name)
    if kind == "paired":
        b, p = f.build(
            "layout",
            paired_layout,
            v["base_radius"],
            v["top_radius"],
            base_pair_angle=v["base_pair_angle"],
            top_pair_angle=v["top_pair_angle"],
        )
    elif kind == "uniform":
        b, p = f.build("layout", uniform_layout, v["base_radius"], v["top_radius"], phase=v["phase"])
    else:
        b, p = v["base_anchors"].T, v["top_anchors"].T
        for name, A in (("base_anchors", b), ("top_anchors", p)):
            if np.linalg.matrix_rank(A[:2] - A[:2].mean(axis=1, keepdims=True), tol=1e-9) < 2:
                key = next(k for k in lay.fields[name].keys() if k in lay.table)
                raise ParameterFileError(file, f"layout.{key}", lay.table[key], "anchors spanning a plane, not a line")
    stroke = None
    st = f.section("stroke", optional=True)
    if st is not None:
        smin, smax = st.get("min"), st.get("max")
        if not smin < smax:
            raise ParameterFileError(file, "stroke.max_m", smax, f"a length above stroke min = {smin:.6g} m")
        stroke = (smin, smax)
    mech = f.build("layout", Stewart, b, p, stroke=stroke)
    extra = {}
    pay = f.section("payload", optional=True)
    if pay is not None:
        extra["payload"] = f.build(
            "payload", PlatformParams, pay.get("mass"), np.diag(pay.get("inertia")), leg_mass=pay.get("leg_mass", 0.0)
        )
    ws = f.section("workspace", optional=True)
    if ws is not None and ws.has("home_z"):
        z = ws.get("home_z")
        if stroke is not None and not mech.reachable([0, 0, z, 0, 0, 0]):
            raise ParameterFileError(file, "workspace.home_z_m", z, "a home height whose leg lengths are in the stroke")
        extra["home_z"] = z
    return Design("stewart", f.name, str(file), mech, extra)


def mecanum(data, *, file, base_dir) -> Design:
    f = _File(data, "mecanum", file)
    ch = f.section("chassis")
    kw = {"roller_angle": ch.get("roller_angle", np.pi / 4), "config": ch.get("config", "X")}
    if not kw["roller_angle"] < np.pi / 2:
        key = next(k for k in ch.fields["roller_angle"].keys() if k in ch.table)
        raise ParameterFileError(file, f"chassis.{key}", ch.table[key], "an angle in (0, pi/2) rad (45 deg standard)")
    mech = f.build("chassis", Mecanum, ch.get("wheel_radius"), ch.get("half_wheelbase"), ch.get("half_track"), **kw)
    return Design("mecanum", f.name, str(file), mech, {"motor": _read_all(f.section("motor", optional=True))})


def two_link_arm(data, *, file, base_dir) -> Design:
    f = _File(data, "two_link_arm", file)
    arm = f.section("arm")
    v = {k: arm.get(k) for k in ("m1", "m2", "l1", "l2", "lc1", "lc2", "I1", "I2")}
    for c, l in (("lc1", "l1"), ("lc2", "l2")):
        if v[c] > v[l]:
            raise ParameterFileError(file, f"arm.{c}_m", v[c], f"a centre of mass on the link: at most {l} = {v[l]} m")
    env = f.section("environment", optional=True)
    v["g"] = 9.81 if env is None else env.get("gravity", 9.81)
    return Design("two_link_arm", f.name, str(file), f.build("arm", TwoLinkArm, **v))


def contest(data, *, file, base_dir) -> ContestTask:
    from . import load  # the arm file is a parameter file of its own

    f = _File(data, "contest", file)
    arm_path = f.top().get("arm")
    path = Path(base_dir) / arm_path
    if not path.is_file():
        raise ParameterFileError(file, "arm", arm_path, f"an existing serial_arm file (looked for {path})")
    try:
        arm = load(path, family="serial_arm")
    except ParameterFileError as exc:
        raise ParameterFileError(file, "arm", arm_path, f"a valid serial_arm file; it says: {exc}") from None
    n = arm.mechanism.n
    q0 = f.section("start", n=n).get("q")
    if not bool(arm.mechanism.within_limits(q0)):
        raise ParameterFileError(
            file, "start.q_rad", q0.tolist(), "a start configuration inside the arm's joint limits"
        )
    targets, names, via = [], [], []
    tlist = data["target"]
    if not isinstance(tlist, list) or not tlist:
        raise ParameterFileError(file, "target", tlist, "one or more [[target]] tables")
    for i, t in enumerate(tlist):
        sec = Section(file, f"target[{i}]", t, C_TARGET)
        targets.append(make_transform(rpy_to_matrix(sec.get("rpy")), sec.get("xyz")))
        names.append(sec.get("name", f"target {i + 1}"))
        via.append(sec.get("via", False))
    spheres = []
    olist = data.get("obstacle", [])
    if not isinstance(olist, list):
        raise ParameterFileError(file, "obstacle", olist, "[[obstacle]] tables")
    for i, o in enumerate(olist):
        sec = Section(file, f"obstacle[{i}]", o, C_OBSTACLE)
        sec.get("kind")
        spheres.append(np.append(sec.get("center"), sec.get("radius")))
    lim = f.section("limits", n=n)
    plan = f.section("plan", n=n, optional=True)
    plan = plan or Section(file, "plan", {}, C_PLAN, n=n)
    dec, tdec = plan.get("decimals", 4), plan.get("time_decimals", 2)
    if not 1 <= dec <= 12:
        raise ParameterFileError(file, "plan.decimals", dec, "an integer in 1..12")
    if not 0 <= tdec <= 6:
        raise ParameterFileError(file, "plan.time_decimals", tdec, "an integer in 0..6")
    return ContestTask(
        "contest",
        f.name,
        str(file),
        arm,
        q0,
        np.array(targets),
        tuple(names),
        np.array(via, dtype=bool),
        np.array(spheres).reshape(-1, 4),
        float(lim.get("clearance", 0.0)),
        lim.get("qd_max"),
        lim.get("qdd_max"),
        lim.get("qddd_max"),
        plan.get("joint_weights", np.ones(n)),
        dec,
        tdec,
    )


#: Builder per family name.
FAMILIES: dict[str, Callable[..., Any]] = {
    "two_link_leg": two_link_leg,
    "fivebar": fivebar,
    "wheel_leg": wheel_leg,
    "serial_arm": serial_arm,
    "stewart": stewart,
    "mecanum": mecanum,
    "two_link_arm": two_link_arm,
    "contest": contest,
}
