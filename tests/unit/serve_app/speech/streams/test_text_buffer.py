import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deployments.reading import PronunciationRule
from serve_app.speech.streams.text_buffer import Piece, TextBuffer


def feed(buffer: TextBuffer, *parts: str) -> list[str]:
    return [p.text for part in parts for p in buffer.add(part)]


def test_first_clause_then_sentences() -> None:
    buffer = TextBuffer()
    assert feed(buffer, "नमस्ते", " दोस्तों,") == []  # the comma is not yet followed by a space
    assert feed(buffer, " आज", " मौसम", " अच्छा", " है।") == ["नमस्ते दोस्तों,", " आज मौसम अच्छा है।"]
    assert feed(buffer, " Price is 3.", "5 rupees.") == []
    assert feed(buffer, " Next") == [" Price is 3.5 rupees."]
    assert buffer.flush() == Piece(" Next", 54)


def test_schedule_cuts_long_runs_at_word_boundaries() -> None:
    buffer = TextBuffer(schedule=(10, 20))
    pieces = feed(buffer, "one two three four five six seven eight nine ten eleven")
    assert pieces[0] == "one two " and all(p.endswith(" ") for p in pieces)
    assert all(len(p) <= 20 for p in pieces[1:])
    rest = buffer.flush()
    assert "".join(pieces) + (rest.text if rest else "") == (
        "one two three four five six seven eight nine ten eleven"
    )


def test_offsets_cover_the_input_exactly_once() -> None:
    buffer = TextBuffer(schedule=(15,))
    text = "यह पहला वाक्य है। यह दूसरा, और लंबा वाक्य है जो चलता रहता है बिना रुके"
    pieces = [p for word in text.split(" ") for p in buffer.add(word + " ")]
    if (last := buffer.flush()) is not None:
        pieces.append(last)
    whole = text + " "
    for piece in pieces:
        assert whole[piece.start : piece.start + len(piece.text)] == piece.text
    assert "".join(p.text for p in pieces).rstrip() == text


def test_try_trigger_and_whitespace_only() -> None:
    buffer = TextBuffer()
    buffer.add("short")
    assert buffer.try_trigger() is None
    buffer.add(" words that together pass the minimum and")
    piece = buffer.try_trigger()
    assert piece is not None and piece.text.endswith("minimum ")
    assert len(buffer) == len("and")
    blank = TextBuffer()
    blank.add("   ")
    assert blank.flush() is None
    with pytest.raises(ValueError):
        TextBuffer(schedule=())


def test_ssml_is_never_cut_inside_a_tag_or_an_element() -> None:
    """A session of SSML: pieces are whole (``speak`` aside), so each reads on its own."""
    buffer = TextBuffer(schedule=(10,), markup=True)
    assert feed(buffer, '<speak><prosody rate="slow">पहला वाक्य। दूसरा') == []
    assert feed(buffer, " वाक्य।</prosody> अब <break time=", '"1s"/> तीसरा। ') == [
        ' <prosody rate="slow">पहला वाक्य। दूसरा वाक्य।</prosody> अब <break time="1s"/> तीसरा।'
    ]
    assert feed(buffer, "<sub alias='x'>a b c d e f</sub>") == []  # past the schedule, whole
    rest = buffer.flush()
    assert rest is not None and rest.text == "<sub alias='x'>a b c d e f</sub>"


def test_ssml_markup_alone_waits_for_the_next_text() -> None:
    """A ``break`` flushed by itself is no piece (nothing to say): it stays buffered
    and is heard before the next text."""
    buffer = TextBuffer(markup=True)
    assert feed(buffer, "<speak>") == [] and buffer.flush() is None
    assert feed(buffer, '<break time="2s"/>') == [] and buffer.flush() is None
    assert len(buffer) == len('<speak><break time="2s"/>')
    assert feed(buffer, "फिर मिलेंगे। ") == [' <break time="2s"/>फिर मिलेंगे।']


