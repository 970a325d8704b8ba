"""Kokoro-82M's float weights, made from the int8 ONNX export we ship (or read from the
original float checkpoint where a cluster has it).

The export names most of its weights only through the graph: a convolution's weight
is ``/decoder/decoder/decode.0/Mul_output_0_quantized`` (the weight-norm product,
folded and quantised) and belongs to the module of the ``ConvInteger`` node that
reads it (``/decoder/decoder/decode.0/conv1/Conv_quant`` -> ``decoder.decode.0.conv1``);
ALBERT's shared layer is read by twelve nodes (``query``, ``query_1``, ...); LSTM
weights are stacked per direction in ONNX's gate order (input, output, forget,
cell) and transposed. Each weight is named through the first node that consumes
it, dequantised with its scale and zero point (per tensor, or per output column
for linear layers and LSTM directions) and reshaped to torch's layout, so the
state dict loads strictly into :class:`~.model.KokoroModel`.

``python -m deployments.synthesis.engines.kokoro.model.weights`` (run by ``make install``)
writes the converted weights as safetensors under the environment's
``share/kokoro-torch``; the engine reads them from there.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

# ONNX scope prefixes -> the torch model's module names.
_SCOPES = (
    ("encoder.bert_encoder", "bert_encoder"),
    ("encoder.bert", "bert"),
    ("encoder.predictor", "predictor"),
    ("encoder.text_encoder", "text_encoder"),
    ("encoder.F0", "predictor.F0"),
    ("encoder.N.", "predictor.N."),
    ("encoder.N_", "predictor.N_"),
    ("encoder.shared", "predictor.shared"),
    ("decoder.decoder", "decoder"),
)
_SHARED_CALL = re.compile(r"_\d+$")  # ALBERT's shared layer, called again: query_1, ffn_3
# ONNX LSTM gates (input, output, forget, cell) -> torch's (input, forget, cell, output).
_GATES = (0, 2, 3, 1)
FILENAME = "kokoro-v1.0.safetensors"


def default_weights_path() -> Path:
    """Where the install step puts the converted weights: inside the running environment."""
    return Path(sys.prefix) / "share" / "kokoro-torch" / FILENAME


def module_name(scope: str) -> str:
    """The torch module name of an ONNX scope or dotted name.

    ``/encoder/text_encoder/cnn.0/cnn.0.0/Conv_quant`` -> ``text_encoder.cnn.0.0``:
    the last component (the operator) is dropped, a component that repeats its
    parent's name with an index (a Sequential's child) replaces it, and the
    export's top-level scopes become the model's."""
    if scope.startswith("/"):
        parts: list[str] = []
        for part in scope.strip("/").split("/")[:-1]:
            if parts and part.startswith(parts[-1] + "."):
                parts[-1] = part
            else:
                parts.append(part)
        scope = ".".join(parts)
    for prefix, replacement in _SCOPES:
        if scope.startswith(prefix):
            return replacement + scope[len(prefix) :]
    return scope


@dataclass
class Conversion:
    """The state dict, and what each ONNX initializer became (for the record and tests)."""

    state: dict[str, torch.Tensor] = field(default_factory=dict)
    used: dict[str, str] = field(default_factory=dict)  # initializer -> parameter it made

    def put(self, name: str, value: np.ndarray, *sources: str) -> None:
        if name in self.state:
            raise ValueError(f"two ONNX tensors make {name}")
        self.state[name] = torch.from_numpy(np.array(value, dtype=np.float32, order="C"))
        for source in sources:
            self.used.setdefault(source, name)


def _dequantise(q: np.ndarray, scale: np.ndarray, zero_point: np.ndarray) -> np.ndarray:
    return (q.astype(np.float32) - zero_point.astype(np.float32)) * scale.astype(np.float32)


def _lstm(q: np.ndarray, scale: np.ndarray, zero_point: np.ndarray) -> list[np.ndarray]:
    """DynamicQuantizeLSTM's [directions, in, 4h] weight -> torch's [4h, in] per direction."""
    out = []
    for d in range(q.shape[0]):
        w = _dequantise(q[d], scale[d], zero_point[d]).T  # [4h, in], ONNX gate order
        out.append(np.concatenate([w.reshape(4, -1, w.shape[1])[g] for g in _GATES]))
    return out


def _reorder_bias(b: np.ndarray) -> np.ndarray:
    return np.concatenate([b.reshape(4, -1)[g] for g in _GATES])


def convert_onnx(model: bytes) -> Conversion:
    """Kokoro's float state dict from the int8 ONNX export's bytes.

    Raises ``ValueError`` when a weight the model needs cannot be found or two
    tensors claim one parameter (a different export)."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load_model_from_string(model).graph
    values = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    consumers: dict[str, list[Any]] = defaultdict(list)
    for node in graph.node:
        for name in node.input:
            consumers[name].append(node)
    out = Conversion()

    def first(name: str, op: str) -> Any:
        nodes = [n for n in consumers[name] if n.op_type == op]
        if not nodes:
            raise ValueError(f"no {op} node reads {name}")
        return min(nodes, key=lambda n: len(n.name))  # query, not query_1

    for name, value in values.items():
        ops = {n.op_type for n in consumers[name]}
        if name.endswith("_quantized") and "ConvInteger" in ops:
            node = first(name, "ConvInteger")
            scale = values[name.removesuffix("_quantized") + "_scale"]
            weight = _dequantise(value, scale, values[node.input[3]])
            out.put(module_name(node.name) + ".weight", weight, name, node.input[3])
            out.used.setdefault(name.removesuffix("_quantized") + "_scale", "(scale)")
        elif name.endswith("_quantized") and "MatMulInteger" in ops:
            node = first(name, "MatMulInteger")
            scale = values[name.removesuffix("_quantized") + "_scale"]
            layer = module_name(node.name)
            if _SHARED_CALL.search(layer):
                raise ValueError(f"{name}: its first reader {node.name} is a repeated call")
            weight = _dequantise(value, scale, values[node.input[3]]).T  # [out, in]
            out.put(layer + ".weight", weight, name, node.input[3])
            out.used.setdefault(name.removesuffix("_quantized") + "_scale", "(scale)")
        elif name.endswith("_quantized") and "Gather" in ops:  # embeddings
            base = name.removesuffix("_quantized")
            dequant = next(
                n
                for n in consumers[first(name, "Gather").output[0]]
                if n.op_type == "DequantizeLinear"
            )
            weight = _dequantise(value, values[dequant.input[1]], values[dequant.input[2]])
            out.put(module_name(base), weight, name, dequant.input[1], dequant.input[2])
        elif "DynamicQuantizeLSTM" in ops and name == first(name, "DynamicQuantizeLSTM").input[1]:
            node = first(name, "DynamicQuantizeLSTM")
            layer = module_name(node.name)
            w_ih = _lstm(value, values[node.input[8]], values[node.input[9]])
            w_hh = _lstm(values[node.input[2]], values[node.input[10]], values[node.input[11]])
            biases = values[node.input[3]]  # [directions, 8h]: input then recurrent
            for d, suffix in enumerate(("", "_reverse")):
                sources = [node.input[i] for i in (1, 2, 3, 8, 9, 10, 11)]
                out.put(f"{layer}.weight_ih_l0{suffix}", w_ih[d], *sources)
                out.put(f"{layer}.weight_hh_l0{suffix}", w_hh[d])
                b_ih, b_hh = np.split(biases[d], 2)
                out.put(f"{layer}.bias_ih_l0{suffix}", _reorder_bias(b_ih))
                out.put(f"{layer}.bias_hh_l0{suffix}", _reorder_bias(b_hh))
        elif value.dtype == np.float32 and ops & {"Conv", "ConvTranspose"} and name.startswith("/"):
            node = first(name, "ConvTranspose" if "ConvTranspose" in ops else "Conv")
            out.put(module_name(node.name) + ".weight", value, name)
        elif value.dtype == np.float32 and ops == {"MatMul"}:  # the harmonic source's merge
            out.put(module_name(first(name, "MatMul").name) + ".weight", value.T, name)
        elif value.dtype == np.float32 and not name.startswith(("/", "onnx::")):
            if name.endswith(("_scale", ".window_sum", ".inverse_basis")):
                continue  # scales are taken with their weights; the window is computed
            out.put(module_name(name), value, name)
    return out


