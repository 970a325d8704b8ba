"""What the other Indian languages with a number reader say for the written forms
the shared rules read (:class:`in_full.InFullReader`): month names, the rupee, a
range, the clock, fractions, titles. Written by hand; where a language joins a
word to the number before it (Kannada's ರಿಂದ for a range, Tamil's ஒன்றரை), a small
function here does the joining.

Units and the other currencies are loanwords in every one of these languages:
their English names, written as the language writes them (``data/<language>_english.tsv``
for the common ones, reviewed by hand; else from their English sounds, by
:mod:`english_words`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

Cardinal = Callable[[int], str]
# A whole number and a fraction of ½, ¼ or ¾ said as one amount (दीड, ஒன்றரை), or
# None where the language has no such form for it.
Mixed = Callable[[Cardinal, int, str], "str | None"]


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
    # "one" before a noun it counts (ஒரு ரூபாய், ఒక కిలోమీటర్), and the rupee after it.
    one: str
    rupee: str
    # ½ ¼ ¾ alone, ``a/b`` as "{a} {over} {b}" (a door number 12/3 as much as 3/5),
    # and a whole number with ½ ¼ ¾ (:data:`Mixed`).
    half: str
    quarter: str
    three_quarters: str
    over: str
    mixed: Mixed
    # Units and other currencies by Hindi's names (Marathi shares its loanwords and
    # script), not written from the English names.
    hindi_loanwords: bool = False
    # Titles before names, as they are said (डॉ. -> डॉक्टर); the segmenter knows
    # their full stop does not end a sentence.
    abbreviations: dict[str, str] = field(default_factory=dict)
    # The first amount of a range with ``to`` joined to it, where it is a case
    # ending rather than a word (Kannada); None: a word of its own.
    range_from: Callable[[str], str] | None = None
    # A number's last word as it is said before a noun, where that differs (Telugu
    # ఐదు వందల రూపాయలు, రెండు వేల కిలోమీటర్లు).
    before_noun: dict[str, str] = field(default_factory=dict)
    # Years 1100-1999 said in hundreds, as in Hindi (एकोणीसशे सत्तेचाळीस), with this
    # after the hundreds; "" where years are read as any number.
    hundreds: str = ""
    # Units abbreviated in the language's own script -> the unit written in Latin
    # letters they stand for (ಕಿಮೀ -> km), said as that unit is.
    unit_abbreviations: dict[str, str] = field(default_factory=dict)


def _months(names: str) -> tuple[str, ...]:
    months = tuple(names.split())
    assert len(months) == 12, names
    return months


def kannada_from(amount: str) -> str:
    """Kannada's "from" on an amount's last word: ಹತ್ತು -> ಹತ್ತರಿಂದ, ಸಾವಿರ -> ಸಾವಿರದಿಂದ,
    ಕೋಟಿ -> ಕೋಟಿಯಿಂದ; a word in another script (a currency's name) is left as it is
    and the ending follows it as a word."""
    if amount.endswith("ು"):
        return amount[:-1] + "ರಿಂದ"
    if amount.endswith(("ಿ", "ೆ", "ೀ", "ೇ")):
        return amount + "ಯಿಂದ"
    if amount and "\u0c95" <= amount[-1] <= "\u0cb9":  # a consonant's own a
        return amount + "ದಿಂದ"
    return amount + " ಇಂದ"


def odia_from(amount: str) -> str:
    """Odia's "from" (ରୁ) on an amount's last word: ଦଶ -> ଦଶରୁ, ଶହେ -> ଶହେରୁ; a word in
    another script (a currency's name) is left as it is and the ending follows it."""
    if amount and "\u0b00" <= amount[-1] <= "\u0b7f":
        return amount + "ରୁ"
    return amount + " ରୁ"


def said_before(halves: dict[int, str], half: str, quarter: str, short_of: str) -> Mixed:
    """Marathi and Bengali put the fraction first: दीड, अडीच, साडे तीन; सव्वा दोन;
    पावणे दोन (1¾: a quarter short of two)."""

    def mixed(cardinal: Cardinal, whole: int, symbol: str) -> str:
        if symbol == "½":
            return halves.get(whole) or f"{half} {cardinal(whole)}"
        if symbol == "¼":
            return f"{quarter} {cardinal(whole)}"
        return f"{short_of} {cardinal(whole + 1)}"

    return mixed


def joined_after(endings: str, joins: dict[str, tuple[str | None, str]]) -> Mixed:
    """Tamil, Telugu and Kannada join the fraction to a number word that ends in one
    of ``endings`` (vowel signs): the ending becomes the first of ``joins[symbol]``
    (None: it stays), the fraction's word follows. ஒன்று -> ஒன்றரை, ಎರಡು -> ಎರಡೂವರೆ,
    రెండు -> రెండున్నర, ఒకటి -> ఒకటిన్నర."""

    def mixed(cardinal: Cardinal, whole: int, symbol: str) -> str | None:
        spoken = cardinal(whole)
        if symbol not in joins or not spoken or spoken[-1] not in endings:
            return None
        vowel, fraction = joins[symbol]
        return spoken[:-1] + (spoken[-1] if vowel is None else vowel) + fraction

    return mixed


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
        one="एक",
        rupee="रुपया",
        half="अर्धा",
        quarter="पाव",
        three_quarters="पाऊण",
        over="बटा",
        mixed=said_before({1: "दीड", 2: "अडीच"}, "साडे", "सव्वा", "पावणे"),
        abbreviations={
            "डॉ.": "डॉक्टर",
            "श्री.": "श्री",
            "सौ.": "सौभाग्यवती",
            "कु.": "कुमारी",
            "प्रा.": "प्राध्यापक",
            "स्व.": "स्वर्गीय",
            "चि.": "चिरंजीव",
            "श्रीमती.": "श्रीमती",
        },
        hindi_loanwords=True,
        hundreds="शे",
        unit_abbreviations={"किमी": "km", "कि.मी.": "km", "किग्रा": "kg", "कि.ग्रा.": "kg"},
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
        one="এক",
        rupee="টাকা",
        half="অর্ধেক",
        quarter="এক চতুর্থাংশ",
        three_quarters="তিন চতুর্থাংশ",
        over="বাই",
        mixed=said_before({1: "দেড়", 2: "আড়াই"}, "সাড়ে", "সোয়া", "পৌনে"),
        abbreviations={
            "ডাঃ": "ডাক্তার",
            "ডা.": "ডাক্তার",
            "ডঃ": "ডক্টর",
            "শ্রী.": "শ্রী",
            "শ্রীমতী.": "শ্রীমতী",
            "অধ্যাপক.": "অধ্যাপক",
        },
        hundreds="শো",
        unit_abbreviations={"কিমি": "km", "কি.মি.": "km", "কিগ্রা": "kg", "কি.গ্রা.": "kg"},
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
        one="ஒரு",
        rupee="ரூபாய்",
        half="அரை",
        quarter="கால்",
        three_quarters="முக்கால்",
        over="பை",
        mixed=joined_after("ு", {"½": ("", "ரை"), "¼": ("ே", " கால்"), "¾": ("ே", " முக்கால்")}),
        abbreviations={"திரு.": "திரு", "திருமதி.": "திருமதி", "செல்வி.": "செல்வி", "டாக்.": "டாக்டர்"},
        unit_abbreviations={"கிமீ": "km", "கி.மீ": "km", "கி.மீ.": "km", "கிகி": "kg", "கி.கி": "kg"},
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
        one="ఒక",
        rupee="రూపాయి",
        half="అర",
        quarter="పావు",
        three_quarters="ముప్పావు",
        over="బై",
        mixed=joined_after("ుి", {"½": (None, "న్నర")}),
        abbreviations={"డా.": "డాక్టర్", "శ్రీ.": "శ్రీ", "శ్రీమతి.": "శ్రీమతి", "ప్రొ.": "ప్రొఫెసర్"},
        before_noun={"వందలు": "వందల", "వేలు": "వేల", "లక్షలు": "లక్షల", "కోట్లు": "కోట్ల"},
        unit_abbreviations={"కిమీ": "km", "కి.మీ": "km", "కి.మీ.": "km", "కిగ్రా": "kg", "కి.గ్రా": "kg"},
    ),
    "kn": IndicWords(
        months=_months("ಜನವರಿ ಫೆಬ್ರವರಿ ಮಾರ್ಚ್ ಏಪ್ರಿಲ್ ಮೇ ಜೂನ್ ಜುಲೈ ಆಗಸ್ಟ್ ಸೆಪ್ಟೆಂಬರ್ ಅಕ್ಟೋಬರ್ ನವೆಂಬರ್ ಡಿಸೆಂಬರ್"),
        rupees="ರೂಪಾಯಿ",
        paise="ಪೈಸೆ",
        and_="ಮತ್ತು",
        plus="ಪ್ಲಸ್",
        range_from=kannada_from,
        to="ಇಂದ",  # joined to the number (:func:`kannada_from`): ಹತ್ತರಿಂದ ಇಪ್ಪತ್ತು
        until="",
        on_the_hour="{h} ಗಂಟೆ",
        with_minutes="{h} ಗಂಟೆ {m} ನಿಮಿಷ",
        seconds="ಸೆಕೆಂಡು",
        one="ಒಂದು",
        rupee="ರೂಪಾಯಿ",
        half="ಅರ್ಧ",
        quarter="ಕಾಲು",
        three_quarters="ಮುಕ್ಕಾಲು",
        over="ಬೈ",
        mixed=joined_after("ು", {"½": ("ೂ", "ವರೆ"), "¼": ("ೂ", "ಕಾಲು"), "¾": ("ೂ", "ಮುಕ್ಕಾಲು")}),
        abbreviations={
            "ಡಾ.": "ಡಾಕ್ಟರ್",
            "ಶ್ರೀ.": "ಶ್ರೀ",
            "ಶ್ರೀಮತಿ.": "ಶ್ರೀಮತಿ",
            "ಪ್ರೊ.": "ಪ್ರೊಫೆಸರ್",
            "ಕು.": "ಕುಮಾರಿ",
        },
        unit_abbreviations={"ಕಿಮೀ": "km", "ಕಿ.ಮೀ": "km", "ಕಿ.ಮೀ.": "km", "ಕಿಗ್ರಾ": "kg", "ಕಿ.ಗ್ರಾ": "kg"},
    ),
    "gu": IndicWords(
        months=_months("જાન્યુઆરી ફેબ્રુઆરી માર્ચ એપ્રિલ મે જૂન જુલાઈ ઓગસ્ટ સપ્ટેમ્બર ઓક્ટોબર નવેમ્બર ડિસેમ્બર"),
        rupees="રૂપિયા",
        paise="પૈસા",
        and_="અને",
        plus="પ્લસ",
        to="થી",
        until="",
        on_the_hour="{h} વાગ્યે",
        with_minutes="{h} વાગીને {m} મિનિટ",
        seconds="સેકન્ડ",
        one="એક",
        rupee="રૂપિયો",
        half="અડધું",
        quarter="પા",
        three_quarters="પોણું",
        over="બાય",
        mixed=said_before({1: "દોઢ", 2: "અઢી"}, "સાડા", "સવા", "પોણા"),
        abbreviations={"ડૉ.": "ડૉક્ટર", "શ્રી.": "શ્રી", "શ્રીમતી.": "શ્રીમતી", "પ્રો.": "પ્રોફેસર"},
        hundreds=" સો",
        unit_abbreviations={"કિમી": "km", "કિ.મી.": "km", "કિગ્રા": "kg", "કિ.ગ્રા.": "kg"},
    ),
    "pa": IndicWords(
        months=_months("ਜਨਵਰੀ ਫ਼ਰਵਰੀ ਮਾਰਚ ਅਪ੍ਰੈਲ ਮਈ ਜੂਨ ਜੁਲਾਈ ਅਗਸਤ ਸਤੰਬਰ ਅਕਤੂਬਰ ਨਵੰਬਰ ਦਸੰਬਰ"),
        rupees="ਰੁਪਏ",
        paise="ਪੈਸੇ",
        and_="ਅਤੇ",
        plus="ਪਲੱਸ",
        to="ਤੋਂ",
        until="",
        on_the_hour="{h} ਵਜੇ",
        with_minutes="{h} ਵੱਜ ਕੇ {m} ਮਿੰਟ",
        seconds="ਸਕਿੰਟ",
        one="ਇੱਕ",
        rupee="ਰੁਪਇਆ",
        half="ਅੱਧਾ",
        quarter="ਚੌਥਾਈ",
        three_quarters="ਪੌਣਾ",
        over="ਬਟਾ",
        mixed=said_before({1: "ਡੇਢ", 2: "ਢਾਈ"}, "ਸਾਢੇ", "ਸਵਾ", "ਪੌਣੇ"),
        abbreviations={
            "ਡਾ.": "ਡਾਕਟਰ",
            "ਸ੍ਰੀ.": "ਸ੍ਰੀ",
            "ਸ਼੍ਰੀ.": "ਸ਼੍ਰੀ",
            "ਸ੍ਰੀਮਤੀ.": "ਸ੍ਰੀਮਤੀ",
            "ਪ੍ਰੋ.": "ਪ੍ਰੋਫ਼ੈਸਰ",
        },
        hundreds=" ਸੌ",
        unit_abbreviations={"ਕਿਮੀ": "km", "ਕਿ.ਮੀ.": "km", "ਕਿਗ੍ਰਾ": "kg", "ਕਿ.ਗ੍ਰਾ.": "kg"},
    ),
    "or": IndicWords(
        months=_months("ଜାନୁଆରୀ ଫେବୃଆରୀ ମାର୍ଚ୍ଚ ଅପ୍ରେଲ ମଇ ଜୁନ ଜୁଲାଇ ଅଗଷ୍ଟ ସେପ୍ଟେମ୍ବର ଅକ୍ଟୋବର ନଭେମ୍ବର ଡିସେମ୍ବର"),
        rupees="ଟଙ୍କା",
        paise="ପଇସା",
        and_="ଏବଂ",
        plus="ପ୍ଲସ",
        range_from=odia_from,
        to="ରୁ",  # joined to the number (:func:`odia_from`): ଦଶରୁ କୋଡ଼ିଏ
        until="",
        on_the_hour="{h}ଟା",
        with_minutes="{h}ଟା {m} ମିନିଟ",
        seconds="ସେକେଣ୍ଡ",
        one="ଏକ",
        rupee="ଟଙ୍କା",
        half="ଅଧା",
        quarter="ଏକ ଚତୁର୍ଥାଂଶ",
        three_quarters="ତିନି ଚତୁର୍ଥାଂଶ",
        over="ବାଇ",
        mixed=said_before({1: "ଦେଢ଼", 2: "ଅଢ଼େଇ"}, "ସାଢ଼େ", "ସୱା", "ପାଉଣେ"),
        abbreviations={"ଡା.": "ଡାକ୍ତର", "ଶ୍ରୀ.": "ଶ୍ରୀ", "ଶ୍ରୀମତୀ.": "ଶ୍ରୀମତୀ", "ପ୍ରଫେ.": "ପ୍ରଫେସର"},
        hundreds=" ଶହ",
        unit_abbreviations={"କିମି": "km", "କି.ମି.": "km", "କିଗ୍ରା": "kg", "କି.ଗ୍ରା.": "kg"},
    ),
    "ml": IndicWords(
        months=_months("ജനുവരി ഫെബ്രുവരി മാർച്ച് ഏപ്രിൽ മേയ് ജൂൺ ജൂലൈ ഓഗസ്റ്റ് സെപ്റ്റംബർ ഒക്ടോബർ നവംബർ ഡിസംബർ"),
        rupees="രൂപ",
        paise="പൈസ",
        and_="ഒപ്പം",
        plus="പ്ലസ്",
        to="മുതൽ",
        until="വരെ",
        on_the_hour="{h} മണി",
        with_minutes="{h} മണി {m} മിനിറ്റ്",
        seconds="സെക്കൻഡ്",
        one="ഒരു",
        rupee="രൂപ",
        half="അര",
        quarter="കാൽ",
        three_quarters="മുക്കാൽ",
        over="ബൈ",
        # ഒന്ന് -> ഒന്നര, ഒന്നേകാൽ, ഒന്നേമുക്കാൽ
        mixed=joined_after("്", {"½": ("", "ര"), "¼": ("േ", "കാൽ"), "¾": ("േ", "മുക്കാൽ")}),
        abbreviations={"ഡോ.": "ഡോക്ടർ", "ശ്രീ.": "ശ്രീ", "ശ്രീമതി.": "ശ്രീമതി", "പ്രൊഫ.": "പ്രൊഫസർ"},
        unit_abbreviations={"കി.മീ.": "km", "കിമീ": "km", "കി.ഗ്രാ.": "kg", "കിഗ്രാ": "kg"},
    ),
}
