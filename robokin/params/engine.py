"""Your robot in MuJoCo: the engine model of a parameter file, and a check of your own URDF or MJCF against it.

:func:`engine_model` builds the MuJoCo model of a ``two_link_leg``, ``fivebar``, ``serial_arm`` or ``wheel_leg``
parameter file with the file's per-link inertials (``[links.<link>]``: mass, centre of mass, inertia tensor), the hub motor at the
foot (``[foot]``), the joint limits and link-link collision between links that can touch. :func:`check_engine_model`
compares a model (the generated one, or a team's own URDF or MJCF file, which MuJoCo compiles) with the package's
kinematics **before anything is simulated**: the foot position over a grid of joint (motor) angles against the
package's FK, the joint torques that hold a foot force against ``tau = J^T F``, and, when the file gives
inertials, the gravity torques and (when every link's mass, centre of mass and inertia tensor are in the file) the
joint-space mass matrix ``M(q)`` against MuJoCo's ``mj_fullM`` (reduced to the motors for the five-bar), and the
joint limits. Each mismatch is named: a joint whose axis is flipped, joints in another order (the order that
passes), a link length that differs or a joint off its link's axis, an arm's joint-axis distances against the DH
table, a base that is offset, a model in millimetres, a loop that does not close, a link's mass or centre of mass
(world frame), a hub motor at the foot, an inertia tensor written about the joint, joint limits in degrees.

Link frames
-----------
A centre of mass ``com`` and an inertia tensor are written in the frame of their link in the engine model:

* ``two_link_leg`` (links ``thigh``, ``shank``): the frames of :func:`robokin.urdf.two_link_leg_urdf`, origin at
  the link's joint, the link hanging along ``-z`` at ``q = 0``, the joint axis ``-y``; halfway is
  ``[0, 0, -l/2]``.
* ``fivebar`` (links ``thigh_A``, ``shank_C``, ``thigh_B``, ``shank_D``): the bodies of
  :func:`robokin.sim.fivebar_mjcf`, origin at the link's joint, ``x`` along the link, ``z`` in the five-bar plane
  (90 degrees counter-clockwise from ``x`` in the chapter's figures), ``y`` the joint axis reversed; halfway is
  ``[l/2, 0, 0]``.
* ``serial_arm`` (links ``link1`` ... ``linkN``): DH frame ``i``, as :class:`robokin.dynamics.SerialDynamics`.
* ``wheel_leg``: the whole robot of chapter 13 (:func:`robokin.sim.wheel_leg_mjcf`: body on a free joint, two
  five-bar legs ``L_`` and ``R_`` with the links of ``fivebar``, a wheel on each foot, the ground); its file has no
  per-link table: the leg mass is shared by the links in proportion to length (uniform rods). The check pins the
  body at the world origin, level (its origin on the hip axis, the motors' midpoint), compares each leg's foot
  (``L_foot_C,R_foot_C``) over the five-bar grid, the right leg at the left's configurations in reverse order,
  and the four motors' torques and mass matrix (the wheels turn with their shanks), then the body's mass, centre
  of mass and pitch inertia against ``[body]``, each leg's side (left at ``+y``) and the tyre radius. The
  generated model has a ``standing`` keyframe (legs at the middle of the file's length range, as
  :func:`robokin.sim.wheel_leg_pose`), which ``python -m robokin view FILE --still OUT.png`` draws.

For the leg and the five-bar, a link without a table is a placeholder rod of ``robokin.urdf.PLACEHOLDER_MASS`` (a
kinematic model: the gravity and mass-matrix checks are then skipped), and a table without ``com`` or ``inertia``
gets the uniform rod's (the mass-matrix check is then skipped); for an arm, a link without a table is a placeholder
point mass and a table without ``com_m`` or ``inertia_kg_m2`` is refused. :attr:`EngineModel.defaulted` lists every
value that was not in the file.

Examples
--------
>>> from robokin.params import EXAMPLES
>>> em = engine_model(EXAMPLES / "leg2_limited_ch02.toml")
>>> em.joints, em.foot, em.model.nq
(('hip', 'knee'), 'foot', 2)
>>> result = check_engine_model(EXAMPLES / "leg2_limited_ch02.toml")
>>> result.passed
True
"""

from __future__ import annotations

import dataclasses
import itertools
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import sim
from ..dynamics import SerialDynamics
from ..urdf import PLACEHOLDER_INERTIA, PLACEHOLDER_MASS
from ._fields import ParameterFileError
from .families import LINK_NAMES, Design

__all__ = [
    "ENGINE_FAMILIES",
    "EngineModel",
    "Check",
    "EngineCheckResult",
    "engine_model",
    "check_engine_model",
    "contact_pairs",
    "G",
]

#: Families with an engine model and a check.
ENGINE_FAMILIES = ("two_link_leg", "fivebar", "serial_arm", "wheel_leg")
#: Gravity (m/s^2) of the engine model and of the package's gravity torques, along ``-z``.
G = 9.81
#: Default tolerances of the checks: foot position (m) and joint torques (N m).
TOL_POSITION = 1e-9
TOL_TORQUE = 1e-9
#: Tolerance of the joint-space mass matrix (kg m^2).
TOL_MASS = 1e-9


@dataclass(frozen=True, eq=False)
class EngineModel:
    """A generated MuJoCo model and what it was built from.

    Attributes
    ----------
    model : mujoco.MjModel
        Compiled from ``mjcf``.
    mjcf : str
        The MJCF text (numbers written exactly: ``repr`` of each double).
    design : Design
        The parameter file's design.
    joints : tuple of str
        The actuated joints, in the package's joint order.
    foot : str
        The site at the foot (the tool point of an arm).
    inertials : dict
        ``{link: {"mass", "com", "inertia"}}`` as built (SI, link frame), defaults filled in.
    defaulted : tuple of str
        The values that were not in the file, e.g. ``"links.shank (placeholder rod, 0.001 kg)"``.
    collision_pairs : tuple of (str, str)
        The body pairs that may collide (empty with ``collisions=False``).
    """

    model: Any
    mjcf: str
    design: Design
    joints: tuple
    foot: str
    inertials: dict
    defaulted: tuple
    collision_pairs: tuple


@dataclass(frozen=True)
class Check:
    """One comparison: ``value`` (the largest error) against ``tol``; ``passed`` is None when skipped."""

    name: str
    value: float
    tol: float
    unit: str
    passed: bool | None
    detail: str = ""


@dataclass(frozen=True)
class EngineCheckResult:
    """What :func:`check_engine_model` found.

    Attributes
    ----------
    design : str
        The parameter file (or design name).
    model : str
        The model checked (a path, or ``"generated"``).
    checks : tuple of Check
        ``foot position``, ``static torques``, ``gravity torques``, ``mass matrix``, ``joint limits`` (and for a
        ``wheel_leg`` ``body mass``, ``body com``, ``body pitch inertia``, ``leg sides``, ``wheel radius``).
    findings : tuple of str
        What the mismatches look like (a flipped joint axis, a link length, an offset base), empty when it passes.
    samples : int
        Number of joint configurations compared.
    """

    design: str
    model: str
    checks: tuple
    findings: tuple
    samples: int
    defaulted: tuple = field(default_factory=tuple)

    @property
    def passed(self) -> bool:
        """True when no check failed (a skipped check does not fail)."""
        return all(c.passed is not False for c in self.checks)

    def table(self) -> str:
        """A short plain-text table of the checks and the findings."""
        lines = [f"{'check':18s} {'max error':>12s} {'tolerance':>10s}  verdict", "-" * 54]
        for c in self.checks:
            verdict = {True: "pass", False: "FAIL", None: "skipped"}[c.passed]
            val = "-" if c.passed is None else f"{c.value:.3g}"
            lines.append(f"{c.name:18s} {val:>12s} {c.tol:>10.0e}  {verdict} {c.unit if c.passed is not None else ''}")
            if c.detail:
                lines.append(f"    {c.detail}")
        for f in self.findings:
            lines.append(f"finding: {f}")
        return "\n".join(lines)


# ---- building -------------------------------------------------------------------------------------------------
def _design(params) -> Design:
    from . import load

    if isinstance(params, Design):
        d = params
    elif isinstance(params, (str, Path)):
        d = load(params)
    else:
        raise TypeError(f"params must be a parameter file path or a robokin.params Design, got {type(params).__name__}")
    if not isinstance(d, Design) or d.family not in ENGINE_FAMILIES:
        fam = getattr(d, "family", type(d).__name__)
        raise ParameterFileError(
            d.source if isinstance(d, Design) else str(params),
            "family",
            fam,
            "a family with an engine model: " + ", ".join(ENGINE_FAMILIES),
        )
    return d


def _num(x) -> str:
    x = float(x)
    return "0" if x == 0 else repr(x)


def _vec(v) -> str:
    return " ".join(_num(x) for x in np.ravel(v))


def _full(inertia) -> str:
    i = inertia
    return _vec([i[0, 0], i[1, 1], i[2, 2], i[0, 1], i[0, 2], i[1, 2]])


def _link_inertials(d: Design, lengths: dict, rod, halfway) -> tuple[dict, list]:
    """Inertials per link with defaults filled in, and the list of what was defaulted."""
    given = d.extra.get("links", {})
    out, defaulted = {}, []
    for link, length in lengths.items():
        g = given.get(link)
        if g is None:
            m = PLACEHOLDER_MASS
            out[link] = {"mass": m, "com": halfway(length), "inertia": rod(m, length)}
            defaulted.append(f"links.{link} (placeholder rod, {m:g} kg)")
            continue
        com, inertia = g["com"], g["inertia"]
        if com is None:
            com = halfway(length)
            defaulted.append(f"links.{link}.com (halfway along the link)")
        if inertia is None:
            inertia = rod(g["mass"], length)
            defaulted.append(f"links.{link}.inertia (uniform rod)")
        out[link] = {"mass": g["mass"], "com": np.asarray(com, float), "inertia": np.asarray(inertia, float)}
    return out, defaulted


def _set_inertial(body: ET.Element, inertial: dict) -> None:
    el = body.find("inertial")
    if el is None:
        el = ET.SubElement(body, "inertial")
    el.attrib.clear()
    el.set("pos", _vec(inertial["com"]))
    el.set("mass", _num(inertial["mass"]))
    el.set("fullinertia", _full(inertial["inertia"]))


def _hub(parent: ET.Element, pos, foot: dict, radius: float, axis_y=True) -> None:
    """The hub motor at the foot: a body welded to the last link (its mass, a disc of ``hub_radius`` if given)."""
    m = foot["hub_mass"]
    r = foot.get("hub_radius")
    body = ET.SubElement(parent, "body", name="hub", pos=_vec(pos))
    if r is None:
        ET.SubElement(body, "inertial", pos="0 0 0", mass=_num(m), diaginertia="0 0 0")
        ET.SubElement(body, "geom", type="sphere", size=_num(1.5 * radius))
    else:
        ia, it = 0.5 * m * r * r, 0.25 * m * r * r
        ET.SubElement(body, "inertial", pos="0 0 0", mass=_num(m), diaginertia=_vec([it, ia, it]))
        w = 0.25 * r
        ET.SubElement(body, "geom", type="cylinder", fromto=_vec([0, -w, 0, 0, w, 0]), size=_num(r))


def _collisions(root: ET.Element, bodies: list[str], exclude, on: bool, pairs=()) -> bool:
    """Switch link geoms' collision on (contype = conaffinity = 1) and exclude the pairs that always touch.

    ``pairs`` are body pairs MuJoCo's parent filter would drop but that can touch (the hub welded to a shank and
    that shank's parent link): they get an explicit ``<pair>``. Each link's geom is named after its body.
    """
    if not on:
        return False
    for b in root.iter("body"):
        if b.get("name") in bodies:
            for k, g in enumerate(b.findall("geom")):
                g.set("contype", "1")
                g.set("conaffinity", "1")
                if k == 0:
                    g.set("name", b.get("name"))
    if exclude or pairs:
        contact = ET.SubElement(root, "contact")
        for a, b in pairs:
            ET.SubElement(contact, "pair", geom1=a, geom2=b)
        for a, b in exclude:
            ET.SubElement(contact, "exclude", body1=a, body2=b)
    return True


def _always_touching(root: ET.Element, lim: np.ndarray, samples: int = 40) -> list[tuple[str, str]]:
    """Body pairs of an open chain in contact at every one of ``samples`` random joint angles (seed 0): pairs
    whose capsules meet at a shared joint (a link of zero length between them), not collisions."""
    mujoco = sim.require_mujoco()
    m = mujoco.MjModel.from_xml_string(ET.tostring(root, encoding="unicode"))
    d = mujoco.MjData(m)
    count: dict = {}
    for q in np.random.default_rng(0).uniform(lim[:, 0], lim[:, 1], size=(samples, m.nq)):
        d.qpos[:] = q
        mujoco.mj_forward(m, d)
        seen = set()
        for c in d.contact[: d.ncon]:
            b1, b2 = sorted((int(m.geom_bodyid[c.geom1]), int(m.geom_bodyid[c.geom2])))
            seen.add((m.body(b1).name, m.body(b2).name))
        for pair in seen:
            count[pair] = count.get(pair, 0) + 1
    return sorted(pair for pair, k in count.items() if k == samples)


