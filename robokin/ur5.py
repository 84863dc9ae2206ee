"""The Universal Robots UR5: official standard-DH model and analytic IK (all 8 branches).

DH table (standard convention, UR's published values; lengths in m)::

    i   a_i        alpha_i   d_i
    1   0          pi/2      0.089159
    2   -0.425     0         0
    3   -0.39225   0         0
    4   0          pi/2      0.10915
    5   0          -pi/2     0.09465
    6   0          0         0.0823

Zero pose (all ``q = 0``): upper arm and forearm stretched horizontally along
``-x`` of the base at height ``d1``, the tool origin at
``(a2 + a3, -(d4 + d6), d1 - d5) = (-0.81725, -0.19145, -0.00549)`` m with the tool
z axis along ``-y``. Joint offsets are zero and every joint turns positively
(right-hand rule) about its ``z_{i-1}`` axis. Chapter 5 shows the frames.

:data:`UR5` is a :class:`UR5Arm`: a :class:`~robokin.serial.SerialArm` whose ``UR5Arm.ik`` is the analytic
IK of {cite}`hawkins2013` (chapter 6, {prf:ref}`alg-ch06-ik`): theta1 from the wrist point ``p05``, theta5 and
theta6 from the tool orientation, then a planar 3R problem for theta2, theta3, theta4.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import ClassVar, Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from . import transforms as _tf
from ._primitives import wrap as _wrap
from ._validate import as_array, choice, finite_scalar, integer, on_unreachable_mode, positive
from .errors import SingularityWarning, UnreachableError
from .results import IKResult
from .serial import SerialArm
from .trajectory import PiecewiseQuintic, plan_quintic, segment_peaks
from .transforms import ROTATION_TOL, _check_transform, wrap_to_pi

__all__ = [
    "D1",
    "A2",
    "A3",
    "D4",
    "D5",
    "D6",
    "ALPHA",
    "UR5_GEOMETRY",
    "ur_geometry",
    "URArm",
    "make_ur_arm",
    "UR5Arm",
    "UR5",
    "make_ur5",
    "INPUT_ERROR_GAIN",
    "input_error",
    "wrist_singular",
    "nearest",
    "joint_representatives",
    "nearest_representative",
    "pose_residual",
    "inertial_parameters",
    "contest_table",
]

D1, A2, A3, D4, D5, D6 = 0.089159, -0.425, -0.39225, 0.10915, 0.09465, 0.0823
ALPHA = (np.pi / 2, 0.0, 0.0, np.pi / 2, -np.pi / 2, 0.0)
QLIM = np.tile([-2 * np.pi, 2 * np.pi], (6, 1))  # UR joints: +-360 deg

# Branch k uses the sign triple _BRANCH_SIGNS[k] = (shoulder, elbow, wrist) chosen in the theta1 (+-acos),
# theta3 and theta5 (+-atan2) formulas; the order is shoulder-major. Names: see UR5Arm.branches.
_BRANCH_SIGNS = np.array([(s, e, w) for s in (1, -1) for e in (1, -1) for w in (1, -1)], dtype=float)
_BRANCHES = tuple(
    f"{'left' if s > 0 else 'right'}-{'up' if e > 0 else 'down'}-{'noflip' if w > 0 else 'flip'}"
    for s, e, w in _BRANCH_SIGNS
)

#: Per-pose validity tolerance is ``tol + INPUT_ERROR_GAIN * e_in``, with ``e_in = input_error(T)`` the pose's
#: own inconsistency (``max(max|R^T R - I|, |det R - 1|)``, which ``ik`` accepts up to 1e-6). Measured over random
#: poses perturbed by 1e-9..1e-6, the FK residual of the analytic branches stays below ~4 e_in
#: (tests/test_ur5.py); 10 is the margin.
INPUT_ERROR_GAIN = 10.0
#: With a base, tool or offsets the closed form's own FK check (on the flange pose) only pre-filters, at this
#: multiple of the tolerance; the whole arm's FK then decides (:meth:`URArm.ik`).
_CORE_SLACK = 1e3
#: Poses per chunk of ``UR5Arm.ik`` (at most ``transforms._CHUNK``): the temporaries of 8 branches then stay in
#: the CPU cache (measured: about 6 % less time per pose than 8192-pose chunks on a quiet machine, more when other
#: processes share the cache).
_IK_CHUNK = 1024


def _cos_sin(t):
    """``np.cos, np.sin``: the FK check must give what ``UR5.fk`` gives (``_primitives.cos_sin`` is within 1.5 ulp,
    which moves residuals of ~1e-15 by ~1e-15)."""
    return np.cos(t), np.sin(t)


def _full(a, shape):
    """``a`` broadcast to ``shape`` as a new array (one assignment; ``np.broadcast_to`` costs more per call)."""
    out = np.empty(shape, a.dtype)
    out[...] = a
    return out


def _cos_sin_pm(t, axis):
    """``np.cos(t), np.sin(t)`` of angles that come in +- pairs along branch ``axis`` (theta3 over the elbow,
    theta5 over the wrist), from the first member only: ``|t|`` is the same there, ``cos`` is even and ``sin``
    odd, bit for bit (numpy's float64 cos/sin; tests/test_ur5.py checks it). Half the cos/sin work."""
    b = np.abs(t[(slice(None),) * axis + (slice(0, 1),)])
    c, s = np.cos(b), np.sin(b) * np.copysign(1.0, t)  # sin(-x) = -sin(x) (not copysign: |t| may pass pi)
    odd = np.abs(t) != b  # wrapping can break a pair (pi - 1 ulp wraps to about -pi): take those as they are
    if np.any(odd):
        c, s = np.where(odd, np.cos(t), c), np.where(odd, np.sin(t), s)
    return c, s


class URGeometry(NamedTuple):
    """The six lengths (m) of a UR-family standard-DH table (UR3, UR5, UR10, ... and their clones).

    The table is ``a = (0, a2, a3, 0, 0, 0)``, ``alpha = (pi/2, 0, 0, pi/2, -pi/2, 0)``,
    ``d = (d1, 0, 0, d4, d5, d6)``: three parallel middle axes and a wrist whose last three axes do not meet
    (Hawkins' geometry, {cite}`hawkins2013`). ``a2, a3`` are negative on UR's own tables.
    """

    d1: float
    a2: float
    a3: float
    d4: float
    d5: float
    d6: float


#: The UR5's geometry.
UR5_GEOMETRY = URGeometry(D1, A2, A3, D4, D5, D6)
_ZERO_A, _ZERO_D = (0, 3, 4, 5), (1, 2)


def ur_geometry(
    a: ArrayLike, alpha: ArrayLike, d: ArrayLike, *, convention: Literal["standard", "modified"] = "standard"
) -> URGeometry | None:
    """The :class:`URGeometry` of a standard-DH table if it has the UR family's structure, else None.

    Parameters
    ----------
    a, alpha, d : array_like, shape (6,)
        DH columns (m, rad, m). Twists must match ``(pi/2, 0, 0, pi/2, -pi/2, 0)`` within 1e-12 rad and the
        zero entries of ``a`` and ``d`` must be exactly zero; ``a2, a3, d4, d6`` must be non-zero.
    convention : {"standard", "modified"}
        A modified table is never UR-structured as it stands: convert it with
        :func:`robokin.serial.to_standard` first (that moves its first link into the base transform).

    Examples
    --------
    >>> ur_geometry([0, -0.425, -0.39225, 0, 0, 0], ALPHA, [0.089159, 0, 0, 0.10915, 0.09465, 0.0823])
    URGeometry(d1=0.089159, a2=-0.425, a3=-0.39225, d4=0.10915, d5=0.09465, d6=0.0823)
    >>> ur_geometry([0, -0.425, -0.39225, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0.1, 0, 0, 0.1, 0.1, 0.1]) is None
    True
    """
    choice(convention, "convention", ("standard", "modified"))
    a, alpha, d = (as_array(v, name) for v, name in ((a, "a"), (alpha, "alpha"), (d, "d")))
    if convention != "standard" or a.shape != (6,) or alpha.shape != (6,) or d.shape != (6,):
        return None
    if not np.allclose(alpha, ALPHA, rtol=0, atol=1e-12) or np.any(a[list(_ZERO_A)]) or np.any(d[list(_ZERO_D)]):
        return None
    g = URGeometry(float(d[0]), float(a[1]), float(a[2]), float(d[3]), float(d[4]), float(d[5]))
    if 0.0 in (g.a2, g.a3, g.d4, g.d6):
        return None
    return g


class URArm(SerialArm):
    """A UR-family arm: a standard-DH :class:`~robokin.serial.SerialArm` of :class:`URGeometry` structure, with
    any joint offsets and any base and tool transforms, and its analytic inverse kinematics (all 8 branches).

    Build it with :func:`make_ur_arm`. A tool transform (a gripper offset) and a base transform (the arm
    mounted on a table, turned or tilted) are handled exactly: the target is mapped to the flange pose
    ``T_flange = base^-1 T tool^-1`` and solved in closed form; every branch is then confirmed by FK of the
    *whole* arm, base and tool included. Joint offsets shift ``q = theta - offset`` (wrapped).

    Attributes
    ----------
    branches : tuple of str
        The 8 IK branches ``"shoulder-elbow-wrist"``, in the order of ``ik``'s branch axis (named as for the
        UR5, see :class:`UR5Arm`; for a table with positive ``a2, a3`` the elbow words swap their geometric
        meaning, the branch set does not change).
    default_branch : str
        ``"all"``.

    The six lengths of the table are the property ``geometry``.

    Examples
    --------
    >>> from robokin.transforms import make_transform
    >>> gripper = make_transform(np.eye(3), [0.0, 0.0, 0.15])  # 150 mm along the flange z axis
    >>> arm = make_ur_arm(UR5_GEOMETRY, tool=gripper)
    >>> q = np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7])
    >>> res = arm.ik(arm.fk(q))
    >>> int(res.valid.sum()), bool(np.any(np.all(np.abs(res.q - q) < 1e-9, axis=-1)))
    (8, True)
    """

    branches: ClassVar[tuple[str, ...]] = _BRANCHES
    default_branch: ClassVar[str] = "all"
    _label: ClassVar[str] = "UR-family"

    def __post_init__(self):
        super().__post_init__()
        g = ur_geometry(self.a, self.alpha, self.d) if self.convention == "standard" else None
        if g is None:
            raise ValueError(
                f"{type(self).__name__} needs a UR-family standard-DH table (a = (0, a2, a3, 0, 0, 0), alpha = "
                "(pi/2, 0, 0, pi/2, -pi/2, 0), d = (d1, 0, 0, d4, d5, d6)); build a robokin.serial.SerialArm for "
                "another arm (robokin.ik.ik_dls)"
            )
        self._init_geometry(g)

    def _init_geometry(self, g):
        object.__setattr__(self, "_geom", tuple(g))
        object.__setattr__(self, "_reach", abs(g.a2) + abs(g.a3))
        plain = (
            not np.any(self.offset) and np.array_equal(self.base, np.eye(4)) and np.array_equal(self.tool, np.eye(4))
        )
        object.__setattr__(self, "_plain", plain)
        # the closed form runs on the bare arm (no base, tool or offsets); a plain arm is its own bare arm
        core = self if plain else SerialArm.from_dh(self.a, self.alpha, self.d, convention="standard")
        if not plain:
            object.__setattr__(core, "_geom", tuple(g))
            object.__setattr__(core, "_reach", abs(g.a2) + abs(g.a3))
            object.__setattr__(self, "_Binv", _tf.transform_inverse(self.base))
            object.__setattr__(self, "_Tinv", _tf.transform_inverse(self.tool))
        object.__setattr__(self, "_core", core)
        lim = self.qlim
        # limits that contain [-pi, pi) never reject or move a wrapped angle: skip that step then
        object.__setattr__(self, "_lim_free", lim is None or bool(np.all((lim[:, 0] <= -np.pi) & (lim[:, 1] >= np.pi))))

    @property
    def geometry(self) -> URGeometry:
        """The table's six lengths (m)."""
        return URGeometry(*self._geom)

    def ik(
        self,
        T: ArrayLike,
        *,
        branch: str = "all",
        on_unreachable: Literal["raise", "nan"] = "raise",
        tol: float = 1e-9,
        singular_tol: float = 1e-9,
        q6_singular: ArrayLike = 0.0,
        warn: bool = True,
    ) -> IKResult:
        """Analytic IK: every branch (or one), vectorised over poses, each confirmed by FK.

        Parameters
        ----------
        T : array_like, shape (..., 4, 4)
            Target tool poses (frame 6) in the base frame. Bottom row ``[0, 0, 0, 1]`` and rotation block
            (``max|R^T R - I| <= 1e-6``, ``|det R - 1| <= 1e-6``) are checked.
        branch : str
            ``"all"`` (default) or one name of :attr:`branches`.
        on_unreachable : {"raise", "nan"}
            ``"raise"`` (default): raise :class:`~robokin.errors.UnreachableError` when some pose has no valid
            branch (``branch="all"``) or when the requested branch is not valid for some pose. ``"nan"``: NaN
            rows and ``valid = False`` instead.
        tol : float
            A branch is valid when ``pose_residual(FK(q), T) <= tol + INPUT_ERROR_GAIN * input_error(T)``
            (``input_error`` is 0 up to round-off for an exact pose; ~1e-7 for a pose stored in float32, ~1e-8
            for one rounded to 8 decimals): a slightly non-orthonormal rotation has no exact solution, and the
            residual it forces is proportional to its error. Every returned branch is confirmed by FK.
            Arguments of ``arccos`` within that tolerance outside ``[-1, 1]`` are clamped (boundary of the
            workspace: the two branches merge there).
        singular_tol : float
            Wrist singularity when ``|sin theta5| < singular_tol + INPUT_ERROR_GAIN * input_error(T)`` (see
            :func:`wrist_singular`): the axes of joints 2, 3, 4 and 6 are then all parallel and the arm has a
            one-parameter self-motion, so theta6 is free. It is chosen by the ``q6_singular`` rule below,
            theta2..4 are solved for it, and a :class:`~robokin.errors.SingularityWarning` is emitted (if
            ``warn``).
        q6_singular : float or array_like, shape (...)
            Preferred theta6 at the wrist singularity (rad), e.g. the previous solution's theta6 when tracking a
            path; broadcast against the poses. **Rule**: per branch, theta6 = ``q6_singular`` if the wrist point
            is then reachable by the planar 3R step; otherwise the reachable theta6 nearest to it (the reachable
            set is an arc, computed in closed form). So every reachable singular pose gets its branches.
        warn : bool
            Emit ``SingularityWarning`` at wrist or shoulder singularities.

        Returns
        -------
        IKResult
            ``q``: joint angles in ``[-pi, pi)`` (moved by a multiple of 2 pi into ``qlim`` where the limits need
            it), shape ``(..., 8, 6)`` in the order of :attr:`branches` for ``branch="all"``, else ``(..., 6)``;
            rows are NaN **exactly** where ``valid`` is False. ``valid``: the branch exists, its FK residual is
            within the tolerance above and ``q`` is inside ``qlim``; ``(..., 8)`` or ``(...)``. ``residual``:
            :func:`pose_residual` of ``FK(q)`` and ``T`` (dimensionless: position over the reach ``|a2| + |a3|``
            plus rotation), NaN where ``q`` is NaN. ``branch``: :attr:`branches` or the name asked for.

        Raises
        ------
        UnreachableError
            With ``on_unreachable="raise"``, as described above.

        Notes
        -----
        * Shoulder: ``theta1`` needs the wrist point ``p05`` (the tool origin moved back by ``d6`` along the tool
          z axis) at horizontal distance ``r >= d4`` from the base axis. At ``r = d4`` the two shoulder branches
          merge (shoulder singularity, warned); for ``r < d4`` no branch exists.
        * Wrist: ``|sin theta5|`` below the singular tolerance as described above; ``valid`` stays True because
          the returned q reaches the pose (confirmed by FK), but it is one member of a family
          (:func:`wrist_singular` flags it).
        * Elbow: ``theta3 = 0`` (arm stretched) merges the two elbow branches.
        * One branch is several times cheaper than all eight (``benchmarks/bench_ur5.py``) and equals the
          corresponding slice of ``branch="all"``.
        * Large batches are solved in chunks of 1024 poses (bounded memory, cache-sized temporaries, flat time per
          pose).

        Examples
        --------
        >>> q = np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7])
        >>> res = UR5.ik(UR5.fk(q))
        >>> res.q.shape, int(res.valid.sum()), bool(res.residual[res.valid].max() <= 1e-9)
        ((8, 6), 8, True)
        >>> bool(np.any(np.all(np.abs(res.q - q) < 1e-9, axis=-1)))
        True
        >>> np.round(UR5.ik(UR5.fk(q), branch="left-up-noflip").q, 9)
        array([ 0.3, -1.2,  1.5, -0.4,  1.1,  0.7])
        >>> int(UR5.ik(UR5.fk(q).astype(np.float32)).valid.sum())  # a float32 pose: still 8 branches
        8
        >>> UR5.ik(np.eye(4))  # the wrist point is on the base axis
        Traceback (most recent call last):
        ...
        robokin.errors.UnreachableError: 1 of 1 targets are unreachable (no analytic UR5 branch reaches the pose); first: [0, 0, 0]. Pass on_unreachable="nan" to get NaN rows and a mask instead.
        """
        branch = choice(branch, "branch", ("all",) + self.branches)
        mode = on_unreachable_mode(on_unreachable)
        # both compare with quantities of order 1 (a residual, |sin theta5|): larger values would accept anything
        tol = positive(tol, "tol", max_abs=1.0)
        singular_tol = positive(singular_tol, "singular_tol", max_abs=1.0)
        if not isinstance(warn, (bool, np.bool_)):
            raise ValueError(f"warn must be True or False, got {warn!r}")
        T, e_in = _checked_poses(T)
        lead = T.shape[:-2]
        if not self._plain:  # the flange pose of the bare arm: T_flange = base^-1 T tool^-1
            T = self._Binv @ T @ self._Tinv
        h = as_array(q6_singular, "q6_singular")
        try:
            h = np.broadcast_to(h, lead)
        except ValueError as exc:
            raise ValueError(f"q6_singular of shape {h.shape} does not broadcast to the poses' shape {lead}") from exc
        signs = _BRANCH_SIGNS if branch == "all" else _BRANCH_SIGNS[self.branches.index(branch)][None]
        k = len(signs)
        S, E, W = (signs[:, j].reshape((2, 2, 2, 1) if k == 8 else (1, 1, 1, 1)) for j in range(3))
        S, E, W = S[:, :1, :1], E[:1, :, :1], W[:1, :1, :]
        Tf, hf, ef = T.reshape(-1, 4, 4), h.reshape(-1), e_in.reshape(-1)
        N = len(Tf)
        q = np.empty((N, k, 6))
        valid = np.empty((N, k), bool)
        res = np.empty((N, k))
        sing = np.empty((N, k), bool)
        near1 = np.empty((N, k), bool)
        step = max(min(int(_tf._CHUNK), _IK_CHUNK), 1)
        for i in range(0, N, step):
            sl = slice(i, min(i + step, N))
            qc, vc, rc, sing[sl], near1[sl] = _ik_flat(
                self._core,
                _component_major(Tf[sl]),
                ef[sl],
                hf[sl],
                float(tol) * (1 if self._plain else _CORE_SLACK),
                float(singular_tol),
                S,
                E,
                W,
            )
            if not self._plain:
                qc, vc, rc = self._confirm(qc, vc, Tf[sl], ef[sl], float(tol))
            if not self._lim_free:
                qc, vc = _into_limits(qc, vc, self.qlim)
            # NaN rows and residuals where invalid, while the chunk is in cache
            q[sl] = np.where(vc[..., None], qc, np.nan)
            res[sl], valid[sl] = np.where(vc, rc, np.nan), vc
        if warn:
            if np.any(sing):
                warnings.warn(
                    SingularityWarning(
                        np.inf,
                        f"{self._label} ik: wrist singularity |sin theta5| < {singular_tol:g} in "
                        f"{int(np.count_nonzero(np.any(sing, -1)))} pose(s); theta6 is free "
                        f"(axes 2, 3, 4, 6 parallel): the branches returned use the q6_singular "
                        f"rule (preferred {float(np.mean(hf)):g} on average)",
                    ),
                    stacklevel=2,
                )
            if np.any(near1 & valid):
                warnings.warn(
                    SingularityWarning(
                        np.inf,
                        f"{self._label} ik: shoulder singularity (wrist point at distance d4 "
                        "from the base axis); the two shoulder branches coincide",
                    ),
                    stacklevel=2,
                )
        if mode == "raise":
            none = ~np.any(valid, axis=-1)
            if np.any(none):
                i = int(np.argmax(none))
                why = (
                    f"no analytic {self._label} branch reaches the pose"
                    if branch == "all"
                    else f"branch {branch!r} does not reach the pose within the joint limits"
                )
                first = Tf[i] if self._plain else self.base @ Tf[i] @ self.tool  # the pose as given
                raise UnreachableError(int(np.count_nonzero(none)), first[:3, 3], total=int(N), reason=why)
        if branch == "all":
            return IKResult(q.reshape(lead + (8, 6)), valid.reshape(lead + (8,)), res.reshape(lead + (8,)), _BRANCHES)
        return IKResult(q.reshape(lead + (6,)), valid.reshape(lead), res.reshape(lead), branch)

    def _confirm(self, qc, vc, Tflange, e_in, tol):
        """Joint angles from the bare arm's thetas, and validity and residual by FK of the whole arm."""
        qc = _wrap(qc - self.offset)
        T = self.base @ Tflange @ self.tool  # the target as given, (m, 4, 4)
        with np.errstate(invalid="ignore"):
            F = self.fk(np.where(np.isfinite(qc), qc, 0.0))
            dp = np.linalg.norm(F[..., :3, 3] - T[:, None, :3, 3], axis=-1) / self._reach
            dR = np.sqrt(np.sum((F[..., :3, :3] - T[:, None, :3, :3]) ** 2, axis=(-2, -1)) / 2)
        rc = dp + dR
        return qc, vc & (rc <= (tol + INPUT_ERROR_GAIN * e_in)[:, None]), rc


class UR5Arm(URArm):
    """A UR5: the standard-DH :class:`~robokin.serial.SerialArm` plus its analytic inverse kinematics.

    Build it with :func:`make_ur5` (or use :data:`UR5`); ``dataclasses.replace`` keeps the class. The table must
    be the UR5's (``d1`` and the joint limits may differ, as for peers that ship another ``d1``); another
    UR-family arm, or one with a base or tool transform, is a :class:`URArm` (:func:`make_ur_arm`); any other arm
    is a :class:`~robokin.serial.SerialArm`, solved numerically by :func:`robokin.ik.ik_dls`.

    Attributes
    ----------
    branches : tuple of str
        The 8 IK branches ``"shoulder-elbow-wrist"``, in the order of ``ik``'s branch axis:

        * shoulder ``"left"``: seen from above, looking from the base axis towards the wrist point ``p05``, the
          shoulder offset ``d4`` lies to the left; equivalently the wrist point is in front of the shoulder along
          the arm's reach direction ``-x1``. ``"right"``: the arm reaches back over its shoulder.
        * elbow ``"up"``: ``sign(theta3) = +1`` for a left shoulder and ``-1`` for a right one; the elbow then
          lies above the shoulder-wrist chord whenever the upper arm points upwards.
        * wrist ``"noflip"``: ``theta5 > 0``; ``"flip"``: ``theta5 < 0``.
    default_branch : str
        ``"all"``: the closed form returns every branch in one vectorised call.

    Examples
    --------
    >>> UR5.branches[:2], UR5.default_branch
    (('left-up-noflip', 'left-up-flip'), 'all')
    """

    _label: ClassVar[str] = "UR5"

    def __post_init__(self):
        SerialArm.__post_init__(self)
        differ = [
            name
            for name, ok in (
                ("convention", self.convention == "standard"),
                ("a", np.array_equal(self.a, [0.0, A2, A3, 0.0, 0.0, 0.0])),
                ("alpha", np.allclose(self.alpha, ALPHA, rtol=0, atol=1e-12)),
                ("d[1:]", np.array_equal(self.d[1:], [0.0, 0.0, D4, D5, D6])),
                ("offset", not np.any(self.offset)),
                ("base", np.array_equal(self.base, np.eye(4))),
                ("tool", np.array_equal(self.tool, np.eye(4))),
            )
            if not ok
        ]
        if differ:
            raise ValueError(
                f"UR5Arm: {', '.join(differ)} differ from the UR5's. "
                "UR5Arm needs the UR5's standard-DH table (only d1 and qlim may differ), zero offsets and no "
                "base or tool transform; build a robokin.ur5.URArm (make_ur_arm) for another UR-family arm or one "
                "with a tool, a robokin.serial.SerialArm for any other arm (robokin.ik.ik_dls)"
            )
        self._init_geometry(URGeometry(float(self.d[0]), A2, A3, D4, D5, D6))


def make_ur_arm(
    geometry: URGeometry | Sequence[float],
    *,
    offset: ArrayLike = 0.0,
    qlim: ArrayLike | None = QLIM,
    base: ArrayLike | None = None,
    tool: ArrayLike | None = None,
) -> URArm:
    """A UR-family arm (standard DH) of the given geometry, with offsets, limits, base and tool transforms.

    Parameters
    ----------
    geometry : URGeometry or sequence of 6 floats
        ``(d1, a2, a3, d4, d5, d6)`` in metres (UR5: :data:`UR5_GEOMETRY`).
    offset : array_like, shape (6,) or scalar
        Joint zero offsets (rad), ``theta = q + offset``.
    qlim : array_like, shape (6, 2), optional
        Joint limits (rad); default +-2 pi (UR's joints); None for none.
    base, tool : array_like, shape (4, 4), optional
        Rigid base and tool transforms: ``fk(q) = base @ A_1 ... A_6 @ tool``.

    Examples
    --------
    >>> arm = make_ur_arm((0.1273, -0.612, -0.5723, 0.163941, 0.1157, 0.0922))  # a UR10
    >>> type(arm).__name__, np.round(arm.fk(np.zeros(6))[:3, 3], 4)
    ('URArm', array([-1.1843, -0.2561,  0.0116]))
    """
    g = as_array(geometry, "geometry", trailing=(6,))
    if g.shape != (6,):
        raise ValueError(f"geometry must be (d1, a2, a3, d4, d5, d6) in m, got shape {g.shape}")
    d1, a2, a3, d4, d5, d6 = (float(v) for v in g)
    return URArm.from_dh(
        [0.0, a2, a3, 0.0, 0.0, 0.0],
        ALPHA,
        [d1, 0.0, 0.0, d4, d5, d6],
        offset=offset,
        convention="standard",
        qlim=qlim,
        base=base,
        tool=tool,
    )


def make_ur5(*, d1: float = D1, qlim: ArrayLike = QLIM) -> UR5Arm:
    """The UR5 as a :class:`UR5Arm` (standard DH), with ``d1`` (m) and joint limits ``qlim`` (rad) adjustable.

    ``qlim`` is an ``(6, 2)`` array of ``[lower, upper]`` rows (default +-2 pi, UR's joints), or None for no limits.

    Examples
    --------
    >>> np.round(make_ur5().fk(np.zeros(6))[:3, 3], 5)
    array([-0.81725, -0.19145, -0.00549])
    >>> type(make_ur5(d1=0.089459)).__name__  # roboticstoolbox's d1
    'UR5Arm'
    """
    d1 = finite_scalar(d1, "d1")
    return UR5Arm.from_dh(
        [0.0, A2, A3, 0.0, 0.0, 0.0], ALPHA, [d1, 0.0, 0.0, D4, D5, D6], convention="standard", qlim=qlim
    )


#: The official UR5 (standard DH, d1 = 0.089159 m, joint limits +-2 pi).
UR5 = make_ur5()


def inertial_parameters() -> dict[str, np.ndarray]:
    """A stated set of UR5 link inertial parameters, for the dynamics chapters and peer checks.

    Masses (kg) and centres of mass (m, in each standard-DH link frame) are UR's published values; the
    principal inertias about each centre of mass (kg m^2) are a solid-cylinder estimate, not official data.

    Returns
    -------
    dict
        ``masses`` (6,), ``coms`` (6, 3) and diagonal ``inertias`` (6, 3, 3); new arrays on every call.

    Examples
    --------
    >>> p = inertial_parameters()
    >>> round(float(p["masses"].sum()), 4), p["coms"].shape, p["inertias"].shape
    (16.9939, (6, 3), (6, 3, 3))
    """
    masses = np.array([3.7, 8.393, 2.275, 1.219, 1.219, 0.1879])
    coms = np.array(
        [
            [0.0, -0.02561, 0.00193],
            [0.2125, 0.0, 0.11336],
            [0.15, 0.0, 0.0265],
            [0.0, -0.0018, 0.01634],
            [0.0, 0.0018, 0.01634],
            [0.0, 0.0, -0.001159],
        ]
    )
    principal = np.array(
        [
            [0.0103, 0.0103, 0.0067],
            [0.0151, 0.1338, 0.1339],
            [0.0041, 0.0312, 0.0313],
            [0.0021, 0.0021, 0.0022],
            [0.0021, 0.0021, 0.0022],
            [0.0001, 0.0001, 0.0001],
        ]
    )
    return {"masses": masses, "coms": coms, "inertias": np.array([np.diag(v) for v in principal])}


def pose_residual(T_a: ArrayLike, T_b: ArrayLike) -> np.ndarray:
    """Pose distance ``|p_a - p_b| / L + ||R_a - R_b||_F / sqrt(2)`` (dimensionless).

    ``L = |a2| + |a3|`` makes the position part relative to the arm's reach; the
    orientation part equals ``2 sin(theta / 2)`` for a rotation angle ``theta``
    between the two frames, i.e. ``theta`` (rad) for small errors.

    Parameters
    ----------
    T_a, T_b : array_like, shape (..., 4, 4)
        Rigid transforms (bottom row and rotation block checked within 1e-6), broadcast together.

    Returns
    -------
    ndarray, shape (...)

    Examples
    --------
    >>> from robokin.transforms import make_transform, rotz
    >>> round(float(pose_residual(np.eye(4), make_transform(rotz(1e-6), [0, 0, 0]))), 12)
    1e-06
    """
    T_a = _check_transform(T_a, "T_a", ROTATION_TOL)
    T_b = _check_transform(T_b, "T_b", ROTATION_TOL)
    dp = np.linalg.norm(T_a[..., :3, 3] - T_b[..., :3, 3], axis=-1) / (abs(A2) + abs(A3))
    dR = np.sqrt(np.sum((T_a[..., :3, :3] - T_b[..., :3, :3]) ** 2, axis=(-2, -1)) / 2)
    return dp + dR


def input_error(T: ArrayLike) -> np.ndarray:
    """A pose's own inconsistency ``max(max|R^T R - I|, |det R - 1|)`` per pose: what ``UR5Arm.ik`` adds to
    its tolerance (times :data:`INPUT_ERROR_GAIN`).

    Parameters
    ----------
    T : array_like, shape (..., 4, 4)
        Poses, checked as by ``UR5Arm.ik`` (rotation block within 1e-6 of a rotation).

    Returns
    -------
    ndarray, shape (...)
        0 up to round-off for an exact pose; ~1e-8..1e-7 for a float32 or rounded one.

    Examples
    --------
    >>> T = UR5.fk(np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7]))
    >>> bool(input_error(T) < 1e-15), bool(1e-9 < input_error(T.astype(np.float32)) < 1e-6)
    (True, True)
    """
    return _checked_poses(T)[1]


def wrist_singular(q: ArrayLike, *, singular_tol: float = 1e-9) -> np.ndarray:
    """True where ``|sin q5| < singular_tol``: the wrist singularity, where theta6 is free.

    ``UR5Arm.ik`` uses the same test with ``singular_tol + INPUT_ERROR_GAIN * input_error(T)`` and then
    chooses theta6 by its ``q6_singular`` rule; the branches it returns there are one member of a family.

    Parameters
    ----------
    q : array_like, shape (..., 6)
        Joint angles (rad); NaN rows (invalid branches) give False.
    singular_tol : float

    Returns
    -------
    ndarray of bool, shape (...)

    Examples
    --------
    >>> wrist_singular(np.array([[0.4, -1.0, 1.3, -0.5, 0.0, 0.9], [0.4, -1.0, 1.3, -0.5, 0.2, 0.9]]))
    array([ True, False])
    """
    q = as_array(q, "q", trailing=(6,), finite=False)
    singular_tol = finite_scalar(singular_tol, "singular_tol", max_abs=1.0)
    if singular_tol < 0:
        raise ValueError(f"singular_tol must be a non-negative number, got {singular_tol!r}")
    with np.errstate(invalid="ignore"):
        return np.abs(np.sin(q[..., 4])) < singular_tol


def _checked_poses(T):
    """``T`` as float64 ``(..., 4, 4)`` checked like ``transforms._check_transform``, and its input error.

    The rotation errors are computed once (the check and the IK tolerance both need them), per component: far
    faster on a batch than ``R^T R`` products and ``numpy.linalg.det``.
    """
    T = as_array(T, "T", trailing=(4, 4))
    bottom = np.abs(T[..., 3, :] - [0, 0, 0, 1]).max() if T.size else 0.0
    if not bottom <= ROTATION_TOL:
        raise ValueError(f"T is not homogeneous: bottom row differs from [0, 0, 0, 1] by {bottom:.3g}")
    R = T[..., :3, :3]
    c = [[R[..., i, j] for j in range(3)] for i in range(3)]
    orth = np.zeros(T.shape[:-2])
    for i in range(3):
        for j in range(i, 3):
            g = c[0][i] * c[0][j] + c[1][i] * c[1][j] + c[2][i] * c[2][j] - (1.0 if i == j else 0.0)
            orth = np.maximum(orth, np.abs(g))
    det = (
        c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1])
        - c[0][1] * (c[1][0] * c[2][2] - c[1][2] * c[2][0])
        + c[0][2] * (c[1][0] * c[2][1] - c[1][1] * c[2][0])
    )
    e_in = np.maximum(orth, np.abs(det - 1.0))
    ok = e_in <= ROTATION_TOL
    if not np.all(ok):
        raise ValueError(
            f"T[..., :3, :3] is not a rotation matrix (R^T R != I or det R != 1 within tol={ROTATION_TOL:g}); "
            f"{np.size(ok) - np.count_nonzero(ok)} of {np.size(ok)} fail, worst orthogonality error {np.max(orth):.3g}"
        )
    return T, e_in


