"""What a recording of speech sounds like, in numbers: pitch, its range, pace, loudness.

Everything here is numpy on a mono float signal; no engine, no Ray. The same
measure describes a reference recording (``reference_audio``) and each
registered voice's own output, so the two can be compared.

- F0: YIN (de Cheveigné & Kawahara 2002) on 40 ms frames every 10 ms at 16 kHz,
  50-550 Hz; a frame is voiced when its cumulative-mean-normalised difference
  dips below 0.15 and it is not silence.
- Speaking rate: syllable nuclei per second of speech, a nucleus being a peak of
  the 250-2500 Hz band's loudness standing 2 dB above its surroundings, 80 ms or
  more from the next (de Jong & Wempe's method, simplified); pauses do not count
  as speech. Kokoro's Hindi voices measure 4.2-4.9 at speed 1 on a text of ~4.6
  syllables a second, and the measure follows their speed.
- Loudness: RMS in dBFS over the frames that are not silence.
- Brightness: the spectral centroid of the speech frames, in Hz.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import soxr

RATE = 16_000
HOP = RATE // 100  # 10 ms
WINDOW = int(0.04 * RATE)
F0_MIN, F0_MAX = 50.0, 550.0
YIN_THRESHOLD = 0.15
SILENCE_DB = -45.0  # frames this far below the loudest are pauses
ENVELOPE_WINDOW = int(0.02 * RATE)
NUCLEUS_PROMINENCE_DB = 2.0
NUCLEUS_GAP_S = 0.08


@dataclass(frozen=True)
class SpeechMeasure:
    """How a stretch of speech sounds. ``f0_low``/``f0_high`` are the 10th and 90th
    percentiles of voiced F0; ``speech_s`` is the time spent speaking (no pauses)."""

    median_f0: float
    f0_low: float
    f0_high: float
    syllable_rate: float
    loudness_db: float
    brightness_hz: float
    speech_s: float
    voiced_s: float

    @property
    def f0_range_st(self) -> float:
        """The spread of pitch, in semitones (90th over 10th percentile)."""
        return 12.0 * float(np.log2(self.f0_high / self.f0_low))

    def rounded(self) -> dict[str, float]:
        return {
            "median_f0_hz": round(self.median_f0, 1),
            "f0_range_semitones": round(self.f0_range_st, 1),
            "syllables_per_second": round(self.syllable_rate, 2),
            "loudness_dbfs": round(self.loudness_db, 1),
            "brightness_hz": round(self.brightness_hz),
            "speech_seconds": round(self.speech_s, 2),
        }


class NotSpeech(ValueError):
    """The signal has too little voiced speech to measure."""


class Silence(NotSpeech):
    """The signal is silent."""


class NotAVoice(NotSpeech):
    """The signal is sound, but no voice speaking: a steady tone or hum, or a pitch
    no speaking voice has."""


# The median pitch of speaking voices (a deep bass to a small child), and how much
# louder a recording's loud tenth must be than its quiet tenth: syllables rise and
# fall by well over this, a tone, a hum or a constant level not at all.
VOICE_F0_HZ = (50.0, 500.0)
MIN_LEVEL_SPREAD_DB = 3.0


def _frames(signal: np.ndarray, length: int) -> np.ndarray:
    count = 1 + max(0, (signal.size - length) // HOP)
    padded = np.pad(signal, (0, max(0, length - signal.size)))
    return np.lib.stride_tricks.sliding_window_view(padded, length)[::HOP][:count]


def yin(signal: np.ndarray) -> np.ndarray:
    """F0 in Hz per 10 ms frame of a 16 kHz ``signal`` (0 where unvoiced)."""
    tau_min, tau_max = int(RATE / F0_MAX), int(RATE / F0_MIN)
    frames = _frames(signal, WINDOW + tau_max).astype(np.float64)
    size = 1 << int(np.ceil(np.log2(2 * frames.shape[1])))
    spectrum = np.fft.rfft(frames, size)
    head = np.fft.rfft(frames[:, :WINDOW], size)
    # r(tau) = sum_j x_j x_{j+tau} over the window, for every lag at once
    acf = np.fft.irfft(np.conj(head) * spectrum, size)[:, : tau_max + 1]
    squares = np.cumsum(np.pad(frames**2, ((0, 0), (1, 0))), axis=1)
    energy0 = squares[:, WINDOW][:, None]
    lags = np.arange(tau_max + 1)
    energy_tau = squares[:, lags + WINDOW] - squares[:, lags]
    diff = np.maximum(energy0 + energy_tau - 2.0 * acf, 0.0)
    diff[:, 0] = 0.0
    running = np.cumsum(diff[:, 1:], axis=1) / lags[1:]
    cmnd = np.ones_like(diff)
    cmnd[:, 1:] = diff[:, 1:] / np.maximum(running, 1e-12)
    f0 = np.zeros(frames.shape[0])
    band = cmnd[:, tau_min : tau_max + 1]
    for i, row in enumerate(band):
        below = np.flatnonzero(row < YIN_THRESHOLD)
        if below.size == 0:
            continue
        t = int(below[0])
        while t + 1 < row.size and row[t + 1] < row[t]:
            t += 1
        shift = 0.0
        if 0 < t < row.size - 1:
            a, b, c = row[t - 1], row[t], row[t + 1]
            curve = a - 2 * b + c
            shift = 0.5 * (a - c) / curve if curve > 0 else 0.0
        f0[i] = RATE / (t + tau_min + shift)
    return f0


def _levels_db(frames: np.ndarray) -> np.ndarray:
    power = np.mean(frames.astype(np.float64) ** 2, axis=1)
    levels: np.ndarray = 10.0 * np.log10(np.maximum(power, 1e-12))
    return levels


def _band_envelope(signal: np.ndarray) -> np.ndarray:
    """Loudness in dB of the 250-2500 Hz band (where vowels are), 20 ms frames every
    10 ms, lightly smoothed."""
    frames = _frames(signal, ENVELOPE_WINDOW).astype(np.float64)
    power = np.abs(np.fft.rfft(frames * np.hanning(ENVELOPE_WINDOW), axis=1)) ** 2
    freqs = np.fft.rfftfreq(ENVELOPE_WINDOW, 1.0 / RATE)
    band = power[:, (freqs > 250) & (freqs < 2500)].sum(axis=1)
    return np.convolve(10.0 * np.log10(band + 1e-12), np.ones(3) / 3.0, mode="same")


def _nuclei(envelope: np.ndarray, speaking: np.ndarray) -> int:
    """Syllable nuclei: peaks of ``envelope`` while speaking that stand
    ``NUCLEUS_PROMINENCE_DB`` above the deeper side's dip, at least ``NUCLEUS_GAP_S``
    apart (of two closer ones, the louder counts)."""
    inner = envelope[1:-1]
    tops = 1 + np.flatnonzero((inner >= envelope[:-2]) & (inner > envelope[2:]))
    tops = tops[speaking[tops]]
    kept: list[int] = []
    gap = int(NUCLEUS_GAP_S * 100)
    for j, i in enumerate(tops):
        left = int(tops[j - 1]) if j else 0
        right = int(tops[j + 1]) if j + 1 < tops.size else envelope.size - 1
        floor = max(envelope[left : i + 1].min(), envelope[i : right + 1].min())
        if envelope[i] - floor < NUCLEUS_PROMINENCE_DB:
            continue
        if kept and i - kept[-1] < gap:
            if envelope[i] > envelope[kept[-1]]:
                kept[-1] = int(i)
            continue
        kept.append(int(i))
    return len(kept)


def measure(samples: np.ndarray, sample_rate: int) -> SpeechMeasure:
    """The measure of mono float ``samples`` at ``sample_rate``. Raises
    :class:`NotSpeech` when there is under 0.3 s of voiced speech."""
    signal = np.asarray(samples, dtype=np.float32).reshape(-1)
    if sample_rate != RATE:
        signal = soxr.resample(signal, sample_rate, RATE)
    frames = _frames(signal, WINDOW)
    levels = _levels_db(frames)
    if levels.size == 0 or levels.max() < -70.0:
        raise Silence("the audio is silent")
    active = levels > max(levels.max() + SILENCE_DB, -60.0)
    f0 = yin(signal)
    n = min(f0.size, active.size)
    envelope = _band_envelope(signal)
    n = min(n, envelope.size)
    f0, active, levels, envelope = f0[:n], active[:n], levels[:n], envelope[:n]
    voiced = (f0 > 0) & active
    if voiced.sum() < 30:
        raise NotSpeech("under 0.3 s of voiced speech")
    pitches = f0[voiced]
    spread = np.percentile(levels[active], 90) - np.percentile(levels[active], 10)
    if spread < MIN_LEVEL_SPREAD_DB:
        raise NotAVoice(f"a steady sound (its loudness varies by {spread:.1f} dB), not speech")
    low, high = VOICE_F0_HZ
    if not low <= (median := float(np.median(pitches))) <= high:
        raise NotAVoice(f"its pitch, {median:.0f} Hz, is no speaking voice's")
    speech_s = float(active.sum()) / 100.0
    power = np.mean(10.0 ** (levels[active] / 10.0))
    speaking = frames[:n][active]
    spectrum = np.abs(np.fft.rfft(speaking * np.hanning(WINDOW), axis=1)).mean(axis=0)
    freqs = np.fft.rfftfreq(WINDOW, 1.0 / RATE)
    return SpeechMeasure(
        median_f0=float(np.median(pitches)),
        f0_low=float(np.percentile(pitches, 10)),
        f0_high=float(np.percentile(pitches, 90)),
        syllable_rate=_nuclei(envelope, active) / speech_s,
        loudness_db=float(10.0 * np.log10(power)),
        brightness_hz=float((spectrum * freqs).sum() / spectrum.sum()),
        speech_s=speech_s,
        voiced_s=float(voiced.sum()) / 100.0,
    )
