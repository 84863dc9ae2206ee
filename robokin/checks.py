"""Machine checks used by the notebooks, the tests and the validation report.

Every check returns a :class:`CheckReport` (max error, where it occurred, how
many samples, the tolerance) whose ``str`` is one line, and raises
:class:`CheckFailed` (an ``AssertionError``) when the tolerance is exceeded,
unless ``raise_on_fail=False``. A NaN anywhere counts as a failure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validate import MAX_ABS, as_array, count, finite_scalar, flag, function, text, tolerance

__all__ = [
    "clopper_pearson",
    "CheckFailed",
    "CheckReport",
    "check_errors",
    "check_close",
    "check_rate",
    "jacobian_fd",
    "check_jacobian",
    "residual_scan",
    "fk_ik_roundtrip",
    "check_rigid",
    "check_answer",
]


class CheckFailed(AssertionError):
    """A machine check exceeded its tolerance; ``.report`` holds the details."""

    def __init__(self, report: CheckReport) -> None:
        self.report = report
        super().__init__(str(report))


@dataclass(frozen=True)
class CheckReport:
    """Outcome of one check.

    Attributes
    ----------
    name : str
        What was checked.
    samples : int
        Number of samples (targets, configurations, time steps...).
    max_error : float
        Largest error found (``inf`` if any sample was NaN).
    tol : float
        Tolerance; the check passes when ``max_error <= tol``.
    worst : tuple
        Index of the worst sample.
    unit : str
        Unit of the error, for printing ("m", "rad", "" for relative).
    """

    name: str
    samples: int
    max_error: float
    tol: float
    worst: tuple = ()
    unit: str = ""

    @property
    def passed(self) -> bool:
        return bool(self.max_error <= self.tol)

    def __str__(self):
        unit = f" {self.unit}" if self.unit else ""
        flag = "PASS" if self.passed else "FAIL"
        where = f", worst at {self.worst}" if self.worst else ""
        return (
            f"[{flag}] {self.name}: max error {self.max_error:.2e}{unit} over "
            f"{self.samples} samples (tol {self.tol:.0e}){where}"
        )

    def as_row(self) -> dict[str, Any]:
        """Dictionary for tables: check, samples, max_error, tol, passed."""
        return {
            "check": self.name,
            "samples": self.samples,
            "max_error": self.max_error,
            "tol": self.tol,
            "unit": self.unit,
            "passed": self.passed,
        }


#: Largest tolerance of an absolute check (robokin's bound on SI magnitudes): a wider band could not fail for any
#: input robokin accepts.
MAX_TOL = MAX_ABS
#: Largest tolerance of a check whose error is relative to the data's own scale (a relative error of 1 is 100 %).
MAX_REL_TOL = 0.1


def _check_tol(tol, name="tol", max_tol=MAX_TOL):
    """A tolerance is a finite number in ``[0, max_tol]``, as float: a larger one would let any check pass."""
    return tolerance(tol, name, allow_zero=True, max=max_tol)


def _labels(name, unit, raise_on_fail):
    return text(name, "name"), text(unit, "unit"), flag(raise_on_fail, "raise_on_fail")


def _scale(scale, tol):
    """A positive finite scale (float or array) with ``tol * scale <= MAX_TOL``: a wider band cannot fail."""
    sc = as_array(scale, "scale", finite=False, max_abs=None)
    if not (sc.size and np.all(np.isfinite(sc)) and np.all(sc > 0)):
        shown = scale if np.ndim(scale) == 0 else f"array with min {np.min(sc) if sc.size else 'none'}"
        raise ValueError(f"scale must be positive and finite (inf would pass any comparison), got {shown}")
    if tol * float(sc.max()) > MAX_TOL:
        raise ValueError(
            f"scale must keep tol * scale <= {MAX_TOL:g} (robokin's bound on SI magnitudes; a wider band cannot "
            f"fail), got tol * scale = {tol * float(sc.max()):.3g}"
        )
    return sc


def _from_callback(value, name):
    """A user function's output as a float array: NaN/inf are kept (a check counts them as failures)."""
    try:
        return as_array(value, name, finite=False, max_abs=None)
    except ValueError as exc:
        raise ValueError(f"{name} returned an invalid value: {exc}") from None


