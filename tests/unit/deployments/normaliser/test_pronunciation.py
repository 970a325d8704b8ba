"""Pronunciation rules matched in the text as the client wrote it."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from deployments.normaliser.normaliser import TextNormaliser
from deployments.normaliser.pronunciation import RuleSet, Span
from deployments.reading import PronunciationRule, ReadingOptions

SBI = PronunciationRule("SBI", "alias", alias="स्टेट बैंक ऑफ़ इंडिया")
ZOMATO = PronunciationRule("Zomato", "phoneme", phoneme="zoˈmɑːʈoː", case_sensitive=False)
RAM = PronunciationRule("राम", "alias", alias="श्री राम")


def matched(text: str, *rules: PronunciationRule) -> list[tuple[str, str | None]]:
    return [(text[p.start : p.end], p.rule and p.rule.string_to_replace)
            for p in RuleSet(list(rules)).split(text)]  # fmt: skip


def test_spans_cover_the_text_in_order() -> None:
    assert matched("SBI और Zomato", SBI, ZOMATO) == [
        ("SBI", "SBI"), (" और ", None), ("Zomato", "Zomato"),
    ]  # fmt: skip
    assert RuleSet([]).split("") == [Span(0, 0, None)]
    assert matched("कुछ नहीं", SBI) == [("कुछ नहीं", None)]


def test_case_matters_unless_the_rule_says_not() -> None:
    assert matched("sbi ZOMATO", SBI, ZOMATO) == [("sbi ", None), ("ZOMATO", "Zomato")]


def test_whole_words_only_in_any_script() -> None:
    """SBIN is not SBI; रामा is not राम (its ा is a mark, not a letter); a danda
    ends a word as a full stop does."""
    assert matched("SBIN रामा", SBI, RAM) == [("SBIN रामा", None)]
    assert matched("राम, SBI.", SBI, RAM) == [
        ("राम", "राम"),
        (", ", None),
        ("SBI", "SBI"),
        (".", None),
    ]
    ok = PronunciationRule("OK", "alias", alias="ओके")
    hindi_ok = PronunciationRule("ओके", "alias", alias="ठीक है")
    assert matched("सब OK। फिर ओके॥", ok, hindi_ok) == [
        ("सब ", None),
        ("OK", "OK"),
        ("। फिर ", None),
        ("ओके", "ओके"),
        ("॥", None),
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


def alias(string: str, said: str, **flags: bool) -> PronunciationRule:
    return PronunciationRule(string, "alias", alias=said, **flags)


BRANDS = (
    alias("SBI", "एस बी आई"),
    alias("Zomato", "ज़ोमैटो", case_sensitive=False),
    alias("Dr. Iyer", "डॉक्टर अय्यर"),
    alias("Rs 5", "5 रुपये"),
)


def test_an_alias_is_read_in_its_place_like_the_text_around_it() -> None:
    text = "मेरा SBI खाता 25 तारीख़ को ZOMATO से जुड़ा, Rs 5 कटे।"
    said = TextNormaliser().normalise(text, ReadingOptions("hi", rules=BRANDS))
    # the alias in place, its digits read as numbers are; the rest as without rules
    assert said.text == "मेरा एस बी आई खाता पच्चीस तारीख़ को ज़ोमैटो से जुड़ा, पाँच रुपये कटे।"
    assert [(text[a.start : a.end], a.rule.alias) for a in said.applied] == [
        ("SBI", "एस बी आई"),
        ("ZOMATO", "ज़ोमैटो"),
        ("Rs 5", "5 रुपये"),
    ]
    assert (said.segments[0].start, said.segments[-1].end) == (0, len(text))


def test_rules_match_the_text_as_written_and_offsets_stay_the_input_s() -> None:
    """``Dr. Iyer``'s full stop no longer ends a sentence; ``SBIs`` is another word; the
    segments still say where in the input (with invisible characters in it) they are."""
    text = "Dr. Iyer\u200b ने ₹500 लिए। SBIs नहीं, SBI हाँ।"
    said = TextNormaliser().normalise(text, ReadingOptions("hi", rules=BRANDS))
    assert [text[s.start : s.end] for s in said.segments] == [
        "Dr. Iyer\u200b ने ₹500 लिए।",
        "SBIs नहीं, SBI हाँ।",
    ]
    assert said.segments[0].text == "डॉक्टर अय्यर ने पाँच सौ रुपये लिए।"
    assert "एस बी आई हाँ" in said.segments[1].text and "SBIs" not in said.text
    assert [text[a.start : a.end] for a in said.applied] == ["Dr. Iyer", "SBI"]


def test_no_rules_no_change() -> None:
    text = "SBI का ATM 24 घंटे खुला है।"
    normaliser = TextNormaliser()
    hindi = ReadingOptions("hi")
    assert normaliser.normalise(text, ReadingOptions("hi", rules=())) == normaliser.normalise(
        text, hindi
    )
    hdfc = ReadingOptions("hi", rules=(alias("HDFC", "एच डी एफ सी"),))
    unmatched = normaliser.normalise(text, hdfc)
    assert unmatched.text == normaliser.normalise(text, hindi).text and unmatched.applied == ()


def test_a_phoneme_rule_marks_the_reading_of_its_match() -> None:
    """The match is read as it would be (Iyer in Devanagari inside Hindi) and its
    segment says where in that reading the rule's phonemes belong."""
    iyer = PronunciationRule("Iyer", "phoneme", phoneme="əjjər")
    rahul = PronunciationRule("राहुल", "phoneme", phoneme="S'a:m", alphabet="espeak")
    text = "Dr. Iyer और राहुल ने ₹500 दिए।"
    said = TextNormaliser().normalise(text, ReadingOptions("hi", rules=(iyer, rahul)))
    (segment,) = said.segments
    assert segment.text == "डॉक्टर अय्यर और राहुल ने पाँच सौ रुपये दिए।"
    assert [(segment.text[p.start : p.end], p.phonemes, p.alphabet) for p in segment.phonemes] == [
        ("अय्यर", "əjjər", "ipa"),
        ("राहुल", "S'a:m", "espeak"),
    ]
    assert [text[a.start : a.end] for a in said.applied] == ["Iyer", "राहुल"]
    assert (segment.start, segment.end) == (0, len(text))


