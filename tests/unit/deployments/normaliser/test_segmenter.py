from deployments.normaliser.cleaning import clean_text
from deployments.normaliser.normaliser import TextNormaliser, representation
from deployments.normaliser.segmenter import PROFILES, SegmentationProfile, segment
from deployments.reading import ReadingOptions

LONG_FIRST = "नमस्ते दोस्तों, आज हम बात करेंगे मौसम के बारे में और यह भी देखेंगे कि कल क्या होगा। कीमत 3.5 रुपये है!"


def texts(text: str, quality: str) -> list[str]:
    return [s.text for s in segment(text, PROFILES[quality])]


def test_sentences_split_at_danda_and_punctuation_not_decimals() -> None:
    assert texts("पहला वाक्य। दूसरा? तीसरा! दाम 3.5 है.", "high") == [
        "पहला वाक्य।",
        "दूसरा?",
        "तीसरा!",
        "दाम 3.5 है.",
    ]


def test_long_first_sentence_is_cut_at_its_first_clause() -> None:
    assert texts(LONG_FIRST, "balanced")[:2] == [
        "नमस्ते दोस्तों,",
        "आज हम बात करेंगे मौसम के बारे में और यह भी देखेंगे कि कल क्या होगा।",
    ]
    assert texts(LONG_FIRST, "high")[0].endswith("होगा।")
    assert texts("छोटा, वाक्य।", "balanced") == ["छोटा, वाक्य।"]
    assert texts("नमस्ते, आज मौसम बहुत अच्छा है।", "balanced") == ["नमस्ते,", "आज मौसम बहुत अच्छा है।"]
    assert texts("छोटा, वाक्य।", "fast") == ["छोटा,", "वाक्य।"]


def test_offsets_point_into_the_text_and_long_runs_are_capped() -> None:
    text = "  शब्द " * 200 + "। अंत।"
    segments = segment(text, SegmentationProfile(first_clause_min=None, max_chars=100))
    assert all(len(s.text) <= 100 for s in segments)
    for i, s in enumerate(segments):
        assert s.index == i and text[s.start : s.end] == s.text
    assert segments[-1].text == "अंत।"


def test_cleaning_normalises_and_removes_invisible_characters() -> None:
    assert clean_text("क\u200bख\u202e\x07\nग") == "कख ग"
    assert clean_text("e\u0301") == "\u00e9"
    assert clean_text("क्\u200dष") == "क्\u200dष"  # ZWJ shapes conjuncts: kept
    assert clean_text("bad \ud800 text") == "bad  text"  # the API refuses it first


def test_normaliser_reports_representation() -> None:
    normalised = TextNormaliser().normalise("नमस्ते दुनिया", ReadingOptions("hi"))
    assert (normalised.representation, normalised.language) == ("devanagari", "hi")
    assert representation("hello world", "en") == "latin"
    assert representation("namaste duniya", "hi") == "latin"
    assert representation("ভারত", "bn") == "native"
    assert TextNormaliser().normalise(" \u200b ", ReadingOptions("hi")).segments == ()


def test_a_first_clause_cut_for_first_audio_says_it_joins_the_next() -> None:
    """The cut is a latency choice the Synthesiser may undo: only the clause says so."""
    segments = segment(LONG_FIRST, PROFILES["balanced"])
    assert [s.joins_next for s in segments] == [True] + [False] * (len(segments) - 1)
    assert not any(s.joins_next for s in segment(LONG_FIRST, PROFILES["high"]))
    # a clause with nothing after it is a whole segment
    assert [s.joins_next for s in segment("छोटा,   ", PROFILES["fast"])] == [False]


def test_the_normaliser_keeps_the_mark_on_the_first_clause() -> None:
    said = TextNormaliser().normalise(
        "नमस्ते, आज मौसम बहुत अच्छा है। कल बारिश होगी।", ReadingOptions("hi", "balanced")
    )
    assert [(s.text, s.joins_next) for s in said.segments] == [
        ("नमस्ते,", True),
        ("आज मौसम बहुत अच्छा है।", False),
        ("कल बारिश होगी।", False),
    ]
