"""Sympy derivations of the kernels that become C: five-bar, two-link leg and Stewart leg lengths.

Each ``*_kernels()`` function derives its expressions from :mod:`robokin.symbolic` (rotations) and from the
defining equations (loop closure, circle intersection, law of cosines, implicit differentiation), and returns
:class:`~robokin.codegen._emit.Kernel` specs. The conventions and tolerances are those of the mechanism modules
(:mod:`robokin.fivebar`, :mod:`robokin.leg2`, :mod:`robokin.stewart`); ``tests/test_firmware.py`` compares the
compiled C with them.

Examples
--------
>>> [k.name for k in leg2_kernels()]
['leg2_fk', 'leg2_jacobian', 'leg2_ik']
"""

from __future__ import annotations

import sympy as sp

from .. import symbolic
from ..fivebar import _ASM_SIGN, _KNEE_SIGNS, FiveBar
from ..leg2 import _KNEE_SIGN, TwoLinkLeg
from ._emit import PI, Arg, Check, Kernel, Let, Params, Selector, Tol

__all__ = ["fivebar_kernels", "leg2_kernels", "stewart_kernels", "wrap", "circle_intersection", "cos_law"]

REL = Tol("REL")  # relative slack at a workspace boundary (1e-12 in double, as the package)
SING = Tol("SING")  # |sin| of the singularity measure at and below which RK_SINGULAR is returned


def _S(name):
    return sp.Symbol(name, real=True)


def wrap(a: sp.Expr) -> sp.Expr:
    """Angle wrapped to ``[-pi, pi)``, the formula of the package's ``wrap``.

    >>> wrap(sp.Integer(4)).subs(PI, sp.pi)
    4 - 2*pi
    """
    return a - 2 * PI * sp.floor((a + PI) / (2 * PI))


def circle_intersection() -> tuple[sp.Expr, sp.Expr]:
    """Distance ``a`` along C->D and squared height ``h^2`` of the foot, from the two circle equations.

    Circles ``|E - C| = l3`` and ``|E - D| = l4`` in a frame with C at the origin and D at ``(L, 0)``:
    subtracting them gives ``a`` linear in the unknown, the first one then gives ``h^2``.

    >>> a, h2 = circle_intersection()
    >>> a, h2
    ((L**2 + l3**2 - l4**2)/(2*L), -a**2 + l3**2)
    """
    x, y, L, l3, l4 = (_S(n) for n in ("x", "y", "L", "l3", "l4"))
    c1 = x**2 + y**2 - l3**2
    c2 = (x - L) ** 2 + y**2 - l4**2
    (a,) = sp.solve(sp.expand(c1 - c2), x)
    (h2,) = sp.solve(c1.subs(y, sp.sqrt(_S("y2"))), _S("y2"))  # y^2 from the first circle, in x
    assert sp.simplify(c2.subs({x: a, y: sp.sqrt(h2.subs(x, a))})) == 0  # the foot lies on both circles
    return sp.factor(a), h2.subs(x, _S("a"))


def cos_law() -> sp.Expr:
    """Cosine of the angle at the motor between the driving link ``la`` and the line to the foot (length ``r``).

    >>> cos_law()
    (la**2 - lb**2 + r**2)/(2*la*r)
    """
    la, lb, r, c = (_S(n) for n in ("la", "lb", "r", "c"))
    (sol,) = sp.solve(sp.Eq(lb**2, la**2 + r**2 - 2 * la * r * c), c)
    return sp.factor(sol)


def _clip(e, lo, hi):
    return sp.Min(sp.Max(e, lo), hi)


# --------------------------------------------------------------------------------------------------- five-bar
FIVEBAR = Params(
    "fivebar",
    tuple(
        Arg(n, 1, doc)
        for n, doc in (
            ("l1", "driving link AC (m)"),
            ("l2", "driving link BD (m)"),
            ("l3", "distal link CE (m)"),
            ("l4", "distal link DE (m)"),
            ("d", "motor distance AB (m)"),
        )
    ),
    positive=("l1", "l2", "l3", "l4", "d"),
    doc="Five-bar A-C-E-D-B, motors A = (0, 0) and B = (d, 0); robokin.fivebar.FiveBar(l1, l2, l3, l4, d)",
)


