"""The description reader: its stated rules, in English and Hindi."""

from __future__ import annotations

import pytest

from deployments.voice_design.description import parse


def test_the_issue_s_english_example() -> None:
    traits = parse("a calm, deep male voice, speaking slowly")
    assert traits.gender == "male" and traits.pitch == -1.0
    assert traits.pace == -1.0  # calm -0.5 and slowly -1, clamped
    assert traits.expressiveness == -0.5 and traits.ignored == ()


def test_the_issue_s_hindi_example() -> None:
    traits = parse("तेज़ बोलने वाली युवा महिला आवाज़")
    assert traits.gender == "female"
    assert traits.pace == pytest.approx(1.0)  # तेज़ +1, युवा +0.3, clamped
    assert traits.pitch == pytest.approx(0.5)  # young
    assert traits.ignored == ()


def test_hindi_grammar_says_the_gender() -> None:
    assert parse("धीरे बोलने वाला").gender == "male"
    assert parse("गहरी आवाज़ में धीरे बोलती").gender == "female"


def test_unknown_words_are_ignored_and_reported() -> None:
    traits = parse("a deep voice like a radio host on a foggy morning")
    assert traits.pitch == -1.0
    assert set(traits.ignored) == {"radio", "host", "on", "foggy", "morning"}


@pytest.mark.parametrize(
    ("text", "trait", "value"),
    [
        ("fast but slow", "pace", 0.0),  # opposites cancel
        ("very fast", "pace", 1.0),  # 1.5, clamped
        ("slightly fast", "pace", 0.5),
        ("not fast", "pace", -1.0),
        ("बहुत धीमी", "pace", -1.0),
        ("थोड़ी ऊँची", "pitch", 0.5),
        ("warm and soft", "brightness", -1.0),
        ("crisp", "brightness", 1.0),
        ("lively, expressive", "expressiveness", 1.0),
        ("monotone", "expressiveness", -1.0),
        ("elderly", "pitch", -0.5),
    ],
)
def test_rules(text: str, trait: str, value: float) -> None:
    assert getattr(parse(text), trait) == pytest.approx(value)


def test_gender_goes_to_the_majority_and_a_tie_to_the_last_word() -> None:
    assert parse("a woman's voice, not a man's, a female narrator").gender == "female"
    assert parse("male or female").gender == "female"
    assert parse("female or male").gender == "male"
    assert parse("not male").gender == "female"
    assert parse("a deep voice").gender is None


def test_the_reading_is_deterministic_and_never_fails() -> None:
    for text in ["", "   ", "!!!", "🙂 voice", "a" * 500, "HIGH-PITCHED Girl"]:
        assert parse(text) == parse(text)
    assert parse("HIGH-PITCHED Girl").pitch == 1.0
    assert parse("HIGH-PITCHED Girl").gender == "female"
