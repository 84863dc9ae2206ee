"""A five-bar's body-anchored loop closure rewritten with sites, placed by the package's kinematics.

MuJoCo's body-anchored ``<connect body1=... body2=... anchor=...>`` assumes the constraint holds at ``qpos0`` and
computes the point on body2 from it (MuJoCo's XML reference, ``equality/connect``). A five-bar written like the
generated model, every link along x at joint angle 0, is an open loop there, so the engine check
(:func:`robokin.params.engine.check_engine_model`) names the point as wrong. :func:`site_anchored` writes the
form that names both points: it poses the model at the package's closed configuration of the parameter file
(motors and passive knees at the package's angles, without solving the model's constraint), puts a site on each
of the two bodies at the package's foot point there, turns the connect into ``<connect site1= site2=>`` and
returns the new MJCF text only if the engine check passes its foot-position check on it.

Examples
--------
>>> import re
>>> from robokin.params import EXAMPLES
>>> from robokin.params.engine import engine_model
>>> xml = re.sub(r'site1="foot_C" site2="foot_D"', 'body1="shank_C" body2="shank_D" anchor="0.1 0 0"',
...              engine_model(EXAMPLES / "fivebar_ch03.toml").mjcf)
>>> fixed = site_anchored(EXAMPLES / "fivebar_ch03.toml", xml)
>>> [(s.body, s.name, s.pos) for s in fixed.sites]
[('shank_C', 'shank_C_loop', (0.1, 0.0, 0.0)), ('shank_D', 'shank_D_loop', (0.1, 0.0, 0.0))]
>>> fixed.check.passed
True
"""

from __future__ import annotations

import os
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import sim
from .engine import (
    _DEFAULT_FOOT,
    _PASSIVE,
    EngineCheckResult,
    _design,
    _fivebar_spec,
    _joint_names,
    _Probe,
    _wheel_leg_spec,
    _wl_own_motor,
    check_engine_model,
    engine_model,
)

__all__ = ["LoopSite", "SiteRewrite", "site_anchored"]

#: Digits of a written site position (m): 1e-12 m, far below the check's 1e-9 m
_DIGITS = 12


@dataclass(frozen=True)
class LoopSite:
    """One site :func:`site_anchored` added: its ``body``, its ``name`` and its position ``pos`` (m, body frame)."""

    body: str
    name: str
    pos: tuple


@dataclass(frozen=True)
class SiteRewrite:
    """What :func:`site_anchored` returns: the new MJCF ``text``, the ``sites`` it added (two per rewritten
    connect) and the engine ``check`` of the new text (:class:`robokin.params.engine.EngineCheckResult`)."""

    text: str
    sites: tuple
    check: EngineCheckResult


def _read(model) -> tuple[str, Path | None]:
    """The MJCF text of ``model`` (a path or the text itself) and its folder (for meshes and includes)."""
    if isinstance(model, Path) or (isinstance(model, str) and "<" not in model):
        path = Path(model)
        if path.suffix.lower() not in (".xml", ".mjcf"):
            raise ValueError(
                f"model must be an MJCF file (.xml, .mjcf) or its text, got {str(path)!r} (a URDF has no <connect>)"
            )
        if not path.is_file():
            raise ValueError(f"no such model file: {path}")
        return path.read_text(encoding="utf-8"), path.parent
    if isinstance(model, str):
        return model, None
    raise TypeError(f"model must be an MJCF path or MJCF text, got {type(model).__name__}")


