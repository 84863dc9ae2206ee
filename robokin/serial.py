"""Serial arms from Denavit-Hartenberg tables: FK, every link frame, geometric Jacobian.

Two DH conventions are in use and they are **not** interchangeable
(chapter 5, :eq:`eq-ch05-std` and :eq:`eq-ch05-mod`):

* ``"standard"`` (Denavit-Hartenberg, Spong, UR's published tables):
  ``A_i = Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i)``; joint ``i`` turns about
  ``z_{i-1}``.
* ``"modified"`` (Craig): ``A_i = Rx(alpha_{i-1}) Tx(a_{i-1}) Rz(theta_i) Tz(d_i)``;
  joint ``i`` turns about ``z_i``. Row ``i`` of a modified table holds
  ``(a_{i-1}, alpha_{i-1}, d_i, theta_i)``.

The convention is a required keyword everywhere: guessing it is the most common
source of wrong arm code. All joints are revolute, ``theta_i = q_i + offset_i``.
Lengths in metres, angles in radians; functions broadcast over leading axes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal, Self

import numpy as np
from numpy.typing import ArrayLike

from . import _kernels as _k
from . import transforms as _tf
from ._kernels import _special
from ._primitives import dh_frame
from ._validate import as_array, choice, tolerance
from .checks import check_rigid
from .transforms import ROTATION_TOL, _check_transform

__all__ = [
    "CONVENTIONS",
    "dh_transform",
    "SerialArm",
    "pose_error",
    "pose_error_bound",
    "to_modified",
    "to_standard",
    "screw_axes",
    "poe_fk",
]

CONVENTIONS = ("standard", "modified")
#: Largest slack (rad) :meth:`SerialArm.within_limits` accepts.
MAX_LIMIT_SLACK = 0.1


def dh_transform(
    a: ArrayLike, alpha: ArrayLike, d: ArrayLike, theta: ArrayLike, *, convention: Literal["standard", "modified"]
) -> np.ndarray:
    """Homogeneous transform of one DH link, batched.

    ``standard``: ``Rz(theta) Tz(d) Tx(a) Rx(alpha)`` (transform from frame ``i-1`` to ``i``).
    ``modified``: ``Rx(alpha) Tx(a) Rz(theta) Tz(d)`` where ``a, alpha`` are Craig's
    ``a_{i-1}, alpha_{i-1}``.

    Parameters
    ----------
    a, d : array_like
        Link length and offset in metres; broadcast together with ``alpha`` and ``theta``.
    alpha, theta : array_like
        Link twist and joint angle in radians.
    convention : {"standard", "modified"}
        Required; there is no safe default.

    Returns
    -------
    ndarray, shape (broadcast shape, 4, 4)

    Raises
    ------
    ValueError
        Unknown convention, non-finite input, or shapes that do not broadcast.

    Examples
    --------
    >>> T = dh_transform(0.5, np.pi / 2, 0.1, np.pi / 2, convention="standard")
    >>> np.round(T[:3, 3], 12)  # origin: d along z0, then a along the rotated x
    array([0. , 0.5, 0.1])
    >>> T = dh_transform(0.5, np.pi / 2, 0.1, np.pi / 2, convention="modified")
    >>> np.round(T[:3, 3], 12)  # a along x_{i-1} first, then d along the twisted z
    array([ 0.5, -0.1,  0. ])
    """
    choice(convention, "convention", CONVENTIONS)
    a = as_array(a, "a")
    alpha = as_array(alpha, "alpha")
    d = as_array(d, "d")
    theta = as_array(theta, "theta")
    try:
        a, alpha, d, theta = np.broadcast_arrays(a, alpha, d, theta)
    except ValueError as exc:
        raise ValueError(
            f"a, alpha, d, theta do not broadcast: shapes {a.shape}, {alpha.shape}, {d.shape}, {theta.shape}"
        ) from exc
    return dh_frame(a, alpha, d, theta, convention == "standard")


def _compose(X, Y, Z, P, a, ca, sa, d, c, s, convention):
    """Right-multiply the frame with axes X, Y, Z and origin P by one DH link.

    Vectors are tuples of 3 component arrays (component first) so that every
    operation is a contiguous element-wise op: far faster than batches of 4x4
    matmuls. Zero parameters are skipped (most DH entries are 0), and so are products with
    an exact 1 or -1 (twists of 0 and +-pi/2): the results are bitwise the same.
    """

    def scale(k, u):  # k * u
        if isinstance(k, float):
            if k == 1.0:
                return u
            if k == -1.0:
                return tuple(-ui for ui in u)
        return tuple(k * ui for ui in u)

    def lin(u, cu, v, cv):  # cu * u + cv * v, skipping zero and unit coefficients
        if isinstance(cu, float) and cu == 0.0:
            return scale(cv, v)
        if isinstance(cv, float) and cv == 0.0:
            return scale(cu, u)
        return tuple(cu * ui + cv * vi for ui, vi in zip(u, v))

    def shift(P, k, U):  # P + k * U
        return P if k == 0.0 else tuple(pi + k * ui for pi, ui in zip(P, U))

    if convention == "standard":  # Rz(theta) Tz(d) Tx(a) Rx(alpha)
        Xn = lin(X, c, Y, s)
        Yr = lin(X, -s, Y, c)
        Pn = shift(shift(P, d, Z), a, Xn)
        return Xn, lin(Yr, ca, Z, sa), lin(Yr, -sa, Z, ca), Pn
    # modified: Rx(alpha) Tx(a) Rz(theta) Tz(d)
    Ya = lin(Y, ca, Z, sa)
    Za = lin(Y, -sa, Z, ca)
    Pn = shift(shift(P, a, X), d, Za)
    return lin(X, c, Ya, s), lin(X, -s, Ya, c), Za, Pn


def _frame(X, Y, Z, P):
    lead = np.broadcast_shapes(*(np.shape(x) for x in X + Y + Z + P))
    T = np.zeros(lead + (4, 4))
    for k, V in enumerate((X, Y, Z, P)):
        for i in range(3):
            T[..., i, k] = V[i]
    T[..., 3, 3] = 1.0
    return T


def pose_error(T_target: ArrayLike, T_current: ArrayLike, *, tol: float = ROTATION_TOL) -> np.ndarray:
    """6-D pose error ``[p_t - p_c; log(R_t R_c^T)]`` in the base frame.

    The orientation part is the rotation vector (axis * angle, rad) that takes the
    current orientation to the target, expressed in the base frame, so that it
    pairs with the geometric Jacobian's angular rows. Never Euler-angle differences.

    Parameters
    ----------
    T_target, T_current : array_like, shape (..., 4, 4)
        Rigid poses in the base frame (broadcast); bottom row and rotation block checked within ``tol``.
    tol : float
        Tolerance of the transform checks.

    Returns
    -------
    ndarray, shape (..., 6)
        Metres in the first three entries, radians in the last three.

    Examples
    --------
    >>> from robokin.transforms import make_transform, rotz
    >>> T1 = make_transform(rotz(0.3), [1.0, 0.0, 0.0])
    >>> np.round(pose_error(T1, np.eye(4)), 12)
    array([1. , 0. , 0. , 0. , 0. , 0.3])
    """
    return _pose_error(_check_transform(T_target, "T_target", tol), _check_transform(T_current, "T_current", tol))


def _pose_error(Tt, Tc):
    """:func:`pose_error` without the input checks (inner loops, inputs already checked or from FK)."""
    dp = Tt[..., :3, 3] - Tc[..., :3, 3]
    dR = Tt[..., :3, :3] @ np.swapaxes(Tc[..., :3, :3], -1, -2)
    # dR is a product of checked (or FK-built) rotations: so3_log's own check is skipped, its formula kept
    qu = _tf._quat_from_matrix(dR)
    v = qu[..., 1:]
    nv = np.linalg.norm(v, axis=-1)
    tiny = nv <= 1e-12
    scale = np.where(
        tiny, 2.0 / np.where(tiny, qu[..., 0], 1.0), 2.0 * np.arctan2(nv, qu[..., 0]) / np.where(tiny, 1.0, nv)
    )
    return np.concatenate([dp, v * scale[..., None]], axis=-1)


def _as_transform(T, name):
    if T is None:
        return np.eye(4)
    T = as_array(T, name, trailing=(4, 4))
    if T.shape != (4, 4):
        raise ValueError(f"{name} must be a single (4, 4) transform, got shape {T.shape}")
    rep = check_rigid(T, tol=1e-9, name=name, raise_on_fail=False)
    if not rep.passed:
        raise ValueError(
            f"{name} must be a rigid transform [[R, p], [0, 0, 0, 1]] with R a rotation; error {rep.max_error:.3g}"
        )
    return T


@dataclass(frozen=True, eq=False)
class SerialArm:
    """A serial arm of revolute joints described by a DH table.

    Build it with :meth:`from_dh`. ``theta_i = q_i + offset_i``.

    Attributes
    ----------
    a, alpha, d, offset : ndarray, shape (n,)
        DH parameters (m, rad, m, rad). For ``"modified"`` row ``i`` holds
        ``a_{i-1}, alpha_{i-1}, d_i`` (Craig).
    convention : {"standard", "modified"}
    qlim : ndarray, shape (n, 2) or None
        Joint limits ``[lower, upper]`` in rad; None means unlimited.
    base, tool : ndarray, shape (4, 4)
        Fixed transforms: ``fk(q) = base @ A_1 ... A_n @ tool``.
    """

    a: np.ndarray
    alpha: np.ndarray
    d: np.ndarray
    offset: np.ndarray
    convention: str
    qlim: np.ndarray | None = None
    base: np.ndarray = field(default_factory=lambda: np.eye(4))
    tool: np.ndarray = field(default_factory=lambda: np.eye(4))

    @classmethod
    def from_dh(
        cls,
        a: ArrayLike,
        alpha: ArrayLike,
        d: ArrayLike,
        *,
        offset: ArrayLike = 0.0,
        convention: Literal["standard", "modified"],
        qlim: ArrayLike | None = None,
        base: ArrayLike | None = None,
        tool: ArrayLike | None = None,
    ) -> Self:
        """Build an arm from DH columns.

        Parameters
        ----------
        a, alpha, d : array_like, shape (n,)
            DH columns (m, rad, m).
        offset : array_like, shape (n,) or scalar
            Joint zero offsets (rad), ``theta = q + offset``.
        convention : {"standard", "modified"}
            Required keyword.
        qlim : array_like, shape (n, 2), optional
            Joint limits (rad), lower < upper.
        base, tool : array_like, shape (4, 4), optional
            Rigid base and tool transforms (identity by default).

        Returns
        -------
        SerialArm

        Examples
        --------
        >>> arm = SerialArm.from_dh([1.0, 1.0], [0, 0], [0, 0], convention="standard")
        >>> arm.n, np.round(arm.fk([0.0, np.pi / 2])[:3, 3], 12)
        (2, array([1., 1., 0.]))
        >>> SerialArm.from_dh([1.0], [0], [0], convention="craig")
        Traceback (most recent call last):
        ...
        ValueError: convention must be one of 'standard', 'modified'; got 'craig'
        """
        choice(convention, "convention", CONVENTIONS)
        a = as_array(a, "a")
        if a.ndim != 1 or a.size == 0:
            raise ValueError(f"a must be a non-empty 1-D array of link lengths, got shape {a.shape}")
        n = a.size
        cols = {}
        for name, v in (("alpha", alpha), ("d", d), ("offset", offset)):
            v = as_array(v, name)
            if v.ndim == 0:
                v = np.full(n, float(v))
            if v.shape != (n,):
                raise ValueError(f"{name} must have shape ({n},) like a, got shape {v.shape}")
            cols[name] = v.copy()
        if qlim is not None:
            qlim = as_array(qlim, "qlim", trailing=(2,)).copy()
            if qlim.shape != (n, 2):
                raise ValueError(f"qlim must have shape ({n}, 2), got shape {qlim.shape}")
            if np.any(qlim[:, 0] >= qlim[:, 1]):
                raise ValueError("qlim rows must be [lower, upper] with lower < upper")
        return cls(
            a.copy(),
            cols["alpha"],
            cols["d"],
            cols["offset"],
            convention,
            qlim,
            _as_transform(base, "base"),
            _as_transform(tool, "tool"),
        )

    def __post_init__(self):
        # the constructor is public too (SerialArm(a, alpha, d, offset, convention, ...)): check every field
        choice(self.convention, "convention", CONVENTIONS)
        a = as_array(self.a, "a")
        if a.ndim != 1 or a.size == 0:
            raise ValueError(f"a must be a non-empty 1-D array of link lengths, got shape {a.shape}")
        n = a.size
        object.__setattr__(self, "a", a.copy())
        for name in ("alpha", "d", "offset"):
            v = as_array(getattr(self, name), name)
            if v.shape != (n,):
                raise ValueError(f"{name} must have shape ({n},) like a, got shape {v.shape}")
            object.__setattr__(self, name, v.copy())
        if self.qlim is not None:
            qlim = as_array(self.qlim, "qlim", trailing=(2,)).copy()
            if qlim.shape != (n, 2) or np.any(qlim[:, 0] >= qlim[:, 1]):
                raise ValueError(f"qlim must have shape ({n}, 2) with lower < upper, got {qlim.tolist()}")
            object.__setattr__(self, "qlim", qlim)
        object.__setattr__(self, "base", _as_transform(self.base, "base"))
        object.__setattr__(self, "tool", _as_transform(self.tool, "tool"))
        # per-link constants as Python floats, computed once (the FK loop runs per call)
        consts = tuple(
            (float(self.a[i]), _special(np.cos(self.alpha[i])), _special(np.sin(self.alpha[i])), float(self.d[i]))
            for i in range(self.a.size)
        )
        object.__setattr__(self, "_consts", consts)
        object.__setattr__(self, "_has_tool", not np.array_equal(self.tool, np.eye(4)))
        # parameters of the specialised kernels (robokin._kernels): DH constants, base and tool frames
        K = _k.dh_constants(self.a, self.alpha, self.d) + _k.frame_constants(self.base) + _k.frame_constants(self.tool)
        object.__setattr__(self, "_K", K)
        object.__setattr__(self, "_offsets", tuple(float(o) for o in self.offset))
        object.__setattr__(self, "_any_offset", any(self._offsets))
        object.__setattr__(self, "_kern", {})

    def _kernel(self, kind, *, arrays):
        """The compiled kernel ``kind`` ("fk", "jac") for this arm's structure, cached on the object."""
        key = (kind, arrays)
        kern = self._kern.get(key)
        if kern is None:
            kern = self._kern[key] = _k._compile(kind, self.n, self.convention, _k._structure(self._K), arrays=arrays)
        return kern

    def _single(self, kind, q):
        """One configuration: the float kernel on ``math.cos/sin`` (no array overhead); tuple of floats."""
        kern = self._kern.get((kind, False)) or self._kernel(kind, arrays=False)
        th = [x + o for x, o in zip(q, self._offsets)] if self._any_offset else q
        return kern(self._K, map(math.cos, th), map(math.sin, th))  # the kernel unpacks each map once

    def _many(self, kind, q, width, out=None, *, half_angle=False):
        """A batch (..., n), already checked: the array kernel chunk by chunk, into ``out`` (m, width)."""
        qf = q.reshape(-1, self.n)
        out = np.empty((len(qf), width)) if out is None else out
        kern = self._kernel(kind, arrays=True)
        return _k.run_batched(kern, self._K, qf, self.offset, out, half_angle=half_angle)

    @property
    def n(self) -> int:
        """Number of joints."""
        return int(self.a.size)

    def _q(self, q):
        return as_array(q, "q", trailing=(self.n,))

    def _columns(self, q):
        """Yield the base frame and then each link frame as column tuples (X, Y, Z, P)."""
        theta = np.moveaxis(q + self.offset, -1, 0)  # joint-first: contiguous per-joint arrays
        yield from self._columns_cs(np.cos(theta), np.sin(theta))

    def _columns_cs(self, c, s):
        """Like ``_columns`` from per-joint cos/sin arrays ``c[i], s[i]`` (any broadcastable shapes)."""
        B = self.base
        X, Y, Z, P = (tuple(float(B[i, k]) for i in range(3)) for k in range(4))
        yield X, Y, Z, P
        for i, (a, ca, sa, d) in enumerate(self._consts):
            X, Y, Z, P = _compose(X, Y, Z, P, a, ca, sa, d, c[i], s[i], self.convention)
            yield X, Y, Z, P

    def _chain_single(self, q):
        """Frames 0..n for one configuration by 4x4 products (faster than columns for one q)."""
        A = dh_frame(self.a, self.alpha, self.d, q + self.offset, self.convention == "standard")
        F = np.empty((self.n + 1, 4, 4))
        F[0] = self.base
        for i in range(self.n):
            F[i + 1] = F[i] @ A[i]
        return F

    def fk_all(self, q: ArrayLike) -> np.ndarray:
        """Every link frame in the base frame: ``base @ A_1 ... A_i`` for ``i = 0..n``.

        Frame 0 is the arm's base frame (``self.base``); the tool transform is not applied.

        Parameters
        ----------
        q : array_like, shape (..., n)
            Joint angles (rad).

        Returns
        -------
        ndarray, shape (..., n + 1, 4, 4)

        Examples
        --------
        >>> arm = SerialArm.from_dh([1.0, 1.0], [0, 0], [0, 0], convention="standard")
        >>> np.round(arm.fk_all([0.0, 0.0])[:, :3, 3], 12)
        array([[0., 0., 0.],
               [1., 0., 0.],
               [2., 0., 0.]])
        """
        q = self._q(q)
        if q.ndim == 1:
            return self._chain_single(q)
        return self._batched(
            q,
            (self.n + 1, 4, 4),
            lambda qc: np.stack([np.broadcast_to(_frame(*f), (len(qc), 4, 4)) for f in self._columns(qc)], axis=-3),
        )

    def _batched(self, q, tail, fn):
        """``fn`` over chunks of the flattened batch ``q`` (..., n), into one output of shape ``(...,) + tail``.

        Large batches run chunk by chunk (``transforms._CHUNK`` items), so temporaries stay bounded and time per
        item stays flat; every item's arithmetic is the same as in one call, so the result is identical.
        """
        lead = q.shape[:-1]
        qf = q.reshape(-1, self.n)
        out = np.empty((len(qf),) + tail)
        for sl in _tf._chunks(len(qf)):
            out[sl] = fn(qf[sl])
        return out.reshape(lead + tail)

    def fk(self, q: ArrayLike) -> np.ndarray:
        """End-effector pose ``base @ A_1(q_1) ... A_n(q_n) @ tool`` in the base frame.

        Parameters
        ----------
        q : array_like, shape (..., n)
            Joint angles (rad).

        Returns
        -------
        ndarray, shape (..., 4, 4)

        Examples
        --------
        >>> arm = SerialArm.from_dh([1.0, 1.0], [0, 0], [0, 0], convention="modified")
        >>> np.round(arm.fk([np.pi / 2, 0.0])[:3, 3], 12)  # Craig: a_0 = 1 is before joint 1
        array([1., 1., 0.])
        """
        ql = _k.floats_or_none(q, self.n)  # fast path: one plain float configuration
        if ql is None:
            q = self._q(q)
            if q.ndim != 1:
                T = np.empty(q.shape[:-1] + (4, 4))
                T[..., 3, :] = (0.0, 0.0, 0.0, 1.0)
                self._many("fk", q, 12, T.reshape(-1, 16)[:, :12])  # rows 0..2 of each T, in place
                return T
            ql = q.tolist()
        return _k.to_array(self._single("fk", ql) + (0.0, 0.0, 0.0, 1.0), (4, 4))

    def joint_axes(self, q: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Unit joint axes ``z`` and a point ``o`` on each axis, base frame.

        Standard DH: joint ``i`` turns about ``z_{i-1}`` through ``o_{i-1}``;
        modified DH: about ``z_i`` through ``o_i``.

        Returns
        -------
        z, o : ndarray, shape (..., n, 3)

        Examples
        --------
        >>> arm = SerialArm.from_dh([1.0], [np.pi / 2], [0.0], convention="standard")
        >>> z, o = arm.joint_axes([0.0])
        >>> z[0]
        array([0., 0., 1.])
        """
        F = self.fk_all(q)
        sel = slice(0, self.n) if self.convention == "standard" else slice(1, self.n + 1)
        return F[..., sel, :3, 2], F[..., sel, :3, 3]

    def jacobian(self, q: ArrayLike) -> np.ndarray:
        """Geometric Jacobian in the base frame, rows ``[v; omega]``.

        Column ``i`` is ``[z_i x (p_e - o_i); z_i]`` with ``z_i, o_i`` the axis and a
        point of joint ``i`` (:eq:`eq-ch05-jac`) and ``p_e`` the tool origin, so that
        ``[v_e; omega] = J(q) qdot`` with ``v_e`` the tool-origin velocity (m/s) and
        ``omega`` the angular velocity (rad/s), both in the base frame.

        Parameters
        ----------
        q : array_like, shape (..., n)

        Returns
        -------
        ndarray, shape (..., 6, n)

        Examples
        --------
        >>> arm = SerialArm.from_dh([1.0, 1.0], [0, 0], [0, 0], convention="standard")
        >>> np.round(arm.jacobian([0.0, 0.0]), 12)
        array([[0., 0.],
               [2., 1.],
               [0., 0.],
               [0., 0.],
               [0., 0.],
               [1., 1.]])
        """
        ql = _k.floats_or_none(q, self.n)  # fast path: one plain float configuration
        if ql is None:
            q = self._q(q)
            if q.ndim != 1:
                return self._many("jac", q, 6 * self.n).reshape(q.shape[:-1] + (6, self.n))
            ql = q.tolist()
        return _k.to_array(self._single("jac", ql), (6, self.n))

    def singular_values(self, q: ArrayLike, *, part: Literal["full", "position", "orientation"] = "full") -> np.ndarray:
        """Singular values of the Jacobian, descending.

        Parameters
        ----------
        q : array_like, shape (..., n)
        part : {"full", "position", "orientation"}
            Rows used: all six (mixes m and rad: the numbers depend on the length
            unit), the three linear-velocity rows, or the three angular rows.

        Returns
        -------
        ndarray, shape (..., min(rows, n))

        Examples
        --------
        >>> arm = SerialArm.from_dh([1.0, 1.0], [0, 0], [0, 0], convention="standard")
        >>> np.round(arm.singular_values([0.0, 0.5], part="position"), 6)
        array([2.169407, 0.220994])
        """
        choice(part, "part", ("full", "position", "orientation"))
        J = self.jacobian(q)
        J = {"full": J, "position": J[..., :3, :], "orientation": J[..., 3:, :]}[part]
        return np.linalg.svd(J, compute_uv=False)

    def manipulability(
        self, q: ArrayLike, *, part: Literal["full", "position", "orientation"] = "full"
    ) -> float | np.ndarray:
        """Yoshikawa manipulability ``sqrt(det(J J^T))`` = product of the singular values.

        Zero at singular configurations. With ``part="full"`` and ``n = 6`` it is
        ``|det J|`` (units m^3 rad^3-ish mixed: compare only like with like).

        Parameters
        ----------
        q : array_like, shape (..., n)
        part : {"full", "position", "orientation"}

        Returns
        -------
        ndarray, shape (...)

        Examples
        --------
        >>> arm = SerialArm.from_dh([1.0, 1.0], [0, 0], [0, 0], convention="standard")
        >>> round(float(arm.manipulability([0.0, np.pi / 2], part="position")), 12)  # l1 l2 |sin q2|
        1.0
        """
        return np.prod(self.singular_values(q, part=part), axis=-1)

    def within_limits(self, q: ArrayLike, *, tol: float = 0.0) -> np.bool_ | np.ndarray:
        """True where every joint lies inside ``qlim`` (within ``tol`` rad); all True without limits.

        ``tol`` is a slack in ``[0, MAX_LIMIT_SLACK]`` rad (0.1 rad): larger, the verdict would not mean much.

        Examples
        --------
        >>> arm = SerialArm.from_dh([1.0], [0], [0], convention="standard", qlim=[[-1, 1]])
        >>> arm.within_limits([[0.5], [1.5]])
        array([ True, False])
        """
        q = self._q(q)
        # a slack above MAX_LIMIT_SLACK would call configurations visibly outside the limits "within" them
        tol = tolerance(tol, "tol", max=MAX_LIMIT_SLACK, allow_zero=True)
        if self.qlim is None:
            return np.ones(q.shape[:-1], dtype=bool)
        return np.all((q >= self.qlim[:, 0] - tol) & (q <= self.qlim[:, 1] + tol), axis=-1)


def pose_error_bound(arm: SerialArm, dq: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Worst-case tool pose error caused by joint errors ``|delta q_j| <= dq_j``, at any configuration.

    Turning joint ``j`` by ``delta_j`` moves the tool point along a chord of length at most
    ``rho_j |delta_j|``, where ``rho_j`` is the tool point's distance from the joint's axis, and
    turns the tool by ``|delta_j|``. Changing the joints one at a time and adding up (triangle
    inequality, in R^3 and on SO(3)) gives, for every ``q``,

    ``|p(q + delta) - p(q)| <= sum_j R_j dq_j`` and ``angle(R(q)^T R(q + delta)) <= sum_j dq_j``,

    with ``R_j >= rho_j`` the length of the chain beyond axis ``j``: the ``|a_i| + |d_i|`` of the
    links after the axis (standard DH: ``|a_j|`` and rows ``i > j``; modified DH: rows ``i > j``)
    plus the tool offset ``|p_tool|``. Use it to state the pose error implied by rounding a joint
    table to ``10^-k`` rad (``dq = 0.5 * 10^-k``).

    Parameters
    ----------
    arm : SerialArm
    dq : array_like, shape (..., n)
        Non-negative bounds on the joint errors in rad.

    Returns
    -------
    position : ndarray, shape (...)
        Bound on the tool position error in m (base frame; ``base`` is rigid).
    rotation : ndarray, shape (...)
        Bound on the tool rotation angle in rad.

    Raises
    ------
    ValueError
        ``arm`` is not a SerialArm; ``dq`` has the wrong trailing shape, is not finite or
        has negative entries.

    Examples
    --------
    >>> arm = SerialArm.from_dh([1.0, 0.5], [0, 0], [0, 0], convention="standard")
    >>> pos, rot = pose_error_bound(arm, [1e-3, 1e-3])  # R = (1.5, 0.5) m
    >>> round(float(pos), 12), round(float(rot), 12)
    (0.002, 0.002)
    """
    if not isinstance(arm, SerialArm):
        raise ValueError(f"arm must be a SerialArm, got {type(arm).__name__}")
    d = as_array(dq, "dq", trailing=(arm.n,))
    if d.ndim == 0 or np.any(d < 0):
        raise ValueError(f"dq must be non-negative joint error bounds of shape (..., {arm.n}) in rad")
    link = np.abs(arm.a) + np.abs(arm.d)
    beyond = np.concatenate([np.cumsum(link[::-1])[::-1][1:], [0.0]])  # rows i > j
    if arm.convention == "standard":
        beyond = beyond + np.abs(arm.a)  # a_j moves off the axis z_{j-1}; d_j runs along it
    reach = beyond + float(np.linalg.norm(arm.tool[:3, 3]))
    return d @ reach, d.sum(axis=-1)


def _link_tx_rx(a, alpha):
    """``Tx(a) Rx(alpha)`` (= ``Rx(alpha) Tx(a)``: a translation and a rotation about the same axis commute)."""
    return dh_frame(np.float64(a), np.float64(alpha), np.float64(0.0), np.float64(0.0), True)


def to_modified(arm: SerialArm) -> SerialArm:
    """The same arm as a modified-DH (Craig) table: identical FK, joint axes and Jacobian for every ``q``.

    A standard chain ``Rz(th1) Tz(d1) [Tx(a1) Rx(al1)] Rz(th2) Tz(d2) ... [Tx(an) Rx(aln)]`` regroups exactly
    into modified links ``Rx(al_{i-1}) Tx(a_{i-1}) Rz(th_i) Tz(d_i)``: row ``i`` of the modified table holds
    ``(a_{i-1}, alpha_{i-1}, d_i, offset_i)`` of the standard one (row 1: ``a_0 = alpha_0 = 0``) and the last
    link's ``Tx(a_n) Rx(alpha_n)`` moves into the tool transform. Joint limits and base are kept. A modified arm
    is returned as an equal copy.

    Parameters
    ----------
    arm : SerialArm

    Returns
    -------
    SerialArm
        ``convention="modified"``.

    Raises
    ------
    ValueError
        ``arm`` is not a SerialArm.

    Examples
    --------
    >>> arm = SerialArm.from_dh([0.3, 0.2], [np.pi / 2, 0.0], [0.1, 0.0], convention="standard")
    >>> m = to_modified(arm)
    >>> m.convention, m.a.tolist(), m.d.tolist()
    ('modified', [0.0, 0.3], [0.1, 0.0])
    >>> bool(np.allclose(m.fk([0.4, -0.7]), arm.fk([0.4, -0.7]), atol=1e-15))
    True
    """
    if not isinstance(arm, SerialArm):
        raise ValueError(f"arm must be a robokin.serial.SerialArm, got {type(arm).__name__}")
    if arm.convention == "modified":
        return _plain(arm, arm.a, arm.alpha, arm.d, arm.base, arm.tool, "modified")
    a = np.concatenate([[0.0], arm.a[:-1]])
    alpha = np.concatenate([[0.0], arm.alpha[:-1]])
    tool = _link_tx_rx(arm.a[-1], arm.alpha[-1]) @ arm.tool
    return _plain(arm, a, alpha, arm.d, arm.base, tool, "modified")


def to_standard(arm: SerialArm) -> SerialArm:
    """The same arm as a standard-DH table: identical FK, joint axes and Jacobian for every ``q``.

    The inverse regrouping of :func:`to_modified`: the first modified link's ``Rx(alpha_0) Tx(a_0)`` moves into
    the base transform, standard row ``i`` holds ``(a_i, alpha_i)`` of modified row ``i + 1`` and ``d_i``,
    ``offset_i`` of row ``i``; the last row gets ``a_n = alpha_n = 0``. A standard arm is returned as an equal
    plain ``SerialArm`` copy.

    Parameters
    ----------
    arm : SerialArm

    Returns
    -------
    SerialArm
        ``convention="standard"``.

    Raises
    ------
    ValueError
        ``arm`` is not a SerialArm.

    Examples
    --------
    >>> m = SerialArm.from_dh([0.0, 0.3], [0.0, np.pi / 2], [0.1, 0.0], convention="modified")
    >>> s = to_standard(m)
    >>> s.a.tolist(), bool(np.allclose(s.fk([0.4, -0.7]), m.fk([0.4, -0.7]), atol=1e-15))
    ([0.3, 0.0], True)
    >>> bool(np.allclose(to_modified(s).fk([1.0, 2.0]), m.fk([1.0, 2.0]), atol=1e-15))
    True
    """
    if not isinstance(arm, SerialArm):
        raise ValueError(f"arm must be a robokin.serial.SerialArm, got {type(arm).__name__}")
    if arm.convention == "standard":
        return _plain(arm, arm.a, arm.alpha, arm.d, arm.base, arm.tool, "standard")
    a = np.concatenate([arm.a[1:], [0.0]])
    alpha = np.concatenate([arm.alpha[1:], [0.0]])
    base = arm.base @ _link_tx_rx(arm.a[0], arm.alpha[0])
    return _plain(arm, a, alpha, arm.d, base, arm.tool, "standard")


def _plain(arm, a, alpha, d, base, tool, convention):
    return SerialArm(a, alpha, d, arm.offset, convention, arm.qlim, base, tool)


def screw_axes(arm: SerialArm, *, frame: Literal["space", "body"]) -> tuple[np.ndarray, np.ndarray]:
    """Home pose ``M`` and joint screw axes of ``arm`` for the product of exponentials (PoE).

    ``space``: ``S_i = [-omega_i x o_i; omega_i]``, the axis of joint ``i`` at ``q = 0`` in the base frame
    (``omega_i`` its unit direction, ``o_i`` any point on it), so that
    ``fk(q) = exp([S_1] q_1) ... exp([S_n] q_n) M`` with ``M = fk(0)`` (base and tool included).
    ``body``: ``B_i = Ad(M^-1) S_i``, the same axes in the tool frame at ``q = 0``, so that
    ``fk(q) = M exp([B_1] q_1) ... exp([B_n] q_n)``. Chapter 5, :eq:`eq-ch05-poe`.

    Twists are in robokin's order ``[v, omega]`` (:func:`robokin.transforms.se3_exp`); Modern Robotics
    (Lynch and Park) writes ``[omega; v]`` and stores the axes as the columns of ``Slist``: its
    ``Slist`` is ``S[:, [3, 4, 5, 0, 1, 2]].T``.

    Parameters
    ----------
    arm : SerialArm
    frame : {"space", "body"}
        Required keyword: the two sets of axes are not interchangeable.

    Returns
    -------
    M : ndarray, shape (4, 4)
        Tool pose at ``q = 0`` in the base frame (m).
    S : ndarray, shape (n, 6)
        Row ``i``: the unit screw of joint ``i``, ``[v (m), omega (unitless)]``.

    Raises
    ------
    ValueError
        ``arm`` is not a SerialArm or ``frame`` is unknown.

    Examples
    --------
    >>> arm = SerialArm.from_dh([1.0, 1.0], [0, 0], [0, 0], convention="standard")
    >>> M, S = screw_axes(arm, frame="space")
    >>> M[:3, 3], S[1]  # joint 2 turns about z through (1, 0, 0): v = -z x o = (0, -1, 0)
    (array([2., 0., 0.]), array([ 0., -1.,  0.,  0.,  0.,  1.]))
    >>> bool(np.allclose(poe_fk(M, S, [0.3, 0.4], frame="space"), arm.fk([0.3, 0.4]), atol=1e-15))
    True
    """
    if not isinstance(arm, SerialArm):
        raise ValueError(f"arm must be a robokin.serial.SerialArm, got {type(arm).__name__}")
    choice(frame, "frame", ("space", "body"))
    q0 = np.zeros(arm.n)
    M = arm.fk(q0)
    w, o = arm.joint_axes(q0)
    S = np.concatenate([np.cross(o, w), w], axis=-1)  # v = -omega x o
    if frame == "body":
        S = (_tf.adjoint(_tf.transform_inverse(M)) @ S[..., None])[..., 0]
    return M, S


def poe_fk(M: ArrayLike, screws: ArrayLike, q: ArrayLike, *, frame: Literal["space", "body"]) -> np.ndarray:
    """Forward kinematics as a product of exponentials, batched over ``q``.

    ``space``: ``exp([S_1] q_1) ... exp([S_n] q_n) M``; ``body``: ``M exp([B_1] q_1) ... exp([B_n] q_n)``
    (Modern Robotics' ``FKinSpace`` and ``FKinBody``; see :func:`screw_axes` for the twist order).

    Parameters
    ----------
    M : array_like, shape (4, 4)
        Home pose (rigid).
    screws : array_like, shape (n, 6)
        Joint screws ``[v, omega]``, space or body as ``frame`` says.
    q : array_like, shape (..., n)
        Joint angles (rad) for revolute screws (``|omega| = 1``), displacements (m) for prismatic ones.
    frame : {"space", "body"}
        Required keyword.

    Returns
    -------
    ndarray, shape (..., 4, 4)

    Raises
    ------
    ValueError
        ``M`` not a rigid (4, 4) transform, ``screws`` not of shape (n, 6), ``q`` not of shape (..., n),
        non-finite input or unknown ``frame``.

    Examples
    --------
    >>> S = np.array([[0.0, 0.0, 0.0, 0.0, 0.0, 1.0]])  # a revolute joint about z through the origin
    >>> M = np.eye(4); M[0, 3] = 1.0
    >>> np.round(poe_fk(M, S, [np.pi / 2], frame="space")[:3, 3], 12)
    array([0., 1., 0.])
    """
    choice(frame, "frame", ("space", "body"))
    if M is None:  # _as_transform reads None as the identity (a default base or tool); the home pose is required
        raise ValueError("M is required: the home configuration T(0) (4 x 4), e.g. from screw_axes")
    M = _as_transform(M, "M")
    S = as_array(screws, "screws", trailing=(6,))
    if S.ndim != 2 or S.shape[0] == 0:
        raise ValueError(f"screws must have shape (n, 6), one row per joint, got shape {S.shape}")
    q = as_array(q, "q", trailing=(S.shape[0],))
    if q.ndim == 0:
        raise ValueError(f"q must have shape (..., {S.shape[0]}), got a scalar")
    E = _tf.se3_exp(q[..., None] * S)  # (..., n, 4, 4)
    T = np.broadcast_to(np.eye(4), q.shape[:-1] + (4, 4)) if frame == "space" else M
    for i in range(S.shape[0]):
        T = T @ E[..., i, :, :]
    return T @ M if frame == "space" else T
