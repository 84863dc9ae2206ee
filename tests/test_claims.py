"""Numbers in the prose come from the run.

A chapter's Markdown may not state a computed-looking number that is not glued: a number in scientific notation
(``1e-9``, ``3.2 \\times 10^{-4}``) or one with three or more significant digits (``0.123``, ``12.5``, ``36264``).
Short inputs ("l1 = 60 mm", "500 targets", "1 kHz") pass. Typed inputs that are long (an official DH parameter, a
year, a bar from the spec) go on the chapter's allow-list ``tests/claims_allow/NN.txt``: one number per line, then
``#`` and the reason. An allow-list entry that the chapter no longer uses fails too, so the lists stay honest.

What is scanned: every Markdown cell, including ``$maths$``, ``{math}`` blocks and inline code. What is not: code
cells, glue roles (``{glue:text}`key:.2e```), cross-reference and citation roles, directive options (``:label:``),
link targets and HTML attributes.

The audit itself lives in ``book/claims.md``: a test below checks that it has a section for every chapter.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
ALLOW_DIR = ROOT / "tests" / "claims_allow"

# Roles whose content is a key, a label or a reference, never prose: {glue:text}`k:.2e`, {eq}`eq-x`, {cite}`a2017`.
_ROLE = re.compile(r"\{[a-z:\-]+\}`[^`]*`")
_DIRECTIVE_OPTION = re.compile(r"^\s*:[a-z_\-]+:.*$", re.M)
_DIRECTIVE_HEAD = re.compile(r"^\s*(```+|:::+)\s*\{[^}]+\}.*$", re.M)
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_HTML_TAG = re.compile(r"<[^>]+>")
_NB_COMMENT = re.compile(r"<!--.*?-->", re.S)

# A number not glued to a word or a subscript (UR5, l_1, \tfrac12, eq-ch3 are not numbers in prose).
_NUMBER = re.compile(
    r"(?<![\w.\\^{])"  # not the tail of an identifier, a decimal, a TeX command, an exponent or a brace group
    r"(?P<num>(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)"  # 36,264 is one number; 1,2,3 is three
    r"(?P<exp>\s*(?:[eE][+\-−]?\d+|(?:\\times|×|\\cdot|·)\s*10\s*\^\s*\{?\s*[+\-−]?\d+\s*\}?))?"
    r"(?![\w])"
)
_POWER_OF_TEN = re.compile(r"(?<![\w.\\])10\s*\^\s*\{?\s*[+\-−]?\d+\s*\}?")


def significant_digits(num: str) -> int:
    """Significant digits of a plain number: leading zeros never count, an integer's trailing zeros do not either.

    >>> [significant_digits(s) for s in ("60", "500", "0.089159", "12.5", "1.50", "36,264", "2026")]
    [1, 1, 5, 3, 3, 5, 4]
    """
    digits = num.replace(",", "")
    if "." in digits:
        return len(digits.replace(".", "").lstrip("0"))
    return len(digits.lstrip("0").rstrip("0")) or 1


def prose(source: str) -> str:
    """The text of a Markdown cell with roles, directive heads and options, link targets and HTML removed."""
    text = _NB_COMMENT.sub(" ", source)
    text = _ROLE.sub(" ", text)
    text = _DIRECTIVE_HEAD.sub(" ", text)
    text = _DIRECTIVE_OPTION.sub(" ", text)
    text = _LINK_TARGET.sub("]", text)
    return _HTML_TAG.sub(" ", text)


def unglued_numbers(source: str) -> list[str]:
    """Computed-looking numbers typed into a Markdown cell.

    >>> unglued_numbers("max error {glue:text}`e:.1e` m over 500 targets, l1 = 60 mm")
    []
    >>> unglued_numbers("the error is 3.2e-12 m; the median gap is 108 degrees; UR5 link a_2 = 0.425 m")
    ['3.2e-12', '108', '0.425']
    >>> unglued_numbers(r"within $1.5 \\times 10^{-8}$ rad and $10^{-6}$")
    ['1.5 \\\\times 10^{-8}', '10^{-6}']
    """
    text = prose(source)
    found = []
    for m in _NUMBER.finditer(text):
        if m.group("exp") or significant_digits(m.group("num")) >= 3:
            found.append(" ".join(m.group(0).split()))
    for m in _POWER_OF_TEN.finditer(text):
        # a bare power of ten (10^{-6}) that is not the tail of an "a × 10^b" already reported
        head = text[max(0, m.start() - 12) : m.start()]
        if not re.search(r"(\\times|×|\\cdot|·)\s*$", head):
            found.append(" ".join(m.group(0).split()))
    return found


def allow_list(path: Path) -> dict[str, str]:
    """``number  # reason`` lines; a line without a reason is an error."""
    entries: dict[str, str] = {}
    if not path.exists():
        return entries
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        number, sep, reason = line.partition("#")
        assert sep and reason.strip(), f"{path.name}:{lineno}: give the reason after '#': {line!r}"
        entries[" ".join(number.split())] = reason.strip()
    return entries


