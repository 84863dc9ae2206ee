"""The validation report runs every module's checks and fails loudly."""

import types

import numpy as np
import pytest

from robokin import checks, report


def test_foundation_checks_pass_and_table_formats(capsys):
    rows = report.collect(fast=True, only=["transforms"])
    found = [r for r in rows if r["mechanism"] == "Spatial foundations"]
    assert len(found) >= 5 and all(r["passed"] for r in found)
    md = report.format_table(found, markdown=True)
    assert md.count("\n") == len(found) + 1 and "| yes |" in md


def _fake_module(reports=None, exc=None):
    def validate(*, rng=None, fast=False):
        if exc:
            raise exc
        return reports

    return types.SimpleNamespace(validate=validate, LABEL="Fake mechanism")


@pytest.fixture
def only_fake(monkeypatch):
    def install(mod):
        monkeypatch.setattr(report, "MODULES", ("fake",))
        monkeypatch.setattr(report.importlib, "import_module", lambda name: mod)

    return install


def test_failing_check_gives_nonzero_exit(only_fake, capsys):
    bad = checks.check_errors("wrong Jacobian", [1e-2], tol=1e-6, raise_on_fail=False)
    only_fake(_fake_module([bad]))
    assert report.main(["--fast"]) == 1
    out = capsys.readouterr().out
    assert "wrong Jacobian" in out and "NO" in out and "0 passed, 1 failed" in out


def test_crashing_validate_is_reported_as_failure(only_fake, capsys):
    only_fake(_fake_module(exc=RuntimeError("boom")))
    assert report.main([]) == 1
    assert "validate() raised RuntimeError: boom" in capsys.readouterr().out


def test_passing_checks_exit_zero(only_fake, capsys):
    good = checks.check_errors("fine", np.zeros(3), tol=1e-9, raise_on_fail=False)
    only_fake(_fake_module([good]))
    assert report.main(["--markdown"]) == 0
    assert "| Fake mechanism | fine | 3 |" in capsys.readouterr().out


def test_unknown_module_name_is_refused():
    with pytest.raises(ValueError, match="no validation module named"):
        report.collect(only=["nonexistent"])


def test_every_mechanism_module_has_a_validation_module():
    import importlib
    import pkgutil

    from robokin import validation

    found = {m.name for m in pkgutil.iter_modules(validation.__path__)}
    assert found == set(report.MODULES)
    for name in report.MODULES:
        mod = importlib.import_module(f"robokin.validation.{name}")
        assert callable(mod.validate) and mod.LABEL
    # no mechanism module keeps a validate() of its own: checks live above the mechanisms
    kept = [n for n in report.MODULES if hasattr(importlib.import_module(f"robokin.{n}"), "validate")]
    assert kept == [], f"validate() still defined in robokin.{kept}"
