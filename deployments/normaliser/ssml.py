"""SSML, opt-in per request: the markup read safely into text and what it says about it.

The subset the hosted services document and IVR systems send: ``speak``, ``p``,
``s``, ``break`` (``time``, ``strength``), ``say-as`` (``interpret-as``:
characters/spell-out, cardinal, ordinal, digits, telephone, date, time, currency),
``sub`` (``alias``), ``phoneme`` (``alphabet`` ipa or x-espeak, ``ph``),
``prosody`` (``rate``, ``pitch``, ``volume``), ``lang`` (``xml:lang``),
``emphasis`` and ``mark`` (accepted, nothing to say). Any other element is an
error that names it and where it is.

Parsed by expat with every way to a DTD closed before it is read: a document type
declaration, an entity declaration or an external reference is refused (no
billion laughs, no external entity), as defusedxml does; nesting past
:data:`MAX_DEPTH`, more than :data:`MAX_ELEMENTS` elements and pauses adding up to
more than :data:`MAX_TOTAL_PAUSE_MS` are refused too.
Every error is :class:`SsmlError` with the line and column.

The result is :class:`SsmlText`: the text a listener hears (text nodes in order,
elements that end a paragraph or sentence leaving a space), each of its
characters mapped to its offset in the markup, the marks (a span of that text and
what an element says about it) and the pauses (``break``; a paragraph's end).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any
from xml.parsers import expat

from deployments.reading import Mark, Pause, SsmlText

MAX_DEPTH = 32
MAX_ELEMENTS = 10_000
MAX_PAUSE_MS = 10_000
# every pause of a document together: a few characters of breaks must not ask for
# more silence than the longest text the service takes would be speech
MAX_TOTAL_PAUSE_MS = 120_000
PARAGRAPH_PAUSE_MS = 500
# break strength -> milliseconds (as the hosted services roughly have them)
STRENGTHS = {
    "none": 0,
    "x-weak": 100,
    "weak": 200,
    "medium": 400,
    "strong": 700,
    "x-strong": 1000,
}
SAY_AS = frozenset(
    {
        "characters",
        "spell-out",
        "cardinal",
        "number",
        "ordinal",
        "digits",
        "telephone",
        "date",
        "time",
        "currency",
    }
)
ALPHABETS = {"ipa": "ipa", "x-espeak": "espeak", "espeak": "espeak"}
# Elements whose text is plain text with something said about it (a mark).
MARKING = frozenset({"say-as", "sub", "phoneme", "prosody", "lang", "emphasis"})
STRUCTURE = frozenset({"speak", "p", "s", "break", "mark"})
# Elements that replace or respell their text hold text only, at most MAX_TEXT
# characters of it (as a pronunciation rule's string: they become such rules).
TEXT_ONLY = frozenset({"say-as", "sub", "phoneme"})
MAX_TEXT = 200
_TIME = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(ms|s)\s*")
# prosody: named values (the rate a multiplier, pitch in the API's -1..1, volume a gain)
RATES = {"x-slow": 0.6, "slow": 0.8, "medium": 1.0, "default": 1.0, "fast": 1.25, "x-fast": 1.6}
PITCHES = {"x-low": -0.5, "low": -0.25, "medium": 0.0, "default": 0.0, "high": 0.25, "x-high": 0.5}
VOLUMES_DB = {"silent": None, "x-soft": -12.0, "soft": -6.0, "medium": 0.0, "default": 0.0,
              "loud": 4.0, "x-loud": 8.0}  # fmt: skip
_NUMBER = r"([+-]?\d+(?:\.\d+)?)"
_PERCENT = re.compile(rf"\s*{_NUMBER}\s*%\s*")
_SEMITONES = re.compile(rf"\s*{_NUMBER}\s*st\s*")
_DECIBELS = re.compile(rf"\s*{_NUMBER}\s*dB\s*")
_PLAIN = re.compile(rf"\s*{_NUMBER}\s*")


class SsmlError(ValueError):
    """Markup that cannot be spoken; ``line`` and ``column`` (1-based) say where."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"SSML line {line}, column {column}: {message}")
        self.message, self.line, self.column = message, line, column


def rate_of(value: str) -> float:
    """A prosody rate as a multiplier of the speed: ``slow``, ``80%``, ``+20%``, ``1.2``."""
    if value in RATES:
        return RATES[value]
    if match := _PERCENT.fullmatch(value):
        number = float(match[1])
        return 1 + number / 100 if value.strip()[0] in "+-" else number / 100
    if match := _PLAIN.fullmatch(value):
        return float(match[1])
    raise ValueError(f"rate {value!r}: use x-slow..x-fast, a percentage (80%, +20%) or 1.2")


def pitch_of(value: str) -> float:
    """A prosody pitch in the API's units (-1..1, relative): ``high``, ``+10%``, ``-2st``."""
    if value in PITCHES:
        return PITCHES[value]
    if match := _PERCENT.fullmatch(value):
        return float(match[1]) / 100
    if match := _SEMITONES.fullmatch(value):
        return float(match[1]) / 12
    raise ValueError(f"pitch {value!r}: use x-low..x-high, a percentage (+10%) or semitones (-2st)")


