"""What reading the text around a request (``previous_text`` / ``next_text``) costs and
what it changes, for the default voice: ``make bench-continuity``.

A paragraph sent sentence by sentence, each sentence its own request: at each joint
between two requests, the pitch where the first ends and the next begins, against
the same joint inside one request that says both sentences (how the voice reads
them together). Printed per mode (each sentence alone; with its neighbours as
context): the pitch jump at the joint and its distance from the joint read whole, in
semitones; where the second sentence starts, against the whole reading; and the
model time per request, with the machine.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import soxr

from deployments.messages import Segment, SynthesisParams
from deployments.synthesis.engines.kokoro.engine import KokoroEngine
from deployments.synthesis.registry import load_engine
from deployments.synthesis.synthesiser import CONFIGS
from deployments.synthesis.voices import VoiceRegistry
from deployments.timings import PhonemeTiming
from deployments.voice_design.analysis import RATE, yin
from loadtest.report import machine, markdown

PARAGRAPH = (
    "आज सुबह से लगातार बारिश हो रही है।",
    "शहर की कई सड़कों पर पानी भर गया है।",
    "इसलिए दफ़्तर पहुँचने में देर हो सकती है।",
    "कृपया घर से थोड़ा पहले निकलें।",
    "और गाड़ी बहुत सावधानी से चलाएँ।",
    "मौसम विभाग ने कल भी बारिश की चेतावनी दी है।",
)
EDGE_S = 0.3  # the stretch at either side of a joint whose pitch is compared
VOICE = "default"


@dataclass(frozen=True)
class Spoken:
    audio: np.ndarray
    phonemes: tuple[PhonemeTiming, ...]
    seconds: float


def semitones(hz: float) -> float:
    return 12.0 * float(np.log2(hz))


def pitch(audio: np.ndarray, start_s: float, end_s: float) -> float | None:
    """Median F0 (semitones) of the voiced frames of ``audio[start_s:end_s]``."""
    part = audio[int(max(0.0, start_s) * 24000) : int(end_s * 24000)]
    if part.size < 2400:
        return None
    f0 = yin(soxr.resample(part, 24000, RATE))
    voiced = f0[f0 > 0]
    return semitones(float(np.median(voiced))) if voiced.size >= 3 else None


def speech_edges(spoken: Spoken) -> tuple[float, float]:
    """Where its phonemes begin and end, in seconds."""
    first, last = spoken.phonemes[0], spoken.phonemes[-1]
    return first.start_ms / 1000, (last.start_ms + last.duration_ms) / 1000


def main() -> None:
    registry = VoiceRegistry.from_file(CONFIGS / "voices.yaml")
    engine = load_engine("kokoro", {})
    assert isinstance(engine, KokoroEngine)
    voice = registry.get(VOICE)
    assert voice is not None
    engine.add_voice(voice)
    params = SynthesisParams(VOICE, "hi", with_phonemes=True)

    def say(text: str, before: str = "", after: str = "") -> Spoken:
        segment = Segment(0, text, 0, len(text), previous_text=before, next_text=after)
        started = time.perf_counter()
        chunks = list(engine.synthesise(segment, voice, params))
        took = time.perf_counter() - started
        audio = np.concatenate([c.samples for c in chunks])
        return Spoken(audio, tuple(p for c in chunks for p in c.phonemes), took)

    for text in PARAGRAPH[:2]:
        say(text)  # warm

    modes: dict[str, Callable[[int], Spoken]] = {
        "each sentence alone": lambda i: say(PARAGRAPH[i]),
        "with previous_text and next_text": lambda i: say(
            PARAGRAPH[i],
            " ".join(PARAGRAPH[:i]),
            " ".join(PARAGRAPH[i + 1 :]),
        ),
    }
    rows = []
    for name, speak in modes.items():
        spoken = [speak(i) for i in range(len(PARAGRAPH))]
        jump_errors, start_errors = [], []
        for i in range(len(PARAGRAPH) - 1):
            whole_text = f"{PARAGRAPH[i]} {PARAGRAPH[i + 1]}"
            whole = say(whole_text)
            second = len(PARAGRAPH[i]) + 1
            joint = next(p for p in whole.phonemes if p.start >= second).start_ms / 1000
            last = [p for p in whole.phonemes if 0 <= p.start < second][-1]
            ends = (last.start_ms + last.duration_ms) / 1000
            end_whole = pitch(whole.audio, ends - EDGE_S, ends)
            start_whole = pitch(whole.audio, joint, joint + EDGE_S)
            end_a = speech_edges(spoken[i])[1]
            begin_b = speech_edges(spoken[i + 1])[0]
            end_here = pitch(spoken[i].audio, end_a - EDGE_S, end_a)
            start_here = pitch(spoken[i + 1].audio, begin_b, begin_b + EDGE_S)
            if None in (end_whole, start_whole, end_here, start_here):
                continue
            assert end_whole and start_whole and end_here and start_here
            jump_errors.append(abs((start_here - end_here) - (start_whole - end_whole)))
            start_errors.append(abs(start_here - start_whole))
        audio_s = sum(s.audio.size for s in spoken) / 24000
        model_s = sum(s.seconds for s in spoken)
        rows.append(
            [
                name,
                f"{statistics.mean(jump_errors):.2f}",
                f"{statistics.mean(start_errors):.2f}",
                f"{model_s / len(spoken):.2f}",
                f"{audio_s / model_s:.1f}x",
                str(len(jump_errors)),
            ]
        )
    print(f"Continuity across requests, voice {VOICE}, on {machine()}:\n")
    columns = [
        "mode",
        "joint pitch jump vs read whole (st)",
        "next sentence's opening pitch vs read whole (st)",
        "model s / request",
        "real time",
        "joints",
    ]
    print(markdown(columns, rows))


if __name__ == "__main__":
    main()