def _into_limits(q, valid, qlim):
    """Move each wrapped angle outside ``qlim`` by a multiple of 2 pi into it where possible; else invalid."""
    lo, hi = qlim[:, 0], qlim[:, 1]
    with np.errstate(invalid="ignore"):
        inside = (q >= lo) & (q <= hi)
        q = np.where(inside, q, lo + np.mod(q - lo, 2 * np.pi))  # the smallest representative >= lo
        return q, valid & np.all(q <= hi, axis=-1)


def _component_major(T):
    """The poses ``T`` (m, 4, 4) as a view of the same shape whose components ``T[:, i, j]`` are contiguous."""
    return np.ascontiguousarray(T.transpose(1, 2, 0)).transpose(2, 0, 1)


def _ik_flat(arm, T, e_in, hint, tol, singular_tol, S, E, W):
    """Core of ``UR5Arm.ik`` on a flat chunk of checked poses ``(m, 4, 4)``; per-branch arrays ``(m, k)``.

    ``S, E, W`` are the branch signs (shoulder, elbow, wrist) on three broadcast axes before the pose axis,
    ``(2, 1, 1, 1)``, ``(1, 2, 1, 1)``, ``(1, 1, 2, 1)`` for all 8 branches or ``(1, 1, 1, 1)`` each for one.
    Every intermediate has the pose axis last (contiguous: ``T`` from ``_component_major``), so each numpy
    operation runs one long inner loop instead of loops of length 1 or 2.
    """
    m = len(T)
    d1, _, _, D4, _, D6 = arm._geom
    tk = tol + INPUT_ERROR_GAIN * e_in  # per-pose tolerance
    stol = singular_tol + INPUT_ERROR_GAIN * e_in
    t4 = tk
    # every quantity is computed at the smallest multiplicity it needs (theta1: 2, theta5/theta6: 4, theta2..4: 8)
    R = T[:, :3, :3]
    p = T[:, :3, 3]
    full = np.broadcast_shapes(S.shape, E.shape, W.shape)[:3] + (m,)
    k = full[0] * full[1] * full[2]

    # shoulder: wrist point p05 = p - d6 * z6 (theta1 is Hawkins' eq. with the +-acos)
    p05x = p[..., 0] - D6 * R[..., 0, 2]
    p05y = p[..., 1] - D6 * R[..., 1, 2]
    r = np.hypot(p05x, p05y)
    ok1 = r >= D4 * (1 - t4)
    th1 = np.arctan2(p05y, p05x) + S * np.arccos(np.clip(D4 / np.where(r > 0, r, 1.0), -1.0, 1.0)) + np.pi / 2
    th1 = _wrap(th1)  # cos/sin of every angle are taken once, of the wrapped value that is returned
    c1, s1 = _cos_sin(th1)
    # wrist: cos theta5 from the tool position along the shoulder-plane normal n = (s1, -c1, 0);
    # |sin theta5| from the tool x, y axes along n (Hawkins' theta6 terms). atan2 of both keeps
    # theta5 accurate near 0, where arccos(c5) alone loses half the digits (1e-16 -> 1e-8 rad).
    c5 = (p[..., 0] * s1 - p[..., 1] * c1 - D4) / D6
    ok5 = np.abs(c5) <= 1 + t4
    x6 = R[..., 0, 0] * s1 - R[..., 1, 0] * c1
    y6 = -R[..., 0, 1] * s1 + R[..., 1, 1] * c1
    th5 = W * np.arctan2(np.hypot(x6, y6), np.clip(c5, -1.0, 1.0))
    th5 = _wrap(th5)
    cs5 = _cos_sin_pm(th5, 2)  # of the very theta5 returned: the FK check reuses them
    s5 = cs5[1]
    sing5 = np.abs(s5) < stol
    # theta6 = atan2(y6 / s5, x6 / s5); multiplying by sign(s5) instead of dividing is the same. Its error is
    # ~ (round-off + e_in) / |s5|, so at the wrist singularity the preferred theta6 (hint) is tried first and
    # the computed one only where the hint's branch fails the FK check.
    sg = np.where(s5 >= 0, 1.0, -1.0)
    th6c = np.arctan2(y6 * sg, x6 * sg)
    th6 = _wrap(np.where(sing5, hint, th6c))
    q, exists, res = _branches(arm, d1, R, p, S, E, th1, s1, c1, th5, cs5, th6, t4, full)
    valid = exists & (res <= tk)
    sing5 = _full(sing5, full).reshape(k, m)
    retry = sing5 & ~valid
    if np.any(retry):
        q2, exists2, res2 = _branches(arm, d1, R, p, S, E, th1, s1, c1, th5, cs5, th6c, t4, full)
        take = retry & exists2 & (res2 <= tk)
        q, exists, res = np.where(take, q2, q), exists | take, np.where(take, res2, res)
        valid = valid | take
    sing5 = sing5 & exists
    near1 = _full(np.abs(r - D4) <= np.maximum(t4, 1e-9) * D4, full).reshape(k, m)
    exists = exists & _full(ok1 & ok5, full).reshape(k, m)
    valid = valid & exists
    return q.transpose(2, 1, 0), valid.T, res.T, sing5.T, near1.T


