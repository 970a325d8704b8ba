"""Each registered voice, measured: how high, how fast and how bright it speaks.

An engine that offers the description and reference modes measures every voice
it loads by speaking a fixed probe text in the voice's language and analysing the
audio (:mod:`analysis`). Engines with a pitch control are also measured at their
lowest and highest pitch, so a target pitch can be reached by setting. Results
are kept in a small JSON cache (``SPEECH_PROFILE_CACHE``, default
``~/.cache/speech-service/voice_profiles.json``), keyed by everything that
changes the voice's sound, so only a new voice or a new probe is measured again.

The profiles of the voices configs/voices.yaml ships come with the package
(``data/voice_profiles.json``): measuring the nine Kokoro voices takes ~30 s of
CPU, which a new install, and every replica starting on a fresh node, would
otherwise spend before it serves. A voice whose key is not there (a new voice, a
new probe, other style tables) is measured as before. To make the file again::

    rm deployments/voice_design/data/voice_profiles.json
    SPEECH_PROFILE_CACHE=deployments/voice_design/data/voice_profiles.json \
        python -m deployments.synthesis.synthesiser
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from deployments.voice_design.analysis import NotSpeech, measure

logger = logging.getLogger("deployments")

# Bump when the probes or the analysis change: cached profiles are then measured again.
PROFILE_VERSION = 1
PROBES = {
    "hi": "नमस्ते, आज मौसम बहुत अच्छा है। हम सब शाम को बाज़ार चलेंगे और वहाँ से फल ख़रीदेंगे।",
    "en": "Hello, the weather is lovely today. We will all go to the market this evening "
    "and buy some fresh fruit.",
}


@dataclass(frozen=True)
class VoiceProfile:
    """A voice's measured sound at speed 1.0 and pitch 0. ``pitch_f0`` is the median F0
    at pitch -1 and +1 where the engine has a pitch control, else None."""

    median_f0: float
    f0_range_st: float
    syllable_rate: float
    brightness_hz: float
    pitch_f0: tuple[float, float] | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> VoiceProfile:
        pitch = data.get("pitch_f0")
        return cls(**{**data, "pitch_f0": tuple(pitch) if pitch else None})


Speak = Callable[[str, str, float], np.ndarray]
"""``speak(text, language, pitch)`` -> float32 samples at the engine's rate."""


def probe_language(language: str) -> str:
    return language if language in PROBES else "en"


def measure_voice(speak: Speak, language: str, sample_rate: int, pitched: bool) -> VoiceProfile:
    """Measure a voice through ``speak`` on the probe of ``language``. Raises
    :class:`NotSpeech` when its output has too little voiced speech to measure."""
    probe_lang = probe_language(language)
    text = PROBES[probe_lang]
    heard = measure(speak(text, probe_lang, 0.0), sample_rate)
    pitch_f0 = None
    if pitched:
        high = measure(speak(text, probe_lang, 1.0), sample_rate).median_f0
        try:
            low = measure(speak(text, probe_lang, -1.0), sample_rate).median_f0
        except NotSpeech:  # below what F0 tracking hears (eSpeak's low males): mirrored
            low = heard.median_f0**2 / high
        pitch_f0 = (low, high)
    return VoiceProfile(
        median_f0=heard.median_f0,
        f0_range_st=heard.f0_range_st,
        syllable_rate=heard.syllable_rate,
        brightness_hz=heard.brightness_hz,
        pitch_f0=pitch_f0,
    )


SHIPPED_PROFILES = Path(__file__).parent / "data" / "voice_profiles.json"


@functools.cache
def shipped_profiles() -> dict[str, dict[str, Any]]:
    """The measured profiles of the shipped voices, by key (none if the file is absent)."""
    try:
        entries = json.loads(SHIPPED_PROFILES.read_text())
    except (OSError, ValueError):
        return {}
    return entries if isinstance(entries, dict) else {}


def default_cache_path() -> Path:
    configured = os.environ.get("SPEECH_PROFILE_CACHE")
    if configured:
        return Path(configured)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "speech-service" / "voice_profiles.json"


class ProfileCache:
    """Profiles by key, kept in one JSON file that every process of the machine shares
    (the engines of one replica, the replicas starting side by side, the install step).
    A miss reads the file again before measuring, and a write merges what is in the
    file under a lock, so nothing another process measured is lost. A file that cannot
    be read or written only costs a measurement."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_cache_path()
        self._lock = threading.Lock()
        self._entries: dict[str, dict[str, Any]] = self._read()

    @staticmethod
    def key(*parts: object) -> str:
        text = json.dumps([PROFILE_VERSION, PROBES, *parts], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def get_or_measure(self, key: str, measure_it: Callable[[], VoiceProfile]) -> VoiceProfile:
        cached = self._lookup(key)
        if cached is not None:
            try:
                return VoiceProfile.from_json(cached)
            except TypeError:
                pass  # an older shape: measure again
        profile = measure_it()
        with self._lock:
            self._entries[key] = asdict(profile)
            self._write()
        return profile

    def _lookup(self, key: str) -> dict[str, Any] | None:
        """The entry for ``key``: this machine's, else the shipped one; on a miss, the
        file is read again (another process may have measured it since)."""
        with self._lock:
            if key not in self._entries:
                self._entries = {**self._read(), **self._entries}
            return self._entries.get(key) or shipped_profiles().get(key)

    def _read(self) -> dict[str, dict[str, Any]]:
        try:
            entries = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return entries if isinstance(entries, dict) else {}

    def _write(self) -> None:
        """Merge the file's entries with ours and write them back, atomically, while
        holding the file's lock."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path.with_suffix(".lock"), "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                self._entries = {**self._read(), **self._entries}
                temporary = self.path.with_suffix(f".{os.getpid()}.tmp")
                temporary.write_text(json.dumps(self._entries, indent=1, sort_keys=True))
                temporary.replace(self.path)
        except OSError as e:
            logger.warning("voice profiles: could not write %s (%s)", self.path, e)
