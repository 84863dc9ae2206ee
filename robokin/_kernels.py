"""Private, unchecked kernels for revolute DH chains: FK, Jacobian, RNEA and CRBA on scalar components.

Nothing here validates its input: the public entry points (:class:`robokin.serial.SerialArm`,
:class:`robokin.dynamics.SerialDynamics`) check once per model object and per call, then call these.

How it works. Each algorithm is written once, generically, on *scalar components* (3-vectors are tuples of three
numbers, rotations are the two elementary DH rotations ``Rz(theta)`` and ``Rx(alpha)`` applied in turn, cross
products are written out). The same function therefore runs on Python floats (one configuration) or on 1-D numpy
arrays (a batch, one array per component). Before use it is *specialised* to the structure of a model: it is run
once on symbols (:class:`_Sym`), which records every ``+ - *`` as one line of straight-line Python and folds the
products and sums with structural zeros and ones (UR-style tables: ``cos alpha, sin alpha`` in ``{0, +-1}``, most
``a, d``, centres of mass and products of inertia zero), shares repeated sub-expressions and drops unused ones. The
emitted function is compiled once per structure (``_compile`` is cached on the pattern of exact zeros and ones, so a
Monte Carlo over perturbed parameters reuses it); parameter values are passed in at call time. Every folded
operation is exact in IEEE arithmetic (``0 * x``, ``1 * x``, ``x + 0``, ``a + (-b) = a - b``), so the specialised
kernel returns bit-for-bit what the generic one computes on the same numbers.

Frames and conventions are those of :mod:`robokin.serial` and :meth:`robokin.dynamics.SerialDynamics.inverse_dynamics`: frame ``i`` is fixed
to link ``i``; standard DH ``A_i = Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i)`` (joint ``i`` turns about
``z_{i-1}``), modified (Craig) ``A_i = Rx(alpha_{i-1}) Tx(a_{i-1}) Rz(theta_i) Tz(d_i)`` (about ``z_i``).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ._primitives import cos_sin as _cos_sin
from ._validate import MAX_ABS

# ----------------------------------------------------------------------------- symbolic tracer


class _Trace:
    """Records straight-line code: one line per non-trivial binary operation, with sub-expression sharing."""

    def __init__(self):
        self.lines = []  # (name, op, token_a, token_b)
        self.memo = {}
        self.negof = {}  # name of a negation -> token of its operand
        self.defs = {}  # name -> (op, a, b)

    def emit(self, op, a, b=None):
        key = (op,) + (tuple(sorted((a, b))) if op in "+*" else (a, b))
        name = self.memo.get(key)
        if name is None:
            name = f"t{len(self.lines)}"
            self.lines.append((name, op, a, b))
            self.memo[key] = name
            self.defs[name] = (op, a, b)
            if op == "neg":
                self.negof[name] = a
        return _Sym(self, name)


class _Sym:
    """A traced scalar: a constant (``val`` is a float) or a named intermediate (``val`` is None)."""

    __slots__ = ("tr", "tok", "val")

    def __init__(self, tr, tok, val=None):
        self.tr, self.tok, self.val = tr, tok, val

    def _lift(self, x):
        if isinstance(x, _Sym):
            return x
        x = float(x)
        return _Sym(self.tr, f"({x!r})" if x < 0 or math.copysign(1.0, x) < 0 else repr(x), x)

    def __neg__(self):
        if self.val is not None:
            return self._lift(-self.val)
        if self.tok in self.tr.negof:
            return _Sym(self.tr, self.tr.negof[self.tok])
        op, a, b = self.tr.defs.get(self.tok, (None, None, None))
        if op == "-":  # -(a - b) = b - a
            return self.tr.emit("-", b, a)
        return self.tr.emit("neg", self.tok)

    def __add__(self, other):
        a, b = self, self._lift(other)
        if a.val is not None and b.val is not None:
            return self._lift(a.val + b.val)
        if a.val == 0.0:
            return b
        if b.val == 0.0:
            return a
        if b.tok in self.tr.negof:
            return a - _Sym(self.tr, self.tr.negof[b.tok])
        if a.tok in self.tr.negof:
            return b - _Sym(self.tr, self.tr.negof[a.tok])
        return self.tr.emit("+", a.tok, b.tok)

    __radd__ = __add__

    def __sub__(self, other):
        a, b = self, self._lift(other)
        if a.val is not None and b.val is not None:
            return self._lift(a.val - b.val)
        if b.val == 0.0:
            return a
        if a.val == 0.0:
            return -b
        if b.tok in self.tr.negof:
            return a + _Sym(self.tr, self.tr.negof[b.tok])
        if a.tok in self.tr.negof:  # (-x) - y = -(x + y), exactly
            return -(_Sym(self.tr, self.tr.negof[a.tok]) + b)
        return self.tr.emit("-", a.tok, b.tok)

    def __rsub__(self, other):
        return self._lift(other) - self

    def __mul__(self, other):
        a, b = self, self._lift(other)
        if a.val is not None and b.val is not None:
            return self._lift(a.val * b.val)
        for x, y in ((a, b), (b, a)):
            if x.val == 0.0:
                return self._lift(0.0)
            if x.val == 1.0:
                return y
            if x.val == -1.0:
                return -y
        for x, y in ((a, b), (b, a)):  # pull a negation out: (-x) y = -(x y), exactly
            if x.tok in self.tr.negof:
                return -(_Sym(self.tr, self.tr.negof[x.tok]) * y)
        return self.tr.emit("*", a.tok, b.tok)

    __rmul__ = __mul__


def _structure(values):
    """Which parameters are exact 0 or +-1 (folded into the code); the others stay run-time inputs."""
    return tuple(v if v in (0.0, 1.0, -1.0) else None for v in values)


def _emit_function(fn, inputs, structure, options, *, arrays=False):
    """Trace ``fn(K, *inputs)`` on symbols and return the Python source of the specialised function.

    ``arrays=False``: plain expressions (Python floats, one configuration). ``arrays=True``: numpy ufuncs writing
    into rows of a work array ``W`` (reused as soon as a value is dead), so a batch allocates nothing per op.
    """
    tr = _Trace()
    K = tuple(_Sym(tr, f"k{i}") if s is None else _Sym(tr, "", s)._lift(s) for i, s in enumerate(structure))
    args = [tuple(_Sym(tr, f"{p}{j}") for j in range(k)) for p, k in inputs]
    outs = fn(K, *args, **options)
    # dead-code elimination: keep only lines the outputs need
    need = {o.tok for o in outs if o.val is None}
    keep = []
    for name, op, a, b in reversed(tr.lines):
        if name in need:
            keep.append((name, op, a, b))
            need.update(t for t in (a, b) if t is not None)
    keep.reverse()
    head = ["def kernel(K, " + ", ".join(p for p, _ in inputs) + (", W" if arrays else "") + "):"]
    for i, s in enumerate(structure):
        if s is None and f"k{i}" in need:
            head.append(f"    k{i} = K[{i}]")
    for p, k in inputs:
        used = [f"{p}{j}" if f"{p}{j}" in need else "_" for j in range(k)]
        if any(u != "_" for u in used):
            head.append(f"    {', '.join(used)}, = {p}")
    if not arrays:
        # temporaries used once are inlined into their consumer: fewer local stores and loads per call
        uses = {}
        for _name, _op, a, b in keep:
            for t in (a, b):
                if t is not None:
                    uses[t] = uses.get(t, 0) + 1
        for o in outs:
            uses[o.tok] = uses.get(o.tok, 0) + 2
        expr, body = {}, []
        for name, op, a, b in keep:
            ea, eb = expr.get(a, a), expr.get(b, b) if b is not None else None
            e = f"(0.0 - {ea})" if op == "neg" else f"({ea} {op} {eb})"  # 0 - x: no -0.0 for x = 0
            if uses.get(name, 0) == 1:
                expr[name] = e
            else:
                body.append(f"    {name} = {e}")
        ret = "    return (" + ", ".join(o.tok for o in outs) + ",)"
        return "\n".join(head + body + [ret]), len(keep), 0
    # register allocation: each temporary gets a row of W, freed after its last use
    last = {}
    for j, (_name, _op, a, b) in enumerate(keep):
        for t in (a, b):
            if t is not None and t.startswith("t"):
                last[t] = j
    for o in outs:
        if o.tok.startswith("t"):
            last[o.tok] = len(keep)
    free, row, n_rows, body = [], {}, 0, []
    ufunc = {"+": "add", "-": "subtract", "*": "multiply"}
    for j, (name, op, a, b) in enumerate(keep):
        for t in {a, b}:
            if t is not None and t.startswith("t") and last[t] == j:
                free.append(row[t])
        if free:
            r = free.pop()
        else:
            r, n_rows = n_rows, n_rows + 1
        row[name] = r
        ref = lambda t: f"W[{row[t]}]" if t.startswith("t") else t  # noqa: E731
        if op == "neg":
            body.append(f"    subtract(0.0, {ref(a)}, out=W[{r}])")
        else:
            body.append(f"    {ufunc[op]}({ref(a)}, {ref(b)}, out=W[{r}])")
    head.insert(1, "    add, subtract, multiply, negative = _np.add, _np.subtract, _np.multiply, _np.negative")
    ret = "    return (" + ", ".join(f"W[{row[o.tok]}]" if o.tok.startswith("t") else o.tok for o in outs) + ",)"
    return "\n".join(head + body + [ret]), len(keep), n_rows


@functools.lru_cache(maxsize=256)
def _compile(kind, n, convention, structure, extra=(), arrays=False):
    """Compile the kernel ``kind`` for an ``n``-joint chain with the given zero/one ``structure`` (cached).

    ``extra``: further options of the algorithm as ``(name, value)`` pairs (e.g. ``(("terms", "gravity"),)``).

    The result has attributes ``n_ops`` (operations left after folding), ``n_rows`` (work rows, arrays only)
    and ``source``.
    """
    fn, inputs = _KINDS[kind]
    options = dict(extra, n=n, convention=convention)
    src, n_ops, n_rows = _emit_function(fn, inputs(**options), structure, options, arrays=arrays)
    ns = {"_np": np}
    exec(compile(src, f"<robokin._kernels.{kind} n={n} {convention}>", "exec"), ns)  # noqa: S102 (own source)
    kern = ns["kernel"]
    kern.n_ops, kern.n_rows, kern.source = n_ops, n_rows, src
    return kern


# ----------------------------------------------------------------------------- generic algorithms
# Vectors are 3-tuples; every function below works on floats, numpy arrays and _Sym alike.


def _cross(u, v):
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])


def _dot(u, v):
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]


def _add(u, v):
    return (u[0] + v[0], u[1] + v[1], u[2] + v[2])


def _scale(k, u):
    return (k * u[0], k * u[1], k * u[2])


def _matvec(I, v):
    """``I @ v`` for a symmetric 3x3 given as (Ixx, Iyy, Izz, Ixy, Ixz, Iyz)."""
    xx, yy, zz, xy, xz, yz = I
    return (xx * v[0] + xy * v[1] + xz * v[2], xy * v[0] + yy * v[1] + yz * v[2], xz * v[0] + yz * v[1] + zz * v[2])


def _rz(c, s, v):  # Rz(theta) v
    return (c * v[0] - s * v[1], s * v[0] + c * v[1], v[2])


def _rzt(c, s, v):  # Rz(theta)^T v
    return (c * v[0] + s * v[1], c * v[1] - s * v[0], v[2])


def _rx(ca, sa, v):  # Rx(alpha) v
    return (v[0], ca * v[1] - sa * v[2], sa * v[1] + ca * v[2])


def _rxt(ca, sa, v):  # Rx(alpha)^T v
    return (v[0], ca * v[1] + sa * v[2], ca * v[2] - sa * v[1])


def _to_parent(std, ca, sa, c, s, v):
    """``R_i v``: frame-i components to frame i-1 (standard ``Rz Rx``, modified ``Rx Rz``)."""
    return _rz(c, s, _rx(ca, sa, v)) if std else _rx(ca, sa, _rz(c, s, v))


def _to_child(std, ca, sa, c, s, v):
    """``R_i^T v``: frame-(i-1) components to frame i."""
    return _rxt(ca, sa, _rzt(c, s, v)) if std else _rzt(c, s, _rxt(ca, sa, v))


def _dh_params(K, n):
    """Per-link (a, cos alpha, sin alpha, d) from the flat parameter tuple (4 per link, first)."""
    return [K[4 * i : 4 * i + 4] for i in range(n)]


# FK / Jacobian parameters: 4n DH constants, then base (12: R columns-major X, Y, Z, then P) and tool (12).
def _frames(K, c, s, n, std):
    """Base frame then every link frame as (X, Y, Z, P) column tuples, in the base frame."""
    B = K[4 * n : 4 * n + 12]
    X, Y, Z, P = B[0:3], B[3:6], B[6:9], B[9:12]
    out = [(X, Y, Z, P)]
    for i, (a, ca, sa, d) in enumerate(_dh_params(K, n)):
        ci, si = c[i], s[i]
        if std:  # Rz(theta) Tz(d) Tx(a) Rx(alpha)
            Xn = _add(_scale(ci, X), _scale(si, Y))
            Yr = _add(_scale(-si, X), _scale(ci, Y))
            P = _add(_add(P, _scale(d, Z)), _scale(a, Xn))
            X, Y, Z = Xn, _add(_scale(ca, Yr), _scale(sa, Z)), _add(_scale(-sa, Yr), _scale(ca, Z))
        else:  # Rx(alpha) Tx(a) Rz(theta) Tz(d)
            Ya = _add(_scale(ca, Y), _scale(sa, Z))
            Za = _add(_scale(-sa, Y), _scale(ca, Z))
            P = _add(_add(P, _scale(a, X)), _scale(d, Za))
            X, Y, Z = _add(_scale(ci, X), _scale(si, Ya)), _add(_scale(-si, X), _scale(ci, Ya)), Za
        out.append((X, Y, Z, P))
    return out


def _apply_tool(K, n, X, Y, Z, P):
    t = K[4 * n + 12 : 4 * n + 24]
    cols = [_add(_add(_scale(t[3 * k], X), _scale(t[3 * k + 1], Y)), _scale(t[3 * k + 2], Z)) for k in range(4)]
    return cols[0], cols[1], cols[2], _add(P, cols[3])


def _fk_kernel(K, c, s, *, n, convention):
    """Tool pose: 12 numbers, rows of the 3x4 block ``[R | p]``."""
    X, Y, Z, P = _apply_tool(K, n, *_frames(K, c, s, n, convention == "standard")[-1])
    return tuple(V[r] for r in range(3) for V in (X, Y, Z, P))


def _jac_kernel(K, c, s, *, n, convention):
    """Geometric Jacobian ``[z x (p_e - o); z]`` per joint, 6n numbers row-major (6, n)."""
    std = convention == "standard"
    frames = _frames(K, c, s, n, std)
    pe = _apply_tool(K, n, *frames[-1])[3]
    joints = frames[:-1] if std else frames[1:]
    cols = []
    for _, _, z, o in joints:
        cols.append(_cross(z, (pe[0] - o[0], pe[1] - o[1], pe[2] - o[2])) + tuple(z))
    return tuple(col[r] for r in range(6) for col in cols)


def _fkjac_kernel(K, c, s, *, n, convention):
    """Tool pose (12) then Jacobian (6n) from one pass over the frames (numerical IK needs both)."""
    return _fk_kernel(K, c, s, n=n, convention=convention) + _jac_kernel(K, c, s, n=n, convention=convention)


def _fk_inputs(*, n, **_):
    return (("c", n), ("s", n))


# Dynamics parameters: 4n DH constants, then per link mass (1), com (3), inertia (6: xx yy zz xy xz yz), then
# gravity in frame 0 (3). Inputs: c, s, qd, qdd.
def _link_inertials(K, n):
    base = 4 * n
    return [
        (K[base + 10 * i], K[base + 10 * i + 1 : base + 10 * i + 4], K[base + 10 * i + 4 : base + 10 * i + 10])
        for i in range(n)
    ]


def _joint_geometry(K, n, std):
    """Per link i in frame i: joint axis z_i, joint point s_i, next joint point e_i (constants of the table)."""
    dh = _dh_params(K, n)
    zero = (0.0, 0.0, 0.0)
    geo = []
    for i, (a, ca, sa, d) in enumerate(dh):
        if std:  # joint i on z_{i-1}: axis R^T e3 = (0, sa, ca), point -R^T p = -(a, sa d, ca d); e = origin
            geo.append(((0.0, sa, ca), (-a, -(sa * d), -(ca * d)), zero))
        else:  # joint i on z_i through origin i; joint i+1 at p_{i+1} = (a, -sa d, ca d) of the next row
            if i + 1 < n:
                a1, ca1, sa1, d1 = dh[i + 1]
                e = (a1, -(sa1 * d1), ca1 * d1)
            else:
                e = zero
            geo.append(((0.0, 0.0, 1.0), zero, e))
    return geo


def _origin_in_parent(std, a, ca, sa, d, c, s):
    """Origin of frame i in frame i-1."""
    return (a * c, a * s, d) if std else (a, -(sa * d), ca * d)


def _rnea_kernel(K, c, s, qd=None, qdd=None, *, n, convention, terms="full"):
    """Recursive Newton-Euler (Luh-Walker-Paul), moments about each joint point; same frames as ``SerialDynamics.inverse_dynamics``.

    ``terms``: "full" ``tau = M qdd + h(q, qd) + G``; "gravity" (qd = qdd = 0); "bias" (qdd = 0).
    """
    std = convention == "standard"
    dh = _dh_params(K, n)
    inert = _link_inertials(K, n)
    geo = _joint_geometry(K, n, std)
    gbase = 4 * n + 10 * n
    zero = (0.0, 0.0, 0.0)
    w = wd = zero
    acc = (-K[gbase], -K[gbase + 1], -K[gbase + 2])  # base acceleration -g (gravity as a fictitious lift)
    F, N, arms = [], [], []
    for i in range(n):
        a, ca, sa, d = dh[i]
        z, sp, e = geo[i]
        m, com, I = inert[i]
        vi = 0.0 if terms == "gravity" else qd[i]
        ai = 0.0 if terms != "full" else qdd[i]
        wp = _to_child(std, ca, sa, c[i], s[i], w)
        wdp = _to_child(std, ca, sa, c[i], s[i], wd)
        accJ = _to_child(std, ca, sa, c[i], s[i], acc)
        zq = _scale(vi, z)
        w = _add(wp, zq)
        wd = _add(_add(wdp, _scale(ai, z)), _cross(wp, zq))
        rc = (com[0] - sp[0], com[1] - sp[1], com[2] - sp[2])
        re = (e[0] - sp[0], e[1] - sp[1], e[2] - sp[2])
        a_c = _add(_add(accJ, _cross(wd, rc)), _cross(w, _cross(w, rc)))
        F.append(_scale(m, a_c))
        N.append(_add(_matvec(I, wd), _cross(w, _matvec(I, w))))
        arms.append((rc, re))
        acc = _add(_add(accJ, _cross(wd, re)), _cross(w, _cross(w, re)))
    tau = [None] * n
    f = nm = zero
    for i in range(n - 1, -1, -1):
        rc, re = arms[i]
        if i + 1 < n:
            _, ca1, sa1, _ = dh[i + 1]
            fc = _to_parent(std, ca1, sa1, c[i + 1], s[i + 1], f)
            nc = _to_parent(std, ca1, sa1, c[i + 1], s[i + 1], nm)
        else:
            fc = nc = zero
        f = _add(F[i], fc)
        nm = _add(_add(_add(N[i], _cross(rc, F[i])), nc), _cross(re, fc))
        tau[i] = _dot(nm, geo[i][0])
    return tuple(tau)


def _rnea_inputs(*, n, terms="full", **_):
    return (("c", n), ("s", n), ("v", n), ("u", n))[: {"full": 4, "bias": 3, "gravity": 2}[terms]]


def _crba_kernel(K, c, s, *, n, convention):
    """Composite-rigid-body mass matrix, upper triangle row-major (n (n + 1) / 2 numbers).

    Composite inertia of links i..n about origin i in frame i: mass ``M``, first moment ``h = sum m r_c`` and
    rotational inertia ``J`` about the origin. The unit motion of joint i (angular ``z_i`` through point ``s_i``)
    gives the momentum ``f = M v_o + z_i x h``, ``n_o = J z_i + h x v_o`` with ``v_o = s_i x z_i``; its
    component about joint j <= i, carried down the chain, is ``M_ji = z_j . (n_o - s_j x f)``.
    """
    std = convention == "standard"
    dh = _dh_params(K, n)
    inert = _link_inertials(K, n)
    geo = _joint_geometry(K, n, std)
    # body i about origin i: J = I_c + m (|c|^2 1 - c c^T)  (symmetric, 6 entries)
    comp = [None] * n
    Mc = hc = Jc = None
    for i in range(n - 1, -1, -1):
        m, com, I = inert[i]
        cc = [[com[r] * com[k] for k in range(3)] for r in range(3)]
        sq = cc[0][0] + cc[1][1] + cc[2][2]
        J = [
            I[0] + m * (sq - cc[0][0]),
            I[1] + m * (sq - cc[1][1]),
            I[2] + m * (sq - cc[2][2]),
            I[3] - m * cc[0][1],
            I[4] - m * cc[0][2],
            I[5] - m * cc[1][2],
        ]
        h = _scale(m, com)
        if Mc is not None:  # add the child's composite, moved into frame i
            a, ca, sa, d = dh[i + 1]
            rot = functools.partial(_to_parent, std, ca, sa, c[i + 1], s[i + 1])
            p = _origin_in_parent(std, a, ca, sa, d, c[i + 1], s[i + 1])
            hr = rot(hc)
            xx, yy, zz, xy, xz, yz = Jc
            B = [rot((xx, xy, xz)), rot((xy, yy, yz)), rot((xz, yz, zz))]  # columns of R J
            RJR = [rot((B[0][r], B[1][r], B[2][r])) for r in range(3)]  # columns of R J R^T
            pp = _dot(p, p)
            ph = _dot(p, hr)
            shift = lambda r, k: (  # noqa: E731
                Mc * ((pp if r == k else 0.0) - p[r] * p[k])
                + ((2.0 * ph) if r == k else 0.0)
                - p[r] * hr[k]
                - hr[r] * p[k]
            )
            idx = ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2))
            J = [J[t] + RJR[k][r] + shift(r, k) for t, (r, k) in enumerate(idx)]
            h = _add(_add(h, hr), _scale(Mc, p))
            m = m + Mc
        Mc, hc, Jc = m, h, J
        comp[i] = (Mc, hc, Jc)
    Mfull = {}
    for i in range(n):
        Mc, hc, Jc = comp[i]
        z, sp, _ = geo[i]
        vo = _cross(sp, z)
        f = _add(_scale(Mc, vo), _cross(z, hc))
        no = _add(_matvec((Jc[0], Jc[1], Jc[2], Jc[3], Jc[4], Jc[5]), z), _cross(hc, vo))
        Mfull[i, i] = _dot(z, _add(no, _scale(-1.0, _cross(sp, f))))
        for j in range(i - 1, -1, -1):
            a, ca, sa, d = dh[j + 1]
            f = _to_parent(std, ca, sa, c[j + 1], s[j + 1], f)
            no = _add(
                _to_parent(std, ca, sa, c[j + 1], s[j + 1], no),
                _cross(_origin_in_parent(std, a, ca, sa, d, c[j + 1], s[j + 1]), f),
            )
            zj, sj, _ = geo[j]
            Mfull[j, i] = _dot(zj, _add(no, _scale(-1.0, _cross(sj, f))))
    return tuple(Mfull[j, i] for j in range(n) for i in range(j, n))


_KINDS = {
    "fk": (_fk_kernel, _fk_inputs),
    "jac": (_jac_kernel, _fk_inputs),
    "fkjac": (_fkjac_kernel, _fk_inputs),
    "rnea": (_rnea_kernel, _rnea_inputs),
    "crba": (_crba_kernel, _fk_inputs),
}


# ----------------------------------------------------------------------------- parameter packing and helpers


def _special(v):
    """Snap cos/sin of a twist to exact 0 or +-1 (UR-style tables use multiples of pi/2)."""
    return float(np.round(v)) if abs(v - np.round(v)) < 1e-15 else float(v)


def dh_constants(a, alpha, d):
    """Flat tuple ``(a, cos alpha, sin alpha, d)`` per link, Python floats, twists snapped."""
    out = []
    for ai, al, di in zip(a, alpha, d):
        out += [float(ai), _special(math.cos(al)), _special(math.sin(al)), float(di)]
    return tuple(out)


def frame_constants(T):
    """12 floats of a rigid (4, 4): columns X, Y, Z, P of its 3x4 block."""
    return tuple(float(T[r, k]) for k in range(4) for r in range(3))


def inertial_constants(masses, coms, inertias):
    out = []
    for m, com, I in zip(masses, coms, inertias):
        out += [
            float(m),
            *map(float, com),
            float(I[0, 0]),
            float(I[1, 1]),
            float(I[2, 2]),
            float(I[0, 1]),
            float(I[0, 2]),
            float(I[1, 2]),
        ]
    return tuple(out)


def floats_or_none(q, n):
    """``q`` as a list of n Python floats if it is a plain 1-D float input within ``MAX_ABS``, else None.

    None sends the caller to the general (fully checked) path, which raises the proper error for bad input.
    """
    if type(q) is np.ndarray:
        if q.shape != (n,) or q.dtype != np.float64:
            return None
        ql = q.tolist()
    elif type(q) in (list, tuple) and len(q) == n:
        ql = list(q)
        for x in ql:
            if type(x) is not float:
                return None
    else:
        return None
    # NaN/inf propagate into the sum; a sum within MAX_ABS bounds every entry
    return ql if sum(map(abs, ql)) <= MAX_ABS else None


def to_array(vals, shape):
    """A new float array of ``shape`` from a tuple of floats (``fromiter`` beats ``np.array(tuple)`` here)."""
    out = np.fromiter(vals, float, len(vals))
    out.shape = shape
    return out


def cos_sin(ql, offsets):
    """Per-joint cos, sin of ``q + offset`` for one configuration (math on floats: no array overhead)."""
    th = [x + o for x, o in zip(ql, offsets)] if any(offsets) else ql
    return list(map(math.cos, th)), list(map(math.sin, th))


def run_batched(kern, K, q_flat, offsets, out, *extra, chunk=2048, half_angle=False):
    """Evaluate the array kernel ``kern`` over rows of ``q_flat`` (m, n) in chunks; ``out`` (m, k) gets the outputs.

    ``extra`` are further (m, n) inputs (rates, accelerations), transposed joint-first per chunk. Chunks of about a
    thousand items keep every component array and the work rows in cache, so time per item stays flat with the
    batch size; the work array is allocated once per call. ``half_angle=True`` takes cos/sin from one ``tan``
    (``_primitives.cos_sin``: several times faster, within 1.5 ulp, not bit-for-bit the one-call ``math`` path).
    """
    m = len(q_flat)
    W = np.empty((max(kern.n_rows, 1), min(chunk, max(m, 1))))
    for lo in range(0, m, chunk):
        hi = min(lo + chunk, m)
        th = np.ascontiguousarray(q_flat[lo:hi].T) + offsets[:, None]
        c, s = _cos_sin(th) if half_angle else (np.cos(th), np.sin(th))
        args = [np.ascontiguousarray(x[lo:hi].T) for x in extra]
        res = kern(K, c, s, *args, list(W[:, : hi - lo]))  # a list of row views: cheaper to index than W
        o = out[lo:hi]
        for k, v in enumerate(res):
            o[:, k] = v
    return out