def test_a_rule_s_match_is_never_cut() -> None:
    """``Dr. Iyer`` looks like a sentence end after ``Dr.``: a session whose dictionary
    has that rule waits for the rest; text that does not go on as the rule does is
    cut as before."""
    rules = [
        PronunciationRule("Dr. Iyer", "alias", alias="डॉक्टर अय्यर"),
        PronunciationRule("state bank", "alias", alias="स्टेट बैंक", case_sensitive=False),
    ]
    buffer = TextBuffer(schedule=(12,), rules=rules)
    assert feed(buffer, "मिलिए Dr.", " ") == []  # "Iyer" may follow
    # "Dr. S" is not "Dr. Iyer": cut after "Dr." (the last sentence end, as always)
    assert feed(buffer, "Iyer से। फिर Dr. S") == ["मिलिए Dr. Iyer से। फिर Dr."]
    assert feed(buffer, "harma से।") == [" Sharma से।"]
    assert feed(buffer, "the STATE", " BANK of India") == ["the ", "STATE BANK "]
    assert feed(TextBuffer(schedule=(12,)), "the STATE BANK of India")[0] == "the STATE "


RULES = [
    PronunciationRule("a. b", "alias", alias="x"),
    PronunciationRule("B, a", "alias", alias="y", case_sensitive=False),
]
LONGEST = 4


@settings(max_examples=200, deadline=None)
@given(
    messages=st.lists(st.text(alphabet="ab .,।<>/pB", max_size=40), max_size=40),
    markup=st.booleans(),
    auto=st.booleans(),
)
def test_messages_cost_what_they_hold_and_every_character_is_cut_once(
    messages: list[str], markup: bool, auto: bool
) -> None:
    """The work of N messages is linear in their characters (no rescans of what is
    buffered), a constant a message aside; without markup the pieces and what is left
    are the input, each character once, at its offset."""
    buffer = TextBuffer(schedule=None if auto else (8, 16), markup=markup, rules=RULES)
    pieces = [p for message in messages for p in buffer.add(message)]
    total = sum(len(m) for m in messages)
    assert buffer.examined <= 20 * total + len(messages) * (4 * LONGEST**2 + 40)
    if not markup:
        rest = buffer.flush()
        whole = "".join(messages)
        for piece in [*pieces, *([rest] if rest else [])]:
            assert whole[piece.start : piece.start + len(piece.text)] == piece.text
        said = "".join(p.text for p in pieces) + (rest.text if rest else "")
        assert said.strip() == whole.strip() or not whole.strip()


def test_ten_thousand_rules_and_a_flood_of_sentence_ends_cost_the_text_once() -> None:
    """What stalled a replica for a minute: a dictionary of 10,000 rules whose strings
    hold ". ", and messages of thousands of sentence ends, each inside a match. Every
    message's work is its own length, however much is buffered."""
    rules = [PronunciationRule(f"q{i}. z", "alias", alias="x") for i in range(10_000)]
    rules.append(PronunciationRule("a. a", "alias", alias="y"))
    costs = []
    for size in (400, 800, 1600):
        buffer = TextBuffer(rules=rules)
        for _ in range(4):
            buffer.add("a. " * size)
        costs.append(buffer.examined)
        assert len(buffer) == 4 * 3 * size  # no cut may split "a. a": all of it waits
    assert costs[1] <= 2.1 * costs[0] and costs[2] <= 2.1 * costs[1]  # linear
    assert costs[2] <= 10 * 4 * 3 * 1600


def test_a_long_message_with_no_sentence_end_is_read_once() -> None:
    buffer = TextBuffer()
    pieces = buffer.add("शब्द " * 12_800)  # 64,000 characters, cut by the schedule
    assert len(pieces) > 200 and all(len(p.text) <= 290 for p in pieces)
    assert buffer.examined <= 3 * 64_000
