"""Hindi, read as a native speaker reads it aloud.

Numbers use Indian grouping (हज़ार, लाख, करोड़); 1100-1999 are read in hundreds
(उन्नीस सौ सैंतालीस), as Hindi speakers say years and round sums. Money, dates,
times (साढ़े दस बजे), phone numbers (digit groups), ordinals, ranges, units,
fractions (डेढ़, ढाई) and common abbreviations have their own rules.
"""

from __future__ import annotations

import re

from deployments.normaliser.english_words import native_spelling
from deployments.normaliser.languages.base import NUMBER, Rule, alternatives, parse_number
from deployments.normaliser.languages.context import CURRENCY_CODES, ContextReader

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
MONTHS = tuple("जनवरी फ़रवरी मार्च अप्रैल मई जून जुलाई अगस्त सितंबर अक्टूबर नवंबर दिसंबर".split())
# Ordinals 1-4 and 6 are their own words; the rest are the cardinal + वाँ/वीं/वें.
ORDINAL_STEMS = {1: "पहल", 2: "दूसर", 3: "तीसर", 4: "चौथ", 6: "छठ"}
ORDINAL_SUFFIX = re.compile(r"(\d+)\s?(वाँ|वां|वीं|वें|ला|ली|ले|रा|री|रे|था|थी|थे|ठा|ठी|ठे)(?!\w)")

CURRENCY_NAMES = {
    "inr": ("रुपये", "पैसे"),
    "usd": ("डॉलर", "सेंट"),
    "eur": ("यूरो", "सेंट"),
    "gbp": ("पाउंड", "पेंस"),
}
RUPEES_AFTER = r"\s?(?:रुपये|रुपए|रूपये)"
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

# Latin letters as Hindi speakers name them when they spell an acronym (एस बी आई).
LETTERS = dict(
    zip(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "ए बी सी डी ई एफ़ जी एच आई जे के एल एम एन ओ पी क्यू आर एस टी यू वी डब्ल्यू एक्स वाई ज़ेड".split(),
        strict=True,
    )
)
# Acronyms said as words, not letters.
WORD_ACRONYMS = {
    "NASA": "नासा",
    "ISRO": "इसरो",
    "COVID": "कोविड",
    "UNESCO": "यूनेस्को",
    "UNICEF": "यूनिसेफ़",
    "NATO": "नाटो",
    "AIIMS": "एम्स",
    "SEBI": "सेबी",
    "NABARD": "नाबार्ड",
    "FIFA": "फ़ीफ़ा",
    "SIM": "सिम",
    "PIN": "पिन",
    "RAM": "रैम",
    "WIFI": "वाईफ़ाई",
    "OK": "ओके",
}
# Digits as English words, the way Hindi speakers say 5G, 4K, A1.
ENGLISH_DIGITS = tuple("ज़ीरो वन टू थ्री फ़ोर फ़ाइव सिक्स सेवन एट नाइन".split())
# The Latin words before a code, as Hindi says them.
CODE_WORDS = {
    "account": "अकाउंट",
    "acct": "अकाउंट",
    "a/c": "अकाउंट",
    "card": "कार्ड",
    "ref": "रेफ़रेंस",
    "reference": "रेफ़रेंस",
    "mobile": "मोबाइल",
    "phone": "फ़ोन",
}
LATIN_WORDS = re.compile(r"[A-Za-z]+\.?")
GLUE_WORDS = {"no": "नंबर", "no.": "नंबर", "number": "नंबर", "code": "कोड", "is": ""}
# How the parts of an address are read out.
SEPARATORS = {".": "डॉट", "+": "प्लस", "_": "अंडरस्कोर", "-": "डैश"}
DOMAIN_WORDS = {
    "www": "डब्ल्यू डब्ल्यू डब्ल्यू",
    "com": "कॉम",
    "in": "इन",
    "co": "को",
    "net": "नेट",
    "org": "ओ आर जी",
    "gov": "जी ओ वी",
    "edu": "ई डी यू",
    "io": "आई ओ",
    "info": "इन्फ़ो",
    "app": "ऐप",
}
# Written scale words, said as Hindi scale words.
SCALE_WORDS = {
    "लाख": "लाख",
    "करोड़": "करोड़",
    "करोड": "करोड़",
    "हज़ार": "हज़ार",
    "हजार": "हज़ार",
    "lakh": "लाख",
    "lakhs": "लाख",
    "lac": "लाख",
    "crore": "करोड़",
    "crores": "करोड़",
    "cr": "करोड़",
    "thousand": "हज़ार",
    "k": "हज़ार",
}


