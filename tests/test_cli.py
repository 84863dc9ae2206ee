"""The command line's own logic (robokin.cli), in-process; tests/test_reports.py runs it end to end."""

import pytest

from robokin import cli, params


def test_an_unknown_family_is_a_usage_error_before_anything_runs(tmp_path, capsys):
    """ind2-cli-family-check: a family without a report is exit status 2 with the list of families, not a
    traceback from inside the parameter reader, and no output directory is made."""
    out = tmp_path / "out"
    assert cli.report("bogus", str(params.EXAMPLES / "fivebar_ch03.toml"), str(out), progress=False) == 2
    err = capsys.readouterr().err
    assert "family must be one of" in err and "'bogus'" in err and "fivebar" in err
    assert not out.exists()


def test_a_bad_parameter_file_is_exit_status_2(tmp_path, capsys):
    """ind2-cli-bad-file-status: 2 means bad input (1 is reserved for a design whose checks fail)."""
    bad = tmp_path / "leg.toml"
    bad.write_text('family = "fivebar"\n[linkage]\nl1_m = 0.06\n')
    assert cli.main(["report", "fivebar", str(bad), "-o", str(tmp_path / "x"), "--no-progress"]) == 2
    assert "linkage.l2_m" in capsys.readouterr().err


@pytest.mark.parametrize("argv, passed", [(["validate"], []), (["validate", "--fast"], ["--fast"]), ([], [])])
def test_validate_word_is_the_validation_report(monkeypatch, argv, passed):
    """ind2-cli-validate-word: `python -m robokin validate [options]` runs the validation report with the options
    (the word itself is not passed on as an option)."""
    from robokin import report

    seen = []
    monkeypatch.setattr(report, "main", lambda argv=None: seen.append(argv) or 0)
    assert cli.main(argv) == 0 and seen == [passed]
