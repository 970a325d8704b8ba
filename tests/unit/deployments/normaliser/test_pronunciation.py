"""Pronunciation rules matched in the text as the client wrote it."""

from __future__ import annotations

import pytest

from deployments.normaliser.pronunciation import Piece, PronunciationRule, RuleError, RuleSet

SBI = PronunciationRule("SBI", "alias", alias="स्टेट बैंक ऑफ़ इंडिया")
ZOMATO = PronunciationRule("Zomato", "phoneme", phoneme="zoˈmɑːʈoː", case_sensitive=False)
RAM = PronunciationRule("राम", "alias", alias="श्री राम")


def matched(text: str, *rules: PronunciationRule) -> list[tuple[str, str | None]]:
    return [(text[p.start : p.end], p.rule and p.rule.string_to_replace)
            for p in RuleSet(list(rules)).split(text)]  # fmt: skip


def test_pieces_cover_the_text_in_order() -> None:
    assert matched("SBI और Zomato", SBI, ZOMATO) == [
        ("SBI", "SBI"), (" और ", None), ("Zomato", "Zomato"),
    ]  # fmt: skip
    assert RuleSet([]).split("") == [Piece(0, 0, None)]
    assert matched("कुछ नहीं", SBI) == [("कुछ नहीं", None)]


def test_case_matters_unless_the_rule_says_not() -> None:
    assert matched("sbi ZOMATO", SBI, ZOMATO) == [("sbi ", None), ("ZOMATO", "Zomato")]


def test_whole_words_only_in_any_script() -> None:
    """SBIN is not SBI; रामा is not राम (its ा is a mark, not a letter)."""
    assert matched("SBIN रामा", SBI, RAM) == [("SBIN रामा", None)]
    assert matched("राम, SBI.", SBI, RAM) == [
        ("राम", "राम"),
        (", ", None),
        ("SBI", "SBI"),
        (".", None),
    ]
    anywhere = PronunciationRule("bank", "alias", alias="बैंक", word_boundaries=False)
    assert matched("netbanking", anywhere) == [("net", None), ("bank", "bank"), ("ing", None)]


def test_the_longest_match_wins_then_the_rule_listed_first() -> None:
    doctor = PronunciationRule("Dr.", "alias", alias="डॉक्टर", word_boundaries=False)
    iyer = PronunciationRule("Dr. Iyer", "phoneme", phoneme="ɖɔkʈər əjjər", word_boundaries=False)
    assert matched("Dr. Iyer, Dr. Rao", doctor, iyer) == [
        ("Dr. Iyer", "Dr. Iyer"), (", ", None), ("Dr.", "Dr."), (" Rao", None),
    ]  # fmt: skip
    first = PronunciationRule("SBI", "alias", alias="एस बी आई")
    assert RuleSet([first, SBI]).split("SBI")[0].rule == first


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
