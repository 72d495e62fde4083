"""The drift-order protocol's judging (LJ22 Section 4's invariances): every smooth trajectory of a
drift study is judged by ``check_convergence_order`` (or its control) under the fixed protocol of
``claims.lj22`` (``FIT_POINTS``, ``SLOPE_BAND``, ``DRIFT_RATIOS``), and the trajectories that cannot be
judged are counted. The studies themselves (integration, drifts, rounding floors) are computed in
``claims.lj22._invariants``; only their judgement records evidence, so it lives here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

from claims.checks._dynamics import fit_selection, log_log_fit
from claims.evidence._record import count_cases_as, record_series

if TYPE_CHECKING:
    from claims.lj22 import DriftStudy


def judge_order(
    studies: Sequence[DriftStudy], name: str, check: Callable[..., float],
    keep: Callable[[int], Sequence[int] | None] = lambda index: None,
    include: Callable[[int], bool] = lambda index: True, **details,
) -> dict[str, int]:
    """Judge balance ``name`` on every smooth trajectory of every study with ``check``
    (``check_convergence_order`` or its ``_rejected`` control) under the fixed protocol; returns how
    many trajectories were judged and how many were left out as not smooth (a pattern or a sign
    changed: outside Assumption 1 and outside the order argument), as static (nothing moved above
    rounding) or as not asymptotic (fewer than 3 drifts in the asymptotic regime). ``include`` selects the
    trajectories inside the claim's other hypotheses (e.g. equal activation patterns), ``keep`` the
    submatrix of a matrix Q per trajectory. The tally also gives each integrator's range of fitted
    slopes (``euler slope range``, ``rk4 slope range``)."""
    # imported here: claims.checks loads without torch (the plugin's startup imports it)
    from claims.lj22._invariants import DRIFT_RATIOS, FIT_POINTS, SLOPE_BAND

    count_cases_as("trajectories")
    tally: dict = {"judged": 0, "not smooth": 0, "static": 0, "not asymptotic": 0}
    for study in studies:
        for index in range(study.smooth.shape[0]):
            if not include(index):
                continue
            if not bool(study.smooth[index]):
                tally["not smooth"] += 1
                continue
            evidence = study.evidence(name, index, keep(index))
            if max(evidence["drifts"] + [evidence["term_change"]]) <= evidence["floors"][0]:
                tally["static"] += 1  # neither Q nor its terms moved (e.g. dead vertices): nothing to judge
                continue
            if sum(evidence["usable"]) < FIT_POINTS:
                tally["not asymptotic"] += 1  # fewer than 3 drifts in the asymptotic regime: no order to fit
                continue
            fit = fit_selection(evidence["step_sizes"], evidence["drifts"], evidence["floors"], evidence["usable"],
                                FIT_POINTS)
            slope = float(log_log_fit(fit).slope)
            tally.setdefault(f"{study.method} slopes", []).append(round(slope, 3))
            record_series("drift against step size", balance=name, trajectory=index, method=study.method,
                          order=study.order, step_sizes=evidence["step_sizes"], drifts=evidence["drifts"],
                          floors=evidence["floors"], usable=evidence["usable"], slope=slope,
                          term_change=evidence["term_change"])
            check(
                evidence.pop("step_sizes"), evidence.pop("drifts"), evidence.pop("order"), SLOPE_BAND,
                evidence.pop("term_change"), DRIFT_RATIOS[study.method], evidence.pop("floors"), fit_points=FIT_POINTS,
                trajectory=index,
                balance=name, **evidence, **details,
            )
            tally["judged"] += 1
    for key in [k for k in tally if k.endswith("slopes")]:
        slopes = sorted(tally.pop(key))
        tally[key.replace("slopes", "slope range")] = [slopes[0], slopes[-1]]
    return tally


def assert_judged(tally: dict) -> None:
    """A main test's trajectories are evidence only if most were judged: at least one, and no fewer
    than were left out as not asymptotic (where a small noninvariance could hide)."""
    if tally["judged"] == 0 or tally["not asymptotic"] > tally["judged"]:
        raise AssertionError(f"too few trajectories judged: {tally}")


def combined_tally(tallies: Sequence[dict]) -> dict:
    """Several ``judge_order`` tallies as one: counts added, slope ranges joined."""
    total: dict = {}
    for tally in tallies:
        for key, value in tally.items():
            if key.endswith("slope range"):
                low, high = total.get(key, value)
                total[key] = [min(low, value[0]), max(high, value[1])]
            else:
                total[key] = total.get(key, 0) + value
    return total
