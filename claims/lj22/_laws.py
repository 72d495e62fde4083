"""LJ22's conserved quantities as a count: the laws that Lemma 2 (Eqs. (4), (5)), Lemma 3 (Eq. (7)) and
Theorem 1 (Eq. (6), whole matrix for linear layers) give for an architecture, as functions of the free
parameters theta, the number of them that are independent, and that number against the count of all the laws
of gradient flow (``claims.models._conservation``: D - dim Lie(grad phi)).

Which laws each statement gives, for every data set and loss (so for every activation pattern):

- Eq. (4) at a hidden vertex v whose incident edges are all learnable (Lemma 2's hypothesis) and whose
  parameters no other edge shares (Lemma 2 is about edges; a shared parameter moves with every edge that
  carries it): sum_{IN_v} theta^2 - sum_{OUT_v} theta^2;
- Eq. (5) at two vertices with IN_u = IN_v and OUT_u = OUT_v and the same activation pattern on every
  example at all times: for every data set this holds only for linear vertices (two ReLU vertices' patterns
  differ on some input); same hypotheses on the edges;
- Eq. (6) for a convolution whose output neurons are linear (Theorem 1 cases 2, 5 and 6, "whole matrix for
  linear layers"): every entry of W2^T W2 - W1 W1^T, W1 = the kernel flattened (``kernel_rows``) and W2 the
  out-matrix of its output channels (the next convolution's kernel, or the next dense layer or ResNetFree
  [Y; Z] rearranged). For dense layers and residual blocks without shared parameters, Eq. (6)'s entries are
  Eq. (4) (diagonal) and Eq. (5) (off-diagonal) on the neurons between the two layers, so they add nothing.

- Eq. (7) of Lemma 3 for two layers F, F' of learnable edges (Definition 7 read as a path cut, LJ22.L3-E1):
  sum_F theta^2 - sum_F' theta^2 (``layer_balances``). Where every edge is learnable these are sums of Eq.
  (4)'s; where edges are fixed they are not: a path cut keeps both ends of a fixed edge on one side, so it
  balances the class of vertices the fixed edges join (e.g. the output r1 of a block and, through an identity
  skip, the output r2 of the next, with the next block's hidden neurons), where no vertex has Eq. (4).

The independent count is the rank of the laws' gradients at a point (exact), and each law is checked to be a
law of the reparametrization exactly: grad Q . grad phi_g is the zero polynomial for every coordinate g. The
laws beyond the prediction are sorted by kind (``missing_by_kind``): quadratic (``missing_laws``), polynomial
of a higher degree up to a bound, and the rest (not polynomial up to that degree, e.g. the logarithmic law of
a one-input linear ResNetIdentity block, whose model is one scalar c (1 + a b)).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from math import gcd
from typing import Any, Sequence

import torch

from claims.models._conservation import (
    LieRank, Reparametrization, exact_rank, integer_point, lie_rank, polynomial_ring, reparametrization,
)
from claims.models._graph_layers import DisjointSets
from claims.models._networks import LINEAR, DagNetwork
from claims.models._representations import dense_after_conv, kernel_columns, kernel_rows, stack_rows

Term = tuple[int, int, int]
"""(p, q, c): the monomial c theta_p theta_q of a quadratic law."""


@dataclass(frozen=True)
class QuadraticLaw:
    """Q(theta) = sum c theta_p theta_q over ``terms``, named by the statement that gives it."""

    name: str
    terms: tuple[Term, ...]

    def gradient_at(self, point: Sequence[int], n_parameters: int) -> list[int]:
        gradient = [0] * n_parameters
        for p, q, c in self.terms:
            gradient[p] += c * point[q]
            gradient[q] += c * point[p]
        return gradient

    def polynomial(self, generators: Sequence[Any]) -> Any:
        return sum((c * generators[p] * generators[q] for p, q, c in self.terms), 0)

    def __call__(self, theta: torch.Tensor) -> torch.Tensor:
        return sum((c * theta[p] * theta[q] for p, q, c in self.terms), theta.new_zeros(()))


def _multiplicity(network: DagNetwork) -> Counter:
    return Counter(p for p in network.parameters if p >= 0)


def _owned(network: DagNetwork, edges: Sequence[int], shared: Counter) -> bool:
    """Every edge learnable and its parameter carried by no other edge."""
    return all(network.learnable[e] and shared[network.parameters[e]] == 1 for e in edges)


def vertex_balances(network: DagNetwork, naive: bool = False) -> list[QuadraticLaw]:
    """Eq. (4) at every hidden vertex that satisfies its hypotheses; ``naive``: at every hidden vertex,
    fixed edges dropped from the sums (a constant) and shared parameters taken as if each edge owned one
    (the statement without its hypothesis, for negative controls)."""
    shared = _multiplicity(network)
    laws = []
    for v in range(network.n_inputs, network.output):
        edges = network.in_edges[v] + network.out_edges[v]
        if not naive and not _owned(network, edges, shared):
            continue
        terms = [(network.parameters[e], network.parameters[e], 1) for e in network.in_edges[v] if network.learnable[e]]
        terms += [(network.parameters[e], network.parameters[e], -1) for e in network.out_edges[v]
                  if network.learnable[e]]
        if terms:
            laws.append(QuadraticLaw(f"Eq. (4) at vertex {v}", tuple(terms)))
    return laws


def twin_balances(network: DagNetwork) -> list[QuadraticLaw]:
    """Eq. (5) at every pair of linear hidden vertices with the same IN and OUT sets and owned edges."""
    shared = _multiplicity(network)
    ends = {}
    for v in range(network.n_inputs, network.output):
        if network.slopes[v] != LINEAR or not _owned(network, network.in_edges[v] + network.out_edges[v], shared):
            continue
        ends[v] = ({network.edges[e][0]: e for e in network.in_edges[v]},
                   {network.edges[e][1]: e for e in network.out_edges[v]})
    laws = []
    twins = sorted(ends)
    for i, u in enumerate(twins):
        for v in twins[i + 1:]:
            (in_u, out_u), (in_v, out_v) = ends[u], ends[v]
            if in_u.keys() != in_v.keys() or out_u.keys() != out_v.keys():
                continue
            terms = [(network.parameters[in_u[a]], network.parameters[in_v[a]], 1) for a in in_u]
            terms += [(network.parameters[out_u[b]], network.parameters[out_v[b]], -1) for b in out_u]
            laws.append(QuadraticLaw(f"Eq. (5) at vertices ({u}, {v})", tuple(terms)))
    return laws


def _useful(network: DagNetwork) -> list[bool]:
    """useful[v]: some directed path leads from v to the output (every vertex is reached from an input)."""
    useful = [False] * network.n_vertices
    useful[network.output] = True
    for v in range(network.output - 1, -1, -1):
        useful[v] = any(useful[network.edges[e][1]] for e in network.out_edges[v])
    return useful


def _layer_classes(network: DagNetwork) -> tuple[list[int], list[list[int]]] | None:
    """The classes of vertices that no path cut of learnable edges separates, and the free ones among them:
    ``(cls, free)``, ``cls[v]`` the class of vertex v (-1 if no path leads from v to the output) and ``free``
    the vertex lists of the classes by which two such cuts can differ exactly; None when there is no such cut.

    A path cut is F = the edges from A to V minus A for a vertex set A that holds the inputs, not the output,
    and the tail of every edge whose head it holds (no path meets F twice); F is learnable when A holds both
    ends of every fixed edge or neither. So the inputs are merged, the ends of each fixed edge, and the
    classes on a cycle of the quotient; A holds every class with a path to the inputs' class ("forced in")
    and none with a path from the output's ("forced out"). Every other class X is free: A = the forced-in
    classes, X and the classes with a path to X, is such a cut, A minus X another, and their squared norms
    differ by X's balance."""
    useful = _useful(network)
    sets = DisjointSets(network.n_vertices)
    root, merge = sets.root, sets.merge
    for v in range(1, network.n_inputs):
        merge(v, 0)
    edges = [e for e, (_, v) in enumerate(network.edges) if useful[v]]
    for e in edges:
        if not network.learnable[e]:
            merge(*network.edges[e])
    while True:  # classes on a cycle of the quotient: no cut separates them
        roots = sorted({root(v) for v in range(network.n_vertices) if useful[v]})
        successors = {r: {root(network.edges[e][1]) for e in edges if root(network.edges[e][0]) == r} - {r}
                      for r in roots}
        reach = {r: _reachable(r, successors) for r in roots}
        cycle = next(((r, s) for r in roots for s in reach[r] if s != r and r in reach[s]), None)
        if cycle is None:
            break
        merge(*cycle)
    source, sink = root(0), root(network.output)
    forced_out = reach[sink]
    forced_in = {r for r in roots if source in reach[r]}
    if forced_in & forced_out:
        return None
    cls = [root(v) if useful[v] else -1 for v in range(network.n_vertices)]
    free = [[v for v in range(network.n_vertices) if cls[v] == r] for r in roots
            if r not in forced_in and r not in forced_out]
    return cls, free


