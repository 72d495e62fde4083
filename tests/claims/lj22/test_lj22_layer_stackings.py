"""LJ22, "Significance of Lemma 3" (LJ22.S3): "A flattening of a convolutional parameter tensor and a stacking of
matrices in a ResNetDiagonal and ResNetFree block forms a layer." Each stacking as printed, on drawn networks
(``sequential_networks``): the edges of a convolution (its kernel at every position), [U D] and [Y; D] of a
ResNetDiagonal block, [U Z] and [Y; Z] of a ResNetFree block, each against Definition 7's two printed conditions
(``GraphLayers``: no path contains two of its edges; removing them disconnects G) and as a path cut (every
input-output path meets it exactly once, what Lemma 3's proof counts). The control calls the same function on
the perturbed stacking without the skip (U or Y alone): the skip keeps G connected, so it is no layer.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from claims import check_property, check_property_rejected, record_note
from claims.models import GraphLayers
from claims.strategies import sequential_networks

S3 = pytest.mark.claim("LJ22.S3")


def edges_of(network, names):
    """The edges of named matrices and kernels (a kernel: every edge sharing one of its parameters)."""
    edges = set()
    for name in names:
        if name in network.tensors:
            flat = []
            stack = [network.tensors[name]]
            while stack:
                item = stack.pop()
                stack.extend(item) if isinstance(item, tuple) else flat.append(item)
            shared = {network.parameters[e] for e in flat}
            edges |= {e for e, p in enumerate(network.parameters) if p in shared}
        else:
            edges |= {e for row in network.matrices[name] for e in row if e >= 0}
    return frozenset(edges)


def stackings(network, with_skip=True):
    """The printed stackings present in the network: name -> edge set (``with_skip`` False: U or Y alone)."""
    found = {}
    for name in network.tensors:
        found[f"flattening of {name}"] = (name,)
    for block in sorted({n.split(".")[0] for n in network.matrices if "." in n}):
        skip = next((f"{block}.{k}" for k in ("D", "Z") if f"{block}.{k}" in network.matrices), None)
        if skip is None:
            continue  # ResNetIdentity: the skip is not learnable (not printed)
        for part in ("U", "Y"):
            found[f"[{part} {skip[-1]}] of {block}"] = (f"{block}.{part}", skip) if with_skip else (f"{block}.{part}",)
    return {name: edges_of(network, parts) for name, parts in found.items()}


def connected_graph(network):
    """The network's graph G, if it is connected. Definition 7's condition 2 ("(V, E minus F) is disconnected")
    presumes a connected G: a drawn convolution whose stride leaves an input unused gives a G that is already
    disconnected, where every edge set, the empty one too, meets condition 2, so such a draw decides nothing."""
    layers = GraphLayers(network)
    assume(not layers.disconnects(frozenset()))
    return layers


def judge_layers(network, check, with_skip=True):
    layers = connected_graph(network)
    judged = 0
    for name, edges in stackings(network, with_skip).items():
        no_two = not any(layers.on_one_path(e, f) for e in edges for f in edges if e < f)
        check(no_two and layers.disconnects(edges), "forms a layer (Definition 7: no path meets two of its edges, "
              "removing them disconnects G)", stacking=name, edges=len(edges))
        if with_skip:
            check(layers.is_path_cut(edges), "every input-output path meets it exactly once", stacking=name)
        judged += 1
    return judged


CASES = ["conv-conv", "conv-dense", "conv-block", "block", "block-block", "block-dense", "dense-block"]


@S3
@settings(max_examples=min(40, settings.default.max_examples))
@given(st.sampled_from(CASES).flatmap(lambda case: sequential_networks(case=case)))
def test_convolution_flattenings_and_resnet_stackings_form_layers(network):
    judge_layers(network, check_property)
    record_note("Drawn networks with convolutions (1-D, 2-D, strides, padding) and ResNetDiagonal / ResNetFree blocks: "
                "each convolution's edges and each block's [U D], [Y; D], [U Z], [Y; Z] satisfy Definition 7 and "
                "are path cuts.")


@pytest.mark.claim("LJ22.S3", negative_control=True)
@settings(max_examples=min(20, settings.default.max_examples))
@given(st.sampled_from(["block", "block-block", "block-dense", "dense-block", "conv-block"])
       .flatmap(lambda case: sequential_networks(case=case)))
def test_block_matrices_without_the_skip_are_rejected(network):
    """U or Y of a block alone (the skip left out): G stays connected through the skip."""
    stack = {k: v for k, v in stackings(network, with_skip=False).items() if not k.startswith("flattening")}
    if not stack:
        return
    layers = connected_graph(network)
    for name, edges in stack.items():
        no_two = not any(layers.on_one_path(e, f) for e in edges for f in edges if e < f)
        check_property_rejected(no_two and layers.disconnects(edges), "forms a layer (Definition 7: no path meets "
                                "two of its edges, removing them disconnects G)", stacking=name, edges=len(edges))