def check_errors(
    name: str, errors: ArrayLike, *, tol: float, unit: str = "", raise_on_fail: bool = True
) -> CheckReport:
    """Turn an array of non-negative errors into a report.

    Parameters
    ----------
    name : str
        Label of the check.
    errors : array_like
        One error per sample (any shape). NaN counts as infinitely wrong.
    tol : float
        Pass when ``max(errors) <= tol``; in ``[0, 1e12]`` (a wider band cannot fail).
    unit : str
        Unit for printing.
    raise_on_fail : bool
        Raise :class:`CheckFailed` on failure (default) or just return.

    Raises
    ------
    ValueError
        Empty or complex ``errors``, a tolerance outside ``[0, 1e12]``, a non-string name or unit, a non-bool
        ``raise_on_fail``.

    Examples
    --------
    >>> print(check_errors("demo", [1e-12, 3e-13], tol=1e-9, unit="m"))
    [PASS] demo: max error 1.00e-12 m over 2 samples (tol 1e-09), worst at (0,)
    >>> check_errors("demo", [1e-3], tol=1e-9)
    Traceback (most recent call last):
    ...
    robokin.checks.CheckFailed: [FAIL] demo: max error 1.00e-03 over 1 samples (tol 1e-09), worst at (0,)
    """
    tol = _check_tol(tol)
    name, unit, raise_on_fail = _labels(name, unit, raise_on_fail)
    e = np.abs(as_array(errors, "errors", finite=False, max_abs=None))  # inf/NaN/huge are failures, not errors
    if e.size == 0:
        raise ValueError(f"errors is empty: check {name!r} got no samples (an empty check cannot fail)")
    e = np.where(np.isnan(e), np.inf, e)
    idx = np.unravel_index(int(np.argmax(e)), e.shape)
    report = CheckReport(
        name=name,
        samples=int(e.size),
        max_error=float(e[idx]),
        tol=float(tol),
        worst=tuple(int(i) for i in idx),
        unit=unit,
    )
    if raise_on_fail and not report.passed:
        raise CheckFailed(report)
    return report


def check_close(
    name: str,
    actual: ArrayLike,
    expected: ArrayLike,
    *,
    tol: float,
    scale: float = 1.0,
    unit: str = "",
    raise_on_fail: bool = True,
) -> CheckReport:
    """Compare two arrays entry-wise: error ``|actual - expected| / scale``.

    ``scale`` (a positive finite number or array broadcasting against the inputs) makes the error relative;
    ``scale=inf`` or 0 would make every comparison pass or fail regardless of the data, so it is refused, and so is
    a band ``tol * scale`` wider than 1e12 (robokin's bound on SI magnitudes: no accepted input could fail it).

    Examples
    --------
    >>> print(check_close("sympy vs numpy", [1.0, 2.0], [1.0, 2.0 + 1e-15], tol=1e-12))
    [PASS] sympy vs numpy: max error 8.88e-16 over 2 samples (tol 1e-12), worst at (1,)
    >>> check_close("x", [1.0], [2.0], tol=1e-9, scale=np.inf)
    Traceback (most recent call last):
    ...
    ValueError: scale must be positive and finite (inf would pass any comparison), got inf
    """
    tol = _check_tol(tol)
    name, unit, raise_on_fail = _labels(name, unit, raise_on_fail)
    sc = _scale(scale, tol)
    a = as_array(actual, "actual", finite=False, max_abs=None)
    b = as_array(expected, "expected", finite=False, max_abs=None)
    try:
        a, b, sc = np.broadcast_arrays(a, b, sc)
    except ValueError:
        raise ValueError(
            f"actual, expected and scale must broadcast together: shapes {a.shape}, {b.shape}, {sc.shape}"
        ) from None
    if a.size == 0:
        raise ValueError(f"actual and expected are empty: check {name!r} got no samples (an empty check cannot fail)")
    with np.errstate(all="ignore"):  # inf - inf and overflow are failures (NaN -> inf below), not warnings
        err = np.abs(a - b) / sc
    return check_errors(name, err, tol=tol, unit=unit, raise_on_fail=raise_on_fail)


def _rate_lower(k, n, alpha):
    """Clopper-Pearson lower bound of a binomial rate at one-sided level ``1 - alpha`` (0 when ``k = 0``)."""
    from scipy.stats import beta

    return float(beta.ppf(alpha, k, n - k + 1)) if k else 0.0


def _rate_upper(k, n, alpha):
    """Clopper-Pearson upper bound of a binomial rate at one-sided level ``1 - alpha`` (1 when ``k = n``)."""
    from scipy.stats import beta

    return float(beta.ppf(1 - alpha, k + 1, n - k)) if k < n else 1.0


