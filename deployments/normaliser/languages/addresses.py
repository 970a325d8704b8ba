"""E-mail and web addresses read out as people read them (``bank.co.in``: bank dot
co dot in), for the languages read in full."""

from __future__ import annotations

import re
from typing import ClassVar

from deployments.normaliser.languages.base import Reader, Rule


class AddressReader(Reader):
    """A reader that says addresses: a language supplies what is said for ``@``, the
    separators and the domain suffixes, and how it writes an address's words."""

    # What is said for @, the separators, domain suffixes.
    at_sign = "at"
    address_separators: ClassVar[dict[str, str]] = {
        ".": "dot", "+": "plus", "_": "underscore", "-": "dash", "/": "slash"
    }  # fmt: skip
    domain_words: ClassVar[dict[str, str]] = {
        "www": "w w w", "org": "o r g", "gov": "g o v", "edu": "e d u", "io": "i o"
    }  # fmt: skip

    def address_word(self, word: str) -> str:
        """A word of an e-mail or web address, as the language writes it."""
        return word

    def address_part(self, text: str) -> str:
        """``bank.co.in``, ``vivaan62``: separators said (dot), domain suffixes as they
        are said (in, o r g), digits one by one apart from the letters (विवान छह दो)."""
        parts = []
        for part in re.split(r"([.+_-]|\d+)", text):
            if part in self.address_separators:
                parts.append(self.address_separators[part])
            elif part.lower() in self.domain_words:
                parts.append(self.domain_words[part.lower()])
            elif part.isdigit():
                parts.append(self.digits(part))
            elif part:
                parts.append(self.address_word(part))
        return " ".join(parts)

    def address_path(self, path: str) -> str:
        slash = self.address_separators["/"]
        return "".join(f" {slash} {self.address_part(p)}".rstrip() for p in path.split("/")[1:])

    def address_rules(self) -> list[Rule]:
        """E-mail and web addresses, read out as people read them."""
        return [
            Rule(
                re.compile(r"(?<![\w.@])([\w.+-]+)@([\w-]+(?:\.[\w-]+)+)(?![\w@])"),
                lambda m: f"{self.address_part(m[1])} {self.at_sign} {self.address_part(m[2])}",
            ),
            Rule(
                re.compile(
                    r"(?<![\w.@/])(?:https?://)?((?:www\.)?[\w-]+(?:\.[\w-]+)*\.(?:com|in|org|net"
                    r"|gov|co|edu|io|info|app)(?:\.in)?)((?:/[\w.-]*)*)(?![\w@])"
                ),
                lambda m: self.address_part(m[1]) + self.address_path(m[2]),
            ),
        ]
