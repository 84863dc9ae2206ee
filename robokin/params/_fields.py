"""Reading typed, unit-suffixed fields out of a parsed TOML table (internal).

A field is declared by a :class:`Field`: its base name, its physical kind (which fixes the accepted unit
suffixes), its shape and whether it is required. :class:`Section` reads one TOML table against a list of fields,
rejects unknown keys (a typo must not be ignored silently) and converts every value to SI.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

#: Accepted unit suffixes per kind and their factor to SI. Lengths also in mm and angles also in degrees: those are
#: the units of drawings and datasheets; everything else only in SI, so a file is never ambiguous.
UNITS: dict[str, dict[str, float]] = {
    "length": {"m": 1.0, "mm": 1e-3},
    "angle": {"rad": 1.0, "deg": math.pi / 180.0},
    "mass": {"kg": 1.0},
    "inertia": {"kg_m2": 1.0},
    "torque": {"N_m": 1.0},
    "force": {"N": 1.0},
    "angular_speed": {"rad_s": 1.0},
    "angular_acceleration": {"rad_s2": 1.0},
    "angular_jerk": {"rad_s3": 1.0},
    "speed": {"m_s": 1.0},
    "acceleration": {"m_s2": 1.0},
    "time": {"s": 1.0},
}
#: Kinds without a unit: dimensionless numbers, integers, strings, booleans.
PLAIN = ("number", "integer", "string", "boolean")


class ParameterFileError(ValueError):
    """A parameter file that cannot be read or describes an impossible design.

    Attributes
    ----------
    file : str
        The file's path.
    field : str
        The dotted TOML key at fault (``"linkage.l1_m"``), ``"<toml>"`` for a syntax error.
    value : object
        The offending value (``None`` when the field is missing).
    expected : str
        What the field should hold.

    Examples
    --------
    >>> err = ParameterFileError("leg.toml", "leg.l1_m", -0.2, "a positive length")
    >>> print(err)
    leg.toml: field 'leg.l1_m' = -0.2: expected a positive length
    >>> isinstance(err, ValueError)
    True
    """

    def __init__(self, file: str | Path, field: str, value: Any, expected: str) -> None:
        self.file, self.field, self.value, self.expected = str(file), field, value, expected
        shown = "missing" if value is None else f"= {_short(value)}"
        super().__init__(f"{self.file}: field '{field}' {shown}: expected {expected}")


ParameterFileError.__module__ = "robokin.params"  # its documented home (re-exported there)


def _short(value):
    s = repr(value)
    return s if len(s) <= 80 else s[:77] + "..."


@dataclass(frozen=True)
class Field:
    """One declared field: ``name`` without unit suffix, ``kind`` (key of :data:`UNITS` or :data:`PLAIN`).

    ``shape`` is ``()`` for a scalar, a tuple of ints and ``"n"`` (a length fixed by the file, e.g. the joint
    count) for arrays. ``check`` is ``"positive"``, ``"nonnegative"``, ``"unit_interval"`` or ``None``.
    ``options`` restricts a string. ``doc`` is the one-line meaning shown in the schema table.
    """

    name: str
    kind: str
    doc: str
    shape: tuple = ()
    required: bool = True
    check: str | None = None
    options: tuple[str, ...] = ()

    def keys(self) -> list[str]:
        """The TOML keys that may hold this field (one per accepted unit)."""
        if self.kind in PLAIN:
            return [self.name]
        return [f"{self.name}_{u}" for u in UNITS[self.kind]]

    def unit_text(self) -> str:
        return "-" if self.kind in PLAIN else " or ".join(UNITS[self.kind])


class Section:
    """Reader of one TOML table: ``Section(file, "linkage", table, fields).get("l1")`` returns SI values."""

    def __init__(self, file: str | Path, path: str, table: Any, fields: list[Field], *, n: int | None = None):
        self.file, self.path, self.fields = str(file), path, {f.name: f for f in fields}
        if not isinstance(table, dict):
            raise ParameterFileError(file, path, table, "a TOML table ([" + path + "])")
        self.table = table
        self.n = n
        known = {k: f for f in fields for k in f.keys()}
        for key in table:
            if key not in known:
                f = self._guess(key)
                hint = (
                    f"field {f.name!r} in {f.unit_text()} (keys {', '.join(f.keys())})"
                    if f is not None
                    else "one of " + ", ".join(sorted(known))
                )
                raise ParameterFileError(file, self._key(key), table[key], hint)

    def _key(self, key):
        return f"{self.path}.{key}" if self.path else key

    def _guess(self, key):
        """The declared field a wrong key was probably meant for (bare name or a unit not accepted)."""
        for f in self.fields.values():
            if key == f.name or (f.kind not in PLAIN and key.startswith(f.name + "_")):
                return f
        return None

    def has(self, name: str) -> bool:
        return any(k in self.table for k in self.fields[name].keys())

    def get(self, name: str, default: Any = None) -> Any:
        """The field's value in SI (float, int, str, bool or float ndarray); ``default`` if absent and optional."""
        f = self.fields[name]
        present = [k for k in f.keys() if k in self.table]
        if len(present) > 1:
            raise ParameterFileError(
                self.file, self._key(present[1]), self.table[present[1]], f"only one of {', '.join(present)}"
            )
        if not present:
            if f.required:
                expected = f"{f.doc} ({' or '.join(f.keys())})"
                raise ParameterFileError(self.file, self._key(f.keys()[0]), None, expected)
            return default
        key = present[0]
        raw = self.table[key]
        where = self._key(key)
        if f.kind == "string":
            if not isinstance(raw, str) or (f.options and raw not in f.options):
                want = "one of " + ", ".join(repr(o) for o in f.options) if f.options else "a string"
                raise ParameterFileError(self.file, where, raw, want)
            return raw
        if f.kind == "boolean":
            if not isinstance(raw, bool):
                raise ParameterFileError(self.file, where, raw, "true or false")
            return raw
        if f.kind == "integer":
            if isinstance(raw, bool) or not isinstance(raw, int):
                raise ParameterFileError(self.file, where, raw, f"an integer ({f.doc})")
            self._range(where, raw, f)
            return raw
        factor = 1.0 if f.kind in PLAIN else UNITS[f.kind][key[len(f.name) + 1 :]]
        value = self._numbers(where, raw, f)
        value = value * factor
        self._range(where, raw, f, value)
        return float(value) if value.ndim == 0 else value

    def _numbers(self, where, raw, f):
        shape = tuple(self.n if s == "n" else s for s in f.shape)
        what = f"{f.doc}: " + ("a number" if not shape else f"an array of shape {list(shape)} of numbers")
        if not _numeric(raw):
            raise ParameterFileError(self.file, where, raw, what)
        try:
            arr = np.asarray(raw, dtype=float)
        except (TypeError, ValueError):  # ragged nested lists
            raise ParameterFileError(self.file, where, raw, what) from None
        if arr.shape != shape:
            extra = ""
            if "n" in f.shape and self.n is not None and arr.ndim == len(shape):
                extra = f" (the DH table has {self.n} joints, this field has {arr.shape[0]} entries)"
            raise ParameterFileError(self.file, where, raw, what + extra)
        if not np.all(np.isfinite(arr)) or np.any(np.abs(arr) > 1e12):
            raise ParameterFileError(self.file, where, raw, what + ", finite and of SI magnitude (below 1e12)")
        return arr

    def _range(self, where, raw, f, value=None):
        v = np.asarray(raw if value is None else value, dtype=float)
        bad = {
            "positive": (v <= 0, "a positive value"),
            "nonnegative": (v < 0, "a non-negative value"),
            "unit_interval": ((v <= 0) | (v > 1), "a value in (0, 1]"),
        }.get(f.check)
        if bad is not None and np.any(bad[0]):
            raise ParameterFileError(self.file, where, raw, f"{f.doc}: {bad[1]}")


def _numeric(raw):
    """True for a real number or a (nested) list of them; booleans and strings are not numbers."""
    if isinstance(raw, bool):
        return False
    if isinstance(raw, (int, float)):
        return True
    if isinstance(raw, list):
        return all(_numeric(v) for v in raw)
    return False


def schema_table(fields: list[Field], section: str) -> list[tuple[str, str, str, str]]:
    """Rows ``(key, unit, required, meaning)`` of one section's schema, for the docs and ``report --list``."""
    rows = []
    for f in fields:
        key = f"{section}.{f.name}" if section else f.name
        if f.kind not in PLAIN:
            key += "_<unit>"
        shape = "" if not f.shape else " [" + ", ".join(str(s) for s in f.shape) + "]"
        opts = f" (one of {', '.join(repr(o) for o in f.options)})" if f.options else ""
        rows.append((key, f.unit_text(), "yes" if f.required else "no", f.doc + shape + opts))
    return rows