def volume_of(value: str) -> float:
    """A prosody volume as a gain: ``loud``, ``+6dB``, ``50%`` (``silent`` is 0)."""
    if value in VOLUMES_DB:
        decibels = VOLUMES_DB[value]
        return 0.0 if decibels is None else 10 ** (decibels / 20)
    if match := _DECIBELS.fullmatch(value):
        return float(10 ** (float(match[1]) / 20))
    if match := _PERCENT.fullmatch(value):
        number = float(match[1])
        return max(0.0, 1 + number / 100 if value.strip()[0] in "+-" else number / 100)
    raise ValueError(f"volume {value!r}: use silent, x-soft..x-loud, decibels (+6dB) or 50%")


PROSODY = {"rate": rate_of, "pitch": pitch_of, "volume": volume_of}


@dataclass
class _Open:
    element: str
    start: int
    attributes: tuple[tuple[str, str], ...]
    opened: int  # elements opened before it: outer marks first where spans are equal


@dataclass
class _Reader:
    markup: str
    parser: Any
    byte_starts: list[int]  # UTF-8 offset of each character of the markup
    text: list[str] = field(default_factory=list)
    origin: list[int] = field(default_factory=list)
    marks: list[tuple[int, Mark]] = field(default_factory=list)
    pauses: list[Pause] = field(default_factory=list)
    open: list[_Open] = field(default_factory=list)
    elements: int = 0
    paused_ms: int = 0  # every pause so far, together

    def fail(self, message: str) -> None:
        raise SsmlError(message, self.parser.CurrentLineNumber, self.parser.CurrentColumnNumber + 1)

    def at(self) -> int:
        """The markup's character offset where the parser is."""
        return bisect.bisect_left(self.byte_starts, self.parser.CurrentByteIndex)

    def data(self, data: str) -> None:
        if self.open and self.open[-1].element == "break":
            self.fail("<break> holds no text")
        where = self.at()
        literal = self.markup.startswith(data, where)
        for k, ch in enumerate(data):
            self.text.append(ch)
            self.origin.append(where + k if literal else where)  # an entity: its place

    def size(self) -> int:
        return len(self.text)

    def separate(self) -> None:
        if self.text and not self.text[-1].isspace():
            self.text.append(" ")
            self.origin.append(self.at())

    def start(self, name: str, attributes: dict[str, str]) -> None:
        self.elements += 1
        if self.elements > MAX_ELEMENTS:
            self.fail(f"more than {MAX_ELEMENTS} elements")
        if len(self.open) >= MAX_DEPTH:
            self.fail(f"elements nested deeper than {MAX_DEPTH}")
        if not self.open and name != "speak":
            self.fail(f"the root element is <speak>, not <{name}>")
        if name not in MARKING | STRUCTURE:
            self.fail(f"<{name}> is not supported (docs/pronunciation.md)")
        if self.open and self.open[-1].element in TEXT_ONLY:
            self.fail(f"<{self.open[-1].element}> holds text only, not <{name}>")
        kept = self.checked(name, attributes)
        if name == "break":
            self.pause(self.pause_ms(attributes))
        elif name in ("p", "s"):
            self.separate()
        self.open.append(_Open(name, self.size(), kept, self.elements))

    def end(self, name: str) -> None:
        opened = self.open.pop()
        if name in MARKING:
            held = "".join(self.text[opened.start :])
            if not held.strip():
                self.fail(f"<{name}> holds no text")
            if name in TEXT_ONLY and len(held) > MAX_TEXT:
                self.fail(f"<{name}> holds {len(held)} characters; at most {MAX_TEXT}")
            mark = Mark(opened.start, self.size(), name, opened.attributes)
            self.marks.append((opened.opened, mark))
        elif name in ("p", "s"):
            self.separate()
            if name == "p":
                self.pause(PARAGRAPH_PAUSE_MS)

    def pause(self, ms: int) -> None:
        self.pauses.append(Pause(self.size(), ms))
        self.paused_ms += ms
        if self.paused_ms > MAX_TOTAL_PAUSE_MS:
            self.fail(
                f"breaks and paragraph ends add up to more than {MAX_TOTAL_PAUSE_MS // 1000} s "
                "of silence"
            )

    def checked(self, name: str, attributes: dict[str, str]) -> tuple[tuple[str, str], ...]:
        """The attributes ``name`` takes, checked; the ones it requires present."""
        if name == "sub":
            if not attributes.get("alias", "").strip():
                self.fail("<sub> needs an alias")
            if len(attributes["alias"]) > MAX_TEXT:
                self.fail(f"<sub> alias is over {MAX_TEXT} characters")
            return (("alias", attributes["alias"]),)
        if name == "phoneme":
            alphabet = ALPHABETS.get(attributes.get("alphabet", "ipa"))
            if alphabet is None:
                self.fail(f"<phoneme> alphabet is ipa or x-espeak, not {attributes['alphabet']!r}")
            if not attributes.get("ph", "").strip():
                self.fail("<phoneme> needs ph")
            if (
                len(attributes["ph"]) > MAX_TEXT
                or "[" in attributes["ph"]
                or "]" in attributes["ph"]
            ):
                self.fail(f"<phoneme> ph is at most {MAX_TEXT} characters, without [ or ]")
            return (("alphabet", str(alphabet)), ("ph", attributes["ph"]))
        if name == "say-as":
            kind = attributes.get("interpret-as", "")
            if kind not in SAY_AS:
                self.fail(f"<say-as> interpret-as {kind!r}: use one of {', '.join(sorted(SAY_AS))}")
            return tuple((k, attributes[k]) for k in ("interpret-as", "format") if k in attributes)
        if name == "lang":
            language = attributes.get("xml:lang", "")
            if not language:
                self.fail("<lang> needs xml:lang")
            return (("xml:lang", language),)
        if name == "prosody":
            for key, value_of in PROSODY.items():
                if key in attributes:
                    try:
                        value_of(attributes[key])
                    except ValueError as e:
                        self.fail(f"<prosody> {e}")
            return tuple((k, attributes[k]) for k in PROSODY if k in attributes)
        if name == "emphasis":
            return tuple((k, attributes[k]) for k in ("level",) if k in attributes)
        return ()

    def pause_ms(self, attributes: dict[str, str]) -> int:
        if "time" in attributes:
            match = _TIME.fullmatch(attributes["time"])
            if match is None:
                self.fail(f"<break> time {attributes['time']!r} is not like 500ms or 1.5s")
            assert match is not None
            value = float(match[1]) * (1 if match[2] == "ms" else 1000)
            return min(round(value), MAX_PAUSE_MS)
        strength = attributes.get("strength", "medium")
        if strength not in STRENGTHS:
            self.fail(f"<break> strength {strength!r}: use one of {', '.join(STRENGTHS)}")
        return STRENGTHS[strength]


