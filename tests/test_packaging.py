"""Packaging consistency: environment.yml and pyproject.toml list the same packages; notebooks are clean."""

import json
import re
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def _norm(req):
    return re.sub(r"\s+", "", req).lower().replace("_", "-")


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = set(project["dependencies"])
    for extra in project["optional-dependencies"]:
        wanted |= set(project["optional-dependencies"][extra])
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    listed = {p for p in pip if not p.startswith("-e")}
    assert {_norm(r) for r in listed} == {_norm(r) for r in wanted}, (
        "environment.yml and pyproject.toml disagree: "
        f"only in environment.yml {sorted({_norm(r) for r in listed} - {_norm(r) for r in wanted})}, "
        f"only in pyproject.toml {sorted({_norm(r) for r in wanted} - {_norm(r) for r in listed})}"
    )
    assert "-e ." in pip
    python = [d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python")]
    assert python and python[0].split("=")[-1] >= project["requires-python"].lstrip(">=")


def test_jupyter_book_pinned_below_2():
    book = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["book"]
    jb = [r for r in book if r.startswith("jupyter-book")]
    assert jb and "<2" in jb[0], "jupyter-book 2 (mystmd) cannot build offline; keep jupyter-book<2"


NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_committed_clean_and_in_toc(nb):
    data = json.loads(nb.read_text())
    dirty = [
        i
        for i, c in enumerate(data["cells"])
        if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))
    ]
    assert not dirty, f"{nb.name}: cells {dirty} carry outputs; run nbstripout"
    toc = (ROOT / "_toc.yml").read_text()
    assert f"notebooks/{nb.stem}" in toc, f"{nb.name} is not listed in _toc.yml"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_anatomy(nb):
    """Every chapter has the hidden setup cell, learning objectives, validation, exercises and references."""
    cells = json.loads(nb.read_text())["cells"]
    first_code = next(c for c in cells if c["cell_type"] == "code")
    assert "hide-cell" in first_code.get("metadata", {}).get("tags", []), "first code cell must be the hidden setup"
    assert re.search(r"^from robokin\.nb import [^\n]*\bsetup\b", "".join(first_code["source"]), re.M)
    md = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    for needle in ("Learning objectives", "Validation", "exercise", "solution", "{cite}", '{eval}`glued("'):
        assert needle.lower() in md.lower(), f"{nb.name}: missing {needle!r}"
    assert (
        sum(
            line.startswith("# ")
            for c in cells
            if c["cell_type"] == "markdown"
            for line in "".join(c["source"]).splitlines()
        )
        == 1
    ), "exactly one H1 title per chapter"


HIDING_TAGS = {"hide-cell", "hide-input", "remove-input", "remove-cell"}
_ROBOKIN_IMPORT = re.compile(r"^\s*(from robokin\S* import|import robokin)", re.M)


def robokin_import_problems(cells):
    """Where a chapter hides where its robokin names come from (empty list: the imports are visible)."""
    code = [c for c in cells if c["cell_type"] == "code"]
    problems = []
    setup = "".join(code[0]["source"]) if code else ""
    extra = [ln for ln in setup.splitlines() if _ROBOKIN_IMPORT.match(ln) and "from robokin.nb import" not in ln]
    if extra:
        problems.append(f"the hidden setup cell imports robokin names: {extra}")
    for i, c in enumerate(code[1:], 1):
        tags = set(c.get("metadata", {}).get("tags", []))
        if tags & HIDING_TAGS and _ROBOKIN_IMPORT.search("".join(c["source"])):
            problems.append(f"code cell {i} imports robokin names but is tagged {sorted(tags & HIDING_TAGS)}")
    if len(code) < 2 or not _ROBOKIN_IMPORT.search("".join(code[1]["source"])):
        problems.append("the code cell after the setup is not the visible cell importing the chapter's robokin names")
    return problems


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_robokin_imports_are_visible(nb):
    """A reader sees where every robokin function comes from: a visible import cell right after the setup."""
    assert robokin_import_problems(json.loads(nb.read_text())["cells"]) == []