def _finish(root: ET.Element, d: Design, joints, foot, inertials, defaulted, collisions) -> EngineModel:
    text = ET.tostring(root, encoding="unicode")
    mujoco = sim.require_mujoco()
    model = mujoco.MjModel.from_xml_string(text)
    return EngineModel(
        model,
        text,
        d,
        tuple(joints),
        foot,
        inertials,
        tuple(defaulted),
        tuple(contact_pairs(model)) if collisions else (),
    )


def _fivebar(d: Design, *, collisions: bool, radius: float, actuator: str, g: float) -> EngineModel:
    fb = d.mechanism
    lengths = {"thigh_A": fb.l1, "shank_C": fb.l3, "thigh_B": fb.l2, "shank_D": fb.l4}

    def rod(m, length):  # as robokin.sim's rod: m l^2 / 12 about the hinge, a thin rod about its axis
        big = m * length**2 / 12.0
        return np.diag([min(0.5 * m * radius**2, big), big, big])

    inertials, defaulted = _link_inertials(d, lengths, rod, lambda length: np.array([length / 2, 0.0, 0.0]))
    masses = [inertials[k]["mass"] for k in lengths]
    root = ET.fromstring(sim.fivebar_mjcf(fb, masses=masses, radius=radius, actuator=actuator, g=g))
    byname = {b.get("name"): b for b in root.iter("body")}
    for link in lengths:
        _set_inertial(byname[link], inertials[link])
    lim = d.extra.get("limits") or {}
    if lim:
        for k, j in enumerate(("motor_A", "motor_B")):
            el = next(e for e in root.iter("joint") if e.get("name") == j)
            el.set("range", _vec([lim["q_min"][k], lim["q_max"][k]]))
    else:
        defaulted.append("limits (none: the motors turn freely)")
    bodies = list(lengths)
    # the shanks meet at the foot (the loop-closing equality): always touching, never a collision
    exclude = [("shank_C", "shank_D")]
    foot = d.extra.get("foot") or {}
    if foot:
        _hub(byname["shank_C"], [fb.l3, 0.0, 0.0], foot, radius)
        bodies.append("hub")
        exclude.append(("hub", "shank_D"))
    else:
        defaulted.append("foot (no hub motor)")
    pairs = [("hub", "thigh_A")] if foot else []  # a folded knee C brings the hub to thigh A
    on = _collisions(root, bodies, exclude, collisions, pairs)
    # a keyframe with the loop closed at mid height (qpos0 is the open zero pose): the pose a still picture shows
    try:
        q_mid = _fivebar_mid(fb)
    except ValueError:
        q_mid = None
    if q_mid is not None:
        order = [j.get("name") for j in root.iter("joint")]
        qp = dict(zip(("motor_A", "knee_C", "motor_B", "knee_D"), sim.fivebar_qpos(fb, q_mid)))
        key = ET.SubElement(root, "keyframe")
        ET.SubElement(key, "key", name="assembled", qpos=_vec([qp[j] for j in order]))
    return _finish(root, d, ("motor_A", "motor_B"), "foot_C", inertials, defaulted, on)


def _leg(d: Design, *, collisions: bool, radius: float, actuator: str, g: float) -> EngineModel:
    leg = d.mechanism
    lengths = {"thigh": leg.l1, "shank": leg.l2}

    def rod(m, length):  # as robokin.urdf.two_link_leg_urdf
        return m * length**2 / 12 * np.diag([1.0, 1.0, 0.0]) + PLACEHOLDER_INERTIA * np.eye(3)

    inertials, defaulted = _link_inertials(d, lengths, rod, lambda length: np.array([0.0, 0.0, -length / 2]))
    root = ET.Element("mujoco", model="leg")
    ET.SubElement(root, "compiler", angle="radian", autolimits="true")
    ET.SubElement(root, "option", timestep="0.001", integrator="RK4", gravity=_vec([0, 0, -g]))
    default = ET.SubElement(root, "default")
    ET.SubElement(default, "geom", contype="0", conaffinity="0", rgba="0.3 0.5 0.8 1")
    world = ET.SubElement(root, "worldbody")
    parent = ET.SubElement(world, "body", name="base")
    limits = None if leg.q_min is None else list(zip(leg.q_min, leg.q_max))
    if limits is None:
        defaulted.append("leg.q_min, leg.q_max (none: the joints turn freely)")
    pos = [0.0, 0.0, 0.0]
    for k, (link, joint) in enumerate((("thigh", "hip"), ("shank", "knee"))):
        body = ET.SubElement(parent, "body", name=link, pos=_vec(pos))
        _set_inertial(body, inertials[link])
        jattr = {"name": joint, "type": "hinge", "axis": "0 -1 0"}
        if limits is not None:
            jattr["range"] = _vec(limits[k])
        ET.SubElement(body, "joint", jattr)
        ET.SubElement(body, "geom", type="capsule", fromto=_vec([0, 0, 0, 0, 0, -lengths[link]]), size=_num(radius))
        parent, pos = body, [0.0, 0.0, -lengths[link]]
    ET.SubElement(parent, "site", name="foot", pos=_vec(pos), size=_num(radius))
    bodies, exclude = ["thigh", "shank"], []
    foot = d.extra.get("foot") or {}
    if foot:
        _hub(parent, pos, foot, radius)
        bodies.append("hub")
    else:
        defaulted.append("foot (no hub motor)")
    _actuators(root, ("hip", "knee"), actuator)
    pairs = [("hub", "thigh")] if foot else []  # a folded knee brings the hub to the thigh
    on = _collisions(root, bodies, exclude, collisions, pairs)
    return _finish(root, d, ("hip", "knee"), "foot", inertials, defaulted, on)


def _wheel_leg_parts(d: Design, radius: float) -> tuple[Design, dict]:
    """One leg of a ``wheel_leg`` file as a five-bar design, as :func:`robokin.sim.wheel_leg_mjcf` builds each leg:
    link masses ``m_l / 2`` shared in proportion to length, uniform rods (``m l^2 / 12`` about the joint axis), and the
    wheel as the hub at the foot (mass ``m_w / 2``, spin inertia ``I_w / 2``: a disc of that spin inertia)."""
    p, fb = d.mechanism, d.extra["linkage"]
    lengths = {"thigh_A": fb.l1, "shank_C": fb.l3, "thigh_B": fb.l2, "shank_D": fb.l4}
    total = sum(lengths.values())
    links = {}
    for link, length in lengths.items():
        m = 0.5 * p.m_l * length / total
        big = m * length**2 / 12.0
        links[link] = {
            "mass": m,
            "com": np.array([length / 2, 0.0, 0.0]),
            "inertia": np.diag([min(0.5 * m * radius**2, big), big, big]),
        }
    mw, iw = 0.5 * p.m_w, 0.5 * p.I_w
    foot = {"hub_mass": mw, "hub_radius": float(np.sqrt(2.0 * iw / mw))}
    leg = Design("fivebar", d.name, d.source, fb, {"links": links, "foot": foot})
    return leg, links


def _wheel_leg(d: Design, *, collisions: bool, radius: float, actuator: str, g: float) -> EngineModel:
    if actuator != "torque":
        raise ValueError(f"actuator: a wheel_leg model has torque motors on its six joints only, got {actuator!r}")
    p = dataclasses.replace(d.mechanism, g=g)  # the check's gravity, as every engine model
    fb = d.extra["linkage"]
    root = ET.fromstring(sim.wheel_leg_mjcf(p, fb, radius=radius))
    if collisions:  # link-link contact within each leg, as the five-bar's; the tyres touch the ground already
        bodies = [f"{s}{k}" for s in ("L_", "R_") for k in ("thigh_A", "shank_C", "thigh_B", "shank_D")]
        # the shanks meet at the foot and the wheel turns there on shank C's end: always touching, never a collision
        exclude = [(f"{s}shank_C", f"{s}shank_D") for s in ("L_", "R_")]
        exclude += [(f"{s}wheel", f"{s}shank_D") for s in ("L_", "R_")]
        _collisions(root, bodies, exclude, True)
        # the legs sit a track apart in parallel planes: bit 2 (left) or 4 (right) plus the ground's bit 1, so a
        # leg's links meet each other, their wheel and the ground, never the other leg
        for body in root.iter("body"):
            side = (body.get("name") or "")[:2]
            if side in ("L_", "R_"):
                bit = 2 if side == "L_" else 4
                for geom in body.findall("geom"):
                    if geom.get("contype") == "1":
                        geom.set("contype", str(bit))
                        geom.set("conaffinity", str(bit | 1))
    else:  # every contact off, the tyres' too (a model to check, not to stand on the ground)
        for geom in root.iter("geom"):
            geom.set("contype", "0")
            geom.set("conaffinity", "0")
    _, links = _wheel_leg_parts(d, radius)
    inertials = {f"{side}{k}": v for side in ("L_", "R_") for k, v in links.items()}
    defaulted = [
        "links (uniform rods sharing leg.mass_kg in proportion to length, as chapter 13's model)",
        "track 0.4 m, roll and yaw inertias 0.15 and 0.2 kg m^2, friction 1 (robokin.sim.wheel_leg_mjcf)",
    ]
    mujoco = sim.require_mujoco()
    # a standing keyframe (legs at the middle of the file's length range, as chapter 13 starts): what
    # ``view FILE --still`` draws, the loops closed and the tyres on the ground; qpos0 stays the check's pose
    leg = d.extra.get("leg") or {}
    L0 = 0.5 * (leg["length_min"] + leg["length_max"]) if "length_min" in leg and "length_max" in leg else None
    if L0 is not None:
        first = mujoco.MjModel.from_xml_string(ET.tostring(root, encoding="unicode"))
        data = mujoco.MjData(first)
        sim.wheel_leg_pose(first, data, p, fb, L0=float(L0))
        key = ET.SubElement(ET.SubElement(root, "keyframe"), "key", name="standing")
        key.set("qpos", _vec(data.qpos))
    text = ET.tostring(root, encoding="unicode")
    model = mujoco.MjModel.from_xml_string(text)
    return EngineModel(
        model,
        text,
        d,
        sim.WHEEL_LEG_ACTUATORS,
        "L_foot_C",
        inertials,
        tuple(defaulted),
        tuple(contact_pairs(model)) if collisions else (),
    )


def _actuators(root, joints, actuator):
    if actuator == "none":
        return
    act = ET.SubElement(root, "actuator")
    for j in joints:
        if actuator == "torque":
            ET.SubElement(act, "motor", name=j, joint=j, gear="1")
        else:
            ET.SubElement(act, "position", name=j, joint=j, kp="200", kv="2")


def _arm(d: Design, *, collisions: bool, radius: float, actuator: str, g: float) -> EngineModel:
    written = d.extra["as_written"]
    if written.convention != "standard":
        raise ParameterFileError(
            d.source,
            "dh.convention",
            written.convention,
            "'standard' for the generated engine model (write a modified-DH arm's URDF with robokin.urdf.serial_urdf "
            "and check that file with --model)",
        )
    arm = written
    n = arm.n
    lengths = {f"link{i + 1}": 0.0 for i in range(n)}

    def point(m, length):
        return PLACEHOLDER_INERTIA * np.eye(3)

    given = d.extra.get("links", {})
    inertials, defaulted = {}, []
    for link in lengths:
        if link in given and given[link]["com"] is not None and given[link]["inertia"] is not None:
            inertials[link] = dict(given[link])
            continue
        if link in given:
            missing = [k for k, v in (("com_m", "com"), ("inertia_kg_m2", "inertia")) if given[link][v] is None]
            raise ParameterFileError(
                d.source,
                f"links.{link}.{missing[0]}",
                None,
                f"{' and '.join(missing)} with mass_kg (an arm link has no default shape: its table needs mass_kg, "
                "com_m and inertia_kg_m2 together)",
            )
        inertials[link] = {"mass": PLACEHOLDER_MASS, "com": np.zeros(3), "inertia": point(0, 0)}
        defaulted.append(f"links.{link} (placeholder point mass, {PLACEHOLDER_MASS:g} kg)")
    m = [inertials[k]["mass"] for k in lengths]
    c = [inertials[k]["com"] for k in lengths]
    J = [inertials[k]["inertia"] for k in lengths]
    root = ET.fromstring(sim.dh_mjcf(arm, masses=m, coms=c, inertias=J, gravity=(0.0, 0.0, -g)))
    root.insert(1, ET.Element("default"))
    ET.SubElement(root.find("default"), "geom", contype="0", conaffinity="0", rgba="0.3 0.5 0.8 1")
    bodies = [b for b in root.iter("body")]
    for i, b in enumerate(bodies):
        nxt = bodies[i + 1].get("pos") if i + 1 < n else None
        end = np.array([float(x) for x in nxt.split()]) if nxt else None
        if end is None:  # the last link: DH frame n inside body n, then the tool
            Ra = _rotx(float(arm.alpha[i]))
            p_dh = np.array([arm.a[i], 0.0, arm.d[i]])
            end = p_dh + Ra @ arm.tool[:3, 3]
            ET.SubElement(b, "site", name="tool", pos=_vec(end), size=_num(radius))
        if np.linalg.norm(end) > 1e-9:
            ET.SubElement(b, "geom", type="capsule", fromto=_vec([0, 0, 0, *end]), size=_num(radius))
    if arm.qlim is not None:
        for i, j in enumerate(root.iter("joint")):
            j.set("range", _vec(arm.qlim[i]))
        root.find("compiler").set("autolimits", "true")
    else:
        defaulted.append("limits (none: the joints turn freely)")
    joints = tuple(f"joint{i + 1}" for i in range(n))
    _actuators(root, joints, actuator)
    on = _collisions(root, list(lengths), [], collisions)
    if on:
        lim = np.clip(arm.qlim, -np.pi, np.pi) if arm.qlim is not None else np.tile([-np.pi, np.pi], (n, 1))
        touching = _always_touching(root, lim)
        if touching:
            contact = ET.SubElement(root, "contact")
            for a, b in touching:
                ET.SubElement(contact, "exclude", body1=a, body2=b)
    return _finish(root, d, joints, "tool", inertials, defaulted, on)


