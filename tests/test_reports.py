"""Design reports (robokin.params.design, robokin.params.render, python -m robokin report): every example file's
report, determinism, the exit status, the numbers of the reference robots against the chapters, and one report
opened offline in a browser."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from robokin import params
from robokin.params import design, render

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "your_robot.md"
EXAMPLES = params.examples()
#: Example files whose report must fail, and the check that fails: the chapter's uniform layout is singular.
EXPECTED_FAIL = {"stewart_uniform_ch09.toml": "singularity map"}


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """Every example file's report in fast mode, in one kernel; also the wall time it took."""
    base = tmp_path_factory.mktemp("reports")
    jobs = [(params.load(f).family, f, base / f.stem) for f in EXAMPLES]
    t0, c0 = time.perf_counter(), _cpu()
    # a headless shell's MPLBACKEND=Agg must not reach the kernel (the report would have no figures)
    old, os.environ["MPLBACKEND"] = os.environ.get("MPLBACKEND"), "Agg"
    try:
        render.execute_batch(jobs, fast=True)
    finally:
        if old is None:
            del os.environ["MPLBACKEND"]
        else:
            os.environ["MPLBACKEND"] = old
    return base, (time.perf_counter() - t0, _cpu() - c0)


def _cpu():
    """CPU seconds of this process and its reaped children (the report kernel, shut down by execute_batch)."""
    import resource

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _checks(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_every_example_file_produces_its_report(reports):
    base, (wall, cpu) = reports
    print(f"{len(EXAMPLES)} reports in {wall:.1f} s wall, {cpu:.1f} s CPU")
    # make test budget: 3 minutes on 2 cores. The batch runs in one kernel, one report after another, so on an
    # unshared machine its wall time is its CPU time; CPU time is the measure that holds when other jobs share
    # the cores (wall time then only grows with the load).
    assert cpu < 180, f"{cpu:.0f} s CPU for the report set (budget 180 s)"
    for f in EXAMPLES:
        out = base / f.stem
        html = (out / "report.html").read_text(encoding="utf-8")
        rows = _checks(out / "checks.csv")
        assert len(rows) >= 1 and "<table" in html and params.load(f).name in html
        failed = [r["check"] for r in rows if r["status"] == "FAIL"]
        if f.name in EXPECTED_FAIL:
            assert failed and failed[0].startswith(EXPECTED_FAIL[f.name]) and "FAIL" in html
        else:
            assert not failed, (f.name, failed)
        # an embedded figure (an <img>, not the template's CSS icons)
        assert 'src="data:image/png;base64' in html or params.load(f).family == "two_link_arm", f.name
        assert "render.write_results" not in html  # the code cells are hidden
        # every figure has a text description: alt with words, not empty and not nbconvert's placeholder
        imgs = re.findall(r"<img\b[^>]*>", html)
        assert len(imgs) == html.count('src="data:image/png;base64'), f.name
        for tag in imgs:
            alt = re.search(r'\balt="([^"]*)"', tag)
            assert alt and len(alt.group(1).split()) >= 8, (f.name, tag[:200])
            assert "No description" not in alt.group(1)
        # the output folder holds what book/your_robot.md says it does, nothing else
        page = PAGE.read_text(encoding="utf-8")
        for p in out.iterdir():
            assert f"`my_report/{p.name}`" in page or f"`contest/{p.name}`" in page, (f.name, p.name)


def test_contest_reports_write_the_answer_tables(reports):
    base, _ = reports
    for stem in ("contest_ch06", "contest_gripper_task"):
        out = base / stem
        wp = list(csv.reader(open(out / "waypoints.csv", newline="")))
        seg = list(csv.reader(open(out / "segments.csv", newline="")))
        task = params.load(params.EXAMPLES / f"{stem}.toml")
        assert wp[0][:3] == ["waypoint", "t (s)", "branch"] and len(wp) == len(task.targets) + 2
        assert len(seg) == len(task.targets) + 1
        from openpyxl import load_workbook

        wb = load_workbook(out / "contest.xlsx")
        assert wb.sheetnames == ["checks", "waypoints", "segments"]
        assert [c.value for c in wb["waypoints"][1]] == wp[0]


def test_csv_is_byte_identical_across_runs(reports, tmp_path):
    # the kernel's CSV (one process) against a fresh in-process run (another): same bytes
    base, _ = reports
    for f in EXAMPLES:
        out = design.run(params.load(f), fast=True)
        render.write_results(out, tmp_path / f.stem)
        for p in (base / f.stem).glob("*.csv"):
            assert (tmp_path / f.stem / p.name).read_bytes() == p.read_bytes(), (f.name, p.name)


def test_workbook_is_byte_identical_across_runs(tmp_path):
    # the document dates are fixed, not the wall clock: two writes a second apart give the same bytes
    import zipfile

    out = design.run(params.load(params.EXAMPLES / "contest_ch06.toml"), fast=True)
    render.write_results(out, tmp_path / "a")
    time.sleep(1.1)
    render.write_results(out, tmp_path / "b")
    a, b = (tmp_path / "a" / "contest.xlsx").read_bytes(), (tmp_path / "b" / "contest.xlsx").read_bytes()
    assert a == b
    with zipfile.ZipFile(tmp_path / "a" / "contest.xlsx") as z:
        assert z.read("docProps/core.xml").decode().count("2026-01-01T00:00:00Z") == 2


def test_contest_workbook_agrees_with_the_sites(tmp_path):
    # waypoint 0 is named by the branch q_start is on, as chapter 6's table names it ("left-up-flip"), not "start";
    # the sheets carry the names of the site's contest workbook (book/_ext/robokin_downloads.py SHEETS)
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import robokin_downloads
    from openpyxl import load_workbook

    from robokin.ur5 import UR5

    task = params.load(params.EXAMPLES / "contest_ch06.toml")
    out = design.run(task, fast=True)
    (head, rows) = out.tables["waypoints"]
    r0 = UR5.ik(UR5.fk(task.q_start), warn=False)
    on = [b for b, q, v in zip(r0.branch, r0.q, r0.valid, strict=True) if v and np.allclose(q, task.q_start, atol=1e-9)]
    assert rows[0][head.index("branch")] == "left-up-flip" and on == ["left-up-flip"]
    path = render.write_results(out, tmp_path)[-1]
    assert set(robokin_downloads.SHEETS.values()) <= set(load_workbook(path).sheetnames)


def test_a_broken_design_fails_with_what_to_change():
    # the fix text is the row's own, and the check fails for the right reason: a 2.5x longer stroke switch time
    # passes, a motor of a third the stall torque fails
    d = params.load(params.EXAMPLES / "fivebar_ch03.toml")
    weak = params.loads(
        (params.EXAMPLES / "fivebar_ch03.toml").read_text().replace("stall_torque_N_m = 3.0", "stall_torque_N_m = 1.0")
    )
    good, bad = design.run(d, fast=True), design.run(weak, fast=True)
    assert good.passed and not bad.passed
    (row,) = bad.failed
    assert row.check.startswith("gear ratios meeting") and "stronger motor" in row.fix
    assert "stronger motor" in render.failures_html(bad)


def test_a_weak_wheel_motor_fails_the_mujoco_push():
    # the same robot with wheel motors of 0.05 N m cannot balance the push; with chapter 13's 2.5 N m it does
    text = (params.EXAMPLES / "wheel_leg_ch04.toml").read_text()
    weak = params.loads(text.replace("wheel_torque_max_N_m = 2.5", "wheel_torque_max_N_m = 0.05"))
    rows = {r.check.split(":")[0]: r for r in design.run(weak, fast=True).rows}
    ok = {r.check.split(":")[0]: r for r in design.run(params.loads(text), fast=True).rows}
    key = next(k for k in rows if k.startswith("MuJoCo 3-D robot"))
    assert rows[key].passed is False and ok[key].passed is True


def test_reference_reports_equal_the_chapters_glued_numbers(tmp_path):
    """The five-bar sizing and the contest plan of the reference files against chapters 3 and 6's glued values.

    The chapters are run here with ``ROBOKIN_GLUE_DUMP`` unless ``ROBOKIN_GLUE_FILE`` names a dump of a
    ``make notebooks`` run already made.
    """
    dump = os.environ.get("ROBOKIN_GLUE_FILE")
    if not dump or not Path(dump).is_file():
        dump = tmp_path / "glue.jsonl"
        env = dict(os.environ, ROBOKIN_GLUE_DUMP=str(dump), ROBOKIN_FAST="1", MPLBACKEND="Agg")
        import nbformat
        from nbclient import NotebookClient

        for nb_name in ("03_five_bar_leg.ipynb", "06_arm_inverse_kinematics.ipynb"):
            nb = nbformat.read(ROOT / "notebooks" / nb_name, as_version=4)
            os.environ["ROBOKIN_GLUE_DUMP"] = str(dump)
            try:
                NotebookClient(nb, timeout=600, resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute(
                    env=env
                )
            finally:
                os.environ.pop("ROBOKIN_GLUE_DUMP", None)
    glued = {}
    for line in Path(dump).read_text().splitlines():
        rec = json.loads(line)
        glued[rec["name"]] = rec["value"]
    fb = design.run(params.load(params.EXAMPLES / "fivebar_ch03.toml"), fast=True).data
    assert fb["tau_peak"] == glued["ch3_tau_peak"]
    assert fb["N_lo"] == glued["ch3_N_lo"] and fb["N_hi"] == glued["ch3_N_hi"]
    assert float(abs(fb["qdot_sw"]).max()) == glued["ch3_qdot_peak"]
    ct = design.run(params.load(params.EXAMPLES / "contest_ch06.toml"), fast=True)
    by = {r.check: r.value for r in ct.rows}
    assert by["minimum-time plan: duration"] == glued["ch06_c_total"]
    assert by["answer table: tool position error of the rounded angles"] == glued["ch06_c_pos"]
    assert by["answer table: re-planned from the rounded table, peak / limit"] * 100 == pytest.approx(
        glued["ch06_c_ratio"], rel=1e-12
    )


# ---- command line -------------------------------------------------------------------------------------------------
def _cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "robokin", *args], capture_output=True, text=True, cwd=cwd, timeout=600
    )


