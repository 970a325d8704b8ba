"""A voice description, in English or Hindi, read into a few numbers.

``parse("a calm, deep male voice, speaking slowly")`` gives gender ``male``,
pitch -1, pace -1 (calm -0.5 and slowly -1, summed and clamped), and so on. The
reading is a word list, deterministic and documented:

- Each known word moves one or more traits: ``pitch`` (low -1 .. high +1),
  ``pace`` (slow .. fast), ``brightness`` (warm, dark .. bright, crisp) and
  ``expressiveness`` (flat, steady .. lively). Age words move pitch and pace.
- ``very``/``बहुत`` before a word makes it count 1.5 times, ``slightly``/
  ``थोड़ा`` half; ``not``/``नहीं`` turns the next word's effect around (``not
  fast`` is slow; ``not male`` is female).
- Contradictions: each trait is the sum of its words' effects, clamped to -1..1,
  so ``fast ... slow`` cancels out. Gender words (and Hindi's gendered ``वाली``/
  ``वाला``) are counted, and the majority wins; a tie goes to the last one said.
- Any other word is ignored and reported back (``ignored``), never an error.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

TRAITS = ("pitch", "pace", "brightness", "expressiveness")
Report = dict[str, str | int | float]  # what a built voice reports (x-service-voice-design)

# word -> effects; "gender" is +1 female, -1 male.
_EFFECTS: dict[str, dict[str, float]] = {}


def _words(effects: dict[str, float], *words: str) -> None:
    for word in words:
        _EFFECTS[word] = effects


_words({"gender": 1}, "female", "woman", "women", "girl", "lady", "feminine", "she", "her")
_words({"gender": 1}, "महिला", "औरत", "स्त्री", "लड़की", "नारी", "स्त्रैण", "वाली", "बोलती")
_words({"gender": -1}, "male", "man", "men", "boy", "guy", "gentleman", "masculine", "he", "his")
_words({"gender": -1}, "पुरुष", "आदमी", "लड़का", "मर्द", "वाला", "बोलता")
_words({"pitch": 1}, "high", "higher", "high-pitched", "squeaky", "shrill", "soprano", "thin")
_words({"pitch": 1}, "ऊँची", "ऊंची", "ऊँचा", "ऊंचा", "पतली", "पतला", "तीखी", "तीखा")
_words({"pitch": -1}, "low", "lower", "deep", "deeper", "bass", "baritone", "husky")
_words({"pitch": -1}, "gravelly", "heavy", "गहरी", "गहरा", "भारी", "मोटी", "मोटा", "भरी")
_words({"pace": 1}, "fast", "faster", "quick", "quickly", "rapid", "rapidly", "brisk", "briskly")
_words({"pace": 1}, "hurried", "hurriedly", "speedy", "urgent", "urgently")
_words({"pace": 1}, "तेज़", "तेज", "जल्दी", "फुर्तीली", "फुर्तीला", "फटाफट")
_words({"pace": -1}, "slow", "slower", "slowly", "unhurried", "leisurely", "deliberate")
_words({"pace": -1}, "धीमी", "धीमा", "धीरे", "धीरे-धीरे", "ठहराव")
_words({"pace": -0.5, "expressiveness": -0.5}, "calm", "calmly", "relaxed", "soothing", "serene")
_words({"pace": -0.5, "expressiveness": -0.5}, "gentle", "gently", "patient", "patiently")
_words({"pace": -0.5, "expressiveness": -0.5}, "शांत", "सौम्य", "आराम")
_words({"pace": 0.5, "expressiveness": 1}, "energetic", "excited", "excitedly", "enthusiastic")
_words({"pace": 0.5, "expressiveness": 1}, "enthusiastically", "cheerful", "cheerfully")
_words({"pace": 0.5, "expressiveness": 1}, "जोशीली", "जोशीला", "उत्साही", "ख़ुशमिज़ाज")
_words({"expressiveness": 1}, "expressive", "lively", "animated", "dramatic", "emotional")
_words({"expressiveness": 1}, "भावपूर्ण", "चंचल", "नाटकीय")
_words({"expressiveness": -1}, "flat", "monotone", "robotic", "steady", "neutral", "even")
_words({"expressiveness": -1}, "सपाट", "स्थिर", "एकसार")
_words({"brightness": 1}, "bright", "brightly", "crisp", "crisply", "clear", "clearly", "sharp")
_words({"brightness": 1}, "brilliant", "airy")
_words({"brightness": 1}, "साफ़", "साफ", "स्पष्ट", "खनकती", "खनकदार")
_words({"brightness": -1}, "warm", "warmly", "dark", "mellow", "soft", "softly", "smooth")
_words({"brightness": -1}, "rich", "velvety")
_words({"brightness": -1}, "मीठी", "मीठा", "मधुर", "नरम", "मुलायम", "गर्म")
_words({"pitch": 0.5, "pace": 0.3}, "young", "youthful", "teen", "teenage", "child", "kid")
_words({"pitch": 0.5, "pace": 0.3}, "युवा", "जवान", "नौजवान", "बच्चा", "बच्ची", "किशोर")
_words({"pitch": -0.5, "pace": -0.4}, "old", "older", "elderly", "aged", "senior", "mature")
_words({"pitch": -0.5, "pace": -0.4}, "बूढ़ी", "बूढ़ा", "बुज़ुर्ग", "बुजुर्ग", "वृद्ध", "प्रौढ़")

_SCALES = {
    **dict.fromkeys(("very", "extremely", "really", "super", "quite", "so"), 1.5),
    **dict.fromkeys(("बहुत", "काफ़ी", "काफी", "अत्यंत", "बेहद", "ज़्यादा", "ज्यादा"), 1.5),
    **dict.fromkeys(("slightly", "somewhat", "bit", "little", "mildly", "fairly"), 0.5),
    **dict.fromkeys(("थोड़ा", "थोड़ी", "हल्का", "हल्की", "कुछ"), 0.5),
    **dict.fromkeys(("not", "no", "never", "non", "नहीं", "न", "मत", "बिना"), -1.0),
}
# Words that carry no voice meaning but are expected in a description.
_FILLER = frozenset(
    "a an the and with of in to voice voiced speaker speaking speaks speak sounding sounds "
    "sound tone person who that is like but pitched paced pace pitch tempo bhi "
    "एक और की का के में से है हो आवाज़ आवाज वाले बोलने बोलें बोले स्वर लहजा लहजे".split()
)
_TOKEN = re.compile(r"[^\s.,;:!?()\[\]{}\"'।॥|/]+")


@dataclass(frozen=True)
class VoiceTraits:
    """What a description asks for: ``gender`` (``female``, ``male`` or None) and each
    trait of ``TRAITS`` in -1..1 (0 = as the voice is). ``matched`` lists the words
    read, ``ignored`` the rest."""

    gender: str | None = None
    pitch: float = 0.0
    pace: float = 0.0
    brightness: float = 0.0
    expressiveness: float = 0.0
    matched: tuple[str, ...] = ()
    ignored: tuple[str, ...] = field(default=())

    def applied(self) -> Report:
        """The traits as the response header reports them."""
        values: Report = {"gender": self.gender or "as-voice"}
        values.update({name: round(getattr(self, name), 2) for name in TRAITS})
        return values


def _tokens(text: str) -> list[str]:
    text = unicodedata.normalize("NFC", text).lower()
    tokens: list[str] = []
    for token in _TOKEN.findall(text):
        tokens.append(token)
        if "-" in token and token not in _EFFECTS:
            tokens[-1:] = [part for part in token.split("-") if part]
    return tokens


def parse(description: str) -> VoiceTraits:
    """The traits ``description`` asks for (see the module's rules)."""
    sums = dict.fromkeys(TRAITS, 0.0)
    genders: list[float] = []
    matched: list[str] = []
    ignored: list[str] = []
    scale = 1.0
    for token in _tokens(description):
        if token in _SCALES:
            scale *= _SCALES[token]
            matched.append(token)
            continue
        effects = _EFFECTS.get(token)
        if effects is None:
            if token not in _FILLER:
                ignored.append(token)
            continue
        matched.append(token)
        for trait, amount in effects.items():
            if trait == "gender":
                genders.append(amount if scale > 0 else -amount)
            else:
                sums[trait] += amount * scale
        scale = 1.0
    gender = None
    if genders:
        total = sum(genders)
        side = total if total else genders[-1]
        gender = "female" if side > 0 else "male"
    return VoiceTraits(
        gender=gender,
        **{trait: max(-1.0, min(1.0, value)) for trait, value in sums.items()},
        matched=tuple(matched),
        ignored=tuple(ignored),
    )