def _quat_mat(quat):
    w, x, y, z = np.asarray(quat, float)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def _rotx(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])


def engine_model(
    params: str | Path | Design,
    *,
    collisions: bool = True,
    radius: float = 0.008,
    actuator: str = "torque",
    g: float = G,
) -> EngineModel:
    """The MuJoCo model of a parameter file: inertials, hub motor, joint limits, link-link collision.

    Parameters
    ----------
    params : str, Path or Design
        A ``two_link_leg``, ``fivebar``, ``serial_arm`` or ``wheel_leg`` parameter file, or its loaded design.
    collisions : bool
        Link-link collision between links that can touch (default on). Links joined by a joint never collide
        (MuJoCo filters parent and child), nor do the five-bar's shanks, which meet at the foot (the loop-closing
        equality); ``False`` switches every link contact off.
    radius : float
        Capsule radius of the links (m): their collision and drawn shape.
    actuator : {"torque", "position", "none"}
        Torque motors (``ctrl`` in N m), position servos, or none, on the actuated joints.
    g : float
        Gravity along ``-z`` (m/s^2).

    Returns
    -------
    EngineModel

    Raises
    ------
    ParameterFileError
        A bad file, a family without an engine model, a modified-DH arm.
    ValueError
        A bad option.

    Examples
    --------
    >>> from robokin.params import EXAMPLES
    >>> em = engine_model(EXAMPLES / "fivebar_ch03.toml")
    >>> em.collision_pairs
    (('thigh_A', 'thigh_B'), ('thigh_A', 'shank_D'), ('shank_C', 'thigh_B'))
    >>> engine_model(EXAMPLES / "fivebar_ch03.toml", collisions=False).collision_pairs
    ()
    """
    d = _design(params)
    if not isinstance(collisions, bool):
        raise ValueError(f"collisions must be True or False, got {collisions!r}")
    if actuator not in ("torque", "position", "none"):
        raise ValueError(f"actuator must be one of 'torque', 'position', 'none'; got {actuator!r}")
    radius = float(radius)
    if not np.isfinite(radius) or radius <= 0:
        raise ValueError(f"radius must be a positive length (m), got {radius!r}")
    g = float(g)
    if not np.isfinite(g) or g < 0:
        raise ValueError(f"g is the gravity magnitude (m/s^2) and must be >= 0, got {g!r}")
    build = {"two_link_leg": _leg, "fivebar": _fivebar, "serial_arm": _arm, "wheel_leg": _wheel_leg}[d.family]
    return build(d, collisions=collisions, radius=radius, actuator=actuator, g=g)


def contact_pairs(model) -> list[tuple[str, str]]:
    """Body pairs whose geoms MuJoCo may bring into contact (contype/conaffinity, parent filter, exclusions)."""
    mujoco = sim.require_mujoco()
    excluded = {int(s) for s in model.exclude_signature}
    out = []
    for g1, g2 in itertools.combinations(range(model.ngeom), 2):
        b1, b2 = int(model.geom_bodyid[g1]), int(model.geom_bodyid[g2])
        if b1 == b2 or b1 == 0 and b2 == 0:
            continue
        if not (
            model.geom_contype[g1] & model.geom_conaffinity[g2] or model.geom_contype[g2] & model.geom_conaffinity[g1]
        ):
            continue
        w1, w2 = int(model.body_weldid[b1]), int(model.body_weldid[b2])
        if w1 == w2:
            continue
        p1, p2 = int(model.body_weldid[model.body_parentid[w1]]), int(model.body_weldid[model.body_parentid[w2]])
        if (
            not model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_FILTERPARENT
            and (p1 == w2 or p2 == w1)
            and min(w1, w2) != 0
        ):
            continue
        lo, hi = min(b1, b2), max(b1, b2)
        if (lo << 16) + hi in excluded:
            continue
        pair = (model.body(b1).name, model.body(b2).name)
        if pair not in out:
            out.append(pair)
    for g1, g2 in zip(model.pair_geom1, model.pair_geom2):  # explicit <pair>s, past every filter
        pair = (model.body(int(model.geom_bodyid[g1])).name, model.body(int(model.geom_bodyid[g2])).name)
        if pair not in out:
            out.append(pair)
    return out


# ---- checking -------------------------------------------------------------------------------------------------
@dataclass
class _Spec:
    joints: tuple  # actuated joints of the model, in the package's order
    foot: str
    q: np.ndarray  # (k, n) configurations
    p: np.ndarray  # (k, 3) package foot, world
    jac: Any  # q -> (3, n) package foot Jacobian, world
    force: np.ndarray  # (3,) force the leg applies at the foot, world
    gravity: np.ndarray | None  # (k, n) package gravity torques, or None
    gravity_note: str
    segments: list  # (label, point a, point b, package length, q -> package vector a to b in the world, or None)
    start: Any = None  # q -> {joint: qpos} guess of the passive joints
    passive: tuple = ()  # (package name of a passive joint, index of the actuated joint whose chain holds it)
    mass: np.ndarray | None = None  # (k, n, n) the package's joint-space mass matrix, or None
    mass_note: str = ""  # why the mass matrix is not checked
    coms: Any = None  # q -> {link: world centre of mass (3,)} of the links whose com the file gives


def _all_inertials(d: Design, names) -> bool:
    return all(k in d.extra.get("links", {}) for k in names)


def _missing_note(d: Design, names) -> str:
    links = d.extra.get("links", {})
    return "the file gives no inertials (" + ", ".join(f"[links.{k}]" for k in names if k not in links) + ")"


def _tensor_note(d: Design, names) -> str:
    """Why the mass matrix cannot be checked from the file ("" when every link's mass, com and inertia are in it)."""
    links = d.extra.get("links", {})
    missing = [k for k in names if k not in links]
    if missing:
        return "inertia tensor not checked: the file gives no " + ", ".join(f"[links.{k}]" for k in missing)
    partial = [f"links.{k}.{f}" for k in names for f in ("com", "inertia") if links[k][f] is None]
    if partial:
        return "inertia tensor not checked: the file gives no " + ", ".join(partial)
    return ""


def _planar_mass(parts, k: int, n: int) -> np.ndarray:
    """``M = sum m Jc^T Jc + I Jphi^T Jphi`` of planar links: ``(mass, Jc (k, 2, n), I about the axis, Jphi (k, n))``."""
    M = np.zeros((k, n, n))
    for m, Jc, inertia, Jphi in parts:
        M += m * np.einsum("kai,kaj->kij", Jc, Jc) + inertia * np.einsum("ki,kj->kij", Jphi, Jphi)
    return M


def _hub_axis_inertia(d: Design) -> float:
    """The hub motor's inertia about its axis as the generated model writes it (a disc), 0 without a radius."""
    foot = d.extra.get("foot") or {}
    r = foot.get("hub_radius")
    return 0.0 if r is None else 0.5 * foot["hub_mass"] * r * r


def _rot_y_minus(c, t):
    """A vector ``c`` (x, z used) of a leg link frame turned by ``t`` about ``-y``: world ``[x, z]``."""
    ct, st = np.cos(t), np.sin(t)
    return np.stack([c[0] * ct - c[2] * st, c[0] * st + c[2] * ct], axis=-1)


def _leg_spec(d: Design, em: EngineModel, joints, foot) -> _Spec:
    leg = d.mechanism
    lo = np.array([-1.2, 0.3]) if leg.q_min is None else np.asarray(leg.q_min, float)
    hi = np.array([1.2, 2.7]) if leg.q_max is None else np.asarray(leg.q_max, float)
    pad = 0.05 * (hi - lo)
    g1, g2 = np.meshgrid(np.linspace(lo[0] + pad[0], hi[0] - pad[0], 5), np.linspace(lo[1] + pad[1], hi[1] - pad[1], 5))
    q = np.stack([g1.ravel(), g2.ravel()], axis=-1)
    xz = leg.fk(q)
    p = np.stack([xz[:, 0], np.zeros(len(q)), xz[:, 1]], axis=-1)

    def jac(qk):
        J = leg.jacobian(qk)
        return np.array([J[0], [0.0, 0.0], J[1]])

    gravity, note = None, _missing_note(d, ("thigh", "shank"))
    if _all_inertials(d, ("thigh", "shank")):
        ins = em.inertials
        knee = leg.knee_position(q)
        c1 = _rot_y_minus(ins["thigh"]["com"], q[:, 0])
        c2 = knee + _rot_y_minus(ins["shank"]["com"], q[:, 0] + q[:, 1])
        m1, m2 = ins["thigh"]["mass"], ins["shank"]["mass"]
        t1 = m1 * c1[:, 0] + m2 * c2[:, 0]
        t2 = m2 * (c2[:, 0] - knee[:, 0])
        hub = (d.extra.get("foot") or {}).get("hub_mass", 0.0)
        t1, t2 = t1 + hub * xz[:, 0], t2 + hub * (xz[:, 0] - knee[:, 0])
        gravity, note = G * np.stack([t1, t2], axis=-1), ""
    mass, mass_note = None, _tensor_note(d, ("thigh", "shank"))
    if not mass_note:
        ins, k = em.inertials, len(q)
        knee = leg.knee_position(q)
        c1 = _rot_y_minus(ins["thigh"]["com"], q[:, 0])
        c2 = knee + _rot_y_minus(ins["shank"]["com"], q[:, 0] + q[:, 1])
        zero = np.zeros((k, 2))
        one = np.ones(k)
        hub = (d.extra.get("foot") or {}).get("hub_mass", 0.0)
        parts = [
            (
                ins["thigh"]["mass"],
                np.stack([_rot90(c1), zero], -1),
                ins["thigh"]["inertia"][1, 1],
                np.stack([one, 0 * one], -1),
            ),
            (
                ins["shank"]["mass"],
                np.stack([_rot90(c2), _rot90(c2 - knee)], -1),
                ins["shank"]["inertia"][1, 1],
                np.stack([one, one], -1),
            ),
            (hub, np.stack([_rot90(xz), _rot90(xz - knee)], -1), _hub_axis_inertia(d), np.stack([one, one], -1)),
        ]
        mass = _planar_mass(parts, k, 2)

    def coms(qk):
        out, links = {}, d.extra.get("links", {})
        knee = leg.knee_position(qk)
        for link, pivot, t in (("thigh", np.zeros(2), qk[0]), ("shank", knee, qk[0] + qk[1])):
            if link in links and links[link]["com"] is not None:
                c = np.asarray(links[link]["com"], float)
                x, z = pivot + _rot_y_minus(c, t)
                out[link] = np.array([x, c[1], z])
        return out

    def xz3(v):
        return np.array([v[0], 0.0, v[1]])

    segments = [
        (
            "thigh (hip to knee)",
            ("joint", joints[0]),
            ("joint", joints[1]),
            leg.l1,
            lambda qk: xz3(leg.knee_position(qk)),
        ),
        (
            "shank (knee to foot)",
            ("joint", joints[1]),
            ("foot", foot),
            leg.l2,
            lambda qk: xz3(leg.fk(qk) - leg.knee_position(qk)),
        ),
    ]
    return _Spec(
        joints,
        foot,
        q,
        p,
        jac,
        np.array([20.0, 0.0, -50.0]),
        gravity,
        note,
        segments,
        mass=mass,
        mass_note=mass_note,
        coms=coms,
    )


def _fivebar_mid(fb) -> np.ndarray:
    """Motor angles of the foot straight below the motors' midpoint at the median reachable height."""
    reach = min(fb.l1 + fb.l3, fb.l2 + fb.l4)
    hs = [h for h in np.linspace(0.2, 0.95, 16) * reach if fb.ik([fb.d / 2, -h], on_unreachable="nan").valid]
    if not hs:
        raise ValueError("the five-bar reaches no foot point straight below the motors: nothing to compare")
    return fb.ik([fb.d / 2, -float(np.median(hs))]).q


def _fivebar_configs(fb) -> np.ndarray:
    q0 = _fivebar_mid(fb)
    out = []
    for a, b in itertools.product(np.linspace(-0.25, 0.25, 5), repeat=2):
        q = q0 + [a, b]
        if np.isnan(fb.joints(q)).any():
            continue
        if abs(np.linalg.det(fb.jacobian(q, warn=False))) < 1e-3 * fb.l1 * fb.l2:
            continue
        out.append(q)
    return np.array(out)


