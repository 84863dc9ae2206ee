"""Sympy derivation of the UR-family analytic IK (one of 8 branches per call) and its FK confirmation.

The arm is the standard-DH table of :mod:`robokin.ur5` (``a = (0, a2, a3, 0, 0, 0)``, ``alpha = (pi/2, 0, 0, pi/2,
-pi/2, 0)``, ``d = (d1, 0, 0, d4, d5, d6)``), each link ``A_i = Rz(theta) Tz(d) Tx(a) Rx(alpha)`` built from
:func:`robokin.symbolic.rotz` / :func:`~robokin.symbolic.rotx` / :func:`~robokin.symbolic.transform`. From it:

* theta1 from the wrist point ``p05 = p - d6 z6``: its distance from the base axis along the shoulder plane's
  normal is ``d4`` (the offset of the parallel axes 2-4), read off ``(A1^-1 T A6^-1)``;
* theta5 and theta6 from the tool axes in that normal direction;
* theta2..4 from the planar 3R problem ``T14 = A1^-1 T A6^-1 A5^-1 = A2 A3 A4``: its origin by the law of
  cosines (the norm of the origin of ``A2 A3``) and the sum angle from its x axis;
* every branch is confirmed by the FK ``A1 ... A6`` of the computed angles (``RK_UNREACHABLE`` when it misses).

At the wrist singularity (``|sin theta5|`` within ``RK_URSING``) theta6 is not determined: the C returns
``RK_SINGULAR`` (the package instead picks theta6 by its ``q6_singular`` rule).

Examples
--------
>>> [k.name for k in ur_kernels()]
['ur_ik']
"""

from __future__ import annotations

import sympy as sp

from .. import symbolic
from ..ur5 import _BRANCH_SIGNS, ALPHA, UR5Arm
from ._emit import PI, Arg, Check, Kernel, Let, Params, Selector, Tol
from .kinematics import wrap

__all__ = ["ur_kernels", "dh_link", "ur_fk_expr"]

POSE = Tol("POSE")  # the package's tol (1e-9): slack of the acos arguments and of the FK confirmation
URSING = Tol("URSING")  # wrist singularity: |sin theta5| below this gives RK_SINGULAR

UR = Params(
    "ur",
    tuple(
        Arg(n, 1, doc)
        for n, doc in (
            ("d1", "base to shoulder height (m)"),
            ("a2", "upper arm (m, negative on UR's tables)"),
            ("a3", "forearm (m, negative on UR's tables)"),
            ("d4", "shoulder offset of the parallel axes 2-4 (m)"),
            ("d5", "wrist 1 to wrist 2 (m)"),
            ("d6", "wrist 2 to flange (m)"),
        )
    ),
    positive=("d4", "d5", "d6"),
    extra_checks=((sp.And(sp.Ne(sp.Symbol("a2", real=True), 0), sp.Ne(sp.Symbol("a3", real=True), 0)), "a2, a3 != 0"),),
    doc="UR-family standard-DH arm (robokin.ur5.make_ur_arm geometry (d1, a2, a3, d4, d5, d6)), no base/tool/offset",
)


def _S(n):
    return sp.Symbol(n, real=True)


def dh_link(a, alpha, d, theta) -> sp.Matrix:
    """Standard DH link ``Rz(theta) Tz(d) Tx(a) Rx(alpha)`` as a 4x4 sympy matrix.

    >>> dh_link(0, 0, 0, 0) == sp.eye(4)
    True
    """
    Rz = symbolic.transform(symbolic.rotz(theta), [0, 0, 0])
    Tzx = symbolic.transform(sp.eye(3), [a, 0, d])
    Rx = symbolic.transform(symbolic.rotx(alpha), [0, 0, 0])
    return Rz * Tzx * Rx


def _inv(T):
    R, p = T[:3, :3], T[:3, 3]
    return symbolic.transform(R.T, -R.T * p)


def _alphas():
    return [sp.nsimplify(a / float(sp.pi)) * sp.pi for a in ALPHA]


def _links(theta):
    d1, a2, a3, d4, d5, d6 = (UR.sym(n) for n in ("d1", "a2", "a3", "d4", "d5", "d6"))
    a = (0, a2, a3, 0, 0, 0)
    d = (d1, 0, 0, d4, d5, d6)
    return [dh_link(a[i], al, d[i], theta[i]) for i, al in enumerate(_alphas())]


def ur_fk_expr(c: list, s: list) -> sp.Matrix:
    """FK ``A1 ... A6`` with ``cos theta_i = c[i]``, ``sin theta_i = s[i]`` (symbols), 4x4.

    >>> T = ur_fk_expr([1] * 6, [0] * 6)   # the zero pose
    >>> T[:3, 3].T
    Matrix([[a2 + a3, -d4 - d6, d1 - d5]])
    """
    th = [_S(f"th{i}") for i in range(6)]
    T = sp.eye(4)
    for A in _links(th):
        T = T * A
    rep = {}
    for i in range(6):
        rep[sp.cos(th[i])] = c[i]
        rep[sp.sin(th[i])] = s[i]
    return T.xreplace(rep).applyfunc(sp.expand)