def _refuse(what: str) -> Any:
    def handler(*_: object) -> None:
        raise _Refused(what)

    return handler


class _Refused(Exception):
    pass


def without_tags(markup: str) -> str:
    """``markup`` with its tags as spaces: enough to tell the script of its text."""
    return _TAGS.sub(" ", markup)


_TAGS = re.compile(r"<[^<>]*>")


def parse(markup: str) -> SsmlText:
    """``markup`` read (see the module's docstring); raises :class:`SsmlError`.

    A document whose root is not ``<speak>`` (text with a ``<break/>`` in it, as
    ElevenLabs' users write it) is read as if ``<speak>`` held it; offsets, lines and
    columns stay those of ``markup``."""
    head = markup.lstrip()
    if head.startswith(("<speak", "<?xml", "<!")):
        return _parse(markup, 0)
    return _parse(f"{_OPEN}{markup}</speak>", len(_OPEN))


_OPEN = "<speak>"


def _parse(markup: str, added: int) -> SsmlText:
    """``markup`` read; its first ``added`` characters (all on line 1) are not the
    client's."""
    parser = expat.ParserCreate(namespace_separator=None)
    encoded = markup.encode("utf-8")
    starts, offset = [], 0
    for ch in markup:
        starts.append(offset)
        offset += len(ch.encode("utf-8"))
    reader = _Reader(markup, parser, starts)
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = _refuse("a document type declaration (DTD) is not allowed")
    parser.EntityDeclHandler = _refuse("entity declarations are not allowed")
    parser.UnparsedEntityDeclHandler = _refuse("entity declarations are not allowed")
    parser.ExternalEntityRefHandler = _refuse("external references are not allowed")
    parser.StartElementHandler = reader.start
    parser.EndElementHandler = reader.end
    parser.CharacterDataHandler = reader.data
    parser.buffer_text = False

    lines = markup[added : len(markup) - (len("</speak>") if added else 0)].split("\n")

    def column(line: int, at: int) -> int:
        """A column of the client's text (the wrapper's end is read as its line's end)."""
        at = max(1, at - added) if line == 1 else at
        return min(at, len(lines[line - 1]) + 1) if line <= len(lines) else at

    try:
        parser.Parse(encoded, True)
    except _Refused as refused:
        line = parser.CurrentLineNumber
        raise SsmlError(str(refused), line, column(line, parser.CurrentColumnNumber + 1)) from None
    except SsmlError as error:
        raise SsmlError(error.message, error.line, column(error.line, error.column)) from None
    except expat.ExpatError as error:
        message = expat.ErrorString(error.code)
        raise SsmlError(message, error.lineno, column(error.lineno, error.offset + 1)) from None
    text = "".join(reader.text)
    size = len(markup) - added - (len("</speak>") if added else 0)
    origin = [min(max(0, at - added), size) for at in reader.origin]
    return SsmlText(
        text,
        (*origin, size),
        tuple(m for _, m in sorted(reader.marks, key=lambda om: (om[1].start, -om[1].end, om[0]))),
        tuple(reader.pauses),
    )