def test_hidden_robokin_imports_are_caught():
    def cell(src, tags=()):
        return {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": src}

    setup = cell("import numpy as np\nfrom robokin.nb import glue, glued, setup\n", ["hide-cell"])
    good = [setup, cell("from robokin.fivebar import FiveBar\n")]
    assert robokin_import_problems(good) == []
    assert robokin_import_problems([cell(setup["source"] + "from robokin import checks\n", ["hide-cell"]), good[1]])
    assert robokin_import_problems([setup, cell("from robokin.fivebar import FiveBar\n", ["hide-input"])])
    assert robokin_import_problems([setup, cell("x = 1\n"), cell("from robokin import checks\n")])


def _build_wheel(tmp):
    """The wheel of a copy of the source tree (the checkout is left untouched: no build/, no egg-info)."""
    import shutil
    import subprocess
    import sys

    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    for name in ("robokin", "examples", "reports", "firmware"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp / "whl"), str(src)]
    # offline with the environment's setuptools when it can build this pyproject; else pip's isolated build
    for extra in (["--no-build-isolation"], []):
        r = subprocess.run(pip + extra, capture_output=True, text=True, timeout=600)
        if r.returncode == 0:
            return next((tmp / "whl").glob("robokin-*.whl"))
    pytest.skip(f"cannot build the wheel here (no setuptools >= 77 offline, no index): {r.stderr.strip()[-300:]}")


def test_installed_wheel_lists_and_runs_reports_outside_the_checkout(tmp_path):
    """`pip install .` ships examples/, reports/ and firmware/: report --list and a report work from elsewhere."""
    import os
    import subprocess
    import sys
    import sysconfig
    import zipfile

    wheel = _build_wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    data = "robokin-0.1.0.data/data/share/robokin/"
    for folder, pattern in (("examples/robots", "*.toml"), ("reports", "*.ipynb"), ("firmware", "*.c")):
        want = {p.name for p in (ROOT / folder).glob(pattern)}
        got = {n.rsplit("/", 1)[-1] for n in names if n.startswith(data + folder + "/")}
        assert want and want <= got, (folder, sorted(want - got))
    # a fresh venv holding only the wheel; the dependencies come from this environment through a .pth line
    venv = tmp_path / "venv"
    subprocess.run(
        [os.path.join(sys.base_prefix, "bin", "python3"), "-m", "venv", "--without-pip", str(venv)], check=True
    )
    py = venv / "bin" / "python"
    site = subprocess.run(
        [py, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], capture_output=True, text=True, check=True
    ).stdout.strip()
    Path(site, "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "-q", str(wheel)],
        check=True,
        timeout=300,
    )
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = dict(os.environ, PYTHONPATH="", JUPYTER_PATH=str(Path(sys.prefix, "share", "jupyter")), MPLBACKEND="Agg")

    def run(*args):
        return subprocess.run([py, *args], cwd=work, env=env, capture_output=True, text=True, timeout=600)

    r = run("-c", "import robokin, robokin.params as p; print(robokin.__file__); print(p.EXAMPLES)")
    where, examples = r.stdout.split()
    assert where.startswith(str(venv)) and examples.startswith(str(venv / "share" / "robokin")), r.stdout + r.stderr
    r = run("-m", "robokin", "report", "--list")
    assert r.returncode == 0, r.stderr
    for f in (ROOT / "examples" / "robots").glob("*.toml"):
        assert f"examples/robots/{f.name}" in r.stdout
    leg = venv / "share" / "robokin" / "examples" / "robots" / "leg2_ch02.toml"
    r = run("-m", "robokin", "report", "two_link_leg", str(leg), "-o", "out", "--fast", "--no-progress")
    assert r.returncode == 0, r.stdout + r.stderr[-2000:]
    assert (work / "out" / "report.html").stat().st_size > 10_000 and (work / "out" / "checks.csv").is_file()
    r = run("-m", "robokin", "verify", "two_link_leg", str(leg), "--impl", "course", "--fast")
    assert r.returncode == 0 and "[PASS]" in r.stdout, r.stdout + r.stderr