def _rot90(v):
    return np.stack([-v[..., 1], v[..., 0]], axis=-1)


def _rot2(c, t):
    """Link-frame ``c`` (x along the link, z in the plane) turned by the link's absolute angle ``t``: [x, y]."""
    ct, st = np.cos(t), np.sin(t)
    return np.stack([c[0] * ct - c[2] * st, c[0] * st + c[2] * ct], axis=-1)


def _fivebar_spec(d: Design, em: EngineModel, joints, foot) -> _Spec:
    fb = d.mechanism
    q = _fivebar_configs(fb)
    P = fb.joints(q)
    A, B, C, D, E = (P[:, k] for k in range(5))
    p = np.stack([E[:, 0], np.zeros(len(q)), E[:, 1]], axis=-1)

    def jac(qk):
        J = fb.jacobian(qk, warn=False)
        return np.array([J[0], [0.0, 0.0], J[1]])

    gravity, note = None, _missing_note(d, LINK_NAMES["fivebar"])
    if _all_inertials(d, LINK_NAMES["fivebar"]):
        ins = em.inertials
        JE = fb.jacobian(q, warn=False)  # (k, 2, 2)
        zero = np.zeros_like(C)
        dC = np.stack([_rot90(C - A), zero], axis=-1)  # (k, 2 [x, y], 2 [theta1, theta2])
        dD = np.stack([zero, _rot90(D - B)], axis=-1)
        tau = np.zeros((len(q), 2))
        parts = []
        for link, pivot, dpivot, far, length, own in (
            ("thigh_A", A, np.zeros_like(dC), C, fb.l1, 0),
            ("thigh_B", B, np.zeros_like(dC), D, fb.l2, 1),
            ("shank_C", C, dC, E, fb.l3, None),
            ("shank_D", D, dD, E, fb.l4, None),
        ):
            u = (far - pivot) / length
            phi = np.arctan2(u[:, 1], u[:, 0])
            r = _rot2(ins[link]["com"], phi)  # pivot to the centre of mass
            if own is not None:  # a thigh turns with its own motor
                dphi = np.zeros((len(q), 2))
                dphi[:, own] = 1.0
            else:  # dE = dpivot + l rot90(u) dphi
                dphi = np.einsum("ki,kij->kj", _rot90(u), JE - dpivot) / length
            dp = dpivot + _rot90(r)[:, :, None] * dphi[:, None, :]
            tau += ins[link]["mass"] * G * dp[:, 1, :]
            parts.append((ins[link]["mass"], dp, ins[link]["inertia"][1, 1], dphi))
            if link == "shank_C":
                dphi_C = dphi
        hub = (d.extra.get("foot") or {}).get("hub_mass", 0.0)
        tau += hub * G * JE[:, 1, :]
        parts.append((hub, JE, _hub_axis_inertia(d), dphi_C))
        gravity, note = tau, ""
    mass, mass_note = None, _tensor_note(d, LINK_NAMES["fivebar"])
    if not mass_note:
        mass = _planar_mass(parts, len(q), 2)

    def vec(i, j):  # the package's joint i to joint j (A, B, C, D, E), world
        return lambda qk: np.array(
            [*(fb.joints(qk)[j] - fb.joints(qk)[i])[:1], 0.0, fb.joints(qk)[j][1] - fb.joints(qk)[i][1]]
        )

    segments = [
        ("thigh_A (motor A to knee C)", ("joint", joints[0]), ("joint", "knee_C"), fb.l1, vec(0, 2)),
        ("shank_C (knee C to foot)", ("joint", "knee_C"), ("foot", foot), fb.l3, None),
        ("thigh_B (motor B to knee D)", ("joint", joints[1]), ("joint", "knee_D"), fb.l2, vec(1, 3)),
        ("shank_D (knee D to foot)", ("joint", "knee_D"), ("foot", "foot_D"), fb.l4, None),
        ("motor spacing d (A to B)", ("joint", joints[0]), ("joint", joints[1]), fb.d, vec(0, 1)),
    ]

    def coms(qk):
        out, links = {}, d.extra.get("links", {})
        A, B, C, D, E = fb.joints(qk)
        for link, pivot, far, length in (
            ("thigh_A", A, C, fb.l1),
            ("thigh_B", B, D, fb.l2),
            ("shank_C", C, E, fb.l3),
            ("shank_D", D, E, fb.l4),
        ):
            if link in links and links[link]["com"] is not None:
                c = np.asarray(links[link]["com"], float)
                u = (far - pivot) / length
                x, y = pivot + _rot2(c, np.arctan2(u[1], u[0]))
                out[link] = np.array([x, c[1], y])
        return out

    def start(qk):
        qp = sim.fivebar_qpos(fb, qk)
        return {"knee_C": qp[1], "knee_D": qp[3]}

    return _Spec(
        joints,
        foot,
        q,
        p,
        jac,
        np.array([10.0, 0.0, -60.0]),
        gravity,
        note,
        segments,
        start,
        _PASSIVE["fivebar"],
        mass,
        mass_note,
        coms,
    )


def _wheel_leg_spec(d: Design, em, joints, foot, side: int) -> _Spec:
    """Both legs' motors (left A, B, right A, B) with the body pinned at the world origin (the hip axis: the motors'
    midpoint); the foot, force and segments of leg ``side`` (0 left, 1 right). The right leg runs the left's
    configurations in reverse order, so the two legs are compared at different poses."""
    leg, _ = _wheel_leg_parts(d, 0.01)
    links = {k[2:]: v for k, v in em.inertials.items() if k.startswith("L_")}  # as built (both legs alike)
    leg = Design("fivebar", d.name, d.source, leg.mechanism, {**leg.extra, "links": links})
    one = _fivebar_spec(leg, _LegInertials(links), ("motor_A", "motor_B"), "foot_C")
    qa = one.q
    qb = qa[::-1]
    q = np.hstack([qa, qb])
    own = qa if side == 0 else qb
    fb = leg.mechanism
    shift = np.array([-fb.d / 2, 0.0, 0.0])  # motor A sits d/2 behind the hip axis
    E = fb.joints(own)[:, 4]
    p = np.stack([E[:, 0], np.zeros(len(q)), E[:, 1]], axis=-1) + shift
    cols = slice(2 * side, 2 * side + 2)

    def jac(qk):
        J = np.zeros((3, 4))
        J[:, cols] = one.jac(qk[cols])
        return J

    g = None if one.gravity is None else np.hstack([one.gravity, one.gravity[::-1]])
    mass = None
    if one.mass is not None:
        mass = np.zeros((len(q), 4, 4))
        mass[:, :2, :2], mass[:, 2:, 2:] = one.mass, one.mass[::-1]
    pre = ("L_", "R_")[side]
    names = {"motor_A": joints[2 * side], "motor_B": joints[2 * side + 1], "foot_C": foot}

    def own_name(point):
        return point[0], names.get(point[1], pre + point[1])

    segments = [(pre + label, own_name(a), own_name(b), length, None) for label, a, b, length, _ in one.segments]

    def start(qk):
        out = {}
        for k, sd in enumerate(("L_", "R_")):
            qp = sim.fivebar_qpos(fb, qk[2 * k : 2 * k + 2])
            out[f"{sd}knee_C"], out[f"{sd}knee_D"] = qp[1], qp[3]
        return out

    passive = tuple((f"{sd}{r}", 2 * k + c) for k, sd in enumerate(("L_", "R_")) for r, c in _PASSIVE["fivebar"])
    return _Spec(
        tuple(joints),
        foot,
        q,
        p,
        jac,
        one.force,
        g,
        one.gravity_note,
        segments,
        start,
        passive,
        mass,
        one.mass_note,
        None,
    )


@dataclass(frozen=True)
class _LegInertials:
    """What :func:`_fivebar_spec` reads of an engine model: the links' inertials."""

    inertials: dict


def _arm_spec(d: Design, em: EngineModel | None, joints, foot) -> _Spec:
    arm = d.mechanism
    n = arm.n
    lim = arm.qlim if arm.qlim is not None else np.tile([-np.pi, np.pi], (n, 1))
    lim = np.clip(lim, -np.pi, np.pi)
    q = np.random.default_rng(0).uniform(lim[:, 0], lim[:, 1], size=(12, n))
    p = arm.fk(q)[:, :3, 3]
    Rb = np.asarray(arm.base)[:3, :3]

    def jac(qk):  # the package's Jacobian is in the world frame (base included)
        return arm.jacobian(qk)[:3]

    names = tuple(f"link{i + 1}" for i in range(n))
    gravity, note = None, _missing_note(d, names)
    if _all_inertials(d, names):
        links = d.extra["links"]
        w = d.extra["as_written"]
        dyn = SerialDynamics.from_dh(
            w.a,
            w.alpha,
            w.d,
            convention=w.convention,
            offset=w.offset,
            masses=[links[k]["mass"] for k in names],
            coms=[links[k]["com"] for k in names],
            inertias=[links[k]["inertia"] for k in names],
            gravity=Rb.T @ np.array([0.0, 0.0, -G]),
        )
        gravity, note = dyn.gravity(q), ""
    mass, mass_note = None, _tensor_note(d, names)
    if not mass_note:
        mass = dyn.mass_matrix(q)

    def coms(qk):
        out, links, w = {}, d.extra.get("links", {}), d.extra["as_written"]
        F = w.fk_all(qk)
        for i, link in enumerate(names):
            if link in links and links[link]["com"] is not None:
                out[link] = F[i + 1, :3, :3] @ np.asarray(links[link]["com"], float) + F[i + 1, :3, 3]
        return out

    return _Spec(
        joints,
        foot,
        q,
        p,
        jac,
        np.array([10.0, -20.0, 30.0]),
        gravity,
        note,
        [],
        mass=mass,
        mass_note=mass_note,
        coms=coms,
    )


def _compile(model):
    mujoco = sim.require_mujoco()
    if isinstance(model, EngineModel):
        return model.model, "generated"
    if isinstance(model, mujoco.MjModel):
        return model, "the given MjModel"
    if not isinstance(model, (str, Path)):
        raise TypeError(f"model must be a URDF/MJCF path, an MjModel or an EngineModel, got {type(model).__name__}")
    path = Path(model)
    if path.suffix.lower() not in (".urdf", ".xml", ".mjcf"):
        raise ValueError(f"model must be a URDF (.urdf) or MJCF (.xml, .mjcf) file, got {str(path)!r}")
    if not path.is_file():
        raise ValueError(f"no such model file: {path}")
    try:
        return mujoco.MjModel.from_xml_path(str(path)), str(path)
    except Exception as exc:  # noqa: BLE001 - MuJoCo's compiler message names the element and line
        raise ValueError(f"MuJoCo cannot compile {path}: {exc}") from None


_DEFAULT_JOINTS = {
    "two_link_leg": ("hip", "knee"),
    "fivebar": ("motor_A", "motor_B"),
    "wheel_leg": ("L_motor_A", "L_motor_B", "R_motor_A", "R_motor_B"),
}
_DEFAULT_FOOT = {"two_link_leg": "foot", "fivebar": "foot_C", "serial_arm": "tool", "wheel_leg": "L_foot_C,R_foot_C"}


#: The passive joints of a closed chain, by the package's name, and the actuated joint whose chain holds each.
_PASSIVE = {
    "fivebar": (("knee_C", 0), ("knee_D", 1)),
    "wheel_leg": (("L_knee_C", 0), ("L_knee_D", 1), ("R_knee_C", 2), ("R_knee_D", 3)),
}


def _joint_names(d: Design, joints) -> tuple[tuple, dict]:
    """The model's names of the actuated joints, and those the mapping gives of passive joints (five-bar knees)."""
    default = _DEFAULT_JOINTS.get(d.family) or tuple(f"joint{i + 1}" for i in range(d.mechanism.n))
    passive = tuple(r for r, _ in _PASSIVE.get(d.family, ()))
    if joints is None:
        return default, {}
    if isinstance(joints, dict):
        unknown = set(joints) - set(default) - set(passive)
        if unknown:
            raise ValueError(
                f"joints maps the package's joints {', '.join(default + passive)}; unknown: {sorted(unknown)}"
            )
        return tuple(joints.get(k, k) for k in default), {k: joints[k] for k in passive if k in joints}
    names = tuple(joints)
    if len(names) == len(default) + len(passive) and passive and all(isinstance(x, str) for x in names):
        return names[: len(default)], dict(zip(passive, names[len(default) :]))
    if len(names) != len(default) or not all(isinstance(x, str) for x in names):
        raise ValueError(
            f"--joints (joints=) must name the model's {len(default)} joints for {', '.join(default)}"
            + (f" (and optionally the passive {', '.join(passive)})" if passive else "")
            + f", got {joints!r}"
        )
    return names, {}