def _branches(arm, d1, R, p, S, E, th1, s1, c1, th5, cs5, th6, t4, full):
    """theta2..4 for given theta1, theta5, theta6 (planar 3R), and the FK residual of every branch.

    Returns ``q`` (6, k, m), ``exists`` and ``residual`` (k, m).
    """
    k, m = full[0] * full[1] * full[2], full[3]
    A2, A3 = arm._geom[1:3]
    # planar 3R: T14 = A1^-1 T (A5 A6)^-1 is Rz(theta2+theta3+theta4) Rx(pi/2) with origin (x, y, d4)
    x, y, x4x, x4y, c6, s6 = _planar_t14(arm, d1, R, p, s1, c1, cs5, th6)
    c3 = (x * x + y * y - A2 * A2 - A3 * A3) / (2 * A2 * A3)
    # near the wrist singularity a theta6 (the hint, or one blurred by e_in / |s5|) may put the wrist out of the
    # planar step's reach although the pose is reachable: move it to the nearest reachable theta6 (FK judges)
    fix = (np.abs(c3) > 1 + t4) & (np.abs(cs5[1]) < 1e-3)
    if np.any(fix):
        th6 = _wrap(np.where(fix, _theta6_singular(arm, d1, R, p, s1, c1, th6), th6))
        x, y, x4x, x4y, c6, s6 = _planar_t14(arm, d1, R, p, s1, c1, cs5, th6)
        c3 = (x * x + y * y - A2 * A2 - A3 * A3) / (2 * A2 * A3)
    ok3 = np.abs(c3) <= 1 + t4
    th3 = _wrap(E * S * np.arccos(np.clip(c3, -1.0, 1.0)))
    ct3, st3 = _cos_sin_pm(th3, 1)
    th2 = np.arctan2(y, x) - np.arctan2(A3 * st3, A2 + A3 * ct3)
    th4 = np.arctan2(x4y, x4x) - th2 - th3

    th2, th4 = _wrap(th2), _wrap(th4)
    q = np.empty((6,) + full)
    for j, t in enumerate((th1, th2, th3, th4, th5, th6)):
        q[j] = t  # broadcast over the branch axes it does not depend on
    q = q.reshape(6, k, m)
    exists = _full(ok3, full).reshape(k, m)
    # confirm every branch by forward kinematics of the very angles returned (wrapped, cos/sin as UR5.fk takes
    # them: the residual is bit-for-bit pose_residual(UR5.fk(q), T) up to the order of its sums)
    (c2, s2), (c4, s4) = _cos_sin(th2), _cos_sin(th4)
    cs = [c1, c2, ct3, c4, cs5[0], c6]
    ss = [s1, s2, st3, s4, cs5[1], s6]
    res = _residual_cols(arm, cs, ss, R, p, full).reshape(k, m)
    return q, exists, res


