"""robokin.nb.glue refuses a key glued twice in one notebook cell (myst-nb's strict build rejects duplicates)."""

import pytest

from robokin import nb


class _Shell:
    """Stands in for IPython's shell: only the execution count of the running cell matters."""

    def __init__(self):
        self.execution_count = 1
        self.displayhook = self  # glued() asks the display hook whether the cell output is silenced

    def quiet(self):
        return False


@pytest.fixture
def shell(monkeypatch):
    import IPython

    sh = _Shell()
    monkeypatch.setattr(IPython, "get_ipython", lambda: sh)
    monkeypatch.setattr(nb, "_CELL_GLUES", {"count": None, "names": set()})
    return sh


def test_twice_in_one_cell_raises(shell):
    nb.glue("t_once", 1.0, display=False)
    with pytest.raises(ValueError, match="'t_once' is glued twice in one cell"):
        nb.glue("t_once", 2.0, display=False)


def test_again_in_the_next_cell_is_allowed(shell):
    # re-running a cell (or gluing in the next one) is a new execution count: JupyterLab users re-run cells
    nb.glue("t_rerun", 1.0, display=False)
    shell.execution_count = 2
    nb.glue("t_rerun", 2.0, display=False)
    assert nb.glued("t_rerun") == "2.0"


def test_distinct_keys_in_one_cell(shell):
    for k in range(3):
        nb.glue(f"t_key_{k}", k, display=False)
    assert [nb.glued(f"t_key_{k}") for k in range(3)] == ["0", "1", "2"]


def test_outside_ipython_no_check(monkeypatch):
    import IPython

    monkeypatch.setattr(IPython, "get_ipython", lambda: None)
    nb.glue("t_plain", 1, display=False)
    nb.glue("t_plain", 2, display=False)  # a script or doctest: no cell, nothing to check
    assert nb.glued("t_plain") == "2"


@pytest.mark.parametrize("display", [False, True])
@pytest.mark.parametrize("value", [1.25e-12, 500, "text", [1.0, 2.0], {"a": 1}])
def test_the_glue_output_is_myst_nbs(monkeypatch, display, value):
    # robokin.nb writes myst-nb's glue output itself (importing myst_nb costs a kernel a second): the bundle and
    # metadata must be the ones myst_nb.glue writes. Trips on a changed prefix, a missing scrapbook entry, or
    # a changed wire format in a new myst-nb.
    import IPython.display
    import myst_nb.ext.glue as mg

    calls = []
    record = lambda *a, **kw: calls.append((a, kw))  # noqa: E731
    monkeypatch.setattr(mg, "ipy_display", record)
    monkeypatch.setattr(IPython.display, "display", record)
    mg.glue("k", value, display=display)
    nb._myst_glue("k", value, display=display)
    assert len(calls) == 2 and calls[0] == calls[1]
    bundle = calls[0][0][0]
    assert all(k.startswith(mg.GLUE_PREFIX) != display for k in bundle)  # hidden values carry the prefix
    assert nb._GLUE_PREFIX == mg.GLUE_PREFIX


def test_cell_times_are_logged_only_when_asked(tmp_path, monkeypatch):
    # ROBOKIN_CELL_LOG: setup() makes the kernel append one line per cell (pid, end time, seconds, first line);
    # without the variable nothing is registered. Trips if the hook is not registered, logs twice after a second
    # setup(), or logs without the variable.
    import matplotlib as mpl
    import numpy as np
    from IPython.core.interactiveshell import InteractiveShell

    sh = InteractiveShell.instance()
    log = tmp_path / "cells.tsv"
    monkeypatch.delenv("ROBOKIN_CELL_LOG", raising=False)
    with np.printoptions(), mpl.rc_context():  # setup() sets both globally: later doctests print with the defaults
        sh.run_cell("from robokin.nb import setup; setup(1)")
        sh.run_cell("x = 1")
        assert not log.exists()
        monkeypatch.setenv("ROBOKIN_CELL_LOG", str(log))
        sh.run_cell("setup(1)")
        sh.run_cell("setup(2)  # again: still one hook")
        sh.run_cell("# a slow cell\nimport time; time.sleep(0.05)")
    rows = [r.split("\t") for r in log.read_text(encoding="utf-8").splitlines()]
    assert [r[3] for r in rows] == ["setup(2)  # again: still one hook", "# a slow cell"]
    assert float(rows[1][2]) >= 0.05 and all(int(r[0]) > 0 for r in rows)
    for event in ("pre_run_cell", "post_run_cell"):  # leave the shared shell as it was
        for cb in [c for c in sh.events.callbacks[event] if "_log_cell_times" in c.__qualname__]:
            sh.events.unregister(event, cb)
    sh._robokin_cell_log = None