def page_exit_statuses():
    """The exit-status table of book/your_robot.md: {status: (report's meaning, verify's meaning)}."""
    rows = re.findall(r"^\| ([0-9]) \| (.+?) \| (.+?) \|$", PAGE.read_text(encoding="utf-8"), re.M)
    return {int(code): (rep, ver) for code, rep, ver in rows}


#: What the report kernel printed on the terminal before its log was limited to errors.
KERNEL_NOISE = ("running over TCP without encryption", "[IPKernelApp] WARNING")


def test_cli_report_passes_and_fails_with_the_exit_status(tmp_path):
    """The exit statuses are those of the page's table, and the terminal shows no kernel noise."""
    page = page_exit_statuses()
    assert sorted(page) == [0, 1, 2] and page[0][0] == "every check passes" and "a check fails" in page[1][0]
    ok = _cli(
        "report",
        "fivebar",
        str(params.EXAMPLES / "fivebar_ch03.toml"),
        "-o",
        str(tmp_path / "a"),
        "--fast",
        "--no-progress",
    )
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "a" / "report.html").is_file() and "0 failed" in ok.stdout
    assert not any(n in ok.stderr for n in KERNEL_NOISE), ok.stderr
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["checks.csv", "report.html", "report.ipynb"]
    bad = _cli(
        "report",
        "stewart",
        str(params.EXAMPLES / "stewart_uniform_ch09.toml"),
        "-o",
        str(tmp_path / "b"),
        "--fast",
        "--no-progress",
    )
    assert bad.returncode == 1 and "FAIL singularity map" in bad.stdout and "stagger the anchor pairs" in bad.stdout
    assert not any(n in bad.stderr for n in KERNEL_NOISE), bad.stderr