def _fivebar_foot():
    """Steps and symbols of the five-bar FK: knees from symbolic.rotz, foot from the circle intersection."""
    l1, l2, l3, l4, d = (FIVEBAR.sym(n) for n in ("l1", "l2", "l3", "l4", "d"))
    t1, t2 = Arg("q", 2, "").symbols()
    sgn = _S("sgn")
    C = (symbolic.rotz(t1) * sp.Matrix([l1, 0, 0]))[:2, 0]
    D = sp.Matrix([d, 0]) + (symbolic.rotz(t2) * sp.Matrix([l2, 0, 0]))[:2, 0]
    cx, cy, dx, dy, ux, uy, L2, L = (_S(n) for n in ("cx", "cy", "dx", "dy", "ux", "uy", "L2", "L"))
    a_s, h_s = _S("a"), _S("h")
    a, h2 = circle_intersection()
    a = a.subs({_S("L") ** 2: L2}).subs({_S("L"): L, _S("l3"): l3, _S("l4"): l4})
    h2 = h2.subs({_S("a"): a_s, _S("l3"): l3})
    slack = REL * sp.Max(l1 + l3, l2 + l4)
    uh = sp.Matrix([ux, uy]) / L
    perp = sp.Matrix([-uh[1], uh[0]])  # +90 degrees
    E = sp.Matrix([cx, cy]) + a_s * uh + sgn * h_s * perp
    steps = (
        Let(((cx, C[0]), (cy, C[1]), (dx, D[0]), (dy, D[1]))),
        Let(((ux, dx - cx), (uy, dy - cy))),
        Let(((L2, ux**2 + uy**2),)),
        Let(((L, sp.sqrt(L2)),)),
        Check(
            sp.And(L <= l3 + l4 + slack, L >= sp.Abs(l3 - l4) - slack, L > slack),
            "RK_UNREACHABLE",
            "knee distance |CD| outside [|l3 - l4|, l3 + l4]",
        ),
        Let(((a_s, a),)),
        Let(((h_s, sp.sqrt(sp.Max(h2, 0))),)),
    )
    return steps, (t1, t2), (cx, cy, dx, dy), E, (C, D)


def _asm_selector():
    return Selector(
        "assembly",
        FiveBar.assemblies,
        tuple({_S("sgn"): _ASM_SIGN[a]} for a in FiveBar.assemblies),
        "assembly mode, the sign of (D - C) x (E - C): down < 0, up > 0",
    )


def fivebar_jacobian_expr() -> tuple[sp.Matrix, sp.Expr]:
    """``J = dE/dq`` by implicit differentiation of the loop closure, and ``det(dPhi/dE) / 4``.

    ``Phi(q, E) = [|E - C(q)|^2 - l3^2, |E - D(q)|^2 - l4^2] = 0`` gives ``J = -(dPhi/dE)^-1 dPhi/dq`` (adjugate
    over determinant). Entries are in the distal-link vectors ``E - C = (wcx, wcy)``, ``E - D = (wdx, wdy)`` and the
    knees ``C = (cx, cy)``, ``D = (dx, dy)``: differences first, so the determinant near a type II singularity is a
    small difference of link vectors, not a cancellation of large products.

    >>> J, det = fivebar_jacobian_expr()
    >>> J.shape, det
    ((2, 2), wcx*wdy - wcy*wdx)
    """
    l1, l2, l3, l4, d = (FIVEBAR.sym(n) for n in ("l1", "l2", "l3", "l4", "d"))
    t1, t2 = Arg("q", 2, "").symbols()
    ex, ey = _S("ex"), _S("ey")
    E = sp.Matrix([ex, ey])
    C = (symbolic.rotz(t1) * sp.Matrix([l1, 0, 0]))[:2, 0]
    D = sp.Matrix([d, 0]) + (symbolic.rotz(t2) * sp.Matrix([l2, 0, 0]))[:2, 0]
    Phi = sp.Matrix([(E - C).dot(E - C) - l3**2, (E - D).dot(E - D) - l4**2])
    PE, Pq = Phi.jacobian([ex, ey]), Phi.jacobian([t1, t2])
    # row i: put the foot back as knee + distal-link vector; cos/sin of a motor angle is its knee over the link
    rows = (
        {ex: _S("wcx") + C[0], ey: _S("wcy") + C[1]},
        {ex: _S("wdx") + D[0], ey: _S("wdy") + D[1]},
    )
    knees = {
        sp.cos(t1): _S("cx") / l1,
        sp.sin(t1): _S("cy") / l1,
        sp.cos(t2): (_S("dx") - d) / l2,
        sp.sin(t2): _S("dy") / l2,
    }

    def clean(M):
        M = sp.Matrix([[sp.expand(M[i, j].subs(rows[i])) for j in range(2)] for i in range(2)])
        return M.xreplace(knees).applyfunc(lambda e: sp.collect(sp.expand(sp.cancel(e)), [_S("wcx"), _S("wdx")]))

    PE, Pq = clean(PE), clean(Pq)
    assert not (PE.free_symbols | Pq.free_symbols) & {t1, t2, ex, ey}  # all in link vectors and knees
    det = sp.expand(PE.det() / 4)
    J = -(PE.adjugate() * Pq) / (4 * _S("detE"))
    return J.applyfunc(sp.factor), det


