"""GP22: Galanti & Poggio, CBMM Memo 134 (2022). The paper's record and its claims, in the order of the
project's claims inventory (the spec they were written from, outside this repository)."""

from claims.evidence.papers import Claim, Paper, Setting

PAPER = Paper(
    key="GP22",
    order=2,
    reference="Tomer Galanti and Tomaso Poggio. SGD Noise and Implicit Low-Rank Bias in Deep Neural Networks. "
    "CBMM Memo No. 134, Center for Brains, Minds and Machines, MIT, 2022",
    title="SGD Noise and Implicit Low-Rank Bias in Deep Neural Networks",
    authors=(("Tomer", "Galanti"), ("Tomaso", "Poggio")),
    year=2022,
    url="https://hdl.handle.net/1721.1/141380",
    identifiers=(
        ("CBMM Memo No. 134, 2022-03-28", "memo number and date as printed on the text's cover page"),
    ),
    bibtex_key="galanti2022sgd",
    bibtex_type="techreport",
    bibtex_fields=(
        ("institution", "Center for Brains, Minds and Machines (CBMM), MIT"),
        ("type", "CBMM Memo"),
        ("number", "134"),
        ("month", "mar"),
        ("note", "Dated March 28, 2022"),
    ),
    cff_type="report",
    cff_fields=(
        ("month", 3),
        ("date-published", "2022-03-28"),
        ("institution", {"name": "Center for Brains, Minds and Machines (CBMM), MIT"}),
        ("collection-title", "CBMM Memo"),
        ("number", "134"),
    ),
    version="CBMM Memo No. 134 dated March 28, 2022 (stated on the cover page)",
)

# The empirical claims' settings (``Claim.setting``): the memo's design as Sections 2.1 and 4 and
# Appendix A state it, beside what the tests run (tests/claims/gp22/; claims/gp22/_experiments.py,
# _architectures.py, _sgd.py) under the default profile (dev/ci) and, where it differs, under nightly.
# The memo states no seeds or number of runs; SETTING_FIELDS has no optimizer or loss field, so momentum
# and the schedule go with the learning rates and the loss with the architecture.
_MEMO_INIT = "'a standard initialization procedure' (Section 2.1)"
_MEMO_BN = "batch norm, variance detached (MLP-BN, RES-BN; Eq. (5)); none in MLP-5-500, MLP-10-100"
_MEMO_SEC43 = (
    ("dataset", "CIFAR10 (Figs. 2, 4, 5; Section 4.3)"),
    ("architecture", "MLP-BN-10-100, RES-BN-5-500, MLP-5-500 (Section 4.3)"),
    ("widths", "H = 100, 500 (the architectures' names, Section 4.1)"),
    ("depths", "L = 10 hidden layers (MLP-BN-10-100), 5 residual blocks (RES-BN-5-500), 5 (MLP-5-500)"),
    ("training length", "500 epochs (Section 4.3)"),
    ("init scale", _MEMO_INIT),
    ("normalization", _MEMO_BN),
    ("batch sizes", "B in {2^(i+1)}, i = 1..6, i.e. 4 to 128 (Section 4.3)"),
    ("learning rates", "initial eta in {0.001, 0.01, 0.1}, momentum 0.9, x 0.1 at epochs 60, 100, 200 "
     "(Sections 4.1, 4.3)"),
    ("weight decay", "lambda = 5e-4 (Section 4.3)"),
)
"""Section 4.3's batch-size and learning-rate runs (Figs. 2, 4, 5)."""
_MEMO_FIG1 = (
    ("dataset", "MNIST and CIFAR10 (Fig. 1)"),
    ("architecture", "MLP-5-2000, CE and squared loss (Section 4.2, Fig. 1)"),
    ("widths", "H = 2000"),
    ("depths", "L = 5 hidden layers"),
    ("training length", "2000 epochs (Section 4.2)"),
    ("init scale", _MEMO_INIT),
    ("normalization", "none (MLP-L-H: 'without applying batch normalization', Section 4.1)"),
    ("batch sizes", "128 (Section 4.2)"),
    ("learning rates", "0.1, 'without scheduling or momentum' (Section 4.2)"),
    ("weight decay", "lambda in {0, 1e-6, 1e-5, 1e-4, 1e-3} (Section 4.2)"),
)
"""Section 4.2's runs (Fig. 1)."""
_DIGITS = "scikit-learn's digits (1257 training samples, 64 inputs, 10 classes); nightly the same"
_MLP = "MLP-4-32 (no batch norm, no biases); nightly the same"
_INIT = "U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (torch.nn.Linear's default)"
_NO_BN = "none (inputs standardized per feature)"


