"""A long text cut for a long-form job: chapters at Markdown headings, chunks of whole
paragraphs or sentences, each with its chapter's text around it, read, not spoken."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from serve_app.speech.longform.chunks import SURROUNDING_CHARS, Chapter, chapters_of, chunks_of

BOOK = """\
Some words before the first chapter.

# अध्याय एक

पहला अनुच्छेद। इसमें दो वाक्य हैं।

## एक उपशीर्षक

- सूची का *पहला* भाग
- [दूसरा भाग](https://example.com)

![एक चित्र](picture.png)

```python
print("not spoken")
```

<div>not spoken either</div>

# अध्याय दो
दूसरे अध्याय का पाठ,
अगली पंक्ति में।
"""


def test_markdown_chapters_start_at_the_top_headings_and_read_as_heard() -> None:
    chapters = chapters_of(BOOK, "markdown")
    assert [c.title for c in chapters] == ["", "अध्याय एक", "अध्याय दो"]
    assert chapters[0].paragraphs == ("Some words before the first chapter.",)
    assert chapters[1].paragraphs == (
        "अध्याय एक",  # the title is the chapter's first line
        "पहला अनुच्छेद। इसमें दो वाक्य हैं।",
        "एक उपशीर्षक",  # a lower heading is a line of its chapter
        "सूची का पहला भाग",
        "दूसरा भाग",  # a link by its text
        "एक चित्र",  # an image by its alt text
    )
    assert chapters[2].paragraphs == ("अध्याय दो", "दूसरे अध्याय का पाठ, अगली पंक्ति में।")


def test_plain_text_is_one_chapter_of_its_paragraphs() -> None:
    assert chapters_of("एक।\n\n\n  दो\nतीन।  \n\n", "text") == [Chapter("", ("एक।", "दो तीन।"))]
    assert chapters_of(" \n\n ", "text") == chapters_of("```\ncode\n```", "markdown") == []


def test_chunks_hold_whole_paragraphs_or_sentences_and_their_chapter_s_context() -> None:
    sentence = "यह एक वाक्य है जो कुछ लंबा है।"  # 30 characters
    chapters = [
        Chapter("", tuple(" ".join([sentence] * 3) for _ in range(3))),  # 92 each
        Chapter("दो", (" ".join([sentence] * 8),)),  # 247: cut at sentences
    ]
    chunks = chunks_of(chapters, chunk_chars=200)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert [len(c.text) for c in chunks if c.chapter == 0] == [185, 92]  # 2 paragraphs, then 1
    assert [c.text.count("।") for c in chunks if c.chapter == 1] == [6, 2]
    first, second = (c for c in chunks if c.chapter == 1)
    assert first.before == "" and second.after == ""  # never another chapter's text
    assert second.before == first.text[-SURROUNDING_CHARS:].lstrip()
    assert first.after == second.text[:SURROUNDING_CHARS]


words = st.text(alphabet="कखग अआ।.,", min_size=1, max_size=120)


@given(st.lists(st.lists(words, min_size=1, max_size=6), min_size=1, max_size=4))
def test_chunks_keep_every_word_in_order_within_their_size(texts: list[list[str]]) -> None:
    chapters = chapters_of("\n\n".join("\n\n".join(c) for c in texts), "text")
    chunks = chunks_of(chapters, chunk_chars=50)
    spoken = [w for c in chunks for w in c.text.split()]
    assert spoken == [w for c in chapters for p in c.paragraphs for w in p.split()]
    assert all(0 < len(c.text) <= 50 for c in chunks)
