"""Where each normalised word came from in the input as written."""

from __future__ import annotations

from deployments.normaliser.normaliser import TextNormaliser
from deployments.normaliser.sources import word_sources
from deployments.reading import ReadingOptions


def mapped(written: str, said: str, offset: int = 0) -> list[tuple[str, str]]:
    full = " " * offset + written
    return [(said[a:b], full[c:d]) for a, b, c, d in word_sources(written, said, offset)]


def test_words_left_alone_map_to_themselves() -> None:
    assert mapped("मुझे चावल चाहिए।", "मुझे चावल चाहिए।") == [
        ("मुझे", "मुझे"),
        ("चावल", "चावल"),
        ("चाहिए।", "चाहिए।"),
    ]


def test_a_reading_maps_every_word_it_made_to_what_it_read() -> None:
    assert mapped("मुझे 25 किलो", "मुझे पच्चीस किलो") == [
        ("मुझे", "मुझे"),
        ("पच्चीस", "25"),
        ("किलो", "किलो"),
    ]
    assert mapped("Paid $5 today", "Paid five dollars today", offset=3) == [
        ("Paid", "Paid"),
        ("five", "$5"),
        ("dollars", "$5"),
        ("today", "today"),
    ]


def test_word_for_word_where_the_counts_agree() -> None:
    assert mapped("mujhe chawal chahiye", "मुझे चवल चाहिए") == [
        ("मुझे", "mujhe"),
        ("चवल", "chawal"),
        ("चाहिए", "chahiye"),
    ]


def test_case_and_punctuation_do_not_make_another_word() -> None:
    assert mapped("HELLO, World!", "hello world") == [("hello", "HELLO,"), ("world", "World!")]


def test_a_word_with_nothing_written_for_it_takes_its_neighbour() -> None:
    assert mapped("Rs 5", "five rupees only") == [
        ("five", "Rs 5"),
        ("rupees", "Rs 5"),
        ("only", "Rs 5"),
    ]
    assert word_sources("", "") == ()


def test_the_normaliser_s_segments_carry_their_sources() -> None:
    text = "डॉ. राव ने ₹1,250 दिए। फिर 3 बजे आए।"
    for segment in TextNormaliser().normalise(text, ReadingOptions("hi")).segments:
        assert segment.sources
        for a, b, c, d in segment.sources:
            assert segment.start <= c < d <= segment.end
            assert segment.source_of(a, b) == (c, d)
    spans = {
        text[c:d]
        for segment in TextNormaliser().normalise(text, ReadingOptions("hi")).segments
        for *_, c, d in segment.sources
    }
    assert {"₹1,250", "3", "राव"} <= spans


def test_without_reading_numbers_and_symbols_stay_as_written() -> None:
    """``apply_text_normalization: off``: cleaned and cut into sentences, not read."""
    normaliser = TextNormaliser()
    text = "मुझे 25 किलो चावल चाहिए, ₹1,250 में।  Dr. Rao"
    unread = normaliser.normalise(text, ReadingOptions("hi", read=False))
    assert "25" in unread.text and "₹1,250" in unread.text and "पच्चीस" not in unread.text
    assert "  " not in unread.text  # still cleaned
    assert len(unread.segments) == len(normaliser.normalise(text, ReadingOptions("hi")).segments)
    assert "पच्चीस" in normaliser.normalise(text, ReadingOptions("hi")).text