def _reachable(start: int, successors: dict[int, set[int]]) -> set[int]:
    seen, stack = {start}, [start]
    while stack:
        for s in successors[stack.pop()]:
            if s not in seen:
                seen.add(s)
                stack.append(s)
    return seen


def layer_balances(network: DagNetwork) -> list[QuadraticLaw]:
    """Eq. (7) of Lemma 3, sum_F theta^2 - sum_F' theta^2 for layers F, F' of learnable edges (Definition 7
    read as a path cut, LJ22.L3-E1: every input-output path meets F exactly once), spanned by one law per
    free class X of ``_layer_classes``: the squares of the edges into X minus those out of X. Where every
    edge is learnable the classes are single vertices and the law is Eq. (4) there; a fixed edge (an identity
    skip, a frozen layer) joins its two ends in one class, which Lemma 3 balances and Lemma 2 does not. A
    parameter carried by several edges (a convolution's kernel) counts once, as the paper's 'significance'
    paragraph counts a kernel's flattening as a layer: that needs one coefficient on all its edges, so the
    laws are then the combinations of the classes' balances that give it (a nullspace, exact)."""
    classes = _layer_classes(network)
    if classes is None or not classes[1]:
        return []
    cls, free = classes
    index = {cls[members[0]]: k for k, members in enumerate(free)}
    # by parameter, its edges (u, v) across classes: +1 on v's class, -1 on u's (into X minus out of X)
    rows: dict[int, list[tuple[int, list[tuple[int, int]]]]] = {}
    for e, (u, v) in enumerate(network.edges):
        if cls[v] < 0 or not network.learnable[e]:  # an edge no input-output path uses has no gradient
            continue
        row = [(index[cls[v]], 1)] if cls[v] in index and cls[u] != cls[v] else []
        row += [(index[cls[u]], -1)] if cls[u] in index and cls[u] != cls[v] else []
        rows.setdefault(network.parameters[e], []).append((e, row))
    K = len(free)

    def dense(row) -> list[int]:
        out = [0] * K
        for k, c in row:
            out[k] += c
        return out

    constraints = []
    for carried in rows.values():
        first = dense(carried[0][1])
        constraints += [[a - b for a, b in zip(dense(row), first)] for _, row in carried[1:]]
    constraints = [c for c in constraints if any(c)]
    if constraints:
        from sympy.polys.domains import QQ
        from sympy.polys.matrices import DomainMatrix

        rows_qq = [[QQ.convert(c) for c in row] for row in constraints]
        basis = _rational_nullspace(DomainMatrix(rows_qq, (len(constraints), K), QQ))
    else:
        basis = [[Fraction(int(j == k)) for j in range(K)] for k in range(K)]
    laws = []
    for vector in basis:
        coefficients = {}
        for p, carried in rows.items():
            value = sum((vector[k] * c for k, c in carried[0][1]), Fraction(0))
            if value:
                coefficients[p] = value
        if not coefficients:
            continue
        scale = 1
        for value in coefficients.values():
            scale = scale * value.denominator // gcd(scale, value.denominator)
        terms = tuple((p, p, int(value * scale)) for p, value in sorted(coefficients.items()))
        members = [v for k, members in enumerate(free) if vector[k] for v in members]
        laws.append(QuadraticLaw(f"Eq. (7) around vertices {members}", terms))
    return laws