class _Probe:
    """The model's kinematics at the package's configurations (closing a loop by Newton on the passive joints)."""

    def __init__(self, model, spec: _Spec, passive_names=None, family=""):
        mujoco = self.mj = sim.require_mujoco()
        self.m, self.d, self.spec = model, mujoco.MjData(model), spec
        self.jid = []
        for name in spec.joints:
            j = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)
            if j < 0:
                have = [model.joint(k).name for k in range(model.njnt)]
                hinges = sum(int(t) == int(mujoco.mjtJoint.mjJNT_HINGE) for t in model.jnt_type)
                if hinges < len(spec.joints):
                    raise ValueError(
                        f"joint {name!r} is missing: the model has {hinges} hinge joint(s) {have} and the package's "
                        f"mechanism {len(spec.joints)} ({', '.join(spec.joints)}); a fixed joint in the URDF where a "
                        "revolute one belongs?"
                    )
                raise ValueError(f"the model has no joint {name!r} (it has {have}); name yours with --joints")
            if int(model.jnt_type[j]) != int(mujoco.mjtJoint.mjJNT_HINGE):
                raise ValueError(f"joint {name!r} of the model is not a hinge (revolute) joint")
            self.jid.append(j)
        self.act = [int(model.jnt_dofadr[j]) for j in self.jid]
        passive = [j for j in range(model.njnt) if j not in self.jid]
        free = [j for j in passive if int(model.jnt_type[j]) == int(mujoco.mjtJoint.mjJNT_FREE)]
        # a wheel-legged robot's body is free in the model: the check pins it at the world origin (qpos = identity)
        self.free_adr = [int(model.jnt_qposadr[j]) for j in free] if family == "wheel_leg" and len(free) == 1 else []
        self.pinned_bodies = {int(model.jnt_bodyid[j]) for j in free} if self.free_adr else set()
        if self.free_adr:
            passive = [j for j in passive if j not in free]
        elif family == "wheel_leg" and len(free) > 1:
            raise ValueError(
                f"the model has {len(free)} free joints (of the bodies "
                f"{', '.join(repr(model.body(int(model.jnt_bodyid[j])).name) for j in free)}): a "
                "wheel-legged robot has one, its body's"
            )
        for j in passive:
            if int(model.jnt_type[j]) not in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)):
                what = "a second free joint" if family == "wheel_leg" and free else "a free or ball joint: fix the base"
                raise ValueError(f"joint {model.joint(j).name!r} of the model is {what}")
        if family in ("fivebar", "wheel_leg") and model.neq == 0:
            raise ValueError(
                "the five-bar model has no loop-closing equality: add <equality><connect site1=... site2=.../>"
                "</equality> joining the two shanks at the foot"
            )
        if passive and model.neq == 0:
            raise ValueError(
                f"the model has joints the package's mechanism does not: {[model.joint(j).name for j in passive]} "
                "(map yours with --joints)"
            )
        self.passive = passive
        self.pdof = [int(model.jnt_dofadr[j]) for j in passive]
        self.roles = self._roles(spec, passive_names or {})
        self.residual = 0.0
        self.foot_kind, self.foot_id = self._frame(spec.foot, "foot")

    def _roles(self, spec, given) -> dict:
        """The model's joint for each passive joint of the package (``knee_C`` -> yours): the name the mapping
        gives, else that name in the model, else the first passive joint down the chain of its actuated joint."""
        mj, m = self.mj, self.m
        out = {}
        for role, chain in spec.passive:
            name = given.get(role)
            if name is not None:
                j = mj.mj_name2id(m, mj.mjtObj.mjOBJ_JOINT, name)
                if j < 0 or j not in self.passive:
                    raise ValueError(f"the model has no passive joint {name!r} for {role} (--joints)")
                out[role] = name
                continue
            j = mj.mj_name2id(m, mj.mjtObj.mjOBJ_JOINT, role)
            if j >= 0 and j in self.passive:
                out[role] = role
                continue
            top, best = int(m.jnt_bodyid[self.jid[chain]]), None
            for j in self.passive:
                b, depth = int(m.jnt_bodyid[j]), 0
                while b not in (0, top):
                    b, depth = int(m.body_parentid[b]), depth + 1
                if b == top and depth > 0 and (best is None or depth < best[0]):
                    best = (depth, j)
            if best is None:
                raise ValueError(
                    f"joint {role} is missing: the model has no passive joint below {m.joint(self.jid[chain]).name!r} "
                    "(a knee written as fixed, or its <joint> left out?)"
                )
            out[role] = m.joint(best[1]).name
        return out

    def _frame(self, name, what):
        mj, m = self.mj, self.m
        s = mj.mj_name2id(m, mj.mjtObj.mjOBJ_SITE, name)
        if s >= 0:
            return "site", s
        b = mj.mj_name2id(m, mj.mjtObj.mjOBJ_BODY, name)
        if b >= 0:
            return "body", b
        raise ValueError(
            f"the model has no site or body {name!r} for the {what} (MuJoCo merges a URDF's fixed links unless "
            '<mujoco><compiler fusestatic="false"/></mujoco> is in the file; or name it with --foot)'
        )

    def point(self, kind, name):
        if kind == "joint":
            j = self.mj.mj_name2id(self.m, self.mj.mjtObj.mjOBJ_JOINT, self.roles.get(name, name))
            return None if j < 0 else self.d.xanchor[j].copy()
        try:
            k, i = self._frame(name, "point")
        except ValueError:
            return None
        return (self.d.site_xpos if k == "site" else self.d.xpos)[i].copy()

    def _close(self, padr):
        """Newton on the passive joints until the loop-closing equality holds; returns its residual (m)."""
        mj, m, d = self.mj, self.m, self.d
        res = 0.0
        for _ in range(60):
            rows = d.efc_type[: d.nefc] == mj.mjtConstraint.mjCNSTR_EQUALITY
            r = d.efc_pos[: d.nefc][rows]
            res = float(np.max(np.abs(r), initial=0.0))
            if res < 1e-15:
                break
            Jc = d.efc_J[: d.nefc * m.nv].reshape(d.nefc, m.nv)[rows][:, self.pdof]
            d.qpos[padr] -= np.linalg.lstsq(Jc, r, rcond=None)[0]
            mj.mj_forward(m, d)
        rows = d.efc_type[: d.nefc] == mj.mjtConstraint.mjCNSTR_EQUALITY
        return float(np.max(np.abs(d.efc_pos[: d.nefc][rows]), initial=0.0)) if res >= 1e-15 else res

    def _seed(self, q):
        """qpos address -> the package's angle of each passive joint at the actuated angles ``q``."""
        mj, m = self.mj, self.m
        guess = self.spec.start(q) if self.spec.start is not None else {}
        seed = {}
        for role, name in self.roles.items():
            if role in guess:
                seed[int(m.jnt_qposadr[mj.mj_name2id(m, mj.mjtObj.mjOBJ_JOINT, name)])] = guess[role]
        return seed

    def _set(self, q, flip, seed, sign, extra):
        """Actuated joints at ``q`` (``flip``: negated), passive ones at ``sign * seed + extra``; no loop closing."""
        mj, m, d = self.mj, self.m, self.d
        d.qpos[:] = m.qpos0
        for a in self.free_adr:  # the pinned body: at the origin, level
            d.qpos[a : a + 7] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
        d.qvel[:] = 0.0
        for j in self.passive:
            d.qpos[int(m.jnt_qposadr[j])] = extra
        for a, v in seed.items():
            d.qpos[a] = sign * v + extra
        for k, j in enumerate(self.jid):
            d.qpos[m.jnt_qposadr[j]] = -q[k] if flip == k or (isinstance(flip, tuple) and k in flip) else q[k]
        mj.mj_forward(m, d)

    def pose_open(self, q, sign=1.0):
        """The model at the package's configuration: actuated joints at ``q``, passive joints at the package's
        angles (times ``sign``: +1 for the package's axes, -1 for reversed ones), the loop left as it falls."""
        self._set(q, None, self._seed(q), sign, 0.0)

    def pose(self, q, flip=None, target=None):
        """Set the actuated joints to ``q`` (``flip``: that one negated) and close the loop from several starts:
        the package's passive angles (by name or place in the tree), those negated (a reversed axis), zero and
        quarter turns; of the starts that close, the one whose foot is nearest ``target``."""
        mj, m, d = self.mj, self.m, self.d
        seed = self._seed(q)
        padr = [int(m.jnt_qposadr[j]) for j in self.passive]
        if not self.passive:
            self._set(q, flip, seed, 1.0, 0.0)
            self.residual = 0.0
            return
        best = None
        for sign, extra in ((1.0, 0.0), (-1.0, 0.0), (0.0, 0.0), (0.0, np.pi / 2), (0.0, -np.pi / 2)):
            self._set(q, flip, seed, sign, extra)
            res = self._close(padr)
            closed = res < 1e-10
            miss = 0.0 if target is None else float(np.linalg.norm(self.foot() - target))
            key = (not closed, res if not closed else miss)
            if best is None or key < best[0]:
                best = (key, d.qpos.copy(), res)
            if closed and miss < 1e-12:
                break
        d.qpos[:] = best[1]
        mj.mj_forward(m, d)
        self.residual = best[2]

    def foot(self):
        return (self.d.site_xpos if self.foot_kind == "site" else self.d.xpos)[self.foot_id].copy()

    def _hold(self, r):
        """Actuated joint torques that hold the generalised force ``r`` with the passive joints free."""
        mj, m, d = self.mj, self.m, self.d
        if not self.pdof:
            return r[self.act]
        rows = d.efc_type[: d.nefc] == mj.mjtConstraint.mjCNSTR_EQUALITY
        Jc = d.efc_J[: d.nefc * m.nv].reshape(d.nefc, m.nv)[rows]
        lam = np.linalg.lstsq(Jc[:, self.pdof].T, r[self.pdof], rcond=None)[0]
        return r[self.act] - Jc[:, self.act].T @ lam

    def velocity_map(self):
        """``T`` (nv, n): the joint velocities of unit actuated velocities, the passive ones keeping the loop closed."""
        mj, m, d = self.mj, self.m, self.d
        T = np.zeros((m.nv, len(self.act)))
        T[self.act, np.arange(len(self.act))] = 1.0
        if self.pdof:
            rows = d.efc_type[: d.nefc] == mj.mjtConstraint.mjCNSTR_EQUALITY
            Jc = d.efc_J[: d.nefc * m.nv].reshape(d.nefc, m.nv)[rows]
            T[self.pdof] = -np.linalg.lstsq(Jc[:, self.pdof], Jc[:, self.act], rcond=None)[0]
        return T

    def mass_matrix(self):
        """MuJoCo's mass matrix (``mj_fullM``) in the actuated joints: ``T^T M T``."""
        mj, m, d = self.mj, self.m, self.d
        M = np.zeros((m.nv, m.nv))
        mj.mj_fullM(m, d, M)
        M -= np.diag(m.dof_armature)  # rotor inertia the package's M(q) does not hold: not compared
        T = self.velocity_map()
        return T.T @ M @ T

    def body_jacobians(self):
        """``{body: (3, n)}`` angular velocity of each massive body in its own frame per unit actuated velocity."""
        mj, m, d = self.mj, self.m, self.d
        T = self.velocity_map()
        out = {}
        for b in range(1, m.nbody):
            if m.body_mass[b] <= 0:
                continue
            jr = np.zeros((3, m.nv))
            mj.mj_jacBody(m, d, None, jr, b)
            R = d.xmat[b].reshape(3, 3) @ _quat_mat(m.body_iquat[b])  # the inertia frame of the body
            out[b] = (R.T @ jr @ T, R)
        return out

    def torques(self, force):
        mj, m, d = self.mj, self.m, self.d
        jacp = np.zeros((3, m.nv))
        if self.foot_kind == "site":
            mj.mj_jacSite(m, d, jacp, None, self.foot_id)
        else:
            mj.mj_jacBody(m, d, jacp, None, self.foot_id)
        tau_f = self._hold(jacp.T @ force)
        tau_g = self._hold(d.qfrc_bias.copy())
        return tau_f, tau_g


