"""LJ22: Le & Jegelka, ICLR 2022. The paper's record and its claims, in the order of the project's claims
inventory (the spec they were written from, outside this repository); Theorem 1 is split into its seven
cases, LJ22.T1.1 ... LJ22.T1.7."""

from claims.evidence.papers import Claim, Paper

PAPER = Paper(
    key="LJ22",
    order=1,
    reference="Thien Le and Stefanie Jegelka. Training invariances and the low-rank phenomenon: beyond linear "
    "networks. International Conference on Learning Representations (ICLR), 2022",
    title="Training invariances and the low-rank phenomenon: beyond linear networks",
    authors=(("Thien", "Le"), ("Stefanie", "Jegelka")),
    year=2022,
    url="https://openreview.net/forum?id=XEW8CQgArno",
    identifiers=(
        ("openreview:XEW8CQgArno", "ICLR 2022 camera-ready on OpenReview (the text is headed 'Published as a "
         "conference paper at ICLR 2022')"),
        ("arXiv:2201.11968", "arXiv preprint; which arXiv version matches the text is not stated in it"),
    ),
    bibtex_key="le2022training",
    bibtex_type="inproceedings",
    bibtex_fields=(
        ("booktitle", "International Conference on Learning Representations (ICLR)"),
        ("note", "OpenReview XEW8CQgArno; also arXiv:2201.11968 (arXiv version not stated in the text)"),
    ),
    cff_type="conference-paper",
    cff_fields=(("conference", {"name": "International Conference on Learning Representations (ICLR)"}),),
    version="ICLR 2022 published version ('Published as a conference paper at ICLR 2022'); no arXiv version "
    "is stated in the text",
)

