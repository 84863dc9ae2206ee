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


# ------------------------------------------------------------------ issue 16: complex, text, magnitude
@pytest.mark.parametrize(
    "bad", [[1.0, 2j], np.array([1.0 + 1e-30j]), np.complex128(3.0), 1j, np.array([1.0, 2j], dtype=object)]
)
def test_as_array_rejects_complex_instead_of_dropping_the_imaginary_part(bad):
    with pytest.raises(ValueError, match="must be real, got complex"):
        v.as_array(bad, "p")


@pytest.mark.parametrize(
    "bad",
    [
        "1.5",
        b"1",
        ["1.0", "2.0"],
        None,
        np.array(["a"]),
        np.datetime64("2020"),
        np.array([1.0, "x"], dtype=object),
        [[1.0, 2.0], [3.0]],
    ],
)
def test_as_array_rejects_text_and_non_numbers(bad):
    with pytest.raises(ValueError, match="numeric"):
        v.as_array(bad, "p")


def test_as_array_magnitude_bound_is_1e12_and_exact():
    assert v.MAX_ABS == 1e12
    assert v.as_array([-1e12, 1e12], "p").tolist() == [-1e12, 1e12]  # the bound itself is accepted
    for bad in (np.nextafter(1e12, np.inf), -np.nextafter(1e12, np.inf), 1e300):
        with pytest.raises(ValueError, match=r"1 value\(s\) of magnitude above 1e\+12"):
            v.as_array([0.0, bad], "p")
    # inf allowed by the caller (joint limits) is not a "big" value, but 1e300 still is
    assert np.isinf(v.as_array([-np.inf, 0.0], "lim", finite=False)).sum() == 1
    with pytest.raises(ValueError, match="magnitude above"):
        v.as_array([np.inf, 1e300], "lim", finite=False)
    assert v.as_array([1e300], "p", max_abs=None)[0] == 1e300
    assert v.as_array([3.0], "p", max_abs=2.0 + 1.0)[0] == 3.0
    with pytest.raises(ValueError, match="magnitude above 2"):
        v.as_array([-3.0], "p", max_abs=2.0)
    assert v.as_array(np.zeros((0, 3)), "p", trailing=(3,)).shape == (0, 3)


def test_as_array_counts_every_bad_value():
    with pytest.raises(ValueError, match=r"contains 2 non-finite"):
        v.as_array([np.nan, 1.0, np.inf], "p")
    with pytest.raises(ValueError, match=r"has 2 value\(s\) .* \(largest 3e\+13\)"):
        v.as_array([2e13, 1.0, -3e13], "p")


@pytest.mark.parametrize("fn", [v.positive, v.finite_scalar])
def test_scalars_reject_complex_text_and_huge(fn):
    with pytest.raises(ValueError, match="complex"):
        fn(1 + 0j, "x")
    with pytest.raises(ValueError, match="str"):
        fn("1.0", "x")
    with pytest.raises(ValueError, match="at most 1e\\+12"):
        fn(1e13, "x")
    assert fn(1e12, "x") == 1e12
    assert fn(1e50, "x", max_abs=v.MAX_THRESHOLD) == 1e50
    assert fn(2, "x") == 2.0 and isinstance(fn(np.float32(2), "x"), float)


def test_finite_scalar_bound_is_on_the_magnitude():
    assert v.finite_scalar(-1e12, "x") == -1e12
    with pytest.raises(ValueError, match="magnitude at most"):
        v.finite_scalar(-1e13, "x")
    assert v.MAX_THRESHOLD == 1e100


@pytest.mark.parametrize("bad", [2.0, True, -1, "3", None, 1e300, 3 + 0j])
def test_integer_rejects(bad):
    with pytest.raises(ValueError, match=r"integer >= 0"):
        v.integer(bad, "n")


def test_integer_accepts_numpy_ints_and_minimum():
    assert v.integer(np.int64(5), "n") == 5 and type(v.integer(np.int64(5), "n")) is int
    assert v.integer(0, "n") == 0
    with pytest.raises(ValueError, match=">= 1"):
        v.integer(0, "n", minimum=1)


