"""Tests for robokin.errors and the shared input validation."""

import numpy as np
import pytest

from robokin import _validate as v
from robokin.errors import ConvergenceError, SingularityWarning, UnreachableError


def test_unreachable_error_message_names_count_and_first():
    e = UnreachableError(3, [0.5, -0.2], total=7, reason="distance > l1 + l2")
    msg = str(e)
    assert "3 of 7" in msg and "0.5" in msg and "-0.2" in msg and "l1 + l2" in msg and 'on_unreachable="nan"' in msg
    assert isinstance(e, ValueError) and e.count == 3


def test_warning_and_convergence_error_types():
    assert issubclass(SingularityWarning, RuntimeWarning)
    with pytest.warns(SingularityWarning, match="condition number 1e"):
        import warnings

        warnings.warn(SingularityWarning(1e10, "test"), stacklevel=1)
    e = ConvergenceError(0.1, 12, "solver")
    assert isinstance(e, RuntimeError) and e.iterations == 12 and "12 iterations" in str(e)


def test_as_array():
    assert v.as_array([[1, 2, 3]], "p", trailing=(3,)).shape == (1, 3)
    assert v.as_array(np.zeros((2, 5)), "q", trailing=(None,)).shape == (2, 5)
    with pytest.raises(ValueError, match=r"\(\.\.\., 3\)"):
        v.as_array(np.zeros((3, 2)), "p", trailing=(3,))
    with pytest.raises(ValueError, match="non-finite"):
        v.as_array([1, np.nan], "p")
    assert np.isnan(v.as_array([np.nan], "p", finite=False)).all()
    with pytest.raises(ValueError, match="numeric"):
        v.as_array({"a": 1}, "p")


@pytest.mark.parametrize("bad", [0, -1.0, np.nan, np.inf, "1", None, True])
def test_positive_rejects(bad):
    with pytest.raises(ValueError, match="positive"):
        v.positive(bad, "l1")


def test_choice_and_modes():
    assert v.on_unreachable_mode("nan") == "nan"
    with pytest.raises(ValueError, match="on_unreachable"):
        v.on_unreachable_mode("ignore")
    with pytest.raises(ValueError, match="finite"):
        v.finite_scalar(np.nan, "d")
