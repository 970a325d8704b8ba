"""Hindi, read as a native speaker reads it aloud.

Numbers use Indian grouping (हज़ार, लाख, करोड़); 1100-1999 are read in hundreds
(उन्नीस सौ सैंतालीस), as Hindi speakers say years and round sums. Money, dates,
times (साढ़े दस बजे), phone numbers (digit groups), ordinals, ranges, units,
fractions (डेढ़, ढाई) and common abbreviations have their own rules.
"""

from __future__ import annotations

import re

from deployments.normaliser.languages.base import NUMBER, Reader, Rule, alternatives, parse_number

# 0-99 are irregular in Hindi: a table, not a rule.
ONES = (
    "शून्य एक दो तीन चार पाँच छह सात आठ नौ "
    "दस ग्यारह बारह तेरह चौदह पंद्रह सोलह सत्रह अठारह उन्नीस "
    "बीस इक्कीस बाईस तेईस चौबीस पच्चीस छब्बीस सत्ताईस अट्ठाईस उनतीस "
    "तीस इकतीस बत्तीस तैंतीस चौंतीस पैंतीस छत्तीस सैंतीस अड़तीस उनतालीस "
    "चालीस इकतालीस बयालीस तैंतालीस चवालीस पैंतालीस छियालीस सैंतालीस अड़तालीस उनचास "
    "पचास इक्यावन बावन तिरपन चौवन पचपन छप्पन सत्तावन अट्ठावन उनसठ "
    "साठ इकसठ बासठ तिरसठ चौंसठ पैंसठ छियासठ सड़सठ अड़सठ उनहत्तर "
    "सत्तर इकहत्तर बहत्तर तिहत्तर चौहत्तर पचहत्तर छिहत्तर सतहत्तर अठहत्तर उन्यासी "
    "अस्सी इक्यासी बयासी तिरासी चौरासी पचासी छियासी सत्तासी अट्ठासी नवासी "
    "नब्बे इक्यानवे बानवे तिरानवे चौरानवे पचानवे छियानवे सत्तानवे अट्ठानवे निन्यानवे"
).split()
assert len(ONES) == 100

SCALES = ((10**7, "करोड़"), (10**5, "लाख"), (1000, "हज़ार"), (100, "सौ"))
MONTHS = ("जनवरी फ़रवरी मार्च अप्रैल मई जून जुलाई अगस्त सितंबर अक्टूबर नवंबर दिसंबर").split()
# Ordinals 1-4 and 6 are their own words; the rest are the cardinal + वाँ/वीं/वें.
ORDINAL_STEMS = {1: "पहल", 2: "दूसर", 3: "तीसर", 4: "चौथ", 6: "छठ"}
ORDINAL_SUFFIX = re.compile(r"(\d+)\s?(वाँ|वां|वीं|वें|ला|ली|ले|रा|री|रे|था|थी|थे|ठा|ठी|ठे)(?!\w)")

CURRENCIES = {
    "₹": "रुपये",
    "rs": "रुपये",
    "rs.": "रुपये",
    "inr": "रुपये",
    "रु": "रुपये",
    "रु.": "रुपये",
    "$": "डॉलर",
    "usd": "डॉलर",
    "€": "यूरो",
    "£": "पाउंड",
}
SUBUNITS = {"रुपये": "पैसे", "डॉलर": "सेंट", "यूरो": "सेंट", "पाउंड": "पेंस"}
UNITS = {
    "km/h": "किलोमीटर प्रति घंटा",
    "kmph": "किलोमीटर प्रति घंटा",
    "km": "किलोमीटर",
    "kg": "किलोग्राम",
    "cm": "सेंटीमीटर",
    "mm": "मिलीमीटर",
    "ml": "मिलीलीटर",
    "m": "मीटर",
    "g": "ग्राम",
    "mg": "मिलीग्राम",
    "l": "लीटर",
    "°c": "डिग्री सेल्सियस",
    "°": "डिग्री",
    "gb": "जीबी",
    "mb": "एमबी",
    "kw": "किलोवाट",
    "किमी": "किलोमीटर",
    "कि.मी.": "किलोमीटर",
    "किग्रा": "किलोग्राम",
    "किलो": "किलो",
    "मीटर": "मीटर",
    "लीटर": "लीटर",
    "ग्राम": "ग्राम",
    "घंटे": "घंटे",
    "मिनट": "मिनट",
    "साल": "साल",
    "दिन": "दिन",
}
ABBREVIATIONS = {
    "डॉ.": "डॉक्टर",
    "प्रो.": "प्रोफ़ेसर",
    "श्री.": "श्री",
    "सु.": "सुश्री",
    "कु.": "कुमारी",
    "स्व.": "स्वर्गीय",
    "पं.": "पंडित",
    "मो.": "मोहम्मद",
    "ई.": "ईसवी",
    "ई.पू.": "ईसा पूर्व",
    "Dr.": "डॉक्टर",
    "Mr.": "मिस्टर",
    "Mrs.": "मिसेज़",
    "Prof.": "प्रोफ़ेसर",
}
FRACTIONS = {"½": "आधा", "¼": "एक चौथाई", "¾": "तीन चौथाई", "⅓": "एक तिहाई", "⅔": "दो तिहाई"}


