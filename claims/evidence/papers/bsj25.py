"""BSJ25: Bantzis, Simon & Jacot, preprint 2025. The paper's record and its claims, in the order of the
project's claims inventory (the spec they were written from, outside this repository)."""

from claims.evidence.papers import Claim, Paper, Setting

PAPER = Paper(
    key="BSJ25",
    order=3,
    reference="Ioannis Bantzis, James B. Simon and Arthur Jacot. Saddle-to-Saddle Dynamics in Deep ReLU "
    "Networks: Low-Rank Bias in the First Saddle Escape. Preprint, 2025",
    title="Saddle-To-Saddle Dynamics in Deep ReLU Networks: Low-Rank Bias in the First Saddle Escape",
    authors=(("Ioannis", "Bantzis"), ("James B.", "Simon"), ("Arthur", "Jacot")),
    year=2025,
    url="https://arxiv.org/abs/2505.21722v1",
    identifiers=(
        ("arXiv:2505.21722v1", "version inferred, not stated in the text: its abstract is v1's (v2 rewrote it)"),
    ),
    bibtex_key="bantzis2025saddle",
    bibtex_type="misc",
    bibtex_fields=(
        ("eprint", "2505.21722v1"),
        ("archivePrefix", "arXiv"),
        ("note", "Preprint, version 1 (May 2025)"),
    ),
    cff_type="article",
    version="arXiv:2505.21722v1 (inferred from the abstract; the text states no arXiv ID or version)",
)

