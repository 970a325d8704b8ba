"""Currencies people write in Indian messages: signs, abbreviations and ISO codes,
and what each is called in Hindi and in English.

A sign (``₹``, ``$``, ``₩``) or abbreviation (``Rs.``, ``रु``, ``Dhs``) is matched in
any case; an ISO code (``AED``, ``SAR``) only in capitals, before or after the
amount, so that a word that happens to spell one (``sar``) stays a word. No sign
reaches the voice: every one here has its name. A currency without a hundredth in
use (yen, won) reads an amount's decimals as a number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Currency:
    code: str
    signs: tuple[str, ...]
    hindi: str
    hindi_hundredth: str
    english: str
    english_plural: str
    english_hundredth: str


def _currency(code: str, signs: str, hindi: str, english: str, plural: str = "") -> Currency:
    unit, _, hundredth = hindi.partition("/")
    one, _, english_hundredth = english.partition("/")
    return Currency(
        code,
        tuple(s for s in signs.split("|") if s),
        unit,
        hundredth,
        one,
        plural or one + "s",
        english_hundredth,
    )


CURRENCIES = {
    c.code: c
    for c in (
        _currency("INR", "₹|rs|rs.|रु|रु.", "रुपये/पैसे", "rupee/paise"),
        _currency("USD", "$|US$", "डॉलर/सेंट", "dollar/cents"),
        _currency("EUR", "€", "यूरो/सेंट", "euro/cents"),
        _currency("GBP", "£", "पाउंड/पेंस", "pound/pence"),
        _currency("JPY", "¥", "येन", "yen", "yen"),
        _currency("CNY", "CN¥|RMB", "युआन", "yuan", "yuan"),
        _currency("KRW", "₩", "वॉन", "won", "won"),
        _currency("TRY", "₺", "लीरा/कुरुश", "lira/kurus"),
        _currency("RUB", "₽", "रूबल/कोपेक", "rouble/kopecks"),
        _currency("THB", "฿", "बाट", "baht", "baht"),
        _currency("BDT", "৳|Tk", "टका/पैसे", "taka/poisha", "taka"),
        _currency("PHP", "₱", "पेसो", "peso"),
        _currency("NGN", "₦", "नायरा/कोबो", "naira/kobo", "naira"),
        _currency("VND", "₫", "डोंग", "dong", "dong"),
        _currency("AED", "Dhs|Dh", "दिरहम/फ़िल्स", "dirham/fils"),
        _currency("SAR", "", "रियाल/हलाला", "riyal/halalas"),
        _currency("QAR", "", "क़तरी रियाल", "Qatari riyal"),
        _currency("OMR", "", "ओमानी रियाल", "Omani rial"),
        _currency("KWD", "", "कुवैती दीनार", "Kuwaiti dinar"),
        _currency("BHD", "", "बहरीनी दीनार", "Bahraini dinar"),
        _currency("SGD", "S$", "सिंगापुर डॉलर/सेंट", "Singapore dollar/cents"),
        _currency("AUD", "A$", "ऑस्ट्रेलियाई डॉलर/सेंट", "Australian dollar/cents"),
        _currency("CAD", "C$", "कनाडाई डॉलर/सेंट", "Canadian dollar/cents"),
        _currency("CHF", "", "स्विस फ़्रैंक", "Swiss franc"),
        _currency("NPR", "", "नेपाली रुपये/पैसे", "Nepalese rupee/paisa"),
        _currency("LKR", "", "श्रीलंकाई रुपये/सेंट", "Sri Lankan rupee/cents"),
        _currency("PKR", "", "पाकिस्तानी रुपये/पैसे", "Pakistani rupee/paisa"),
    )
}

# Written form (lower case) -> ISO code.
_BY_WRITTEN = {
    written.lower(): c.code for c in CURRENCIES.values() for written in (*c.signs, c.code)
}


def _alternation() -> str:
    """Signs and abbreviations in any case, ISO codes in capitals (inline flags
    inside a pattern compiled with re.I), longest first."""
    forms = [(s, False) for c in CURRENCIES.values() for s in c.signs]
    forms += [(c.code, True) for c in CURRENCIES.values()]
    forms.sort(key=lambda f: len(f[0]), reverse=True)
    return "|".join(f"(?-i:{re.escape(w)})" if iso else re.escape(w) for w, iso in forms)


# Any currency as written before an amount (compile with re.I).
WRITTEN = _alternation()
# ISO codes alone, as written after an amount (500 AED).
CODES = "|".join(sorted(CURRENCIES, key=len, reverse=True))


def currency_of(written: str) -> Currency:
    """The currency a sign, abbreviation or code stands for."""
    return CURRENCIES[_BY_WRITTEN[written.lower()]]