def fivebar_kernels() -> list[Kernel]:
    """FK (assembly mode), IK (working mode), Jacobian, foot-force statics and virtual-leg VMC of the five-bar.

    >>> [k.name for k in fivebar_kernels()]
    ['fivebar_fk', 'fivebar_ik', 'fivebar_jacobian', 'fivebar_statics', 'fivebar_vmc']
    """
    l1, l2, l3, l4, d = (FIVEBAR.sym(n) for n in ("l1", "l2", "l3", "l4", "d"))
    q = Arg("q", 2, "motor angles [theta1, theta2] (rad) from +x, counter-clockwise positive")
    foot = Arg("E", 2, "foot E = [x, y] (m) in the motor frame (x right, y up, origin at motor A)")
    steps, (t1, t2), _, E, _ = _fivebar_foot()
    ex, ey = _S("ex"), _S("ey")
    fk = Kernel(
        "fivebar_fk",
        FIVEBAR,
        (q,),
        (foot,),
        steps,
        tuple(E),
        "Five-bar forward kinematics: foot from motor angles (FiveBar.fk).",
        _asm_selector(),
    )

    # IK: each side is a two-link problem solved by the law of cosines
    p0, p1 = Arg("p", 2, "").symbols()
    cl = cos_law()
    ik_steps = []
    angles = []
    for side, (mx, la, lb, sname) in enumerate(((0, l1, l3, "sL"), (d, l2, l4, "sR"))):
        rx, ry, r2, r = (_S(f"{n}{side}") for n in ("rx", "ry", "r2", "r"))
        slack = REL * sp.Max(l1 + l3, l2 + l4)
        ik_steps += [
            Let(((rx, p0 - mx), (ry, p1))),
            Let(((r2, rx**2 + ry**2),)),
            Let(((r, sp.sqrt(r2)),)),
            Check(
                sp.And(r <= la + lb + slack, r >= sp.Abs(la - lb) - slack, r > slack),
                "RK_UNREACHABLE",
                f"|{'AE' if side == 0 else 'BE'}| outside the annulus of its two-link side",
            ),
        ]
        c = cl.subs({_S("la"): la, _S("lb"): lb}).subs({_S("r") ** 2: r2}).subs(_S("r"), r)
        angles.append(wrap(sp.atan2(ry, rx) + _S(sname) * sp.acos(_clip(c, -1, 1))))
    ik = Kernel(
        "fivebar_ik",
        FIVEBAR,
        (Arg("p", 2, "foot target [x, y] (m) in the motor frame"),),
        (Arg("q", 2, "motor angles [theta1, theta2] (rad), wrapped to [-pi, pi)"),),
        tuple(ik_steps),
        tuple(angles),
        "Five-bar closed-form inverse kinematics in a working mode (FiveBar.ik).",
        Selector(
            "branch",
            FiveBar.branches,
            tuple({_S("sL"): _KNEE_SIGNS[b][0], _S("sR"): _KNEE_SIGNS[b][1]} for b in FiveBar.branches),
            "working mode (knee sides), first word knee C of motor A",
        ),
    )

    J, det = fivebar_jacobian_expr()
    det_s = _S("detE")
    cx, cy, dx, dy = (_S(n) for n in ("cx", "cy", "dx", "dy"))
    jac_steps = steps + (
        Let(((ex, E[0]), (ey, E[1]))),
        Let(((_S("wcx"), ex - cx), (_S("wcy"), ey - cy), (_S("wdx"), ex - dx), (_S("wdy"), ey - dy))),
        Let(((det_s, det),)),
        Check(
            sp.Abs(det_s) > SING * l3 * l4,
            "RK_SINGULAR",
            "type II: |sin(CE, DE)| <= RK_SING (distal links in line)",
        ),
    )
    jac = Kernel(
        "fivebar_jacobian",
        FIVEBAR,
        (q,),
        (Arg("J", 4, "foot Jacobian dE/dq (m/rad), row-major: J[2*i + j] = dE_i/dtheta_j"),),
        jac_steps,
        tuple(J),
        "Five-bar foot Jacobian by implicit differentiation of the loop closure (FiveBar.jacobian).",
        _asm_selector(),
    )

    f0, f1 = Arg("F", 2, "").symbols()
    tau = J.T * sp.Matrix([f0, f1])
    statics = Kernel(
        "fivebar_statics",
        FIVEBAR,
        (q, Arg("F", 2, "force [Fx, Fy] (N) the leg applies at the foot, motor frame")),
        (Arg("tau", 2, "motor torques [tau1, tau2] (N m), counter-clockwise positive"),),
        jac_steps,
        tuple(tau),
        "Five-bar statics tau = J^T F: motor torques that hold a foot force (FiveBar.static_torques).",
        _asm_selector(),
    )

    # virtual leg (wheel_leg.vmc_torques): thrust F along hip->foot and leg torque Tp as an equivalent foot force
    F, Tp = Arg("w", 2, "").symbols()
    rx, ry, rL = _S("vx"), _S("vy"), _S("vL")
    r = sp.Matrix([rx, ry])
    rh = r / rL
    n = sp.Matrix([-rh[1], rh[0]])
    f = F * rh - (Tp / rL) * n
    vmc_steps = jac_steps + (
        Let(((rx, ex - d / 2), (ry, ey))),
        Let(((rL, sp.sqrt(rx**2 + ry**2)),)),
        Check(rL > REL * sp.Max(l1 + l3, l2 + l4), "RK_SINGULAR", "foot at the hip midpoint: the leg has no direction"),
    )
    vmc = Kernel(
        "fivebar_vmc",
        FIVEBAR,
        (q, Arg("w", 2, "virtual leg [F (N) pushing the foot away from the hip midpoint, Tp (N m) leg torque]")),
        (Arg("tau", 2, "motor torques [tau1, tau2] (N m)"),),
        vmc_steps,
        tuple(J.T * f),
        "Virtual model control: leg thrust and leg torque to motor torques (wheel_leg.vmc_torques).",
        _asm_selector(),
    )
    return [fk, ik, jac, statics, vmc]