def _parameter_matrix(network: DagNetwork, build) -> list[list[int]]:
    """A Theorem 1 matrix (a rearrangement of edge weights) with the free parameter of each entry in it
    (-1 where no edge): ``build`` applied to the edge ids + 1, whose rearrangements keep them."""
    ids = build(torch.arange(1, network.n_edges + 1, dtype=torch.float64))
    return [[network.parameters[int(e) - 1] if e > 0 else -1 for e in row] for row in ids.tolist()]


def convolution_invariants(network: DagNetwork) -> list[QuadraticLaw]:
    """Eq. (6) at every convolution ``C{i}`` of a ``sequential`` network whose output neurons are linear and
    whose out-edges are all learnable: the entries (k, k'), k <= k', of W2^T W2 - W1 W1^T over its output
    channels (Theorem 1 cases 2, 5, 6; the tail layer ``Fin`` as a dense layer)."""
    laws = []
    for name in sorted(network.tensors):
        i = int(name[1:])
        channels = network.neurons[name]
        vertices = [v for channel in channels for v in channel]
        if any(network.slopes[v] != LINEAR for v in vertices):
            continue
        if not all(network.learnable[e] for v in vertices for e in network.out_edges[v]):
            continue
        c = len(channels)
        if f"C{i + 1}" in network.tensors:
            second = lambda w, n=f"C{i + 1}": kernel_columns(network.weight_tensor(n, w))  # noqa: E731
        elif f"B{i + 1}.Z" in network.matrices:
            second = lambda w, b=f"B{i + 1}.": dense_after_conv(  # noqa: E731
                stack_rows(network.weight_matrix(b + "Y", w), network.weight_matrix(b + "Z", w)), c)
        else:
            dense = f"W{i + 1}" if f"W{i + 1}" in network.matrices else "Fin"
            if dense not in network.matrices:
                continue
            second = lambda w, n=dense: dense_after_conv(network.weight_matrix(n, w), c)  # noqa: E731
        first = _parameter_matrix(network, lambda w, n=name: kernel_rows(network.weight_tensor(n, w)))
        if f"{name}.b" in network.matrices:  # the channel's shared bias: one more in-edge of each of its neurons
            bias = _parameter_matrix(network, lambda w, n=f"{name}.b": network.weight_matrix(n, w))
            positions = len(channels[0])
            first = [row + [bias[k * positions][0]] for k, row in enumerate(first)]
        out = _parameter_matrix(network, second)
        for k in range(c):
            for k2 in range(k, c):
                terms = [(r[k], r[k2], 1) for r in out if r[k] >= 0 and r[k2] >= 0]
                terms += [(a, b, -1) for a, b in zip(first[k], first[k2]) if a >= 0 and b >= 0]
                laws.append(QuadraticLaw(f"Eq. (6) at {name}, channels ({k}, {k2})", tuple(terms)))
    return laws