def load_checkpoint(path: Path) -> dict[str, torch.Tensor]:
    """The original float checkpoint (``kokoro-v1_0.pth``: one state dict per part) as
    this model's state dict: weight norm folded (``weight_g * weight_v / |weight_v|``),
    the ``module.`` prefix of some parts dropped, ALBERT's unused pooler left out."""
    parts = torch.load(path, map_location="cpu", weights_only=True)
    state: dict[str, torch.Tensor] = {}
    for part, tensors in parts.items():
        for key, value in tensors.items():
            key = key.removeprefix("module.")
            if key.startswith("pooler") or key.endswith("position_ids"):
                continue
            state[f"{part}.{key}"] = value.float()
    for key in [k for k in state if k.endswith(".weight_v")]:
        base = key.removesuffix(".weight_v")
        v, g = state.pop(key), state.pop(base + ".weight_g")
        dims = tuple(range(1, v.dim()))
        state[base + ".weight"] = g * v / v.norm(dim=dims, keepdim=True)
    return state


def save(state: dict[str, torch.Tensor], path: Path) -> None:
    from safetensors.torch import save_file

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    save_file(state, str(tmp))
    tmp.chmod(0o644)
    tmp.replace(path)


def load(path: Path) -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file

    return load_file(str(path))


def install(dest: Path, force: bool = False) -> str:
    """Convert the export to float weights at ``dest`` (unless they are there); what
    was done, in a line."""
    from deployments.synthesis.engines.kokoro.assets import load_model_bytes

    if dest.is_file() and not force:
        return f"kokoro torch weights: already at {dest}"
    conversion = convert_onnx(load_model_bytes())
    save(conversion.state, dest)
    params = sum(t.numel() for t in conversion.state.values())
    return f"kokoro torch weights: {len(conversion.state)} tensors, {params:,} values -> {dest}"


def main() -> None:
    parser = argparse.ArgumentParser(description="Convert Kokoro's int8 ONNX export to float.")
    parser.add_argument("--dest", type=Path, default=default_weights_path())
    parser.add_argument("--force", action="store_true", help="convert even if it is there")
    args = parser.parse_args()
    print(install(args.dest, args.force))


if __name__ == "__main__":
    main()
