"""The text around a request: read as the request is, in the same call, its nearest
words given to the first and last segment."""

from __future__ import annotations

from deployments.messages import Surroundings
from deployments.normaliser.normaliser import TextNormaliser
from deployments.normaliser.surroundings import SURROUNDING_READ_CHARS, nearest
from deployments.reading import ReadingOptions


def test_the_text_around_is_read_as_the_request_and_given_to_its_ends() -> None:
    normaliser = TextNormaliser()
    options = ReadingOptions("hi")
    text = "पहला वाक्य। दूसरा वाक्य।"
    alone = normaliser.normalise(text, options)
    around = Surroundings("कुल ₹500 हुए।", "अगले 2 दिन।")
    read = normaliser.normalise_around(text, options, around)
    assert len(read.segments) == len(alone.segments) == 2
    assert read.text == alone.text and read.expansion == alone.expansion  # not spoken
    first, last = read.segments
    assert first.previous_text == "कुल पाँच सौ रुपये हुए।" and first.next_text == ""
    assert last.next_text == "अगले दो दिन।" and last.previous_text == ""


def test_no_text_around_leaves_the_request_as_it_is() -> None:
    normaliser = TextNormaliser()
    options = ReadingOptions("hi")
    text = "नमस्ते।"
    assert normaliser.normalise_around(text, options, Surroundings()) == normaliser.normalise(
        text, options
    )


def test_surrounding_text_read_out_long_is_cut_to_the_words_nearest_the_request() -> None:
    """500 digits of previous_text read out are thousands of characters; the engine
    reads the few words nearest the request, so only those are kept (it cost 3.7x
    the request's own Synthesiser time, unbilled)."""
    words = " ".join(f"शब्द{i}" for i in range(400))
    before, after = nearest(words, last=True), nearest(words, last=False)
    assert len(before) <= SURROUNDING_READ_CHARS and words.endswith(before)
    assert len(after) <= SURROUNDING_READ_CHARS and words.startswith(after)
    assert before.split(" ")[0] in words.split(" ")  # whole words, not a cut one
    assert after.split(" ")[-1] in words.split(" ")
    assert nearest("छोटा", last=True) == "छोटा"