def predicted_laws(network: DagNetwork) -> list[QuadraticLaw]:
    """Every law LJ22's Lemmas 2 and 3 and Theorem 1 give for ``network`` (the module's docstring); a layer
    balance equal to a vertex's Eq. (4) is left out (the same law)."""
    vertices = vertex_balances(network)
    known = {frozenset(law.terms) for law in vertices} | {frozenset((p, q, -c) for p, q, c in law.terms)
                                                            for law in vertices}
    layers = [law for law in layer_balances(network) if frozenset(law.terms) not in known]
    return vertices + twin_balances(network) + convolution_invariants(network) + layers


def not_conserved(network: DagNetwork, laws: Sequence[QuadraticLaw], phi: Reparametrization | None = None) -> list[str]:
    """The laws Q for which grad Q . grad phi_g is not the zero polynomial for some coordinate g of phi
    (exact): those are not conserved by gradient flow for every data set and loss."""
    phi = phi or reparametrization(network)
    _, generators, constant = polynomial_ring(network)
    gradients = [[p.diff(g) for g in generators] for p in phi.polynomials(generators, constant)]
    failing = []
    for law in laws:
        q = law.polynomial(generators)
        dq = [q.diff(g) for g in generators]
        if any(sum((a * b for a, b in zip(dq, grad) if a and b), 0) for grad in gradients):
            failing.append(law.name)
    return failing


@dataclass(frozen=True)
class LawCount:
    """The laws of gradient flow for ``network`` counted (D - the largest exact Lie rank over ``lie``'s
    points) and predicted (the rank of the predicted laws' gradients at the first point, exact).

    ``certified``: every predicted law is a law (``failing`` empty) and counted == predicted. Then the count
    is exact whatever the point: the laws bound dim Lie <= D - predicted at every point near it, the exact
    rank bounds it below, so dim Lie is constant near the point and the Lie-algebra count applies.
    Otherwise ``counted`` is exact at generic points (the ranks computed at ``points`` random integer points
    agree, or the largest is taken)."""

    n_parameters: int
    laws: tuple[QuadraticLaw, ...]
    predicted: int
    failing: tuple[str, ...]
    lie: tuple[LieRank, ...]

    @property
    def rank(self) -> int:
        return max(lie.rank for lie in self.lie)

    @property
    def counted(self) -> int:
        return self.n_parameters - self.rank

    @property
    def certified(self) -> bool:
        return not self.failing and self.counted == self.predicted

    @property
    def relative_gap(self) -> float:
        """The smallest relative singular-value gap of the kept rows over the points (``LieRank``)."""
        return min(lie.relative_gap for lie in self.lie)


