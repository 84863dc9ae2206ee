"""Parameter files: a reader's own robot, described in TOML, built into the course's mechanism objects.

One schema per family (``FAMILIES``); every file starts with ``family = "<name>"`` and an optional
``name = "..."``, then the family's tables. Read a file with :func:`load`; it returns a small frozen *design*
dataclass holding the mechanism object (``design.mechanism``) and the extra data the reports need (motor,
gearbox, limits, targets). :func:`schema` lists every field with its unit.

Units
-----
Every physical field carries its unit in its key: ``l1_m = 0.06``, ``alpha_deg = [90, 0, ...]``,
``mass_kg = 12``. A bare ``l1 = 0.06`` is refused, and so is an unknown unit (``l1_cm``): a number whose unit is
only in the author's head is the commonest silent error in a design file, and the suffix makes the unit part of
what the reader checks. Lengths may be given in ``m`` or ``mm`` and angles in ``rad`` or ``deg`` (the units of
drawings and datasheets); they are converted to SI once, here. Every other quantity is SI only (``kg``,
``kg_m2``, ``N_m``, ``N``, ``rad_s``, ``rad_s2``, ``m_s``, ``m_s2``, ``s``), so no file is ambiguous.

Errors
------
Any problem, from a TOML syntax error (with its line) to a five-bar that cannot close, raises one
:class:`ParameterFileError` (a ``ValueError``) naming the file, the field, the value and what was expected.

Examples
--------
>>> from pathlib import Path
>>> design = loads('family = "fivebar"\\n[linkage]\\nl1_mm = 60\\nl2_mm = 60\\nl3_mm = 100\\nl4_mm = 100\\nd_mm = 70')
>>> design.mechanism
FiveBar(l1=0.06, l2=0.06, l3=0.1, l4=0.1, d=0.07)
>>> loads('family = "fivebar"\\n[linkage]\\nl1 = 0.06')
Traceback (most recent call last):
...
robokin.params.ParameterFileError: <string>: field 'linkage.l1' = 0.06: expected field 'l1' in m or mm (keys l1_m, l1_mm)
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from ._fields import ParameterFileError, schema_table
from ._paths import data_dir
from .families import ARRAYS_OF_TABLES, FAMILIES, REQUIRED, SCHEMAS, ContestTask, Design

__all__ = [
    "ParameterFileError",
    "FAMILIES",
    "Design",
    "ContestTask",
    "load",
    "loads",
    "schema",
    "schema_markdown",
    "examples",
]

#: Folder of the shipped example files (``examples/robots`` of the source tree, or of an installed wheel's data).
EXAMPLES = data_dir("examples", "robots")


def loads(
    text: str, *, family: str | None = None, file: str | Path = "<string>", base_dir: Path | None = None
) -> Design | ContestTask:
    """Build a design from TOML text (see :func:`load`); ``file`` is the name used in error messages."""
    if not isinstance(text, str):
        raise ParameterFileError(file, "<toml>", type(text).__name__, "TOML text (str)")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ParameterFileError(file, "<toml>", str(exc), "valid TOML (fix the syntax at that line)") from None
    return _build(data, family=family, file=file, base_dir=Path(".") if base_dir is None else base_dir)


def load(path: str | Path, *, family: str | None = None) -> Design | ContestTask:
    """Read and check a parameter file and build its design.

    Parameters
    ----------
    path : str or Path
        A TOML file (UTF-8).
    family : str, optional
        The family the caller expects (one of ``FAMILIES``); a file of another family is refused.

    Returns
    -------
    Design
        The family's design dataclass; ``design.mechanism`` is the robokin object (``FiveBar``, ``SerialArm``,
        ...), ``design.source`` the path. A contest file returns a :class:`ContestTask`.

    Raises
    ------
    ParameterFileError
        The file is missing or unreadable, is not valid TOML, lacks a field, has a field of the wrong type,
        shape or unit, or describes an impossible design.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterFileError(str(type(path).__name__), "<file>", path, "a file path (str or pathlib.Path)")
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ParameterFileError(p, "<file>", str(p), f"a readable UTF-8 TOML file ({type(exc).__name__})") from None
    return loads(text, family=family, file=p, base_dir=p.parent)


def _build(data: dict[str, Any], *, family, file, base_dir):
    fam = data.get("family")
    if not isinstance(fam, str) or fam not in FAMILIES:
        raise ParameterFileError(file, "family", fam, "one of " + ", ".join(repr(f) for f in FAMILIES))
    if family is not None and (not isinstance(family, str) or family not in FAMILIES):
        raise ValueError(f"family must be one of {', '.join(FAMILIES)} or None; got {family!r}")
    if family is not None and fam != family:
        raise ParameterFileError(file, "family", fam, f"{family!r} (the family asked for)")
    return FAMILIES[fam](data, file=file, base_dir=base_dir)


def schema(family: str) -> list[tuple[str, str, str, str]]:
    """The documented schema of a family: rows ``(key, unit, required, meaning)``.

    Examples
    --------
    >>> schema("two_link_leg")[2:4]
    [('[leg]', '-', 'yes', 'table'), ('leg.l1_<unit>', 'm or mm', 'yes', 'thigh length, hip to knee')]
    """
    if not isinstance(family, str) or family not in SCHEMAS:
        raise ValueError(f"family must be one of {', '.join(FAMILIES)}; got {family!r}")
    rows = [("family", "-", "yes", f'"{family}"'), ("name", "-", "no", "design name shown in the report")]
    for section, fields in SCHEMAS[family]:
        if section:
            kind = "array of tables" if section in ARRAYS_OF_TABLES else "table"
            need = "yes" if section in REQUIRED[family] else "no"
            rows.append((f"[[{section}]]" if section in ARRAYS_OF_TABLES else f"[{section}]", "-", need, kind))
        rows += schema_table(fields, section)
    return rows


def schema_markdown(family: str) -> str:
    """The schema of a family as a Markdown table (the "Use it on your robot" page shows these).

    Examples
    --------
    >>> print(schema_markdown("mecanum").splitlines()[4])
    | `family` | - | yes | "mecanum" |
    """
    lines = [f"### `{family}`", "", "| key | unit suffix | required | meaning |", "| --- | --- | --- | --- |"]
    for key, unit, req, doc in schema(family):
        lines.append(f"| `{key}` | {unit} | {req} | {doc.replace('|', chr(92) + '|')} |")
    return "\n".join(lines)


def examples(family: str | None = None) -> list[Path]:
    """The shipped example files (all, or one family's), sorted by name."""
    files = sorted(EXAMPLES.glob("*.toml"))
    if family is None:
        return files
    return [f for f in files if tomllib.loads(f.read_text(encoding="utf-8")).get("family") == family]