def _chapter_id(nb: Path) -> str:
    return "ch" + nb.name[:2]


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=_chapter_id)
def test_prose_numbers_are_glued(nb_path):
    nb = nbformat.read(nb_path, as_version=4)
    allowed = allow_list(ALLOW_DIR / f"{nb_path.name[:2]}.txt")
    used, offending = set(), []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        for number in unglued_numbers(cell.source):
            if number in allowed:
                used.add(number)
            else:
                offending.append(f"cell {index}: {number!r}")
    assert not offending, (
        f"{nb_path.name}: numbers typed into the prose (glue them, or allow-list a genuine input in "
        f"tests/claims_allow/{nb_path.name[:2]}.txt with its reason):\n  " + "\n  ".join(offending)
    )
    stale = sorted(set(allowed) - used)
    assert not stale, f"tests/claims_allow/{nb_path.name[:2]}.txt lists numbers the chapter no longer uses: {stale}"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("over 500 targets with l1 = 60 mm and 1 kHz", []),
        ("the residual is 2.3e-13 m", ["2.3e-13"]),
        ("the gap is 97.4 mm", ["97.4"]),
        ("we solved 36,264 targets", ["36,264"]),
        (r"$\varepsilon = 10^{-9}$", ["10^{-9}"]),
        (r"$4.8 \times 10^{-10}$", [r"4.8 \times 10^{-10}"]),
        ("{glue:text}`ch3_err:.1e` m and {eq}`eq-ch3-ik` and {cite}`lynch2017`", []),
        ("```{math}\n:label: eq-ch12-x\nx = 2\n```", []),
        ("the UR5 and $l_{12}$ and $\\tfrac12$ and ch3", []),
        ("[link](https://example.org/v1.234/page)", []),
        ("`tol=1e-9`", ["1e-9"]),
        ("joints 1,2,3 and 4", []),
    ],
)
def test_scanner_flags_what_it_should(source, expected):
    assert unglued_numbers(source) == expected


def test_allow_list_needs_reasons(tmp_path):
    bad = tmp_path / "99.txt"
    bad.write_text("0.089159\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="reason"):
        allow_list(bad)
    good = tmp_path / "98.txt"
    good.write_text("# header\n0.089159  # official UR5 d1\n", encoding="utf-8")
    assert allow_list(good) == {"0.089159": "official UR5 d1"}


def test_claims_page_covers_every_chapter():
    claims = (ROOT / "book" / "claims.md").read_text(encoding="utf-8")
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    assert "book/claims" in toc, "book/claims.md must be listed in _toc.yml (Reference part)"
    for nb in NOTEBOOKS:
        assert re.search(rf"^## Chapter {int(nb.name[:2])}\b", claims, re.M), f"book/claims.md lacks chapter {nb.name}"


def _cells(row):
    """Cells of a Markdown table row: a pipe escaped as ``\\|`` (also inside inline code) is not a boundary."""
    return re.split(r"(?<!\\)\|", row.strip())[1:-1]


def test_cells_split_on_unescaped_pipes_only():
    assert _cells(r"| `max\|q\|` bounded | assert `a \| b` |") == [r" `max\|q\|` bounded ", r" assert `a \| b` "]
    assert len(_cells("| `np.all(a | b)` | cell |")) == 3  # the slip this guards against


def test_every_claims_row_has_a_claim_and_a_check():
    """An unescaped `|` inside a cell (`np.all(a | b)`) cuts the row: the reader and the translation get a fragment."""
    claims = (ROOT / "book" / "claims.md").read_text(encoding="utf-8")
    rows = [r for r in claims.splitlines() if r.startswith("|") and not re.match(r"^\|\s*-", r)]
    bad = [r[:100] for r in rows if len(_cells(r)) != 2 or not all(c.strip() for c in _cells(r))]
    assert len(rows) > 300 and not bad, "rows that are not `| claim | check |` (escape a | as \\|):\n" + "\n".join(bad)
