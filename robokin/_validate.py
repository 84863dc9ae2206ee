"""Input validation shared by every module (internal).

Public functions call these at the boundary so that bad input fails with an
actionable ``ValueError`` instead of a NaN or a traceback from inside numpy.
"""

from __future__ import annotations

import numbers

import numpy as np


def as_array(x, name, *, trailing=(), finite=True):
    """Convert ``x`` to a float64 array and check its trailing shape.

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

    Examples
    --------
    >>> as_array([1, 2, 3], "p", trailing=(3,)).dtype
    dtype('float64')
    >>> as_array([1, 2], "p", trailing=(3,))
    Traceback (most recent call last):
    ...
    ValueError: p must have shape (..., 3), got shape (2,)
    """
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array, got {type(x).__name__}") from exc
    k = len(trailing)
    if k:
        ok = a.ndim >= k and all(
            t is None or s == t for s, t in zip(a.shape[a.ndim - k :], trailing)
        )
        if not ok:
            want = ", ".join("n" if t is None else str(t) for t in trailing)
            raise ValueError(f"{name} must have shape (..., {want}), got shape {a.shape}")
    if finite and not np.all(np.isfinite(a)):
        bad = int(np.count_nonzero(~np.isfinite(a)))
        raise ValueError(f"{name} contains {bad} non-finite value(s) (NaN or inf)")
    return a


def positive(value, name):
    """Check a strictly positive finite scalar parameter and return it as float.

    Examples
    --------
    >>> positive(0.2, "l1")
    0.2
    >>> positive(-1, "l1")
    Traceback (most recent call last):
    ...
    ValueError: l1 must be a positive finite number, got -1
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


def finite_scalar(value, name):
    """Check a finite real scalar and return it as float.

    Examples
    --------
    >>> finite_scalar(-0.5, "d")
    -0.5
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def choice(value, name, options):
    """Check that ``value`` is one of ``options``.

    Examples
    --------
    >>> choice("down", "assembly", ("down", "up"))
    'down'
    >>> choice("low", "assembly", ("down", "up"))
    Traceback (most recent call last):
    ...
    ValueError: assembly must be one of 'down', 'up'; got 'low'
    """
    if value not in options:
        opts = ", ".join(repr(o) for o in options)
        raise ValueError(f"{name} must be one of {opts}; got {value!r}")
    return value


def on_unreachable_mode(value):
    """Validate the ``on_unreachable`` keyword ("raise" or "nan")."""
    return choice(value, "on_unreachable", ("raise", "nan"))
