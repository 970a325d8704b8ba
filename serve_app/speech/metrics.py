"""Service metrics: time to first audio, real-time factor, volume, rejections, the
speech cache.

Exported through ``ray.serve.metrics`` (so Prometheus scrapes them from Ray's
metrics endpoint next to Serve's own); tests without Ray use :class:`NullMetrics`.
"""

from __future__ import annotations

from typing import Protocol

from serve_app.speech.cache.memory import MemoryStats

TTFA_BOUNDARIES_MS = [5, 10, 20, 30, 50, 75, 100, 150, 250, 500, 1000, 2000, 5000]


RTF_BOUNDARIES = [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0]


class Metrics(Protocol):
    def first_audio(self, ms: float, transport: str, fmt: str) -> None: ...

    def finished(
        self, voice: str, language: str, characters: int, audio_s: float, wall_s: float
    ) -> None: ...

    def rejected(self, code: str) -> None: ...

    def speech_cache(self, found: int, missing: int, memory: MemoryStats) -> None: ...


class NullMetrics:
    def first_audio(self, ms: float, transport: str, fmt: str) -> None:
        pass

    def finished(
        self, voice: str, language: str, characters: int, audio_s: float, wall_s: float
    ) -> None:
        pass

    def rejected(self, code: str) -> None:
        pass

    def speech_cache(self, found: int, missing: int, memory: MemoryStats) -> None:
        pass


class ServeMetrics:
    """The metrics of one ingress replica, as Ray metrics (``tts_*``)."""

    def __init__(self) -> None:
        from ray.serve.metrics import Counter, Gauge, Histogram

        self._ttfa = Histogram(
            "tts_time_to_first_audio_ms",
            description="Request received to first audio ready to send, in ms.",
            boundaries=TTFA_BOUNDARIES_MS,
            tag_keys=("transport", "format"),
        )
        self._rtf = Histogram(
            "tts_real_time_factor",
            description="Wall time of a request over the duration of its audio.",
            boundaries=RTF_BOUNDARIES,
            tag_keys=("voice",),
        )
        self._characters = Counter(
            "tts_characters_total",
            description="Characters spoken.",
            tag_keys=("voice", "language"),
        )
        self._audio = Counter(
            "tts_audio_seconds_total",
            description="Seconds of audio delivered.",
            tag_keys=("voice", "language"),
        )
        self._rejections = Counter(
            "tts_rejections_total",
            description="Requests refused, by error code.",
            tag_keys=("code",),
        )
        self._cache_found = Counter(
            "tts_speech_cache_hits_total",
            description="Sentences spoken from the speech cache.",
        )
        self._cache_missing = Counter(
            "tts_speech_cache_misses_total",
            description="Sentences the speech cache did not have (synthesised, then kept).",
        )
        self._cache_bytes = Gauge(
            "tts_speech_cache_bytes", description="Bytes of audio in the speech cache."
        )
        self._cache_entries = Gauge(
            "tts_speech_cache_entries", description="Sentences in the speech cache."
        )
        self._cache_evictions = Counter(
            "tts_speech_cache_evictions_total",
            description="Sentences dropped from the speech cache to make room.",
        )
        self._evictions_seen = 0

    def first_audio(self, ms: float, transport: str, fmt: str) -> None:
        self._ttfa.observe(ms, tags={"transport": transport, "format": fmt})

    def finished(
        self, voice: str, language: str, characters: int, audio_s: float, wall_s: float
    ) -> None:
        tags = {"voice": voice, "language": language}
        if characters:
            self._characters.inc(characters, tags=tags)
        if audio_s > 0:
            self._audio.inc(audio_s, tags=tags)
            self._rtf.observe(wall_s / audio_s, tags={"voice": voice})

    def rejected(self, code: str) -> None:
        self._rejections.inc(tags={"code": code})

    def speech_cache(self, found: int, missing: int, memory: MemoryStats) -> None:
        if found:
            self._cache_found.inc(found)
        if missing:
            self._cache_missing.inc(missing)
        self._cache_bytes.set(memory.bytes)
        self._cache_entries.set(memory.entries)
        if memory.evictions > self._evictions_seen:
            self._cache_evictions.inc(memory.evictions - self._evictions_seen)
            self._evictions_seen = memory.evictions
