"""One term per concept in the Chinese edition (tools/termbase.py, locales/zh_CN/termbase.yml, book/glossary.md).

A catalogue message whose English names a glossary concept must not use one of the concept's variants in its Chinese
prose (configuration as 构型 where the glossary says 位形, "N m" where the conventions say N·m, a weld seam 焊缝 for
a gluing seam, ...), and no translation may leave bold markers unparsed (``**预备知识：**`` next to full-width
punctuation). The planted-failure tests show that each rule can fail and that ``--fix`` repairs what it finds.
"""

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import i18n  # noqa: E402
import termbase  # noqa: E402

#: Catalogues being edited by other helpers in this session: their variants are fixed by the maintainer's run of
#: `python tools/termbase.py --fix` at the end; then this list is emptied (test_pending_list_is_current keeps it
#: honest: a listed catalogue without findings fails).
PENDING_FIX: list[str] = []  # every catalogue is fixed; a page may be listed here only while it is translated

CATALOGUES = sorted(str(p.relative_to(i18n.PO_DIR).with_suffix("")) for p in i18n.PO_DIR.rglob("*.po"))


@pytest.mark.parametrize("doc", CATALOGUES)
def test_catalogue_uses_the_glossary_terms(doc):
    if doc in PENDING_FIX:
        pytest.skip("pending `tools/termbase.py --fix` (PENDING_FIX)")
    found = termbase.find([i18n.PO_DIR / f"{doc}.po"])
    assert not found, "variants of glossary terms (run `python tools/termbase.py --fix`):\n" + "\n".join(
        map(str, found)
    )


def test_pending_list_is_current():
    clean = [doc for doc in PENDING_FIX if not termbase.find([i18n.PO_DIR / f"{doc}.po"])]
    assert not clean, f"no variants left in {clean}: remove them from PENDING_FIX"


def test_fix_clears_the_pending_catalogues(tmp_path):
    """The maintainer's `--fix` run leaves no finding in the pending catalogues, and a second run changes nothing."""
    concepts, corrections = termbase.load()
    copies = []
    for doc in PENDING_FIX:
        copy = tmp_path / f"{doc}.po"
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(i18n.PO_DIR / f"{doc}.po", copy)
        copies.append(copy)
        before = dict((m, s) for m, s, _ in i18n.read_catalog(copy))
        changes = termbase.fix_file(copy, concepts, corrections)
        after = dict((m, s) for m, s, _ in i18n.read_catalog(copy))
        changed = {m for m, _, _ in changes}
        assert before.keys() == after.keys()
        assert all(after[m] == before[m] for m in before if m not in changed), "an unchanged message was rewritten"
        # still a valid translation: maths, code and roles kept, no new problem for tools/i18n.py
        problems = [f for f in i18n.check_messages(doc, i18n.read_catalog(copy)) if f.kind == "markup"]
        assert not problems, "\n".join(map(str, problems))
    assert not termbase.find(copies), "\n".join(map(str, termbase.find(copies)))
    assert not any(termbase.fix_file(c, concepts, corrections) for c in copies), "--fix is not idempotent"


def test_known_mistranslations_are_gone():
    bad = {
        "涂胶焊缝": "a gluing seam is no weld: 涂胶缝",
        "实践者": "translationese for what engineers commonly do",
        "解答 练习": "sphinx-exercise's word order",
    }
    hits = [
        f"{doc}: {word!r} ({why})"
        for doc in CATALOGUES
        if doc not in PENDING_FIX
        for _, msgstr, _ in i18n.read_catalog(i18n.PO_DIR / f"{doc}.po")
        for word, why in bad.items()
        if word in msgstr
    ]
    assert not hits, "\n".join(hits)


def test_every_concept_is_a_glossary_row():
    concepts, _ = termbase.load()  # raises when a term is not in its glossary row
    assert {"configuration", "pose", "torque", "via point", "Euler angles", "duty factor"} <= {
        c.glossary for c in concepts
    }


# ---------------------------------------------------------------- the checker and the fixer can fail / work

GLOSSARY = """\
| English | 中文 | meaning |
| --- | --- | --- |
| configuration | 位形 | joint values |
| newton-metre (N·m) | 牛·米（N·m） | unit |
"""

TERMBASE = """\
concepts:
  - glossary: configuration
    english: '\\bconfigurations?\\b'
    zh: 位形
    variants: [构型]
    fix: [[构型, 位形]]
  - glossary: newton-metre
    english: '\\bN m\\b'
    zh: N·m
    variants: ['\\bN m\\b']
    fix: [['\\bN m\\b', 'N·m']]
corrections:
  - where: "A stiff joint"
    old: 僵硬关节
    new: 刚度大的关节
"""

PO = """\
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "At a singular configuration the torque is 2 N m, and $\\\\tau$ is in $\\\\text{N m}$ (`N m`)."
msgstr "在奇异构型处力矩为 2 N m，$\\\\tau$ 的单位为 $\\\\text{N m}$（`N m`）。"

msgid "The configuration of a mecanum chassis."
msgstr "麦克纳姆底盘的位形。"

msgid "A stiff joint"
msgstr "僵硬关节"

msgid "**Prerequisites:** chapter 3."
msgstr "**预备知识：**第 3 章。"
"""


def _planted(tmp_path, glossary=GLOSSARY):
    (tmp_path / "glossary.md").write_text(glossary, encoding="utf-8")
    (tmp_path / "termbase.yml").write_text(TERMBASE, encoding="utf-8")
    po = tmp_path / "x.po"
    po.write_text(PO, encoding="utf-8")
    return po, tmp_path / "termbase.yml", tmp_path / "glossary.md"


def test_planted_variants_are_found(tmp_path):
    po, tb, gl = _planted(tmp_path)
    found = {(u.concept, u.variant) for u in termbase.find([po], termbase=tb, glossary=gl)}
    assert found == {
        ("configuration", "构型"),
        ("newton-metre", "N m"),
        ("bold markers shown as text", "<p>**预备知识：**第"),
    }


def test_planted_fix_touches_prose_only(tmp_path):
    po, tb, gl = _planted(tmp_path)
    concepts, corrections = termbase.load(tb, gl)
    changes = termbase.fix_file(po, concepts, corrections)
    got = {m: s for m, s, _ in i18n.read_catalog(po)}
    # the unit in maths and in code is the English one, byte for byte; the prose gets N·m
    assert got[next(m for m in got if m.startswith("At a singular"))] == (
        "在奇异位形处力矩为 2 N·m，$\\tau$ 的单位为 $\\text{N m}$（`N m`）。"
    )
    assert got["A stiff joint"] == "刚度大的关节"
    assert got["**Prerequisites:** chapter 3."] == "**预备知识**：第 3 章。"
    assert got["The configuration of a mecanum chassis."] == "麦克纳姆底盘的位形。"
    assert len(changes) == 3
    assert not termbase.find([po], termbase=tb, glossary=gl)


def test_a_term_that_left_the_glossary_fails(tmp_path):
    _, tb, gl = _planted(tmp_path, glossary=GLOSSARY.replace("| 位形 |", "| 构型 |"))
    with pytest.raises(ValueError, match="configuration"):
        termbase.load(tb, gl)


@pytest.mark.parametrize(
    ("text", "literal"),
    [
        ("**预备知识：**第 3 章", True),
        ("**预备知识**：第 3 章", False),
        ("句子。**修正：**让步长", True),
        ("`**kwargs` 与 $a^{**}$", False),
    ],
)
def test_literal_markers(text, literal):
    assert bool(i18n.literal_markers(text)) is literal
