"""Section 4 (Example 1): what a network whose first layer is rank one computes. With W_1 = a v^T and
t = v^T x, every hidden representation has the form P sigma(t) + Q sigma(-t) (sigma(t) and sigma(-t) are
never both positive, so relu(P sigma(t) + Q sigma(-t)) = relu(P) sigma(t) + relu(Q) sigma(-t)), hence

    f(x) = u sigma(v^T x) + w sigma(-v^T x)

for any later layers, of any depth. The 'one neuron functions' u sigma(v^T x) are the case w = 0 (or
u = 0); they vanish on a half-space, so f(x) f(-x) = 0 entrywise for all x."""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

Matrix = Sequence[Sequence[Fraction]]


def _matvec(m: Matrix, vector: Sequence[Fraction]) -> list[Fraction]:
    return [sum((a * b for a, b in zip(row, vector)), Fraction(0)) for row in m]


def _relu(vector: Sequence[Fraction]) -> list[Fraction]:
    return [max(Fraction(0), value) for value in vector]


def exact_network(weights: Sequence[Matrix], x: Sequence[Fraction]) -> list[Fraction]:
    """Y = W_L relu(... relu(W_1 x)) in rational arithmetic (bias-free, no ReLU at the output)."""
    z = list(x)
    for k, w in enumerate(weights):
        z = _matvec(w, z)
        if k < len(weights) - 1:
            z = _relu(z)
    return z


def two_sided_form(a: Sequence[Fraction], later: Sequence[Matrix]) -> tuple[list[Fraction], list[Fraction]]:
    """(u, w) with W_L relu(... relu(a v^T x)) = u sigma(v^T x) + w sigma(-v^T x) for every x, where the first
    layer is a v^T and ``later`` are W_2, ..., W_L (any ranks): the recursion P <- W_l relu(P),
    Q <- W_l relu(Q) from P = a, Q = -a."""
    p, q = list(a), [-value for value in a]
    for w in later:
        p, q = _matvec(w, _relu(p)), _matvec(w, _relu(q))
    return p, q


def one_neuron_value(u: Sequence[Fraction], w: Sequence[Fraction], v: Sequence[Fraction],
                     x: Sequence[Fraction]) -> list[Fraction]:
    """u sigma(v^T x) + w sigma(-v^T x) at x."""
    t = sum((a * b for a, b in zip(v, x)), Fraction(0))
    return [a * max(Fraction(0), t) + b * max(Fraction(0), -t) for a, b in zip(u, w)]