def test_cli_bad_file_and_list(tmp_path):
    page = page_exit_statuses()[2][0]
    for case in ("a bad parameter file", "an unknown family", "a bad option", "an output folder that cannot be made"):
        assert case in page, case
    r = _cli("report", "bogus", str(params.EXAMPLES / "fivebar_ch03.toml"), "-o", str(tmp_path / "x"))
    assert r.returncode == 2 and "family must be one of" in r.stderr
    r = _cli("report", "fivebar", str(params.EXAMPLES / "fivebar_ch03.toml"), "--no-such-option")
    assert r.returncode == 2
    (tmp_path / "file").write_text("")
    r = _cli("report", "fivebar", str(params.EXAMPLES / "fivebar_ch03.toml"), "-o", str(tmp_path / "file" / "out"))
    assert r.returncode == 2 and "cannot create the output directory" in r.stderr
    broken = tmp_path / "leg.toml"
    broken.write_text('family = "fivebar"\n[linkage]\nl1_m = 0.06\n')
    r = _cli("report", "fivebar", str(broken), "-o", str(tmp_path / "x"))
    assert r.returncode == 2 and "linkage.l2_m" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "x").exists()
    r = _cli("report", "stewart", str(params.EXAMPLES / "fivebar_ch03.toml"), "-o", str(tmp_path / "x"))
    assert r.returncode == 2 and "'family'" in r.stderr
    r = _cli("report", "--list")
    assert r.returncode == 0
    for fam in params.FAMILIES:
        assert re.search(rf"^{fam}$", r.stdout, re.M)
    assert "examples/robots/fivebar_ch03.toml" in r.stdout and "linkage.l1_<unit>" in r.stdout


