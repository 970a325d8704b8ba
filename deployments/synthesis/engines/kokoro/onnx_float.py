"""The int8 ONNX export as a float graph: the same model and weights, no quantised
operators, for ONNX Runtime (the ``onnx-float`` backend).

The export is dynamically quantised: each linear layer and convolution reads its
input through ``DynamicQuantizeLinear`` and its int8 weight through
``MatMulInteger``/``ConvInteger``, then ``[Add int32 bias] -> Cast -> Mul(scale)``
gives the float output; LSTMs are ``DynamicQuantizeLSTM``. Each such chain is
replaced by one ``MatMul``/``Conv`` (with the float bias the export still holds)
on the dequantised weight, each quantised LSTM by ``LSTM`` (weights transposed
back to ONNX's ``[directions, 4 * hidden, input]``), and nodes nothing reads any
more are dropped. The embeddings' ``DequantizeLinear`` stays (a float operator).
Against the torch model, which holds the same weights: equal durations, audio
~0.8 dB apart (the export's own inverse STFT).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

QUANTISED = ("MatMulInteger", "ConvInteger")


def _dequantise(q: np.ndarray, scale: np.ndarray, zero_point: np.ndarray) -> np.ndarray:
    centred = q.astype(np.float32) - zero_point.astype(np.float32)
    return np.asarray(centred * scale, dtype=np.float32)


def _per_direction(a: np.ndarray) -> np.ndarray:
    """An LSTM scale or zero point per direction (or per direction and column), for
    weights of shape [directions, input, 4 * hidden]."""
    return a.reshape(-1, 1, 1) if a.ndim == 1 else a[:, None, :]


def float_graph(model: bytes) -> bytes:
    """``model`` (the int8 export's bytes) with every quantised operator made float.

    Raises ``ValueError`` where a chain does not have the export's shape."""
    import onnx
    from onnx import helper, numpy_helper

    proto = onnx.load_model_from_string(model)
    graph = proto.graph
    values = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    readers: dict[str, list[Any]] = defaultdict(list)
    for node in graph.node:
        for name in node.input:
            readers[name].append(node)
    producer = {out: node for node in graph.node for out in node.output}
    added: dict[str, np.ndarray] = {}
    swapped: dict[int, Any] = {}  # id of a node -> the node that takes its place
    dropped: set[int] = set()

    def weight(name: str, value: np.ndarray) -> str:
        added.setdefault(name, np.ascontiguousarray(value))
        return name

    def next_of(node: Any) -> Any:
        following = readers[node.output[0]]
        if len(following) != 1:
            raise ValueError(f"{node.name}: {len(following)} readers, not the export's chain")
        return following[0]

    for node in graph.node:
        if node.op_type in QUANTISED:
            quantise = producer[node.input[0]]
            if quantise.op_type != "DynamicQuantizeLinear":
                raise ValueError(f"{node.name} does not read a DynamicQuantizeLinear")
            base = node.input[1].removesuffix("_quantized")
            w = _dequantise(values[node.input[1]], values[base + "_scale"], values[node.input[3]])
            inputs = [quantise.input[0], weight(base + "_float", w)]
            chain, last = [node], node
            while last.op_type != "Mul":
                last = next_of(last)
                chain.append(last)
                if last.op_type == "Add":  # the int32 bias, made from the float one
                    bias = producer[last.input[1]].input[0].removesuffix("_quantized")
                    if bias not in values:
                        raise ValueError(f"{node.name}: no float bias {bias}")
                    inputs.append(bias)
            op = "MatMul" if node.op_type == "MatMulInteger" else "Conv"
            made = helper.make_node(op, inputs, [last.output[0]], name=node.name + "_float")
            if op == "Conv":
                made.attribute.extend(node.attribute)
            swapped[id(node)] = made
            dropped.update(id(n) for n in chain[1:])
        elif node.op_type == "DynamicQuantizeLSTM":
            i = list(node.input)
            w, r = (
                _dequantise(
                    values[i[k]], _per_direction(values[i[s]]), _per_direction(values[i[z]])
                ).transpose(0, 2, 1)
                for k, s, z in ((1, 8, 9), (2, 10, 11))
            )
            inputs = [i[0], weight(node.name + "_W", w), weight(node.name + "_R", r), *i[3:8]]
            made = helper.make_node("LSTM", inputs, list(node.output), name=node.name + "_float")
            made.attribute.extend(node.attribute)
            swapped[id(node)] = made

    nodes = [swapped.get(id(n), n) for n in graph.node if id(n) not in dropped]
    wanted = {o.name for o in graph.output}
    while True:  # drop what nothing reads any more (the quantisers, the int weights)
        read = {name for n in nodes for name in n.input} | wanted
        kept = [n for n in nodes if any(out in read for out in n.output if out)]
        if len(kept) == len(nodes):
            break
        nodes = kept
    read = {name for n in nodes for name in n.input}
    initializers = [t for t in graph.initializer if t.name in read]
    initializers += [numpy_helper.from_array(v, name) for name, v in added.items()]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(initializers)
    return bytes(proto.SerializeToString())
