"""Planar five-bar leg (the leg of a wheel-legged robot): FK, IK, Jacobian, singularities.

Conventions (chapter 3 of the course)
-------------------------------------
* Frame: x to the right, y up, origin at motor A. Metres, radians.
* Motors A = (0, 0) and B = (d, 0). Driving links (thighs) AC (length ``l1``)
  and BD (length ``l2``); distal links (shanks) CE (``l3``) and DE (``l4``);
  foot E. ``q = [theta1, theta2]``, both measured from +x, counter-clockwise
  positive, wrapped to [-pi, pi).
* **Assembly mode** (the two solutions of the forward problem) is the sign of
  the 2-D cross product ``s = (D - C) x (E - C)``:
  ``"down"`` means ``s < 0`` (the foot is to the right of the directed line
  C -> D), ``"up"`` means ``s > 0``. For the usual leg (knee C left, knee D
  right, foot hanging below) "down" is the foot below the knees. The sign is
  a property of the configuration, continuous away from singularities; it is
  *not* "the intersection with the smaller y".
* **Working mode** (the four solutions of the inverse problem) picks each knee's
  side of its motor-to-foot line. For the left side ``sL = (E - A) x (C - A)``,
  for the right side ``sR = (E - B) x (D - B)``. Knee C is "out" when
  ``sL < 0`` and knee D is "out" when ``sR > 0``: with the foot below the motor
  axis, "out" puts each knee on the far side from the other motor (the usual
  leg). The IK ``branch`` (:attr:`FiveBar.branches`) is one of ``"out"`` (both
  out), ``"in"`` (both in), ``"in-out"`` (C in, D out) and ``"out-in"`` (C out,
  D in); the first word is the knee of motor A.

Singularities: type I (``det dPhi/dq = 0``, a distal link in line with its
driving link: the foot cannot move along that distal link) and type II
(``det dPhi/dE = 0``, the distal links in line: the motors lose control of the
foot and the Jacobian blows up).

Examples
--------
>>> leg = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
>>> q = leg.ik([0.035, -0.12]).q               # branch "out": knees out, the usual leg
>>> np.round(leg.fk(q), 12)                     # foot back, assembly "down"
array([ 0.035, -0.12 ])
>>> str(leg.assembly_of(q, [0.035, -0.12])), str(leg.working_mode(q, [0.035, -0.12]))
('down', 'out')
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike

from ._primitives import cross2, point_segment_distance, wrap
from ._validate import as_array, choice, count, finite_scalar, flag, integer, on_unreachable_mode, positive, tolerance
from .errors import ConvergenceError, SingularityWarning, UnreachableError
from .results import IKResult

__all__ = ["FiveBar", "segment_distance"]

# knee side signs (sL, sR) of each working mode; first word is the knee of motor A (C), second of motor B (D)
_KNEE_SIGNS = {"out": (-1.0, 1.0), "in": (1.0, -1.0), "in-out": (1.0, 1.0), "out-in": (-1.0, -1.0)}
_ASM_SIGN = {"down": -1.0, "up": 1.0}
_REL = 1e-12  # relative slack for points exactly on a workspace boundary


def _perp(u):
    """Rotate by +90 degrees."""
    return np.stack([-u[..., 1], u[..., 0]], axis=-1)


def _segment_distance(p0, p1, q0, q1):
    """Unchecked kernel of :func:`segment_distance`."""
    u, v = p1 - p0, q1 - q0
    # proper crossing: each segment's end points strictly on both sides of the other's line
    crossing = (cross2(u, q0 - p0) * cross2(u, q1 - p0) < 0) & (cross2(v, p0 - q0) * cross2(v, p1 - q0) < 0)
    ends = np.minimum(
        np.minimum(point_segment_distance(p0, q0, q1), point_segment_distance(p1, q0, q1)),
        np.minimum(point_segment_distance(q0, p0, p1), point_segment_distance(q1, p0, p1)),
    )
    return np.where(crossing, 0.0, ends)


def segment_distance(p0: ArrayLike, p1: ArrayLike, q0: ArrayLike, q1: ArrayLike) -> np.ndarray:
    """Shortest distance between planar segments ``[p0, p1]`` and ``[q0, q1]`` (:eq:`eq-ch3-segdist`).

    With ``P(s) = p0 + s u`` and ``Q(t) = q0 + t v``, ``s, t`` in [0, 1], the squared
    distance ``|P(s) - Q(t)|^2`` is convex in ``(s, t)``. In the plane its unconstrained
    minimum is zero (the lines meet) unless ``u`` and ``v`` are parallel, so the
    distance is zero when the segments cross and otherwise is attained on the boundary
    of the unit square: the smallest of the four end-point-to-segment distances, each
    the clamped projection ``t* = clip((p - a) . (b - a) / |b - a|^2, 0, 1)``. Exact
    (no sampling), vectorised, and valid for parallel, collinear and zero-length
    segments. Two capsules (segments swept by discs of radii ``r1``, ``r2``) overlap
    exactly when this distance is below ``r1 + r2``.

    Parameters
    ----------
    p0, p1, q0, q1 : array_like, shape (..., 2)
        End points (m), any frame common to all four; leading axes broadcast.

    Returns
    -------
    ndarray, shape (...)
        Distance (m), 0 where the segments touch or cross.

    Raises
    ------
    ValueError
        Wrong trailing shape, NaN, inf, complex or text, or leading axes that do not broadcast.

    Examples
    --------
    >>> float(segment_distance([0, 0], [1, 0], [0.5, -1], [0.5, 1]))      # a cross
    0.0
    >>> float(segment_distance([0, 0], [1, 0], [2, 1], [3, 1]))           # nearest: (1, 0) to (2, 1)
    1.4142135623730951
    >>> float(segment_distance([0, 0], [1, 0], [0.2, 0.5], [0.8, 0.5]))   # parallel, overlapping
    0.5
    >>> segment_distance([0, 0], [1, 0], [0, 0, 1], [1, 1, 1])
    Traceback (most recent call last):
    ...
    ValueError: q0 must have shape (..., 2), got shape (3,)
    """
    pts = [as_array(v, n, trailing=(2,)) for v, n in ((p0, "p0"), (p1, "p1"), (q0, "q0"), (q1, "q1"))]
    try:
        pts = np.broadcast_arrays(*pts)
    except ValueError as exc:
        shapes = ", ".join(str(v.shape) for v in pts)
        raise ValueError(f"p0, p1, q0, q1 must broadcast against each other, got shapes {shapes}") from exc
    return _segment_distance(*pts)


@dataclass(frozen=True)
class FiveBar:
    """Planar five-bar linkage A-C-E-D-B with motors at A = (0, 0) and B = (d, 0).

    Parameters
    ----------
    l1, l2 : float
        Driving links AC and BD (m).
    l3, l4 : float
        Distal links CE and DE (m).
    d : float
        Distance between the motors AB (m).

    Examples
    --------
    >>> FiveBar(0.06, 0.06, 0.10, 0.10, 0.07).scale
    0.16
    >>> FiveBar(0.06, -0.06, 0.10, 0.10, 0.07)
    Traceback (most recent call last):
    ...
    ValueError: l2 must be a positive finite number, got -0.06
    """

    #: IK branches (working modes): the side of each knee, first word motor A's knee C, second motor B's knee D.
    branches: ClassVar[tuple[str, ...]] = ("out", "in", "in-out", "out-in")
    default_branch: ClassVar[str] = "out"
    #: Pairs of links that share no joint, the order of :meth:`link_clearance`; AB is the body between the motors.
    link_pairs: ClassVar[tuple[str, ...]] = ("AC-DE", "AC-BD", "CE-BD", "CE-AB", "DE-AB")
    #: FK assembly modes: the sign of ``(D - C) x (E - C)``, "down" < 0, "up" > 0.
    assemblies: ClassVar[tuple[str, ...]] = ("down", "up")

    l1: float
    l2: float
    l3: float
    l4: float
    d: float

    def __post_init__(self):
        for name in ("l1", "l2", "l3", "l4", "d"):
            object.__setattr__(self, name, positive(getattr(self, name), name))

    @property
    def scale(self) -> float:
        """Length scale ``max(l1 + l3, l2 + l4)`` (m) for relative residuals."""
        return max(self.l1 + self.l3, self.l2 + self.l4)

    # ------------------------------------------------------------------ helpers
    def _knees(self, q):
        """Knee positions C, D (..., 2) for joint angles q (..., 2)."""
        t1, t2 = q[..., 0], q[..., 1]
        C = np.stack([self.l1 * np.cos(t1), self.l1 * np.sin(t1)], axis=-1)
        D = np.stack([self.d + self.l2 * np.cos(t2), self.l2 * np.sin(t2)], axis=-1)
        return C, D

    def _foot(self, q, sign, *, clip=False):
        """Two-circle intersection. Returns E, reachable mask, C, D.

        ``sign`` is the assembly sign (-1 down, +1 up), scalar or array. With
        ``clip=True`` unreachable circles are replaced by their closest point
        (used inside the numerical solver so it can walk back into range).
        """
        C, D = self._knees(q)
        u = D - C
        L2 = np.sum(u * u, axis=-1)
        L = np.sqrt(L2)
        lo, hi = abs(self.l3 - self.l4), self.l3 + self.l4
        slack = _REL * self.scale
        ok = (L <= hi + slack) & (L >= lo - slack) & (L > slack)
        Ls = np.where(L > slack, L, 1.0)
        a = (self.l3**2 - self.l4**2 + L2) / (2 * Ls)  # distance from C along C->D
        h2 = self.l3**2 - a**2
        h = np.sqrt(np.maximum(h2, 0.0))
        uhat = u / Ls[..., None]
        E = C + a[..., None] * uhat + (sign * h)[..., None] * _perp(uhat)
        if not clip:
            E = np.where(ok[..., None], E, np.nan)
        return E, ok, C, D

    def _asm_sign(self, assembly):
        return _ASM_SIGN[choice(assembly, "assembly", self.assemblies)]

    # ----------------------------------------------------------------- forward
    def fk(
        self,
        q: ArrayLike,
        *,
        assembly: Literal["down", "up"] = "down",
        on_unreachable: Literal["raise", "nan"] = "raise",
    ) -> np.ndarray:
        """Forward kinematics: foot E = [x, y] (m) from motor angles.

        Parameters
        ----------
        q : array_like, shape (..., 2)
            ``[theta1, theta2]`` (rad) from +x.
        assembly : {"down", "up"}
            Sign of ``(D - C) x (E - C)``: "down" < 0, "up" > 0 (module docstring).
        on_unreachable : {"raise", "nan"}
            When the knees are too far apart or too close (``|CD| > l3 + l4``,
            ``|CD| < |l3 - l4|`` or C = D), raise :class:`UnreachableError`
            or return NaN rows there (``np.isfinite(E).all(-1)`` is the mask).

        Returns
        -------
        E : ndarray, shape (..., 2)
            Foot position in the motor frame (m), whatever ``on_unreachable`` is.

        Examples
        --------
        >>> leg = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
        >>> E = leg.fk([np.pi, 0.0])               # thighs horizontal, knees out
        >>> np.round(E, 4)
        array([ 0.035 , -0.0312])
        >>> np.round(leg.fk([np.pi, 0.0], assembly="up"), 4)
        array([0.035 , 0.0312])
        >>> leg.fk([np.pi, 0.0], assembly="sideways")
        Traceback (most recent call last):
        ...
        ValueError: assembly must be one of 'down', 'up'; got 'sideways'
        """
        q = as_array(q, "q", trailing=(2,))
        sign = self._asm_sign(assembly)
        mode = on_unreachable_mode(on_unreachable)
        E, ok, C, D = self._foot(q, sign)
        if mode == "raise" and not np.all(ok):
            bad = ~ok
            first = q[bad][0]
            raise UnreachableError(
                int(np.count_nonzero(bad)),
                first,
                total=int(ok.size),
                reason="knee distance |CD| outside [|l3 - l4|, l3 + l4]; the linkage cannot be assembled",
            )
        return E

    def joints(self, q: ArrayLike, *, assembly: Literal["down", "up"] = "down") -> np.ndarray:
        """All joint positions ``[A, B, C, D, E]`` for plotting.

        Returns
        -------
        ndarray, shape (..., 5, 2)
            Rows A, B, C, D, E (m); E is NaN where the linkage cannot be assembled.

        Examples
        --------
        >>> FiveBar(0.06, 0.06, 0.10, 0.10, 0.07).joints([np.pi, 0.0]).shape
        (5, 2)
        """
        q = as_array(q, "q", trailing=(2,))
        E, ok, C, D = self._foot(q, self._asm_sign(assembly))
        A = np.zeros_like(C)
        B = np.broadcast_to(np.array([self.d, 0.0]), C.shape)
        return np.stack([A, B, C, D, E], axis=-2)

    def link_clearance(
        self, q: ArrayLike, *, assembly: Literal["down", "up"] = "down", width: float = 0.0
    ) -> np.ndarray:
        """Clearance between the links that share no joint, modelled as coplanar capsules.

        Each link is the segment between its joints swept by a disc of diameter
        ``width`` (the link's width). Links that share a joint always touch there, so
        only the five pairs of :attr:`link_pairs` count: ``AC-DE``, ``AC-BD``,
        ``CE-BD`` and the shanks against the body ``AB`` between the motors. The
        clearance of a pair is ``segment_distance - width`` (:func:`segment_distance`):
        negative means the capsules overlap (the links collide), and with
        ``width=0`` a zero clearance means the centre lines touch or cross.

        Parameters
        ----------
        q : array_like, shape (..., 2)
            Motor angles (rad).
        assembly : {"down", "up"}
            Assembly mode of the foot (:meth:`fk`).
        width : float
            Link width (m), the same for every link; ``>= 0``.

        Returns
        -------
        ndarray, shape (..., 5)
            Clearance (m) per pair in the order of :attr:`link_pairs`; NaN rows where the
            linkage cannot be assembled.

        Examples
        --------
        >>> leg = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
        >>> p = [0.035, -0.10]
        >>> bool(leg.link_clearance(leg.ik(p, branch="out").q, width=0.008).min() > 0)   # knees out: free
        True
        >>> q_in = leg.ik(p, branch="in").q                                             # knees in: crossed thighs
        >>> float(leg.link_clearance(q_in, assembly=str(leg.assembly_of(q_in, p)))[1])  # AC-BD
        0.0
        >>> leg.link_clearance(q_in, width=-0.001)
        Traceback (most recent call last):
        ...
        ValueError: width must be a finite non-negative link width (m), got -0.001
        """
        q = as_array(q, "q", trailing=(2,))
        width = finite_scalar(width, "width")
        if width < 0:
            raise ValueError(f"width must be a finite non-negative link width (m), got {width!r}")
        E, ok, C, D = self._foot(q, self._asm_sign(assembly))
        A = np.zeros_like(C)
        B = np.broadcast_to(np.array([self.d, 0.0]), C.shape)
        ends = {"A": A, "B": B, "C": C, "D": D, "E": E}
        dist = [
            _segment_distance(*np.broadcast_arrays(ends[a[0]], ends[a[1]], ends[b[0]], ends[b[1]]))
            for a, b in (pair.split("-") for pair in self.link_pairs)
        ]
        return np.where(ok[..., None], np.stack(dist, axis=-1) - width, np.nan)

    def assembly_sign(self, q: ArrayLike, p: ArrayLike) -> float | np.ndarray:
        """Normalised assembly measure ``(D - C) x (E - C) / (|D - C| |E - C|)`` in [-1, 1].

        Negative is "down", positive "up", zero a type II singularity (distal
        links in line). ``p`` is the foot (..., 2); use it to classify IK
        solutions.

        Examples
        --------
        >>> leg = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
        >>> p = [0.035, -0.12]
        >>> float(np.sign(leg.assembly_sign(leg.ik(p).q, p)))
        -1.0
        """
        q = as_array(q, "q", trailing=(2,))
        p = as_array(p, "p", trailing=(2,))
        C, D = self._knees(q)
        u, v = D - C, p - C
        den = np.linalg.norm(u, axis=-1) * np.linalg.norm(v, axis=-1)
        return cross2(u, v) / np.where(den > 0, den, 1.0)

    def assembly_of(self, q: ArrayLike, p: ArrayLike) -> np.ndarray:
        """Assembly mode name(s) of configurations ``q`` with feet ``p``: "down" or "up".

        Use it to classify IK solutions (``p`` is the target) or the two feet of
        one motor pose. A foot exactly on a type II singularity is called "up".

        Returns
        -------
        ndarray of str, shape (...)

        Examples
        --------
        >>> leg = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
        >>> p = [0.035, -0.12]
        >>> str(leg.assembly_of(leg.ik(p, branch="in").q, p))
        'up'
        """
        return np.where(self.assembly_sign(q, p) < 0, "down", "up")

    # ----------------------------------------------------------------- inverse
    def ik(
        self,
        p: ArrayLike,
        *,
        branch: Literal["out", "in", "in-out", "out-in", "all"] = "out",
        on_unreachable: Literal["raise", "nan"] = "raise",
    ) -> IKResult:
        """Closed-form inverse kinematics: each side is a 2-link IK.

        Parameters
        ----------
        p : array_like, shape (..., 2)
            Foot target [x, y] (m) in the motor frame.
        branch : {"out", "in", "in-out", "out-in", "all"}
            Working mode (module docstring); first word is knee C (motor A).
            ``"all"`` solves the four, in the order of :attr:`branches`.
        on_unreachable : {"raise", "nan"}
            Targets with ``|AE|`` outside ``[|l1 - l3|, l1 + l3]`` or ``|BE|``
            outside ``[|l2 - l4|, l2 + l4]`` (the same for every branch): raise
            :class:`UnreachableError`, or NaN rows and ``valid`` False.

        Returns
        -------
        IKResult
            ``q`` ``(..., 2)`` (``(..., 4, 2)`` for ``"all"``), ``[theta1, theta2]``
            wrapped to [-pi, pi); ``valid``; ``residual`` ``|fk(q) - p|`` (m) with
            the FK in the assembly mode of the solution, :meth:`assembly_of`
            (NaN where ``q`` is NaN); ``branch``.

        Examples
        --------
        >>> leg = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
        >>> p = np.array([[0.035, -0.12], [0.0, -0.09]])
        >>> res = leg.ik(p)
        >>> res.q.shape, res.branch
        ((2, 2), 'out')
        >>> bool(np.allclose(leg.fk(res.q), p, atol=1e-12))
        True
        >>> leg.ik(p, branch="all").q.shape
        (2, 4, 2)
        >>> leg.ik([0.035, -0.5])
        Traceback (most recent call last):
        ...
        robokin.errors.UnreachableError: 1 of 1 targets are unreachable (|AE| or |BE| outside the annulus of its 2-link side); first: [0.035, -0.5]. Pass on_unreachable="nan" to get NaN rows and a mask instead.
        """
        p = as_array(p, "p", trailing=(2,))
        branch = choice(branch, "branch", self.branches + ("all",))
        mode = on_unreachable_mode(on_unreachable)
        if branch == "all":  # a branch axis before the joint axis, in the order of self.branches
            sL, sR = np.array([_KNEE_SIGNS[b] for b in self.branches]).T
            pb = p[..., None, :]
        else:
            (sL, sR), pb = _KNEE_SIGNS[branch], p
        B = np.array([self.d, 0.0])
        t1, ok1 = self._side_ik(pb, self.l1, self.l3, sL)
        t2, ok2 = self._side_ik(pb - B, self.l2, self.l4, sR)
        q = np.stack(np.broadcast_arrays(t1, t2), axis=-1)
        ok = np.broadcast_to(ok1 & ok2, q.shape[:-1])
        if mode == "raise" and not np.all(ok):
            bad = ~ok[..., 0] if branch == "all" else ~ok  # reach does not depend on the branch
            raise UnreachableError(
                int(np.count_nonzero(bad)),
                p[bad][0] if bad.ndim else p,
                total=int(bad.size),
                reason="|AE| or |BE| outside the annulus of its 2-link side",
            )
        q = np.where(ok[..., None], q, np.nan)
        return IKResult(
            q=q,
            valid=ok.copy(),
            residual=self._residual(q, pb),
            branch=self.branches if branch == "all" else branch,
        )

    def _residual(self, q, p):
        """``|E(q) - p|`` (m) with E in the assembly mode of ``(q, p)``: FK check of IK solutions, NaN-tolerant."""
        C, D = self._knees(q)
        sign = np.where(cross2(D - C, p - C) < 0, -1.0, 1.0)
        return np.linalg.norm(self._foot(q, sign)[0] - p, axis=-1)

    def _side_ik(self, r_vec, la, lb, side):
        """Angle of the driving link so that its knee sits on ``side`` of the motor-to-foot line."""
        r2 = np.sum(r_vec * r_vec, axis=-1)
        r = np.sqrt(r2)
        slack = _REL * self.scale
        ok = (r <= la + lb + slack) & (r >= abs(la - lb) - slack) & (r > slack)
        rs = np.where(r > slack, r, 1.0)
        c = np.clip((la**2 + r2 - lb**2) / (2 * la * rs), -1.0, 1.0)
        phi = np.arctan2(r_vec[..., 1], r_vec[..., 0])
        # side = sign((E - motor) x (knee - motor)): +alpha turns the knee counter-clockwise from the foot line
        return wrap(phi + side * np.arccos(c)), ok

    def working_mode(self, q: ArrayLike, p: ArrayLike) -> str | np.ndarray:
        """Working mode name(s) of joint solutions ``q`` for feet ``p``: "out", "in", "out-in" or "in-out".

        Reads the knee sides ``sL = (E - A) x (C - A)`` and ``sR = (E - B) x (D - B)``
        (module docstring), so it also labels numerical IK results.

        Returns
        -------
        ndarray of str, shape (...)

        Examples
        --------
        >>> leg = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
        >>> p = [0.02, -0.10]
        >>> [str(leg.working_mode(leg.ik(p, branch=b).q, p)) for b in leg.branches]
        ['out', 'in', 'in-out', 'out-in']
        """
        q = as_array(q, "q", trailing=(2,))
        p = as_array(p, "p", trailing=(2,))
        C, D = self._knees(q)
        B = np.array([self.d, 0.0])
        left_out = cross2(p, C) < 0
        right_out = cross2(p - B, D - B) > 0
        names = np.array([["in", "in-out"], ["out-in", "out"]])
        return names[left_out.astype(int), right_out.astype(int)]

    def clamp_to_workspace(self, p: ArrayLike, *, margin: float = 0.0, iterations: int = 50) -> np.ndarray:
        """Move targets into the workspace shrunk by ``margin`` (m): the type I safety margin.

        The reachable set of the foot is the intersection of two annuli,
        ``|l1 - l3| <= |AE| <= l1 + l3`` and ``|l2 - l4| <= |BE| <= l2 + l4``;
        their circles are the type I singularities. Each annulus is shrunk by
        ``margin`` and ``p`` is moved onto the intersection by alternating
        radial projections (a nearby point, exactly ``p`` when it is already
        inside). Type II singularities are not handled here: check them with
        :meth:`singularity_measures`.

        Parameters
        ----------
        p : array_like, shape (..., 2)
            Foot targets (m).
        margin : float
            Distance kept from every annulus circle (m), e.g. 0.005 to 0.010.

        Returns
        -------
        ndarray, shape (..., 2)

        Raises
        ------
        ValueError
            If the margin leaves no workspace, or a target sits exactly on a motor axis.

        Examples
        --------
        >>> leg = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
        >>> p = leg.clamp_to_workspace([0.0, -0.03], margin=0.008)   # too close to motor A
        >>> np.round(p, 6)
        array([ 0.   , -0.048])
        """
        p = as_array(p, "p", trailing=(2,))
        margin = finite_scalar(margin, "margin")
        iterations = integer(iterations, "iterations", minimum=1)
        if iterations > 10_000:
            raise ValueError(f"iterations must be at most 10000 (50 is plenty), got {iterations}")
        if margin < 0:
            raise ValueError(f"margin must be a finite non-negative number (m), got {margin!r}")
        B = np.array([self.d, 0.0])
        rings = [
            (np.zeros(2), abs(self.l1 - self.l3) + margin, self.l1 + self.l3 - margin),
            (B, abs(self.l2 - self.l4) + margin, self.l2 + self.l4 - margin),
        ]
        if any(lo >= hi for _, lo, hi in rings):
            raise ValueError(f"margin {margin} m leaves no workspace for this leg")
        x = p.copy()
        for _ in range(iterations):
            for centre, lo, hi in rings:
                v = x - centre
                r = np.linalg.norm(v, axis=-1)
                if np.any(r == 0):
                    raise ValueError("p: a target sits exactly on a motor axis; its radial direction is undefined")
                x = centre + v * (np.clip(r, lo, hi) / r)[..., None]
        return x

    def ik_numeric(
        self,
        p: ArrayLike,
        *,
        q0: ArrayLike,
        assembly: Literal["down", "up"] = "down",
        warm_start: Literal["q0", "previous"] = "q0",
        tol: float = 1e-10,
        max_nfev: int = 200,
        on_failure: Literal["raise", "report"] = "raise",
    ) -> IKResult:
        """Numerical IK with ``scipy.optimize.least_squares`` (the practitioner's baseline).

        Solves ``fk(q, assembly) = p`` one target at a time. Slow by design: it
        is the reference the closed form is benchmarked against. Which working
        mode it lands on depends on ``q0``: read it with :meth:`working_mode`.

        Parameters
        ----------
        p : array_like, shape (..., 2)
            Foot targets (m).
        q0 : array_like, shape (2,) or (..., 2)
            Initial guess (rad), broadcast against ``p``.
        assembly : {"down", "up"}
            Assembly mode of the FK used inside the residual.
        warm_start : {"q0", "previous"}
            "q0": every target starts from its ``q0``. "previous": the first
            target starts from ``q0`` and each next one (in C order) from the
            previous solution, as when following a trajectory frame by frame.
        tol : float
            Accept a solution when ``|fk(q) - p| <= tol * scale``; in ``(0, 1e-3]`` (a looser bar calls a foot
            0.1 % of the leg's size off "converged").
        max_nfev : int
            Function-evaluation budget per target, ``1 <= max_nfev <= 100000``. The targets are solved one by
            one (about 1.4 ms each): cost grows linearly with the batch.
        on_failure : {"raise", "report"}
            ``"raise"``: :class:`ConvergenceError` for the first failed target.
            ``"report"``: return the result, failures marked by ``valid`` False
            and their ``reason``.

        Returns
        -------
        IKResult
            ``q`` ``(..., 2)`` wrapped to [-pi, pi) (the last iterate where the
            solve failed); ``valid``; ``residual`` ``|fk(q, assembly) - p|`` (m,
            NaN where the linkage cannot be assembled at ``q``); ``branch`` the
            ``assembly`` solved on; ``iterations`` the function evaluations used;
            ``reason`` ``"converged"``, ``"residual above tol"`` or
            ``"not assembled"``.

        Examples
        --------
        >>> leg = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
        >>> p = [0.035, -0.12]
        >>> res = leg.ik_numeric(p, q0=[-2.0, -1.0])   # a guess near the knees-out leg
        >>> bool(np.allclose(res.q, leg.ik(p).q, atol=1e-7)), str(res.reason)
        (True, 'converged')
        >>> str(leg.ik_numeric([0.035, -0.3], q0=[-2.0, -1.0], on_failure="report").reason)
        'residual above tol'
        """
        from scipy.optimize import least_squares

        p = as_array(p, "p", trailing=(2,))
        q0 = as_array(q0, "q0", trailing=(2,))
        sign = self._asm_sign(assembly)
        warm = choice(warm_start, "warm_start", ("q0", "previous"))
        fail_mode = choice(on_failure, "on_failure", ("raise", "report"))
        try:
            q0b = np.broadcast_to(q0, p.shape)
        except ValueError as exc:
            raise ValueError(f"q0 with shape {q0.shape} does not broadcast against p with shape {p.shape}") from exc
        tol = tolerance(tol, "tol", max=1e-3)
        max_nfev = count(max_nfev, "max_nfev", max=100_000)
        flat_p = p.reshape(-1, 2)
        flat_q0 = q0b.reshape(-1, 2)
        n = len(flat_p)
        out = np.empty_like(flat_p)
        err = np.empty(n)
        nfev = np.zeros(n, dtype=int)
        reason = np.empty(n, dtype=object)
        prev = None
        for i, target in enumerate(flat_p):
            start = flat_q0[i] if (warm == "q0" or prev is None) else prev
            res = least_squares(
                lambda x: self._foot(x, sign, clip=True)[0] - target,
                start,
                method="lm",
                xtol=1e-15,
                ftol=1e-15,
                gtol=1e-15,
                max_nfev=max_nfev,
            )
            qi = res.x
            out[i], nfev[i] = wrap(qi), res.nfev
            err[i] = np.linalg.norm(self._foot(qi, sign)[0] - target)
            if np.isfinite(err[i]) and err[i] <= tol * self.scale:
                reason[i] = "converged"
                prev = qi
                continue
            reason[i] = "residual above tol" if np.isfinite(err[i]) else "not assembled"
            if fail_mode == "raise":
                raise ConvergenceError(
                    err[i] if np.isfinite(err[i]) else np.inf,
                    res.nfev,
                    f"five-bar least_squares IK (target {i}: {target.tolist()}, assembly {assembly!r})",
                )
        batch = p.shape[:-1]
        return IKResult(
            q=out.reshape(p.shape),
            valid=(reason == "converged").reshape(batch),
            residual=err.reshape(batch),
            branch=assembly,
            iterations=nfev.reshape(batch),
            reason=reason.astype(str).reshape(batch),
        )

    # --------------------------------------------------------------- Jacobian
    def _jac_core(self, q, assembly):
        """Implicit-differentiation Jacobian; returns J (inf/NaN at singularities), ok, det(dPhi/dE)/4."""
        E, ok, C, D = self._foot(q, self._asm_sign(assembly))
        t1, t2 = q[..., 0], q[..., 1]
        dC = self.l1 * np.stack([-np.sin(t1), np.cos(t1)], axis=-1)  # dC/dtheta1
        dD = self.l2 * np.stack([-np.sin(t2), np.cos(t2)], axis=-1)  # dD/dtheta2
        EC, ED = E - C, E - D
        # Loop closure Phi = [|E-C|^2 - l3^2, |E-D|^2 - l4^2] = 0, all terms halved:
        # dPhi/dE = rows (E-C)^T, (E-D)^T; -dPhi/dq = diag((E-C).C', (E-D).D')
        pq = np.stack([np.sum(EC * dC, -1), np.sum(ED * dD, -1)], axis=-1)
        det = cross2(EC, ED)
        # 2x2 inverse by the adjugate: exact and vectorised
        inv_rows = np.stack([np.stack([ED[..., 1], -EC[..., 1]], -1), np.stack([-ED[..., 0], EC[..., 0]], -1)], -2)
        with np.errstate(divide="ignore", invalid="ignore"):
            J = inv_rows * pq[..., None, :] / det[..., None, None]
        return J, ok, det

    def jacobian(self, q: ArrayLike, *, assembly: Literal["down", "up"] = "down", warn: bool = True) -> np.ndarray:
        """Foot Jacobian ``dE/dq`` by implicit differentiation of the loop closure.

        With ``Phi(q, E) = [|E - C|^2 - l3^2, |E - D|^2 - l4^2] = 0``,
        ``J = -(dPhi/dE)^-1 dPhi/dq = [(E-C)^T; (E-D)^T]^-1 diag((E-C).C', (E-D).D')``.

        Parameters
        ----------
        q : array_like, shape (..., 2)
        assembly : {"down", "up"}
        warn : bool
            Emit :class:`SingularityWarning` when some sample is within round-off
            of a type II singularity (``|sin(CE, DE)| <= 1e-7``; entries huge or inf).

        Returns
        -------
        ndarray, shape (..., 2, 2)
            ``J[..., i, j] = dE_i / dtheta_j`` (m/rad). Unassembled rows are NaN.

        Raises
        ------
        UnreachableError
            If the linkage cannot be assembled at some ``q``.

        Examples
        --------
        >>> leg = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
        >>> J = leg.jacobian(leg.ik([0.035, -0.12]).q)
        >>> J.shape
        (2, 2)
        >>> leg.jacobian([[np.pi, 0.0], [np.nan, 0.0]])
        Traceback (most recent call last):
        ...
        ValueError: q contains 1 non-finite value(s) (NaN or inf)
        """
        q = as_array(q, "q", trailing=(2,))
        warn = flag(warn, "warn")
        J, ok, det = self._jac_core(q, assembly)
        if not np.all(ok):
            raise UnreachableError(
                int(np.count_nonzero(~ok)),
                q[~ok][0],
                total=int(ok.size),
                reason="knee distance |CD| outside [|l3 - l4|, l3 + l4]",
            )
        # E comes from a square root, so a type II pose is only located to ~sqrt(eps): 1e-7 in sin(CE, DE)
        sing = np.abs(det) <= 1e-7 * self.l3 * self.l4
        if warn and np.any(sing):
            Js = J[sing]
            finite = np.isfinite(Js).all(axis=(-2, -1))
            cond = np.inf if not finite.all() else float(np.max(np.linalg.cond(Js)))
            warnings.warn(
                SingularityWarning(
                    cond,
                    f"five-bar Jacobian: {int(np.count_nonzero(sing))} "
                    "sample(s) at a type II singularity (distal links in line)",
                ),
                stacklevel=2,
            )
        return J

    def singularity_measures(
        self, q: ArrayLike, *, assembly: Literal["down", "up"] = "down"
    ) -> tuple[np.ndarray, np.ndarray]:
        """Dimensionless distances to the two singularity types, each in [0, 1].

        ``type1 = min(|sin(CA, CE)|, |sin(DB, DE)|)``: zero when a distal link is
        in line with its driving link (the foot loses a direction of motion).
        ``type2 = |sin(CE, DE)|``: zero when the distal links are in line (the
        motors lose control of the foot).

        Returns
        -------
        type1, type2 : ndarray, shape (...)
            NaN where the linkage cannot be assembled.

        Examples
        --------
        >>> leg = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
        >>> t1, t2 = leg.singularity_measures(leg.ik([0.035, -0.12]).q)
        >>> bool(0 < t1 <= 1 and 0 < t2 <= 1)
        True
        """
        q = as_array(q, "q", trailing=(2,))
        E, ok, C, D = self._foot(q, self._asm_sign(assembly))
        B = np.array([self.d, 0.0])

        def sin_between(u, v):
            return np.abs(cross2(u, v)) / (np.linalg.norm(u, axis=-1) * np.linalg.norm(v, axis=-1))

        t1 = np.minimum(sin_between(C, E - C), sin_between(D - B, E - D))
        t2 = sin_between(E - C, E - D)
        return t1, t2

    def condition_number(self, q: ArrayLike, *, assembly: Literal["down", "up"] = "down") -> np.ndarray:
        """2-norm condition number of the Jacobian (``inf`` at singularities, NaN if unassembled).

        Examples
        --------
        >>> leg = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
        >>> bool(leg.condition_number(leg.ik([0.035, -0.12]).q) >= 1)
        True
        """
        q = as_array(q, "q", trailing=(2,))
        J, ok, det = self._jac_core(q, assembly)
        finite = np.isfinite(J).all(axis=(-2, -1))
        sv = np.linalg.svd(np.where(finite[..., None, None], J, 0.0), compute_uv=False)
        with np.errstate(divide="ignore", invalid="ignore"):
            c = sv[..., 0] / sv[..., 1]
        c = np.where(finite & ~np.isnan(c), c, np.inf)
        return np.where(ok, c, np.nan)

    def static_torques(self, q: ArrayLike, force: ArrayLike, *, assembly: Literal["down", "up"] = "down") -> np.ndarray:
        """Motor torques that hold a foot force: ``tau = J^T F``.

        Parameters
        ----------
        q : array_like, shape (..., 2)
        force : array_like, shape (..., 2)
            Force the leg applies *at the foot* (N), e.g. ``[0, -m g]`` to push
            the ground down with a weight ``m g`` while standing (the ground
            pushes back with ``[0, m g]``).

        Returns
        -------
        ndarray, shape (..., 2)
            ``[tau1, tau2]`` (N m), counter-clockwise positive.

        Examples
        --------
        >>> leg = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
        >>> tau = leg.static_torques(leg.ik([0.035, -0.12]).q, [0.0, -100.0])
        >>> bool(np.isclose(tau[0], -tau[1]))           # symmetric pose, symmetric load
        True
        """
        q = as_array(q, "q", trailing=(2,))
        F = as_array(force, "force", trailing=(2,))
        J = self.jacobian(q, assembly=assembly)
        return np.einsum("...ij,...i->...j", J, F)
