"""A sentence with a first clause, the three ways the Synthesiser may speak it, engine
alone (the default voice, one-thread ONNX sessions, as calls beside others run):

- whole: one model call;
- parts: read once, rendered in two parts cut in the pause after the clause
  (deployments/synthesis/engines/kokoro/parts.py);
- two calls: the clause alone, then the rest.

    python -m loadtest.kokoro_parts [--rounds 5]

Prints per sentence the wall time of each way and of its first audio (median of the
rounds), and how far each way's sound is from the whole reading: each part's speech
level and spectral centroid against the same span of the whole; for the parts, the
level where they meet and the log-mel distance of the two joined to the whole (two
calls read the text twice, with their own timing: no such distance).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from deployments.messages import Segment, SynthesisParams
from deployments.synthesis.engines.kokoro.model.spectral import mel_distance
from deployments.synthesis.registry import load_engine
from loadtest.kokoro_backends import SENTENCES, VOICE
from loadtest.report import machine

PARAMS = SynthesisParams("default", "hi")
RATE = 24_000


def loud(audio: np.ndarray) -> np.ndarray:
    """``audio``'s 20 ms frames above -40 dBFS: its speech, not its pauses."""
    frames = audio[: audio.size // 480 * 480].reshape(-1, 480)
    return np.asarray(frames[np.sqrt((frames.astype(np.float64) ** 2).mean(axis=1)) > 0.01]).ravel()


def level_db(audio: np.ndarray) -> float:
    return float(20 * np.log10(np.sqrt(np.mean(audio.astype(np.float64) ** 2)) + 1e-12))


def centroid_hz(audio: np.ndarray) -> float:
    spectrum = np.abs(np.fft.rfft(audio))
    return float((spectrum * np.fft.rfftfreq(audio.size, 1 / RATE)).sum() / spectrum.sum())


def against(whole: np.ndarray, first: np.ndarray, second: np.ndarray) -> str:
    """How two parts' speech differs from the same spans of the whole's (cut where the
    first part ends): level in dB and spectral centroid, each part."""
    pairs = [(first, whole[: first.size]), (second, whole[first.size :])]
    levels = [level_db(loud(p)) - level_db(loud(w)) for p, w in pairs]
    centroids = [centroid_hz(loud(p)) / centroid_hz(loud(w)) - 1 for p, w in pairs]
    return f"{levels[0]:+.1f} / {levels[1]:+.1f} | {centroids[0]:+.0%} / {centroids[1]:+.0%}"


def median_s(call: Callable[[], object], rounds: int) -> float:
    took = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        took.append(time.perf_counter() - started)
    return statistics.median(took)


class Ways:
    """The three ways to speak ``text`` (its first clause ends at its first comma)."""

    def __init__(self, engine: Any, text: str) -> None:
        self.engine = engine
        self.text = text
        clause, self.rest = text.split(", ", 1)
        self.clause = clause + ","

    def said(self, text: str) -> np.ndarray:
        chunks = self.engine.synthesise(Segment(0, text, 0, len(text)), VOICE, PARAMS)
        return np.concatenate([c.samples for c in chunks])

    def whole(self) -> np.ndarray:
        return self.said(self.text)

    def parts(self, first_only: bool = False) -> list[np.ndarray]:
        segment = Segment(0, self.text, 0, len(self.text))
        chunks = self.engine.synthesise_parts(segment, len(self.clause) + 1, VOICE, PARAMS)
        if chunks is None:
            return []
        return [next(chunks).samples] if first_only else [c.samples for c in chunks]

    def two_calls(self, first_only: bool = False) -> list[np.ndarray]:
        first = self.said(self.clause)
        return [first] if first_only else [first, self.said(self.rest)]


def rows(ways: Ways, rounds: int) -> list[str]:
    whole, heard = ways.whole(), ways.parts()
    if not heard:
        return [f"| {ways.text} | parts | not parted: the reading does not pause there | | | | | |"]
    whole_ms = median_s(ways.whole, rounds) * 1000
    head, tail = heard
    edge = RATE // 50
    meet = level_db(np.concatenate([head[-edge:], tail[:edge]]))
    distance = mel_distance(whole, np.concatenate(heard))
    clause, rest = ways.two_calls()
    out = []
    for name, way, sound, apart in (
        ("parts", ways.parts, against(whole, head, tail), f"{meet:.0f} | {distance:.1f}"),
        ("two calls", ways.two_calls, against(whole, clause, rest), "- | -"),
    ):
        ms = median_s(way, rounds) * 1000
        first_ms = median_s(partial(way, first_only=True), rounds) * 1000
        times = f"{whole_ms:.0f} | {ms:.0f} | {first_ms:.0f}"
        out.append(f"| {ways.text} | {name} | {times} | {sound} | {apart} |")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    engine = load_engine("kokoro", {"threads": 1})
    engine.add_voice(VOICE)
    print(f"A first clause and its sentence, engine alone, on {machine('cpu')}")
    print(
        "| sentence | way | whole ms | ms | first audio ms "
        "| speech level dB, part 1 / 2 vs whole | spectral centroid, part 1 / 2 vs whole "
        "| where they meet dB | log-mel dB vs whole |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for text in SENTENCES:
        if ", " in text:
            print("\n".join(rows(Ways(engine, text), args.rounds)))


if __name__ == "__main__":
    main()
