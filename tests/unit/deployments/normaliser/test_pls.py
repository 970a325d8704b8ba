"""PLS lexicons in and out, and hostile XML refused before it costs anything."""

from __future__ import annotations

import pytest

from deployments.normaliser import pls
from deployments.reading import PronunciationRule

LEXICON = """<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"
         alphabet="ipa" xml:lang="hi-IN">
  <lexeme><grapheme>SBI</grapheme><alias>स्टेट बैंक ऑफ़ इंडिया</alias></lexeme>
  <lexeme><grapheme>Iyer</grapheme><grapheme>IYER</grapheme><phoneme>ˈəjjər</phoneme></lexeme>
  <lexeme><grapheme>ज़ोमैटो</grapheme><phoneme alphabet="x-espeak">z'o:meItoU</phoneme></lexeme>
</lexicon>
""".encode()


def test_a_lexicon_reads_into_rules_a_grapheme_each() -> None:
    rules = pls.read(LEXICON)
    assert rules == [
        PronunciationRule("SBI", "alias", alias="स्टेट बैंक ऑफ़ इंडिया"),
        PronunciationRule("Iyer", "phoneme", phoneme="ˈəjjər"),
        PronunciationRule("IYER", "phoneme", phoneme="ˈəjjər"),
        PronunciationRule("ज़ोमैटो", "phoneme", phoneme="z'o:meItoU", alphabet="espeak"),
    ]


def test_rules_written_out_read_back_the_same() -> None:
    rules = pls.read(LEXICON)
    assert pls.read(pls.write(rules, "hi-IN")) == rules
    assert b'xml:lang="hi-IN"' in pls.write(rules, "hi-IN")


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lexicon [
 <!ENTITY a "lol">
 <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
 <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
 <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
 <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
 <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
 <!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">
 <!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">
 <!ENTITY i "&h;&h;&h;&h;&h;&h;&h;&h;&h;&h;">
]>
<lexicon version="1.0" alphabet="ipa">
<lexeme><grapheme>&i;</grapheme><alias>x</alias></lexeme></lexicon>
"""
EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE lexicon [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<lexicon version="1.0" alphabet="ipa">
<lexeme><grapheme>&secret;</grapheme><alias>x</alias></lexeme></lexicon>
"""
DEEP = b"<lexicon>" + b"<a>" * 10_000 + b"</a>" * 10_000 + b"</lexicon>"


@pytest.mark.parametrize(
    ("document", "says"),
    [
        (BILLION_LAUGHS, "DTD"),
        (EXTERNAL, "DTD"),
        (DEEP, "deep"),
        (b"<lexicon><lexeme><grapheme>x</grapheme>", "line 1"),
        (b"<speak>hi</speak>", "<speak>"),
        (b"x" * (pls.MAX_BYTES + 1), "MiB"),
    ],
)
def test_hostile_or_broken_lexicons_are_refused_saying_why(document: bytes, says: str) -> None:
    """A DTD is refused before any entity is expanded or fetched."""
    with pytest.raises(pls.LexiconError, match=says):
        pls.read(document)


@pytest.mark.parametrize(
    ("lexeme", "says"),
    [
        ("<grapheme>a</grapheme>", "neither <alias> nor <phoneme>"),
        ("<alias>x</alias>", "no <grapheme>"),
        ('<grapheme>a</grapheme><phoneme alphabet="x-sampa">a</phoneme>', "x-sampa"),
        ("<grapheme>a</grapheme><alias> </alias>", "no alias"),
    ],
)
def test_a_lexeme_that_cannot_be_used_is_named(lexeme: str, says: str) -> None:
    document = f'<lexicon alphabet="ipa"><lexeme>{lexeme}</lexeme></lexicon>'.encode()
    with pytest.raises(pls.LexiconError, match="lexeme 1") as error:
        pls.read(document)
    assert says in str(error.value)
