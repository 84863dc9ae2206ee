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
