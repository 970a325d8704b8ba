"""The Hindi reader's vocabulary: number words, months, units, titles, letter
names and the words said for codes, addresses and amounts (the rules that use
them are in :mod:`hindi`)."""

from __future__ import annotations

import re

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

RUPEES_AFTER = r"\s?(?:रुपये|रुपए|रूपये)"
# Units written in Hindi (the Latin ones and their names are in units.py).
UNITS = {
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
    "नं.": "नंबर",
    # titles before names, as they are said
    "इं.": "इंजीनियर",
    "ले.": "लेफ़्टिनेंट",
    "मा.": "मास्टर",
    "वै.": "वैद्य",
    "कै.": "कैप्टन",
    "ब्रि.": "ब्रिगेडियर",
    "अधि.": "अधिवक्ता",
    "एड.": "एडवोकेट",
    "श्रीमती.": "श्रीमती",
    "Er.": "इंजीनियर",
    "Adv.": "एडवोकेट",
    "Smt.": "श्रीमती",
    "Shri.": "श्री",
    "Lt.": "लेफ़्टिनेंट",
    "Col.": "कर्नल",
    "Capt.": "कैप्टन",
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
    "नं.": "नंबर",
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
SEPARATORS = {".": "डॉट", "+": "प्लस", "_": "अंडरस्कोर", "-": "डैश", "/": "स्लैश"}
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