class HindiReader(ContextReader):
    decimal_word = "दशमलव"
    minus_word = "माइनस"
    percent_word = "प्रतिशत"
    plus_word = "प्लस"
    to = "से"
    and_ = "और"
    currency_names = CURRENCY_NAMES
    units = UNITS
    abbreviations = ABBREVIATIONS
    vulgar_fractions = FRACTIONS
    after_time = r"\s?बजे"
    ratio_word = "अनुपात"
    version_point = "पॉइंट"
    ratio_names = ContextReader.ratio_names + "|अनुपात"
    code_names = (
        ContextReader.code_names + r"|ओटीपी|पिन|खाता|खाते|अकाउंट|कार्ड|रेफ़रेंस|रेफरेंस|संदर्भ|"
        r"मोबाइल|फ़ोन|फोन|आईडी|नंबर|नं\.|हेल्पलाइन|व्हाट्सऐप|ऑर्डर|ट्रेन|गाड़ी|अंक|अंकों"
    )
    code_glue = ContextReader.code_glue + r"|है|हैं|नंबर|नं\.?|संख्या|कोड"
    amount_after = r"रुपये|रुपए|/-"
    letter_names = LETTERS
    word_acronyms = WORD_ACRONYMS
    letter_digits = ENGLISH_DIGITS
    months = MONTHS
    amount_scales = alternatives(SCALE_WORDS)

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
        """Before a unit, x.5 is read as डेढ़, ढाई, साढ़े x."""
        whole, fraction = parse_number(text)
        return self.half_more(whole) if fraction == "5" else self.number(text)

    def vulgar(self, whole: str | None, symbol: str) -> str:
        if symbol == "½" and whole:
            return self.half_more(int(whole))
        return super().vulgar(whole, symbol)

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

    def date(self, day: int, month: int, year: int) -> str:
        return f"{self.cardinal(day)} {MONTHS[month - 1]} {self.year(year)}"

    def ordinal(self, n: int, suffix: str) -> str:
        """``n`` with a written ordinal suffix (1ला, 2री, 21वीं): पहला, दूसरी, इक्कीसवीं."""
        form = next((f for f in ("ा", "ी", "े") if f in suffix), "ा")
        if n in ORDINAL_STEMS:
            return ORDINAL_STEMS[n] + form
        return self.cardinal(n) + {"ा": "वाँ", "ी": "वीं", "े": "वें"}[form]

    def code_rules(self) -> list[Rule]:
        """E-mail addresses and web addresses as Indians read them out; times with
        AM/PM, before the clock rule reads them bare."""
        return [
            Rule(
                re.compile(r"(?<![\w.@])([\w.+-]+)@([\w-]+(?:\.[\w-]+)+)(?![\w@])"),
                lambda m: f"{self.address_part(m[1])} एट द रेट {self.address_part(m[2])}",
            ),
            Rule(
                re.compile(
                    r"(?<![\w.@/])(?:https?://)?((?:www\.)?[\w-]+(?:\.[\w-]+)*\.(?:com|in|org|net"
                    r"|gov|co|edu|io|info|app)(?:\.in)?)((?:/[\w.-]*)*)(?![\w@])"
                ),
                lambda m: self.address_part(m[1]) + self.address_path(m[2]),
            ),
            *super().code_rules(),
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
                    r"(?<!\d)([01]?\d|2[0-3])(?::([0-5]\d))?\s?([AaPp])\.?\s?[Mm]\.?"
                    r"(?![A-Za-z])(?:\s?बजे)?"
                ),
                lambda m: self.clock(int(m[1]), int(m[2] or 0), m[3].lower() == "p"),
            ),
        ]

    def address_part(self, text: str) -> str:
        """``bank.co.in`` -> बैंक डॉट को डॉट इन: dots said, letters of a domain suffix
        spelled where Indians spell them (डॉट ओ आर जी), words in Devanagari."""
        parts = []
        for part in re.split(r"([.+_-])", text):
            if part in SEPARATORS:
                parts.append(SEPARATORS[part])
            elif part.lower() in DOMAIN_WORDS:
                parts.append(DOMAIN_WORDS[part.lower()])
            elif part.isdigit():
                parts.append(self.digits(part))
            elif part:
                parts.append(native_spelling(part, "hi"))
        return " ".join(parts)

    def address_path(self, path: str) -> str:
        return "".join(f" स्लैश {self.address_part(p)}".rstrip() for p in path.split("/")[1:])

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

    def scaled(self, text: str) -> str:
        """A number before लाख/करोड़/हज़ार: 1.5 -> डेढ़, 2.5 -> ढाई, 1.25 -> सवा एक."""
        whole, fraction = parse_number(text)
        if fraction == "5":
            return self.half_more(whole)
        if fraction == "25" and whole:
            return f"सवा {self.cardinal(whole)}"
        if fraction == "75":
            return f"पौने {self.cardinal(whole + 1)}"
        return self.number(text)

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
                    + f"{self.scaled(m[3] or m[2])} {self.scale_words(m[4])} "
                    + self.currency_names[CURRENCY_CODES[m[1].lower()]][0]
                ),
            ),
            Rule(
                re.compile(rf"(?<![\w.])({NUMBER})\s?({scales})(?![\w])", re.I),
                lambda m: f"{self.scaled(m[1])} {self.scale_words(m[2])}",
            ),
            # "₹500 रुपये" says the currency twice: read it once.
            Rule(
                re.compile(rf"({currency})\s?({NUMBER})({RUPEES_AFTER})?", re.I),
                lambda m: self.money(m[2], CURRENCY_CODES[m[1].lower()]),
            ),
        ]

    def amount_rules(self) -> list[Rule]:
        return [
            Rule(
                re.compile(rf"({NUMBER})(?:\s?/-|{RUPEES_AFTER}|\s?रु\.?(?!\w))"),
                lambda m: self.money(m[1], "inr"),
            ),
        ]

    def fraction_rules(self) -> list[Rule]:
        return [
            Rule(
                re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})(?![\d/])"),
                lambda m: self._fraction(int(m[1]), int(m[2])),
            )
        ]

    def ordinal_rules(self) -> list[Rule]:
        return [
            Rule(ORDINAL_SUFFIX, lambda m: self.ordinal(int(m[1]), m[2])),
            Rule(
                re.compile(r"(\d+)(?:st|nd|rd|th)(?![\w])", re.I),
                lambda m: self.ordinal(int(m[1]), "ा"),
            ),
        ]

    def _fraction(self, numerator: int, denominator: int) -> str:
        if (numerator, denominator) == (1, 2):
            return "आधा"
        names = {3: "तिहाई", 4: "चौथाई"}
        if denominator in names and numerator < denominator:
            return f"{self.cardinal(numerator)} {names[denominator]}"
        return f"{self.cardinal(numerator)} बटा {self.cardinal(denominator)}"
