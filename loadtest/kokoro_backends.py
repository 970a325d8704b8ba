"""Kokoro's backends on this machine, in one run: the int8 ONNX export, the same graph
with float operators, and the model in torch (float32 and bfloat16), one
text per call and in batches.

    python -m loadtest.kokoro_backends [--device cuda] [--batches 1 4 16]

Prints, per backend, the wall time per call and the real-time factor (audio seconds
per wall second) over Hindi sentences of one to three clauses.
"""

from __future__ import annotations

import argparse
import time

from deployments.messages import Segment, SynthesisParams
from deployments.synthesis.registry import load_engine
from deployments.synthesis.voices import VoiceConfig
from loadtest.report import machine

SENTENCES = [
    "नमस्ते, आप कैसे हैं?",
    "आपका ऑर्डर कल तक पहुँच जाएगा।",
    "कृपया अपना खाता संख्या बताइए, ताकि मैं आपकी मदद कर सकूँ।",
    "ट्रेन सुबह सात बजे निकलेगी, और दोपहर तक दिल्ली पहुँचेगी, अगर मौसम ठीक रहा।",
    "धन्यवाद, आपका दिन शुभ हो।",
    "बिजली का बिल जमा करने की आखिरी तारीख कल है।",
]
NAMES = {"onnx": "onnx int8", "onnx-float": "onnx float32"}
VOICE = VoiceConfig(
    id="default",
    name="Default",
    engine="kokoro",
    languages=("hi",),
    gender="female",
    sample_rate=24_000,
    params={"style": "hf_alpha"},
)


def onnx_on_cuda() -> bool:
    """Whether ONNX Runtime here has its CUDA provider (onnxruntime-gpu)."""
    try:
        import onnxruntime
    except ImportError:
        return False
    return "CUDAExecutionProvider" in onnxruntime.get_available_providers()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    backends = [("onnx", "float32"), ("onnx-float", "float32"), ("torch", "float32")]
    backends.append(("torch", "bfloat16"))
    print(f"Kokoro backends on {machine(args.device)}")
    if args.device == "cuda" and not onnx_on_cuda():
        backends = [b for b in backends if not b[0].startswith("onnx")]
        print("onnx: skipped (onnxruntime here has no CUDA provider: it would run on the CPU)")
    print(f"{'backend':<18}{'batch':>6}{'ms/call':>10}{'audio s':>9}{'x real time':>13}")
    for backend, dtype in backends:
        engine = load_engine("kokoro", {"backend": backend, "device": args.device, "dtype": dtype})
        engine.add_voice(VOICE)
        for size in args.batches:
            if backend.startswith("onnx") and size > 1:
                continue  # the export takes one text per call
            items = [
                (Segment(i, SENTENCES[i % len(SENTENCES)], 0, 1), SynthesisParams("default", "hi"))
                for i in range(max(size, len(SENTENCES)))
            ]
            calls = [items[i : i + size] for i in range(0, len(items), size)]
            speak = getattr(engine, "synthesise_batch", None)
            wall = audio = 0.0
            for _ in range(args.rounds):
                for call in calls:
                    started = time.perf_counter()
                    if speak is not None:
                        chunks = speak([(s, p, VOICE) for s, p in call])
                    else:
                        chunks = [c for s, p in call for c in engine.synthesise(s, VOICE, p)]
                    wall += time.perf_counter() - started
                    audio += sum(c.samples.size for c in chunks) / 24_000
            per_call = wall / (len(calls) * args.rounds) * 1000
            name = {"onnx": "onnx int8", "onnx-float": "onnx float32"}.get(
                backend, f"torch {dtype}"
            )
            print(f"{name:<18}{size:>6}{per_call:>10.0f}{audio:>9.1f}{audio / wall:>13.2f}")


if __name__ == "__main__":
    main()