def _theta6_singular(arm, d1, R, p, s1, c1, hint):
    """theta6 near the wrist singularity: ``hint`` if the planar 3R step can then reach, else the nearest that can.

    With ``sin theta5 = 0`` the tool x, y axes lie in the arm plane, and the frame-4 origin seen by the planar
    step is ``c0 + d5 (sin theta6 a + cos theta6 b)`` (``a, b`` those axes in the plane, orthonormal): a circle
    of radius d5. Its distance from the shoulder must lie in ``[|a2| - |a3|, |a2| + |a3|]``, which holds on an
    arc ``|theta6 - phi| in [dmin, dmax]``. We clamp the hint into that arc (an empty arc leaves the hint:
    the pose is then unreachable for this branch and the mask says so).
    """
    _, A2, A3, _, D5, D6 = arm._geom
    x0 = c1 * (p[..., 0] - D6 * R[..., 0, 2]) + s1 * (p[..., 1] - D6 * R[..., 1, 2])
    y0 = p[..., 2] - D6 * R[..., 2, 2] - d1
    ax, ay = c1 * R[..., 0, 0] + s1 * R[..., 1, 0], R[..., 2, 0]
    bx, by = c1 * R[..., 0, 1] + s1 * R[..., 1, 1], R[..., 2, 1]
    g, h = x0 * ax + y0 * ay, x0 * bx + y0 * by  # |c0 + d5 u|^2 = |c0|^2 + d5^2 + 2 d5 (s6 g + c6 h)
    K = np.hypot(g, h)
    phi = np.arctan2(g, h)  # s6 g + c6 h = K cos(theta6 - phi)
    base = x0 * x0 + y0 * y0 + D5 * D5
    rmin, rmax = abs(abs(A2) - abs(A3)), abs(A2) + abs(A3)
    Kd = 2 * D5 * np.where(K > 0, K, 1.0)
    lo = np.clip((rmin * rmin - base) / Kd, -1.0, 1.0)  # need lo <= cos(theta6 - phi) <= hi
    hi = np.clip((rmax * rmax - base) / Kd, -1.0, 1.0)
    dmin, dmax = np.arccos(hi), np.arccos(lo)
    d = _wrap(hint - phi)
    sgn = np.where(d < 0, -1.0, 1.0)
    clamped = phi + sgn * np.clip(np.abs(d), dmin, dmax)
    feasible = (K > 0) & (dmin <= dmax)
    return np.where(feasible, clamped, hint)


