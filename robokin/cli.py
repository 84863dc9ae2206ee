"""Command line: ``python -m robokin report|verify ...``; without arguments, the validation report.

``python -m robokin report FAMILY FILE -o DIR``
    Run the family's report notebook (``reports/<family>.ipynb``) on the parameter file FILE with papermill and
    write ``DIR/report.html`` (self-contained: figures embedded with alt text, maths rendered offline, code hidden),
    ``DIR/report.ipynb`` (the executed notebook), ``DIR/checks.csv`` and, for a contest task, its answer tables
    (``waypoints.csv``, ``segments.csv``, ``contest.xlsx``). Exit status 0 when every check passes, 1 when one
    fails (the report says what to change), 2 when it cannot run (a bad file, family or option, an output folder
    that cannot be made, a report notebook that stops with an error). The report kernel's log shows errors only
    (``robokin.params.render.KERNEL_ARGS``), so the terminal carries the report's own lines.
``python -m robokin report --list``
    The families, their example files and each family's schema (fields with units).
``python -m robokin verify FAMILY FILE --impl SPEC``
    Check the reader's own implementation against the course's (:mod:`robokin.params.verify`). Exit status 0
    when it passes, 1 when a check fails (the findings name the mistake the failures look like), 2 when the check
    cannot run (a bad file, family or option, an ``--impl`` that cannot be loaded, or the reader's code raising an
    exception other than ``ValueError`` or ``ArithmeticError``).
``python -m robokin view MODEL [--still OUT.png]``
    Open MuJoCo's interactive viewer on a model: a reference model the course generates (``fivebar``,
    ``wheel_leg``), the engine model of a parameter file (``.toml``, :mod:`robokin.params.engine`) or a team's
    own MJCF or URDF file (MuJoCo compiles URDF). ``--still`` renders one picture offscreen instead (no screen
    needed, :mod:`robokin.render`).
``python -m robokin engine-check PARAMS.toml [--model team.urdf|team.xml] [--joints A,B] [--foot NAME]``
    Compare a MuJoCo model (your URDF or MJCF, or by default the engine model of the parameter file) with the
    package's kinematics before anything is simulated: foot position, static torques, gravity torques, mass
    matrix, joint limits (:func:`robokin.params.engine.check_engine_model`). ``--save OUT.xml`` writes the generated model's MJCF;
    ``--write-sites OUT.xml`` rewrites ``--model``'s body-anchored loop closure with sites at the package's foot
    point (:func:`robokin.params.sites.site_anchored`), writes it and checks it. Exit
    status 0 when every check passes, 1 when one fails (the findings name the joint or link), 2 when it cannot run
    (a bad parameter file, a family without an engine model, a model file that is missing or does not compile or
    lacks the joints or the foot).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

__all__ = ["main"]


def _parser():
    p = argparse.ArgumentParser(prog="python -m robokin", description="robokin: design reports and checks")
    sub = p.add_subparsers(dest="command")
    r = sub.add_parser("report", help="design report of a parameter file")
    r.add_argument("family", nargs="?", help="mechanism family (see --list)")
    r.add_argument("file", nargs="?", help="parameter file (TOML)")
    r.add_argument("-o", "--out", default="report", help="output directory (default: ./report)")
    r.add_argument("--list", action="store_true", help="list the families, examples and schemas")
    r.add_argument("--fast", action="store_true", help="smaller scans (tests); the same bounds")
    r.add_argument("--no-progress", action="store_true", help="no progress bars")
    v = sub.add_parser("verify", help="check your own IK/FK/Jacobian against the course's")
    v.add_argument("family", help="two_link_leg, fivebar, serial_arm, stewart, mecanum, wheel_leg")
    v.add_argument("file", help="parameter file (TOML) of your design")
    v.add_argument("--impl", required=True, help="module:function, a C library (.so) with --symbol, or a CSV file")
    v.add_argument("--kind", default="ik", choices=("ik", "fk", "jacobian"), help="what --impl computes")
    v.add_argument("--symbol", default=None, help="function name in the C library (default robokin_<kind>)")
    v.add_argument("--fast", action="store_true", help="fewer samples")
    w = sub.add_parser("view", help="MuJoCo's viewer on a generated model or your MJCF/URDF")
    w.add_argument(
        "model",
        help=f"{', '.join(VIEW_MODELS)}, a parameter file (.toml: its engine model), or an MJCF (.xml, .mjcf) or "
        "URDF (.urdf) file",
    )
    w.add_argument("--still", default=None, help="write one offscreen picture (PNG) here instead of opening a window")
    w.add_argument("--width", type=int, default=640, help="picture width in pixels (--still)")
    w.add_argument("--height", type=int, default=480, help="picture height in pixels (--still)")
    e = sub.add_parser("engine-check", help="check a MuJoCo model (yours or the generated one) against the package")
    e.add_argument("params", help="parameter file (TOML): two_link_leg, fivebar, serial_arm or wheel_leg")
    e.add_argument(
        "--model", default=None, help="your URDF (.urdf) or MJCF (.xml, .mjcf) file (default: the generated model)"
    )
    e.add_argument("--joints", default=None, help="your names of the package's joints, comma-separated, in its order")
    e.add_argument(
        "--foot", default=None, help="your site or body at the foot (tool point); wheel_leg: two, LEFT,RIGHT"
    )
    e.add_argument("--no-collisions", action="store_true", help="generated model without link-link collision")
    e.add_argument("--save", default=None, help="write the generated model's MJCF here")
    e.add_argument(
        "--write-sites",
        default=None,
        metavar="OUT.xml",
        help="rewrite --model's body-anchored loop closure with sites at the package's foot point, write it here "
        "and check the result",
    )
    return p


#: The course's generated MuJoCo models that ``view`` knows by name.
VIEW_MODELS = ("fivebar", "wheel_leg")


def _view_model(name: str):
    """The compiled MuJoCo model of a reference name or of an MJCF/URDF file; ValueError with the reason."""
    from . import sim
    from .robots import FIVEBAR, WHEEL_LEG, WHEEL_LEG_FIVEBAR

    mujoco = sim.require_mujoco()
    if name == "fivebar":
        return sim.fivebar_model(FIVEBAR, masses=(0.05, 0.08, 0.05, 0.08))  # chapter 13's leg
    if name == "wheel_leg":
        # a standing keyframe (qpos0 is the open zero pose, wheels in the floor): what --still shows
        xml = sim.wheel_leg_mjcf(WHEEL_LEG, WHEEL_LEG_FIVEBAR)
        m = mujoco.MjModel.from_xml_string(xml)
        d = mujoco.MjData(m)
        sim.wheel_leg_pose(m, d, WHEEL_LEG, WHEEL_LEG_FIVEBAR, L0=0.2)
        qpos = " ".join(f"{v:.12g}" for v in d.qpos)
        i = xml.rindex("</mujoco>")
        return mujoco.MjModel.from_xml_string(
            f'{xml[:i]}<keyframe><key name="standing" qpos="{qpos}"/></keyframe>\n{xml[i:]}'
        )
    path = Path(name)
    if path.suffix.lower() == ".toml":  # a parameter file: its engine model
        from .params import ParameterFileError
        from .params.engine import engine_model

        try:
            return engine_model(path).model
        except ParameterFileError as exc:
            raise ValueError(str(exc)) from None
    if path.suffix.lower() not in (".xml", ".urdf", ".mjcf"):
        raise ValueError(
            f"MODEL must be one of {', '.join(VIEW_MODELS)}, a parameter file (.toml) or an .xml/.urdf file, got {name!r}"
        )
    if not path.is_file():
        raise ValueError(f"no such model file: {path}")
    try:
        return mujoco.MjModel.from_xml_path(str(path))
    except Exception as exc:  # noqa: BLE001 - MuJoCo's compiler message names the element and line
        raise ValueError(f"MuJoCo cannot compile {path}: {exc}") from None


def view(model: str, *, still: str | None = None, width: int = 640, height: int = 480) -> int:
    """``python -m robokin view``: the viewer, or one offscreen picture; returns the exit status."""
    import os

    try:
        m = _view_model(model)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if still is not None:
        from . import render

        m.vis.global_.offwidth, m.vis.global_.offheight = max(width, 640), max(height, 480)
        try:
            data = m.key_qpos[0].copy() if m.nkey else m.qpos0.copy()  # a closed loop's assembled keyframe
            frame = render.render_frames(m, data, width=width, height=height)[0]
            Path(still).write_bytes(render.encode_png(frame))
        except (ValueError, render.RenderError, OSError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(still)
        return 0
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        print(
            "error: MuJoCo's viewer needs a screen and none is set (DISPLAY); use --still OUT.png for an offscreen "
            "picture, or robokin.render in a notebook",
            file=sys.stderr,
        )
        return 2
    import mujoco.viewer

    mujoco.viewer.launch(m)
    return 0


def engine_check(
    params_file: str,
    *,
    model: str | None = None,
    joints: str | None = None,
    foot: str | None = None,
    collisions: bool = True,
    save: str | None = None,
    write_sites: str | None = None,
) -> int:
    """``python -m robokin engine-check``: prints the table; returns 0 pass, 1 mismatch, 2 bad input."""
    from .params import ParameterFileError
    from .params.engine import check_engine_model, engine_model
    from .params.sites import site_anchored

    try:
        names = None if joints is None else [j.strip() for j in joints.split(",")]
        if write_sites is not None and model is None:
            raise ValueError("--write-sites rewrites your model: give it with --model")
        em = None
        if model is None or save is not None:
            em = engine_model(params_file, collisions=collisions)
        if save is not None:
            Path(save).write_text(em.mjcf, encoding="utf-8")
        if write_sites is not None:
            fixed = site_anchored(params_file, Path(model), joints=names, foot=foot)
            Path(write_sites).write_text(fixed.text, encoding="utf-8")
            for s in fixed.sites:
                print(f"site {s.name!r} on body {s.body!r} at {list(s.pos)} m (body frame)")
            print(f"wrote {write_sites}: each body-anchored connect now names its two sites")
            result = check_engine_model(params_file, write_sites, joints=names, foot=foot)
        else:
            result = check_engine_model(params_file, em if model is None else model, joints=names, foot=foot)
    except (ParameterFileError, ValueError, TypeError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{result.model} against {result.design} ({result.samples} configurations)")
    print(result.table())
    if model is None:  # the defaults describe the generated model, not a team's own file
        for what in result.defaulted:
            print(f"defaulted: {what}")
    return 0 if result.passed else 1


def _list() -> int:
    from . import params

    for fam in params.FAMILIES:
        files = params.examples(fam)
        print(f"{fam}")
        for f in files:
            print(f"    example: {f.relative_to(params.EXAMPLES.parents[1])}")
        for key, unit, req, doc in params.schema(fam):
            print(f"    {key:34s} {unit:10s} {'required' if req == 'yes' else 'optional':9s} {doc}")
    return 0


def report(family: str, file: str, out: str, *, fast: bool = False, progress: bool = True) -> int:
    """Run one report; returns the exit status (0 pass, 1 a check fails, 2 bad input)."""
    from tqdm.auto import tqdm

    from . import params
    from .params import render

    if family not in render.FAMILIES_WITH_REPORT:
        print(f"error: family must be one of {', '.join(render.FAMILIES_WITH_REPORT)}; got {family!r}", file=sys.stderr)
        return 2
    try:
        params.load(file, family=family)  # a bad file fails here with its one clear message, before any kernel
    except params.ParameterFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out_dir = Path(out)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"error: cannot create the output directory {out_dir}: {exc}", file=sys.stderr)
        return 2
    steps = tqdm(total=3, desc=f"report {family}", disable=not progress, unit="step")
    t0 = time.perf_counter()
    try:
        nb = render.execute(family, file, out_dir, fast=fast, progress=progress)
    except Exception as exc:  # noqa: BLE001 - papermill's execution error carries the failing cell's message
        steps.close()
        msg = getattr(exc, "evalue", None) or str(exc).strip().splitlines()[-1]
        print(
            f"error: the {family} report could not run on {file}: {getattr(exc, 'ename', type(exc).__name__)}: "
            f"{msg} (the partial notebook is {out_dir / 'report.ipynb'})",
            file=sys.stderr,
        )
        return 2
    steps.update()
    steps.set_postfix_str("rendering HTML")
    html = render.to_html(nb, out_dir / "report.html")
    steps.update()
    import csv

    with open(out_dir / "checks.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    steps.update()
    steps.close()
    failed = [r for r in rows if r["status"] == "FAIL"]
    n_checks = sum(r["status"] != "info" for r in rows)
    print(
        f"{html}  ({n_checks} checks and {len(rows) - n_checks} measured numbers, {len(failed)} failed, "
        f"{time.perf_counter() - t0:.1f} s)"
    )
    for r in failed:
        print(f"FAIL {r['check']}: {r['value']} (needs {r['relation']} {r['limit']} {r['unit']}). {r['fix']}")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m robokin``."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in (
        "report",
        "verify",
        "view",
        "engine-check",
    ):  # the validation report, with its own options
        from .report import main as validation_report

        return validation_report(argv[1:] if argv[:1] == ["validate"] else argv)
    args = _parser().parse_args(argv)
    if args.command == "report":
        if args.list:
            return _list()
        if not (args.family and args.file):
            print("error: report needs FAMILY and FILE (or --list)", file=sys.stderr)
            return 2
        return report(args.family, args.file, args.out, fast=args.fast, progress=not args.no_progress)
    if args.command == "verify":
        from .params import verify

        return verify.main(args)
    if args.command == "view":
        return view(args.model, still=args.still, width=args.width, height=args.height)
    if args.command == "engine-check":
        return engine_check(
            args.params,
            model=args.model,
            joints=args.joints,
            foot=args.foot,
            collisions=not args.no_collisions,
            save=args.save,
            write_sites=args.write_sites,
        )
    return 2