def check_engine_model(
    params: str | Path | Design,
    model: Any = None,
    *,
    joints: Any = None,
    foot: str | None = None,
    tol_position: float = TOL_POSITION,
    tol_torque: float = TOL_TORQUE,
) -> EngineCheckResult:
    """Compare a MuJoCo model with the package's kinematics of a parameter file, before any simulation.

    Parameters
    ----------
    params : str, Path or Design
        The ``two_link_leg``, ``fivebar``, ``serial_arm`` or ``wheel_leg`` parameter file (or its design).
    model : str, Path, mujoco.MjModel or EngineModel, optional
        Your URDF or MJCF file (MuJoCo compiles URDF), a compiled model, or the generated one (default:
        :func:`engine_model` of ``params``).
    joints : sequence of str or dict, optional
        The model's names of the package's actuated joints, in the package's order, or a mapping from the default
        names (``hip, knee``; ``motor_A, motor_B``; ``joint1 ... jointN``, those of :mod:`robokin.urdf` and
        :mod:`robokin.sim`) to yours. Every other joint of a closed chain is passive and solved from the model's
        loop-closing equality.
    foot : str, optional
        The site or body at the foot (the tool point of an arm): default ``foot`` (leg), ``foot_C`` (five-bar),
        ``tool`` (arm); for a wheel-legged robot two, ``"LEFT,RIGHT"`` (default ``L_foot_C,R_foot_C``).
    tol_position, tol_torque : float
        Tolerances of the foot position (m) and of the joint torques (N m).

    Returns
    -------
    EngineCheckResult
        Checks ``foot position`` (model foot against the package's FK over a grid of joint or motor angles),
        ``static torques`` (the torques that hold a foot force, from MuJoCo's foot Jacobian and loop constraint,
        against ``J^T F`` of the package), ``gravity torques`` (MuJoCo's ``qfrc_bias`` at rest against the
        package's, when the file gives every link's inertials; skipped otherwise), ``mass matrix`` (MuJoCo's
        ``mj_fullM`` in the actuated joints, ``T^T M T`` with the passive joints of a loop following, against the
        package's ``M(q)``; skipped, saying the tensor is not checked, unless every link's mass, ``com`` and
        ``inertia`` are in the file), ``joint limits`` (each actuated joint's range in the model against the file's
        limits, within ``TOL_LIMITS`` rad; a range wider than a turn or about 57.3 times the file's is named as
        degrees where radians are expected, with or without the file's limits; skipped when the file or the model
        has no limits), and findings naming what a mismatch looks like. A ``wheel_leg`` adds ``body mass``,
        ``body com`` (from the hip axis, the four motors' midpoint, in the body's frame) and ``body pitch inertia``
        (the free joint's body and what is fixed to it, against ``[body]``), ``leg sides`` (the left leg at
        ``+y``, the right at ``-y``; the detail gives the measured track) and ``wheel radius`` (the wheel body's
        cylinder geom against ``wheel.radius_m``; skipped, saying so, without one); its links are found by the
        joints that move them (thigh A: the body of motor A's joint, shank C: of knee C's, the wheel: the massive
        body at the foot), whatever the model calls them.

    Raises
    ------
    ParameterFileError
        A bad parameter file.
    ValueError
        A model file that is missing or does not compile, or that lacks the joints or the foot named.

    Examples
    --------
    >>> from robokin.params import EXAMPLES
    >>> r = check_engine_model(EXAMPLES / "fivebar_ch03.toml")
    >>> [(c.name, c.passed) for c in r.checks]  # chapter 3's file gives no motor limits
    [('foot position', True), ('static torques', True), ('gravity torques', True), ('mass matrix', True), ('joint limits', None)]
    """
    d = _design(params)
    for v, name in ((tol_position, "tol_position"), (tol_torque, "tol_torque")):
        if not isinstance(v, (int, float)) or not np.isfinite(v) or v <= 0:
            raise ValueError(f"{name} must be a positive number, got {v!r}")
    # the generated model (a modified-DH arm has none: it needs model=, and engine_model says so without one)
    em = (
        engine_model(d)
        if model is None or d.family != "serial_arm" or d.extra["as_written"].convention == "standard"
        else None
    )
    mj_model, label = _compile(em if model is None else model)
    names, passive_names = _joint_names(d, joints)
    foot_name = foot if foot is not None else _DEFAULT_FOOT[d.family]
    if not isinstance(foot_name, str):
        raise ValueError(f"foot must be the name of a site or body, got {foot!r}")
    if d.family == "wheel_leg":  # each leg's foot in turn, both legs' motors, the body pinned
        feet = [f.strip() for f in foot_name.split(",")]
        if len(feet) != 2 or not all(feet):
            raise ValueError(f"foot: a wheel-legged robot has two feet, 'LEFT,RIGHT' (sites or bodies), got {foot!r}")
        specs = [_wheel_leg_spec(d, em, names, f, side) for side, f in enumerate(feet)]
    else:
        build = {"two_link_leg": _leg_spec, "fivebar": _fivebar_spec, "serial_arm": _arm_spec}[d.family]
        specs = [build(d, em, names, foot_name)]
    runs, ys = [], []
    for side, spec in enumerate(specs):
        probe = _Probe(mj_model, spec, passive_names, d.family)
        if d.family == "wheel_leg":  # the leg's plane: where the model puts the motor above this foot sideways
            probe.pose(spec.q[0])
            ys.append(float(probe.d.xanchor[_wl_own_motor(probe, side)][1]))
            spec.p[:, 1] = ys[-1]
            parts = _wl_parts(probe, side)
            word = ("left", "right")[side]
            for i, (label, a, b, length, along) in enumerate(spec.segments):  # the team's body names
                raw = label[2:]
                body = parts.get(raw.split(" ")[0])
                own = f" {probe.m.body(body).name!r}" if body is not None else ""
                head, _, tail = raw.partition(" (")
                spec.segments[i] = (f"the {word} leg's {head}{own} ({tail}", a, b, length, along)
        runs.append((probe, spec, *_measure(probe, spec, len(names))))
    # the run whose foot is worst decides the findings (the other leg's, if it is the worse)
    probe, spec, p_mj, tf_mj, tg_mj, tf_pkg, M_mj, residual = max(
        runs, key=lambda r: float(np.linalg.norm(r[2] - r[1].p, axis=1).max())
    )
    err_p = np.concatenate([np.linalg.norm(r[2] - r[1].p, axis=1) for r in runs])
    err_f = np.concatenate([np.abs(r[3] - r[5]).max(axis=1) for r in runs])
    k = len(err_p)
    worst = int(np.argmax(np.linalg.norm(p_mj - spec.p, axis=1)))
    checks = [
        Check(
            "foot position",
            float(err_p.max()),
            tol_position,
            "m",
            bool(err_p.max() <= tol_position),
            f"worst at q = {np.round(spec.q[worst], 4).tolist()} rad" if err_p.max() > tol_position else "",
        ),
        Check("static torques", float(err_f.max()), tol_torque, "N m", bool(err_f.max() <= tol_torque)),
    ]
    if spec.gravity is None:
        checks.append(Check("gravity torques", float("nan"), tol_torque, "N m", None, spec.gravity_note))
    else:
        err_g = np.abs(tg_mj - spec.gravity).max()
        checks.append(Check("gravity torques", float(err_g), tol_torque, "N m", bool(err_g <= tol_torque)))
    if spec.mass is None:
        checks.append(Check("mass matrix", float("nan"), TOL_MASS, "kg m^2", None, spec.mass_note))
    else:
        err_m = float(np.abs(M_mj - spec.mass).max())
        note = "the model's armature (rotor inertia) is left out" if np.any(mj_model.dof_armature) else ""
        checks.append(Check("mass matrix", err_m, TOL_MASS, "kg m^2", bool(err_m <= TOL_MASS), note))
    others = [(r[0], r[1]) for r in runs if r[0] is not probe]
    fd = _findings_design(d, em, runs)
    findings = _findings(probe, spec, fd, em, p_mj, checks, tol_position, float(residual.max()), others)
    lim_check, lim_findings = _limits_check(probe, _file_limits(d))
    checks.append(lim_check)
    if d.family == "wheel_leg":
        wl_checks, wl_findings = _wl_checks(d, runs, ys, tol_position)
        checks += wl_checks
        swapped = any(" passes" in f and "--joints" in f for f in findings)
        if MM_FINDING not in findings:  # millimetres explain the body's and the tyres' numbers too
            findings += [f for f in wl_findings if not swapped or "legs look swapped" not in f]
    if not any(" passes" in f and "--joints" in f for f in findings):  # a wrong order explains the limits too
        findings += lim_findings
    if checks[0].passed and checks[2].passed is not False and checks[3].passed is False:
        findings += _inertia_findings(probe, spec, M_mj)
    defaulted = em.defaulted if em is not None else ()
    return EngineCheckResult(d.source, label, tuple(checks), tuple(findings), k, defaulted)


# ---- the wheel-legged robot's own checks: its body, its sides, its tyres ------------------------------------------
def _wl_subtree(m, top: int) -> set:
    """The bodies at and below ``top``."""
    out = set()
    for b in range(1, m.nbody):
        x = b
        while x > 0:
            if x == top:
                out.add(b)
                break
            x = int(m.body_parentid[x])
    return out


def _wl_root(probe: _Probe) -> int:
    """The robot's body: the body below the world that carries the left leg's motor A (the free joint's body)."""
    m = probe.m
    b = int(m.jnt_bodyid[probe.jid[0]])
    while int(m.body_parentid[b]) != 0:
        b = int(m.body_parentid[b])
    return b


def _wl_own_motor(probe: _Probe, side: int) -> int:
    """The given motor above the foot of this probe (the leg's own, whatever order ``--joints`` has)."""
    m = probe.m
    b = probe.foot_id if probe.foot_kind == "body" else int(m.site_bodyid[probe.foot_id])
    above = set()
    while b > 0:
        above.add(b)
        b = int(m.body_parentid[b])
    for j in probe.jid:
        if int(m.jnt_bodyid[j]) in above:
            return j
    return probe.jid[2 * side]


def _wl_parts(probe: _Probe, side: int) -> dict:
    """The model's bodies of leg ``side`` by the joint that moves them: ``thigh_A`` (motor A's joint), ``thigh_B``,
    ``shank_C`` (knee C's), ``shank_D``, and ``wheel``: the massive body of the leg nearest its foot that is none
    of these (None where there is none)."""
    mj, m = probe.mj, probe.m
    pre = ("L_", "R_")[side]
    parts = {"thigh_A": int(m.jnt_bodyid[probe.jid[2 * side]]), "thigh_B": int(m.jnt_bodyid[probe.jid[2 * side + 1]])}
    for k in ("C", "D"):
        name = probe.roles.get(f"{pre}knee_{k}")
        j = mj.mj_name2id(m, mj.mjtObj.mjOBJ_JOINT, name) if name else -1
        parts[f"shank_{k}"] = int(m.jnt_bodyid[j]) if j >= 0 else None
    links = set(parts.values())
    leg = _wl_subtree(m, parts["thigh_A"]) | _wl_subtree(m, parts["thigh_B"])
    rest = [b for b in sorted(leg - links) if m.body_mass[b] > 1e-9]
    at = probe.foot()
    parts["wheel"] = min(rest, key=lambda b: float(np.linalg.norm(probe.d.xipos[b] - at))) if rest else None
    return parts


def _wl_body(probe: _Probe, parts: list) -> tuple:
    """Mass, centre of mass from the hip axis (the four motors' midpoint) and pitch inertia about the centre of mass,
    in the body's frame, of the robot's body: its body and what is fixed to it, the legs and wheels left out."""
    m, d = probe.m, probe.d
    root = _wl_root(probe)
    legs = set()
    for p in parts:
        legs |= _wl_subtree(m, p["thigh_A"]) | _wl_subtree(m, p["thigh_B"])
    bodies = [b for b in sorted(_wl_subtree(m, root) - legs) if m.body_mass[b] > 0]
    R0 = d.xmat[root].reshape(3, 3)
    mass = float(sum(m.body_mass[b] for b in bodies))
    if mass <= 0:
        return root, 0.0, np.zeros(3), 0.0
    com = sum(m.body_mass[b] * d.xipos[b] for b in bodies) / mass
    inertia = np.zeros((3, 3))
    for b in bodies:
        R = d.xmat[b].reshape(3, 3) @ _quat_mat(m.body_iquat[b])
        r = d.xipos[b] - com
        inertia += R @ np.diag(m.body_inertia[b]) @ R.T + m.body_mass[b] * (r @ r * np.eye(3) - np.outer(r, r))
    hip = np.mean([d.xanchor[j] for j in probe.jid], axis=0)
    return root, mass, R0.T @ (com - hip), float((R0.T @ inertia @ R0)[1, 1])


def _v(x) -> list:
    """A vector to print: rounded to 1e-6, without ``-0.0``."""
    return (np.round(np.asarray(x, float), 6) + 0.0).tolist()


