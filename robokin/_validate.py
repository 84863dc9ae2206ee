"""Input validation shared by every module (internal).

Public functions call these at the boundary so that bad input fails with an
actionable ``ValueError`` instead of a NaN, a silently dropped imaginary part,
an overflow warning or a ``TypeError`` from inside numpy.

Every numeric input is checked to be **real** (complex input is rejected, never
truncated), **finite** (unless the caller allows NaN/inf, e.g. for joint limits)
and **bounded**: magnitudes above :data:`MAX_ABS` are refused. robokin works in
SI units (m, rad, kg, s, N); no quantity of the course comes near ``1e12`` of
them, while such values lose every digit of an angle and overflow in the
products that kinematics and dynamics form (``1e300 ** 2 = inf``).
"""

from __future__ import annotations

import numbers

import numpy as np

#: Largest magnitude accepted for any numeric input (SI units).
MAX_ABS = 1e12
#: Bound for dimensionless thresholds, which may legitimately be large.
MAX_THRESHOLD = 1e100
#: Bound for condition-number thresholds: beyond ``1 / eps = 4.5e15`` a matrix is singular in float64, so a larger
#: threshold would accept (or never warn about) matrices that cannot be inverted.
MAX_COND = 1e16


def _describe(x):
    s = repr(x)
    return s if len(s) <= 60 else s[:57] + "..."


def as_array(x, name, *, trailing=(), finite=True, max_abs=MAX_ABS):
    """Convert ``x`` to a real float64 array and check its trailing shape, finiteness and magnitude.

    Parameters
    ----------
    x : array_like
        Input.
    name : str
        Argument name for messages.
    trailing : tuple of int or None
        Required trailing dimensions; ``None`` means any size.
    finite : bool
        Reject NaN and inf.
    max_abs : float or None
        Reject finite entries with ``|x| > max_abs`` (default :data:`MAX_ABS`); None disables.

    Raises
    ------
    ValueError
        Non-numeric or complex input, wrong trailing shape, NaN/inf (with ``finite=True``)
        or magnitudes above ``max_abs``.

    Examples
    --------
    >>> as_array([1, 2, 3], "p", trailing=(3,)).dtype
    dtype('float64')
    >>> as_array([1, 2], "p", trailing=(3,))
    Traceback (most recent call last):
    ...
    ValueError: p must have shape (..., 3), got shape (2,)
    >>> as_array([1 + 2j], "p")
    Traceback (most recent call last):
    ...
    ValueError: p must be real, got complex input (the imaginary part would be dropped)
    >>> as_array([0.1, 1e300], "p")
    Traceback (most recent call last):
    ...
    ValueError: p has 1 value(s) of magnitude above 1e+12 (largest 1e+300); robokin expects SI units (m, rad, kg, s, N)
    """
    try:
        raw = np.asarray(x)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"{name} must be a real numeric array, got {type(x).__name__} {_describe(x)}") from exc
    kind = raw.dtype.kind
    if kind == "c" or (
        kind == "O" and any(isinstance(v, numbers.Complex) and not isinstance(v, numbers.Real) for v in raw.flat)
    ):
        raise ValueError(f"{name} must be real, got complex input (the imaginary part would be dropped)")
    if kind not in "biuf" and not (kind == "O" and all(isinstance(v, numbers.Real) for v in raw.flat)):
        raise ValueError(f"{name} must be a real numeric array, got {type(x).__name__} {_describe(x)}")
    a = np.asarray(raw, dtype=float)
    k = len(trailing)
    if k:
        ok = a.ndim >= k and all(t is None or s == t for s, t in zip(a.shape[a.ndim - k :], trailing))
        if not ok:
            want = ", ".join("n" if t is None else str(t) for t in trailing)
            raise ValueError(f"{name} must have shape (..., {want}), got shape {a.shape}")
    if a.size == 0:
        return a
    if finite or max_abs is not None:
        lo, hi = float(a.min()), float(a.max())  # NaN or inf show up here: no temporary arrays
        if not (np.isfinite(lo) and np.isfinite(hi)):
            fin = np.isfinite(a)
            if finite and not np.all(fin):
                raise ValueError(f"{name} contains {int(np.count_nonzero(~fin))} non-finite value(s) (NaN or inf)")
            lo, hi = (float(v) for v in (np.min(a, where=fin, initial=0.0), np.max(a, where=fin, initial=0.0)))
        if max_abs is not None and max(-lo, hi) > max_abs:
            mag = np.abs(np.where(np.isfinite(a), a, 0.0))
            raise ValueError(
                f"{name} has {int(np.count_nonzero(mag > max_abs))} value(s) of magnitude above "
                f"{max_abs:g} (largest {float(mag.max()):.3g}); robokin expects SI units (m, rad, kg, s, N)"
            )
    return a


