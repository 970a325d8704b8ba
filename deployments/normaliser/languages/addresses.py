"""E-mail and web addresses read out as people read them (``bank.co.in``: bank dot
co dot in), for the languages read in full."""

from __future__ import annotations

import re
from typing import ClassVar

from deployments.normaliser.languages.base import Reader, Rule, alternatives


class AddressReader(Reader):
    """A reader that says addresses: a language supplies what is said for ``@``, the
    separators and the domain suffixes, and how it writes an address's words."""

    # What is said for @, the separators, domain suffixes.
    at_sign = "at"
    address_separators: ClassVar[dict[str, str]] = {
        ".": "dot", "+": "plus", "_": "underscore", "-": "dash", "/": "slash",
        "\\": "backslash", ":": "colon",
    }  # fmt: skip
    domain_words: ClassVar[dict[str, str]] = {
        "www": "w w w", "org": "o r g", "gov": "g o v", "edu": "e d u", "io": "i o",
        "com": "com", "net": "net", "in": "in", "co": "co", "info": "info", "app": "app",
    }  # fmt: skip

    # Places (states, large cities) after whose name six digits are a PIN code.
    states: ClassVar[tuple[str, ...]] = ()

    def pin_code_rule(self) -> Rule:
        """A six-digit PIN code after a state's name or ending an address after a comma
        (``शिमला, हिमाचल प्रदेश 171001``, ``Bengaluru, 560001``): digit by digit."""
        after = rf"(?:{alternatives(self.states)}),?|," if self.states else ","
        return Rule(
            re.compile(rf"({after})\s([1-9]\d{{5}})(?=\s*(?:$|[,.;।!?\n]))", re.I),
            lambda m: f"{m[1]} {self.digits(m[2])}",
        )

    def address_word(self, word: str) -> str:
        """A word of an e-mail or web address, as the language writes it."""
        return word

    def address_part(self, text: str, spell_short: bool = False) -> str:
        """``bank.co.in``, ``vivaan62``: separators said (dot), domain suffixes as they
        are said (in, o r g), digits one by one apart from the letters (विवान छह दो).
        With ``spell_short`` (a domain's or a path's names), a name of three letters
        or fewer, or one with no vowel, is an initialism, spelled (ndtv, rbi, etc)."""
        parts = []
        for part in re.split(r"([.+_-]|\d+)", text):
            if part in self.address_separators:
                parts.append(self.address_separators[part])
            elif part.lower() in self.domain_words:
                parts.append(self.domain_words[part.lower()])
            elif part.isdigit():
                parts.append(self.digits(part))
            elif spell_short and part.isalpha() and _initialism(part):
                parts.append(self.spelled(part))
            elif part:
                parts.append(self.address_word(part))
        return " ".join(parts)

    def file_path(self, m: re.Match[str]) -> str:
        """``/home/desktop``, ``C:\\Users\\HP\\``: each name said, the separators too."""
        drive, path = m[1], m[2]
        separator = "\\" if drive else "/"
        said = [f"{self.spelled(drive)} {self.address_separators[':']}"] if drive else []
        for i, name in enumerate(path.split(separator)):
            if i:
                said.append(self.address_separators[separator])
            if name:
                said.append(self.address_part(name, spell_short=True))
        return " ".join(said)

    def address_path(self, path: str) -> str:
        slash = self.address_separators["/"]
        return "".join(
            f" {slash} {self.address_part(p, spell_short=True)}".rstrip()
            for p in path.split("/")[1:]
        )

    def spelled(self, letters: str) -> str:
        """Letters said one by one (a file's extension: P D F)."""
        return " ".join(letters.upper())

    def ip_address(self, octets: tuple[str, ...]) -> str:
        """192.168.1.10: each part digit by digit, "dot" between (एक नौ दो डॉट ...)."""
        dot = f" {self.address_separators['.']} "
        return dot.join(self.digits(octet) for octet in octets)

    def address_rules(self) -> list[Rule]:
        """IP, e-mail and web addresses, read out as people read them."""
        return [
            Rule(
                re.compile(
                    r"(?<![\w.])(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)"
                    r"\.(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)(?![\w.]|\.\d)"
                ),
                lambda m: self.ip_address(m.groups()),
            ),
            Rule(  # report.pdf: a file's name, its extension spelled
                re.compile(
                    r"(?<![\w.@/])([A-Za-z][\w-]*)\.(pdf|jpe?g|png|gif|csv|docx?|xlsx?|pptx?"
                    r"|txt|zip|mp3|mp4|html?|php|exe|apk)(?![\w.])",
                    re.I,
                ),
                lambda m: (
                    f"{self.address_part(m[1])} {self.address_separators['.']} {self.spelled(m[2])}"
                ),
            ),
            Rule(
                re.compile(r"(?<![\w.@])([\w.+-]+)@([\w-]+(?:\.[\w-]+)+)(?![\w@])"),
                lambda m: (
                    f"{self.address_part(m[1])} {self.at_sign} "
                    f"{self.address_part(m[2], spell_short=True)}"
                ),
            ),
            Rule(
                re.compile(
                    r"(?<![\w.@/])(?:https?://)?((?:www\.)?[\w-]+(?:\.[\w-]+)*\.(?:com|in|org|net"
                    r"|gov|co|edu|io|info|app)(?:\.in)?)((?:/[\w.-]*)*)(?![\w@])"
                ),
                lambda m: self.address_part(m[1], spell_short=True) + self.address_path(m[2]),
            ),
            Rule(  # C:\\Users\\HP\\Desktop\\
                re.compile(r"(?<![\w])([A-Za-z]):((?:\\[\w.-]+)+\\?|\\)"),
                self.file_path,
            ),
            Rule(  # /home/desktop, /var/www
                re.compile(r"(?<![\w/.:])()((?:/[A-Za-z][\w.-]*)+/?)(?![\w/])"),
                self.file_path,
            ),
        ]


def _initialism(name: str) -> bool:
    """A name in an address said letter by letter: three letters or fewer (rbi, ati),
    or no vowel at all (ndtv, html)."""
    return len(name) <= 3 or not re.search(r"[aeiouyAEIOUY]", name)
