"""Reading a report back: what makes a JSON value a claims report of this suite's schema.

A report read from disk (``claims.json``, a history entry) is the side of a comparison, so a value the
comparison cannot rank must be refused when it is read, not compared: a verdict ``"bogus"`` would rank
below ``error`` and read as a regression of everything, or hide one. ``validate_report`` checks the
schema, the sections, and every field that takes one of a fixed set of values (a claim's verdict and
control state, a run's selection and completeness, a test's role and outcome, a trend's
verdict, the summary's verdicts). ``BaselineError``'s text is one line, ``<file>: <what is wrong>``,
so that the CLI and the plugin can print it as is.
"""

from __future__ import annotations

import json
import re
from typing import Any

from claims.evidence._record import VERDICTS
from claims.evidence._role import ROLES
from claims.report._model import CONTROL_STATES, NOT_RUN, SCHEMA
from claims.report._schema import OLD_CONTROL_STATE, UPGRADABLE

_SCHEMA_FAMILY = re.compile(r"^lowrank-claims/report/(\d+)$")

SELECTIONS = ("full", "partial")
OUTCOMES = ("passed", "failed", "error", NOT_RUN)
TREND_VERDICTS = ("verified", "refuted", "inconclusive")


class BaselineError(Exception):
    """A report that cannot serve as a comparison's side: one line, ``<file>: <what is wrong>``."""


def schema_version(schema: str) -> int | None:
    match = _SCHEMA_FAMILY.match(schema)
    return int(match.group(1)) if match else None


def _one_of(label: str, where: str, field: str, value: Any, allowed: tuple) -> None:
    if value not in allowed or isinstance(value, bool) != isinstance(allowed[0], bool):
        shown = ", ".join(json.dumps(a) if isinstance(a, bool) else str(a) for a in allowed)
        raise BaselineError(f"{label}: wrong schema: {where} has {field} {json.dumps(value, default=str)}, "
                            f"not one of {shown}")


def _check_schema(report: Any, label: str) -> None:
    if not isinstance(report, dict):
        raise BaselineError(f"{label}: not a claims report (a JSON {type(report).__name__}, not an object)")
    if "schema" not in report:
        raise BaselineError(f'{label}: not a claims report (no "schema" key)')
    schema = report["schema"]
    if schema != SCHEMA and schema not in UPGRADABLE:
        version, ours = schema_version(str(schema)), schema_version(SCHEMA)
        if version is None:
            raise BaselineError(f"{label}: not a claims report (schema {schema!r})")
        if version < ours:
            raise BaselineError(
                f"{label}: schema {schema} is older than this suite's {SCHEMA}; rerun the baseline with this version"
            )
        raise BaselineError(
            f"{label}: schema {schema} is newer than this suite's {SCHEMA}; compare with that newer version"
        )
    for key, kind in (("run", dict), ("claims", list), ("summary", dict)):
        if key not in report:
            raise BaselineError(f'{label}: wrong schema: no "{key}"')
        if not isinstance(report[key], kind):
            raise BaselineError(f'{label}: wrong schema: "{key}" is not {"a list" if kind is list else "an object"}')


def _check_claim(claim: dict[str, Any], where: str, label: str) -> None:
    _one_of(label, where, "verdict", claim["verdict"], VERDICTS)
    for key in ("control_state", OLD_CONTROL_STATE):  # the old name in a report of schema 2, renamed on loading
        if key in claim:
            _one_of(label, where, "control state", claim[key], tuple(CONTROL_STATES))
    for j, test in enumerate(claim.get("evidence") or []):
        if not isinstance(test, dict):
            raise BaselineError(f"{label}: wrong schema: {where}, evidence[{j}] is not an object")
        test_where = f"{where}, evidence[{j}]"
        if "role" in test:
            _one_of(label, test_where, "role", test["role"], ROLES)
        if "outcome" in test:
            _one_of(label, test_where, "outcome", test["outcome"], OUTCOMES)
        for k, trend in enumerate(test.get("trends") or []):
            if isinstance(trend, dict) and "verdict" in trend:
                _one_of(label, f"{test_where}, trends[{k}]", "verdict", trend["verdict"], TREND_VERDICTS)
    for k, trend in enumerate(claim.get("trends") or []):
        if isinstance(trend, dict) and "verdict" in trend:
            _one_of(label, f"{where}, trends[{k}]", "verdict", trend["verdict"], TREND_VERDICTS)


def validate_report(report: Any, label: str) -> None:
    """Raise ``BaselineError`` (one line naming ``label``) unless ``report`` is a claims report of this
    schema whose enumerated fields hold known values."""
    _check_schema(report, label)
    run = report["run"]
    if "selection" in run:
        _one_of(label, "run", "selection", run["selection"], SELECTIONS)
    if "complete" in run:
        _one_of(label, "run", "complete", run["complete"], (True, False))
    seen: set[str] = set()
    for index, claim in enumerate(report["claims"]):
        if (not isinstance(claim, dict) or not isinstance(claim.get("id"), str)
                or not isinstance(claim.get("verdict"), str)):
            raise BaselineError(f'{label}: wrong schema: claims[{index}] is not an object with an "id" and a "verdict"')
        if claim["id"] in seen:
            raise BaselineError(f"{label}: wrong schema: claim {claim['id']} is listed twice")
        seen.add(claim["id"])
        _check_claim(claim, f"claims[{index}] ({claim['id']})", label)
    for verdict in report["summary"]:
        _one_of(label, "the summary", "verdict", verdict, VERDICTS)