def ur_kernels() -> list[Kernel]:
    """The UR-family IK kernel (branch selector 0..7 in the order of ``UR5Arm.branches``)."""
    d1, a2, a3, d4, d5, d6 = (UR.sym(n) for n in ("d1", "a2", "a3", "d4", "d5", "d6"))
    Tin = Arg("T", 12, "tool (flange) pose in the base frame: R row-major T[0..8], then p = T[9..11] (m)")
    ts = Tin.symbols()
    R = sp.Matrix(3, 3, ts[:9])
    p = sp.Matrix(ts[9:])
    S, E, W = _S("S"), _S("E"), _S("W")
    th = [_S(f"th{i}") for i in range(6)]
    A = _links(th)
    T = symbolic.transform(R, p)

    # the pose's own inconsistency (ur5.input_error): max |R^T R - I|, |det R - 1|
    G = R.T * R - sp.eye(3)
    e_in = sp.Max(*[sp.Abs(G[i, j]) for i in range(3) for j in range(i, 3)], sp.Abs(R.det() - 1))
    ein, tk, stol = _S("ein"), _S("tk"), _S("stol")

    # theta1: the wrist point p05 seen from frame 1 has z = d4 whatever theta2..4 (the origin of A2 A3 A4)
    p05 = (T * _inv(A[5].subs(th[5], 0)))[:3, 3]  # the origin of frame 5 does not depend on theta6
    p05 = sp.Matrix([sp.expand(v) for v in p05])
    x5, y5, r = _S("x5"), _S("y5"), _S("r")
    c1, s1 = _S("c1"), _S("s1")
    A1inv = _inv(A[0]).xreplace({sp.cos(th[0]): c1, sp.sin(th[0]): s1})
    chain24 = A[1] * A[2] * A[3]
    w1 = (A1inv * sp.Matrix([x5, y5, _S("z5"), 1]))[:3, 0]
    assert sp.simplify(chain24[2, 3] - d4) == 0
    # w1[2] = x5 s1 - y5 c1 = d4 with (x5, y5) = r (cos phi, sin phi): sin(theta1 - phi) = d4 / r
    assert sp.expand(w1[2] - (x5 * s1 - y5 * c1)) == 0
    th1 = sp.atan2(y5, x5) + S * sp.acos(sp.Min(sp.Max(d4 / r, -1), 1)) + PI / 2
    # theta5: the z of p (not p05) in frame 1 is d4 + d6 cos theta5 (chain A2..A6 origin, z component)
    chain26 = A[1] * A[2] * A[3] * A[4] * A[5]
    chain26 = chain26[2, :].applyfunc(lambda e: sp.trigsimp(sp.expand_trig(sp.expand(e))))  # the row we need
    assert sp.simplify(chain26[0, 3] - (d4 + d6 * sp.cos(th[4]))) == 0
    pz1 = (A1inv * symbolic.transform(R, p))[2, 3]
    (c5,) = sp.solve(sp.Eq(pz1, d4 + d6 * _S("c5")), _S("c5"))
    # tool x, y axes in frame 1, z components: sin5 cos6 and -sin5 sin6 (chain26 rotation, third row)
    assert sp.simplify(chain26[0, 0] - sp.sin(th[4]) * sp.cos(th[5])) == 0
    assert sp.simplify(chain26[0, 1] + sp.sin(th[4]) * sp.sin(th[5])) == 0
    Tz1 = (A1inv * T)[2, :3]  # third row of the frame-1 rotation: [s5 c6, -s5 s6, c5]
    x6, y6 = Tz1[0], -Tz1[1]  # s5 c6, s5 s6
    th5 = W * sp.atan2(sp.sqrt(_S("x6") ** 2 + _S("y6") ** 2), sp.Min(sp.Max(_S("c5"), -1), 1))
    th6 = sp.atan2(_S("y6") * W, _S("x6") * W)  # sign(sin theta5) = W away from the singularity

    # planar 3R: T14 = A1^-1 T A6^-1 A5^-1 = A2 A3 A4
    c5s, s5s, c6s, s6s = _S("c5v"), _S("s5v"), _S("c6v"), _S("s6v")
    A5i = _inv(A[4]).xreplace({sp.cos(th[4]): c5s, sp.sin(th[4]): s5s})
    A6i = _inv(A[5]).xreplace({sp.cos(th[5]): c6s, sp.sin(th[5]): s6s})
    T14 = (A1inv * T * A6i * A5i).applyfunc(sp.expand)
    px, py, x4x, x4y = T14[0, 3], T14[1, 3], T14[0, 0], T14[1, 0]
    # law of cosines from the origin of A2 A3: |o|^2 = a2^2 + a3^2 + 2 a2 a3 cos theta3
    o = (A[1] * A[2])[:2, 3]
    n2 = sp.trigsimp(sp.expand(o.dot(o)))
    (c3,) = sp.solve(sp.Eq(_S("n2"), n2.subs(sp.cos(th[2]), _S("c3"))), _S("c3"))
    xs, ys, c3s, st3, ct3 = _S("px"), _S("py"), _S("c3"), _S("st3"), _S("ct3")
    th3 = E * S * sp.acos(sp.Min(sp.Max(c3s, -1), 1))
    # theta2: direction of the origin minus its offset at theta2 = 0 (the origin of A2 A3 with theta2 removed)
    o0 = o.subs(th[1], 0).xreplace({sp.cos(th[2]): ct3, sp.sin(th[2]): st3})
    th2 = sp.atan2(ys, xs) - sp.atan2(o0[1], o0[0])

    t = [_S(f"q{i}") for i in range(6)]
    cs = [_S(f"cq{i}") for i in range(6)]
    sn = [_S(f"sq{i}") for i in range(6)]
    Tfk = ur_fk_expr(cs, sn)
    reach = sp.Abs(a2) + sp.Abs(a3)
    dp = sp.sqrt(sum((Tfk[i, 3] - p[i]) ** 2 for i in range(3))) / reach
    dR2 = sum((Tfk[i, j] - R[i, j]) ** 2 for i in range(3) for j in range(3))  # then sqrt(dR2 / 2)
    steps = (
        Let(((ein, e_in),)),
        Check(ein <= 1e-6, "RK_BAD_ARGUMENT", "the rotation block is not a rotation within 1e-6"),
        Let(((tk, POSE + 10 * ein), (stol, URSING + 10 * ein))),
        Let(((x5, p05[0]), (y5, p05[1]))),
        Let(((r, sp.sqrt(x5**2 + y5**2)),)),
        Check(r >= d4 * (1 - tk), "RK_UNREACHABLE", "wrist point within d4 of the base axis (no shoulder solution)"),
        Let(((th[0], th1),)),
        Let(((c1, sp.cos(th[0])), (s1, sp.sin(th[0])))),
        Let(((_S("c5"), c5), (_S("x6"), x6), (_S("y6"), y6))),
        Check(sp.Abs(_S("c5")) <= 1 + tk, "RK_UNREACHABLE", "|cos theta5| > 1: the tool is out of the wrist's reach"),
        Let(((th[4], th5),)),
        Let(((c5s, sp.cos(th[4])), (s5s, sp.sin(th[4])))),
        Check(sp.Abs(s5s) >= stol, "RK_SINGULAR", "wrist singularity |sin theta5| < RK_URSING: theta6 is free"),
        Let(((th[5], th6),)),
        Let(((c6s, sp.cos(th[5])), (s6s, sp.sin(th[5])))),
        Let(((xs, px), (ys, py), (_S("x4x"), x4x), (_S("x4y"), x4y))),
        Let(((c3s, c3.subs(_S("n2"), xs**2 + ys**2)),)),
        Check(sp.Abs(c3s) <= 1 + tk, "RK_UNREACHABLE", "|cos theta3| > 1: the wrist is out of the arm's reach"),
        Let(((th[2], th3),)),
        Let(((ct3, sp.cos(th[2])), (st3, sp.sin(th[2])))),
        Let(((th[1], th2),)),
        Let(((th[3], sp.atan2(_S("x4y"), _S("x4x")) - th[1] - th[2]),)),
        Let(tuple((t[i], wrap(th[i])) for i in range(6))),
        Let(tuple((cs[i], sp.cos(t[i])) for i in range(6)) + tuple((sn[i], sp.sin(t[i])) for i in range(6))),
        Let(((_S("dR2"), dR2), (_S("dp"), dp))),
        Let(((_S("dRh"), _S("dR2") / 2),)),
        Let(((_S("fkres"), _S("dp") + sp.sqrt(_S("dRh"))),)),
        Check(_S("fkres") <= tk, "RK_UNREACHABLE", "the branch's FK misses the pose by more than the tolerance"),
    )
    names = UR5Arm.branches
    sel = Selector(
        "branch",
        names,
        tuple({S: float(s), E: float(e), W: float(w)} for s, e, w in _BRANCH_SIGNS),
        "IK branch shoulder-elbow-wrist (robokin.ur5.UR5Arm.branches)",
    )
    ik = Kernel(
        "ur_ik",
        UR,
        (Tin,),
        (Arg("q", 6, "joint angles theta1..theta6 (rad), wrapped to [-pi, pi)"),),
        steps,
        tuple(t),
        "UR-family analytic inverse kinematics, one branch, confirmed by FK (robokin.ur5.URArm.ik).",
        sel,
    )
    return [ik]