def _real_scalar(value, name, what):
    """``value`` as a Python float if it is a real number (not a bool, not complex, not an array), else ValueError.

    numpy scalars (float32, int64...) are converted here, at the boundary, so that nothing downstream computes in
    float32 or overflows in it.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        if isinstance(value, numbers.Complex) and not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{name} must be {what}, got complex {value!r} (the imaginary part would be dropped)")
        raise ValueError(f"{name} must be {what}, got {type(value).__name__} {_describe(value)}")
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{name} must be {what}, got an integer too large for a float: {_describe(value)}") from None


def positive(value, name, *, max_abs=MAX_ABS):
    """Check a strictly positive finite real scalar, at most ``max_abs``, and return it as float.

    Examples
    --------
    >>> positive(0.2, "l1")
    0.2
    >>> positive(-1, "l1")
    Traceback (most recent call last):
    ...
    ValueError: l1 must be a positive finite number, got -1
    >>> positive(1e300, "l1")
    Traceback (most recent call last):
    ...
    ValueError: l1 must be at most 1e+12 (SI units), got 1e+300
    """
    v = _real_scalar(value, name, "a positive finite number")
    if not (np.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    if max_abs is not None and v > max_abs:
        raise ValueError(f"{name} must be at most {max_abs:g} (SI units), got {value!r}")
    return v


def finite_scalar(value, name, *, max_abs=MAX_ABS):
    """Check a finite real scalar with ``|value| <= max_abs`` and return it as float.

    Examples
    --------
    >>> finite_scalar(-0.5, "d")
    -0.5
    >>> finite_scalar(2j, "d")
    Traceback (most recent call last):
    ...
    ValueError: d must be a finite real number, got complex 2j (the imaginary part would be dropped)
    """
    v = _real_scalar(value, name, "a finite real number")
    if not np.isfinite(v):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    if max_abs is not None and abs(v) > max_abs:
        raise ValueError(f"{name} must have magnitude at most {max_abs:g} (SI units), got {value!r}")
    return v


def integer(value, name, *, minimum=0, maximum=None):
    """Check an integer (not a bool, not a float) ``>= minimum`` (and ``<= maximum``) and return it as int.

    Examples
    --------
    >>> integer(3, "n")
    3
    >>> integer(2.0, "n")
    Traceback (most recent call last):
    ...
    ValueError: n must be an integer >= 0, got 2.0
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {_describe(value)}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum:,} (a cap on time and memory), got {_describe(value)}")
    return int(value)


#: Default cap on iteration and evaluation counts (a larger budget would let a call run for hours).
MAX_COUNT = 10**8


def count(value, name, *, minimum=1, max=MAX_COUNT):  # noqa: A002 - the keyword reads best as max
    """An iteration count, sample count or evaluation budget: an integer in ``[minimum, max]``, as int.

    Examples
    --------
    >>> count(np.int64(50), "max_iter")
    50
    >>> count(10**30, "max_iter")
    Traceback (most recent call last):
    ...
    ValueError: max_iter must be at most 100,000,000 (a cap on time and memory), got 1000000000000000000000000000000
    """
    return integer(value, name, minimum=minimum, maximum=max)


