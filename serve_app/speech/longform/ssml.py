"""An SSML document cut for a long-form job: chunks of whole paragraphs (``<p>``) and
sentences (``<s>``), each a document of its own that says what the whole says of it.

A chunk is spoken as a speech request's SSML is (``deployments.normaliser.ssml``), so
each is a ``<speak>`` with the root's attributes (its ``xml:lang``) and, around its
paragraphs, the elements that held them in the document (a ``<prosody>`` or ``<lang>``
around several paragraphs is repeated around each chunk of them). Text between
paragraphs is a unit of its own; a paragraph is never cut, so a chunk is as long as
its longest paragraph at least. The document is read by defusedxml's parser: a
document type, an entity or an external reference is refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from xml.etree.ElementTree import Element, ParseError
from xml.sax.saxutils import escape, quoteattr

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from deployments.normaliser import ssml
from serve_app.http.errors import InvalidRequest
from serve_app.speech.longform.chunks import CHUNK_CHARS, SURROUNDING_CHARS, Chapter, Chunk

BLOCKS = frozenset({"p", "s", "paragraph", "sentence"})
_XML = "{http://www.w3.org/XML/1998/namespace}"

# An element around a unit: its name and attributes, as written.
Wrapper = tuple[str, tuple[tuple[str, str], ...]]


@dataclass(frozen=True)
class _Unit:
    wrappers: tuple[Wrapper, ...]  # the elements between <speak> and it, outermost first
    markup: str
    spoken: str  # its text without the tags, for sizes and for the text read around a chunk


def ssml_chunks(
    given: Sequence[tuple[str, str]], chunk_chars: int = CHUNK_CHARS
) -> tuple[list[Chapter], list[Chunk]]:
    """Each (title, SSML document) a chapter, cut into chunks of SSML numbered across
    the job; chapters with nothing to say left out. 400 ``invalid_value`` for a
    document that is not well-formed XML (or asks for a DTD or an entity)."""
    chapters: list[Chapter] = []
    chunks: list[Chunk] = []
    for title, markup in given:
        root = _root(markup)
        units = list(_units(root, ()))
        if not any(u.spoken for u in units):
            continue
        number = len(chapters)
        chapters.append(Chapter(title, tuple(u.spoken for u in units if u.spoken)))
        groups = list(_packed(units, chunk_chars))
        spoken = [" ".join(u.spoken for u in group if u.spoken) for group in groups]
        for k, group in enumerate(groups):
            before = " ".join(filter(None, spoken[:k]))[-SURROUNDING_CHARS:].lstrip()
            after = " ".join(filter(None, spoken[k + 1 :]))[:SURROUNDING_CHARS].rstrip()
            chunks.append(Chunk(len(chunks), number, _document(root, group), before, after))
    return chapters, chunks


def _root(markup: str) -> Element:
    """The document's root, ``<speak>`` (text with markup in it is read as if a
    ``<speak>`` held it, as a speech request's is)."""
    if not markup.lstrip().startswith(("<speak", "<?xml", "<!")):
        markup = f"<speak>{markup}</speak>"
    try:
        root: Element = fromstring(markup, forbid_dtd=True)
    except (ParseError, DefusedXmlException) as e:
        raise InvalidRequest("invalid_value", f"input: SSML: {e}", "input") from None
    if _name(root.tag) != "speak":
        raise InvalidRequest("invalid_value", "input: SSML's root must be <speak>.", "input")
    if _deeper_than(root, ssml.MAX_DEPTH):  # read recursively below: refused first, as a request's
        raise InvalidRequest(
            "invalid_value", f"input: SSML: elements nested deeper than {ssml.MAX_DEPTH}", "input"
        )
    return root


def _deeper_than(root: Element, most: int) -> bool:
    """Whether elements nest more than ``most`` deep under ``root`` (itself 1), looked
    at without recursion."""
    stack = [(root, 1)]
    while stack:
        element, depth = stack.pop()
        if depth > most:
            return True
        stack.extend((child, depth + 1) for child in element)
    return False


def _units(element: Element, wrappers: tuple[Wrapper, ...]) -> Iterator[_Unit]:
    """``element``'s content as units: each block, each run of text and inline
    elements between blocks; an element that holds blocks is gone into, its name
    kept as a wrapper of what it holds."""
    run: list[str] = [escape(element.text or "")]
    heard: list[str] = [element.text or ""]
    for child in element:
        if _name(child.tag) in BLOCKS or _holds_blocks(child):
            yield from _run(run, heard, wrappers)
            run, heard = [], []
            if _name(child.tag) in BLOCKS:
                yield _Unit(wrappers, _markup(child), _spoken(child))
            else:
                yield from _units(child, (*wrappers, _wrapper(child)))
        else:
            run.append(_markup(child))
            heard.append("".join(child.itertext()))
        run.append(escape(child.tail or ""))
        heard.append(child.tail or "")
    yield from _run(run, heard, wrappers)


def _run(run: list[str], heard: list[str], wrappers: tuple[Wrapper, ...]) -> Iterator[_Unit]:
    """A run of text and inline elements as a unit, if there is one (a pause alone
    between paragraphs is one too: it joins its neighbours' chunk)."""
    markup = " ".join("".join(run).split())
    if markup:
        yield _Unit(wrappers, markup, " ".join("".join(heard).split()))


def _packed(units: Iterable[_Unit], chunk_chars: int) -> Iterator[list[_Unit]]:
    """Units joined up to ``chunk_chars`` of spoken text, those of one chunk all under
    the same wrappers."""
    current: list[_Unit] = []
    size = 0
    for unit in units:
        if current and (
            unit.wrappers != current[0].wrappers
            or (unit.spoken and size + 1 + len(unit.spoken) > chunk_chars)
        ):  # a pause alone (nothing spoken) stays with what it follows
            yield current
            current, size = [], 0
        current.append(unit)
        size += len(unit.spoken) + (1 if size else 0)
    if current:
        yield current


def _document(root: Element, group: Sequence[_Unit]) -> str:
    """A chunk's SSML: ``<speak>`` as the document's, its units inside their wrappers."""
    inner = " ".join(unit.markup for unit in group)
    for name, attributes in reversed(group[0].wrappers):
        inner = f"<{name}{_attributes(attributes)}>{inner}</{name}>"
    return f"<speak{_attributes(_attributes_of(root))}>{inner}</speak>"


def _markup(element: Element) -> str:
    """``element`` written out again, without its tail."""
    inner = escape(element.text or "") + "".join(
        _markup(child) + escape(child.tail or "") for child in element
    )
    name = _name(element.tag)
    attributes = _attributes(_attributes_of(element))
    return f"<{name}{attributes}>{inner}</{name}>" if inner else f"<{name}{attributes}/>"


def _holds_blocks(element: Element) -> bool:
    return any(_name(e.tag) in BLOCKS for e in element.iter() if e is not element)


def _spoken(element: Element) -> str:
    return " ".join("".join(element.itertext()).split())


def _wrapper(element: Element) -> Wrapper:
    return _name(element.tag), _attributes_of(element)


def _name(tag: str) -> str:
    """A tag without its namespace (SSML's own, ``xmlns=".../synthesis"``)."""
    return tag.rpartition("}")[2]


def _attributes_of(element: Element) -> tuple[tuple[str, str], ...]:
    return tuple(
        (name.replace(_XML, "xml:") if name.startswith(_XML) else _name(name), value)
        for name, value in element.attrib.items()
    )


def _attributes(attributes: Iterable[tuple[str, str]]) -> str:
    return "".join(f" {name}={quoteattr(value)}" for name, value in attributes)
