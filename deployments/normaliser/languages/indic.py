"""Numbers for other Indian languages: each language's cardinal speller
(:mod:`indic_cardinals`) plugged into the generic reader.
"""

from __future__ import annotations

from collections.abc import Callable

from deployments.normaliser.english_words import (
    ENGLISH_ORDINAL,
    counted_spelling,
    english_ordinal,
    native_spelling,
)
from deployments.normaliser.languages.base import Rule
from deployments.normaliser.languages.currencies import Currency
from deployments.normaliser.languages.in_full import InFullReader
from deployments.normaliser.languages.indic_cardinals import (
    ai4bharat,
    bengali,
    kannada,
    marathi,
    tamil,
    telugu,
)
from deployments.normaliser.languages.indic_words import WORDS, IndicWords
from deployments.normaliser.languages.units import Unit


class IndicReader(InFullReader):
    """The shared rules (dates, money, ranges, the clock, units, telephone numbers)
    in a language that supplies its cardinals and the words of :mod:`indic_words`.
    A number before what it counts takes the language's form for it (:meth:`quantity`)."""

    def __init__(
        self,
        language: str,
        cardinal: Callable[[int], str],
        decimal_word: str,
        minus_word: str,
        percent_word: str,
    ) -> None:
        self.language = language
        self._cardinal = cardinal
        self.decimal_word = decimal_word
        self.minus_word = minus_word
        self.percent_word = percent_word
        self.words: IndicWords = WORDS[language]
        self.months = self.words.months
        self.plus_word = self.words.plus
        self.and_ = self.words.and_
        self.to = self.words.to
        self.until = self.words.until
        self.abbreviations = self.words.abbreviations
        # the language's own abbreviations of units, said as the units they stand for
        table = self.unit_table
        self.unit_table = table | {
            own: table[latin] for own, latin in self.words.unit_abbreviations.items()
        }
        self.vulgar_fractions = {
            "½": self.words.half,
            "¼": self.words.quarter,
            "¾": self.words.three_quarters,
        }

    def cardinal(self, n: int) -> str:
        return self._cardinal(n)

    def year(self, n: int) -> str:
        """1947: एकोणीसशे सत्तेचाळीस, উনিশশো সাতচল্লিশ where the language says years in
        hundreds; the number elsewhere."""
        if not (self.words.hundreds and 1100 <= n <= 1999):
            return self.cardinal(n)
        hundreds, rest = divmod(n, 100)
        spoken = self.cardinal(hundreds) + self.words.hundreds
        return f"{spoken} {self.cardinal(rest)}" if rest else spoken

    def date(self, day: int, month: int, year: int) -> str:
        return f"{self.cardinal(day)} {self.months[month - 1]} {self.year(year)}"

    def day_month(self, day: int, month: int, year: str | None, month_first: bool) -> str:
        spoken = f"{self.cardinal(day)} {self.months[month - 1]}"
        return spoken + (f" {self.year(int(year))}" if year else "")

    def time(self, hour: int, minute: int) -> str:
        h = self.cardinal(hour % 12 or 12)
        if minute == 0:
            return self.words.on_the_hour.format(h=h)
        return self.words.with_minutes.format(h=h, m=self.cardinal(minute))

    def time_with_seconds(self, hour: int, minute: int, seconds: int) -> str:
        return f"{self.time(hour, minute)} {self.cardinal(seconds)} {self.words.seconds}"

    def ratio(self, first: str, second: str, named: bool = False) -> str:
        return f"{self.cardinal(int(first))}:{self.cardinal(int(second))}"

    def range(self, first: str, second: str) -> str:
        if self.words.range_from:  # ಹತ್ತರಿಂದ ಇಪ್ಪತ್ತು
            return f"{self.words.range_from(first)} {second}"
        return super().range(first, second)

    def quantity(self, text: str) -> str:
        """A number before what it counts: "one" as an adjective (ஒரு, ఒక), a last
        word in its form before a noun (ఐదు వందల)."""
        if text == "1":
            return self.words.one
        *first, last = super().quantity(text).split(" ")
        return " ".join([*first, self.words.before_noun.get(last, last)])

    def counted(self, english: str, one: bool) -> str:
        """A loanword after a number, in the language's plural where it has one after
        numbers other than one (Telugu డాలర్లు)."""
        *first, last = english.split()
        words = [native_spelling(word, self.language) for word in first]
        return " ".join([*words, counted_spelling(last, self.language, one)])

    def currency_words(self, currency: Currency, one: bool) -> tuple[str, str]:
        """The rupee in the language's own words; other currencies by their English
        names in its script (loanwords), decimals read as a number."""
        if currency.code == "INR":
            return self.words.rupee if one else self.words.rupees, self.words.paise
        if self.words.hindi_loanwords:
            return currency.hindi, ""
        return self.counted(currency.english, one), ""

    def unit_name(self, unit: Unit, quantity: str) -> str:
        """A loanword after any number: Hindi's spelling in Devanagari (Marathi), else
        the English name in the language's script."""
        if self.words.hindi_loanwords:
            return unit.hindi
        return self.counted(unit.english, quantity == "1")

    def vulgar(self, whole: str | None, symbol: str) -> str:
        """½ alone; 1½, 2¼ as the language says a whole number with it (दीड, ஒன்றரை),
        else the number "and" the fraction."""
        if whole is None:
            return self.vulgar_fractions[symbol]
        spoken = self.words.mixed(self.cardinal, int(whole), symbol)
        return spoken or super().vulgar(whole, symbol)

    def ordinal_rules(self) -> list[Rule]:
        """1st, 2nd: an ordinal written the English way is said in English, in the
        language's script, as its speakers say it (second floor, first class)."""
        return [Rule(ENGLISH_ORDINAL, lambda m: english_ordinal(int(m[1]), self.language))]

    def fraction(self, numerator: int, denominator: int) -> str:
        """1/2, 1/4, 3/4 by name; the rest, door numbers included, "a by b"."""
        named = {(1, 2): "½", (1, 4): "¼", (3, 4): "¾"}.get((numerator, denominator))
        if named:
            return self.vulgar_fractions[named]
        return f"{self.cardinal(numerator)} {self.words.over} {self.cardinal(denominator)}"


NUMBER_READERS: dict[str, IndicReader] = {
    "mr": IndicReader("mr", marathi, "दशांश", "उणे", "टक्के"),
    "ta": IndicReader("ta", tamil, "புள்ளி", "கழித்தல்", "சதவீதம்"),
    "te": IndicReader("te", telugu, "పాయింట్", "మైనస్", "శాతం"),
    "bn": IndicReader("bn", bengali, "দশমিক", "মাইনাস", "শতাংশ"),
    "kn": IndicReader("kn", kannada, "ದಶಮಾಂಶ", "ಮೈನಸ್", "ಶೇಕಡಾ"),
    "gu": IndicReader("gu", ai4bharat("gu"), "દશાંશ", "માઇનસ", "ટકા"),
    "pa": IndicReader("pa", ai4bharat("pa"), "ਦਸ਼ਮਲਵ", "ਮਾਈਨਸ", "ਪ੍ਰਤੀਸ਼ਤ"),
    "or": IndicReader("or", ai4bharat("or"), "ଦଶମିକ", "ମାଇନସ", "ପ୍ରତିଶତ"),
    "ml": IndicReader("ml", ai4bharat("ml"), "ദശാംശം", "മൈനസ്", "ശതമാനം"),
}
