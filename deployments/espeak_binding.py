"""A small ctypes binding over libespeak-ng as shipped by the ``espeakng-loader`` wheel.

libespeak-ng keeps its state in process globals, so a process has exactly one
:class:`EspeakLibrary` (see :func:`espeak_library`) and every call into it holds
that object's lock: unlocked concurrent calls corrupt the heap.

Only the part of ``speak_lib.h`` the service needs is bound: initialisation in
synchronous mode, voice and parameter selection, ``espeak_Synth`` with a
callback that copies the samples out while they are valid, and
``espeak_TextToPhonemes`` (IPA, for the neural voices that read phonemes).
"""

from __future__ import annotations

import ctypes
import functools
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

AUDIO_OUTPUT_SYNCHRONOUS = 2
INITIALIZE_DONT_EXIT = 0x8000
INITIALIZE_PHONEME_EVENTS = 0x0001  # a PHONEME event as each phoneme starts
INITIALIZE_PHONEME_IPA = 0x0002  # ... naming it in IPA
POS_CHARACTER = 1
CHARS_UTF8 = 1
ENDPAUSE = 0x1000
PHONEME_INPUT = 0x100  # espeakPHONEMES: [[...]] in the text is eSpeak phoneme mnemonics

PARAM_RATE = 1
PARAM_VOLUME = 2
PARAM_PITCH = 3
PARAM_RANGE = 4

EVENT_LIST_TERMINATED = 0
EVENT_WORD = 1
EVENT_SENTENCE = 2
EVENT_END = 5
EVENT_PHONEME = 7

BUFFER_MS = 100

PHONEMES_IPA = 0x02
PHONEMES_TIE = 0x80  # bits 8-23 hold the tie character within multi-letter phonemes


class _EventId(ctypes.Union):
    _fields_ = (
        ("number", ctypes.c_int),
        ("name", ctypes.c_char_p),
        ("string", ctypes.c_char * 8),
    )


class EspeakEvent(ctypes.Structure):
    """``espeak_EVENT`` of speak_lib.h."""

    _fields_ = (
        ("type", ctypes.c_int),
        ("unique_identifier", ctypes.c_uint),
        ("text_position", ctypes.c_int),
        ("length", ctypes.c_int),
        ("audio_position", ctypes.c_int),
        ("sample", ctypes.c_int),
        ("user_data", ctypes.c_void_p),
        ("id", _EventId),
    )


SYNTH_CALLBACK = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(EspeakEvent)
)


class EspeakError(RuntimeError):
    """libespeak-ng reported a failure (a non-zero status or a bad initialisation)."""


@dataclass(frozen=True)
class WordEvent:
    """One word as eSpeak placed it: character offset (0-based) and length, audio time in ms."""

    text_position: int
    length: int
    audio_ms: int


@dataclass(frozen=True)
class PhonemeEvent:
    """A phoneme as eSpeak started it: its IPA name and its audio time in ms (a
    pause is ``_``, or an empty name)."""

    name: str
    audio_ms: int


@dataclass
class Utterance:
    """What one ``espeak_Synth`` call produced: ~100 ms blocks of int16 samples, word
    and phoneme events, and the times at which its clauses ended."""

    blocks: list[np.ndarray] = field(default_factory=list)
    words: list[WordEvent] = field(default_factory=list)
    phonemes: list[PhonemeEvent] = field(default_factory=list)
    clause_ends_ms: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class VoiceSettings:
    """eSpeak's voice name (``hi``, ``hi+f3``) and its prosody parameters in eSpeak's units."""

    name: str
    rate_wpm: int = 175
    pitch: int = 50
    pitch_range: int = 50
    volume: int = 100


