"""Hindi, read as a native speaker reads it aloud.

Numbers use Indian grouping (हज़ार, लाख, करोड़); 1100-1999 are read in hundreds
(उन्नीस सौ सैंतालीस), as Hindi speakers say years and round sums. Money, dates,
times (साढ़े दस बजे), phone numbers (digit groups), ordinals, ranges, units,
fractions (डेढ़, ढाई) and common abbreviations have their own rules.
"""

from __future__ import annotations

import re

from deployments.normaliser.english_words import ENGLISH_ORDINAL, english_ordinal, native_spelling
from deployments.normaliser.languages.base import NUMBER, Rule, alternatives, parse_number
from deployments.normaliser.languages.currencies import CURRENCIES, Currency, currency_of
from deployments.normaliser.languages.hindi_context import context_rules
from deployments.normaliser.languages.hindi_words import (
    ABBREVIATIONS,
    CODE_WORDS,
    DOMAIN_WORDS,
    ENGLISH_DIGITS,
    FRACTIONS,
    GLUE_WORDS,
    LATIN_WORDS,
    LETTERS,
    MONTHS,
    ONES,
    ORDINAL_STEMS,
    ORDINAL_SUFFIX,
    RUPEES_AFTER,
    SCALE_WORDS,
    SCALES,
    SEPARATORS,
    STATES,
    UNITS,
    WORD_ACRONYMS,
)
from deployments.normaliser.languages.in_full import InFullReader
from deployments.normaliser.languages.units import Unit

SCALE_VALUES = {name: value for value, name in SCALES if value > 100}  # हज़ार, लाख, करोड़