# --------------------------------------------------------------------------------------------- two-link leg
LEG2 = Params(
    "leg2",
    (Arg("l1", 1, "thigh (m)"), Arg("l2", 1, "shank (m)")),
    positive=("l1", "l2"),
    doc="Two-link leg in the hip frame (x forward, z up); robokin.leg2.TwoLinkLeg(l1, l2), no joint limits",
)


def leg2_fk_expr() -> sp.Matrix:
    """Foot ``[x, z]``: thigh and shank hang down and turn about ``-y`` (``theta > 0`` swings forward).

    >>> leg2_fk_expr().T
    Matrix([[l1*sin(q0) + l2*sin(q0 + q1), -l1*cos(q0) - l2*cos(q0 + q1)]])
    """
    l1, l2 = LEG2.sym("l1"), LEG2.sym("l2")
    t1, t2 = Arg("q", 2, "").symbols()
    down = sp.Matrix([0, 0, -1])
    p = symbolic.roty(-t1) * (l1 * down + symbolic.roty(-t2) * (l2 * down))
    return sp.Matrix([sp.simplify(sp.expand_trig(p[0])), sp.simplify(sp.expand_trig(p[2]))]).applyfunc(
        lambda e: sp.simplify(sp.trigsimp(e))
    )


def leg2_kernels() -> list[Kernel]:
    """FK, Jacobian and closed-form IK (both knee branches) of the two-link leg."""
    q = Arg("q", 2, "joint angles [theta1 hip from the downward vertical, theta2 knee] (rad)")
    t1, t2 = q.symbols()
    P = leg2_fk_expr()
    fk = Kernel(
        "leg2_fk",
        LEG2,
        (q,),
        (Arg("p", 2, "foot [x, z] (m), hip frame"),),
        (),
        tuple(P),
        "Two-link leg forward kinematics (TwoLinkLeg.fk).",
    )
    J = P.jacobian([t1, t2])
    jac = Kernel(
        "leg2_jacobian",
        LEG2,
        (q,),
        (Arg("J", 4, "Jacobian d[x, z]/d[theta1, theta2] (m/rad), row-major"),),
        (),
        tuple(J),
        "Two-link leg Jacobian (TwoLinkLeg.jacobian); det J = l1 l2 sin(theta2), no status: J is defined everywhere.",
    )
    # IK: |p|^2 from the FK gives cos(theta2) (law of cosines); theta1 is the foot direction minus the knee offset,
    # the direction of the foot at theta1 = 0 (the FK with the hip angle removed)
    x, z = Arg("p", 2, "").symbols()
    c2s, s2s, d2 = _S("c2"), _S("s2"), _S("d2")
    (c2_of_d2,) = sp.solve(sp.Eq(d2, sp.trigsimp(sp.expand(P.dot(P)))).subs(sp.cos(t2), c2s), c2s)
    one_minus, one_plus = sp.factor(1 - c2_of_d2), sp.factor(1 + c2_of_d2)
    omc, opc, s2a, sgn = _S("omc"), _S("opc"), _S("s2a"), _S("sgn")
    p0 = P.subs(t1, 0)  # (l2 sin t2, -l1 - l2 cos t2)
    offset = sp.atan2(p0[0], -p0[1]).subs({sp.sin(t2): s2s, sp.cos(t2): c2s})
    steps = (
        Let(((d2, x**2 + z**2),)),
        Let(((omc, one_minus), (opc, one_plus))),
        Check(omc >= -REL, "RK_UNREACHABLE", "distance > l1 + l2"),
        Check(opc >= -REL, "RK_UNREACHABLE", "distance < |l1 - l2|"),
        Let(((c2s, _clip(opc - 1, -1, 1)), (s2a, sp.sqrt(_clip(omc, 0, 2) * _clip(opc, 0, 2))))),
        Let(((s2s, sgn * s2a),)),
    )
    ik = Kernel(
        "leg2_ik",
        LEG2,
        (Arg("p", 2, "foot target [x, z] (m), hip frame"),),
        (Arg("q", 2, "joint angles [theta1 wrapped to [-pi, pi), theta2] (rad)"),),
        steps,
        (wrap(sp.atan2(x, -z) - offset), sp.atan2(s2s, c2s)),
        "Two-link leg closed-form inverse kinematics (TwoLinkLeg.ik).",
        Selector(
            "branch",
            TwoLinkLeg.branches,
            tuple({sgn: _KNEE_SIGN[b]} for b in TwoLinkLeg.branches),
            "knee branch: knee-back theta2 > 0, knee-front theta2 < 0",
        ),
    )
    return [fk, jac, ik]


