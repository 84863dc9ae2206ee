"""Publishing: the Pages workflow is well formed and `make publish` pushes the site to a gh-pages branch."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_pages_workflow_builds_strictly_and_deploys():
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text())
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads the key `on` as True
    assert on["push"]["branches"] == ["main"]
    build = wf["jobs"]["build"]
    runs = [step.get("run", "") for step in build["steps"]]
    # the workflow runs exactly what local CI runs, and .ci/run stops at the first failure
    assert any(r.strip() == "bash .ci/run" for r in runs), runs
    ci = (ROOT / ".ci" / "run").read_text()
    assert "set -euo pipefail" in ci
    assert "make test" in ci and "make check-site" in ci  # check-site builds the book strictly first
    uses = [step.get("uses", "") for job in wf["jobs"].values() for step in job["steps"]]
    assert any(u.startswith("actions/upload-pages-artifact") for u in uses)
    assert any(u.startswith("actions/deploy-pages") for u in uses)
    assert wf["jobs"]["deploy"]["needs"] == "build"
    assert wf["permissions"]["pages"] == "write" and wf["permissions"]["id-token"] == "write"


@pytest.mark.skipif(shutil.which("git") is None or shutil.which("make") is None, reason="needs git and make")
def test_make_publish_pushes_site_to_local_remote(tmp_path):
    ghp = Path(sys.executable).parent / "ghp-import"
    if not ghp.exists():
        pytest.skip("ghp-import is installed by the [book] extra")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    work = tmp_path / "book"
    (work / "_build" / "html").mkdir(parents=True)
    (work / "_build" / "html" / "index.html").write_text("<h1>robokin</h1>")
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    out = subprocess.run(
        ["make", "-f", str(ROOT / "Makefile"), "publish", f"REMOTE={remote}", f"BIN={ghp.parent}"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    files = subprocess.run(
        ["git", "ls-tree", "--name-only", "gh-pages"], cwd=remote, capture_output=True, text=True, check=True
    ).stdout.split()
    assert "index.html" in files and ".nojekyll" in files


def test_make_publish_refuses_without_a_build(tmp_path):
    out = subprocess.run(
        ["make", "-f", str(ROOT / "Makefile"), "publish"], cwd=tmp_path, capture_output=True, text=True
    )
    assert out.returncode != 0 and "make book" in out.stdout + out.stderr
