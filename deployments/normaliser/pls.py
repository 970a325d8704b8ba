"""W3C Pronunciation Lexicon (PLS 1.0) files in and out of pronunciation rules.

A ``<lexeme>`` holds one or more ``<grapheme>`` and an ``<alias>`` or a
``<phoneme>`` (the first one counts, as in other speech services); each grapheme
becomes a rule, matched with case and as a whole word. Phonemes are IPA
(``alphabet="ipa"``) or eSpeak's notation (``alphabet="x-espeak"``), on the lexicon
or on the phoneme itself.

Files come from clients, so they are parsed with no DTD, no entities and no
external references (defusedxml), and within a size: a billion-laughs file or an
external entity is refused before anything is expanded or fetched.
"""

from __future__ import annotations

from xml.etree.ElementTree import Element, ParseError, SubElement, tostring

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from deployments.reading import MAX_RULES, PronunciationRule, RuleError

NAMESPACE = "http://www.w3.org/2005/01/pronunciation-lexicon"
MAX_BYTES = 2 * 1024 * 1024
MAX_DEPTH = 16  # a lexicon is three deep; 10,000 nested elements are an attack
# The alphabet's name in a PLS file -> in a rule.
ALPHABETS = {"ipa": "ipa", "x-espeak": "espeak"}


class LexiconError(ValueError):
    """A file that is not a usable lexicon; the message says where."""


def _name(element: Element) -> str:
    return element.tag.rpartition("}")[2]


def _children(element: Element, name: str) -> list[Element]:
    return [child for child in element if _name(child) == name]


def _depth(root: Element) -> int:
    deepest, stack = 0, [(root, 1)]
    while stack:
        element, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in element)
    return deepest


def read(data: bytes) -> list[PronunciationRule]:
    """The rules of the PLS document ``data``."""
    if len(data) > MAX_BYTES:
        raise LexiconError(f"the lexicon is over {MAX_BYTES // (1024 * 1024)} MiB")
    try:
        root = fromstring(data, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as error:
        raise LexiconError(f"the lexicon declares a DTD or entities, refused: {error}") from None
    except ParseError as error:
        line, column = error.position
        raise LexiconError(
            f"the lexicon is not well-formed XML (line {line}, column {column})"
        ) from None
    if _depth(root) > MAX_DEPTH:
        raise LexiconError(f"the lexicon nests elements over {MAX_DEPTH} deep")
    if _name(root) != "lexicon":
        raise LexiconError(f"the document's root is <{_name(root)}>, not a PLS <lexicon>")
    default_alphabet = root.get("alphabet", "ipa")
    rules: list[PronunciationRule] = []
    for number, lexeme in enumerate(_children(root, "lexeme"), start=1):
        graphemes = [(g.text or "").strip() for g in _children(lexeme, "grapheme")]
        aliases = _children(lexeme, "alias")
        phonemes = _children(lexeme, "phoneme")
        where = f"lexeme {number}"
        if not any(graphemes):
            raise LexiconError(f"{where} has no <grapheme>")
        try:
            for grapheme in filter(None, graphemes):
                if aliases:
                    rule = PronunciationRule(
                        grapheme, "alias", alias=(aliases[0].text or "").strip()
                    )
                elif phonemes:
                    alphabet = phonemes[0].get("alphabet", default_alphabet)
                    if alphabet not in ALPHABETS:
                        raise LexiconError(
                            f"{where} uses the alphabet {alphabet!r}; "
                            f"use one of {', '.join(ALPHABETS)}"
                        )
                    rule = PronunciationRule(
                        grapheme,
                        "phoneme",
                        phoneme=(phonemes[0].text or "").strip(),
                        alphabet=ALPHABETS[alphabet],
                    )
                else:
                    raise LexiconError(f"{where} has neither <alias> nor <phoneme>")
                rules.append(rule)
        except RuleError as error:
            raise LexiconError(f"{where}: {error}") from None
        if len(rules) > MAX_RULES:
            raise LexiconError(f"the lexicon has over {MAX_RULES} rules")
    return rules


def write(rules: list[PronunciationRule], language: str = "en-US") -> bytes:
    """A PLS document holding ``rules`` (a lexeme each)."""
    root = Element("lexicon", {
        "version": "1.0", "xmlns": NAMESPACE, "alphabet": "ipa", "xml:lang": language,
    })  # fmt: skip
    for rule in rules:
        lexeme = SubElement(root, "lexeme")
        SubElement(lexeme, "grapheme").text = rule.string_to_replace
        if rule.type == "alias":
            SubElement(lexeme, "alias").text = rule.alias
        else:
            alphabet = next(name for name, ours in ALPHABETS.items() if ours == rule.alphabet)
            attributes = {} if alphabet == "ipa" else {"alphabet": alphabet}
            SubElement(lexeme, "phoneme", attributes).text = rule.phoneme
    document = '<?xml version="1.0" encoding="UTF-8"?>\n' + tostring(root, encoding="unicode")
    return document.encode()