def tolerance(value, name, *, max=MAX_THRESHOLD, min=0.0, allow_zero=False):  # noqa: A002
    """A tolerance, step or threshold: a finite real ``> 0`` (``>= 0`` with ``allow_zero``), within ``[min, max]``.

    ``max`` is the bound beyond which the option would make a verdict vacuous (a check that cannot fail, a
    rotation test that accepts a reflection); ``min`` the bound below which it means nothing in float64 (a step
    that rounds away). Returns a Python float (a float32 option is converted here, so it cannot overflow later).

    Examples
    --------
    >>> tolerance(np.float32(1e-9), "tol") == float(np.float32(1e-9))
    True
    >>> tolerance(float("inf"), "tol")
    Traceback (most recent call last):
    ...
    ValueError: tol must be a finite positive number, got inf
    >>> tolerance(0.5, "tol", max=0.1)
    Traceback (most recent call last):
    ...
    ValueError: tol must be at most 0.1 (a larger value makes the result meaningless), got 0.5
    """
    what = "a finite non-negative number" if allow_zero else "a finite positive number"
    v = _real_scalar(value, name, what)
    if not np.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        raise ValueError(f"{name} must be {what}, got {_describe(value)}")
    if v > max:
        raise ValueError(f"{name} must be at most {max:g} (a larger value makes the result meaningless), got {v!r}")
    if v < min and not (allow_zero and v == 0):
        raise ValueError(f"{name} must be at least {min:g} (a smaller value rounds away in float64), got {v!r}")
    return v


def flag(value, name):
    """A boolean option (``bool`` or ``numpy.bool_``), returned as bool; 0/1, strings and arrays are refused.

    Examples
    --------
    >>> flag(np.bool_(True), "quiet")
    True
    >>> flag("no", "quiet")
    Traceback (most recent call last):
    ...
    ValueError: quiet must be True or False, got str 'no'
    """
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {type(value).__name__} {_describe(value)}")
    return bool(value)


def text(value, name, *, max_len=10_000):
    """A label (a ``str`` of at most ``max_len`` characters).

    Examples
    --------
    >>> text(3.0, "name")
    Traceback (most recent call last):
    ...
    ValueError: name must be a string, got float 3.0
    """
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string, got {type(value).__name__} {_describe(value)}")
    if len(value) > max_len:
        raise ValueError(f"{name} must be at most {max_len} characters, got {len(value)}")
    return value


def function(value, name):
    """A callable (a user function); classes and non-callables are refused.

    Examples
    --------
    >>> function(None, "f")
    Traceback (most recent call last):
    ...
    ValueError: f must be a callable, got NoneType None
    """
    if not callable(value) or isinstance(value, type):
        raise ValueError(f"{name} must be a callable, got {type(value).__name__} {_describe(value)}")
    return value


def generator(value, name="rng"):
    """A ``numpy.random.Generator`` or None.

    Examples
    --------
    >>> generator(0, "rng")
    Traceback (most recent call last):
    ...
    ValueError: rng must be a numpy.random.Generator (np.random.default_rng(seed)) or None, got int 0
    """
    if value is not None and not isinstance(value, np.random.Generator):
        raise ValueError(
            f"{name} must be a numpy.random.Generator (np.random.default_rng(seed)) or None, "
            f"got {type(value).__name__} {_describe(value)}"
        )
    return value


def callback_array(value, name, *, what="returned"):
    """What a user function returned, as a real float64 array (finite, bounded) or ValueError naming it.

    Examples
    --------
    >>> callback_array([float("nan")], "f")
    Traceback (most recent call last):
    ...
    ValueError: f returned an invalid value: f contains 1 non-finite value(s) (NaN or inf)
    """
    try:
        return as_array(value, name)
    except ValueError as exc:
        raise ValueError(f"{name} {what} an invalid value: {exc}") from None


def choice(value, name, options):
    """Check that ``value`` is one of ``options`` (compared by type and value, never elementwise).

    Examples
    --------
    >>> choice("down", "assembly", ("down", "up"))
    'down'
    >>> choice("low", "assembly", ("down", "up"))
    Traceback (most recent call last):
    ...
    ValueError: assembly must be one of 'down', 'up'; got 'low'
    """
    ok = False
    for o in options:
        if isinstance(value, type(o)) and not (isinstance(value, bool) and not isinstance(o, bool)):
            try:
                ok = bool(value == o)
            except (TypeError, ValueError):
                ok = False
            if ok:
                break
    if not ok:
        opts = ", ".join(repr(o) for o in options)
        raise ValueError(f"{name} must be one of {opts}; got {_describe(value)}")
    return value


