"""The conversion of the int8 export's initializers into the torch model's state dict."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from onnx import numpy_helper

from deployments.synthesis.engines.kokoro.model.model import KokoroModel
from deployments.synthesis.engines.kokoro.model.weights import (
    Conversion,
    load,
    load_checkpoint,
    module_name,
    save,
)

# Initializers the model computes instead of reading: the inverse-STFT basis and its
# window sum and window (torch.istft), the position ids (arange), the harmonic numbers
# 1..9. Also left: the snake activations' 1/alpha (the model divides by alpha), and
# constants of one value (zero LSTM states, token types, a layer norm's unit scale).
COMPUTED = {
    "decoder.decoder.generator.stft.istft.stft.inverse_basis",
    "decoder.decoder.generator.stft.istft.stft.window_sum",
    "onnx::Slice_603",
    "/decoder/decoder/generator/m_source/l_sin_gen/Constant_output_0",
    "/decoder/decoder/generator/Constant_17_output_0",
}


def test_every_weight_of_the_export_becomes_a_parameter(
    model_bytes: bytes, conversion: Conversion
) -> None:
    import onnx

    graph = onnx.load_model_from_string(model_bytes).graph
    left = {
        t.name
        for t in graph.initializer
        if t.name not in conversion.used
        and not t.name.endswith(("_scale", "_zero_point"))
        and np.prod(t.dims) > 8
        and "/Reciprocal" not in t.name
        and np.unique(numpy_helper.to_array(t)).size > 1
    }
    assert left == COMPUTED
    model = KokoroModel()
    assert set(conversion.state) == set(model.state_dict())
    assert sum(t.numel() for t in conversion.state.values()) > 81_000_000


def test_the_model_loads_the_conversion_strictly(model: KokoroModel) -> None:
    assert model.decoder.generator.ups[0].weight.shape == (512, 256, 20)


def test_a_weight_quantised_again_gives_back_the_stored_integers(
    model_bytes: bytes, conversion: Conversion
) -> None:
    import onnx

    graph = onnx.load_model_from_string(model_bytes).graph
    stored = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    q = stored["/decoder/decoder/decode.0/Mul_output_0_quantized"]
    scale = stored["/decoder/decoder/decode.0/Mul_output_0_scale"]
    conv = next(n for n in graph.node if n.name == "/decoder/decoder/decode.0/conv1/Conv_quant")
    zero = stored[conv.input[3]]
    weight = conversion.state["decoder.decode.0.conv1.weight"].numpy()
    assert np.array_equal(np.round(weight / scale + zero.astype(np.float32)).astype(q.dtype), q)
    # a linear layer of the shared ALBERT layer: stored [in, out], per output column
    query = conversion.state[
        "bert.encoder.albert_layer_groups.0.albert_layers.0.attention.query.weight"
    ]
    assert query.shape == (768, 768)


def test_onnx_scopes_become_module_names() -> None:
    assert module_name("/encoder/text_encoder/cnn.0/cnn.0.0/Conv_quant") == "text_encoder.cnn.0.0"
    assert module_name("/decoder/decoder/asr_res/asr_res.0/Conv_quant") == "decoder.asr_res.0"
    assert module_name("/encoder/F0.1/conv1x1/Conv_quant") == "predictor.F0.1.conv1x1"
    assert module_name("/encoder/N_proj/Conv_quant") == "predictor.N_proj"
    assert (
        module_name("encoder.bert.embeddings.LayerNorm.weight")
        == "bert.embeddings.LayerNorm.weight"
    )


def test_the_original_checkpoint_has_its_weight_norm_folded(tmp_path: Path) -> None:
    v = torch.randn(4, 3, 5)
    g = torch.rand(4, 1, 1) + 0.5
    parts = {
        "decoder": {"module.asr_res.0.weight_v": v, "module.asr_res.0.weight_g": g},
        "bert": {"pooler.weight": torch.zeros(2), "embeddings.position_ids": torch.zeros(2)},
    }
    torch.save(parts, tmp_path / "kokoro-v1_0.pth")
    state = load_checkpoint(tmp_path / "kokoro-v1_0.pth")
    assert set(state) == {"decoder.asr_res.0.weight"}
    norms = state["decoder.asr_res.0.weight"].norm(dim=(1, 2))
    assert torch.allclose(norms, g.reshape(-1), atol=1e-5)


def test_weights_round_trip_through_safetensors(tmp_path: Path, conversion: Conversion) -> None:
    path = tmp_path / "w.safetensors"
    subset = dict(list(conversion.state.items())[:5])
    save(subset, path)
    back = load(path)
    assert all(torch.equal(back[k], v) for k, v in subset.items())