def _wl_checks(d: Design, runs: list, ys: list, tol: float) -> tuple[list, list]:
    """The wheel-legged robot's rows the legs' checks do not hold: its body against [body], which side each leg is
    on, and the tyre radius against wheel.radius_m; and the findings of those that fail."""
    wl = d.mechanism
    probe, spec = runs[0][0], runs[0][1]
    m = probe.m
    probe.pose(spec.q[0], target=spec.p[0])
    parts = [_wl_parts(r[0], side) for side, r in enumerate(runs)]
    root, mass, com, pitch = _wl_body(probe, parts)
    name = m.body(root).name
    what = f"the body {name!r} (with what is fixed to it; the legs and wheels are their own bodies)"
    checks, out = [], []
    err = abs(mass - wl.m_b)
    checks.append(Check("body mass", err, TOL_MASS, "kg", bool(err <= TOL_MASS * max(1.0, wl.m_b))))
    if not checks[-1].passed:
        out.append(f"{what} has mass {mass:.6g} kg in the model, {wl.m_b:.6g} kg in the file (body.mass_kg)")
    want = np.array([0.0, 0.0, wl.l_c])
    err = float(np.linalg.norm(com - want))
    checks.append(Check("body com", err, tol, "m", bool(err <= tol)))
    if not checks[-1].passed:
        out.append(
            f"{what} has its centre of mass at {_v(com)} m from the hip axis (the motors' midpoint, in the body's "
            f"frame) in the model, {_v(want)} m in the file (body.com_height_m above the hip axis)"
        )
    err = abs(pitch - wl.I_b)
    checks.append(Check("body pitch inertia", err, TOL_MASS, "kg m^2", bool(err <= TOL_MASS)))
    if not checks[-1].passed:
        out.append(
            f"{what} has the pitch inertia {pitch:.6g} kg m^2 about its centre of mass in the model, {wl.I_b:.6g} in "
            "the file (body.pitch_inertia_kg_m2)"
        )
    yl, yr = ys
    wrong = max(0.0, -yl) + max(0.0, yr)
    detail = f"track {abs(yl - yr):.6g} m: left leg at y = {yl + 0.0:+.6g} m, right at {yr + 0.0:+.6g} m"
    checks.append(Check("leg sides", wrong, tol, "m", bool(yl > tol and yr < -tol), detail))
    if not checks[-1].passed:
        feet = ", ".join(f"{s} foot {r[1].foot!r}" for s, r in zip(("left", "right"), runs))
        if yl < 0 < yr:
            out.append(
                f"the legs look swapped: the left leg is at y = {yl:+.6g} m and the right at {yr:+.6g} m ({feet}); "
                "y points to the robot's left, so the left leg belongs at +y (swap the L and R names, or the sign "
                "of each leg's y)"
            )
        else:
            out.append(
                f"the left leg is at y = {yl + 0.0:+.6g} m and the right at {yr + 0.0:+.6g} m ({feet}): the left leg "
                "belongs at +y and the right at -y, a track apart"
            )
    radii, missing = [], []
    for p in parts:
        b = p["wheel"]
        cyl = [] if b is None else [g for g in range(m.ngeom) if int(m.geom_bodyid[g]) == b]
        cyl = [g for g in cyl if int(m.geom_type[g]) == int(probe.mj.mjtGeom.mjGEOM_CYLINDER)]
        if cyl:
            radii.append((m.body(b).name, float(m.geom_size[cyl[0]][0])))
        else:
            missing.append("no wheel body" if b is None else repr(m.body(b).name))
    if missing:
        checks.append(
            Check(
                "wheel radius",
                float("nan"),
                tol,
                "m",
                None,
                f"not checked: no cylinder geom (the tyre) on {', '.join(missing)}",
            )
        )
    else:
        err = max(abs(r - wl.R) for _, r in radii)
        checks.append(Check("wheel radius", err, tol, "m", bool(err <= tol)))
        for b, r in radii:
            if abs(r - wl.R) > tol:
                out.append(
                    f"the tyre (cylinder geom) of wheel {b!r} has radius {r:.6g} m in the model, {wl.R:.6g} m in the "
                    "file (wheel.radius_m)"
                )
    return checks, out


def _wl_offsets(probe: _Probe, d: Design, tol: float) -> list[str]:
    """Which leg's motors are off the hip axis (the body's origin): each leg's motors A, B at ``x = -d/2, +d/2``,
    ``z = 0`` in the body's frame; both legs shifted alike is the body's origin off the motors' midpoint."""
    m, pd = probe.m, probe.d
    root = _wl_root(probe)
    R0, o = pd.xmat[root].reshape(3, 3), pd.xpos[root]
    half = 0.5 * d.extra["linkage"].d
    offs = []
    for s in range(2):
        a, b = (R0.T @ (pd.xanchor[probe.jid[2 * s + k]] - o) for k in (0, 1))
        ea, eb = a - [-half, a[1], 0.0], b - [half, b[1], 0.0]
        offs.append(None if np.linalg.norm(ea - eb) > tol else 0.5 * (ea + eb))  # a wrong d: named by its length
    bad = [s for s in range(2) if offs[s] is not None and np.linalg.norm(offs[s]) > tol]
    body = m.body(root).name
    if len(bad) == 2 and np.linalg.norm(offs[0] - offs[1]) <= tol:
        return [
            f"both legs' motors sit {_v(offs[0])} m from the origin of the body {body!r} (its frame): the body's "
            "origin must sit on the hip axis, the midpoint of the motors (or move both legs by the opposite)"
        ]
    out = []
    for s in bad:
        side, other = ("left", "right") if s == 0 else ("right", "left")
        names = " and ".join(repr(m.joint(probe.jid[2 * s + k]).name) for k in (0, 1))
        rest = "" if len(bad) == 2 else f", where the {other} leg's motors are"
        out.append(
            f"the {side} leg's motors {names} sit {_v(offs[s])} m off the hip axis (the origin of the body "
            f"{body!r}{rest})"
        )
    return out


def _findings_design(d: Design, em, runs=()) -> Design:
    """The design the findings compare bodies with: a wheel-legged robot's links and wheels by the model's names of
    the bodies the joints move (thigh A: motor A's joint's body, shank C: knee C's, ...; the wheel: the massive body
    at the foot)."""
    if d.family != "wheel_leg":
        return d
    _, links = _wheel_leg_parts(d, 0.01)
    named = {}
    for side, r in enumerate(runs):
        probe = r[0]
        for role, b in _wl_parts(probe, side).items():
            if b is None:
                continue
            if role == "wheel":
                named[probe.m.body(b).name] = {"mass": 0.5 * d.mechanism.m_w, "field": "half of wheel.mass_kg"}
            else:
                share = "its share of leg.mass_kg, in proportion to length"
                named[probe.m.body(b).name] = {**links[role], "field": f"{role}: {share}"}
    return Design("wheel_leg", d.name, d.source, d.mechanism, {**d.extra, "links": named})


def _measure(probe: _Probe, spec: _Spec, n: int):
    """The model's foot, torques, mass matrix and loop residual at each of the spec's configurations."""
    k = len(spec.q)
    p_mj = np.empty((k, 3))
    tf_mj, tg_mj, tf_pkg = (np.empty((k, n)) for _ in range(3))
    residual = np.zeros(k)
    M_mj = np.empty((k, n, n))
    for i, qk in enumerate(spec.q):
        probe.pose(qk, target=spec.p[i])
        residual[i] = probe.residual
        p_mj[i] = probe.foot()
        M_mj[i] = probe.mass_matrix()
        tf_mj[i], tg_mj[i] = probe.torques(spec.force)
        tf_pkg[i] = spec.jac(qk).T @ spec.force
    return p_mj, tf_mj, tg_mj, tf_pkg, M_mj, residual


#: Tolerance of the joint limits (rad): a file in degrees rounded to 1e-4 rad in the model still passes.
TOL_LIMITS = 1e-3


def _file_limits(d: Design):
    """The file's limits of the actuated joints, (n, 2) rad, or None."""
    if d.family == "two_link_leg":
        leg = d.mechanism
        return None if leg.q_min is None else np.stack([leg.q_min, leg.q_max], axis=-1)
    if d.family == "fivebar":
        lim = d.extra.get("limits") or {}
        return np.stack([lim["q_min"], lim["q_max"]], axis=-1) if lim else None
    if d.family == "wheel_leg":  # the schema has leg lengths, not motor limits
        return None
    qlim = d.extra["as_written"].qlim
    return None if qlim is None else np.asarray(qlim, float)


def _limits_check(probe: _Probe, lim) -> tuple[Check, list[str]]:
    """Each actuated joint's range in the model against the file's limits; a range wider than a turn, or about
    57.3 times the file's, is degrees where radians are expected."""
    m = probe.m
    if lim is None:  # nothing to compare with; a range wider than a turn is still degrees, not radians
        wide = []
        for j in probe.jid:
            lo, hi = (float(x) for x in m.jnt_range[j])
            if m.jnt_limited[j] and hi - lo > 2 * np.pi:
                wide.append((m.joint(j).name, lo, hi))
        if not wide:
            return Check("joint limits", float("nan"), TOL_LIMITS, "rad", None, "the file gives no joint limits"), []
        out = [
            f"joint {name!r} has the range [{lo:.6g}, {hi:.6g}] in the model, wider than a turn (2 pi rad): degrees "
            "where radians are expected"
            for name, lo, hi in wide
        ]
        width = max(hi - lo for _, lo, hi in wide)
        return Check("joint limits", width, 2 * np.pi, "rad", False, "the file gives no joint limits"), out
    err, out, unlimited = 0.0, [], []
    for k, j in enumerate(probe.jid):
        name = m.joint(j).name
        if not m.jnt_limited[j]:
            unlimited.append(name)
            continue
        lo, hi = (float(x) for x in m.jnt_range[j])
        flo, fhi = (float(x) for x in lim[k])
        e = max(abs(lo - flo), abs(hi - fhi))
        err = max(err, e)
        if e <= TOL_LIMITS:
            continue
        ratio = (hi - lo) / (fhi - flo) if fhi > flo else float("nan")
        if hi - lo > 2 * np.pi or abs(ratio / np.degrees(1.0) - 1.0) < 0.02:
            out.append(
                f"joint {name!r} has the range [{lo:.6g}, {hi:.6g}] in the model, {ratio:.3g}x the file's "
                f"[{flo:.6g}, {fhi:.6g}] rad: degrees where radians are expected"
            )
        else:
            out.append(
                f"joint {name!r} has the range [{lo:.6g}, {hi:.6g}] rad in the model, [{flo:.6g}, {fhi:.6g}] in the file"
            )
    if len(unlimited) == len(probe.jid):
        return Check("joint limits", float("nan"), TOL_LIMITS, "rad", None, "the model's joints have no range"), []
    detail = f"no range in the model: {', '.join(unlimited)}" if unlimited else ""
    return Check("joint limits", err, TOL_LIMITS, "rad", err <= TOL_LIMITS, detail), out


def _body_anchored(probe: _Probe, spec: _Spec, tol: float) -> str:
    """Why a body-anchored loop closure (``<connect body1=... body2=... anchor=...>``) closes at the wrong point,
    or "" when it does not (or when the model closes its loop with sites).

    MuJoCo assumes the constraint holds at qpos0 and computes the point on body2 from it (``eq_data[3:6]``, in
    body2's frame). Each of the two points must lie at its shank's length from the shank's knee joint (the
    parameter file's); a point that does not shows that qpos0 is not a closed pose of the loop (a five-bar written
    like the generated model, every link along x at joint angle 0, is open there). Site-anchored equalities name
    both points and have no such trap.
    """
    m, mj = probe.m, probe.mj
    shank = {  # passive joint's role -> (label, length from its knee to the foot)
        a[1]: (label, length) for label, a, b, length, _ in spec.segments if a[0] == "joint" and b[0] == "foot"
    }
    by_joint = {probe.roles.get(r, r): r for r in shank}  # the model's joint name -> role
    for e in range(m.neq):
        if int(m.eq_type[e]) != int(mj.mjtEq.mjEQ_CONNECT) or int(m.eq_objtype[e]) != int(mj.mjtObj.mjOBJ_BODY):
            continue
        ends = ((int(m.eq_obj1id[e]), m.eq_data[e][0:3]), (int(m.eq_obj2id[e]), m.eq_data[e][3:6]))
        for k, (body, point) in enumerate(ends):
            for j in range(m.njnt):
                role = by_joint.get(m.joint(j).name)
                if int(m.jnt_bodyid[j]) != body or role is None:
                    continue
                v = np.asarray(point, float) - m.jnt_pos[j]
                axis = m.jnt_axis[j] / np.linalg.norm(m.jnt_axis[j])
                dist = float(np.linalg.norm(v - (v @ axis) * axis))  # from the joint's axis, in the leg's plane
                label, length = shank[role]
                if abs(dist - length) <= max(tol, 1e-12):
                    continue
                b1, b2 = (m.body(int(i)).name for i in (m.eq_obj1id[e], m.eq_obj2id[e]))
                where = "the anchor" if k == 0 else "the point MuJoCo computed (where the anchor lay at qpos0)"
                return (
                    f"the equality joining {b1!r} and {b2!r} is body-anchored (<connect body1= body2= anchor=>): "
                    f"on {m.body(body).name!r}, {where} is {1e3 * dist:.1f} mm from joint {m.joint(j).name!r}, and "
                    f"the file's {label} is {1e3 * length:.1f} mm: qpos0 is not a closed pose of the loop. Name both "
                    "points with site1= and site2= (a site at each shank's foot point; engine-check --write-sites "
                    "OUT.xml writes them), or write the bodies at a closed pose with each joint's ref at its angle "
                    "there"
                )
    return ""


def _line_distance(p1, u1, p2, u2) -> float:
    """Distance between the lines ``p1 + s u1`` and ``p2 + t u2`` (parallel lines: the perpendicular distance)."""
    n = np.cross(u1, u2)
    if np.linalg.norm(n) < 1e-9:
        w = p2 - p1
        return float(np.linalg.norm(w - (w @ u1) * u1))
    return float(abs((p2 - p1) @ n) / np.linalg.norm(n))