class EspeakLibrary:
    """The process's libespeak-ng, initialised once in synchronous output mode."""

    def __init__(self, library_path: str, data_path: str) -> None:
        self._lib = ctypes.CDLL(library_path)
        self._declare()
        self.lock = threading.Lock()
        options = INITIALIZE_DONT_EXIT | INITIALIZE_PHONEME_EVENTS | INITIALIZE_PHONEME_IPA
        rate = self._lib.espeak_Initialize(
            AUDIO_OUTPUT_SYNCHRONOUS, BUFFER_MS, data_path.encode(), options
        )
        if rate <= 0:
            raise EspeakError(f"espeak_Initialize failed with {rate}")
        self.sample_rate: int = rate
        self._current: Utterance | None = None
        self._should_stop: Callable[[], bool] = lambda: False
        # ctypes frees a callback object that nothing references: keep it on self.
        self._callback = SYNTH_CALLBACK(self._on_audio)
        self._lib.espeak_SetSynthCallback(self._callback)
        self._voice: VoiceSettings | None = None
        # espeak_TextToPhonemes leaves translator state behind that makes the next
        # espeak_Synth lose its first word event (seen with eSpeak NG 1.52): a
        # synthesis of a blank after phonemes resets it.
        self._phonemised = False

    def _declare(self) -> None:
        lib = self._lib
        lib.espeak_Initialize.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int)
        lib.espeak_Initialize.restype = ctypes.c_int
        lib.espeak_SetSynthCallback.argtypes = (SYNTH_CALLBACK,)
        lib.espeak_SetSynthCallback.restype = None
        lib.espeak_SetVoiceByName.argtypes = (ctypes.c_char_p,)
        lib.espeak_SetVoiceByName.restype = ctypes.c_int
        lib.espeak_SetParameter.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.c_int)
        lib.espeak_SetParameter.restype = ctypes.c_int
        lib.espeak_Synth.argtypes = (
            ctypes.c_void_p,
            ctypes.c_size_t,
            ctypes.c_uint,
            ctypes.c_int,
            ctypes.c_uint,
            ctypes.c_uint,
            ctypes.c_void_p,
            ctypes.c_void_p,
        )
        lib.espeak_Synth.restype = ctypes.c_int
        lib.espeak_TextToPhonemes.argtypes = (
            ctypes.POINTER(ctypes.c_void_p),
            ctypes.c_int,
            ctypes.c_int,
        )
        lib.espeak_TextToPhonemes.restype = ctypes.c_char_p

    def _on_audio(
        self,
        wav: ctypes._Pointer[ctypes.c_short],
        numsamples: int,
        events: ctypes._Pointer[EspeakEvent],
    ) -> int:
        utterance = self._current
        if utterance is None:
            return 1
        if numsamples > 0 and wav:
            # The buffer is only valid during this call: copy it. (Not through
            # np.ctypeslib.as_array: it makes a ctypes array type per length, which
            # ctypes keeps for the life of the process.)
            raw = ctypes.string_at(wav, numsamples * ctypes.sizeof(ctypes.c_short))
            utterance.blocks.append(np.frombuffer(raw, dtype=np.int16))
        i = 0
        while events[i].type != EVENT_LIST_TERMINATED:
            event = events[i]
            if event.type == EVENT_WORD:
                utterance.words.append(
                    WordEvent(event.text_position - 1, event.length, event.audio_position)
                )
            elif event.type == EVENT_PHONEME:
                name = bytes(event.id.string).split(b"\0", 1)[0].decode("utf-8", "replace")
                utterance.phonemes.append(PhonemeEvent(name, event.audio_position))
            elif event.type == EVENT_END:
                utterance.clause_ends_ms.append(event.audio_position)
            i += 1
        return 1 if self._should_stop() else 0

    def synthesise(
        self,
        text: str,
        voice: VoiceSettings,
        should_stop: Callable[[], bool] = lambda: False,
        phoneme_input: bool = False,
    ) -> Utterance:
        """Speak ``text`` (plain UTF-8, no markup; with ``phoneme_input``, ``[[...]]`` in
        it is eSpeak's phoneme notation) with ``voice``; blocks the calling thread.

        Returns every sample produced. ``should_stop`` is polled at each ~100 ms block;
        when it returns True synthesis aborts and the partial utterance is returned.
        Raises :class:`EspeakError` for an unknown voice or a failed synthesis.
        """
        data = text.encode("utf-8") + b"\0"
        utterance = Utterance()
        with self.lock:
            self._select(voice)
            if self._phonemised:
                self._current = Utterance()  # heard by no one
                self._lib.espeak_Synth(b" \0", 2, 0, POS_CHARACTER, 0, CHARS_UTF8, None, None)
                self._phonemised = False
            self._current = utterance
            self._should_stop = should_stop
            try:
                flags = CHARS_UTF8 | ENDPAUSE | (PHONEME_INPUT if phoneme_input else 0)
                status = self._lib.espeak_Synth(
                    data, len(data), 0, POS_CHARACTER, 0, flags, None, None
                )
            finally:
                self._current = None
                self._should_stop = lambda: False
        if status != 0 and not should_stop():
            raise EspeakError(f"espeak_Synth failed with status {status}")
        return utterance

    def text_to_phonemes(self, text: str, voice_name: str, tie: str = "^") -> list[str]:
        """IPA phonemes of ``text`` in eSpeak's voice ``voice_name``, one string per
        clause eSpeak found, with stress marks and ``tie`` joining the letters of
        multi-letter phonemes. Language switches show as ``(en)`` .. ``(hi)``.

        Raises :class:`EspeakError` for an unknown voice.
        """
        data = ctypes.create_string_buffer(text.encode("utf-8") + b"\0")
        cursor = ctypes.c_void_p(ctypes.addressof(data))
        mode = PHONEMES_IPA | PHONEMES_TIE | (ord(tie) << 8)
        clauses = []
        with self.lock:
            self._select(VoiceSettings(voice_name))
            self._phonemised = True
            # Each call translates one clause and moves the cursor past it (NULL at the end).
            while cursor.value:
                result = self._lib.espeak_TextToPhonemes(ctypes.byref(cursor), CHARS_UTF8, mode)
                if result:
                    clauses.append(result.decode("utf-8", errors="replace"))
        return clauses

    def _select(self, voice: VoiceSettings) -> None:
        if voice == self._voice:
            return
        if self._lib.espeak_SetVoiceByName(voice.name.encode()) != 0:
            self._voice = None
            raise EspeakError(f"eSpeak has no voice {voice.name!r}")
        for param, value in (
            (PARAM_RATE, voice.rate_wpm),
            (PARAM_PITCH, voice.pitch),
            (PARAM_RANGE, voice.pitch_range),
            (PARAM_VOLUME, voice.volume),
        ):
            self._lib.espeak_SetParameter(param, value, 0)
        self._voice = voice


def data_root() -> str:
    """The folder that holds ``espeak-ng-data``: what espeak_Initialize wants as its path."""
    import espeakng_loader

    data_path: str = espeakng_loader.get_data_path()
    return os.path.dirname(data_path)


def languages() -> list[str]:
    """Language voice names shipped in the wheel's data (``hi``, ``en-US``, ...)."""
    import espeakng_loader

    lang_dir = os.path.join(espeakng_loader.get_data_path(), "lang")
    names = []
    for _dirpath, _dirs, files in os.walk(lang_dir):
        names.extend(files)
    return sorted(names)


@functools.cache
def espeak_library() -> EspeakLibrary:
    """The process's one libespeak-ng, loaded on first use."""
    import espeakng_loader

    return EspeakLibrary(espeakng_loader.get_library_path(), data_root())