def _compile_text(text: str, folder: Path | None):
    """Compile MJCF text; written next to the original when it has one, so that its relative files resolve."""
    mujoco = sim.require_mujoco()
    if folder is None:
        try:
            return mujoco.MjModel.from_xml_string(text)
        except Exception as exc:  # noqa: BLE001 - MuJoCo's compiler message names the element and line
            raise ValueError(f"MuJoCo cannot compile the model: {exc}") from None
    fd, name = tempfile.mkstemp(suffix=".xml", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        return _checked_path(name)
    finally:
        os.unlink(name)


def _checked_path(name):
    mujoco = sim.require_mujoco()
    try:
        return mujoco.MjModel.from_xml_path(name)
    except Exception as exc:  # noqa: BLE001
        raise ValueError(f"MuJoCo cannot compile the model: {exc}") from None


def _parse(text: str) -> ET.Element:
    """The MJCF text as a tree, its comments kept."""
    try:
        return ET.fromstring(text, parser=ET.XMLParser(target=ET.TreeBuilder(insert_comments=True)))
    except ET.ParseError as exc:
        raise ValueError(f"model: not well-formed XML: {exc}") from None


def _body_connects(m, mj) -> list[int]:
    return [
        e
        for e in range(m.neq)
        if int(m.eq_type[e]) == int(mj.mjtEq.mjEQ_CONNECT) and int(m.eq_objtype[e]) == int(mj.mjtObj.mjOBJ_BODY)
    ]


def _site_name(m, mj, base: str, taken: set) -> str:
    name, k = base, 2
    while name in taken or mj.mj_name2id(m, mj.mjtObj.mjOBJ_SITE, name) >= 0:
        name, k = f"{base}{k}", k + 1
    taken.add(name)
    return name


def site_anchored(params, model, *, joints=None, foot: str | None = None) -> SiteRewrite:
    """Rewrite a five-bar's body-anchored loop closure with sites at the package's foot point.

    Parameters
    ----------
    params : str, Path or Design
        The ``fivebar`` or ``wheel_leg`` parameter file (or its design) the model should follow.
    model : str or Path
        Your MJCF file, or its text. Each ``<connect body1=... body2=... anchor=...>`` between two links of a
        leg is rewritten; every other element, attribute and comment is kept.
    joints, foot
        As :func:`robokin.params.engine.check_engine_model` (your names of the motors, the knees and the foot).

    Returns
    -------
    SiteRewrite
        The new text, the sites added (name ``<body>_loop``, position in the body's frame, m) and the engine check
        of the new text, whose foot-position check passes.

    Raises
    ------
    ValueError
        A model that is not MJCF, does not compile, has no body-anchored connect, a connect whose bodies the
        text does not write as named ``<body>`` elements, or one that no site placement closes at the package's
        foot (the check's findings, e.g. a link length that differs from the file, are in the message).
    """
    d = _design(params)
    if d.family not in _PASSIVE:
        raise ValueError(
            f"params: a {d.family!r} file has no loop closure to rewrite (families with one: {', '.join(_PASSIVE)})"
        )
    text, folder = _read(model)
    mj = sim.require_mujoco()
    m = _compile_text(text, folder)
    connects = _body_connects(m, mj)
    if not connects:
        raise ValueError(
            "model: no body-anchored <connect body1= body2= anchor=> to rewrite (the site form is what the check needs)"
        )
    names, passive_names = _joint_names(d, joints)
    foot_name = foot if foot is not None else _DEFAULT_FOOT[d.family]
    if not isinstance(foot_name, str):
        raise ValueError(f"foot must be the name of a site or body, got {foot!r}")
    em = engine_model(d)  # the package's link inertials: the spec's gravity and mass matrix need them
    if d.family == "wheel_leg":
        feet = [f.strip() for f in foot_name.split(",")]
        if len(feet) != 2 or not all(feet):
            raise ValueError(f"foot: a wheel-legged robot has two feet, 'LEFT,RIGHT' (sites or bodies), got {foot!r}")
        specs = [_wheel_leg_spec(d, em, names, f, side) for side, f in enumerate(feet)]
    else:
        specs = [_fivebar_spec(d, em, names, foot_name)]
    probes = [_Probe(m, spec, passive_names, d.family) for spec in specs]

    root = _parse(text)
    written = sum(c.get("body1") is not None for c in root.iter("connect"))
    if written != len(connects):
        raise ValueError(
            f"model: {len(connects)} body-anchored connect(s) compile but the text writes {written} "
            "(an <include>d file or a default class): rewrite the file that holds them"
        )
    first = None
    for sign in (1.0, -1.0):  # the package's knee angles on the model's axes, or on reversed ones
        root_k = _parse(text)  # a fresh copy of the text for each try
        bodies = {b.get("name"): b for b in root_k.iter("body") if b.get("name")}
        elements = [c for c in root_k.iter("connect") if c.get("body1") is not None]
        added, taken = [], set()
        for e, el in zip(connects, elements):
            pair = (int(m.eq_obj1id[e]), int(m.eq_obj2id[e]))
            probe, spec, side = _owner(m, pair, probes)
            probe.pose_open(spec.q[0], sign)
            p = np.array(spec.p[0], float)
            if d.family == "wheel_leg":  # the leg's plane: where the model puts this leg's motor sideways
                p[1] = float(probe.d.xanchor[_wl_own_motor(probe, side)][1])
            names_k = []
            for b in pair:
                bname = m.body(b).name
                if bname not in bodies:
                    raise ValueError(f"model: body {bname!r} of a connect is not a named <body> in the text")
                R = probe.d.xmat[b].reshape(3, 3)
                pos = tuple(float(round(v, _DIGITS)) + 0.0 for v in R.T @ (p - probe.d.xpos[b]))
                name = _site_name(m, mj, f"{bname}_loop", taken)
                _append_site(bodies[bname], name, pos)
                added.append(LoopSite(bname, name, pos))
                names_k.append(name)
            for k in ("body1", "body2", "anchor"):
                el.attrib.pop(k, None)
            el.set("site1", names_k[0])
            el.set("site2", names_k[1])
        new = ET.tostring(root_k, encoding="unicode")
        check = check_engine_model(d, _compile_text(new, folder), joints=joints, foot=foot)
        if check.checks[0].passed:
            return SiteRewrite(new, tuple(added), check)
        first = first or check
    why = "; ".join(first.findings) or first.table()
    raise ValueError(
        "model: no site placement closes the loop at the package's foot; the check of the rewritten model says: " + why
    )


def _append_site(body: ET.Element, name: str, pos: tuple) -> None:
    """A ``<site>`` as the body's last child, indented as its other children are."""
    site = ET.Element("site", {"name": name, "pos": " ".join(repr(v) for v in pos)})
    kids = list(body)
    if kids:
        site.tail, kids[-1].tail = kids[-1].tail, body.text
    body.append(site)


def _owner(m, pair, probes):
    """The probe (leg) of a connect, its spec and its side: the leg whose foot is on one of the connect's bodies
    or below one (a wheel body on the shank); a lone leg's when the model has one."""
    mj = sim.require_mujoco()
    for side, probe in enumerate(probes):
        b = int(m.site_bodyid[probe.foot_id]) if probe.foot_kind == "site" else int(probe.foot_id)
        while b > 0 and b not in pair:
            b = int(m.body_parentid[b])
        if b in pair:
            return probe, probe.spec, side
    knees = {int(m.jnt_bodyid[mj.mj_name2id(m, mj.mjtObj.mjOBJ_JOINT, n)]) for n in probes[0].roles.values()}
    if len(probes) == 1 and knees & set(pair):
        return probes[0], probes[0].spec, 0
    named = ", ".join(repr(m.body(b).name) for b in pair)
    raise ValueError(f"model: the connect joining {named} is not at a leg's foot (the foot is on neither body)")
