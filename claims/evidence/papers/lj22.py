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
        id="LJ22.L10",
        paper="LJ22",
        ref="Lemma 10",
        title="Operator norms of two tensor flattenings compared",
        statement=(
            "For T in R^{a x b x c} with flattenings T1 in R^{c x (a*b)} and T2 in "
            "R^{(b*c) x a}, ||T1||_2 / sqrt(min(a,b)) <= ||T2||_2 (operator norms)."
        ),
        kind="inequality",
        notes=("Formula reconstructed from garbled text; check against the paper.",),
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
        kind="inequality along trajectories",
        notes=("Formula reconstructed from garbled text; check against the paper.",),
    ),
    Claim(
        id="LJ22.T2",
        paper="LJ22",
        ref="Theorem 2",
        title="Reduced alignment: Frobenius vs spectral norm and layer alignment",
        statement=(
            "Reduced alignment (Eq. (13) reconstructed): nu = arbitrary network eta, then K "
            "linear convolutional layers, then M layers each a linear ResNetFree block or "
            "linear fully-connected layer, then a final linear fully-connected layer Fin. "
            "With W[j] the matrix representation (Definition 8), N_r(j) the number of "
            "ResNetFree blocks strictly between j and Fin, V_c(j) as defined in the paper: "
            "(1/(8^{N_r(j)} V_c(j))) ||W[j](t)||_F^2 - ||W[j](t)||_2^2 <= D for a constant D "
            "fixed at initialization (Eq. 13); if some ||W[j]||_F -> inf then "
            "1/min(rank W[k], 8^{N_r(j)} V_c(j)) <= ||W[k]||_2^2 / ||W[k]||_F^2 <= 1 in the "
            "limit (Eq. 14); for the last fully-connected layers (N_r = 0, V_c = 1), "
            "W[k]/||W[k]||_F - u_k v_k^T -> 0 and |<v_{j+1}, u_j>| -> 1 (Eq. 15). Check "
            "Eq. (13) with D computed from the initialization (the proof in Appendix D gives "
            "its pieces)."
        ),
        kind="inequality along trajectories, limit, trend",
        notes=("Formula reconstructed from garbled text; check against the paper.",),
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
    ),
)