def _planar_t14(arm, d1, R, p, s1, c1, cs5, th6):
    """Entries of ``T14 = A1^-1 T A6^-1 A5^-1`` needed by the planar 3R step.

    ``cs5`` is ``(cos, sin)`` of theta5. Returns the origin ``(x, y)`` of frame 4 in frame 1, ``(cos, sin)`` of
    theta2 + theta3 + theta4, and the cos and sin of theta6 (reused by the FK check). Written per component (no 4x4 products):
    ``A6^-1 = Tz(-d6) Rz(-theta6)``, ``A5^-1 = Rx(pi/2) Tz(-d5) Rz(-theta5)``,
    ``A1^-1 = Rx(-pi/2) Tz(-d1) Rz(-theta1)``.
    """
    _, _, _, _, D5, D6 = arm._geom
    c6, s6 = _cos_sin(th6)
    c5, s5 = cs5
    P, X3 = [], []
    for j in range(3):
        y1 = s6 * R[..., j, 0] + c6 * R[..., j, 1]  # y axis after Rz(-theta6)
        x1 = c6 * R[..., j, 0] - s6 * R[..., j, 1]
        P.append(p[..., j] - D6 * R[..., j, 2] + D5 * y1)  # Rx(pi/2) turns -y1 into the new z
        X3.append(c5 * x1 - s5 * R[..., j, 2])
    x = c1 * P[0] + s1 * P[1]
    y = P[2] - d1
    return x, y, c1 * X3[0] + s1 * X3[1], X3[2], c6, s6