@pytest.mark.parametrize("bad", [np.array(["down", "up"]), ["down"], 1, None, b"down", True])
def test_choice_rejects_without_elementwise_comparison(bad):
    with pytest.raises(ValueError, match="assembly must be one of 'down', 'up'"):
        v.choice(bad, "assembly", ("down", "up"))


def test_choice_keeps_types_apart():
    assert v.choice(np.str_("up"), "a", ("down", "up")) == "up"
    with pytest.raises(ValueError):
        v.choice(True, "k", (1, -1))  # a bool is not the integer 1 here
    assert v.choice(-1, "k", (1, -1)) == -1


def test_callback_output():
    assert v.callback_output([1.0, 2.0], "f", (2,)).tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match=r"f\(t=0.25\) must return shape \(2,\), got shape \(3,\)"):
        v.callback_output([1.0, 2.0, 3.0], "f", (2,), t=0.25)
    with pytest.raises(ValueError, match=r"f\(t=1\) returned an invalid value: .*non-finite"):
        v.callback_output([np.nan, 2.0], "f", (2,), t=1.0)
    with pytest.raises(ValueError, match="complex"):
        v.callback_output(1j, "f", ())
    with pytest.raises(ValueError, match="numeric"):
        v.callback_output(None, "f", ())


# ------------------------------------------------------------------ guarded integration
def test_solve_ivp_guarded_budget_stops_a_diverging_model_fast():
    import time

    from robokin.errors import IntegrationError

    t0 = time.perf_counter()
    with pytest.raises(IntegrationError, match=r"budget max_nfev=500 exhausted") as ei:
        v.solve_ivp_guarded(
            lambda t, y: [1e8 * np.sin(1e6 * t)], (0.0, 10.0), [0.0], name="stiff", max_nfev=500, rtol=1e-12, atol=1e-12
        )
    assert time.perf_counter() - t0 < 5.0
    assert ei.value.nfev == 500 and 0 <= ei.value.t < 10.0 and ei.value.t_end == 10.0
    assert isinstance(ei.value, RuntimeError)


def test_solve_ivp_guarded_nan_derivative_fails_instead_of_hanging():
    from robokin.errors import IntegrationError

    with pytest.raises(IntegrationError, match="not finite") as ei:
        v.solve_ivp_guarded(lambda t, y: [np.nan if t > 0.5 else -y[0]], (0.0, 1.0), [1.0], name="n", max_nfev=10_000)
    assert ei.value.t > 0.5


def test_solve_ivp_guarded_reports_solver_failure():
    from robokin.errors import IntegrationError

    # finite-time blow-up y' = y^2 from y(0) = 1 at t = 1: the step size collapses
    with pytest.raises(IntegrationError, match="solve_ivp failed"):
        v.solve_ivp_guarded(lambda t, y: y**2, (0.0, 2.0), [1.0], name="blowup", max_nfev=10**6, rtol=1e-10)


def test_solve_ivp_guarded_counts_exactly_the_budget():
    calls = []
    sol = v.solve_ivp_guarded(lambda t, y: calls.append(t) or -y, (0.0, 1.0), [1.0], name="ok", max_nfev=10**4)
    n = len(calls)
    assert sol.success and abs(sol.y[0, -1] - np.exp(-1)) < 1e-3
    calls.clear()
    v.solve_ivp_guarded(lambda t, y: calls.append(t) or -y, (0.0, 1.0), [1.0], name="ok", max_nfev=n)
    from robokin.errors import IntegrationError

    with pytest.raises(IntegrationError):
        v.solve_ivp_guarded(lambda t, y: -y, (0.0, 1.0), [1.0], name="ok", max_nfev=n - 1)


def test_new_error_types():
    from robokin.errors import IntegrationError, SingularityError

    e = SingularityError(np.inf, "M")
    assert isinstance(e, ValueError) and e.cond == np.inf and str(e) == "M: singular matrix (condition number inf)"
    assert str(SingularityError(2.5e13)) == "singular matrix (condition number 2.5e+13)"
    e = IntegrationError(0.5, 2.0, 7)
    assert isinstance(e, RuntimeError) and (e.t, e.t_end, e.nfev) == (0.5, 2.0, 7)
    assert str(e) == "stopped at t = 0.5 s of 2 s after 7 right-hand-side evaluations"


