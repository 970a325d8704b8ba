"""What the other Indian languages with a number reader say for the written forms
the shared rules read (:class:`context.ContextReader`): month names, the rupee, a
range, the clock. Written by hand; where a language joins a word to the number
before it in a way a rule cannot (Kannada's ರಿಂದ for a range), the form is left
out and the rule leaves the text as written.

Units and the other currencies are loanwords in every one of these languages:
their English names, written in the language's script by :mod:`english_words`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class IndicWords:
    months: tuple[str, ...]
    rupees: str
    paise: str
    and_: str
    plus: str
    # A range: "{a} {to} {b} {until}" (Tamil பத்து முதல் இருபது வரை); "" to leave it.
    to: str
    until: str
    # The clock, with {h} and {m}: on the hour, and with minutes.
    on_the_hour: str
    with_minutes: str
    seconds: str
    # Years 1100-1999 said in hundreds, as in Hindi (एकोणीसशे सत्तेचाळीस), with this
    # after the hundreds; "" where years are read as any number.
    hundreds: str = ""


def _months(names: str) -> tuple[str, ...]:
    months = tuple(names.split())
    assert len(months) == 12, names
    return months


WORDS = {
    "mr": IndicWords(
        months=_months("जानेवारी फेब्रुवारी मार्च एप्रिल मे जून जुलै ऑगस्ट सप्टेंबर ऑक्टोबर नोव्हेंबर डिसेंबर"),
        rupees="रुपये",
        paise="पैसे",
        and_="आणि",
        plus="प्लस",
        to="ते",
        until="",
        on_the_hour="{h} वाजता",
        with_minutes="{h} वाजून {m} मिनिटे",
        seconds="सेकंद",
        hundreds="शे",
    ),
    "bn": IndicWords(
        months=_months("জানুয়ারি ফেব্রুয়ারি মার্চ এপ্রিল মে জুন জুলাই আগস্ট সেপ্টেম্বর অক্টোবর নভেম্বর ডিসেম্বর"),
        rupees="টাকা",
        paise="পয়সা",
        and_="এবং",
        plus="প্লাস",
        to="থেকে",
        until="",
        on_the_hour="{h}টা",
        with_minutes="{h}টা বেজে {m} মিনিট",
        seconds="সেকেন্ড",
        hundreds="শো",
    ),
    "ta": IndicWords(
        months=_months("ஜனவரி பிப்ரவரி மார்ச் ஏப்ரல் மே ஜூன் ஜூலை ஆகஸ்ட் செப்டம்பர் அக்டோபர் நவம்பர் டிசம்பர்"),
        rupees="ரூபாய்",
        paise="பைசா",
        and_="மற்றும்",
        plus="பிளஸ்",
        to="முதல்",
        until="வரை",
        on_the_hour="{h} மணி",
        with_minutes="{h} மணி {m} நிமிடம்",
        seconds="வினாடி",
    ),
    "te": IndicWords(
        months=_months("జనవరి ఫిబ్రవరి మార్చి ఏప్రిల్ మే జూన్ జూలై ఆగస్టు సెప్టెంబరు అక్టోబరు నవంబరు డిసెంబరు"),
        rupees="రూపాయలు",
        paise="పైసలు",
        and_="మరియు",
        plus="ప్లస్",
        to="నుండి",
        until="వరకు",
        on_the_hour="{h} గంటలు",
        with_minutes="{h} గంటల {m} నిమిషాలు",
        seconds="సెకన్లు",
    ),
    "kn": IndicWords(
        months=_months("ಜನವರಿ ಫೆಬ್ರವರಿ ಮಾರ್ಚ್ ಏಪ್ರಿಲ್ ಮೇ ಜೂನ್ ಜುಲೈ ಆಗಸ್ಟ್ ಸೆಪ್ಟೆಂಬರ್ ಅಕ್ಟೋಬರ್ ನವೆಂಬರ್ ಡಿಸೆಂಬರ್"),
        rupees="ರೂಪಾಯಿ",
        paise="ಪೈಸೆ",
        and_="ಮತ್ತು",
        plus="ಪ್ಲಸ್",
        to="",  # ಹತ್ತರಿಂದ: joined to the number, not a word of its own
        until="",
        on_the_hour="{h} ಗಂಟೆ",
        with_minutes="{h} ಗಂಟೆ {m} ನಿಮಿಷ",
        seconds="ಸೆಕೆಂಡು",
    ),
}
