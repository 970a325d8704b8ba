"""SSML read safely: the text a listener hears, where each character was in the markup,
what the elements say about it, and the pauses; hostile or broken markup refused fast,
saying where."""

from __future__ import annotations

import time

import pytest

from deployments.normaliser.ssml import MAX_PAUSE_MS, SsmlError, parse
from deployments.reading import Mark, Pause


def test_text_marks_and_pauses_with_offsets_into_the_markup() -> None:
    markup = (
        '<speak version="1.0" xmlns="http://www.w3.org/2001/10/synthesis">'
        '<p>नमस्ते, <sub alias="स्टेट बैंक ऑफ़ इंडिया">SBI</sub> में आपका स्वागत है।'
        '<break time="1.5s"/>OTP <say-as interpret-as="digits">4821</say-as> है।</p>'
        '<p><phoneme alphabet="ipa" ph="əjjər">Iyer</phoneme> जी &amp; <prosody rate="slow">'
        '<emphasis level="strong">धन्यवाद</emphasis></prosody><break strength="weak"/></p>'
        "</speak>"
    )
    read = parse(markup)
    assert read.text == "नमस्ते, SBI में आपका स्वागत है।OTP 4821 है। Iyer जी & धन्यवाद "
    for mark, said, element in [
        (read.marks[0], "SBI", "sub"),
        (read.marks[1], "4821", "say-as"),
        (read.marks[2], "Iyer", "phoneme"),
    ]:
        assert read.text[mark.start : mark.end] == said and mark.element == element
        start, end = read.span_in_input(mark.start, mark.end)
        assert markup[start:end] == said  # the text node's own place in the markup
    assert read.marks[0].get("alias") == "स्टेट बैंक ऑफ़ इंडिया"
    assert read.marks[1].get("interpret-as") == "digits"
    assert (read.marks[2].get("alphabet"), read.marks[2].get("ph")) == ("ipa", "əjjər")
    assert [m.element for m in read.marks[3:]] == ["prosody", "emphasis"]
    amp = read.text.index("&")
    assert markup[slice(*read.span_in_input(amp, amp + 1))] == "&"[:1]  # the entity's place
    assert read.pauses == (
        Pause(read.text.index("OTP"), 1500),
        Pause(read.text.index("Iyer"), 500),  # a paragraph's end
        Pause(len(read.text) - 1, 200),  # before the space the paragraph's end leaves
        Pause(len(read.text), 500),
    )


def test_every_break_form() -> None:
    for attribute, ms in [
        ('time="250ms"', 250),
        ('time="2s"', 2000),
        ('time="60s"', MAX_PAUSE_MS),
        ('strength="x-strong"', 1000),
        ("", 400),
    ]:
        assert parse(f"<speak>a<break {attribute}/>b</speak>").pauses == (Pause(1, ms),)


@pytest.mark.parametrize(
    ("markup", "says", "line"),
    [
        ("<speak>a <b>b</b></speak>", "<b> is not supported", 1),
        ("<speak>a</speak><speak>b</speak>", "junk after document element", 1),
        ('<speak><sub alias="x"><break/>a</sub></speak>', "<sub> holds text only", 1),
        ('<speak><prosody rate="sluggish">a</prosody></speak>', "<prosody> rate", 1),
        ("<speak><sub alias='x'> </sub></speak>", "holds no text", 1),
        ("<speak>\n  <sub>x</sub></speak>", "<sub> needs an alias", 2),
        ('<speak><phoneme alphabet="cmu" ph="x">a</phoneme></speak>', "alphabet", 1),
        ('<speak><say-as interpret-as="shout">a</say-as></speak>', "interpret-as", 1),
        ('<speak><break time="soon"/></speak>', "500ms or 1.5s", 1),
        ("<speak>a <break>b</break></speak>", "holds no text", 1),
        ("<speak>\n\n<p>a</speak>", "mismatched tag", 3),
        ("<speak>a", "no element found", 1),
        ("text with a <break>", "mismatched tag", 1),
        # a few characters asking for minutes of silence
        ("<speak>" + 'a<break time="10s"/>' * 13 + "</speak>", "more than 120 s", 1),
        ("<speak>" + "<p>a</p>" * 241 + "</speak>", "more than 120 s", 1),
    ],
)
def test_broken_markup_says_what_and_where(markup: str, says: str, line: int) -> None:
    with pytest.raises(SsmlError, match=says) as refused:
        parse(markup)
    assert refused.value.line == line and refused.value.column >= 1


@pytest.mark.parametrize(
    "markup",
    [
        # billion laughs
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        + "".join(
            f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10 if i > 1 else "&lol;" * 10}">'
            for i in range(1, 10)
        )
        + "]><speak>&lol9;</speak>",
        # an external entity
        '<!DOCTYPE speak [<!ENTITY x SYSTEM "file:///etc/passwd">]><speak>&x;</speak>',
        # a parameter entity from outside
        '<!DOCTYPE speak [<!ENTITY % p SYSTEM "http://127.0.0.1:9/x.dtd"> %p;]><speak/>',
        # nesting 10,000 deep
        "<speak>" + "<prosody>" * 10_000 + "a" + "</prosody>" * 10_000 + "</speak>",
    ],
    ids=["billion-laughs", "external-entity", "parameter-entity", "deep"],
)
def test_hostile_markup_is_refused_fast(markup: str) -> None:
    """Refused before it is expanded or walked: bounded in this process's CPU time (an
    expansion takes minutes of it), not the wall clock a busy host stretches."""
    started = time.process_time()
    with pytest.raises(SsmlError):
        parse(markup)
    assert time.process_time() - started < 1.0


def test_text_without_speak_is_read_as_if_speak_held_it() -> None:
    """ElevenLabs' users write ``<break/>`` into plain text: offsets, lines and
    columns stay those of what was sent."""
    markup = 'नमस्ते <break time="1s"/>दुनिया'
    read = parse(markup)
    assert read.text == "नमस्ते दुनिया" and read.pauses == (Pause(7, 1000),)
    assert markup[slice(*read.span_in_input(7, 13))] == "दुनिया"
    assert read.origin[-1] == len(markup)
    with pytest.raises(SsmlError) as refused:
        parse("ab <break time='x'/>")
    assert (refused.value.line, refused.value.column) == (1, 4)


def test_a_mark_is_accepted_and_says_nothing() -> None:
    read = parse('<speak>a<mark name="here"/> b</speak>')
    assert read.text == "a b" and read.marks == () and read.pauses == ()
    assert Mark(0, 1, "sub", (("alias", "x"),)).get("alias") == "x"
