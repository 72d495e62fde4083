"""The report's JSON: strict JSON text (``dumps``) for claims.json, history entries and the test-report
properties the plugin records, and its inverse (``loads``). A non-finite float (an infinite or NaN
error) is written as its name, ``"inf"``, ``"-inf"`` or ``"nan"``, and read back as the float."""

from __future__ import annotations

import json
import math
from typing import Any


def _json_safe(value: Any) -> Any:
    """Strict JSON: a non-finite float (an infinite or NaN error) is written as its name."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


_NON_FINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def _revive(value: Any) -> Any:
    if isinstance(value, str) and value in _NON_FINITE:
        return _NON_FINITE[value]
    if isinstance(value, dict):
        return {k: _revive(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_revive(v) for v in value]
    return value


def dumps(value: Any, **options: Any) -> str:
    """Strict JSON text (the report files, and test-report properties such as JUnit XML's)."""
    return json.dumps(_json_safe(value), allow_nan=False, **options)


def loads(text: str) -> Any:
    """The inverse of ``dumps``: non-finite floats come back as floats."""
    return _revive(json.loads(text))
