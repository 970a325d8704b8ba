"""The language policy: canonical codes, their aliases, and the policy's version."""

from __future__ import annotations

import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, PrivateAttr


class LanguageEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    script: str
    aliases: tuple[str, ...] = ()


class LanguagePolicy(BaseModel):
    """Loaded from ``configs/language_policy.yaml``; ``canonical()`` maps what users send."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str
    default: str
    mixed_script: str
    languages: dict[str, LanguageEntry]
    _alias_table: dict[str, str] = PrivateAttr(default_factory=dict)

    def model_post_init(self, context: Any, /) -> None:
        for code, entry in self.languages.items():
            for alias in (code, entry.name, *entry.aliases):
                self._alias_table[_fold(alias)] = code
        if self.default not in self.languages:
            raise ValueError(f"default language {self.default!r} is not in the policy")

    @classmethod
    def from_file(cls, path: str | Path) -> LanguagePolicy:
        with open(path, encoding="utf-8") as f:
            return cls.model_validate(yaml.safe_load(f))

    def canonical(self, value: str | None) -> str | None:
        """The canonical code for a code, BCP-47 tag, ISO 639-2/3 code, name or endonym.

        ``None`` (nothing sent) gives the default; an unknown value gives ``None``.
        Region and script subtags are dropped: ``hi-IN`` and ``od_IN`` are ``hi``/``or``.
        """
        if value is None:
            return self.default
        table = self._alias_table
        folded = _fold(value)
        if folded in table:
            return table[folded]
        base = folded.replace("_", "-").split("-", 1)[0]
        return table.get(base)

    def language_of_script(self, text: str) -> str | None:
        """The first language (in policy order) written in the script most letters of
        ``text`` are in: Devanagari -> hi, Latin -> en, Tamil -> ta; None for none."""
        counts: Counter[str] = Counter(
            _UNICODE_SCRIPTS.get(name.split(" ")[0], name.split(" ")[0].capitalize())
            for ch in text
            if ch.isalpha() and (name := unicodedata.name(ch, ""))
        )
        for script, _ in counts.most_common(1):
            for code, entry in self.languages.items():
                if entry.script == script:
                    return code
        return None

    def language_of(self, text: str) -> str:
        """The language of ``text``'s script (:meth:`language_of_script`), else the
        default: what a client that names no language is taken to speak."""
        return self.language_of_script(text) or self.default


# Unicode's script names where the policy says them otherwise.
_UNICODE_SCRIPTS = {"ORIYA": "Odia"}


def _fold(text: str) -> str:
    return unicodedata.normalize("NFC", text.strip()).casefold()
