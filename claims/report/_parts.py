"""The report's text, shared by its renderings: its sentences built once as lists of parts (plain
text, ``Code``, ``Strong``, ``Emphasis``) and written out by a ``Markup``, Markdown in
``claims.report._markdown`` and HTML in ``claims.report._html``. So claims.md and claims.html say
the same thing, and only their structure (tables, lists) differs. Also the table headers and cells,
the one-line summary (``summary_line``, printed by the plugin too) and how numbers are shown."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from claims.checks._trends import RULE_LEAD, SCALE_LEAD
from claims.evidence._kinds import KEPT, kind_of
from claims.evidence._paper import SUITES_QUESTION
from claims.report._headline import (
    case_text,
    claim_headline,
    claim_trends,
    entry_kinds,
    format_error,
    format_number,
    kind_items,
    kind_lines,
    reading,
    per_test_headline,
)
from claims.report._model import NOT_RUN, why_text
from claims.report._scope import SUITE, scale_sentence

BEYOND_PAPERS = ("Questions beyond the papers: the suite's own questions, asked with a paper's objects. No paper "
                 "states them, so their answers are findings, counted apart: never a paper's refutation or erratum.")
SETTING_HEADER = ("Setting", "The paper", "Tested here")


def paper_claims(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The claims that state a paper's sentence."""
    return [c for c in report["claims"] if c["origin"] != SUITE]