def regex_split(text: str, rules: list[PronunciationRule]) -> list[Span]:
    """What rules matched as one regular expression of alternatives (longest string
    first, then listed order): the meaning the trie keeps, at any number of rules."""
    word = r"[\w\u0300-\u036f\u0900-\u0963\u0966-\u0dff\u200c\u200d]"
    order = sorted(range(len(rules)), key=lambda i: (-len(rules[i].string_to_replace), i))

    def pattern(rule: PronunciationRule) -> str:
        body = re.escape(rule.string_to_replace)
        body = body if rule.case_sensitive else f"(?i:{body})"
        return f"(?<!{word}){body}(?!{word})" if rule.word_boundaries else body

    alternatives = re.compile("|".join(f"({pattern(rules[i])})" for i in order))
    spans, position = [], 0
    for m in alternatives.finditer(text):
        if m.start() > position:
            spans.append(Span(position, m.start(), None))
        assert m.lastindex is not None
        spans.append(Span(m.start(), m.end(), rules[order[m.lastindex - 1]]))
        position = m.end()
    if position < len(text) or not spans:
        spans.append(Span(position, len(text), None))
    return spans


LETTERS = "abAB राम्ा।. -K\u212a"
rule_strings = st.text(LETTERS, min_size=1, max_size=4).filter(lambda s: s.strip() != "")


@given(
    st.lists(st.tuples(rule_strings, st.booleans(), st.booleans()), min_size=1, max_size=8),
    st.text(LETTERS, max_size=30),
)
def test_the_trie_matches_as_the_alternatives_did(
    specs: list[tuple[str, bool, bool]], text: str
) -> None:
    rules = [
        PronunciationRule(s, "alias", alias=f"r{i}", case_sensitive=case, word_boundaries=whole)
        for i, (s, case, whole) in enumerate(specs)
    ]
    assert RuleSet(rules).split(text) == regex_split(text, rules)


def test_ten_thousand_rules_find_theirs_in_three_hundred_words() -> None:
    """The dictionary of round three's finding: 10,000 rules, 300 words that match
    none and a few that do (the trie's cost is the text's, not the rules')."""
    rules = [PronunciationRule(f"brand{i:05d}", "alias", alias=f"b {i}") for i in range(10_000)]
    words = [f"word{i}" for i in range(300)]
    words[10], words[200] = "brand00042", "BRAND09999"
    text = " ".join(words)
    found = [(text[p.start : p.end], p.rule) for p in RuleSet(rules).split(text) if p.rule]
    assert found == [("brand00042", rules[42])]
    normaliser = TextNormaliser()
    spoken = normaliser.normalise(text, ReadingOptions("en", rules=tuple(rules))).text
    assert (
        normaliser.normalise("b 42", ReadingOptions("en")).text in spoken and "brand" not in spoken
    )
