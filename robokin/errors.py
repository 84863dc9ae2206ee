"""Exceptions and warnings raised by robokin.

All of them subclass a standard Python exception, so callers that catch
``ValueError`` or ``RuntimeError`` keep working.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["UnreachableError", "SingularityWarning", "SingularityError", "ConvergenceError", "IntegrationError"]


class UnreachableError(ValueError):
    """Some targets lie outside the reachable set (or outside joint limits).

    Parameters
    ----------
    count : int
        How many targets are out of reach.
    first : array_like
        The first offending target, in the units of the call (metres).
    total : int, optional
        Size of the batch, for the message.
    reason : str, optional
        Why they are unreachable, e.g. ``"distance > l1 + l2"``.

    Examples
    --------
    >>> err = UnreachableError(2, [0.5, -0.1], total=10, reason="too far")
    >>> print(err)
    2 of 10 targets are unreachable (too far); first: [0.5, -0.1]. Pass on_unreachable="nan" to get NaN rows and a mask instead.
    >>> isinstance(err, ValueError)
    True
    """

    def __init__(self, count: int, first: ArrayLike, *, total: int | None = None, reason: str = "") -> None:
        self.count = int(count)
        self.first = np.asarray(first, dtype=float)
        self.total = total
        self.reason = reason
        of = f" of {total}" if total is not None else ""
        why = f" ({reason})" if reason else ""
        noun = "target is" if self.count == 1 and total is None else "targets are"
        first_s = "[" + ", ".join(f"{v:.6g}" for v in self.first.ravel()) + "]"
        super().__init__(
            f"{self.count}{of} {noun} unreachable{why}; first: {first_s}. "
            'Pass on_unreachable="nan" to get NaN rows and a mask instead.'
        )


class SingularityWarning(RuntimeWarning):
    """A configuration is at or near a singularity.

    Parameters
    ----------
    cond : float
        Condition number of the Jacobian at the worst sample.
    message : str, optional
        What was being computed.

    Examples
    --------
    >>> w = SingularityWarning(3.2e12, "inverting the Jacobian")
    >>> w.cond
    3200000000000.0
    """

    def __init__(self, cond: float, message: str = "") -> None:
        self.cond = float(cond)
        msg = f"near-singular configuration (condition number {self.cond:.3g})"
        if message:
            msg = f"{message}: {msg}"
        super().__init__(msg)


class ConvergenceError(RuntimeError):
    """An iterative solver did not converge.

    Parameters
    ----------
    residual : float
        Final residual norm.
    iterations : int
        Iterations used.
    message : str, optional
        Which solver, and a hint.

    Examples
    --------
    >>> e = ConvergenceError(1e-3, 50, "Newton FK")
    >>> print(e)
    Newton FK: no convergence after 50 iterations (residual 0.001)
    """

    def __init__(self, residual: float, iterations: int, message: str = "") -> None:
        self.residual = float(residual)
        self.iterations = int(iterations)
        prefix = f"{message}: " if message else ""
        super().__init__(f"{prefix}no convergence after {self.iterations} iterations (residual {self.residual:.3g})")


class SingularityError(ValueError):
    """A matrix that must be inverted is singular (or numerically so) at the given input.

    Raised, for example, by a forward-dynamics call whose mass matrix is singular (a
    Stewart platform at the ZYX gimbal lock, ``pitch = +-pi/2``) instead of returning
    inf/NaN accelerations.

    Parameters
    ----------
    cond : float
        Condition number of the matrix at the worst sample (``inf`` when exactly singular).
    message : str, optional
        What was being computed, and a hint.

    Examples
    --------
    >>> e = SingularityError(float("inf"), "forward_dynamics: mass matrix")
    >>> print(e)
    forward_dynamics: mass matrix: singular matrix (condition number inf)
    >>> isinstance(e, ValueError)
    True
    """

    def __init__(self, cond: float, message: str = "") -> None:
        self.cond = float(cond)
        prefix = f"{message}: " if message else ""
        super().__init__(f"{prefix}singular matrix (condition number {self.cond:.3g})")


class IntegrationError(RuntimeError):
    """A time integration (``scipy.integrate.solve_ivp``) did not reach the end time.

    Raised when the solver reports failure (e.g. the step size collapsed) or when the
    right-hand side was evaluated more often than the stated budget allows: a stiff or
    exploding model then fails fast instead of running for minutes.

    Parameters
    ----------
    t : float
        Time reached, s.
    t_end : float
        Requested end time, s.
    nfev : int
        Right-hand-side evaluations used.
    message : str, optional
        Which simulator, and why.

    Examples
    --------
    >>> print(IntegrationError(0.25, 2.0, 100000, "wheel_leg.simulate: evaluation budget exhausted"))
    wheel_leg.simulate: evaluation budget exhausted: stopped at t = 0.25 s of 2 s after 100000 right-hand-side evaluations
    """

    def __init__(self, t: float, t_end: float, nfev: int, message: str = "") -> None:
        self.t = float(t)
        self.t_end = float(t_end)
        self.nfev = int(nfev)
        prefix = f"{message}: " if message else ""
        super().__init__(
            f"{prefix}stopped at t = {self.t:.3g} s of {self.t_end:.3g} s after {self.nfev} right-hand-side evaluations"
        )