def _residual_cols(arm, c, s, R, p, shape):
    """``|p - p_fk| / L + ||R - R_fk||_F / sqrt(2)`` from joint cos/sin, no 4x4 matrices, of the given shape.

    FK is the arm's specialised array kernel (``robokin._kernels``, the code behind ``SerialArm.fk``), run on
    work rows of the branch-by-pose shape; the inputs broadcast into them.
    """
    kern = arm._kernel("fk", arrays=True)
    F = kern(arm._K, c, s, list(np.empty((max(kern.n_rows, 1),) + shape)))  # rows of [R | p], row-major
    dp = sum((F[4 * i + 3] - p[..., i]) ** 2 for i in range(3))
    dR = sum((F[4 * i + k] - R[..., i, k]) ** 2 for k in range(3) for i in range(3))
    return np.sqrt(dp) / arm._reach + np.sqrt(dR / 2)


def nearest(
    q_branches: ArrayLike, valid: ArrayLike, q_ref: ArrayLike, *, weights: ArrayLike | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Pick the valid branch closest to ``q_ref`` (angle differences wrapped to [-pi, pi)).

    Distance ``sum_j w_j * wrap(q_j - q_ref_j)^2``. The returned angles are unwrapped
    towards ``q_ref`` (``q_ref + wrap(q - q_ref)``), so a path stays continuous even
    across +-pi.

    Parameters
    ----------
    q_branches : array_like, shape (..., k, n)
        Candidate solutions (NaN rows allowed where ``valid`` is False), e.g. ``UR5.ik(T).q``.
    valid : array_like of bool, shape (..., k)
    q_ref : array_like, shape (..., n)
        Reference configuration (rad), e.g. the previous point of a path.
    weights : array_like, shape (n,), optional
        Non-negative joint weights (default all 1).

    Returns
    -------
    q : ndarray, shape (..., n)
        NaN where no branch is valid.
    index : ndarray of int, shape (...)
        Chosen branch, -1 where none is valid.

    Examples
    --------
    >>> res = UR5.ik(UR5.fk([0.3, -1.2, 1.5, -0.4, 1.1, 0.7]))
    >>> q, k = nearest(res.q, res.valid, [0.3, -1.1, 1.4, -0.4, 1.0, 0.7])
    >>> np.round(q, 6), res.branch[int(k)]
    (array([ 0.3, -1.2,  1.5, -0.4,  1.1,  0.7]), 'left-up-noflip')
    """
    try:
        valid = np.asarray(valid)
    except (TypeError, ValueError):  # ragged
        raise ValueError(f"valid must be a boolean mask, got {type(valid).__name__}") from None
    if valid.dtype != bool:
        raise ValueError(f"valid must be a boolean mask, got dtype {valid.dtype}")
    Q = as_array(q_branches, "q_branches", trailing=(None, None), finite=False)
    if Q.shape[:-1] != valid.shape:
        raise ValueError(f"valid has shape {valid.shape}, expected {Q.shape[:-1]} to match q_branches")
    if np.any(~np.isfinite(Q[valid])):
        raise ValueError("q_branches has non-finite values in rows marked valid")
    qr = as_array(q_ref, "q_ref")
    if qr.ndim < 1 or qr.shape[-1] != Q.shape[-1]:
        raise ValueError(f"q_ref must have shape (..., {Q.shape[-1]}) to match q_branches, got {qr.shape}")
    w = np.ones(Q.shape[-1]) if weights is None else as_array(weights, "weights", trailing=(Q.shape[-1],))
    if w.ndim != 1 or np.any(w < 0):
        raise ValueError("weights must be a 1-D array of non-negative numbers, one per joint")
    dq = wrap_to_pi(np.where(valid[..., None], Q, 0.0) - qr[..., None, :])
    dist = np.where(valid, np.sum(w * dq * dq, axis=-1), np.inf)
    k = np.argmin(dist, axis=-1)
    none = ~np.any(valid, axis=-1)
    best = np.take_along_axis(dq, k[..., None, None], axis=-2)[..., 0, :] + qr
    best = np.where(none[..., None], np.nan, best)
    return best, np.where(none, -1, k)


#: Widest joint range (turns) the representatives accept: a wider one is almost surely in degrees, and its count of
#: representatives (one per turn) would grow without bound.
MAX_TURNS = 8


def _qlim(qlim, n):
    if n == 0:
        raise ValueError("q must have at least one joint (shape (..., n) with n >= 1), got n = 0")
    lim = as_array(qlim, "qlim", trailing=(2,))
    if lim.shape != (n, 2) or np.any(lim[:, 0] >= lim[:, 1]):
        raise ValueError(f"qlim must have shape ({n}, 2) with lower < upper (rad), got {lim.tolist()}")
    turns = (lim[:, 1] - lim[:, 0]) / (2 * np.pi)
    if np.any(turns > MAX_TURNS):
        j = int(np.argmax(turns))
        raise ValueError(
            f"qlim of joint {j + 1} spans {turns[j]:.3g} turns ({lim[j].tolist()}): limits in degrees? qlim is in rad, "
            f"at most {MAX_TURNS} turns"
        )
    return lim


def _angles(q, name):
    """Finite joint angles of shape (..., n) (mask the NaN rows of invalid IK branches first)."""
    q = as_array(q, name)
    if q.ndim == 0:
        raise ValueError(f"{name} must have shape (..., n), got a scalar")
    return q


def joint_representatives(q: ArrayLike, qlim: ArrayLike) -> np.ndarray:
    """Every angle ``q_j + 2 pi k`` inside ``[lower_j, upper_j]``, per joint, ascending, NaN-padded.

    A joint whose range spans more than one turn reaches the same link pose at several angles:
    a UR joint (``+-2 pi``) has two representatives of every angle (three of an exact multiple
    of ``2 pi``). Chapter 6, :eq:`eq-ch06-reps`.

    Parameters
    ----------
    q : array_like, shape (..., n)
        Joint angles (rad), any representative; finite (replace the NaN rows of invalid IK branches first).
    qlim : array_like, shape (n, 2)
        Joint limits ``[lower, upper]`` (rad), lower < upper.

    Returns
    -------
    ndarray, shape (..., n, K)
        ``K = max_j floor((upper_j - lower_j) / 2 pi) + 1``; NaN where a joint has fewer.

    Raises
    ------
    ValueError
        Non-finite ``q``, or ``qlim`` not of shape (n, 2) with lower < upper.

    Examples
    --------
    >>> r = joint_representatives([3.0, -1.0], [[-2 * np.pi, 2 * np.pi], [-np.pi, np.pi]])
    >>> np.round(r, 4)
    array([[-3.2832,  3.    ,     nan],
           [-1.    ,     nan,     nan]])
    """
    q = _angles(q, "q")
    lim = _qlim(qlim, q.shape[-1])
    lo, hi = lim[:, 0], lim[:, 1]
    K = int(np.max(np.floor((hi - lo) / (2 * np.pi)))) + 1
    first = lo + np.mod(q - lo, 2 * np.pi)  # the smallest representative >= lower
    reps = first[..., None] + 2 * np.pi * np.arange(K)
    return np.where(reps <= hi[:, None], reps, np.nan)


def nearest_representative(q: ArrayLike, q_ref: ArrayLike, qlim: ArrayLike) -> np.ndarray:
    """The representative ``q_j + 2 pi k`` inside the limits nearest to ``q_ref_j``, per joint.

    Unlike ``q_ref + wrap(q - q_ref)`` (the nearest angle, limits ignored) or ``wrap(q)`` (the
    representative in ``[-pi, pi)``, current configuration ignored), the answer is always inside
    ``qlim`` and moves each joint as little as the limits allow.

    Parameters
    ----------
    q : array_like, shape (..., n)
        Joint angles (rad), any representative, finite (e.g. IK branches, shape (..., 8, 6), invalid rows replaced).
    q_ref : array_like, shape (..., n)
        Current configuration (rad); broadcast against ``q``.
    qlim : array_like, shape (n, 2)
        Joint limits (rad).

    Returns
    -------
    ndarray, shape (broadcast shape, n)
        NaN for a joint with no representative inside its limits.

    Raises
    ------
    ValueError
        Non-finite input, shapes that do not broadcast, or a bad ``qlim``.

    Examples
    --------
    >>> lim = np.tile([-2 * np.pi, 2 * np.pi], (1, 1))
    >>> float(nearest_representative([-3.0], [5.0], lim)[0])  # not -3.0 (8 rad away): 3.28 is 1.72 rad away
    3.2831853071795862
    """
    q = _angles(q, "q")
    qr = as_array(q_ref, "q_ref")
    if qr.ndim == 0 or q.shape[-1] != qr.shape[-1]:
        raise ValueError(f"q and q_ref must have shapes (..., n) with the same n, got {q.shape} and {qr.shape}")
    try:
        shape = np.broadcast_shapes(q.shape, qr.shape)
    except ValueError:
        raise ValueError(f"q and q_ref do not broadcast: shapes {q.shape}, {qr.shape}") from None
    reps = joint_representatives(np.broadcast_to(q, shape), qlim)
    dist = np.abs(reps - np.broadcast_to(qr, shape)[..., None])
    none = np.all(np.isnan(dist), axis=-1)
    k = np.argmin(np.where(np.isnan(dist), np.inf, dist), axis=-1)
    best = np.take_along_axis(reps, k[..., None], axis=-1)[..., 0]
    return np.where(none, np.nan, best)


def contest_table(
    traj: PiecewiseQuintic,
    *,
    branch: Sequence[str],
    decimals: int = 4,
    time_decimals: int = 2,
) -> tuple[tuple[list[str], list[list]], tuple[list[str], list[list]]]:
    """The answer tables of a contest trajectory task: joint waypoints, segment times and peaks.

    The tables describe the trajectory *as tabulated*: joint angles rounded to
    ``10^-decimals`` rad, segment durations rounded **up** to ``10^-time_decimals`` s, and the
    trajectory re-planned through those values (``plan_quintic`` with the same via rule and
    end velocities/accelerations). Its exact segment peaks (``segment_peaks``) are rounded
    **up** to ``10^-decimals``, so a tabulated peak is never below the true one and a
    "peak <= limit" check on the table is safe. Rounding an angle moves the tool by at
    most ``robokin.serial.pose_error_bound(arm, 0.5 * 10^-decimals)``.

    Parameters
    ----------
    traj : PiecewiseQuintic
        Joint trajectory through the waypoints (``K`` segments, ``n`` joints; rad, s).
    branch : sequence of str, length K+1
        IK branch name of each waypoint (e.g. ``UR5.branches[i]``), stated in the table.
    decimals : int
        Decimal places of angles (rad) and peaks (rad/s, rad/s^2), 1 to 12.
    time_decimals : int
        Decimal places of times (s), 0 to 6.

    Returns
    -------
    waypoints : (header, rows)
        Columns ``waypoint, t (s), branch, q1 (rad) ... qn (rad)``; K+1 rows.
    segments : (header, rows)
        Columns ``segment, from, to, T (s), max|qd1| (rad/s) ..., max|qdd1| (rad/s^2) ...``; K rows.
        Rows are lists of ``int``, ``float`` and ``str``, ready for ``csv.writer``.

    Raises
    ------
    ValueError
        ``traj`` is not a PiecewiseQuintic, ``branch`` has the wrong length or non-string
        entries, ``decimals`` or ``time_decimals`` out of range.

    Examples
    --------
    >>> from robokin.trajectory import plan_quintic
    >>> tr = plan_quintic([[0.0], [1.0]], [0.0, 1.0])
    >>> (hw, wp), (hs, seg) = contest_table(tr, branch=["a", "a"], decimals=3)
    >>> hw, wp[1]
    (['waypoint', 't (s)', 'branch', 'q1 (rad)'], [1, 1.0, 'a', 1.0])
    >>> hs, seg[0]  # 15/8 and 10/sqrt(3) rad/s, s^2, rounded up
    (['segment', 'from', 'to', 'T (s)', 'max|qd1| (rad/s)', 'max|qdd1| (rad/s^2)'], [1, 0, 1, 1.0, 1.875, 5.774])
    """
    if not isinstance(traj, PiecewiseQuintic):
        raise ValueError(f"traj must be a PiecewiseQuintic, got {type(traj).__name__}")
    dec = integer(decimals, "decimals", minimum=1)
    tdec = integer(time_decimals, "time_decimals", minimum=0)
    if dec > 12 or tdec > 6:
        raise ValueError(f"decimals must be in 1..12 and time_decimals in 0..6, got {dec} and {tdec}")
    K1, n = traj.n_segments + 1, traj.n_joints
    if (
        isinstance(branch, str)
        or not hasattr(branch, "__len__")
        or len(branch) != K1
        or not all(isinstance(b, str) for b in branch)
    ):
        raise ValueError(f"branch must be a sequence of {K1} branch names (str), one per waypoint")
    q, qd, qdd, _ = traj.evaluate(traj.times)
    qr = np.round(q, dec)
    scale = 10.0**tdec
    T = np.ceil(np.round(traj.durations * scale, 9)) / scale  # round up; the inner round drops 1e-16 noise
    t = np.round(np.concatenate([[0.0], np.cumsum(T)]), tdec)
    tab = plan_quintic(qr, t, via=traj.via, v0=qd[0], vf=qd[-1], a0=qdd[0], af=qdd[-1])
    pk = np.ceil(segment_peaks(tab)[:2] * 10.0**dec) / 10.0**dec  # (2, K, n), rounded up
    hw = ["waypoint", "t (s)", "branch"] + [f"q{j + 1} (rad)" for j in range(n)]
    rw = [[k, float(t[k]), str(branch[k])] + [float(x) for x in qr[k]] for k in range(K1)]
    hs = ["segment", "from", "to", "T (s)"]
    hs += [f"max|qd{j + 1}| (rad/s)" for j in range(n)] + [f"max|qdd{j + 1}| (rad/s^2)" for j in range(n)]
    rs = [
        [k + 1, k, k + 1, float(T[k])] + [float(x) for x in pk[0, k]] + [float(x) for x in pk[1, k]]
        for k in range(K1 - 1)
    ]
    return (hw, rw), (hs, rs)
