"""Type hints on the public API: every public function and method is fully annotated, and the hints resolve.

Public means listed in a module's ``__all__`` (robokin/*.py and robokin/validation/*.py; a validation module
without ``__all__`` exposes its module-level functions, ``validate`` and helpers such as ``scenario``), plus the
methods, properties, classmethods and ``__init__``/``__call__`` defined by a public class. Every parameter except
``self``/``cls``/``*args``/``**kwargs`` needs an annotation and so does the return; ``typing.get_type_hints``
must resolve them, so a misspelt name or one imported only under ``TYPE_CHECKING`` fails here (and would
otherwise show up as a nitpicky warning on the API page).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import typing

import pytest

import robokin
import robokin.validation

#: Public callables that may stay unannotated, with the reason. Keep it short.
SKIP: dict[str, str] = {}


def _modules():
    for pkg in (robokin, robokin.validation):
        for info in pkgutil.iter_modules(pkg.__path__):
            if info.name.startswith("_"):
                continue
            yield importlib.import_module(f"{pkg.__name__}.{info.name}")


def _public_names(mod):
    if hasattr(mod, "__all__"):
        return list(mod.__all__)
    return [n for n, v in vars(mod).items() if not n.startswith("_") and inspect.isfunction(v)]


def _generated_init(cls, func):
    """True for the ``__init__`` that ``@dataclass`` writes (its annotations are the fields', checked elsewhere)."""
    return dataclasses.is_dataclass(cls) and func.__code__.co_filename == "<string>"


def _entry_points():
    out = {}
    for mod in _modules():
        for name in _public_names(mod):
            obj = getattr(mod, name)
            if getattr(obj, "__module__", None) != mod.__name__:
                continue  # re-exported: checked where it is defined
            key = f"{mod.__name__}.{name}"
            if inspect.isfunction(obj):
                out[key] = obj
            elif inspect.isclass(obj):
                for attr, val in vars(obj).items():
                    if attr.startswith("_") and attr not in ("__init__", "__call__"):
                        continue
                    if isinstance(val, (classmethod, staticmethod)):
                        val = val.__func__
                    elif isinstance(val, property):
                        val = val.fget
                    if inspect.isfunction(val) and not _generated_init(obj, val):
                        out[f"{key}.{attr}"] = val
    return out


def missing_hints(func) -> list[str]:
    """Names of the unannotated parameters of ``func`` (and ``"return"``), or the error resolving its hints."""
    sig = inspect.signature(func)
    skip = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    out = [
        p.name
        for p in sig.parameters.values()
        if p.name not in ("self", "cls") and p.kind not in skip and p.annotation is inspect.Parameter.empty
    ]
    if sig.return_annotation is inspect.Signature.empty:
        out.append("return")
    try:
        typing.get_type_hints(func)
    except Exception as exc:  # NameError for an unknown name, TypeError/SyntaxError for a malformed hint
        out.append(f"unresolvable: {type(exc).__name__}: {exc}")
    return out


ENTRIES = _entry_points()


def test_discovery_finds_the_api():
    # a broken discovery would make every test below pass vacuously
    assert len(ENTRIES) > 250
    for key in ("robokin.transforms.rotx", "robokin.ik.ik_dls", "robokin.stewart.Stewart.fk",
                "robokin.serial.SerialArm.from_dh", "robokin.validation.control.validate"):  # fmt: skip
        assert key in ENTRIES
    assert not any(k.endswith("IKResult.__init__") for k in ENTRIES)  # dataclass-generated


@pytest.mark.parametrize("key", sorted(ENTRIES))
def test_public_callable_is_annotated(key):
    if key in SKIP:
        pytest.skip(SKIP[key])
    assert missing_hints(ENTRIES[key]) == []


def test_checker_catches_a_missing_hint():
    def no_hints(x, y: int = 1, *args, z=None, **kwargs):
        return x

    def unknown_name(x: NoSuchType) -> None:  # noqa: F821
        return None

    def complete(x: int, *args: float, z: str | None = None, **kwargs: object) -> int:
        return x

    assert missing_hints(no_hints) == ["x", "z", "return"]
    assert missing_hints(unknown_name)[0].startswith("unresolvable: NameError")
    assert missing_hints(complete) == []