class HindiReader(Reader):
    decimal_word = "दशमलव"
    minus_word = "माइनस"
    percent_word = "प्रतिशत"

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

    def number(self, text: str) -> str:
        if "," not in text and "." not in text and 1100 <= int(text) <= 1999:
            return self.in_hundreds(int(text))
        return super().number(text)

    def year(self, n: int) -> str:
        return self.in_hundreds(n) if 1100 <= n <= 1999 else self.cardinal(n)

    def half_more(self, whole: int) -> str:
        """``whole`` and a half: डेढ़, ढाई, साढ़े तीन."""
        return {0: "आधा", 1: "डेढ़", 2: "ढाई"}.get(whole) or f"साढ़े {self.cardinal(whole)}"

    def quantity(self, text: str) -> str:
        """A number before a unit or currency: x.5 is read as डेढ़, ढाई, साढ़े x."""
        whole, fraction = parse_number(text)
        if fraction == "5":
            return self.half_more(whole)
        return self.number(text)

    def money(self, amount: str, unit: str) -> str:
        whole, _, fraction = amount.partition(".")
        words = f"{self.number(whole)} {unit}"
        cents = int((fraction + "00")[:2]) if fraction else 0
        if cents:
            words += f" {self.cardinal(cents)} {SUBUNITS[unit]}"
        return words

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

    def date(self, day: int, month: int, year: int | None) -> str:
        words = f"{self.cardinal(day)} {MONTHS[month - 1]}"
        return words + (f" {self.year(year)}" if year is not None else "")

    def ordinal(self, n: int, suffix: str) -> str:
        """``n`` with a written ordinal suffix (1ला, 2री, 21वीं): पहला, दूसरी, इक्कीसवीं."""
        form = next((f for f in ("ा", "ी", "े") if f in suffix), "ा")
        if n in ORDINAL_STEMS:
            return ORDINAL_STEMS[n] + form
        return self.cardinal(n) + {"ा": "वाँ", "ी": "वीं", "े": "वें"}[form]

    def rules(self) -> list[Rule]:
        units = alternatives(UNITS)
        currency = r"₹|Rs\.?|INR|रु\.?|\$|USD|€|£"
        return [
            Rule(
                re.compile(r"(\+91[\s-]?)?(?<!\d)([6-9]\d{4})[\s-]?(\d{5})(?!\d)"),
                lambda m: (
                    ("प्लस नौ एक, " if m[1] else "") + f"{self.digits(m[2])}, {self.digits(m[3])}"
                ),
            ),
            Rule(
                re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)"),
                lambda m: self._date(m[3], m[2], m[1]) or m[0],
            ),
            Rule(
                re.compile(r"(?<!\d)(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})(?!\d)"),
                lambda m: self._date(m[1], m[2], m[3]) or m[0],
            ),
            Rule(
                re.compile(r"(?<!\d)([01]?\d|2[0-3]):([0-5]\d)(?!\d)(\s?बजे)?"),
                lambda m: self.time(int(m[1]), int(m[2])),
            ),
            Rule(
                re.compile(rf"({currency})\s?({NUMBER})(\s?(?:रुपये|रुपए|रूपये))?", re.I),
                lambda m: self.money(m[2], CURRENCIES[m[1].lower()]),
            ),
            Rule(
                re.compile(rf"(?<![\w.])({NUMBER})\s?[-–]\s?({NUMBER})(?![\w.])"),
                lambda m: f"{self.number(m[1])} से {self.number(m[2])}",
            ),
            Rule(
                re.compile(rf"({NUMBER})\s?(?:/-|रुपये|रुपए|रूपये|रु\.?(?!\w))"),
                lambda m: self.money(m[1], "रुपये"),
            ),
            Rule(re.compile(rf"({NUMBER})\s?%"), lambda m: f"{self.number(m[1])} प्रतिशत"),
            Rule(
                re.compile(r"(?<!\d)(\d+)?\s?([½¼¾⅓⅔])"),
                lambda m: self._vulgar(m[1], m[2]),
            ),
            Rule(
                re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})(?![\d/])"),
                lambda m: self._fraction(int(m[1]), int(m[2])),
            ),
            Rule(
                re.compile(rf"({NUMBER})\s?({units})(?![\w])", re.I),
                lambda m: f"{self.quantity(m[1])} {UNITS[m[2].lower()]}",
            ),
            Rule(ORDINAL_SUFFIX, lambda m: self.ordinal(int(m[1]), m[2])),
            Rule(
                re.compile(r"(\d+)(?:st|nd|rd|th)(?![\w])", re.I),
                lambda m: self.ordinal(int(m[1]), "ा"),
            ),
            Rule(
                re.compile(alternatives(ABBREVIATIONS)),
                lambda m: ABBREVIATIONS[m[0]],
            ),
            Rule(re.compile(r"\s&\s"), lambda m: " और "),
            *super().rules(),
        ]

    def _date(self, day: str, month: str, year: str) -> str | None:
        d, mo = int(day), int(month)
        if not (1 <= d <= 31 and 1 <= mo <= 12):
            return None
        y = int(year)
        if len(year) == 2:
            y += 2000 if y < 50 else 1900
        return self.date(d, mo, y)

    def _vulgar(self, whole: str | None, symbol: str) -> str:
        if symbol == "½" and whole:
            return self.half_more(int(whole))
        words = FRACTIONS[symbol]
        return f"{self.cardinal(int(whole))} और {words}" if whole else words

    def _fraction(self, numerator: int, denominator: int) -> str:
        if (numerator, denominator) == (1, 2):
            return "आधा"
        names = {3: "तिहाई", 4: "चौथाई"}
        if denominator in names and numerator < denominator:
            return f"{self.cardinal(numerator)} {names[denominator]}"
        return f"{self.cardinal(numerator)} बटा {self.cardinal(denominator)}"