CLAIMS: tuple[Claim, ...] = (
    Claim(
        id="LJ22.L1",
        paper="LJ22",
        ref="Lemma 1",
        title="Path decomposition nu = mu o h",
        statement=(
            "nu = mu o h, where h(x)_p = x_p * prod_{e in p} w_e over all input-to-output "
            "paths p, and mu is a tree network whose weights are in {-1,+1} and depend only "
            "on sgn(w). Covers Lemma 5 (absolute-valued version, h'_p = x_p prod |w_e|), "
            "Lemma 6 (the unrolled tree computes nu), Lemma 7 (pulling a weight back through "
            "a positively homogeneous vertex preserves the function), and Eq. (2): "
            "d nu / d w_e = sum_{p ni e} [grad mu(h)]_p x_p prod_{f in p, f != e} w_f where "
            "differentiable."
        ),
        kind="identity, construction",
        notes=(),
    ),
    Claim(
        id="LJ22.CL1",
        paper="LJ22",
        ref="Claim 1",
        title="Directional convergence without zero entries fixes the signs",
        statement=(
            "Directional convergence of w(t)/|w(t)| to a limit with no zero entry implies the "
            "signs of w(t) are eventually constant (Assumption 2 => Assumption 1)."
        ),
        kind="construction",
        notes=(),
    ),
    Claim(
        id="LJ22.CL2",
        paper="LJ22",
        ref="Claim 2",
        title="Directional convergence with infinitely many pattern switches",
        statement=(
            "t -> v|t sin t| converges in direction yet revisits every point of its image "
            "infinitely often (so activation patterns can switch infinitely often under "
            "directional convergence)."
        ),
        kind="construction",
        notes=(),
    ),
    Claim(
        id="LJ22.L2a",
        paper="LJ22",
        ref="Lemma 2, Eq. (4)",
        title="Per-vertex balance of incoming vs outgoing squared weights",
        statement=(
            "For every hidden vertex v whose incident edges are all learnable, "
            "sum_{u in IN_v} w_uv^2 - sum_{b in OUT_v} w_vb^2 is constant along gradient flow."
        ),
        kind="invariance",
        notes=(),
    ),
    Claim(
        id="LJ22.L2b",
        paper="LJ22",
        ref="Lemma 2, Eq. (5)",
        title="Cross-vertex invariant for twin vertices with equal activation pattern",
        statement=(
            "For vertices u, v with IN_u = IN_v, OUT_u = OUT_v and the same activation pattern "
            "on every training example throughout, sum_{a in IN} w_au w_av - "
            "sum_{b in OUT} w_ub w_vb is constant."
        ),
        kind="invariance",
        notes=(),
    ),
    Claim(
        id="LJ22.L3",
        paper="LJ22",
        ref="Lemma 3",
        title="Layer-wise squared-norm differences are conserved",
        statement=(
            "For layers F, F' (Definition 7: edge sets no path meets twice, whose removal "
            "disconnects G) containing only learnable weights, sum_{e in F} w_e^2 - "
            "sum_{f in F'} w_f^2 is constant. Includes biases treated as edges from a "
            "constant-1 input."
        ),
        kind="invariance",
        notes=(),
    ),
    Claim(
        id="LJ22.S3",
        paper="LJ22",
        ref="Significance of Lemma 3 (Section 4.2)",
        title="Convolutional flattenings and ResNet stackings form layers",
        statement=(
            "A flattening of a convolutional parameter tensor and a stacking of matrices in a ResNetDiagonal and "
            "ResNetFree block forms a layer. This lemma implies that the squared Frobenius norm of these matrices in "
            "the same network differs by a value that is fixed at initialization."
        ),
        kind="construction",
        notes=(),
        tested_as=(
            "Each stacking as printed on drawn networks: the edges of a convolution (every position of its kernel), "
            "and [U D] / [Y; D] of a ResNetDiagonal block, [U Z] / [Y; Z] of a ResNetFree block, each tested "
            "against Definition 7's two conditions (no path meets two of its edges; removing them disconnects G) "
            "and as a path cut. The control: U or Y of a block alone (the skip keeps G connected) is no layer. The "
            "second sentence (the squared Frobenius norms' difference fixed at initialization) is not judged by this "
            "ID's tests (issue 37: not done; Lemma 3's own invariance is LJ22.L3's)."
        ),
    ),
    Claim(
        id="LJ22.T1.1",
        paper="LJ22",
        ref="Theorem 1 (case 1)",
        title="Matrix invariant for consecutive fully-connected layers",
        statement=(
            "Eq. (6): d/dt [W2^T W2 - W1 W1^T]_active = 0 (submatrix on neurons active on every "
            "example; whole matrix for linear layers) for "
            "consecutive fully-connected layers."
        ),
        kind="invariance",
        notes=(),
    ),
    Claim(
        id="LJ22.T1.2",
        paper="LJ22",
        ref="Theorem 1 (case 2)",
        title="Matrix invariant for consecutive convolutional layers",
        statement=(
            "Eq. (6): d/dt [W2^T W2 - W1 W1^T]_active = 0 (submatrix on neurons active on every "
            "example; whole matrix for linear layers) for "
            "consecutive convolutional layers, W1 flattened to R^{c x (a*b)}, W2 to "
            "R^{(d*e) x c}. Lemma 9 (weight sharing) is the convolutional case."
        ),
        kind="invariance",
        notes=(),
    ),
    Claim(
        id="LJ22.T1.3",
        paper="LJ22",
        ref="Theorem 1 (case 3)",
        title="Matrix invariant within a residual block",
        statement=(
            "Eq. (6): d/dt [W2^T W2 - W1 W1^T]_active = 0 (submatrix on neurons active on every "
            "example; whole matrix for linear layers) for "
            "within a residual block, W1 = Y, W2 = U, for ResNetIdentity r = s(U s(Yx) + x), "
            "ResNetDiagonal r = s(U s(Yx) + Dx), ResNetFree r = s(U s(Yx) + Zx) "
            "(Definition 5)."
        ),
        kind="invariance",
        notes=(),
    ),
    Claim(
        id="LJ22.T1.4",
        paper="LJ22",
        ref="Theorem 1 (case 4)",
        title="Matrix invariant between consecutive ResNetFree blocks",
        statement=(
            "Eq. (6): d/dt [W2^T W2 - W1 W1^T]_active = 0 (submatrix on neurons active on every "
            "example; whole matrix for linear layers) for "
            "between consecutive ResNetFree blocks, W1 = [U1 Z1], W2 = [Y2; Z2]."
        ),
        kind="invariance",
        notes=(),
    ),
    Claim(
        id="LJ22.T1.5",
        paper="LJ22",
        ref="Theorem 1 (case 5)",
        title="Matrix invariant for convolution then fully-connected",
        statement=(
            "Eq. (6): d/dt [W2^T W2 - W1 W1^T]_active = 0 (submatrix on neurons active on every "
            "example; whole matrix for linear layers) for "
            "convolution then fully-connected (rearranged to R^{d x c})."
        ),
        kind="invariance",
        notes=(),
    ),
    Claim(
        id="LJ22.T1.6",
        paper="LJ22",
        ref="Theorem 1 (case 6)",
        title="Matrix invariant for convolution then ResNetFree block",
        statement=(
            "Eq. (6): d/dt [W2^T W2 - W1 W1^T]_active = 0 (submatrix on neurons active on every "
            "example; whole matrix for linear layers) for "
            "convolution then ResNetFree block ([U Z] rearranged)."
        ),
        kind="invariance",
        notes=(),
    ),
    Claim(
        id="LJ22.T1.7",
        paper="LJ22",
        ref="Theorem 1 (case 7)",
        title="Matrix invariant between ResNetFree block and fully-connected layer",
        statement=(
            "Eq. (6): d/dt [W2^T W2 - W1 W1^T]_active = 0 (submatrix on neurons active on every "
            "example; whole matrix for linear layers) for "
            "ResNetFree block then fully-connected, and fully-connected then ResNetFree block."
        ),
        kind="invariance",
        notes=(),
    ),
    Claim(
        id="LJ22.L4",
        paper="LJ22",
        ref="Lemma 4",
        title="Matrix invariant fails when activation patterns differ",
        statement=(
            "Noninvariance: for ReLU layers, with a neuron active and another inactive on some "
            "example, d/dt (W2^T W2 - W1 W1^T) is in general nonzero for the pairs of "
            "Theorem 1."
        ),
        kind="noninvariance",
        notes=(),
    ),
    Claim(
        id="LJ22.R1",
        paper="LJ22",
        ref="Remark 1",
        title="Single-example Gram derivative has rank at most 2",
        statement=(
            "With a single training example (autodiff convention ReLU'(0) = 1), "
            "d/dt (W_k^T W_k) has rank at most 2 for a ReLU fully-connected weight matrix W_k."
        ),
        kind="identity",
        notes=(),
    ),
    Claim(
        id="LJ22.L8",
        paper="LJ22",
        ref="Lemma 8",
        title="Clarke partials of mu agree for paths with equal activation patterns",
        statement=(
            "Assume stable sign regime (Assumption 1). Let p1, p2 in P be paths of the same length L, "
            "p1 = {v1, ..., vL}, p2 = {u1, ..., uL}. Assume that for each i in [L], vi and ui have the same "
            "activation pattern for each input training example (0 if ReLU activated with negative "
            "preactivation; 1 if linearly activated or nonnegative preactivation). Then "
            "d_{p1} mu(h) = d_{p2} mu(h) where d is the Clarke subdifferential."
        ),
        kind="identity",
        notes=(),
        tested_as=(
            "mu = Lemma 1's tree network at h(x) of each training example, ReLU and linear vertices: the two paths' "
            "partials (autograd; products of +-1 and 0/1) compared exactly at points where mu is differentiable in "
            "them. Kinks (Clarke sets) are not judged."
        ),
    ),
    Claim(
        id="LJ22.L9",
        paper="LJ22",
        ref="Lemma 9, Eq. (54)",
        title="Weight-shared (convolutional) extension of Lemma 2",
        statement=(
            "Let V := {v_{j,k}}_{j in [l], k in {1,2}} be a convolutional neuron organization (Definition 12: "
            "IN_{v_{j,1}} = IN_{v_{j,2}} =: IN_j and OUT_{v_{j,1}} = OUT_{v_{j,2}} =: OUT_j). For a.e. time t >= 0, "
            "sum_{(w,w') in wIN(V)} |w(t)w'(t)| - |w(0)w'(0)| = sum_{(z,z') in wOUT(V)} |z(t)z'(t)| - |z(0)z'(0)| "
            "(Eq. 54), where wIN(V) := {(w1,w2) | for all j in [l], exists a_j in IN_j, w_{a_j v_{j,1}} = w1 and "
            "w_{a_j v_{j,2}} = w2} and similarly wOUT(V) := {(w1,w2) | for all j in [l], exists b_j in OUT_j, "
            "w_{v_{j,1} b_j} = w1 and w_{v_{j,2} b_j} = w2}."
        ),
        kind="invariance",
        notes=(),
        tested_as=(
            "Two output channels of a weight-shared linear convolution followed by a convolution: the instantaneous "
            "rate and the drift order of sum |w w'| - sum |z z'| along gradient flow, as printed (with absolute "
            "values) and without them (the proof's Eqs. (60)-(61))."
        ),
    ),
    Claim(
        id="LJ22.S1",
        paper="LJ22",
        ref="Significance of Theorem 1 (Section 4)",
        title="Balanced start: shared singular values, rank one along a chain to the output",
        statement=(
            "If we have a set of neurons that is active throughout training (which is vacuously true for linear "
            "layers), we can invoke an FTC and get W2(t)^T W2(t) - W1(t)W1(t)^T = W2(0)^T W2(0) - W1(0)W1(0)^T for "
            "the submatrix restricted to these neurons. Assume for simplicity that the right hand side is 0, then "
            "the singular values of W1 and W2 are the same for each of the cases listed in Theorem 1. If we can "
            "form a chain of matrices whose singular values are the same by iteratively invoking Theorem 1, then "
            "all matrices considered have the same singular values as the final fully-connected layer that "
            "connects to the output. Recall that our networks are scalar-valued, so the final layer is a row "
            "vector, which is rank 1 and thus all layers considered in the chain have rank 1."
        ),
        kind="invariance, identity",
        notes=(),
        tested_as=(
            "Balanced starts (right-hand side 0) of linear chains ending in the scalar output layer, along gradient "
            "flow (RK4, the step halved): the gap between adjacent matrices' singular values vanishes at the "
            "integrator's order, and s2/s1 of every matrix stays at rounding. ReLU chains with always-active "
            "neurons are not run."
        ),
    ),
    Claim(
        id="LJ22.AB",
        paper="LJ22",
        ref="Appendix B (after the proof of Lemma 1)",
        title="Theorems 1, 2 and Corollary 1 with absolute values",
        statement=(
            "With slight modifications to the proof technique, one can show all the results for Theorem 1, Theorem 2 "
            "and Corollary 1 to the same matrix representation as presented in the paper but with the absolute signs "
            "around them."
        ),
        kind="invariance, inequality",
        notes=(
            "A remark: the paper gives no proof of it ('one can show').",
        ),
        tested_as=(
            "'With the absolute signs around them' read as the matrix representations with entrywise absolute values "
            "|W|. Theorem 1: the rate of [|W2|^T |W2| - |W1| |W1|^T]_active along gradient flow on drawn networks of "
            "every case, nonzero weights (signs stable near the instant, Assumption 1). Theorem 2 and Corollary 1: "
            "the inequalities by which their |W| forms follow from the printed ones, on drawn matrices "
            "(||W||_2 <= || |W| ||_2 with || |W| ||_F = ||W||_F for Eqs. (13)-(14), 1 / rank |W| <= || |W| ||_2^2 / "
            "|| |W| ||_F^2, entrywise ||a| - |b|| <= |a - b| and |<v, u>| <= <|v|, |u|> for Eq. (15))."
        ),
    ),
    Claim(
        id="LJ22.L10",
        paper="LJ22",
        ref="Lemma 10",
        title="Operator norms of two tensor flattenings compared",
        statement=(
            "For T in R^{a x b x c} with flattenings T1 in R^{c x (a*b)} and T2 in "
            "R^{(b*c) x a}, ||T1||_2 / sqrt(min(a,b)) <= ||T2||_2 (operator norms)."
        ),
        kind="inequality",
        notes=(),
        tested_as="Random and adversarial tensors, and the sharp case exactly (rational arithmetic).",
        extraction=(
            "Eq. (68) is garbled in the pdf text ('m⅛y kTik2 ≤ kT2k2') and missing from the html text. The factor "
            "1/sqrt(min(a, b)) is read from the proof: Wang et al.'s Theorem 4.8 with dim(T) = abc and "
            "dim_T(pi_1, pi_2) = c max(a, b) (Eqs. (69)-(73)) gives sqrt(c max(a, b) / (abc)) = 1/sqrt(min(a, b))."
        ),
    ),
    Claim(
        id="LJ22.L11",
        paper="LJ22",
        ref="Lemma 11",
        title="Spectral norms of [U Z] and [Y; Z] stay comparable in ResNetFree",
        statement=(
            "For a linear ResNetFree block with A = [U Z] and B = [Y; Z] trained by gradient "
            "flow, ||B||_2^2 >= (1/8) ||A||_2^2 - D' with D' >= 0 fixed at initialization."
        ),
        kind="inequality",
        notes=(),
        tested_as="Along gradient-flow trajectories of linear ResNetFree blocks, at every step.",
        extraction=(
            "The inequality is garbled in the pdf text ('kBk2 ≥ 1 kAk2 — D0': exponents and the fraction's "
            "denominator lost) and missing from the html text. Read with the lemma's title ('preserves largest "
            "singular value up to multiple by 8') and its proof (Eqs. (74)-(82), squared spectral norms) as "
            "||B||_2^2 >= (1/8) ||A||_2^2 - D'. The proof's Eq. (74) prints D = ||U(0)^T U(0) - Y(0) Y(0)^T||_2^2 "
            "('k22'), squared."
        ),
    ),
    Claim(
        id="LJ22.T2",
        paper="LJ22",
        ref="Theorem 2",
        title="Reduced alignment: Frobenius vs spectral norm and layer alignment",
        statement=(
            "Under Assumptions 1 and 3, let nu consist of an arbitrary feedforward network eta, followed by K >= 0 "
            "linear convolutional layers (T^{a_k, b_k, c_k}), k in [K], followed by M >= 0 layers that are either "
            "linear ResNetFree blocks or linear fully-connected layers, and ending with a linear fully-connected "
            "layer Fin. For j in [K + M], denote by W[j] the matrix representation (Definition 8) of the j-th layer "
            "after eta, N_r(j) the number of ResNetFree blocks between j and Fin exclusively, and V_c(j) := max dim "
            "W[M+1] prod_{j < k <= M} min(a_k, b_k) if j <= M and 1 otherwise. Then there is a constant D >= 0 fixed "
            "at initialization such that for a.e. t > 0, (1/(8^{N_r(j)} V_c(j))) ||W[j](t)||_F^2 - ||W[j](t)||_2^2 "
            "<= D for all j in [K + M] (Eq. (13)). If ||W[j]||_F -> inf for some j, then as t -> inf, "
            "1/min(rank W[k], 8^{N_r(j)} V_c(j)) <= ||W[k](t)||_2^2 / ||W[k](t)||_F^2 <= 1 (Eq. (14)); in particular, "
            "for the last fully-connected layers j with N_r(j) = 0 and V_c(j) = 1, W[k](t)/||W[k](t)||_F - u_k(t) "
            "v_k(t)^T -> 0 for all k in [M] and |<v_{j+1}, u_j>| -> 1 (Eq. (15)), u_j and v_j the left and right "
            "principal singular vectors of W[j]."
        ),
        kind="inequality, limit, trend",
        notes=(),
        tested_as=(
            "Eq. (13) along gradient-flow paths, with D computed from the initialization (the proof in Appendix D "
            "gives its pieces: Eqs. (83) and (84)); Eqs. (14) and (15) as trends in arc length and as limits settled "
            "over doublings of arc length, with the divergence hypothesis asserted on each path."
        ),
        extraction=(
            "Eqs. (13)-(15) are garbled in the pdf text ('8Nr(j1V(j) kW[j](t)kF -kW[j](t)k2 ≤ D': exponents and "
            "the fraction bar lost) and missing from the html text; read with Eq. (14) and the proof's Eqs. (83)-(84), "
            "which use squared Frobenius and spectral norms. The prose (V_c's definition, 'for a.e. time t > 0') is "
            "intact."
        ),
    ),
    Claim(
        id="LJ22.CO1",
        paper="LJ22",
        ref="Corollary 1",
        title="Alignment of the last linear layers of a ReLU network",
        statement=(
            "Fully-connected ReLU networks whose last K layers are linear, linearly separable "
            "data, logistic loss, R(w(0)) < l(0), limit direction without zero entries: "
            "Eq. (15) holds for the last K layers."
        ),
        kind="limit, trend",
        notes=(),
        tested_as=(
            "A ReLU layer then a 3-layer linear tail on separable data: both halves of Eq. (15) (||W||_2/||W||_F -> 1 "
            "and the alignment of consecutive layers) for every tail layer as limits settled over doublings of arc "
            "length, each path's hypotheses checked and counted; the alignment also as a trend in arc length."
        ),
    ),
    Claim(
        id="LJ22.X1",
        paper="LJ22",
        ref="Lemmas 2 and 3 and Theorem 1, beyond the paper",
        title="Are the invariants of Lemmas 2 and 3 and Theorem 1 all the conservation laws?",
        statement=(
            "For every feedforward architecture of the kinds the paper treats (DAGs with skip connections and "
            "ReLU, leaky or linear vertices; fully-connected networks with or without biases; ResNetIdentity, "
            "ResNetDiagonal and ResNetFree blocks; linear layers and linear convolutions), the number of "
            "independent conservation laws of gradient flow that hold for every data set and loss, D - dim "
            "Lie{grad phi_k}(theta) at a generic theta (Marcotte, Gribonval & Peyre 2023; D free parameters, "
            "phi the path products h of Definition 4 summed over the paths that share an input and the same "
            "non-linear vertices), equals the number of independent laws that Lemma 2 (Eqs. (4) "
            "and (5)), Lemma 3 (Eq. (7), layers of learnable edges read as path cuts, LJ22.L3-E1) and "
            "Theorem 1 (Eq. (6), whole matrix for linear layers) give for it."
        ),
        kind="identity",
        notes=(
            "Refuted on an architecture where the count exceeds the prediction: the paper's invariants are then "
            "not all that gradient flow conserves there; the missing count is reported per architecture, "
            "by kind (quadratic, found as laws; polynomial of degree 3..4; not polynomial up to degree 4), "
            "and where phi is one scalar (a one-input model that collapses to a single number, e.g. a "
            "linear residual block) the extra laws are first integrals of that one gradient field, not "
            "polynomial. A count below the prediction would mean a predicted law is not conserved.",
        ),
        tested_as=(
            "Exact ranks in rational arithmetic at random integer points (sympy sparse polynomials; ranks by "
            "DomainMatrix over QQ): the Lie algebra grown by right-nested brackets with the generators until a "
            "level adds nothing; each predicted law checked conserved as a polynomial identity (grad Q . grad phi_g "
            "= 0). Where counted = predicted the count is certified at the point (the predicted laws bound the "
            "algebra's dimension above, the exact rank below); otherwise the largest exact rank over two random "
            "points is taken (exact at generic points). phi's factoring of the network and the reference counts "
            "(two-layer ReLU: one law per hidden neuron; two-layer linear of width r <= d: r(r+1)/2) are tested; "
            "the count is of laws that hold for every activation pattern (the gates sigma' of the non-linear "
            "vertices free)."
        ),
        origin="suite",
    ),
)
