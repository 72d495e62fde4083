"""The claims of the three papers, one dict per claim ID, in the order of the project's claims inventory
(the spec it was written from, outside this repository); rendered for readers in CLAIMS.md."""

INVENTORY: tuple[dict, ...] = (
    # ---------------------------------------------------------------- LJ22
    dict(
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
    dict(
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
    dict(
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
    dict(
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
    dict(
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
    dict(
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
    dict(
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
    dict(
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
    dict(
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
    dict(
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
    dict(
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
    dict(
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
    dict(
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
    dict(
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
    dict(
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
    dict(
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
    dict(
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
    dict(
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
        kind="inequality along trajectories, trend",
        notes=("Formula reconstructed from garbled text; check against the paper.",),
    ),
    dict(
        id="LJ22.CO1",
        paper="LJ22",
        ref="Corollary 1",
        title="Alignment of the last linear layers of a ReLU network",
        statement=(
            "Fully-connected ReLU networks whose last K layers are linear, linearly separable "
            "data, logistic loss, R(w(0)) < l(0), limit direction without zero entries: "
            "Eq. (15) holds for the last K layers."
        ),
        kind="trend",
        notes=(),
    ),
    # ---------------------------------------------------------------- GP22
    dict(
        id="GP22.L1",
        paper="GP22",
        ref="Lemma 1",
        title="Rank-one per-sample gradients",
        statement=(
            "For any input x and any weight matrix W^{pq} of the network, "
            "rank(d f_W(x) / d W^{pq}) <= 1; Eq. (13): the gradient equals u_q(x) v_q(x)^T."
        ),
        kind="identity",
        notes=(),
    ),
    dict(
        id="GP22.L2",
        paper="GP22",
        ref="Lemma 2",
        title="Batch-normalized batch gradients have rank at most B",
        statement=(
            "With batch normalization, variance detached: for any batch of size B and any "
            "beta in R^B, rank(sum_j beta_j d f_W(x_j; X~) / d W^{pq}) <= B."
        ),
        kind="identity",
        notes=(),
    ),
    dict(
        id="GP22.E8",
        paper="GP22",
        ref="Eqs. (6)-(9)",
        title="Convergence points of mini-batch SGD: collinear per-sample gradients",
        statement=(
            "At a convergence point of mini-batch SGD (every batch gradient zero, batch size "
            "B < m), M^{pq} = l'(f(x_i), y_i) d f(x_i)/d W^{pq} is the same for every i, and "
            "M^{pq} + 2 lambda W^{pq} = 0; the per-sample gradients are collinear."
        ),
        kind="identity",
        notes=(),
    ),
    dict(
        id="GP22.P1",
        paper="GP22",
        ref="Proposition 1",
        title="SGD with weight decay converges only to the zero function",
        statement=(
            "For lambda > 0: if every edge into the first layer is trainable and W is a "
            "convergence point of mini-batch SGD on L^lambda_S, then f_W = 0 or the x_i are "
            "collinear."
        ),
        kind="construction (search for nonzero convergence points; collinear control)",
        notes=(),
    ),
    dict(
        id="GP22.P2",
        paper="GP22",
        ref="Proposition 2",
        title="Without weight decay, SGD convergence points vanish on the data",
        statement=(
            "For lambda = 0: x_i not collinear; for every i with l'(f(x_i), y_i) != 0, "
            "f_W(x_i) = 0; for convex losses with no minimizer (logistic, exponential) "
            "f_W(x_i) = 0 for all i."
        ),
        kind="construction",
        notes=(),
    ),
    dict(
        id="GP22.T1",
        paper="GP22",
        ref="Theorem 1",
        title="Low-rank approximation error bounded by mini-batch gradient norm",
        statement=(
            "For any matrix norm, any W^{pq} and any B* < m: "
            "min_{rank V <= B*} ||W^{pq} - V|| <= (1/(2 lambda)) "
            "min_{|S~| = B*} ||grad_{W^{pq}} L^lambda_{S~}(f~_W)||, with or without batch "
            "normalization."
        ),
        kind="inequality",
        notes=(),
    ),
    dict(
        id="GP22.S32",
        paper="GP22",
        ref="Section 3.2",
        title="Predicted effects of batch size, weight decay, learning rate on rank",
        statement=(
            "Predictions: smaller batch size gives lower rank; larger weight decay gives lower "
            "rank; larger learning rate gives lower rank; lambda = 0 gives no rank "
            "minimization. Rank as in Section 4.1: normalize the matrix and count singular "
            "values outside [-1e-4, 1e-4]."
        ),
        kind="trend",
        notes=(),
    ),
    dict(
        id="GP22.F1",
        paper="GP22",
        ref="Section 4.2 / Fig. 1",
        title="With weight decay, SGD iterates keep moving",
        statement=(
            "With lambda > 0 SGD does not converge unless the weights go to zero: "
            "d(W_{t+1}, W_t) = (1/|E_T|) sum ||W^{pq}_{t+1} - W^{pq}_t|| stays bounded below; "
            "with lambda = 0 it is orders of magnitude smaller."
        ),
        kind="trend",
        notes=(),
    ),
    dict(
        id="GP22.F2",
        paper="GP22",
        ref="Section 4.3 / Figs. 2-7",
        title="Empirical rank effects and MLP vs ResNet rank profiles",
        statement=(
            "The reported effects of batch size, learning rate and weight decay on the average "
            "rank of MLP and ResNet matrices, and the bottleneck (MLP) vs balanced (ResNet) "
            "rank profiles of Appendix A, at a scale that fits the machine (real data shipped "
            "with a package, e.g. scikit-learn's digits)."
        ),
        kind="trend",
        notes=(),
    ),
    # ---------------------------------------------------------------- BSJ25
    dict(
        id="BSJ25.A1",
        paper="BSJ25",
        ref="Proposition A.1 (Section 2.1)",
        title="Polar decomposition of gradient flow on the homogeneous loss L_0",
        statement=(
            "Gradient flow on L_0 decomposes as d||theta||/dt = -L ||theta||^{L-1} "
            "L_0(theta_bar), d theta_bar/dt = -||theta||^{L-2} (I - theta_bar theta_bar^T) "
            "grad L_0(theta_bar), theta_bar = theta/||theta||; Euler's identity "
            "theta^T grad L_0 = L L_0. Also the time change s(t) and the closed forms for "
            "||theta(s)|| and t(s) of Section 2.1."
        ),
        kind="identity",
        notes=(),
    ),
    dict(
        id="BSJ25.D21",
        paper="BSJ25",
        ref="Definition 2.1",
        title="Escape directions and optimal escape directions",
        statement=(
            "An escape direction rho on the sphere of radius sqrt(L) with "
            "grad L_0(rho) = -s rho, s > 0; an optimal one minimizes L_0 on that sphere. "
            "(The solver that finds them is the tool for the claims below; report its "
            "residual ||grad L_0(rho) + s rho||.)"
        ),
        kind="construction",
        notes=(),
    ),
    dict(
        id="BSJ25.P22",
        paper="BSJ25",
        ref="Proposition 2.2 / A.2",
        title="Radial growth along an escape direction in closed form",
        statement=(
            "If theta(t0) = rho with rho on the radius-sqrt(L) sphere and "
            "grad L_0(rho) = -s rho, then the direction stays constant and "
            "||theta(t)|| = (||theta(t0)||^{2-L} + (2-L) L s (t - t0))^{1/(2-L)} for L != 2, "
            "and ||theta(t0)|| exp(2 s (t - t0)) for L = 2."
        ),
        kind="identity (against an accurate ODE integration)",
        notes=(),
    ),
    dict(
        id="BSJ25.ESC",
        paper="BSJ25",
        ref="after Proposition 2.2",
        title="Escape-time approximation and output-norm bound",
        statement=(
            "Escape-time approximation: t_1(r) - t_0 ~ [||theta(t0)||^{2-L} + r^{2-L}] / "
            "((L-2) L s) for L != 2, and (1/(2s)) log(r / ||theta(t0)||) for L = 2; and the "
            "output bound ||Y_theta||_F <= (r/sqrt(L))^L ||X||_F on ||theta|| = r."
        ),
        kind="identity",
        notes=(),
    ),
    dict(
        id="BSJ25.T31",
        paper="BSJ25",
        ref="Theorem 3.1 / A.7",
        title="Low-rank bias of optimal escape directions in deep layers",
        statement=(
            "At an optimal escape direction with speed s*, for every layer l the three ratios "
            "(singular-value ratio of W_l, of Z^s_l, and ||Z^s_l - Z_l||_F^2 / ||Z_l||_F^2) "
            "are <= 8 (c / (1 - c l^{-1/2})) l^{-1/2}, c = (||X||_F ||G||_F / s*) "
            "sqrt(2 log(||X||_F ||G||_F / s*)). Compare the Appendix A.7 form of the constant "
            "with the main-text form. Report for which l the bound is non-vacuous (< 1) on "
            "each instance."
        ),
        kind="inequality, trend",
        notes=(),
    ),
    dict(
        id="BSJ25.P32",
        paper="BSJ25",
        ref="Proposition 3.2 / A.3",
        title="Optimal escape speed is non-decreasing in depth",
        statement=(
            "From any depth-L parameter with ||theta||^2 = L and L_0 = -s_0 < 0, the "
            "construction of A.3 gives a depth-(L+k) parameter with ||theta'||^2 <= L + k and "
            "L_0(theta') <= L_0(theta); in it Rank(Z_{L'}) = Rank(W_{L'}) = 1 for L' >= L and "
            "Z_{L'} = Z^s_{L'} for L' > L; hence s*(L) is non-decreasing in L."
        ),
        kind="construction",
        notes=(),
    ),
    dict(
        id="BSJ25.P33",
        paper="BSJ25",
        ref="Proposition 3.3 / A.5",
        title="Near-rank-one nonnegative inputs give near-rank-one optima",
        statement=(
            "For input uv^T + X with u, v >= 0 entrywise and ||X||_F <= eps, the minimizer of "
            "Tr[G^T Y_theta(uv^T + X)] over ||theta||^2 <= L has all three ratios <= "
            "8 ||G||_F eps / (s* - ||G||_F eps) in every layer."
        ),
        kind="inequality at computed optima",
        notes=(),
    ),
    dict(
        id="BSJ25.P34",
        paper="BSJ25",
        ref="Proposition 3.4 / A.4",
        title="Most layers of any good descent parameter are near rank one",
        statement=(
            "For ANY theta with ||theta||^2 <= L and Tr[G^T Z_L] <= -s_0 < 0, and any p in "
            "(0,1), at least (1-p) L layers have singular-value ratio of Z^s_l <= "
            "2 log(||X||_F ||G||_F / s_0) / (p L)."
        ),
        kind="inequality",
        notes=(),
    ),
    dict(
        id="BSJ25.LA6",
        paper="BSJ25",
        ref="Lemma A.6",
        title="Nonnegative matrices have a nonnegative top singular pair",
        statement=(
            "A nonnegative matrix has a top singular pair with both singular vectors "
            "entrywise nonnegative."
        ),
        kind="construction",
        notes=(),
    ),
    dict(
        id="BSJ25.EX1",
        paper="BSJ25",
        ref="Example 1 (Section 4)",
        title="Unit-circle example: rank-one speed sqrt(2)-1 vs rank-two speed 1/2",
        statement=(
            "Unit-circle data x_j = (sin(2 pi j/8), cos(2 pi j/8)), j = 1..8, G = ((-1)^j), "
            "depth-3 bias-free ReLU MLP of hidden width >= 4, parameter sphere "
            "||theta||^2 = 3: the best rank-one escape speed is s1 = sqrt(2) - 1 (optima at "
            "phi = pi j/4; Eq. (6) of Appendix C.1), and the printed rank-two weights "
            "(Eq. (2)) give speed s2 = 1/2. Verify exactly (symbolic) where possible."
        ),
        kind="identity (exact), construction",
        notes=(),
    ),
    dict(
        id="BSJ25.F2",
        paper="BSJ25",
        ref="Section 4.1 / Fig. 2",
        title="Projected GD finds the rank-two direction more often as width grows",
        statement=(
            "Projected gradient descent on the sphere ||theta||^2 = 3 for Example 1 finds the "
            "rank-two direction (speed above sqrt(2) - 1) more often as the width grows."
        ),
        kind="trend",
        notes=(),
    ),
    dict(
        id="BSJ25.F1",
        paper="BSJ25",
        ref="Section 3.3 / Figs. 1, 3, 4",
        title="One dominant singular value per layer after the first saddle escape",
        statement=(
            "Trained from small initialization, after the first saddle escape every layer "
            "shows one dominant singular value, more strongly in deeper layers; a second one "
            "appears later. Real data shipped with a package stands in for MNIST at this "
            "machine's scale."
        ),
        kind="trend",
        notes=(),
    ),
)