def test_no_arguments_still_runs_the_validation_report(monkeypatch):
    from robokin import cli, report

    seen = []
    monkeypatch.setattr(report, "main", lambda argv=None: seen.append(argv) or 0)
    assert cli.main([]) == 0 and cli.main(["--fast"]) == 0 and seen == [[], ["--fast"]]


# ---- browser ------------------------------------------------------------------------------------------------------
#: Hosts Chromium itself calls (updates, time, sign-in) whatever the page: not requests of the report.
BROWSER_SERVICES = ("google.com", "googleapis.com", "gvt1.com", "gstatic.com")


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian's chromium")
def test_report_renders_offline_in_a_browser(reports, tmp_path):
    base, _ = reports
    page = base / "fivebar_ch03" / "report.html"
    netlog = tmp_path / "net.json"
    cmd = [
        shutil.which("chromium"),
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-extensions",
        "--virtual-time-budget=20000",
        f"--log-net-log={netlog}",
        "--dump-dom",
        page.as_uri(),
    ]
    dom = subprocess.run(cmd, capture_output=True, text=True, timeout=180).stdout
    visible = re.sub(r"<script.*?</script>", "", dom, flags=re.S)
    assert visible.count("<mjx-container") >= 5 and "data-mjx-error" not in visible  # the maths is typeset
    assert "<svg" in visible.split("<mjx-container", 1)[1][:2000]
    assert visible.count('src="data:image/png;base64') >= 1  # the figure is embedded
    urls = set(re.findall(r'"url":"([^"]+)"', netlog.read_text()))
    external = [u for u in urls if u.startswith("http") and not any(h in u.split("/")[2] for h in BROWSER_SERVICES)]
    assert not external, external
    assert "cdnjs" not in page.read_text() or "require.min.js" not in page.read_text()


def test_a_report_notebook_that_stops_is_exit_status_2(monkeypatch, tmp_path, capsys):
    from robokin import cli

    assert "a report notebook that stops with an error" in page_exit_statuses()[2][0]

    def stops(*args, **kwargs):
        raise RuntimeError("the cell of the sizing raised")

    monkeypatch.setattr(render, "execute", stops)
    assert cli.report("fivebar", str(params.EXAMPLES / "fivebar_ch03.toml"), str(tmp_path / "o"), progress=False) == 2
    err = capsys.readouterr().err
    assert "could not run" in err and "the cell of the sizing raised" in err