# ---------------------------------------------------------------------------------------------------- Stewart
STEWART = Params(
    "stewart",
    (
        Arg("base", 18, "base anchors b_i (m), world frame: base[3*i + k] is coordinate k of leg i"),
        Arg("top", 18, "top anchors p_i (m), platform frame: top[3*i + k]"),
        Arg("lmin", 1, "shortest leg length (m), >= 0"),
        Arg("lmax", 1, "longest leg length (m), > lmin"),
    ),
    positive=("lmax",),
    extra_checks=((sp.And(_S("lmin") >= 0, _S("lmin") < _S("lmax")), "0 <= lmin < lmax"),),
    doc="6-6 Stewart platform; robokin.stewart.Stewart(base, top, stroke=(lmin, lmax)) with base[3*i+k] = base[k, i]",
)


def stewart_kernels() -> list[Kernel]:
    """Leg-length IK ``L_i = |x + R(rpy) p_i - b_i|`` with ``R`` from :func:`robokin.symbolic.rpy_matrix`."""
    pose = Arg("pose", 6, "[x, y, z (m), roll, pitch, yaw (rad)], R = Rz(yaw) Ry(pitch) Rx(roll), world frame")
    x, y, z, roll, pitch, yaw = pose.symbols()
    R = symbolic.rpy_matrix(roll, pitch, yaw)
    b, p = STEWART.syms("base"), STEWART.syms("top")
    lmin, lmax = STEWART.sym("lmin"), STEWART.sym("lmax")
    Rs = sp.Matrix(3, 3, lambda i, j: _S(f"R{i}{j}"))
    lets = [Let(tuple((Rs[i, j], R[i, j]) for i in range(3) for j in range(3)))]
    Ls = [_S(f"L{i}") for i in range(6)]
    for i in range(6):
        s = sp.Matrix([x, y, z]) + Rs * sp.Matrix(p[3 * i : 3 * i + 3]) - sp.Matrix(b[3 * i : 3 * i + 3])
        lets.append(Let(((Ls[i], sp.sqrt(s.dot(s))),)))
    checks = (
        Check(sp.And(*(Li > 1e-12 for Li in Ls)), "RK_UNREACHABLE", "a zero-length leg"),
        Check(sp.And(*(sp.And(Li >= lmin, Li <= lmax) for Li in Ls)), "RK_UNREACHABLE", "a leg outside the stroke"),
    )
    ik = Kernel(
        "stewart_ik",
        STEWART,
        (pose,),
        (Arg("L", 6, "leg lengths L_i (m)"),),
        tuple(lets) + checks,
        tuple(Ls),
        "Stewart platform leg-length inverse kinematics (Stewart.ik).",
    )
    return [ik]
