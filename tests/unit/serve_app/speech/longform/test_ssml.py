"""An SSML document cut into chunks: each a document the speech requests' reader
takes, what the whole says of it kept (its root's language, the elements around its
paragraphs), nothing heard lost or twice."""

from __future__ import annotations

import pytest

from deployments.normaliser import ssml
from serve_app.http.errors import InvalidRequest
from serve_app.speech.longform.ssml import ssml_chunks

DOCUMENT = """<?xml version="1.0"?>
<speak version="1.0" xmlns="http://www.w3.org/2001/10/synthesis" xml:lang="hi-IN">
  शुरुआत <emphasis>ज़रूर</emphasis> सुनिए।
  <p>पहला अनुच्छेद है। <break time="700ms"/> फिर भी पढ़ते रहिए।</p>
  <break time="1s"/>
  <prosody rate="slow">
    <p>धीमा पहला अनुच्छेद।</p>
    <p>धीमा दूसरा &amp; <sub alias="विश्व स्वास्थ्य संगठन">WHO</sub> का नाम।</p>
  </prosody>
  <p><s>आख़िरी वाक्य।</s><s>सचमुच आख़िरी।</s></p>
</speak>"""


def heard(markup: str) -> list[str]:
    return ssml.parse(markup).text.split()


@pytest.mark.parametrize("chunk_chars", [1, 40, 10_000])
def test_every_chunk_is_a_document_and_together_they_say_the_whole(chunk_chars: int) -> None:
    chapters, chunks = ssml_chunks([("भूमिका", DOCUMENT)], chunk_chars)
    assert [c.title for c in chapters] == ["भूमिका"]
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert {c.chapter for c in chunks} == {0}
    # read as a speech request's SSML is; in order, the words of the whole document
    assert [w for c in chunks for w in heard(c.text)] == heard(DOCUMENT.split("\n", 1)[1])
    for chunk in chunks:
        assert chunk.text.startswith('<speak version="1.0" xml:lang="hi-IN">')
        if "धीमा" in chunk.text:  # the prosody around those paragraphs, around each chunk
            assert '<prosody rate="slow"><p>धीमा' in chunk.text
        else:
            assert "prosody" not in chunk.text
    if chunk_chars == 10_000:  # the prosody's paragraphs apart from the others
        assert len(chunks) == 3
    if chunk_chars == 1:  # each paragraph (never cut) and each text between them
        assert len(chunks) == 5
        assert chunks[1].before == "शुरुआत ज़रूर सुनिए।"
        assert chunks[1].after.startswith("धीमा पहला अनुच्छेद।")


def test_a_pause_between_paragraphs_stays_with_them() -> None:
    _, chunks = ssml_chunks([("", '<p>एक।</p><break time="2s"/><p>दो।</p>')], 1_000)
    assert [c.text for c in chunks] == ['<speak><p>एक।</p> <break time="2s"/> <p>दो।</p></speak>']


def test_named_chapters_are_documents_each_and_empty_ones_are_left_out() -> None:
    chapters, chunks = ssml_chunks(
        [("एक", "<speak><p>पहला।</p></speak>"), ("खाली", "<speak> </speak>"), ("दो", "दूसरा।")]
    )
    assert [c.title for c in chapters] == ["एक", "दो"]
    assert [(c.chapter, c.text) for c in chunks] == [
        (0, "<speak><p>पहला।</p></speak>"),
        (1, "<speak>दूसरा।</speak>"),
    ]


@pytest.mark.parametrize(
    ("markup", "says"),
    [
        ("<speak><p>खुला", "no element found"),
        ('<!DOCTYPE speak [<!ENTITY a "aaaa">]><speak>&a;</speak>', "DTD"),
        ("<?xml version='1.0'?><p>नमस्ते</p>", "root must be <speak>"),
    ],
)
def test_markup_that_is_not_a_document_is_refused_saying_why(markup: str, says: str) -> None:
    with pytest.raises(InvalidRequest, match=says) as refused:
        ssml_chunks([("", markup)])
    assert (refused.value.code, refused.value.param) == ("invalid_value", "input")