def clopper_pearson(k: int, n: int, *, confidence: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) two-sided confidence interval for a rate ``k / n``.

    With ``k = n`` the lower bound is ``((1 - confidence) / 2) ** (1 / n)``: 1000 successes in 1000
    trials only show that the true rate exceeds about 0.9963 (95 %). :func:`check_rate` uses the same bound,
    one-sided.

    Parameters
    ----------
    k, n : int
        Successes (or failures) and trials, ``0 <= k <= n``, ``n >= 1``.
    confidence : float
        Two-sided confidence level in (0, 1).

    Returns
    -------
    (lower, upper) : tuple of float

    Examples
    --------
    >>> lo, hi = clopper_pearson(1000, 1000)
    >>> round(lo, 4), hi
    (0.9963, 1.0)
    >>> clopper_pearson(0, 10)[0]
    0.0
    """
    # beyond exact float64 integers (2**53) the beta quantiles are meaningless
    k, n = count(k, "k", minimum=0, max=2**53), count(n, "n", minimum=0, max=2**53)
    if n < 1 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n and n >= 1, got k={k}, n={n}")
    confidence = finite_scalar(confidence, "confidence")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    a = (1 - confidence) / 2
    return _rate_lower(int(k), int(n), a), _rate_upper(int(k), int(n), a)


def check_rate(
    name: str, failed: ArrayLike, *, max_rate: float, alpha: float = 1e-3, raise_on_fail: bool = True
) -> CheckReport:
    """Statistical bar on a failure rate: one-sided exact binomial test at false-alarm probability ``alpha``.

    Rule: with ``k`` failures in ``n`` independent samples, the check fails when
    ``P(X >= k | n, max_rate) < alpha`` for ``X ~ Binomial(n, max_rate)``; equivalently, when the one-sided
    Clopper-Pearson lower confidence bound of the rate (level ``1 - alpha``) exceeds ``max_rate``. If the true
    rate is at most ``max_rate``, the check fails by bad luck with probability at most ``alpha``, whatever ``n``.
    Comparing the observed ``k / n`` with the bar instead fails about half the time at a true rate on the bar
    (and, for example, one failure in 1,000 gives ``1 - 0.999 = 1.0000000000000009e-3 > 1e-3``).

    The report's ``max_error`` is that lower bound (0 when ``k = 0``) and ``tol`` is ``max_rate``, so
    ``passed`` is ``lower bound <= max_rate``; the name records ``k of n``.

    Parameters
    ----------
    name : str
        What rate is checked (say over which population).
    failed : array_like of bool
        One entry per independent sample, True where it failed.
    max_rate : float
        The bar on the true failure rate, in ``[0, 1)``.
    alpha : float
        False-alarm probability, in ``(0, 0.5]`` (default 1e-3).
    raise_on_fail : bool
        Raise :class:`CheckFailed` on failure (default) or just return.

    Examples
    --------
    >>> print(check_rate("demo", np.arange(1000) == 0, max_rate=1e-3))  # 1 in 1000: consistent with 1e-3
    [PASS] demo (1 of 1000 failed; error = lower 99.9% confidence bound of the rate, one-sided binomial test): max error 1.00e-06 over 1000 samples (tol 1e-03)
    >>> check_rate("demo", np.arange(1000) < 10, max_rate=1e-3)  # 10 in 1000: not consistent with 1e-3
    Traceback (most recent call last):
    ...
    robokin.checks.CheckFailed: [FAIL] demo (10 of 1000 failed; error = lower 99.9% confidence bound of the rate, one-sided binomial test): max error 2.97e-03 over 1000 samples (tol 1e-03)
    """
    name, _, raise_on_fail = _labels(name, "", raise_on_fail)
    try:
        f = np.asarray(failed)
    except ValueError:
        raise ValueError(f"failed must be a boolean array, got {type(failed).__name__}") from None
    if f.dtype != bool:
        raise ValueError(f"failed must be a boolean array (True where a sample failed), got dtype {f.dtype}")
    if f.size == 0:
        raise ValueError(f"failed is empty: check {name!r} got no samples (an empty check cannot fail)")
    max_rate = tolerance(max_rate, "max_rate", allow_zero=True, max=1.0)
    if max_rate >= 1:
        raise ValueError(f"max_rate must be a number in [0, 1), got {max_rate!r}")
    alpha = tolerance(alpha, "alpha", max=0.5)
    n, k = int(f.size), int(np.count_nonzero(f))
    lower = _rate_lower(k, n, alpha)
    report = CheckReport(
        name=f"{name} ({k} of {n} failed; error = lower {1 - alpha:.1%} confidence bound of the "
        f"rate, one-sided binomial test)",
        samples=n,
        max_error=lower,
        tol=float(max_rate),
    )
    if raise_on_fail and not report.passed:
        raise CheckFailed(report)
    return report


def jacobian_fd(
    f: Callable[[np.ndarray], ArrayLike], x: ArrayLike, *, eps: float = 1e-6, vectorized: bool = True
) -> np.ndarray:
    """Central finite-difference Jacobian ``df/dx``.

    Parameters
    ----------
    f : callable
        ``f(x)`` maps ``(..., n)`` to ``(..., m)``. With ``vectorized=True`` it
        must accept extra leading axes (all 2n perturbed points are evaluated
        in one call); otherwise it is called once per point.
    x : array_like, shape (..., n)
        Points at which to differentiate.
    eps : float
        Step, in ``(0, 0.1]`` and large enough not to round away at ``x``; the error is ``O(eps^2)`` truncation
        plus ``O(1e-16 / eps)`` round-off.
    vectorized : bool
        Whether ``f`` accepts a batch.

    Returns
    -------
    ndarray, shape (..., m, n)

    Raises
    ------
    ValueError
        A bad step, or ``f`` returning a complex, non-finite, ragged or wrongly shaped value.

    Examples
    --------
    >>> J = jacobian_fd(lambda x: np.stack([x[..., 0] * x[..., 1], np.sin(x[..., 0])], -1), [1.0, 2.0])
    >>> np.allclose(J, [[2.0, 1.0], [np.cos(1.0), 0.0]])
    True
    """
    return _jacobian_fd(f, x, eps, vectorized, finite=True)


def _fd_step(eps, x):
    """Validated finite-difference step: positive, at most 0.1, and not lost to rounding at ``x``."""
    eps = tolerance(eps, "eps", max=0.1)
    if x.size and np.any((x + eps) - x < 0.5 * eps):
        raise ValueError(f"eps = {eps:g} rounds away at |x| = {float(np.abs(x).max()):.3g}: use a larger step")
    return eps


def _jacobian_fd(f, x, eps, vectorized, *, finite):  # finite: refuse NaN/inf/huge outputs (else they fail a check)
    function(f, "f")
    vectorized = flag(vectorized, "vectorized")
    x = as_array(x, "x", trailing=(None,))
    if x.shape[-1] == 0 or x.size == 0:
        raise ValueError(f"x must have at least one point and one coordinate, got shape {x.shape}")
    eps = _fd_step(eps, x)
    n = x.shape[-1]
    E = eps * np.eye(n)
    pts = np.concatenate([x[..., None, :] + E, x[..., None, :] - E], axis=-2)  # (..., 2n, n)
    if vectorized:
        y = _from_callback(f(pts), "f")
    else:
        flat = pts.reshape(-1, n)
        ys = [_from_callback(f(p), "f") for p in flat]
        if len({v.shape for v in ys}) != 1:
            raise ValueError("f returned outputs of different shapes at different points")
        y = np.stack(ys)
        y = y.reshape(pts.shape[:-1] + y.shape[1:])
    if y.ndim != pts.ndim or y.shape[:-1] != pts.shape[:-1]:
        raise ValueError(f"f must map (..., n) to (..., m); it returned shape {y.shape} for input {pts.shape}")
    if finite and not (np.all(np.isfinite(y)) and np.all(np.abs(y) <= MAX_ABS)):
        raise ValueError("f returned an invalid value: non-finite (NaN or inf) or above 1e12 in magnitude near x")
    with np.errstate(all="ignore"):  # huge outputs overflow to inf: reported by the caller or as a failure
        J = (y[..., :n, :] - y[..., n:, :]) / (2 * eps)  # (..., n, m)
    if finite and not np.all(np.isfinite(J)):
        raise ValueError("f returned an invalid value: its differences overflow (outputs near the float64 limit)")
    return np.swapaxes(J, -1, -2)


def check_jacobian(
    jac: Callable[[np.ndarray], ArrayLike],
    f: Callable[[np.ndarray], ArrayLike],
    x: ArrayLike,
    *,
    eps: float = 1e-6,
    tol: float = 1e-6,
    atol: float = 1e-9,
    name: str = "Jacobian vs finite differences",
    vectorized: bool = True,
    raise_on_fail: bool = True,
) -> CheckReport:
    """Compare an analytic Jacobian with central differences of ``f``.

    The error per sample is ``max|J - J_fd| / (max|J_fd| + atol)``: relative to
    the Jacobian's own scale, with ``atol`` guarding all-zero Jacobians. A NaN in ``jac`` or ``f`` is a failure.

    Parameters
    ----------
    jac : callable
        ``jac(x)``: ``(..., n) -> (..., m, n)``.
    f : callable
        ``f(x)``: ``(..., n) -> (..., m)``.
    x : array_like, shape (..., n)
        Sample points.
    eps : float
        Finite-difference step (see :func:`jacobian_fd`).
    tol : float
        Relative tolerance, in ``[0, 0.1]``: a relative error of 1 would pass a zero Jacobian.
    atol : float
        Floor of the scale, in ``[0, 1e-3 * max(1, max|J_fd|)]``: a larger floor divides every error away
        (``atol=inf`` would pass a Jacobian 5x wrong).

    Examples
    --------
    >>> f = lambda x: np.stack([np.cos(x[..., 0]), x[..., 0] * x[..., 1]], -1)
    >>> jac = lambda x: np.stack([np.stack([-np.sin(x[..., 0]), 0 * x[..., 1]], -1),
    ...                           np.stack([x[..., 1], x[..., 0]], -1)], -2)
    >>> check_jacobian(jac, f, np.random.default_rng(0).normal(size=(100, 2))).passed
    True
    """
    function(jac, "jac")
    tol = _check_tol(tol, max_tol=MAX_REL_TOL)
    name, _, raise_on_fail = _labels(name, "", raise_on_fail)
    atol = _check_tol(atol, "atol")
    x = as_array(x, "x", trailing=(None,))
    if x.shape[-1] == 0 or x.size == 0:
        raise ValueError(f"x must have at least one point and one coordinate, got shape {x.shape}")
    J = _from_callback(jac(x), "jac")
    Jfd = _jacobian_fd(f, x, eps, vectorized, finite=False)
    if J.shape != Jfd.shape:
        raise ValueError(
            f"jac returned shape {J.shape} at x of shape {x.shape}; the finite differences of f have shape {Jfd.shape}"
        )
    with np.errstate(all="ignore"):  # NaN/inf/overflow are failures (check_errors maps NaN to inf)
        size = np.abs(Jfd).max(axis=(-2, -1))
        bound = 1e-3 * max(1.0, float(np.nanmax(np.where(np.isfinite(size), size, np.nan), initial=0.0)))
        if atol > bound:
            raise ValueError(
                f"atol must be at most 1e-3 * max(1, max|J_fd|) = {bound:.3g} (a larger floor divides every "
                f"error away), got {atol!r}"
            )
        diff = np.abs(J - Jfd).max(axis=(-2, -1))
        err = diff / (size + atol)
    return check_errors(name, err, tol=tol, raise_on_fail=raise_on_fail)


def _first(result):
    return result[0] if isinstance(result, tuple) else result


def residual_scan(
    forward: Callable[[np.ndarray], ArrayLike],
    inverse: Callable[[np.ndarray], Any],
    targets: ArrayLike,
    *,
    tol: float,
    scale: float = 1.0,
    unit: str = "",
    name: str = "FK(IK(target)) residual",
    raise_on_fail: bool = True,
) -> CheckReport:
    """Residual scan: ``|forward(inverse(target)) - target| / scale`` per target.

    Parameters
    ----------
    forward : callable
        Forward map, e.g. FK: joints ``(..., n)`` to task ``(..., m)``.
    inverse : callable
        Inverse map, e.g. IK; if it returns a tuple the first item is used.
    targets : array_like, shape (N, m)
        Task-space targets (all meant to be reachable).
    tol : float
        Tolerance on the scaled Euclidean residual.
    scale : float
        Length scale (e.g. ``l1 + l2``) so that the residual is relative: positive, finite, with
        ``tol * scale <= 1e12`` (a wider band cannot fail).

    A NaN from ``forward`` or ``inverse`` (e.g. an unreachable target) is a failure; a complex, ragged or wrongly
    shaped output raises ``ValueError`` naming the function.

    Examples
    --------
    >>> rep = residual_scan(np.exp, np.log, np.linspace(1, 5, 50)[:, None], tol=1e-12)
    >>> rep.samples
    50
    """
    return _residual_scan(forward, inverse, targets, tol, scale, unit, name, raise_on_fail, ("forward", "inverse"))


def _residual_scan(forward, inverse, targets, tol, scale, unit, name, raise_on_fail, names):
    fwd, inv = names
    function(forward, fwd)
    function(inverse, inv)
    tol = _check_tol(tol)
    name, unit, raise_on_fail = _labels(name, unit, raise_on_fail)
    sc = _scale(scale, tol)
    if sc.ndim:
        raise ValueError(f"scale must be a scalar here, got shape {sc.shape}")
    p = as_array(targets, "targets", trailing=(None,))
    if p.size == 0:
        raise ValueError(f"targets is empty: check {name!r} got no samples (an empty check cannot fail)")
    q = _from_callback(_first(inverse(p)), inv)
    if np.any(np.isinf(q)) or np.any(np.abs(np.where(np.isnan(q), 0.0, q)) > MAX_ABS):
        raise ValueError(f"{inv} returned an invalid value: inf or magnitudes above 1e12 (NaN marks a failure)")
    back = _from_callback(forward(q), fwd)
    if back.shape != p.shape:
        raise ValueError(f"{fwd}({inv}(targets)) returned shape {back.shape}; the targets have shape {p.shape}")
    with np.errstate(all="ignore"):  # overflow and NaN are failures (NaN -> inf in check_errors)
        err = np.linalg.norm((back - p).reshape(p.shape[0], -1) if p.ndim > 1 else back - p, axis=-1) / float(sc)
    return check_errors(name, err, tol=tol, unit=unit, raise_on_fail=raise_on_fail)


def fk_ik_roundtrip(
    fk: Callable[[np.ndarray], ArrayLike],
    ik: Callable[[np.ndarray], Any],
    q: ArrayLike,
    *,
    tol: float,
    scale: float = 1.0,
    unit: str = "",
    name: str = "FK(IK(FK(q))) round trip",
    raise_on_fail: bool = True,
) -> CheckReport:
    """Sample joints ``q``, map to task space, solve IK, and compare FK of the answer.

    Examples
    --------
    Options as in :func:`residual_scan`; ``fk`` must give finite targets at ``q``.

    >>> rep = fk_ik_roundtrip(np.sin, np.arcsin, np.linspace(-1, 1, 11)[:, None], tol=1e-12)
    >>> rep.passed
    True
    """
    function(fk, "fk")
    function(ik, "ik")
    q = as_array(q, "q", trailing=(None,))
    if q.size == 0:
        raise ValueError("q is empty: the round trip got no samples (an empty check cannot fail)")
    p = _from_callback(fk(q), "fk")
    if not np.all(np.isfinite(p)) or np.any(np.abs(p) > MAX_ABS):
        raise ValueError("fk returned an invalid value: non-finite (NaN or inf) or above 1e12 in magnitude")
    return _residual_scan(fk, ik, p, tol, scale, unit, name, raise_on_fail, ("fk", "ik"))


def check_rigid(
    T: ArrayLike, *, tol: float = 1e-9, name: str = "rigid transform validity", raise_on_fail: bool = True
) -> CheckReport:
    """Check that transforms are rigid: ``R^T R = I``, ``det R = 1``, bottom row ``[0 0 0 1]``.

    Accepts ``(..., 4, 4)`` transforms or ``(..., 3, 3)`` rotations; ``tol`` in ``[0, 0.1]`` (a larger one
    accepts matrices that are not rotations at all).

    Examples
    --------
    >>> print(check_rigid(np.eye(4)))
    [PASS] rigid transform validity: max error 0.00e+00 over 1 samples (tol 1e-09)
    """
    tol = _check_tol(tol, max_tol=MAX_REL_TOL)
    name, _, raise_on_fail = _labels(name, "", raise_on_fail)
    T = as_array(T, "T", finite=False, max_abs=None)  # NaN, inf and huge entries are failures, reported below
    if T.ndim < 2 or T.shape[-2:] not in ((4, 4), (3, 3)):
        raise ValueError(f"T must have shape (..., 4, 4) or (..., 3, 3), got {T.shape}")
    if T.size == 0:
        raise ValueError("T is empty: the check got no samples (an empty check cannot fail)")
    bad = (
        ~np.all(np.isfinite(T) & (np.abs(T) <= 2.0), axis=(-2, -1))
        if T.shape[-1] == 3
        else ~np.all(np.isfinite(T[..., :3, :3]) & (np.abs(T[..., :3, :3]) <= 2.0), axis=(-2, -1))
        | ~np.all(np.isfinite(T[..., 3, :]), axis=-1)
    )
    R = np.where(bad[..., None, None], 0.0, T[..., :3, :3])  # a rotation's entries lie in [-1, 1]
    err = np.abs(np.swapaxes(R, -1, -2) @ R - np.eye(3)).max(axis=(-2, -1))
    err = np.maximum(err, np.abs(np.linalg.det(R) - 1))
    if T.shape[-1] == 4:
        err = np.maximum(err, np.abs(np.where(bad[..., None], 0.0, T[..., 3, :]) - [0, 0, 0, 1]).max(axis=-1))
    err = np.where(bad, np.inf, err)
    rep = check_errors(name, np.atleast_1d(err), tol=tol, raise_on_fail=raise_on_fail)
    return rep if T.ndim > 2 else CheckReport(rep.name, rep.samples, rep.max_error, rep.tol, (), rep.unit)


def _diagnose(v, e):
    """Guess a common mistake from an answer ``v`` and the expected ``e``."""
    if v.shape != e.shape:
        if v.T.shape == e.shape and np.allclose(v.T, e, rtol=1e-6, atol=1e-9):
            return "it is the transpose of the expected answer"
        return f"shape {v.shape}, expected {e.shape}"
    close = lambda a: np.allclose(a, e, rtol=1e-6, atol=1e-9)  # noqa: E731
    if close(-v):
        return "the sign is flipped: check the direction of an axis or the order of a subtraction"
    if close(np.deg2rad(v)):
        return "looks like degrees: robokin works in radians (use np.deg2rad)"
    if close(np.rad2deg(v)):
        return "looks like radians where degrees were asked"
    if v.ndim == 2 and v.shape[0] == v.shape[1] and close(v.T):
        return "it is the transpose of the expected answer: check the multiplication order"
    return "not a known slip; re-check the derivation step by step"


def check_answer(
    name: str, value: ArrayLike, expected: ArrayLike, *, rtol: float = 1e-6, atol: float = 1e-9, quiet: bool = False
) -> bool:
    """Check an exercise answer and say *why* it is wrong.

    Recognises common slips: wrong shape, transposed matrix, flipped sign,
    degrees instead of radians.

    Parameters
    ----------
    name : str
        Name of the exercise quantity.
    value, expected : array_like
        Your answer and the reference.
    rtol, atol : float
        Tolerances as in ``numpy.allclose``: ``rtol`` in ``[0, 0.1]``, ``atol`` in
        ``[0, max(0.1 * max|expected|, 1e-6)]``: looser bars would accept wrong answers.
    quiet : bool
        Do not print on success.

    Returns
    -------
    bool
        True on success; raises :class:`AssertionError` with a diagnosis otherwise.

    Examples
    --------
    >>> check_answer("yaw", 0.5, 0.5)
    yaw: correct.
    True
    >>> check_answer("yaw", 28.64788975654116, 0.5)
    Traceback (most recent call last):
    ...
    AssertionError: yaw: not yet: looks like degrees: robokin works in radians (use np.deg2rad)
    """
    name = text(name, "name")
    quiet = flag(quiet, "quiet")
    rtol = _check_tol(rtol, "rtol", max_tol=MAX_REL_TOL)
    v = as_array(value, "value", finite=False, max_abs=None)  # complex refused; NaN/inf diagnosed below
    e = as_array(expected, "expected")  # the reference must be a finite answer
    if e.size == 0:
        raise ValueError("expected is empty: there is nothing to compare the answer with")
    ref = float(np.abs(e).max())
    atol = _check_tol(atol, "atol", max_tol=max(MAX_REL_TOL * ref, 1e-6))
    if v.shape == e.shape and np.all(np.isfinite(v)) and np.allclose(v, e, rtol=rtol, atol=atol):
        if not quiet:
            print(f"{name}: correct.")
        return True
    if not np.all(np.isfinite(v)):
        raise AssertionError(f"{name}: not yet: the answer contains NaN or inf")
    raise AssertionError(f"{name}: not yet: {_diagnose(v, e)}")