def count_laws(
    network: DagNetwork, laws: Sequence[QuadraticLaw] | None = None, seed: int = 0, points: int = 2,
) -> LawCount:
    """Count the laws of ``network`` and rank ``laws`` (default: ``predicted_laws``). The Lie algebra's
    growth is capped at D - predicted when every law is a law (it cannot pass that bound); when the cap is
    not reached a second random point (up to ``points``) gets its own exact rank, unless a predicted law is not
    conserved (the prediction is then wrong whatever the count)."""
    laws = list(predicted_laws(network) if laws is None else laws)
    phi = reparametrization(network)
    D = network.n_parameters
    first = integer_point(D, seed)
    predicted = exact_rank([law.gradient_at(first, D) for law in laws], D)
    failing = tuple(not_conserved(network, laws, phi))
    cap = D if failing else D - predicted
    ranks = [lie_rank(network, first, cap=cap, phi=phi)]
    for k in range(1, points if not failing else 1):  # a law that is not one decides the case alone
        if ranks[-1].rank >= cap:
            break
        ranks.append(lie_rank(network, integer_point(D, seed + 1000 * k), cap=cap, phi=phi))
    return LawCount(D, tuple(laws), predicted, failing, tuple(ranks))


def quadratic_laws(network: DagNetwork, phi: Reparametrization | None = None) -> list[QuadraticLaw]:
    """A basis of every quadratic form Q = sum_{p <= q} c_pq theta_p theta_q that is a law for every data set
    and loss: grad Q . grad phi_g is the zero polynomial for every g, a linear system in the c_pq (one
    equation per coordinate g and monomial), solved exactly (``DomainMatrix.nullspace`` over QQ). Laws
    that are not quadratic (e.g. (a + b) exp(-c) for nu = (a b + c) x) are not among them."""
    from sympy.polys.domains import QQ
    from sympy.polys.matrices import DomainMatrix

    phi = phi or reparametrization(network)
    _, generators, constant = polynomial_ring(network)
    D = network.n_parameters
    pairs = [(p, q) for p in range(D) for q in range(p, D)]
    equations: dict[tuple[int, Any], dict[int, Any]] = {}
    for g, polynomial in enumerate(phi.polynomials(generators, constant)):
        derivative = [polynomial.diff(x) for x in generators]
        for column, (p, q) in enumerate(pairs):
            # d(theta_p theta_q) . grad phi_g = theta_q d_p phi_g + theta_p d_q phi_g
            term = generators[q] * derivative[p] + generators[p] * derivative[q]
            for monomial, coefficient in (term.items() if term else ()):
                row = equations.setdefault((g, monomial), {})
                row[column] = row.get(column, 0) + coefficient
    if not equations:
        return [QuadraticLaw(f"quadratic law {k}", ((p, q, 1),)) for k, (p, q) in enumerate(pairs)]
    rows = [[QQ.convert(row.get(c, 0)) for c in range(len(pairs))] for row in equations.values()]
    basis = DomainMatrix(rows, (len(rows), len(pairs)), QQ).nullspace().to_Matrix().tolist()
    laws = []
    for k, vector in enumerate(basis):
        scale = 1
        for value in vector:
            scale = scale * value.q // _gcd(scale, value.q) if value else scale
        terms = tuple((p, q, int(value * scale)) for (p, q), value in zip(pairs, vector) if value)
        laws.append(QuadraticLaw(f"quadratic law {k}", terms))
    return laws


def _gcd(a: int, b: int) -> int:
    from math import gcd

    return gcd(int(a), int(b))


def missing_laws(network: DagNetwork, count: LawCount) -> list[QuadraticLaw]:
    """The quadratic laws independent of the predicted ones at the count's first point (greedy, exact): the
    missing laws that can be written as quadratic forms."""
    from claims.models._conservation import independent_rows

    D = network.n_parameters
    point = count.lie[0].point
    frame = [law.gradient_at(point, D) for law in count.laws]
    kept = independent_rows([], frame, D)
    frame = [frame[i] for i in kept]
    candidates = quadratic_laws(network)
    added = independent_rows(frame, [law.gradient_at(point, D) for law in candidates], D)
    return [candidates[i] for i in added]


def describe_law(network: DagNetwork, law: QuadraticLaw) -> str:
    """The law as text over the edges' weights, w(u->v) for the first edge of each parameter."""
    def name(p: int) -> str:
        u, v = network.edges[network.parameters.index(p)]
        return f"w({u}->{v})"

    parts = []
    for p, q, c in law.terms:
        monomial = f"{name(p)}^2" if p == q else f"{name(p)} {name(q)}"
        parts.append(("- " if c < 0 else "+ ") + (f"{abs(c)} " if abs(c) != 1 else "") + monomial)
    return " ".join(parts).removeprefix("+ ")