def _f1_runs(architecture: str, training_length: str) -> tuple[tuple[str, str], ...]:
    """The tested setting of Fig. 1's runs (GP22.F1's design, which GP22.F1S judges too)."""
    return (
        ("dataset", _DIGITS), ("architecture", architecture), ("widths", "32"), ("depths", "4 hidden layers"),
        ("training length", training_length), ("init scale", _INIT), ("normalization", _NO_BN),
        ("batch sizes", "128"), ("learning rates", "0.1, no momentum or schedule"),
        ("weight decay", "lambda in {0, 1e-3, 1e-2}"),
        ("seeds", "3 per lambda, each lambda > 0 run with its lambda = 0 twin (dev/ci); 9 (nightly)"),
    )


CLAIMS: tuple[Claim, ...] = (
    Claim(
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
    Claim(
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
    Claim(
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
    Claim(
        id="GP22.P1",
        paper="GP22",
        ref="Proposition 1",
        title="SGD with weight decay converges only to the zero function",
        statement=(
            "For lambda > 0: if every edge into the first layer is trainable and W is a "
            "convergence point of mini-batch SGD on L^lambda_S, then f_W = 0 or the x_i are "
            "collinear."
        ),
        kind="construction",
        notes=(),
        tested_as=(
            "A search for convergence points with f_W != 0 on non-collinear data (the hypothesis met); collinear "
            "data, where they exist, as the control. The verdict rests on these convergence points: SGD training, "
            "which reaches no convergence point in its length, is reported as a finding of GP22.F1's runs (lambda > 0 "
            "runs keep moving faster than their lambda = 0 twins)."
        ),
    ),
    Claim(
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
    Claim(
        id="GP22.BS",
        paper="GP22",
        ref="Section 3.1 (last paragraph), Eq. (9)",
        title="Convergence points are the same for every batch size B < m",
        statement=(
            "Finally, we note that the analysis above is independent of the batch size as long as it is strictly "
            "smaller than the full dataset's size. As follows from Eq. 9 the convergence points of mini-batch SGD "
            "are equivalent to the convergence points of SGD with batch size 1."
        ),
        kind="identity",
        notes=(),
        tested_as=(
            "As the memo's argument makes it precise: Eq. (6) for every batch of size B is A_B r = b, r_i = l'_i d "
            "f(x_i)/d theta + 2 lambda theta (Eq. (9)), A_B the batch-mean matrix. A_B has rank m (exactly, in "
            "Fractions) and its minimum-norm inverse recovers every r_i from the autograd batch gradients (up to the "
            "float64 bound) for every B < m, so every batch gradient vanishes iff every r_i does (the B = 1 "
            "convergence points): on drawn ReLU chains at arbitrary points and at constructed convergence points. The "
            "control: B = m, where A_m has rank 1, the same recovery fails, and a constructed stationary point of "
            "full-batch GD is no B = 1 point."
        ),
    ),
    Claim(
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
    Claim(
        id="GP22.S32",
        paper="GP22",
        ref="Section 3.2",
        title="Predicted effects of batch size, weight decay, learning rate on rank",
        statement=(
            "Predictions: smaller batch size gives lower rank; larger weight decay gives lower "
            "rank; larger learning rate gives lower rank; lambda = 0 gives no rank "
            "minimization."
        ),
        kind="trend",
        notes=(),
        tested_as=(
            "Each prediction its own trend test fixed before the data; rank as in Section 4.1: normalize the "
            "matrix and count singular values outside [-1e-4, 1e-4]."
        ),
        setting=Setting(
            paper=(
                ("dataset", "CIFAR10 (Figs. 2-5: Section 4.3 tests Section 3.2's predictions)"),
                *(item for item in _MEMO_SEC43
                  if item[0] not in ("dataset", "architecture", "batch sizes", "weight decay")),
                ("architecture", "MLP-BN-10-100, RES-BN-5-500, MLP-5-500; MLP-10-100 for lambda "
                 "(Section 4.3)"),
                ("batch sizes", "4 to 128 (B in {2^(i+1)}, i = 1..6); {16, 32, 64, 128} in the lambda runs "
                 "(Section 4.3)"),
                ("weight decay", "5e-4; lambda in {0, 1e-4, 2e-4, 4e-4, 8e-4, 6e-3} in the lambda runs "
                 "(Section 4.3, Fig. 3)"),
            ),
            tested=(
                ("dataset", _DIGITS),
                ("architecture", _MLP),
                ("widths", "32"),
                ("depths", "4 hidden layers"),
                ("training length", "40 epochs (the fixed-steps control: 1560 SGD steps); nightly the same"),
                ("init scale", _INIT),
                ("normalization", _NO_BN),
                ("batch sizes", "base 32; B in {32, 48, 64, 96, 128} (fixed epochs), {32, 48, 64} "
                 "(fixed steps): the levels where runs train (B <= 24 does not at eta 0.1, piloted)"),
                ("learning rates", "base 0.1, momentum 0.9, no schedule; eta in {0.025, 0.05, 0.075, 0.1}, "
                 "{0.05, 0.1, 0.2} at eta lambda = 5e-4"),
                ("weight decay", "base 5e-3; lambda in {1e-3, 2e-3, 4e-3, 6e-3}; 0 against 5e-3 "
                 "(at eta 0.05)"),
                ("seeds", "21-42 per level (22 per batch size, 24 per lambda, 28 per fixed-steps or "
                 "fixed-product level, 42 at lambda 0 / 5e-3); nightly 3x"),
            ),
            at_paper_setting=False,
        ),
    ),
    Claim(
        id="GP22.LRG",
        paper="GP22",
        ref="Section 3.2 ('Rank and learning rate')",
        title="Larger learning rates give smaller mini-batch gradient norms",
        statement=(
            "Typically, unless the learning rate is not too large, when training a model with larger learning rates we "
            "should expect the objective's gradient to be of a smaller norm. Therefore, for larger values of eta, we "
            "should expect min_{S~ subset S: |S~| = B} ||grad_{W^{pq}} L^lambda_{S~}(f_W)|| to be smaller."
        ),
        kind="trend",
        notes=(
            "A heuristic ('we should expect'): the memo gives no proof and no measurement of the gradient norm.",
        ),
        tested_as=(
            "On GP22.S32's learning-rate runs (the same design and session cache, no training of its own), at the end "
            "of training, per run and trainable matrix: the min over K = 64 random batches of B = 32 (random orders "
            "of the training set cut into batches, as SGD draws them) of ||grad_{W^{pq}} L^lambda_{S~}||_F, Eq. (2)'s "
            "batch objective as trained (decay gradient 2 lambda W), an upper bound on the printed min over all "
            "C(m, B) batches; and the full-batch norm ('the objective's gradient'). Each, as the mean over the "
            "matrices of its log10, judged decreasing in log2 eta (Spearman permutation test, alpha 0.05, effect "
            ">= 0.3, power 0.8 to detect 0.3 after exclusions) on the runs that trained (S32's criterion, train "
            "accuracy >= 0.55: 'unless the learning rate is not too large'); each matrix's own trend a finding. "
            "Control: the same check with the rate labels permuted."
        ),
        setting=Setting(
            paper=(
                ("dataset", "CIFAR10 (Section 4.3's learning-rate runs, Figs. 2, 4, 5); the memo measures no "
                 "gradient norm"),
                *(item for item in _MEMO_SEC43 if item[0] != "dataset"),
            ),
            tested=(
                ("dataset", _DIGITS),
                ("architecture", _MLP + "; GP22.S32's learning-rate runs"),
                ("widths", "32"),
                ("depths", "4 hidden layers"),
                ("training length", "40 epochs; nightly the same"),
                ("init scale", _INIT),
                ("normalization", _NO_BN),
                ("batch sizes", "32 (the min over 64 random batches of 32)"),
                ("learning rates", "eta in {0.025, 0.05, 0.075, 0.1}, momentum 0.9, no schedule"),
                ("weight decay", "5e-3"),
                ("seeds", "21 per level (the runs that trained are judged); nightly 3x"),
            ),
            at_paper_setting=False,
        ),
    ),
    Claim(
        id="GP22.F1S",
        paper="GP22",
        ref="Section 4.2 / Fig. 1(a)",
        title="Without weight decay the slope of d(W_{t+1}, W_t) is orders of magnitude smaller",
        statement=(
            "On the other hand, the term d(W_{t+1}, W_t) (and its slope) is smaller by orders of magnitude when "
            "using lambda = 0 in comparison to using lambda > 0 (except for cases when the selection of lambda > 0 "
            "leads to W_t^{pq} -> 0)."
        ),
        kind="trend",
        notes=(),
        tested_as=(
            "On GP22.F1's own runs (the same design and session cache, no training of its own): the slope of d "
            "against the epoch over the last decade of epochs [T/10, T] (least squares), |slope| per run, log10 "
            "|slope| at lambda = 0 against lambda > 0 (runs whose weights went to zero left out, as printed); "
            "'orders of magnitude' read as two decades, as in GP22.F1: the Theil-Sen slope between the groups "
            "with its 90 % interval above 2, at the length trained (ci: 100 epochs, where GP22.F1's pilot finds "
            "d_lambda still in its transient; nightly: the memo's 2000). Control: the same rule on permuted levels."
        ),
        setting=Setting(
            paper=_MEMO_FIG1,
            tested=_f1_runs("MLP-4-32 (no batch norm, no biases), CE and squared loss; GP22.F1's runs",
                            "100 epochs (dev/ci); 2000 (nightly)"),
            at_paper_setting=False,
        ),
    ),
    Claim(
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
        tested_as=(
            "Each printed sentence as printed, on MLP-4-32 (digits, B = 128, eta = 0.1, no momentum, CE and squared "
            "loss): 'lower-bounded by a positive constant' as the last decade's log-log slope of d >= -log10 2 for "
            "every lambda > 0 run, a run that went to W = 0 tested as the zero function; 'orders of magnitude' as "
            "d_lambda / d_0 >= 100 (Theil-Sen interval). Decided at the memo's 2000 epochs under nightly; ci's 100 "
            "epochs record the trajectory and are inconclusive."
        ),
        setting=Setting(
            paper=_MEMO_FIG1,
            tested=_f1_runs("MLP-4-32 (no batch norm, no biases), CE and squared loss; nightly the same",
                            "100 epochs (dev/ci: recorded, lower-bound sentence inconclusive); 2000 "
                            "(nightly: decided)"),
            at_paper_setting=False,
        ),
    ),
    Claim(
        id="GP22.F2",
        paper="GP22",
        ref="Section 4.3 / Figs. 2-7",
        title="Empirical rank effects and MLP vs ResNet rank profiles",
        statement=(
            "The reported effects of batch size, learning rate and weight decay on the average "
            "rank of MLP and ResNet matrices, and the bottleneck (MLP) vs balanced (ResNet) "
            "rank profiles of Appendix A."
        ),
        kind="trend",
        notes=(),
        tested_as=(
            "Every sentence of Section 4.3 and Appendix A that states a direction, as a trend test fixed before the "
            "data, at a scale that fits the machine (scikit-learn's digits in place of CIFAR10), on MLP-4-32 and "
            "RES-2-32 (no batch norm: the batch-norm families stay at full rank at this scale, piloted)."
        ),
        setting=Setting(
            paper=(
                ("dataset", "CIFAR10 (Figs. 2-7)"),
                ("architecture", "MLP-BN-10-100, RES-BN-5-500, MLP-5-500 (Sec. 4.3, App. A); MLP-10-100 for "
                 "lambda (Sec. 4.3; Fig. 3: MLP-BN-10-100)"),
                ("widths", "H = 100, 500 (the architectures' names, Section 4.1)"),
                ("depths", "L = 10 hidden layers (MLP-BN-10-100), 5 residual blocks (RES-BN-5-500), "
                 "5 (MLP-5-500)"),
                ("training length", "500 epochs (Section 4.3); Appendix A states none"),
                ("init scale", _MEMO_INIT),
                ("normalization", _MEMO_BN),
                ("batch sizes", "4 to 128 (Sec. 4.3); {16, 32, 64, 128} (lambda runs); {32, 64, 128} "
                 "(App. A)"),
                ("learning rates", "initial {0.001, 0.01, 0.1} (Sec. 4.3), 0.1 (lambda runs), "
                 "{0.0125, 0.025, 0.05, 0.1} (App. A); momentum 0.9"),
                ("weight decay", "5e-4 (Sec. 4.3, App. A); {0, 1e-4, 2e-4, 4e-4, 8e-4, 6e-3} "
                 "(lambda runs, Fig. 3)"),
            ),
            tested=(
                ("dataset", _DIGITS),
                ("architecture", "MLP-4-32 (every sentence), RES-2-32 (the ResNet profile); no batch "
                 "norm; nightly the same"),
                ("widths", "32"),
                ("depths", "4 hidden layers (MLP), 2 residual blocks (ResNet)"),
                ("training length", "40 epochs (the B = 16 lambda contrast: 1560 steps); nightly the same"),
                ("init scale", _INIT),
                ("normalization", "none: the batch-norm families stay at full rank at this scale (piloted)"),
                ("batch sizes", "B in {32, 48, 64, 96, 128}; 32 elsewhere (16 in one lambda = 0 contrast)"),
                ("learning rates", "eta in {0.025, 0.05, 0.075, 0.1}; 0.1 elsewhere (0.05 in the lambda = 0 "
                 "contrasts); momentum 0.9"),
                ("weight decay", "lambda in {1e-3, 2e-3, 4e-3, 6e-3}; 5e-3 elsewhere; 0 against 5e-3"),
                ("seeds", "21-42 per level (22 per batch size and for RES-2-32, 24 per lambda, 42 per "
                 "lambda = 0 contrast); nightly 3x"),
            ),
            at_paper_setting=False,
        ),
    ),
    Claim(
        id="GP22.FB",
        paper="GP22",
        ref="Section 3.2 / Section 5",
        title="Full-batch GD does not minimize rank; mini-batches are needed",
        statement=(
            "In contrast to SGD with small batch sizes, we expect that GD would not regularize the rank of the "
            "network's matrices (unless the training data is very small); weight decay and training with "
            "mini-batches are necessary to obtain rank minimization."
        ),
        kind="trend",
        notes=(),
        tested_as=(
            "Full-batch GD (B = m = 1257) against mini-batch SGD (B = 32) at the same rate, weight decay and number "
            "of updates (1560), MLP-4-32 on digits, own seeds per level: the rank lost in training is predicted "
            "larger with mini-batches. GD's steps cost m / B times SGD's, so the design runs under nightly."
        ),
        setting=Setting(
            paper=(
                ("dataset", "CIFAR10 (Section 4.3's batch-size runs, Figs. 2, 4, 5); the memo reports no "
                 "full-batch GD run"),
                *(item for item in _MEMO_SEC43 if item[0] not in ("dataset", "batch sizes")),
                ("batch sizes", "4 to 128 (Section 4.3); GD (B = m) is predicted (Section 3.2), not run"),
            ),
            tested=(
                ("dataset", "scikit-learn's digits (1257 training samples); nightly only (dev/ci: not run)"),
                ("architecture", "MLP-4-32 (no batch norm, no biases); nightly only"),
                ("widths", "32"),
                ("depths", "4 hidden layers"),
                ("training length", "1560 updates each (GD: 1560 epochs, SGD: 40); nightly only"),
                ("init scale", _INIT),
                ("normalization", _NO_BN),
                ("batch sizes", "1257 = m (full-batch GD) against 32"),
                ("learning rates", "0.1, momentum 0.9, no schedule"),
                ("weight decay", "5e-3"),
                ("seeds", "42 per level (14 x nightly's 3); nightly only"),
            ),
            at_paper_setting=False,
        ),
    ),
    Claim(
        id="GP22.LR",
        paper="GP22",
        ref="Section 3.2 / Section 4.3",
        title="Smaller batch sizes need a smaller learning rate to train",
        statement=(
            "We predict that to effectively train a model with smaller batch sizes it is necessary to decrease the "
            "learning rate accordingly (Sec. 3.2); to train a neural network with smaller batch sizes, one needs to "
            "decrease the learning rate as well (Sec. 4.3)."
        ),
        kind="trend",
        notes=(),
        tested_as=(
            "The largest learning rate that trains (train accuracy >= 0.5 after 20 epochs) on a doubling grid eta in "
            "{0.025, ..., 0.4}, per seed, rises with the batch size B in {16, 32, 64, 128}: MLP-4-32 on digits, "
            "momentum 0.9, lambda 5e-3, own seeds per batch size; a trend test with the grid's ends as ceiling and "
            "floor, its control the same test with the labels permuted."
        ),
        setting=Setting(
            paper=_MEMO_SEC43,
            tested=(
                ("dataset", _DIGITS),
                ("architecture", _MLP),
                ("widths", "32"),
                ("depths", "4 hidden layers"),
                ("training length", "20 epochs; nightly the same"),
                ("init scale", _INIT),
                ("normalization", _NO_BN),
                ("batch sizes", "B in {16, 32, 64, 128}"),
                ("learning rates", "every seed at eta in {0.025, 0.05, 0.1, 0.2, 0.4}, momentum 0.9, "
                 "no schedule"),
                ("weight decay", "5e-3"),
                ("seeds", "21 per batch size (dev/ci); 63 (nightly)"),
            ),
            at_paper_setting=False,
        ),
    ),
    Claim(
        id="GP22.AC",
        paper="GP22",
        ref="Section 3.1 / Section 4.2",
        title="Without weight decay, almost convergence as the network grows",
        statement=(
            "By increasing the size of the network (i.e., the width or the depth), we should expect the term "
            "max_i |d l(f_W(x_i), y_i) / d f_W(x_i)| to tend to zero (if the network is trained successfully); "
            "lim_{t -> infinity} d(W_{t+1}, W_t) may be as small as we wish by increasing the size of the network "
            "(lambda = 0, cross-entropy)."
        ),
        kind="trend",
        notes=(),
        tested_as=(
            "MLP-4-H, H in {16, 32, 64, 128}, trained as Fig. 1's lambda = 0 runs (B = 128, eta = 0.1, no momentum, "
            "cross-entropy) for 400 epochs, own seeds per width: log10 max_i |l'| and log10 d over the last epoch "
            "each fall with the width (trend tests; runs below train accuracy 0.99 left out, as 'if trained "
            "successfully' says). Runs under nightly only (~160 CPU-s, 21 seeds per width)."
        ),
        setting=Setting(
            paper=(
                *(item for item in _MEMO_FIG1 if item[0] not in ("architecture", "widths", "weight decay")),
                ("architecture", "MLP-5-2000, CE loss (Section 4.2); the memo varies no size"),
                ("widths", "H = 2000 only"),
                ("weight decay", "lambda = 0 (Sections 3.1, 4.2)"),
            ),
            tested=(
                ("dataset", "scikit-learn's digits (1257 training samples); nightly only (dev/ci: not run)"),
                ("architecture", "MLP-4-H (no batch norm, no biases), cross-entropy; nightly only"),
                ("widths", "H in {16, 32, 64, 128}"),
                ("depths", "4 hidden layers"),
                ("training length", "400 epochs; nightly only"),
                ("init scale", _INIT),
                ("normalization", _NO_BN),
                ("batch sizes", "128"),
                ("learning rates", "0.1, no momentum or schedule"),
                ("weight decay", "0"),
                ("seeds", "21 per width (7 x nightly's 3); nightly only"),
            ),
            at_paper_setting=False,
        ),
    ),
)
