"""Exceptions and warnings raised by robokin.

All of them subclass a standard Python exception, so callers that catch
``ValueError`` or ``RuntimeError`` keep working.
"""

from __future__ import annotations

import numpy as np

__all__ = ["UnreachableError", "SingularityWarning", "ConvergenceError"]


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

    def __init__(self, count, first, *, total=None, reason=""):
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

    def __init__(self, cond, message=""):
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

    def __init__(self, residual, iterations, message=""):
        self.residual = float(residual)
        self.iterations = int(iterations)
        prefix = f"{message}: " if message else ""
        super().__init__(
            f"{prefix}no convergence after {self.iterations} iterations "
            f"(residual {self.residual:.3g})"
        )
