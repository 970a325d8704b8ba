"""Throughput of the vits engine at batch sizes 1, 4 and 16, and the speedup of batching.

    python -m loadtest.vits_bench [--model DIR] [--device cuda] [--dtype float16]

Without ``--model`` a tiny random checkpoint is built in a temporary directory:
then the numbers measure the batching path, not a real voice. Prints a Markdown
table with the machine it ran on.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from deployments.messages import Segment, SynthesisParams
from deployments.synthesis.registry import load_engine
from deployments.synthesis.voices import VoiceConfig
from loadtest.report import machine

SENTENCE = "आज मौसम बहुत अच्छा है और हम शाम को बाहर घूमने चलेंगे।"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", help="a VITS checkpoint directory (save_pretrained)")
    parser.add_argument("--device", default=None)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--sizes", default="1,4,16")
    parser.add_argument("--seconds", type=float, default=5.0, help="per batch size")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        model = args.model
        if model is None:
            from deployments.synthesis.engines.vits.engine import build_random_checkpoint

            model = str(build_random_checkpoint(Path(tmp) / "tiny"))
        engine = load_engine("vits", {"device": args.device, "dtype": args.dtype})
        voice = VoiceConfig(
            id="bench",
            name="bench",
            engine="vits",
            languages=("hi",),
            gender="female",
            sample_rate=16000,
            params={"model": model},
        )
        rate = engine.add_voice(voice)
        device = engine.info().device
        rows = []
        for size in (int(s) for s in args.sizes.split(",")):
            items = [
                (Segment(i, SENTENCE, 0, len(SENTENCE)), SynthesisParams("bench", "hi"))
                for i in range(size)
            ]
            segments, audio_s, started = 0, 0.0, time.perf_counter()
            while time.perf_counter() - started < args.seconds:
                chunks = engine.synthesise_batch(items, voice)  # type: ignore[attr-defined]
                segments += len(chunks)
                audio_s += sum(c.samples.size for c in chunks) / rate
            wall = time.perf_counter() - started
            rows.append((size, segments / wall, audio_s / wall))
    base = rows[0][1]
    print(f"\nMachine: {machine()}; device {device}, dtype {args.dtype}")
    print(f"Model: {args.model or 'tiny random checkpoint (pipeline cost, not a real voice)'}\n")
    print("| batch size | segments / s | audio s / wall s | speedup vs batch 1 |")
    print("|---:|---:|---:|---:|")
    for size, per_s, audio in rows:
        print(f"| {size} | {per_s:.1f} | {audio:.1f} | {per_s / base:.2f}x |")


if __name__ == "__main__":
    main()
