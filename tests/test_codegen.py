"""Status codes of the generated C (robokin.codegen) at the edges tests/test_firmware.py does not sample:
parameters on the boundary of their domain and outputs that overflow."""

from __future__ import annotations

import numpy as np
import pytest

from robokin.codegen.host import CODES, HostLibrary, build, compiler

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler (install gcc) for the generated C library")

LEGP = {"l1": 0.21, "l2": 0.19}
FBP = {"l1": 0.10, "l2": 0.09, "l3": 0.12, "l4": 0.13, "d": 0.08}


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return HostLibrary(build(tmp_path_factory.mktemp("codegen")))


@pytest.mark.parametrize("prec", ["d", "f"])
@pytest.mark.parametrize("field", ["l1", "l2", "l3", "l4", "d"])
def test_a_zero_length_parameter_is_a_bad_argument(lib, prec, field):
    """ind2-cg-positive-param: lengths must be > 0; a zero link is refused like a negative one, nothing written."""
    q = [[0.5, 2.5]]
    (E,), st = lib.call("fivebar_fk", prec, FBP, [q], 0)
    assert st[0] == CODES["RK_OK"] and np.isfinite(E).all()
    (E,), st = lib.call("fivebar_fk", prec, {**FBP, field: 0.0}, [q], 0)
    assert st[0] == CODES["RK_BAD_ARGUMENT"] and np.isnan(E).all()


@pytest.mark.parametrize("prec, big", [("d", 1e308), ("f", 3e38)])
def test_an_overflowing_output_is_reported_and_not_written(lib, prec, big):
    """ind2-cg-nonfinite-output: legal (finite, positive) links whose foot position overflows return
    RK_NONFINITE_OUTPUT and leave the output untouched, never an inf with RK_OK."""
    (p,), st = lib.call("leg2_fk", prec, {"l1": big, "l2": big}, [[[0.3, 0.0]]])
    assert st[0] == CODES["RK_NONFINITE_OUTPUT"] and np.isnan(p).all()
    (p,), st = lib.call("leg2_fk", prec, {"l1": big / 4, "l2": big / 4}, [[[0.3, 0.0]]])
    assert st[0] == CODES["RK_OK"] and np.isfinite(p).all()