def on_unreachable_mode(value):
    """Validate the ``on_unreachable`` keyword ("raise" or "nan")."""
    return choice(value, "on_unreachable", ("raise", "nan"))


def broadcast(arrays, names):
    """``numpy.broadcast_arrays`` with a ValueError naming the arguments when their shapes do not broadcast.

    Examples
    --------
    >>> broadcast([np.zeros((3, 2)), np.zeros((4, 2))], ("q", "qd"))
    Traceback (most recent call last):
    ...
    ValueError: q and qd must broadcast together, got shapes (3, 2) and (4, 2)
    """
    try:
        return np.broadcast_arrays(*arrays)
    except ValueError:
        shapes = " and ".join(str(np.shape(a)) for a in arrays)
        raise ValueError(f"{' and '.join(names)} must broadcast together, got shapes {shapes}") from None


def callback_output(value, name, shape, *, t=None):
    """Check what a user callback returned (inside a simulation): real, finite, bounded, of ``shape``.

    Parameters
    ----------
    value : object
        The callback's return value.
    name : str
        The callback's name, for the message.
    shape : tuple of int
        Required shape (``()`` for a scalar).
    t : float, optional
        Time of the call, for the message.

    Examples
    --------
    >>> callback_output(2.0, "push", ())
    array(2.)
    >>> callback_output(float("nan"), "push", (), t=0.5)
    Traceback (most recent call last):
    ...
    ValueError: push(t=0.5) returned an invalid value: push contains 1 non-finite value(s) (NaN or inf)
    """
    at = f"(t={t:g})" if t is not None else ""
    try:
        a = as_array(value, name)
    except ValueError as exc:
        raise ValueError(f"{name}{at} returned an invalid value: {exc}") from None
    if a.shape != tuple(shape):
        raise ValueError(f"{name}{at} must return shape {tuple(shape)}, got shape {a.shape}")
    return a


class _Budget(Exception):
    def __init__(self, t):
        self.t = t


class _NonFinite(Exception):
    def __init__(self, t):
        self.t = t


def solve_ivp_guarded(rhs, t_span, y0, *, name, max_nfev, **kwargs):
    """``scipy.integrate.solve_ivp`` that cannot hang and never returns a silently broken solution.

    The right-hand side is counted and checked on every call: more than ``max_nfev``
    evaluations, a non-finite derivative or a solver failure raise
    :class:`~robokin.errors.IntegrationError`. (A NaN derivative at the first step makes
    RK45's initial step size NaN, and the solver then loops forever.)

    Examples
    --------
    >>> sol = solve_ivp_guarded(lambda t, y: -y, (0.0, 1.0), [1.0], name="decay", max_nfev=1000)
    >>> round(float(sol.y[0, -1]), 3)
    0.368
    >>> solve_ivp_guarded(lambda t, y: [float("nan")], (0.0, 1.0), [1.0], name="bad", max_nfev=1000)
    Traceback (most recent call last):
    ...
    robokin.errors.IntegrationError: bad: the state or its derivative is not finite (NaN or inf): stopped at t = 0 s of 1 s after 1 right-hand-side evaluations
    """
    from scipy.integrate import solve_ivp

    from .errors import IntegrationError

    count = [0]
    caller = np.geterr()

    def f(t, y):
        count[0] += 1
        if count[0] > max_nfev:
            raise _Budget(t)
        if not np.all(np.isfinite(y)):  # the solver itself produced it (a collapsed or overflowing step)
            raise _NonFinite(t)
        with np.errstate(**caller):  # the model's own arithmetic keeps the caller's warnings
            out = rhs(t, y)
        if not np.all(np.isfinite(out)):
            raise _NonFinite(t)
        return out

    t_end = float(t_span[1])
    try:
        # scipy's error norm overflows or divides 0/0 (RuntimeWarnings) when atol is tiny; the step then collapses and the
        # failure is reported below as IntegrationError
        with np.errstate(all="ignore"):
            sol = solve_ivp(f, t_span, y0, **kwargs)
    except _Budget as e:
        raise IntegrationError(
            e.t,
            t_end,
            count[0] - 1,
            f"{name}: right-hand-side budget max_nfev={max_nfev} exhausted (stiff or "
            "diverging model; shorten t_end, loosen rtol or raise max_nfev)",
        ) from None
    except _NonFinite as e:
        raise IntegrationError(
            e.t, t_end, count[0], f"{name}: the state or its derivative is not finite (NaN or inf)"
        ) from None
    if not sol.success:
        t_reached = np.asarray(sol.t, dtype=float).ravel()  # a list when scipy fails with t_eval given
        raise IntegrationError(
            float(t_reached[-1]) if t_reached.size else float(t_span[0]),
            t_end,
            count[0],
            f"{name}: solve_ivp failed ({sol.message})",
        )
    return sol


