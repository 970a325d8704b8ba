"""The value a text is read with, and the rule and SSML types it holds: plain data
that crosses deployment handles as it is."""

from __future__ import annotations

import pickle

import pytest

from deployments.normaliser.normaliser import TextNormaliser
from deployments.normaliser.ssml import parse
from deployments.reading import PronunciationRule, ReadingOptions, RuleError

SBI = PronunciationRule("SBI", "alias", alias="स्टेट बैंक ऑफ़ इंडिया")
ZOMATO = PronunciationRule("Zomato", "phoneme", phoneme="zoˈmɑːʈoː", case_sensitive=False)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"type": "alias", "string_to_replace": "x"}, "no alias"),
        ({"type": "phoneme", "string_to_replace": "x", "phoneme": "a", "alphabet": "cmu-arpabet"},
         "cmu-arpabet"),
        ({"type": "sub", "string_to_replace": "x"}, "'alias' or 'phoneme'"),
        ({"type": "alias", "string_to_replace": " ", "alias": "y"}, "empty"),
        ({"type": "alias", "string_to_replace": "x", "alias": "y", "case_sensitive": "no"},
         "true or false"),
        ({"type": "alias", "string_to_replace": "x" * 201, "alias": "y"}, "over 200"),
    ],
)  # fmt: skip
def test_a_rule_that_cannot_be_used_says_why(body: dict[str, object], says: str) -> None:
    with pytest.raises(RuleError, match=says):
        PronunciationRule.from_dict(body)


def test_rules_go_out_as_they_came_in() -> None:
    for rule in (SBI, ZOMATO, PronunciationRule("x", "phoneme", phoneme="a", alphabet="espeak")):
        assert PronunciationRule.from_dict(rule.as_dict()) == rule
    assert ZOMATO.as_dict() == {
        "type": "phoneme", "string_to_replace": "Zomato", "case_sensitive": False,
        "word_boundaries": True, "phoneme": "zoˈmɑːʈoː", "alphabet": "ipa",
    }  # fmt: skip


def test_espeak_phonemes_cannot_carry_brackets() -> None:
    with pytest.raises(RuleError, match="without"):
        PronunciationRule("x", "phoneme", phoneme="a]] [[b", alphabet="espeak")


def test_reading_options_cross_a_handle_whole_and_read_the_same_there() -> None:
    """What Serve's handles do to an argument (pickle) leaves the options equal, rules
    and SSML document included, and the normaliser reads the copy as the original."""
    markup = "<speak>SBI का <break time='300ms'/> खाता</speak>"
    options = ReadingOptions("hi", "high", (SBI, ZOMATO), parse(markup), read=False)
    copy = pickle.loads(pickle.dumps(options))
    assert copy == options and hash(copy) == hash(options)
    normaliser = TextNormaliser()
    assert normaliser.normalise(markup, copy) == normaliser.normalise(markup, options)


def test_the_defaults_read_plain_text_in_words_with_no_rules() -> None:
    options = ReadingOptions("hi")
    assert (options.quality, options.rules, options.ssml, options.read) == (
        "balanced", (), False, True
    )  # fmt: skip
    assert "पच्चीस" in TextNormaliser().normalise("25 SBI", options).text
