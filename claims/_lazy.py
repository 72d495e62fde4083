"""Lazy public names: a package lists which of its private modules defines each public name, and the
module is imported on first use. So the plugin, which imports the evidence, report and session layers
at pytest startup, pays for torch, scipy and matplotlib only when a test needs them."""

from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping, Sequence


def lazy_exports(package: str, exports: Mapping[str, Sequence[str]]) -> tuple[list[str], Callable, Callable]:
    """(``__all__``, ``__getattr__``, ``__dir__``) for ``package``, whose public names are
    ``exports``: module (relative to the package, e.g. ``"._record"``) -> names it defines."""
    module_of = {name: module for module, names in exports.items() for name in names}
    public = sorted(module_of)

    def __getattr__(name: str) -> Any:
        if name not in module_of:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module_of[name], package), name)
        setattr(importlib.import_module(package), name, value)
        return value

    def __dir__() -> list[str]:
        return public

    return public, __getattr__, __dir__