CLAIMS: tuple[Claim, ...] = (
    Claim(
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
    Claim(
        id="BSJ25.D21",
        paper="BSJ25",
        ref="Definition 2.1",
        title="Escape directions and optimal escape directions",
        statement=(
            "An escape direction rho on the sphere of radius sqrt(L) with "
            "grad L_0(rho) = -s rho, s > 0; an optimal one minimizes L_0 on that sphere."
        ),
        kind="construction",
        notes=(),
        tested_as=(
            "The solver that finds escape directions (the tool for the claims below) on random data, Example 1 and "
            "positive inputs; the report gives its residual ||grad L_0(rho) + s rho||; at optima on ReLU kinks the "
            "Clarke form (relu'(0) = t_k in [0, 1], the polish's kink multipliers) with its residual."
        ),
    ),
    Claim(
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
        kind="identity",
        notes=(),
        tested_as="Against an accurate ODE integration (DOP853, rtol 1e-12) from computed escape directions.",
    ),
    Claim(
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
    Claim(
        id="BSJ25.T31",
        paper="BSJ25",
        ref="Theorem 3.1 / A.7",
        title="Low-rank bias of optimal escape directions in deep layers",
        statement=(
            "At an optimal escape direction with speed s*, for every layer l the three ratios "
            "(singular-value ratio of W_l, of Z^s_l, and ||Z^s_l - Z_l||_F^2 / ||Z_l||_F^2) "
            "are <= 8 (c / (1 - c l^{-1/2})) l^{-1/2}, c = (||X||_F ||G||_F / s*) "
            "sqrt(2 log(||X||_F ||G||_F / s*))."
        ),
        kind="inequality, trend",
        notes=(),
        tested_as=(
            "At computed optima; the Appendix A.7 form of the constant compared with the main-text form; for which l "
            "the bound is non-vacuous (< 1) on each instance."
        ),
    ),
    Claim(
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
    Claim(
        id="BSJ25.P33",
        paper="BSJ25",
        ref="Proposition 3.3 / A.5",
        title="Near-rank-one nonnegative inputs give near-rank-one optima",
        statement=(
            "For input uv^T + X with u, v >= 0 entrywise and ||X||_F <= eps, the minimizer of "
            "Tr[G^T Y_theta(uv^T + X)] over ||theta||^2 <= L has all three ratios <= "
            "8 ||G||_F eps / (s* - ||G||_F eps) in every layer."
        ),
        kind="inequality",
        notes=(),
        tested_as="At computed minimizers, for inputs u v^T + E of several eps and ||u||.",
    ),
    Claim(
        id="BSJ25.P34",
        paper="BSJ25",
        ref="Proposition 3.4 / A.4",
        title="Most layers of any good descent parameter are near rank one",
        statement=(
            "Assuming Tr[G^T Z_L] <= -s_0 for some constant s_0 > 0 and ||theta||^2 <= L, then for any ratio p in "
            "(0,1) there are at least (1-p) L layers that are approximately rank 1 in the sense that "
            "sum_{i >= 2} s_i^2(Z^s_l) / sum_{i=1}^r s_i^2(Z^s_l) <= 2 log(||X||_F ||G||_F / s_0) / (p L)."
        ),
        kind="inequality",
        notes=(),
        tested_as="At arbitrary theta (not only optima), depths 2-16, several p.",
    ),
    Claim(
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
    Claim(
        id="BSJ25.EX1",
        paper="BSJ25",
        ref="Example 1 (Section 4)",
        title="Unit-circle example: rank-one speed sqrt(2)-1 vs rank-two speed 1/2",
        statement=(
            "Unit-circle data x_j = (sin(2 pi j/8), cos(2 pi j/8)), j = 1..8, G = ((-1)^j), "
            "depth-3 bias-free ReLU MLP of hidden width >= 4, parameter sphere "
            "||theta||^2 = 3: the best rank-one escape speed is s1 = sqrt(2) - 1 (optima at "
            "phi = pi j/4; Eq. (6) of Appendix C.1), and the printed rank-two weights "
            "(Eq. (2)) give speed s2 = 1/2."
        ),
        kind="identity, construction",
        notes=(),
        tested_as="Exactly (symbolic, sympy) where possible; the escape-direction solver on the example otherwise.",
    ),
    Claim(
        id="BSJ25.S13",
        paper="BSJ25",
        ref="Section 1.3 (contributions)",
        title="The example's optimal escape direction: rank-2 first layers, then rank 1",
        statement=(
            "Finally, we provide an example of a simple dataset whose optimal escape direction has the following "
            "structure: The first two weight matrices are rank 2, followed by rank 1 matrices."
        ),
        kind="construction",
        notes=(),
        tested_as=(
            "On the example it refers to (Example 1, Section 4): the ranks of the printed Eq. (2) weights, exactly, "
            "and of the solver's certified optimum (speed 1/2, depth 3, width 4)."
        ),
        extraction="Section 1.3, last paragraph of the contributions; the example is Example 1 (Section 4).",
    ),
    Claim(
        id="BSJ25.FN2",
        paper="BSJ25",
        ref="Section 4, footnote 2",
        title="No escape direction of Example 1 faster than the rank-two one",
        statement=(
            "It is worth noting that there may exist an even faster escape direction than the rank-two solution we "
            "identify (though we doubt it; see subsequent numerical experiments), but in any case we may be assured "
            "that the fastest escape direction is not rank one."
        ),
        kind="inequality",
        notes=(),
        tested_as=(
            "The authors' doubt as a statement: no escape direction of Example 1 (depth 3) is faster than s2 = 1/2. "
            "A batched search of ||theta||^2 = 3 (the solver's restarts, refined and polished) at widths 4-6 (8 under "
            "nightly): the fastest speed found is at most 1/2 to rounding, and the search reaches 1/2 from random "
            "starts."
        ),
        extraction="Footnote 2, attached to the paragraph after Example 1's proof (Section 4).",
    ),
    Claim(
        id="BSJ25.S22",
        paper="BSJ25",
        ref="Section 2.2",
        title="theta_bar(s) does not depend on alpha; ||theta(s_1)|| = C alpha; theta_bar(s) converges to an escape "
              "direction",
        statement=(
            "Note that the dynamics of theta_bar(s) (in reparametrized s-time) are unaffected by multiplying the "
            "initialization theta_0 by a factor alpha > 0. Therefore the time s_1 of convergence to an escape "
            "direction is independent of alpha, and at the time s_1, the parameter norm will depend linearly on alpha: "
            "||theta(s_1)|| = C alpha for some C > 0. [...] since the normalized parameters theta_bar(s) follow GF "
            "restricted to the sphere, they will converge to an escape direction."
        ),
        kind="invariance, identity",
        notes=(),
        tested_as=(
            "Gradient flow on L_0 (DOP853, rtol 1e-12) from alpha theta_0 for several alpha, s-time from "
            "ds/dt = ||theta||^{L-2} (Section 2.1: t(s) = int_0^s ||theta(s_1)||^{2-L} ds_1) integrated with the flow: "
            "theta_bar at matched s agrees across alpha to the integrator's tolerance, ||theta(s_1)|| / alpha is one "
            "constant, and theta_bar at large s satisfies Definition 2.1's stationarity (rescaled to the "
            "radius-sqrt(L) sphere) to the flow's remaining motion. Starts drawn by Hypothesis (random data, depths "
            "3-4, widths 2-5); a path is judged only up to s = 100 without a ReLU kink (the integrator's tolerance "
            "assumes a smooth flow), and its limit only where it has settled; too few such paths make it inconclusive."
        ),
        extraction=(
            "Section 2.2, first paragraph after Proposition 2.2's escape time and the paragraph 'Note that the "
            "dynamics of theta_bar(s)'; s-time as Section 2.1 defines it (its printed 's(t) = int_0^s "
            "||theta(s_1)||^{L-2} ds_1' read as t(s) = int_0^s ||theta(s_1)||^{2-L} ds_1, the form printed for t(s) "
            "two lines later)."
        ),
    ),
    Claim(
        id="BSJ25.S5",
        paper="BSJ25",
        ref="Section 5, conjecture (3)",
        title="Linear networks: the optimal escape direction is rank one and balanced, an invariant set of GF",
        statement=(
            "In linear networks, this follows from the fact that the optimal escape direction is rank 1 and balanced "
            "(i.e. W_l^T W_l = W_{l-1} W_{l-1}^T for all layers l), and that the space of rank 1 and balanced network "
            "is an invariant space under GF."
        ),
        kind="construction, invariance",
        notes=(),
        tested_as=(
            "Linear networks (no ReLU), L_0 = Tr[G^T W_L ... W_1 X] on ||theta||^2 = L, where the optimal speed is "
            "s* = sigma_1(G X^T) (von Neumann and AM-GM; attained by balanced rank-one layers u_l u_{l-1}^T). Optima "
            "found by fixed-step projected gradient descent from Gaussian starts, on cases drawn by Hypothesis "
            "(random data with sigma_2(G X^T) <= sigma_1 / 2, the search's power; depths 2-5, widths 2-5): s = s*, "
            "every layer rank one and every pair balanced, to the rounding an end point of the search carries (its "
            "steps' rounding over 1 - q, q = (1 + sigma_2/sigma_1) / 2 the step's contraction toward the optima). "
            "Gradient flow on L_0 (DOP853, rtol 1e-12) from rank-one balanced starts that are not escape directions: "
            "rank one and balanced at every report time to the integrator's tolerance."
        ),
        extraction=(
            "Section 5, conjecture (3) ('Rank 1 layers remain rank 1 until the next saddle'), second paragraph; the "
            "balance condition as printed (W_l^T W_l = W_{l-1} W_{l-1}^T, W_l of shape n_l x n_{l-1})."
        ),
    ),
    Claim(
        id="BSJ25.S5P",
        paper="BSJ25",
        ref="Section 5, conjecture (2), last paragraph",
        title="s*(L) plateaus from L_0 exactly when an optimal direction has rank-one layers from L_0 on",
        statement=(
            "Note that if we assume that the optimal escape direction s*(L), plateaus after a certain L_0, i.e. "
            "s*(L) = s*(L_0) for all L >= L_0, then Proposition 3.2 already implies that there is an optimal escape "
            "direction where all layers l >= L_0 are rank 1. Conversely, if there is an optimal escape directions "
            "with only rank 1 layers after the L_0-th layer, then s*(L) = s*(L_0) for all L >= L_0."
        ),
        kind="construction, identity",
        notes=(),
        tested_as=(
            "Forward: on random data where cold-started optima (32 restarts, widths 3 and 6, depths 2-5) show the "
            "plateau, Appendix A.3's extension of the depth-L_0 optimum to each depth L > L_0 has rank-one layers "
            "l >= L_0 and no cold-started depth-L optimum is faster. Converse: at optimal directions whose layers "
            "from L_0 on are rank one (Example 1's Eq. (2) and the solver's optimum at depth 3; the plateau data's "
            "single paths), s*(L) against s*(L_0), with s*(2) = the best single path's speed (exhaustive)."
        ),
        extraction=(
            "Section 5, conjecture (2) ('Exact rank 1 at most layers'), the paragraph after it; 'the optimal escape "
            "direction s*(L)' read as the optimal speed. The converse read per depth: an optimal depth-L direction "
            "(L > L_0) whose layers after the L_0-th are rank one gives s*(L) = s*(L_0); Example 1's counterexample "
            "has rank-one layers l >= L_0 = 2, so it holds under both 'after' (l > L_0) and 'from' (l >= L_0)."
        ),
    ),
    Claim(
        id="BSJ25.AB4",
        paper="BSJ25",
        ref="Abstract; Section 1.3 (contributions)",
        title="s_1(W_l) at least l^{1/4} times every other singular value at the optimal escape direction",
        statement=(
            "We show that the optimal escape direction features a low-rank bias in its deeper layers: the first "
            "singular value of the l-th layer weight matrix is at least l^{1/4} larger than any other singular value."
        ),
        kind="inequality",
        notes=(
            "Relation to Theorem 3.1: its ratio r_l = sum_{i>=2} s_i^2 / sum_i s_i^2 <= B(l) = 8 c l^{-1/2} / "
            "(1 - c l^{-1/2}) gives s_2^2 / s_1^2 <= r_l / (1 - r_l), i.e. s_1 / s_2 >= sqrt((1 - B) / B) ~ "
            "l^{1/4} / sqrt(8 c): the abstract's l^{1/4} with the constant 1/sqrt(8 c) dropped (the abstract's "
            "form follows from the theorem only where c <= ~1/9, and only for l > 81 c^2).",
        ),
        tested_as=(
            "s_2 / s_1 <= l^{-1/4} for every W_l at the computed optima of Theorem 3.1's test (cut, near-rank-one, "
            "random and digits families, depths 4-16) and Example 1's certified rank-two optimum (depth 3): a case is "
            "informative only at l >= 2 with s_2 above its rounding floor."
        ),
        extraction="Abstract, second sentence; Section 1.3: 'W_l and Z^sigma_l ... are l^{-1/4}-approximately rank 1'.",
    ),
    Claim(
        id="BSJ25.S32R",
        paper="BSJ25",
        ref="Section 3.2 (after Proposition 3.3)",
        title="A rank-one representation at layer l_0 stays rank one at every later layer",
        statement=(
            "This also implies that if a hidden representation is approximately rank in one layer l_0, then it must "
            "also be approximately rank in all subsequent layers l >= l_0."
        ),
        kind="inequality",
        notes=(
            "'approximately rank' read as 'approximately rank 1' (Proposition 3.3's sense). Tested in its exact "
            "case: Z^s_{l_0} rank one to rounding; then Z^s_l (l_0 < l < L), Z_L and W_l (l > l_0) rank one. For "
            "the representations this holds at any parameter (Z^s_{l_0} = a b^T with b >= 0 gives Z^s_{l+1} = "
            "relu(W_{l+1} a) b^T); for W_l it needs optimality.",
        ),
        tested_as=(
            "At computed optimal escape directions: Theorem 3.1's optima (l_0 = 1; the later layers W_l, Z^s_l, Z_L "
            "of width >= 2): ratios sum_{i>=2} s_i^2 / sum s_i^2 of "
            "the later layers at 0 to rounding."
        ),
        extraction="Section 3.2, the sentence after Proposition 3.3 (its exact case is Prop. 3.3 / A.5 with eps = 0).",
    ),
    Claim(
        id="BSJ25.S5W",
        paper="BSJ25",
        ref="Section 5, conjecture (3), third paragraph",
        title="ReLU networks: weak balancedness along GF, strong balancedness where pre-activations are >= 0",
        statement=(
            "ReLU networks only satisfy weak balancedness in general, i.e. diag(W_l^T W_l) = diag(W_{l-1} W_{l-1}^T), "
            "however the stronger balancedness applies at layers where the pre-activations have non-negative "
            "entries: Z_l >= 0."
        ),
        kind="invariance",
        notes=(
            "Read as invariances of gradient flow (the differences are conserved, as for linear networks in the "
            "preceding paragraph). Indices: W_l^T W_l and W_{l-1} W_{l-1}^T are both over the neurons of layer l-1, "
            "so the strong form of the pair (W_{l-1}, W_l) needs Z_{l-1} >= 0; 'Z_l >= 0' is read as naming that "
            "hidden layer (the pair W_{l+1}^T W_{l+1} = W_l W_l^T).",
        ),
        tested_as=(
            "GF on L_0 for ReLU MLPs (X > 0, W_1 > 0 so Z_1 > 0; later layers mixed): the instantaneous rate of "
            "diag(W_l^T W_l - W_{l-1} W_{l-1}^T) at every l and of the full matrix at l = 2 is zero to rounding; "
            "RK4 drifts shrink at order 4 (the LJ22 protocol's band and ratio)."
        ),
        extraction="Section 5, conjecture (3) ('Rank 1 layers remain rank 1 until the next saddle'), third paragraph.",
    ),
    Claim(
        id="BSJ25.EX1R",
        paper="BSJ25",
        ref="Example 1 (Section 4) / Appendix C.1",
        title="Rank-one layers represent one-neuron functions, independently of depth",
        statement=(
            "a network with only rank 1 layers can only represent 'one neuron functions': f_theta(x) = u sigma(v^T x) "
            "for some vectors u, v, independently of depth [...] We solve this 1D optimization problem in Appendix "
            "C.1, finding that the optima fall at phi = pi j / 4 for j in Z, giving speed s_1 = sqrt(2) - 1."
        ),
        kind="identity",
        notes=(),
        tested_as=(
            "Exactly (rational arithmetic): networks with a rank-one first layer (any later layers, depths 2-6) "
            "against u sigma(v^T x) + w sigma(-v^T x); the width-one problem W_1 = [cos phi, sin phi], W_l = [1], W_L "
            "= [+-1] at depths 3-6 (sympy): speed sqrt(2) - 1 at phi = pi j / 4."
        ),
        extraction="Section 4, the paragraph after Example 1 (proof sketch), parenthesis; Appendix C.1.",
    ),
    Claim(
        id="BSJ25.S22B",
        paper="BSJ25",
        ref="Section 2.2 (after the escape time)",
        title="The localized GF diverges to infinity, in finite time when L > 2",
        statement=(
            "After this escape time, we expect the localized GF to diverge from the true GF: the localized GF "
            "diverges towards infinity (in finite time when L > 2), while the true GF typically slows down as it "
            "approaches another saddle or a minima."
        ),
        kind="limit",
        notes=(),
        tested_as=(
            "DOP853 (rtol 1e-12) on L_0 from optimal escape directions (depths 3-5): the time t(R) to reach "
            "||theta|| = R for R doubling stays below the closed-form blow-up time R_0^{2-L} / ((L-2) L^{1-L/2} s) "
            "and settles on it as R -> infinity (extrapolated in R^{2-L})."
        ),
        extraction="Section 2.2, the sentence after the escape-time approximation.",
    ),
    Claim(
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
        setting=Setting(
            paper=(
                ("dataset", "Example 1: x_j = (sin(2 pi j/8), cos(2 pi j/8)), G = ((-1)^j), N = 8 "
                 "(Section 4, Fig. 2)"),
                ("architecture", "bias-free ReLU MLP; projected GD on the first-order loss, "
                 "||theta||^2 = L (Section 4.1, Fig. 2)"),
                ("widths", "'varying width' (Section 4.1); the widths are not given in the text"),
                ("depths", "3 (Fig. 2)"),
            ),
            tested=(
                ("dataset", "Example 1's eight points and G, exactly; nightly the same"),
                ("architecture", "bias-free ReLU MLP [2, w, w, 1], PGD on ||theta||^2 = 3; success: "
                 "speed above s1 + (s2 - s1)/2"),
                ("widths", "w in {4, 8, 16, 32, 64}; nightly the same"),
                ("depths", "3"),
                ("training length", "1000 PGD steps (a 500-step restart is a finding); nightly the same"),
                ("init scale", "on the sphere: N(0, 1) entries rescaled, and U(-1, 1) layers each scaled to "
                 "||W_l||_F = 1"),
                ("learning rates", "0.1 for the first 500 steps, then a geometric decay to 1e-4"),
                ("seeds", "20 runs per width and initialization scheme (dev/ci); 60 (nightly)"),
            ),
            at_paper_setting=False,
        ),
    ),
    Claim(
        id="BSJ25.F1",
        paper="BSJ25",
        ref="Section 3.3 / Figs. 1, 3, 4",
        title="One dominant singular value per layer after the first saddle escape",
        statement=(
            "Trained from small initialization, after the first saddle escape every layer "
            "shows one dominant singular value, more strongly in deeper layers; a second one "
            "appears later."
        ),
        kind="trend",
        notes=(),
        tested_as="Full-batch GD on real data shipped with a package (scikit-learn's digits) in place of MNIST, at "
                  "this machine's scale.",
        setting=Setting(
            paper=(
                ("dataset", "MNIST (Section 3.3, Appendix B)"),
                ("architecture", "fully connected ReLU MLP without biases, cross-entropy loss (Appendix B)"),
                ("widths", "1000 neurons per hidden layer (Appendix B)"),
                ("depths", "6 layers (Figs. 1, 3; Appendix B); 4 (Fig. 4)"),
                ("training length", "1000 epochs (Appendix B)"),
                ("init scale", "normal, mean 0, standard deviation 1/1000 (Appendix B)"),
                ("normalization", "inputs (x/255 - mu)/sigma, MNIST's pixel mean and std (Appendix B)"),
                ("batch sizes", "32 (Appendix B)"),
                ("learning rates", "lr(t) = 10 / ||theta(t)||^4 (Appendix B)"),
            ),
            tested=(
                ("dataset", "scikit-learn's digits, 300 training samples (30 per class of the 1257-sample "
                 "split); nightly the same"),
                ("architecture", "ReLU MLP without biases, linear output, cross-entropy; nightly the same"),
                ("widths", "32"),
                ("depths", "4 and 6 weight matrices"),
                ("training length", "until each run's first plateau (<= 250 steps); long runs 3000 "
                 "(depth 4), 1000 (depth 6) steps; nightly 4x the long runs"),
                ("init scale", "N(0, 1e-2^2)"),
                ("normalization", "inputs standardized per feature (training statistics)"),
                ("batch sizes", "full batch (300)"),
                ("learning rates", "steps of 0.02 ||theta|| until the loss is 1% below its start, then "
                 "eta = (L / ||theta||^2)^((L-2)/2), the same cap"),
                ("weight decay", "none"),
                ("seeds", "40 (depth 4), 21 (depth 6) to the plateau, 3 long runs per depth (dev/ci); "
                 "nightly 3x"),
            ),
            at_paper_setting=False,
        ),
    ),
)