# ------------------------------------------------------------------ issue 29: one validator per kind
@pytest.mark.parametrize("bad", [np.nan, np.inf, -1.0, 0.0, 1j, "1e-9", None, True, np.array([1e-9]), 10**400])
def test_tolerance_refuses_with_the_argument_name(bad):
    with pytest.raises(ValueError, match="^tol "):
        v.tolerance(bad, "tol")


def test_tolerance_bounds_and_float32_become_python_floats():
    out = v.tolerance(np.float32(1e-9), "tol")
    assert type(out) is float and out == float(np.float32(1e-9))
    assert v.tolerance(0.0, "tol", allow_zero=True) == 0.0
    with pytest.raises(ValueError, match="at most 0.1"):
        v.tolerance(0.2, "tol", max=0.1)
    with pytest.raises(ValueError, match="at least 1e-06"):
        v.tolerance(1e-7, "eps", min=1e-6)


def test_count_caps_time_and_memory():
    assert v.count(np.int64(7), "n") == 7 and type(v.count(np.int64(7), "n")) is int
    for bad in (0, 2.0, True, "3", None, 10**30):
        with pytest.raises(ValueError, match="^n must"):
            v.count(bad, "n")
    assert v.count(0, "n", minimum=0) == 0


def test_flag_text_function_generator():
    assert v.flag(np.bool_(False), "quiet") is False
    for bad in (0, 1, "yes", None, np.array([True])):
        with pytest.raises(ValueError, match="quiet"):
            v.flag(bad, "quiet")
    with pytest.raises(ValueError, match="name must be a string"):
        v.text(np.nan, "name")
    with pytest.raises(ValueError, match="f must be a callable"):
        v.function(float, "f")
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        v.generator(np.random.RandomState(0), "rng")


def test_huge_python_int_is_a_value_error_not_a_type_error():
    # np.isfinite(10**30) raises TypeError inside numpy; the validators convert first
    with pytest.raises(ValueError, match="l1"):
        v.positive(10**400, "l1")
    with pytest.raises(ValueError, match="magnitude at most"):
        v.finite_scalar(10**30, "d")


def test_bool_message_does_not_call_it_complex():
    with pytest.raises(ValueError, match="got bool True"):
        v.finite_scalar(True, "duty")


def test_ivp_options_bounds():
    assert v.ivp_options(1e-10, 1e-300, "RK45") == (1e-10, 1e-300, "RK45")  # tiny atol: IntegrationError later
    for kw, name in ((dict(rtol=1e-16), "rtol"), (dict(atol=1e13), "atol"), (dict(atol=-1.0), "atol")):
        args = dict(rtol=1e-10, atol=1e-10, method="RK45") | kw
        with pytest.raises(ValueError, match=name):
            v.ivp_options(args["rtol"], args["atol"], args["method"])
    with pytest.raises(ValueError, match="method"):
        v.ivp_options(1e-10, 1e-10, "Euler")


def test_guard_failure_path_with_t_eval_raises_integration_error():
    # scipy returns sol.t as a list when it fails with t_eval given; the guard used to crash with AttributeError
    # (issue 29's example: the arm's error norm overflows with atol=1e-300 and the step collapses)
    from robokin.dynamics import TwoLinkArm, energy_drift
    from robokin.errors import IntegrationError

    arm = TwoLinkArm(m1=1.2, m2=0.8, l1=0.5, l2=0.4, lc1=0.22, lc2=0.17, I1=0.03, I2=0.012)
    with pytest.raises(IntegrationError, match="energy_drift: solve_ivp failed") as e:
        energy_drift(arm, [0.3, 0.5], [0, 1], t_end=0.2, rtol=1e-10, atol=1e-300)
    assert e.value.t == 0.0 and e.value.t_end == 0.2