def _arm_axes(probe: _Probe, spec: _Spec, d: Design, tol) -> list[str]:
    """An arm's link lengths as the model has them: the distance between consecutive joint axes and from the last
    axis to the tool point, against the DH table's (the same at every pose)."""
    w = d.extra["as_written"]
    q0 = spec.q[0]
    F = w.fk_all(q0)
    shift = 0 if w.convention == "standard" else 1  # joint k turns about z of frame k-1 (standard) or k (modified)
    pkg = [(F[k + shift, :3, 3], F[k + shift, :3, 2]) for k in range(len(spec.joints))]
    probe.pose(q0, target=spec.p[0])
    mdl = [(probe.d.xanchor[j].copy(), probe.d.xaxis[j] / np.linalg.norm(probe.d.xaxis[j])) for j in probe.jid]
    out = []
    for k in range(len(pkg) - 1):
        a, b = _line_distance(*pkg[k], *pkg[k + 1]), _line_distance(*mdl[k], *mdl[k + 1])
        if abs(a - b) > tol:
            out.append(
                f"the axes of joints {spec.joints[k]!r} and {spec.joints[k + 1]!r} are {b:.6g} m apart in the model "
                f"and {a:.6g} m in the DH table ({1e3 * (b - a):+.3g} mm)"
            )
    p_pkg, p_mdl = spec.p[0], probe.foot()
    a = _line_distance(p_pkg, pkg[-1][1], *pkg[-1])
    b = _line_distance(p_mdl, mdl[-1][1], *mdl[-1])
    if abs(a - b) > tol:
        out.append(
            f"the tool point is {b:.6g} m from the axis of joint {spec.joints[-1]!r} in the model and {a:.6g} m in "
            f"the file (DH table and [tool], {1e3 * (b - a):+.3g} mm)"
        )
    return out


MM_FINDING = "all lengths are 1000x the file's: model in millimetres? (URDF and MJCF lengths are in metres)"


def _swapped(probe: _Probe, spec: _Spec, tol, others=()) -> list[str]:
    """The actuated joints in another order that make the foot follow the FK (of ``others`` too: the other leg of a
    wheel-legged robot, its own probe and spec): every order for up to 6 joints, swaps of two joints beyond."""
    names, jid, act = list(spec.joints), list(probe.jid), list(probe.act)
    rest = [(pr, sp, list(pr.jid), list(pr.act)) for pr, sp in others]
    n = len(names)
    if n <= 6:
        perms = [p for p in itertools.permutations(range(n)) if list(p) != list(range(n))]
    else:
        perms = []
        for a, b in itertools.combinations(range(n), 2):
            p = list(range(n))
            p[a], p[b] = b, a
            perms.append(tuple(p))
    try:
        for perm in perms:
            probe.jid, probe.act = [jid[i] for i in perm], [act[i] for i in perm]
            for pr, _, j0, a0 in rest:
                pr.jid, pr.act = [j0[i] for i in perm], [a0[i] for i in perm]
            ok = True
            for pr, sp in [(probe, spec)] + [(r[0], r[1]) for r in rest]:
                for i, qk in enumerate(sp.q):
                    pr.pose(qk, target=sp.p[i])
                    if np.linalg.norm(pr.foot() - sp.p[i]) > tol:
                        ok = False
                        break
                if not ok:
                    break
            if ok:
                order = ",".join(names[i] for i in perm)
                moved = [names[i] for i in range(n) if perm[i] != i]
                if len(moved) == 2:
                    return [f"joints {moved[0]!r} and {moved[1]!r} look swapped: --joints {order} passes"]
                return [f"the joint order looks wrong: --joints {order} passes"]
    finally:
        probe.jid, probe.act = jid, act
        for pr, _, j0, a0 in rest:
            pr.jid, pr.act = j0, a0
    return []


def _inertia_findings(probe: _Probe, spec: _Spec, M_mj) -> list[str]:
    """Name the one body whose inertia tensor alone explains the mass-matrix difference (a constant tensor error
    ``X`` in its own frame gives ``dM = Jw^T X Jw``); add when ``X`` is the parallel-axis term ``m (|c|^2 1 - c c^T)``
    of its centre of mass (the tensor written about the joint, not the centre of mass)."""
    m = probe.m
    dM = M_mj - spec.mass
    n = dM.shape[1]
    iu = np.triu_indices(n)
    rhs = dM[:, iu[0], iu[1]].ravel()
    basis = [np.outer(e, f) + np.outer(f, e) if i != j else np.outer(e, e) for i, j, e, f in _sym_basis()]
    jacs = []
    for i, qk in enumerate(spec.q):
        probe.pose(qk, target=spec.p[i])
        jacs.append(probe.body_jacobians())
    cols = {
        b: np.stack([np.concatenate([(J[b][0].T @ E @ J[b][0])[iu] for J in jacs]) for E in basis], axis=-1)
        for b in jacs[0]
    }
    scale = np.linalg.norm(rhs)
    for size in (1, 2):  # the fewest bodies whose tensors alone explain the difference
        for group in itertools.combinations(sorted(cols), size):
            A = np.concatenate([cols[b] for b in group], axis=1)
            x, *_ = np.linalg.lstsq(A, rhs, rcond=None)
            if np.linalg.norm(A @ x - rhs) > 1e-6 * scale:
                continue
            pred = np.zeros_like(rhs)
            for b in group:  # each tensor written about the body's origin (its joint) instead of its COM
                c_i = _quat_mat(m.body_iquat[b]).T @ m.body_ipos[b]
                shift = m.body_mass[b] * (c_i @ c_i * np.eye(3) - np.outer(c_i, c_i))
                pred += cols[b] @ np.array([shift[i, j] for i, j, *_ in _sym_basis()])
            if np.linalg.norm(pred - rhs) <= 1e-3 * scale:
                hint = ": the tensor is written about the joint (the body's origin), not about the centre of mass"
            elif np.linalg.norm(pred + rhs) <= 1e-3 * scale:
                hint = ": the file's tensor looks like one about the joint, the model's about the centre of mass"
            else:
                hint = ""
            names = " and ".join(repr(m.body(b).name) for b in group)
            if size == 1:  # bodies that turn together (a wheel held on its shank) explain it equally: name them all
                alike = [
                    b
                    for b in sorted(cols)
                    if b != group[0]
                    and np.linalg.norm(cols[b] @ np.linalg.lstsq(cols[b], rhs, rcond=None)[0] - rhs) <= 1e-6 * scale
                ]
                if alike:
                    names += " (or " + ", ".join(repr(m.body(b).name) for b in alike) + ": they turn together here)"
            what = (
                f"the inertia tensor of link {names} explains"
                if size == 1
                else f"the inertia tensors of links {names} explain"
            )
            return [f"{what} the mass-matrix difference (up to {np.abs(dM).max():.3g} kg m^2){hint}"]
    return ["the mass matrix differs: compare each link's inertia tensor (about its centre of mass) with the file"]


def _sym_basis():
    eye = np.eye(3)
    return [(i, j, eye[i], eye[j]) for i in range(3) for j in range(i, 3)]


def _findings(probe: _Probe, spec: _Spec, d: Design, em, p_mj, checks, tol, residual=0.0, others=()) -> list[str]:
    out = []
    m = probe.m
    if checks[0].passed is False:
        big = 1000.0 * spec.p
        if np.abs(p_mj - big).max() <= 1e-3 * np.abs(big).max():
            return [MM_FINDING]
        for k, name in enumerate(spec.joints):
            err = 0.0
            for i, qk in enumerate(spec.q):
                probe.pose(qk, flip=k, target=spec.p[i])
                err = max(err, float(np.linalg.norm(probe.foot() - spec.p[i])))
            if err <= tol:
                out.append(
                    f"joint {name!r} turns the other way: its axis is flipped (reverse the sign of its axis, "
                    "or of its angle)"
                )
        if not out and d.family == "wheel_leg":  # a mirrored leg: both of its motors turn the other way
            for s, word in enumerate(("left", "right")):
                err = 0.0
                for i, qk in enumerate(spec.q):
                    probe.pose(qk, flip=(2 * s, 2 * s + 1), target=spec.p[i])
                    err = max(err, float(np.linalg.norm(probe.foot() - spec.p[i])))
                if err <= tol:
                    out.append(
                        f"both motors of the {word} leg ({spec.joints[2 * s]!r} and {spec.joints[2 * s + 1]!r}) "
                        "turn the other way: a mirrored leg (both legs' motor axes are the package's (0, -1, 0), "
                        "left and right alike; reverse both axes)"
                    )
        flipped = bool(out)
        if not out:
            out += _swapped(probe, spec, tol, others)
            if out:  # the link lengths and limits follow from the order
                return out
        anchored = "" if out else _body_anchored(probe, spec, tol)
        if residual > max(tol, 1e-10) and not out:  # an open loop that no flipped motor axis explains
            out.append(
                f"loop closure not satisfied (residual {residual:.3g} m): at the package's motor angles the model's "
                "loop-closing equality cannot be met; "
                + (anchored or "compare its link lengths and the equality's sites with the file")
            )
        elif anchored:  # the loop closes, at the wrong point
            out.append(anchored[0].upper() + anchored[1:])
        probe.pose(spec.q[0], target=spec.p[0])
        ratios = []
        for label, a, b, length, along in spec.segments:
            pa, pb = probe.point(*a), probe.point(*b)
            if pa is None or pb is None:
                continue
            got = float(np.linalg.norm(pb - pa))
            ratios.append(got / length)
            # a shank of the five-bar turns with the loop: only its length is set by the motor angles
            want = along(spec.q[0]) if along is not None and not flipped else pb - pa
            u = want / np.linalg.norm(want)
            off = (pb - pa) - ((pb - pa) @ u) * u  # the model's vector across the package's link axis
            what = label if label.startswith("the ") else f"link {label}"
            if np.linalg.norm(off) > tol and np.linalg.norm(off) > abs(got - length):
                out.append(
                    f"{what}: its far joint is {1e3 * np.linalg.norm(off):.3g} mm off the link's axis in the "
                    f"model (joint-to-joint vector {np.round(pb - pa, 6).tolist()} m, the file's "
                    f"{np.round(want, 6).tolist()} m at q = {np.round(spec.q[0], 4).tolist()} rad)"
                )
            elif abs(got - length) > tol:
                out.append(
                    f"{what} is {got:.6g} m long in the model and {length:.6g} m in the parameter file "
                    f"({1e3 * (got - length):+.3g} mm)"
                )
        if d.family == "serial_arm":
            out += _arm_axes(probe, spec, d, tol)
        if len(ratios) > 1 and np.allclose(ratios, 1000.0, rtol=1e-3):
            return [MM_FINDING]
        e = p_mj - spec.p
        mean = e.mean(axis=0)
        if d.family == "wheel_leg":  # which leg's motors are off the hip axis, or the body's origin off it
            out += _wl_offsets(probe, d, tol)
        elif np.abs(e - mean).max() <= tol and np.linalg.norm(mean) > tol:
            out.append(f"the model's base is offset by {_v(mean)} m from the package's origin")
        if not out:
            out.append(
                "the foot does not follow the package's FK: check the joint names and order (--joints), the foot "
                "frame (--foot) and each joint's origin"
            )
    elif checks[1].passed is False:
        out.append("the foot follows the FK but the torques do not: check which frame is the foot (--foot)")
    if checks[2].passed is False:
        g = np.asarray(m.opt.gravity, float)
        if not np.allclose(g, [0.0, 0.0, -G]):
            out.append(f"the model's gravity is {g.tolist()} m/s^2; the package's is [0, 0, -{G}]")
        links = d.extra.get("links", {})
        probe.pose(spec.q[0], target=spec.p[0])
        world = spec.coms(spec.q[0]) if spec.coms is not None else {}
        for link, ins in links.items():
            b = probe.mj.mj_name2id(m, probe.mj.mjtObj.mjOBJ_BODY, link)
            if b < 0:
                continue
            if abs(m.body_mass[b] - ins["mass"]) > 1e-12 * max(1.0, ins["mass"]):
                out.append(
                    f"{'wheel' if 'wheel.' in ins.get('field', '') else 'link'} {link!r} has mass {m.body_mass[b]:.6g} "
                    f"kg in the model, {ins['mass']:.6g} kg in the file"
                    + (f" ({ins['field']})" if "field" in ins else "")
                )
            elif checks[0].passed and link in world and np.linalg.norm(probe.d.xipos[b] - world[link]) > tol:
                out.append(
                    f"link {link!r} has its centre of mass at {np.round(probe.d.xipos[b], 6).tolist()} m in the "
                    f"model, {np.round(world[link], 6).tolist()} m from the file (world frame, at q = "
                    f"{np.round(spec.q[0], 4).tolist()} rad)"
                )
        hub = (d.extra.get("foot") or {}).get("hub_mass")
        at_foot = probe.foot()
        for b in range(1, m.nbody):
            name = m.body(b).name
            if m.body_mass[b] <= 1e-9 or name in links or b in probe.pinned_bodies:
                continue
            if np.linalg.norm(probe.d.xipos[b] - at_foot) <= 1e-6:  # a body at the foot: the hub motor
                if hub is None:
                    out.append(
                        f"body {name!r} at the foot carries {m.body_mass[b]:.6g} kg and the file has no hub motor "
                        "([foot] hub_mass_kg)"
                    )
                elif abs(m.body_mass[b] - hub) > 1e-12 * max(1.0, hub):
                    out.append(
                        f"body {name!r} at the foot (the hub motor) has mass {m.body_mass[b]:.6g} kg in the model, "
                        f"{hub:.6g} kg in the file (foot.hub_mass_kg)"
                    )
                continue
            if em is not None or links:
                out.append(f"body {name!r} carries {m.body_mass[b]:.6g} kg that the parameter file does not")
        if not out:
            out.append("the gravity torques differ: compare each link's mass and centre of mass with the file")
    return out