def polynomial_law_gradients(
    network: DagNetwork, degree: int, point: Sequence[int], phi: Reparametrization | None = None,
) -> list[list[Fraction]]:
    """The gradients at ``point`` of a basis of the polynomial laws of degree <= ``degree`` without constant
    term (grad P . grad phi_g the zero polynomial for every g: a linear system in P's coefficients, solved
    exactly as ``quadratic_laws``). Their rank, with the predicted laws', counts the independent polynomial
    laws up to that degree. The unknowns grow as C(D + degree, degree): meant for small D."""
    from itertools import combinations_with_replacement

    from sympy.polys.domains import QQ
    from sympy.polys.matrices import DomainMatrix

    phi = phi or reparametrization(network)
    _, generators, constant = polynomial_ring(network)
    D = network.n_parameters
    monomials = [m for k in range(1, degree + 1) for m in combinations_with_replacement(range(D), k)]
    derivatives = [[polynomial.diff(x) for x in generators]
                   for polynomial in phi.polynomials(generators, constant)]
    equations: dict[tuple[int, Any], dict[int, Any]] = {}
    for column, monomial in enumerate(monomials):
        counts = Counter(monomial)
        partials = {}
        for p, e in counts.items():
            term = e
            for q, f in counts.items():
                term = term * generators[q] ** (f - (q == p))
            partials[p] = term
        for g, derivative in enumerate(derivatives):
            term = sum((partials[p] * derivative[p] for p in partials if derivative[p]), 0)
            for key, coefficient in (term.items() if term else ()):
                row = equations.setdefault((g, key), {})
                row[column] = row.get(column, 0) + coefficient
    if equations:
        rows = [[QQ.convert(row.get(c, 0)) for c in range(len(monomials))] for row in equations.values()]
        basis = _rational_nullspace(DomainMatrix(rows, (len(rows), len(monomials)), QQ))
    else:
        basis = [[Fraction(int(i == j)) for j in range(len(monomials))] for i in range(len(monomials))]
    gradients = []
    for vector in basis:
        gradient = [Fraction(0)] * D
        for value, monomial in zip(vector, monomials):
            if not value:
                continue
            counts = Counter(monomial)
            for p, e in counts.items():
                term = value * e
                for q, f in counts.items():
                    term *= Fraction(point[q]) ** (f - (q == p))
                gradient[p] += term
        gradients.append(gradient)
    return gradients


def _rational_nullspace(matrix) -> list[list[Fraction]]:
    """A basis of a ``DomainMatrix``'s nullspace over QQ, as Fractions."""
    vectors = matrix.nullspace().to_Matrix().tolist()
    return [[Fraction(int(v.p), int(v.q)) for v in vector] for vector in vectors]


@dataclass(frozen=True)
class MissingByKind:
    """The laws a count finds beyond the prediction (``total``), by kind: ``quadratic`` (independent quadratic
    laws beyond the predicted ones), ``polynomial`` (polynomial laws of degree 3..``degree`` beyond those;
    None when not searched) and ``other``, the rest: not polynomial up to ``degree`` (not quadratic when
    ``polynomial`` is None)."""

    total: int
    quadratic: int
    polynomial: int | None
    degree: int

    @property
    def other(self) -> int:
        return self.total - self.quadratic - (self.polynomial or 0)


def missing_by_kind(
    network: DagNetwork, count: LawCount, degree: int = 4, max_parameters: int = 8,
) -> MissingByKind:
    """Sort the count's missing laws (counted - predicted) by kind at its first point; the search for
    polynomial laws of degree <= ``degree`` runs only up to ``max_parameters`` free parameters (its cost)."""
    from claims.models._conservation import exact_rank

    total = count.counted - count.predicted
    quadratic = len(missing_laws(network, count)) if total > 0 else 0
    if total <= 0 or network.n_parameters > max_parameters or quadratic == total:
        return MissingByKind(total, quadratic, 0 if quadratic == total else None, degree)
    D = network.n_parameters
    point = count.lie[0].point
    frame = [law.gradient_at(point, D) for law in count.laws]
    polynomial = exact_rank(frame + polynomial_law_gradients(network, degree, point), D) - count.predicted
    return MissingByKind(total, quadratic, polynomial - quadratic, degree)

