"""How a text is to be read, as one value every layer passes on: :class:`ReadingOptions`
(the language, the quality profile, the pronunciation rules, the SSML document, whether
numbers and symbols are read in words), and the types it holds, which the normaliser's
answers carry too (:class:`AppliedRule`).

A pronunciation rule says: say this text instead (``alias``), or say it with these
phonemes (``phoneme``), matched in the text as the client wrote it; its shape is
ElevenLabs' (their SDK sends it unchanged). An SSML document is the markup read
once (``deployments.normaliser.ssml.parse``): the text a listener hears, where each
of its characters came from, the marks elements put on it and its pauses.

Plain data: nothing here knows of HTTP, Ray or the normaliser's workings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ALPHABETS = ("ipa", "espeak")
MAX_RULES = 10_000
MAX_TEXT = 200  # characters of a rule's string, alias or phonemes


class RuleError(ValueError):
    """A rule that cannot be used; the message says which and why."""


@dataclass(frozen=True)
class PronunciationRule:
    string_to_replace: str
    type: Literal["alias", "phoneme"]
    alias: str = ""
    phoneme: str = ""
    alphabet: str = "ipa"
    case_sensitive: bool = True
    word_boundaries: bool = True

    def __post_init__(self) -> None:
        what = f"rule for {self.string_to_replace!r}"
        if not self.string_to_replace.strip():
            raise RuleError("a rule's string_to_replace is empty")
        if self.type == "alias" and not self.alias.strip():
            raise RuleError(f"the {what} has no alias")
        if self.type == "phoneme":
            if not self.phoneme.strip():
                raise RuleError(f"the {what} has no phoneme")
            if self.alphabet == "espeak" and ("[" in self.phoneme or "]" in self.phoneme):
                raise RuleError(f"the {what}: eSpeak phonemes are written without [[ ]]")
            if self.alphabet not in ALPHABETS:
                raise RuleError(
                    f"the {what} uses the alphabet {self.alphabet!r}; "
                    f"use one of {', '.join(ALPHABETS)}"
                )
        for field, value in (("string_to_replace", self.string_to_replace), ("alias", self.alias),
                             ("phoneme", self.phoneme)):  # fmt: skip
            if len(value) > MAX_TEXT:
                raise RuleError(f"the {what}: {field} is over {MAX_TEXT} characters")

    def as_dict(self) -> dict[str, object]:
        """The rule as the API writes it (ElevenLabs' field names)."""
        body: dict[str, object] = {
            "type": self.type,
            "string_to_replace": self.string_to_replace,
            "case_sensitive": self.case_sensitive,
            "word_boundaries": self.word_boundaries,
        }
        if self.type == "alias":
            body["alias"] = self.alias
        else:
            body |= {"phoneme": self.phoneme, "alphabet": self.alphabet}
        return body

    @classmethod
    def from_dict(cls, body: dict[str, object]) -> PronunciationRule:
        kind = body.get("type")
        if kind not in ("alias", "phoneme"):
            raise RuleError(f"a rule's type is 'alias' or 'phoneme', not {kind!r}")
        text = {k: body.get(k) for k in ("string_to_replace", "alias", "phoneme", "alphabet")}
        flags = {k: body.get(k) for k in ("case_sensitive", "word_boundaries")}
        for name, value in text.items():
            if value is not None and not isinstance(value, str):
                raise RuleError(f"a rule's {name} is a string")
        for name, value in flags.items():
            if value is not None and not isinstance(value, bool):
                raise RuleError(f"a rule's {name} is true or false")
        return cls(
            string_to_replace=str(text["string_to_replace"] or ""),
            type=kind,
            alias=str(text["alias"] or ""),
            phoneme=str(text["phoneme"] or ""),
            alphabet=str(text["alphabet"] or "ipa"),
            case_sensitive=flags["case_sensitive"] is not False,
            word_boundaries=flags["word_boundaries"] is not False,
        )


@dataclass(frozen=True)
class AppliedRule:
    """A rule that matched ``input[start:end]`` of a request's text."""

    start: int
    end: int
    rule: PronunciationRule


@dataclass(frozen=True)
class Mark:
    """``text[start:end]`` of the document, inside an element that says something
    about it: ``element`` and its attributes (only those the element takes)."""

    start: int
    end: int
    element: str
    attributes: tuple[tuple[str, str], ...]

    def get(self, name: str) -> str | None:
        return dict(self.attributes).get(name)


@dataclass(frozen=True)
class Pause:
    """Silence of ``ms`` milliseconds before ``text[at:]``."""

    at: int
    ms: int


@dataclass(frozen=True)
class SsmlText:
    """An SSML document as read: the ``text`` a listener hears, each character's offset
    in the markup, the marks its elements put on it and its pauses."""

    text: str
    origin: tuple[int, ...]  # the markup offset of each character, one more for the end
    marks: tuple[Mark, ...]
    pauses: tuple[Pause, ...]

    def span_in_input(self, start: int, end: int) -> tuple[int, int]:
        """The markup offsets of ``text[start:end]``."""
        if end <= start:
            return self.origin[start], self.origin[start]
        return self.origin[start], self.origin[end - 1] + 1


@dataclass(frozen=True)
class ReadingOptions:
    """How a text is read: in ``language`` (canonical), with the segmenting profile of
    ``quality``, ``rules`` matched in the text as written; ``ssml``: the text is an
    SSML document (True) or that document as read already (an :class:`SsmlText`: the
    ingress reads it once); ``read`` False leaves numbers and symbols as written for
    the voice to read as it can (``apply_text_normalization: off``); ``background``:
    no listener waits for it (a long-form job's chunk), so it is read below the
    priority of live requests' text."""

    language: str
    quality: str = "balanced"
    rules: tuple[PronunciationRule, ...] = ()
    ssml: bool | SsmlText = False
    read: bool = True
    background: bool = False
