"""Typed startup options of each engine and typed ``params`` of each engine's voices.

They refuse unknown keys, so a misspelt option (``use_cude: true``) stops
``serve deploy`` or the replica's start with a clear error instead of being
ignored. Kept apart from the engines so that checking a config imports no engine
(no torch, no onnxruntime).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- engine options (SynthesiserConfig.engines.<name>) --------------------------------


class EspeakOptions(_Strict):
    language_voices: dict[str, str] = Field(
        default_factory=dict, description="Language code -> eSpeak voice name, where they differ."
    )


class KokoroOptions(_Strict):
    device: Literal["cpu", "cuda"] = "cpu"
    backend: Literal["auto", "onnx", "onnx-float", "torch"] = Field(
        default="auto",
        description="onnx: the int8 export, one text per call; onnx-float: the same graph "
        "with float operators; torch: float weights, a batch of texts per forward pass. "
        "auto: torch on CUDA, onnx on CPU (the fastest there).",
    )
    dtype: Literal["float32", "float16", "bfloat16"] = Field(
        default="float32",
        description="The torch backend's decoder precision (the text side stays float32). "
        "float16 is for GPUs (on a CPU it runs as float32); bfloat16 runs on both.",
    )
    compile: Literal["off", "default", "reduce-overhead"] = Field(
        default="off",
        description="The torch backend's decoder through torch.compile: default fuses its "
        "kernels (dynamic shapes); reduce-overhead also captures CUDA graphs, batches "
        "padded to a few shapes. Compiled at each shape's first call; where compiling "
        "fails, the decoder runs as written (logged).",
    )
    weights: str | None = Field(
        default=None,
        description="The torch backend's weights: the converted safetensors (default: "
        "where make install puts them) or the original kokoro-v1_0.pth.",
    )
    threads: int | None = Field(default=None, ge=1, description="Intra-op threads (cores).")
    parallel_calls: int | None = Field(default=None, ge=1, description="1 on CPU, 4 on CUDA.")
    max_tokens: int = Field(default=200, ge=16, le=510)
    voices_dir: str | None = None


class PiperOptions(_Strict):
    use_cuda: bool = False


class VitsOptions(_Strict):
    device: str | None = Field(default=None, pattern=r"^(cpu|cuda(:\d+)?)$")
    dtype: Literal["float32", "float16", "bfloat16"] = "float32"


ENGINE_OPTIONS: dict[str, type[BaseModel]] = {
    "espeak": EspeakOptions,
    "kokoro": KokoroOptions,
    "piper": PiperOptions,
    "vits": VitsOptions,
}


# -- voice params (configs/voices.yaml, per voice) ------------------------------------


class EspeakVoiceParams(_Strict):
    variant: str | None = None
    rate_wpm: int = Field(default=175, ge=80, le=450)
    pitch: int = Field(default=50, ge=0, le=100)
    pitch_range: int = Field(default=50, ge=0, le=100)


class KokoroVoiceParams(_Strict):
    style: str = Field(description="The voice's name in the npm package kokoro-js.")
    phonemes: Literal["hi", "en-us", "en-gb"] | None = None
    speed: float = Field(default=1.0, gt=0.25, le=4.0)


class PiperVoiceParams(_Strict):
    package: str | None = None
    model: str | None = None
    config: str | None = None
    speaker_id: int | None = None
    length_scale: float | None = Field(default=None, gt=0)
    noise_scale: float | None = Field(default=None, ge=0)
    noise_w_scale: float | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _one_source(self) -> PiperVoiceParams:
        if (self.package is None) == (self.model is None):
            raise ValueError("a piper voice needs exactly one of package or model")
        return self


class VitsVoiceParams(_Strict):
    model: str = Field(description="The checkpoint directory (save_pretrained output).")


VOICE_PARAMS: dict[str, type[BaseModel]] = {
    "espeak": EspeakVoiceParams,
    "kokoro": KokoroVoiceParams,
    "piper": PiperVoiceParams,
    "vits": VitsVoiceParams,
}


def check(table: dict[str, type[BaseModel]], engine: str, values: dict[str, Any]) -> None:
    """Validate ``values`` against ``engine``'s model in ``table``; raises ``ValueError``
    (a pydantic ``ValidationError``) for an unknown engine, key or value."""
    model = table.get(engine)
    if model is None:
        raise ValueError(f"unknown engine {engine!r}; known: {', '.join(sorted(table))}")
    model.model_validate(values)