def test_guard_keeps_the_callers_warnings_for_the_model():
    # the solver's own arithmetic is silenced (tiny atol overflows its error norm), the model's is not
    with pytest.raises(RuntimeWarning):
        v.solve_ivp_guarded(
            lambda t, y: np.array([1.0]) / np.array([0.0]) * 0 + [1.0], (0.0, 1.0), [0.0], name="m", max_nfev=100
        )


def test_broadcast_names_the_arguments():
    with pytest.raises(ValueError, match="q and qd must broadcast"):
        v.broadcast([np.zeros((3, 2)), np.zeros((4, 2))], ("q", "qd"))


# ---- independent mutants (issue 29, tools/mutations_independent.py) ----------------------------------------------
def test_ivp_options_refuse_tolerances_without_accuracy():
    """ind-va-max-rtol: rtol above 0.1 (a 50 % relative error per step, say) is refused; 0.1 itself is allowed."""
    assert v.ivp_options(0.1, 1e-9, "RK45") == (0.1, 1e-9, "RK45")
    for bad in (0.5, 1.0, 5.0):
        with pytest.raises(ValueError, match="rtol"):
            v.ivp_options(bad, 1e-9, "RK45")


def test_counts_refuse_booleans():
    """ind-va-integer-bool: True is not a count (a flag passed in the wrong slot), though bool subclasses int."""
    assert v.integer(1, "n") == 1 and v.count(np.int64(2), "n") == 2
    for bad in (True, False, np.bool_(True)):
        with pytest.raises(ValueError, match="n must be an integer"):
            v.integer(bad, "n")
    with pytest.raises(ValueError, match="max_iter"):
        v.count(True, "max_iter")


def test_ivp_options_bounds_both_tolerances():
    """ind2-va-tol-min, -min-rtol, -max-atol: rtol below scipy's own floor of 100 eps (2.2e-14; scipy would warn and
    change it) and atol above 1 (no accuracy) are refused; the bounds themselves are accepted."""
    lo = 100 * np.finfo(float).eps
    assert v.ivp_options(lo, 1.0, "RK45") == (lo, 1.0, "RK45")
    for rtol in (1e-14, 1e-15, 1e-17):
        with pytest.raises(ValueError, match="rtol must be at least"):
            v.ivp_options(rtol, 1e-9, "RK45")
    for atol in (10.0, 100.0):
        with pytest.raises(ValueError, match="atol must be at most 1"):
            v.ivp_options(1e-6, atol, "RK45")


def test_tolerances_are_positive_unless_zero_is_allowed():
    """ind2-va-tol-zero: a zero tolerance or step is refused (a check that only exact equality passes, a step that
    goes nowhere) unless the caller allows it."""
    with pytest.raises(ValueError, match="eps must be a finite positive number"):
        v.tolerance(0.0, "eps")
    assert v.tolerance(0.0, "tol", allow_zero=True) == 0.0


def test_condition_thresholds_are_capped_at_float64_singularity():
    """ind2-va-max-cond: a condition-number threshold above 1e16 (beyond 1 / eps every matrix counts as invertible)
    is refused where the package takes one."""
    from robokin.robots import STEWART

    pose, rates = [0.0, 0.0, 0.5, 0.0, 0.0, 0.0], np.zeros(6)
    STEWART.twist_from_leg_rates(pose, rates, warn_cond=1e16)
    for bad in (1e17, 1e19):
        with pytest.raises(ValueError, match="warn_cond"):
            STEWART.twist_from_leg_rates(pose, rates, warn_cond=bad)


def test_check_inertias_accepts_flat_bodies_and_refuses_impossible_ones():
    """ind2-va-flat-body: a flat body (a plate: I_a + I_b = I_c exactly) is a rigid body; 1 % beyond is not."""
    plate = np.diag([0.1, 0.2, 0.3])
    np.testing.assert_array_equal(v.check_inertias(plate), plate)
    R = np.linalg.qr(np.random.default_rng(4).normal(size=(3, 3)))[0]
    v.check_inertias(R @ plate @ R.T)  # in any orientation (round-off within the slack)
    with pytest.raises(ValueError, match="triangle inequality"):
        v.check_inertias(np.diag([0.1, 0.2, 0.303]))
