"""robokin.params.sites: a body-anchored loop closure rewritten with sites at the package's foot point."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from robokin import cli
from robokin.params import EXAMPLES, ParameterFileError
from robokin.params.engine import check_engine_model, engine_model
from robokin.params.sites import site_anchored

pytest.importorskip("mujoco")

FIVEBAR_FILE = EXAMPLES / "fivebar_ch03.toml"  # l3 = l4 = 0.1 m
WHEEL_LEG_FILE = EXAMPLES / "wheel_leg_ch04.toml"  # shanks 0.25 m
ENG = Path(__file__).parent / "verify_fixtures" / "engine"
TEAM_FB = ENG / "fb.toml"  # shank C 120 mm, shank D 105 mm
BODY_FORM = '<connect body1="shank_C" body2="shank_D" anchor="0.1 0 0"'


def _body_anchored(xml: str, prefix: str = "") -> str:
    """The generated model's site-form connect(s) written in MuJoCo's body-anchored form (open at qpos0)."""
    for p in [prefix] if prefix != "LR" else ["L_", "R_"]:
        xml = xml.replace(
            f'<connect site1="{p}foot_C" site2="{p}foot_D"',
            f'<connect body1="{p}shank_C" body2="{p}shank_D" anchor="0.1 0 0"',
        )
    assert "body1=" in xml
    return xml


def test_the_generated_fivebar_body_anchored_is_rewritten_at_the_shank_ends(tmp_path):
    """The body form fails the check; the rewrite puts each site at its shank's
    end (0.1 m along x, the file's l3 and l4), keeps the connect's other attributes, and the rewritten file passes
    every check. Trips if the sites were placed from qpos0 (where the loop is open) or the connect kept body1."""
    path = tmp_path / "body.xml"
    path.write_text(_body_anchored(engine_model(FIVEBAR_FILE).mjcf))
    assert not check_engine_model(FIVEBAR_FILE, path).passed
    fixed = site_anchored(FIVEBAR_FILE, path)
    assert [(s.body, s.pos) for s in fixed.sites] == [("shank_C", (0.1, 0.0, 0.0)), ("shank_D", (0.1, 0.0, 0.0))]
    (connect,) = re.findall(r"<connect [^>]*>", fixed.text)
    assert 'site1="shank_C_loop"' in connect and 'site2="shank_D_loop"' in connect
    assert "body1" not in connect and "anchor" not in connect
    out = tmp_path / "sites.xml"
    out.write_text(fixed.text)
    r = check_engine_model(FIVEBAR_FILE, out)
    assert r.passed and not r.findings, r.table()
    assert fixed.check.checks[0].value < 1e-12


def test_a_team_fivebar_with_its_own_names_and_comments(tmp_path):
    """A team's five-bar (asymmetric, mm file, other joint names, a wheel on the foot) closed in the body form:
    the sites land at 120 mm and 105 mm, the file's shank lengths, comments and the team's own sites stay, and
    the rewritten model passes with the team's --joints and --foot. Trips if shank D got shank C's length."""
    text = (ENG / "fb_team2.xml").read_text()
    text = text.replace(
        '<connect site1="toe" site2="toe_D"/>',
        '<!-- closes the loop at the toe -->\n    <connect name="toe_loop" body1="shank_C" body2="shank_D" anchor="0.12 0 0"/>',
    )
    path = tmp_path / "team.xml"
    path.write_text(text)
    kw = dict(joints=["left_hip", "right_hip"], foot="toe")
    assert not check_engine_model(TEAM_FB, path, **kw).checks[0].passed
    fixed = site_anchored(TEAM_FB, path, **kw)
    assert [s.pos for s in fixed.sites] == [(0.12, 0.0, 0.0), (0.105, 0.0, 0.0)]
    assert "<!-- closes the loop at the toe -->" in fixed.text and 'name="toe"' in fixed.text
    assert 'name="toe_loop"' in fixed.text  # the connect's own attributes are kept
    assert fixed.check.passed, fixed.check.table()


def test_the_wheel_legged_robot_gets_both_legs_rewritten(tmp_path):
    """Two connects, one per leg: each leg's sites come from its own foot (the right leg's from the right foot;
    trips if both were placed from the left leg's pose) and the whole robot passes."""
    path = tmp_path / "wl.xml"
    path.write_text(_body_anchored(engine_model(WHEEL_LEG_FILE).mjcf, "LR"))
    assert not check_engine_model(WHEEL_LEG_FILE, path).passed
    fixed = site_anchored(WHEEL_LEG_FILE, path)
    assert [s.body for s in fixed.sites] == ["L_shank_C", "L_shank_D", "R_shank_C", "R_shank_D"]
    assert {s.pos for s in fixed.sites} == {(0.25, 0.0, 0.0)}
    assert fixed.check.passed, fixed.check.table()


def test_a_model_whose_shank_differs_from_the_file_is_refused_with_the_finding(tmp_path):
    """No site placement can fix a link length: thigh B 1 mm longer in the model is refused with the check's finding."""
    xml = _body_anchored(engine_model(FIVEBAR_FILE).mjcf)
    m = re.search(r'<body name="shank_D" pos="([^"]+)"', xml)
    assert m is not None
    longer = tmp_path / "longer.xml"
    # thigh B 1 mm longer: the loop still closes, but not at the package's foot
    x, y, z = (float(v) for v in m.group(1).split())
    longer.write_text(xml.replace(m.group(0), f'<body name="shank_D" pos="{x + 0.001!r} {y!r} {z!r}"'))
    with pytest.raises(ValueError, match="no site placement closes the loop at the package's foot"):
        site_anchored(FIVEBAR_FILE, longer)


def test_bad_inputs_name_the_argument(tmp_path):
    site_form = tmp_path / "sites.xml"
    site_form.write_text(engine_model(FIVEBAR_FILE).mjcf)
    with pytest.raises(ValueError, match="model: no body-anchored"):
        site_anchored(FIVEBAR_FILE, site_form)
    with pytest.raises(ValueError, match=r"model must be an MJCF file .*\(a URDF has no <connect>\)"):
        site_anchored(FIVEBAR_FILE, tmp_path / "leg.urdf")
    with pytest.raises(ValueError, match="no such model file"):
        site_anchored(FIVEBAR_FILE, tmp_path / "missing.xml")
    with pytest.raises(ValueError, match="MuJoCo cannot compile"):
        site_anchored(FIVEBAR_FILE, "<mujoco><worldbody><body><joint type='nope'/></body></worldbody></mujoco>")
    with pytest.raises(TypeError, match="model must be an MJCF path or MJCF text"):
        site_anchored(FIVEBAR_FILE, 3)
    with pytest.raises(ValueError, match="params: a 'two_link_leg' file has no loop closure"):
        site_anchored(EXAMPLES / "leg2_ch02.toml", site_form)
    with pytest.raises(ParameterFileError):
        site_anchored(tmp_path / "nope.toml", site_form)
    with pytest.raises(ValueError, match="foot must be the name"):
        site_anchored(FIVEBAR_FILE, _body_anchored(engine_model(FIVEBAR_FILE).mjcf), foot=3)


def test_text_input_and_the_cli(tmp_path, capsys):
    """The text itself is accepted; `engine-check --write-sites` writes the file, lists the sites and checks it
    (exit 0); without --model it is refused (exit 2)."""
    xml = _body_anchored(engine_model(FIVEBAR_FILE).mjcf)
    assert site_anchored(FIVEBAR_FILE, xml).check.passed
    path, out = tmp_path / "body.xml", tmp_path / "fixed.xml"
    path.write_text(xml)
    assert cli.main(["engine-check", str(FIVEBAR_FILE), "--model", str(path), "--write-sites", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "site 'shank_C_loop' on body 'shank_C' at [0.1, 0.0, 0.0] m" in printed and f"wrote {out}" in printed
    assert check_engine_model(FIVEBAR_FILE, out).passed
    assert cli.main(["engine-check", str(FIVEBAR_FILE), "--write-sites", str(out)]) == 2
    assert "--write-sites rewrites your model: give it with --model" in capsys.readouterr().err