def beyond_paper_claims(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The suite's own questions about the papers."""
    return [c for c in report["claims"] if c["origin"] == SUITE]


def power_lines(c: dict[str, Any]) -> list[str]:
    """One line per power check of the claim's tests (``claims.check_power``): its requirement, met or not, in
    how many of the checks the test made (a check per width, per design, ...)."""
    lines = []
    for t in c["evidence"]:
        checks: dict[str, list[bool]] = {}
        for p in t["power"]:
            checks.setdefault(p["requirement"], []).append(bool(p["achieved"]))
        for requirement, met in checks.items():
            state = "met" if all(met) else "NOT met (the test lacked power)"
            lines.append(f"Power of {t['nodeid'].split('::')[-1]}: {requirement}: {state} in {sum(met)} of "
                         f"{len(met)} checks.")
    return lines


def setting_rows(c: dict[str, Any]) -> list[list[str]]:
    """An empirical claim's setting, field by field: the paper's beside the tested one (none: [])."""
    return [[name, values["paper"], values["tested"]] for name, values in (c["setting"] or {}).items()]


def summary_line(report: dict[str, Any]) -> str:
    """The one-line summary, e.g. "claims: 30 verified, 2 refuted", saying when the run was partial or
    incomplete."""
    run = report["run"]
    counts = ", ".join(f"{n} {verdict}" for verdict, n in report["summary"].items() if n)
    beyond = ", ".join(f"{n} {verdict}" for verdict, n in report["summary_beyond_papers"].items() if n)
    counts += f"; questions beyond the papers: {beyond}" if beyond else ""
    scope = ""
    if run.get("selection") == "partial":
        scope = f" (partial run, {len(run.get('selected_claims', []))} claims selected)"
    state = "" if run["complete"] else " (incomplete run: not every selected test finished)"
    return f"claims{scope}: {counts}{state}"


class Code(str):
    """A part written as code (a nodeid, a command)."""


class Strong(str):
    """A part written in bold (a verdict)."""


class Emphasis(str):
    """A part written in italics (a finding's name)."""


Parts = list[str]


@dataclass(frozen=True)
class Markup:
    """How parts are written: ``text`` escapes plain text; ``cell`` flattens text for a table cell;
    ``lines`` writes several lines of plain text into one table cell."""

    text: Callable[[str], str]
    code: Callable[[str], str]
    strong: Callable[[str], str]
    emphasis: Callable[[str], str]
    cell: Callable[[str], str]
    lines: Callable[[list[str]], str]

    def join(self, parts: Parts) -> str:
        out = []
        for part in parts:
            if isinstance(part, Code):
                out.append(self.code(part))
            elif isinstance(part, Strong):
                out.append(self.strong(part))
            elif isinstance(part, Emphasis):
                out.append(self.emphasis(part))
            else:
                out.append(self.text(part))
        return "".join(out)


def _replay(run: dict[str, Any]) -> Parts:
    if run.get("hypothesis_seed") is None:
        return ["derandomized: the same code and versions draw the same examples; replay with ", Code(run["replay"])]
    return [
        f"seed {run['hypothesis_seed']}: replay with ", Code(run["replay"]),
        " (Hypothesis first replays any failing example saved in this machine's .hypothesis/ database)",
    ]


def partial_parts(report: dict[str, Any]) -> Parts | None:
    run = report["run"]
    if run["selection"] != "partial":
        return None
    return [
        Strong("Partial run"),
        f": {'; '.join(run['selection_reasons'])}. Claims selected: {', '.join(run['selected_claims']) or 'none'}. "
        "Claims whose tests were not selected are ",
        Code(NOT_RUN),
        "; this report does not replace the suite's full report.",
    ]


def run_lines(report: dict[str, Any]) -> list[Parts]:
    """The run: when, how complete, profile and replay, workers; code and versions; command."""
    run = report["run"]
    v = run["versions"]
    git = run["git"]
    return [
        [
            f"Run {run['started']} to {run['finished']}; complete: {str(run['complete']).lower()} "
            f"(every selected test finished); selection: {run['selection']}; Hypothesis profile ",
            Code(run["profile"]), " (", *_replay(run), f"); {run['workers']} xdist workers.",
        ],
        [
            f"Code: lowrank-claims {v['lowrank-claims']}, git {git['commit']}"
            f"{' with uncommitted changes (dirty)' if git['dirty'] else ''}."
        ],
        ["Versions: " + ", ".join(f"{name} {value}" for name, value in v.items() if name != "lowrank-claims") + "."],
        ["Command: ", Code(run["command"]), "."],
    ]


def papers_parts(report: dict[str, Any]) -> Parts:
    parts: Parts = ["Papers: "]
    for i, (key, text) in enumerate(report["papers"].items()):
        parts += (["; "] if i else []) + [Strong(key), f" {text}"]
    return parts + ["."]


GLOSSARY: Parts = [
    "Cases are Hypothesis examples (or checks outside ", Code("@given"), "; trajectories, runs, optima where a "
    "test says so) with a non-degenerate check, shown as informative / all: a case is informative when its check "
    "could have come out the other way on it (not a bound above the largest value its left side can take, a left "
    "side at its floor, tied or saturated responses, a design without power). Degenerate cases (both sides "
    "identically zero) are counted apart. ",
    Strong("Headline"), ": the figures that fit each kind of check, one line per kind that the claim's evidence "
    "tests recorded (identity, conserved rate, property, inequality, drift order, nonzero rate, drift limit, settled "
    "limit, trend, in that order), read from the cases where the (corrected) statement held, informative ones first: "
    "an identity's worst error against its rounding bound (", Code("rel"), " relative to the scale the check states, ",
    Code("abs"), " absolute); a conserved rate's largest share of its scale; an inequality's smallest slack (rhs - "
    "lhs, relative to |lhs| + |rhs| or the check's scale) with that case's tolerance on the same scale, where a "
    "negative slack inside the tolerance is rounding at an equality case and reads 0 within rounding; a drift "
    "order's fitted log-log slopes per integrator (against the integrator's order minus the band) and its largest "
    "finest drift as a share of the terms' own motion; a nonzero rate or Richardson limit as a multiple of its "
    "rounding bound or error estimate; a settled limit's value with its error bar (the shrinking changes over "
    "doublings of arc length plus the step sensitivity) against the statement's interval; a trend's effect (rank "
    "correlation, positive = predicted) with its interval, the one-sided p of the direction it concluded, runs and "
    "levels (several trends: their verdicts and the deciding one, the worst verdict with the largest p). A claim with "
    "no case where its statement held shows its counterexamples. The negative control is ", Code("rejected"),
    " when every control of the claim ran and the same check refused its cases, so the check is shown able to fail.",
]

GLOSSARY_ANCHOR = "glossary"
"""The id (HTML) and heading (Markdown) of the glossary section, which holds ``GLOSSARY``."""

LEGEND: Parts = [
    "A case is a check that could have come out the other way (informative / all cases); ", Strong("Headline"),
    ": the figures that fit each kind of check, against its tolerance or rule; the negative control is ",
    Code("rejected"), " when the same check refused its perturbed cases. Each claim's section opens with its "
    "verdict, then the deciding evidence, figures and folded details. Terms: see the glossary at the end.",
]
"""The few lines above the summary table; the full definitions are the glossary's (``GLOSSARY``)."""


SUMMARY_HEADER = ("ID", "Claim", "Verdict", "Reading", "Informative / cases", "Headline", "Negative control")


def summary_cells(c: dict[str, Any], markup: Markup) -> list[str]:
    """One claim's row of the summary table (written by ``markup``), in ``SUMMARY_HEADER``'s order."""
    evidence = informative_count(c)
    if c.get("degenerate"):
        evidence += f", {c['degenerate']} degenerate"
    cell = lambda text: markup.cell(markup.text(text))  # noqa: E731
    return [
        cell(c["id"]), cell(f"{c['title']} ({c['ref']})"), cell(c["verdict"]), cell(reading(c)), cell(evidence),
        markup.lines(claim_headline(c)), cell(c["control_state"]),
    ]


def informative_count(entry: dict[str, Any], unit: str | None = None) -> str:
    """"informative/cases unit" of a claim or test entry (a report without the count: cases/cases)."""
    cases = entry.get("cases", 0)
    unit = unit if unit is not None else entry.get("unit") or "/".join(entry.get("units") or [])
    return f"{entry.get('informative', cases)}/{cases}" + (f" {unit}" if unit and unit != "cases" else "")


def unlisted_lines(report: dict[str, Any]) -> list[str]:
    """"Not-run (n): IDs." and "Untested (n): IDs.", for the verdicts that have claims."""
    lines = []
    for verdict in (NOT_RUN, "untested"):
        listed = [c["id"] for c in report["claims"] if c["verdict"] == verdict]
        if listed:
            lines.append(f"{verdict.capitalize()} ({len(listed)}): {', '.join(listed)}.")
    return lines


def shows_section(c: dict[str, Any]) -> bool:
    """A claim gets a section unless it is untested or not run with no test record at all."""
    return not (c["verdict"] in ("untested", NOT_RUN) and not c["evidence"])


def claim_heading(c: dict[str, Any]) -> str:
    return f"{c['id']}: {c['title']} ({c['ref']}, {c['paper']})"


def statement_label(c: dict[str, Any]) -> str:
    """"Statement (as printed)", or, for the suite's own question about a paper, "Question (the suite's)"."""
    return "Question (the suite's own, not the paper's)" if c["origin"] == SUITE else "Statement (as printed)"


def reading_parts(c: dict[str, Any]) -> list[Parts]:
    """How the suite reads the statement, apart from the statement as printed: how it is tested, and how
    the paper's text was read where its extraction garbles it."""
    out = []
    if c["origin"] == SUITE:
        out.append([Strong("The suite's own question."), f" {SUITES_QUESTION}"])
    if c["tested_as"]:
        out.append([Strong("Tested as."), f" {c['tested_as']}"])
    if c["extraction"]:
        out.append([Strong("The text."), f" {c['extraction']}"])
    return out


def verdict_parts(c: dict[str, Any]) -> Parts:
    """The verdict sentence, with the scale it was decided at for an empirical claim."""
    scale = scale_sentence(c)
    return ["Verdict: ", Strong(c["verdict"]), f". {reading(c)}" + (f" {scale}" if scale else "")]


def violation_parts(failure: dict[str, Any]) -> Parts:
    return ["Refuting test ", Code(failure["nodeid"]), f": {failure['violation']}"]


SHOWN_ITEMS = 6
"""A detail's list is written out up to this many values; a longer one is summarized (how many, the range):
the values themselves are in claims.json, never in prose."""


def detail_value(value: Any) -> str:
    """A case's detail as prose: numbers at 4 significant digits, a short list in parentheses, a long one as
    its count and range, a mapping as its count of fields; no Python repr."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return format_number(value)
    if isinstance(value, (list, tuple)):
        if len(value) <= SHOWN_ITEMS and all(not isinstance(v, (list, tuple, dict)) for v in value):
            return "(" + ", ".join(detail_value(v) for v in value) + ")"
        numbers = [v for v in value if isinstance(v, (int, float)) and not isinstance(v, bool)]
        spread = f", {detail_value(float(min(numbers)))} to {detail_value(float(max(numbers)))}" if (
            len(numbers) == len(value) and numbers) else ""
        return f"{len(value)} values{spread}"
    if isinstance(value, dict):
        return f"{len(value)} fields"
    return str(value)


SHOWN_ELSEWHERE = frozenset({"evidence", "scale", "memo_scale", "paper_scale", "training_wall_time_s"})
"""Details a claim's section states once elsewhere (the scale in the verdict sentence and the setting table),
or that are no evidence (a wall time)."""


def details_text(details: dict[str, Any], shown: set[str]) -> str:
    """A case's other details ("name value; ..."), without those ``shown`` beside it, those
    ``SHOWN_ELSEWHERE`` and a trend's rule (``rule_*``: stated once, with the trend)."""
    return "; ".join(f"{k} {detail_value(v)}" for k, v in details.items()
                     if k not in shown and k not in SHOWN_ELSEWHERE and not k.startswith("rule_"))


def counterexample_parts(ce: dict[str, Any]) -> Parts:
    """The printed statement's counterexample nearest to acceptance, in its kind's numbers (and its other
    details, ``details_text``)."""
    shown = set(KEPT.get(kind_of(ce["details"]), ())) | {"error_scale"}
    details = details_text(ce["details"], shown)
    return [
        "The printed statement fails in ", Code(ce["nodeid"]),
        f" (the case nearest to acceptance): {case_text(ce, violates=True)}" + (f" ({details})." if details else "."),
    ]


TEST_HEADER = ("Test", "Role", "Outcome", "Informative / cases", "Degenerate", "Headline")


def test_cells(t: dict[str, Any], markup: Markup) -> list[str]:
    """One row of a claim's per-test table (written by ``markup``), in ``TEST_HEADER``'s order; the
    headline's lines joined by newlines, as in ``summary_cells``."""
    outcome = t["outcome"] if not t["reason"] else f"{t['outcome']} ({markup.cell(t['reason'])[:200]})"
    return [
        markup.code(t["nodeid"]), markup.text(t["role"]), markup.text(outcome), informative_count(t),
        markup.cell(markup.text(degenerate_count(t))),
        markup.lines(per_test_headline(t)),
    ]


def degenerate_count(t: dict[str, Any]) -> str:
    """A test's degenerate cases, with why they had nothing to test when the report kept it."""
    why = why_text(t["degenerate_why"])
    return f"{t['degenerate']} ({why})" if why else str(t["degenerate"])


def finding_parts(name: str, f: dict[str, Any]) -> Parts:
    shown = "; ".join(kind_lines(entry_kinds(f), f["trends"])) if f.get("by_kind") else (
        f"worst error {format_error(f['max_error'], f['error_scale'])} vs tolerance {format_number(f['tolerance'])}")
    return [
        "Finding ", Emphasis(name),
        f" (beyond the statement, not counted as its evidence): {f['cases']} cases, {f['degenerate']} degenerate; "
        f"{shown or '-'}.",
    ]


EVIDENCE_HEADER = ("Check", "Deciding figure", "Tolerance or rule", "Informative / checks")


_RULES = {
    "identity": "error <= its rounding bound",
    "conserved rate": "|dQ/dt| <= its rounding bound",
    "property": "holds in every check",
    "inequality": "slack >= -tolerance (rounding), relative",
    "nonzero rate": "above its rounding bound",
    "drift limit": "limit beyond its error estimate",
    "settled limit": "inside the statement's interval",
}
"""The decision rule of each kind of check, in words (its numbers are in the deciding figure beside it)."""


def _criterion(kind: str, part: dict[str, Any], trends: list[dict[str, Any]]) -> str:
    """A kind's tolerance or decision rule, in a few words."""
    if kind == "trend":
        rules = dict.fromkeys(
            f"one-sided p <= {t['alpha']:g}, effect >= {t['min_effect']:g}" if t.get("direction") != "none"
            else f"equivalence: |effect| < {t['min_effect']:g}" for t in trends if t.get("alpha") is not None)
        return "; ".join(rules) or "-"
    nearest = part.get("nearest") or {}
    if kind == "drift order" and nearest.get("band") is not None:
        return f"slope >= order - {format_number(nearest['band'])}, finest drift below its ratio"
    return _RULES.get(kind, "error <= tolerance")


def _count(kind: str, part: dict[str, Any], trends: list[dict[str, Any]]) -> str:
    """A kind's informative / all checks; a trend's: its trends (informative / all) and the runs they rest on."""
    if kind == "trend" and trends:
        informative = sum(not t.get("uninformative") for t in trends)
        runs = sum(t.get("n") or 0 for t in trends)
        return f"{informative}/{len(trends)} trends, {runs} runs"
    return f"{part.get('informative', part['checks'])}/{part['checks']}"


def evidence_rows(c: dict[str, Any]) -> list[list[str]]:
    """The deciding evidence of a claim, one row per kind of check (``EVIDENCE_HEADER``): its headline figure,
    its tolerance or rule, its informative and all checks. First the cases where the (corrected) statement held,
    then, for a kind with counterexamples to the printed statement, those ("printed statement fails: ...");
    a trend is one row (its text names the deciding trend among all of them)."""
    by_kind, trends = entry_kinds(c), claim_trends(c, False)
    holding = kind_items(by_kind, trends)
    shown = {kind for kind, _, _ in holding}
    violating = [item for item in kind_items(by_kind, trends, "violating")
                 if item[0] != "trend" or "trend" not in shown]
    rows = []
    for prefix, items in (("", holding), ("printed statement fails: " if holding else "fails: ", violating)):
        for kind, line, part in items:
            figure = line.removeprefix(f"{kind}: ")
            rows.append([kind, prefix + figure, _criterion(kind, part, trends), _count(kind, part, trends)])
    return rows


def _stated(c: dict[str, Any], field: str) -> set[str]:
    """The decision rules (``field`` "rule") or the scales ("scale") the claim's trends record, its tests' and its
    findings' (``claims.checks._trends``: as their notes state them; an older report's are read from the notes
    where it is loaded, ``claims.report._schema``)."""
    tests = [t.get("trends") or [] for t in c["evidence"]]  # an older report's test may list no trends
    trends = [t for trends in (*tests, c["trends"], *(f["trends"] for f in c["findings"].values()))
              for t in trends]
    return {t[field] for t in trends if t.get(field)}


def _rule_sentence(rule: str) -> str:
    """How a trend's note states its rule: inside the parenthesis of its numbers, which closes after it."""
    return f"{RULE_LEAD}{rule})"


def _scale_sentence(scale: str) -> str:
    """How a trend's note states its scale: to the note's end."""
    return f"{SCALE_LEAD}{scale}."


def _in_note_order(texts: set[str], notes: list[str], sentence: Any) -> list[str]:
    """The ``texts`` that some note states (``sentence(text)`` in it), in the order the notes first state them."""
    first = {}
    for text in texts:
        stated = [(i, note.find(sentence(text))) for i, note in enumerate(notes) if sentence(text) in note]
        if stated:
            first[text] = min(stated)
    return sorted(first, key=first.__getitem__)


def claim_notes(c: dict[str, Any]) -> tuple[dict[str, str], list[str], dict[str, list[str]]]:
    """(the claim's named rules and scales, its notes, its findings' notes by name), each rule and each trend's
    scale that a note states printed once, by name ("rule R1", "scale S1"), numbered in the order the notes state
    them; the names come from the trends' recorded ``rule`` and ``scale``, the notes only say where they stand."""
    findings = {name: f["notes"] for name, f in c["findings"].items()}
    every = c["notes"] + [n for notes in findings.values() for n in notes]
    rules = _in_note_order(_stated(c, "rule"), every, _rule_sentence)
    scales = _in_note_order(_stated(c, "scale"), every, _scale_sentence)
    names = {text: f"R{i}" for i, text in enumerate(rules, 1)} | {text: f"S{i}" for i, text in enumerate(scales, 1)}

    def short(note: str) -> str:
        for rule in rules:
            note = note.replace(_rule_sentence(rule), f"; rule {names[rule]})")
        for scale in scales:
            if note.endswith(_scale_sentence(scale)):
                note = note.removesuffix(_scale_sentence(scale)) + f"; scale {names[scale]}."
        return note

    return names, [short(n) for n in c["notes"]], {name: [short(n) for n in notes] for name, notes in findings.items()}


def rule_lines(names: dict[str, str]) -> list[str]:
    """"Rule R1: ..." once per rule, "Scale S1: ..." once per scale."""
    return [f"{'Scale' if name.startswith('S') else 'Rule'} {name}: {text}." for text, name in names.items()]


def named_in(names: dict[str, str], text: str) -> dict[str, str]:
    """The rules and scales of ``names`` that ``text`` refers to ("rule R1", "scale S1")."""
    return {item: name for item, name in names.items()
            if re.search(rf"\b{'scale' if name.startswith('S') else 'rule'} {name}\b", text)}


SHOWN_NOTE = 100
"""A counterexample's recorded values are printed in claims.html up to this many characters; the rest is in
claims.json (and in ``python -m claims show``): long lists of per-run numbers belong to the JSON and the figures."""
NOTES_SHOWN = 300
"""Characters of a claim's notes (its own first, then its findings') that claims.html shows, each note whole while it
fits, the next one cut at what is left (when 100 characters or more are). The page must stay within its budget
(``claims.report._lint.BUDGETS``, 500 KB) with every figure and room for more: on the ci report of 5b94bde, 300 gives
448 KB, 500 460 KB, 1000 481 KB and every note in full 568 KB (notes total ~150 kB there). ``python -m claims show``
prints them all in full."""


def clipped(note: str, limit: int = SHOWN_NOTE) -> str:
    """``note`` cut at its last "; " or ", " before ``limit`` characters, saying how much is left out."""
    if len(note) <= limit:
        return note
    cut = max(note.rfind("; ", 0, limit), note.rfind(", ", 0, limit))
    cut = cut if cut > limit // 2 else limit
    return note[:cut].rstrip() + f" ... (+{len(note) - cut} characters)"


def notes_within(lists: list[list[str]], budget: int = NOTES_SHOWN) -> tuple[list[list[str]], int, int]:
    """The notes of ``lists`` (a claim's, then each finding's, in that order of priority) that claims.html shows
    within ``budget`` characters: each note whole while it fits, the next cut at what is left (when 100 characters or
    more are), the rest left out; with how many notes and characters were left out or cut."""
    shown, left, characters = [], 0, 0
    for notes in lists:
        mine = []
        for note in notes:
            if len(note) <= budget:
                mine.append(note)
                budget -= len(note)
                continue
            if budget >= 100:
                mine.append(clipped(note, budget))
                characters += len(note) - budget
                budget = 0
            else:
                left, characters = left + 1, characters + len(note)
        shown.append(mine)
    return shown, left, characters


def tests_line(c: dict[str, Any]) -> str:
    """A claim's tests counted by role and outcome ("16 tests: 10 evidence passed, 6 control passed")."""
    counts: dict[str, int] = {}
    for t in c["evidence"]:
        key = f"{t['role']} {t['outcome']}"
        counts[key] = counts.get(key, 0) + 1
    return f"{len(c['evidence'])} tests: " + ", ".join(f"{n} {key}" for key, n in counts.items())


def test_list_lines(tests: list[dict[str, Any]]) -> list[str]:
    """``tests`` compactly, one line per test module: "test_x.py: test_a[p] 6/6; test_b (control) 3/3" (informative
    / cases; the outcome and role are said when they are not "passed" and "evidence"); every test's numbers are in
    claims.json."""
    modules: dict[str, list[str]] = {}
    for t in tests:
        module, _, name = t["nodeid"].rpartition("::")
        said = ", ".join(word for word in (t["role"], t["outcome"]) if word not in ("evidence", "passed"))
        modules.setdefault(module.rpartition("/")[2] or module, []).append(
            f"{name} ({said}) {informative_count(t)}" if said else f"{name} {informative_count(t)}")
    return [f"{module}: {'; '.join(names)}" for module, names in modules.items()]


def unusual_tests(c: dict[str, Any]) -> list[dict[str, Any]]:
    """The claim's tests that did not pass, or passed with no informative case: the ones a reader looks up."""
    return [t for t in c["evidence"] if t["outcome"] != "passed" or not t.get("informative", t.get("cases", 1))]
