"""Tests for robokin.checks: every check must pass on correct input and fail on wrong input."""

import numpy as np
import pytest

from robokin import checks
from robokin.transforms import rotz


def f(x):
    return np.stack([np.sin(x[..., 0]) * x[..., 1], x[..., 0] ** 2 + x[..., 1] ** 3], axis=-1)


def jac(x):
    J = np.empty(x.shape[:-1] + (2, 2))
    J[..., 0, 0] = np.cos(x[..., 0]) * x[..., 1]
    J[..., 0, 1] = np.sin(x[..., 0])
    J[..., 1, 0] = 2 * x[..., 0]
    J[..., 1, 1] = 3 * x[..., 1] ** 2
    return J


X = np.random.default_rng(0).normal(size=(200, 2))


def test_jacobian_fd_vectorized_and_loop_agree():
    a = checks.jacobian_fd(f, X)
    b = checks.jacobian_fd(lambda x: f(np.asarray(x)), X[:5], vectorized=False)
    assert a.shape == (200, 2, 2)
    np.testing.assert_allclose(a[:5], b, atol=1e-12)
    np.testing.assert_allclose(a, jac(X), atol=1e-8)


def test_check_jacobian_passes_and_catches_a_wrong_jacobian():
    rep = checks.check_jacobian(jac, f, X)
    assert rep.passed and rep.samples == 200 and rep.max_error < 1e-8

    def wrong(x):  # transposed: a classic slip
        return np.swapaxes(jac(x), -1, -2)

    with pytest.raises(checks.CheckFailed) as info:
        checks.check_jacobian(wrong, f, X)
    assert not info.value.report.passed
    assert "FAIL" in str(info.value)


def test_check_errors_nan_is_failure_and_empty_refused():
    rep = checks.check_errors("nan", [0.0, np.nan], tol=1.0, raise_on_fail=False)
    assert not rep.passed and rep.max_error == np.inf and rep.worst == (1,)
    with pytest.raises(ValueError, match="no samples"):
        checks.check_errors("empty", [], tol=1.0)
    with pytest.raises(ValueError, match="tol"):
        checks.check_errors("bad tol", [0.0], tol=np.nan)


def test_check_failed_is_assertion_error():
    assert issubclass(checks.CheckFailed, AssertionError)


def test_residual_scan_and_roundtrip():
    good = checks.residual_scan(np.exp, np.log, np.linspace(1, 3, 30)[:, None], tol=1e-12)
    assert good.passed
    bad = checks.residual_scan(np.exp, lambda p: np.log(p) + 1e-3, np.linspace(1, 3, 30)[:, None], tol=1e-9,
                               raise_on_fail=False)
    assert not bad.passed and bad.max_error > 1e-3
    # an inverse returning (result, mask) is accepted
    rep = checks.residual_scan(np.exp, lambda p: (np.log(p), np.ones(len(p), bool)), np.ones((3, 1)), tol=1e-15)
    assert rep.passed
    rt = checks.fk_ik_roundtrip(np.sin, np.arcsin, np.linspace(-1.5, 1.5, 11)[:, None], tol=1e-12)
    assert rt.passed


def test_check_rigid():
    T = np.eye(4)
    T[:3, :3] = rotz(0.3)
    assert checks.check_rigid(T).passed
    assert checks.check_rigid(np.stack([T, T])).samples == 2
    T[3, 0] = 1e-3
    with pytest.raises(checks.CheckFailed):
        checks.check_rigid(T)
    with pytest.raises(checks.CheckFailed):
        checks.check_rigid(np.diag([1.0, 1.0, -1.0]))
    with pytest.raises(ValueError, match="shape"):
        checks.check_rigid(np.eye(2))


def test_check_close_shapes():
    assert checks.check_close("same", [1, 2], [1, 2], tol=0).passed
    with pytest.raises(ValueError, match="shapes"):
        checks.check_close("bad", [1, 2], [1, 2, 3], tol=0)


@pytest.mark.parametrize(
    "value, expected, hint",
    [
        (-np.ones(3), np.ones(3), "sign"),
        (np.rad2deg(0.3), 0.3, "degrees"),
        (np.arange(4.0).reshape(2, 2).T, np.arange(4.0).reshape(2, 2), "transpose"),
        (np.ones(2), np.ones(3), "shape"),
        ([np.nan], [1.0], "NaN"),
        (2.0, 1.0, "re-check"),
    ],
)
def test_check_answer_diagnoses(value, expected, hint):
    with pytest.raises(AssertionError, match=hint):
        checks.check_answer("x", value, expected)


def test_check_answer_success(capsys):
    assert checks.check_answer("x", [1.0, 2.0], [1.0, 2.0])
    assert "correct" in capsys.readouterr().out