#: solve_ivp's own floor on rtol (100 machine epsilons): below it scipy warns and raises rtol itself.
MIN_RTOL = 100 * np.finfo(float).eps
#: Largest rtol and atol accepted: looser tolerances let the step grow without bound (no accuracy at all).
MAX_RTOL = 0.1
MAX_ATOL = 1.0


def ivp_options(rtol, atol, method, *, methods=("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")):
    """Validated ``(rtol, atol, method)`` for :func:`solve_ivp_guarded`.

    ``rtol`` must lie in ``[100 eps, 0.1]`` and ``atol`` in ``(0, 1]`` (state units): outside, solve_ivp either
    warns and changes the tolerance itself or takes steps so large that the result has no accuracy. A tiny ``atol``
    is legal; if the solver then cannot meet it, :func:`solve_ivp_guarded` raises IntegrationError.

    Examples
    --------
    >>> ivp_options(1e-10, 1e-12, "DOP853")
    (1e-10, 1e-12, 'DOP853')
    >>> ivp_options(1e-10, 1e13, "DOP853")
    Traceback (most recent call last):
    ...
    ValueError: atol must be at most 1 (a larger value makes the result meaningless), got 10000000000000.0
    """
    rtol = tolerance(rtol, "rtol", min=MIN_RTOL, max=MAX_RTOL)
    atol = tolerance(atol, "atol", max=MAX_ATOL)
    return rtol, atol, choice(method, "method", methods)


def check_inertias(inertias, name="inertias", *, rtol=1e-9):
    """Reject inertia tensors that no rigid body can have.

    A body's inertia tensor about its centre of mass is symmetric positive
    semi-definite and its principal moments obey the triangle inequality
    ``I_a + I_b >= I_c`` (equality: a flat body). Zero tensors (point masses) pass.

    Parameters
    ----------
    inertias : array_like, shape (..., 3, 3)
        Inertia tensors, kg m^2.
    name : str
        Argument name for messages.
    rtol : float
        Slack relative to the trace, for round-off.

    Returns
    -------
    ndarray, shape (..., 3, 3)

    Raises
    ------
    ValueError
        Naming the first offending tensor and its principal moments.

    Examples
    --------
    >>> check_inertias(np.diag([0.1, 0.1, 0.15])).shape
    (3, 3)
    >>> check_inertias(np.diag([0.1, 0.1, 0.3]))
    Traceback (most recent call last):
    ...
    ValueError: inertias[0]: principal moments [0.1, 0.1, 0.3] kg m^2 violate the triangle inequality I_a + I_b >= I_c: no rigid body has this inertia
    """
    I = as_array(inertias, name, trailing=(3, 3))
    if not np.allclose(I, np.swapaxes(I, -1, -2), atol=1e-12, rtol=1e-9):
        raise ValueError(f"{name} must be symmetric 3x3 matrices")
    lam = np.linalg.eigvalsh(I.reshape(-1, 3, 3))
    slack = rtol * np.abs(lam).sum(axis=-1)
    neg = lam[:, 0] < -slack
    tri = lam[:, 0] + lam[:, 1] < lam[:, 2] - slack
    for bad, why in (
        (neg, "has a negative principal moment (not positive semi-definite)"),
        (tri, "violate the triangle inequality I_a + I_b >= I_c: no rigid body has this inertia"),
    ):
        if np.any(bad):
            k = int(np.argmax(bad))
            moments = "[" + ", ".join(f"{v:.6g}" for v in lam[k]) + "]"
            raise ValueError(f"{name}[{k}]: principal moments {moments} kg m^2 {why}")
    return I