class HindiReader(InFullReader):
    """Hindi's words and grammar over the rules every language read in full shares.

    Inherited, not composed, by choice: each level adds rules built from hooks that
    the level below calls (base.py: numbers and codes; addresses.py; in_full.py:
    dates, times, money, units, fractions), and a language overrides the hooks its
    grammar says differently. Hindi overrides about thirty (hundreds for 1100-1999,
    halves and quarters by name, साढ़े and सवा in clock times, scale words), each short
    and named for what it says; composed, they would be as many callables handed to a
    shared reader, no easier to read. Languages that differ only in their words are
    composed already: :class:`~deployments.normaliser.languages.indic.IndicReader`
    takes a table of them (``IndicWords``)."""

    decimal_word = "दशमलव"
    minus_word = "माइनस"
    percent_word = "प्रतिशत"
    plus_word = "प्लस"
    to = "से"
    and_ = "और"
    units = UNITS
    abbreviations = ABBREVIATIONS
    vulgar_fractions = FRACTIONS
    after_time = r"\s?बजे"
    ratio_word = "अनुपात"
    by_word = "बाई"  # 12x10: बारह बाई दस
    states = STATES
    version_point = "पॉइंट"
    ratio_names = InFullReader.ratio_names + "|अनुपात"
    code_names = (
        InFullReader.code_names + r"|ओटीपी|पिन|खाता|खाते|अकाउंट|कार्ड|रेफ़रेंस|रेफरेंस|संदर्भ|"
        r"मोबाइल|फ़ोन|फोन|आईडी|नंबर|नं\.|हेल्पलाइन|व्हाट्सऐप|ऑर्डर|ट्रेन|गाड़ी|अंक|अंकों|"
        r"कॉल करो|कॉल करें|कॉल कीजिए|कॉल करिए|डायल करें|डायल करो"
    )
    code_glue = InFullReader.code_glue + r"|है|हैं|नंबर|नं\.?|संख्या|कोड"
    amount_after = r"रुपये|रुपए|/-"
    letter_names = LETTERS
    word_acronyms = WORD_ACRONYMS
    letter_digits = ENGLISH_DIGITS
    months = MONTHS
    amount_scales = alternatives(SCALE_WORDS)
    at_sign = "एट द रेट"
    address_separators = SEPARATORS
    domain_words = DOMAIN_WORDS

    def cardinal(self, n: int) -> str:
        if n < 0:
            return f"{self.minus_word} {self.cardinal(-n)}"
        if n < 100:
            return ONES[n]
        parts = []
        for value, name in SCALES:
            if n >= value:
                count, n = divmod(n, value)
                parts.append(f"{self.cardinal(count)} {name}")
        if n:
            parts.append(ONES[n])
        return " ".join(parts)

    def in_hundreds(self, n: int) -> str:
        """1100-1999 as hundreds: 1947 -> उन्नीस सौ सैंतालीस."""
        hundreds, rest = divmod(n, 100)
        return f"{ONES[hundreds]} सौ" + (f" {ONES[rest]}" if rest else "")

    def number(self, text: str, years: bool = True) -> str:
        """Round hundreds 1100-1900 as speakers say them (पंद्रह सौ लोग), and with
        ``years`` 1800-1999 as the years they mostly are (उन्नीस सौ सैंतालीस); any
        other number in full (1345: एक हज़ार तीन सौ पैंतालीस)."""
        n = int(text) if text.isdigit() else 0
        if 1100 <= n <= 1999 and (n % 100 == 0 or (years and n >= 1800)):
            return self.in_hundreds(n)
        return super().number(text)

    def amount(self, text: str) -> str:
        """A sum of money is no year: ₹1946 एक हज़ार नौ सौ छियालीस; a round sum in
        hundreds is said as speakers say it (₺1200 बारह सौ लीरा)."""
        return self.number(text, years=False) if text.isdigit() else self.quantity(text)

    def year(self, n: int) -> str:
        return self.in_hundreds(n) if 1100 <= n <= 1999 else self.cardinal(n)

    def half_more(self, whole: int) -> str:
        """``whole`` and a half: डेढ़, ढाई, साढ़े तीन."""
        return {0: "आधा", 1: "डेढ़", 2: "ढाई"}.get(whole) or f"साढ़े {self.cardinal(whole)}"

    def quantity(self, text: str) -> str:
        """Before a unit, x.5 is read as डेढ़, ढाई, साढ़े x."""
        whole, fraction = parse_number(text)
        return self.half_more(whole) if fraction == "5" else self.number(text)

    def vulgar(self, whole: str | None, symbol: str) -> str:
        """1½ डेढ़, 2½ ढाई, 1¼ सवा, 2¼ सवा दो, 1¾ पौने दो."""
        if whole and symbol in "½¼¾":
            n = int(whole)
            if symbol == "½":
                return self.half_more(n)
            return self.quarter_more(n) if symbol == "¼" else f"पौने {self.cardinal(n + 1)}"
        return super().vulgar(whole, symbol)

    def mixed(self, whole: int, numerator: int, denominator: int) -> str:
        """2 1/2 ढाई, 2 1/4 सवा दो, 1 3/4 पौने दो; 2 2/7 दो और दो बटा सात."""
        symbol = {(1, 2): "½", (1, 4): "¼", (3, 4): "¾"}.get((numerator, denominator))
        if symbol:
            return self.vulgar(str(whole), symbol)
        return super().mixed(whole, numerator, denominator)

    def ratio(self, first: str, second: str, named: bool = False) -> str:
        """1:2 -> एक अनुपात दो; before the word अनुपात, एक और दो (के अनुपात में)."""
        joiner = self.and_ if named else self.ratio_word
        return f"{self.cardinal(int(first))} {joiner} {self.cardinal(int(second))}"

    def time(self, hour: int, minute: int) -> str:
        spoken = hour % 12 or 12
        following = (hour + 1) % 12 or 12
        if minute == 0:
            return f"{self.cardinal(spoken)} बजे"
        if minute == 15:
            return f"सवा {self.cardinal(spoken)} बजे"
        if minute == 30:
            return f"{self.half_more(spoken)} बजे"
        if minute == 45:
            return f"पौने {self.cardinal(following)} बजे"
        return f"{self.cardinal(spoken)} बजकर {self.cardinal(minute)} मिनट"

    def time_with_seconds(self, hour: int, minute: int, seconds: int) -> str:
        """12:10:10: बारह बजकर दस मिनट दस सेकंड."""
        minutes = f"{self.cardinal(minute)} मिनट " if minute else ""
        return f"{self.cardinal(hour % 12 or 12)} बजकर {minutes}{self.cardinal(seconds)} सेकंड"

    def currency_words(self, currency: Currency, one: bool) -> tuple[str, str]:
        """एक रुपया, पाँच रुपये (the other currencies' names do not change)."""
        name = "रुपया" if one and currency.code == "INR" else currency.hindi
        return name, currency.hindi_hundredth

    def unit_name(self, unit: Unit, quantity: str) -> str:
        return unit.hindi_one if unit.hindi_one and quantity == "1" else unit.hindi

    def date(self, day: int, month: int, year: int) -> str:
        return f"{self.cardinal(day)} {MONTHS[month - 1]} {self.year(year)}"

    def ordinal(self, n: int, suffix: str) -> str:
        """``n`` with a written ordinal suffix (1ला, 2री, 21वीं): पहला, दूसरी, इक्कीसवीं."""
        form = next((f for f in ("ा", "ी", "े") if f in suffix), "ा")
        if n in ORDINAL_STEMS:
            return ORDINAL_STEMS[n] + form
        return self.cardinal(n) + {"ा": "वाँ", "ी": "वीं", "े": "वें"}[form]

    def code_rules(self) -> list[Rule]:
        """What the words around a number decide (:mod:`hindi_context`: clock ranges,
        financial years, trains' classes, flights, masked numbers, cricket), scores,
        and times with AM/PM, before the clock rule reads them bare; a number
        1100-1999 before में, से, तक, की, ई. is a year (1526 में: पंद्रह सौ छब्बीस)."""
        return [
            *context_rules(self),
            *super().code_rules(),
            Rule(
                re.compile(
                    r"(?<![\w.,\-–])(1[1-9]\d\d)(?=\s+(?:में|से|तक|की|के|का|ई\.|ईसवी|ईस्वी)(?!\w))"
                ),
                lambda m: self.year(int(m[1])),
            ),
            Rule(  # a score, not a range: भारत ने 2-1 से जीता -> दो-एक
                re.compile(
                    r"(?<![\w.])(\d{1,2})\s?[-–]\s?(\d{1,2})"
                    r"(?=\s+से\s+(?:\S+\s+)?(?:जीत|हरा|हार|मात|बढ़त))"
                ),
                lambda m: f"{self.cardinal(int(m[1]))}-{self.cardinal(int(m[2]))}",
            ),
            Rule(
                re.compile(
                    r"(?:(?:सुबह|दोपहर|शाम|रात)\s+)?"  # said below: once is enough
                    r"(?<![\d.])([01]?\d|2[0-3])(?:[:.]([0-5]\d))?\s?([AaPp])\.?\s?[Mm]\.?"
                    r"(?![A-Za-z])(?:\s?बजे)?"
                ),
                lambda m: self.clock(int(m[1]), int(m[2] or 0), m[3].lower() == "p"),
            ),
        ]

    def address_word(self, word: str) -> str:
        return native_spelling(word, "hi")

    def code_name(self, word: str) -> str:
        return CODE_WORDS.get(word.lower(), word)

    def glue_words(self, text: str) -> str:
        text = super().glue_words(text)
        return LATIN_WORDS.sub(lambda m: GLUE_WORDS.get(m[0].lower(), m[0]), text)

    def clock(self, hour: int, minute: int, pm: bool) -> str:
        """A time written with AM/PM, with the part of the day Hindi says before it."""
        hour = hour % 12 + (12 if pm else 0)
        period = "रात" if hour < 4 else "सुबह" if hour < 12 else "दोपहर" if hour < 16 else "शाम"
        period = "रात" if hour >= 20 else period
        return f"{period} {self.time(hour, minute)}"

    def day_month(self, day: int, month: int, year: str | None, month_first: bool) -> str:
        spoken = f"{self.cardinal(day)} {MONTHS[month - 1]}"
        return spoken + (f" {self.year(int(year))}" if year else "")

    @staticmethod
    def scale_words(written: str) -> str:
        return " ".join(SCALE_WORDS[word.lower()] for word in written.split())

    def quarter_more(self, whole: int) -> str:
        """``whole`` and a quarter: सवा (one and a quarter: सवा किलो, सवा लाख), सवा दो."""
        return "सवा" if whole == 1 else f"सवा {self.cardinal(whole)}"

    def scaled(self, text: str) -> str:
        """A number before लाख/करोड़/हज़ार: 1.5 -> डेढ़, 2.5 -> ढाई, 1.25 -> सवा."""
        whole, fraction = parse_number(text)
        fraction = fraction.rstrip("0")
        if fraction == "5":
            return self.half_more(whole)
        if fraction == "25" and whole:
            return self.quarter_more(whole)
        if fraction == "75":
            return f"पौने {self.cardinal(whole + 1)}"
        return self.number(text)

    def in_scale(self, text: str, written: str) -> str:
        """A number and its scale word(s): halves and quarters by name (ढाई लाख), any
        other decimal of one scale as the amount it makes (3.2 लाख: तीन लाख बीस हज़ार,
        12.34 करोड़: बारह करोड़ चौंतीस लाख), as Indians say such sums."""
        words = self.scale_words(written)
        whole, fraction = parse_number(text)
        fraction = fraction.rstrip("0")
        if fraction and fraction not in ("5", "25", "75") and words in SCALE_VALUES:
            scale = SCALE_VALUES[words]
            if len(fraction) < len(str(scale)):  # 3.2 लाख = 3,20,000
                return self.cardinal(whole * scale + int(fraction.ljust(len(str(scale)) - 1, "0")))
        return f"{self.scaled(text)} {words}"

    def money_rules(self, currency: str) -> list[Rule]:
        one = alternatives(SCALE_WORDS)
        scales = rf"(?:{one})(?:\s+(?:{one}))?"  # लाख करोड़
        return [
            Rule(  # ₹1.5 लाख, Rs 2 crore, ₹1-2 लाख: the scale before the currency
                re.compile(
                    rf"({currency})\s?({NUMBER})(?:\s?[-–]\s?({NUMBER}))?\s?({scales})(?![\w])",
                    re.I,
                ),
                lambda m: (
                    (f"{self.scaled(m[2])} {self.to} " if m[3] else "")
                    + f"{self.in_scale(m[3] or m[2], m[4])} "
                    + currency_of(m[1]).hindi
                ),
            ),
            Rule(
                re.compile(rf"(?<![\w.])({NUMBER})\s?({scales})(?![\w])", re.I),
                lambda m: self.in_scale(m[1], m[2]),
            ),
            # "₹500 रुपये" says the currency twice: read it once; "Rs.500/-" closes it.
            Rule(
                re.compile(rf"({currency})\s?({NUMBER})({RUPEES_AFTER}|/-)?", re.I),
                lambda m: self.money(m[2], currency_of(m[1])),
            ),
        ]

    def amount_rules(self) -> list[Rule]:
        return [
            Rule(
                re.compile(rf"({NUMBER})(?:\s?/-|{RUPEES_AFTER}|\s?रु\.?(?!\w))"),
                lambda m: self.money(m[1], CURRENCIES["INR"]),
            ),
        ]

    def ordinal_rules(self) -> list[Rule]:
        return [
            Rule(ORDINAL_SUFFIX, lambda m: self.ordinal(int(m[1]), m[2])),
            # 2nd फ्लोर: an ordinal written the English way is said in English (सेकंड
            # फ्लोर, ट्वेंटी सेकंड); 1ला, 2री are Hindi's own (पहला, दूसरी)
            Rule(ENGLISH_ORDINAL, lambda m: english_ordinal(int(m[1]), "hi")),
        ]

    def fraction(self, numerator: int, denominator: int) -> str:
        """आधा, तीन चौथाई, दो तिहाई; the rest with बटा (पाँच बटा आठ)."""
        if (numerator, denominator) == (24, 7):
            return "ट्वेंटी फ़ोर सेवन"  # round the clock, as it is said in Hindi
        if (numerator, denominator) == (1, 2):
            return "आधा"
        names = {3: "तिहाई", 4: "चौथाई"}
        if denominator in names and numerator < denominator:
            return f"{self.cardinal(numerator)} {names[denominator]}"
        return f"{self.cardinal(numerator)} बटा {self.cardinal(denominator)}"
