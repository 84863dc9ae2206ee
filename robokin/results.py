"""Result types shared by every mechanism (the protocol in ``book/conventions.md``).

Every inverse-kinematics solver returns an :class:`IKResult`, whatever its method (closed form or iterative) and
whatever ``on_unreachable`` is; every simulator returns a :class:`SimResult`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

__all__ = ["IKResult", "SimResult"]


@dataclass(frozen=True, eq=False)
class IKResult:
    """Outcome of an inverse-kinematics solve.

    Attributes
    ----------
    q : ndarray, shape (..., n) or (..., k, n)
        Joint coordinates (rad for revolute, m for prismatic). ``(..., k, n)`` when ``branch="all"`` asked for the
        ``k`` branches of a closed-form solver, in the order of the mechanism's ``branches``. Where ``valid`` is
        False, ``q`` is NaN for closed-form solvers and the last iterate for iterative ones.
    valid : ndarray of bool, shape (...) or (..., k)
        True where the target is reached within the solver's tolerance **and** ``q`` is inside the joint limits.
    residual : ndarray, shape (...) or (..., k)
        Task-space error of ``q`` recomputed by forward kinematics (m, or m and rad combined as the solver's
        docstring states); NaN where ``q`` is NaN.
    branch : str or tuple of str
        The branch solved for, or every branch name (in order) for ``branch="all"``.
    iterations : ndarray of int or None
        Iterations used (iterative solvers only).
    reason : ndarray of str or None
        Why a solve failed, ``"converged"`` on success (iterative solvers only).

    Examples
    --------
    >>> r = IKResult(q=np.zeros(2), valid=np.array(True), residual=np.array(0.0), branch="knee-back")
    >>> bool(r.valid), r.branch
    (True, 'knee-back')
    """

    q: np.ndarray
    valid: np.ndarray
    residual: np.ndarray
    branch: str | tuple[str, ...]
    iterations: np.ndarray | None = None
    reason: np.ndarray | None = None


@dataclass(frozen=True, eq=False)
class SimResult:
    """A recorded simulation run.

    Attributes
    ----------
    t : ndarray, shape (K,)
        Recorded times (s).
    q, qd : ndarray, shape (B..., K, n)
        Generalised coordinates and their rates at the recorded times (SI units, rad for angles); ``B...`` is the
        batch of plants simulated together (absent for one plant).
    u : ndarray, shape (B..., K, m)
        Inputs applied (N, N m).
    stable : ndarray of bool, shape (B...)
        The run stayed finite and within the simulator's bound (its docstring states the bound).
    signals : Mapping of str to ndarray
        Further recorded signals named by the simulator (for example ``"q_ref"``, ``"L0"``, ``"N"``), each with
        the time axis at position -2 (or -1 for scalars per time).

    Examples
    --------
    >>> r = SimResult(t=np.zeros(3), q=np.zeros((3, 2)), qd=np.zeros((3, 2)), u=np.zeros((3, 2)),
    ...               stable=np.array(True), signals={"q_ref": np.ones((3, 2))})
    >>> r.signals["q_ref"].shape
    (3, 2)
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    u: np.ndarray
    stable: np.ndarray
    signals: Mapping[str, np.ndarray] = field(default_factory=dict)
