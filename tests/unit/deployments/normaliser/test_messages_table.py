"""Messages as India writes them (SMS, bank alerts, IVR prompts, order updates, news)
and what a voice should be given: written by hand, as a native speaker reads them
aloud; none was produced by the code under test.

Codes are read digit by digit (in the groups they were written in; a long unbroken
run in fours), quantities stay quantities; acronyms are spelled in Devanagari
letters unless said as words; AM/PM become the part of the day.
"""

from __future__ import annotations

import pytest

from deployments.normaliser.normaliser import TextNormaliser

HINDI_MESSAGES = [
    # one-time passwords, PINs, accounts, phone numbers: digit by digit
    (
        "आपका OTP 4821 है। इसे किसी से साझा न करें।",
        "आपका ओ टी पी चार आठ दो एक है। इसे किसी से साझा न करें।",
    ),
    (
        "पिन कोड 110001 वाले इलाके में डिलीवरी होगी।",
        "पिन कोड एक एक शून्य शून्य शून्य एक वाले इलाके में डिलीवरी होगी।",
    ),
    (
        "खाता संख्या 123456789012 में ₹500 जमा हुए।",
        "खाता संख्या एक दो तीन चार, पाँच छह सात आठ, नौ शून्य एक दो में पाँच सौ रुपये जमा हुए।",
    ),
    ("हमें 9876543210 पर कॉल करें।", "हमें नौ आठ सात छह पाँच, चार तीन दो एक शून्य पर कॉल करें।"),
    (
        "कस्टमर केयर नंबर 1800 180 1234 है।",
        "कस्टमर केयर नंबर एक आठ शून्य शून्य, एक आठ शून्य, एक दो तीन चार है।",
    ),
    (
        "रेफ़रेंस नंबर 45872910 नोट कर लें।",
        "रेफ़रेंस नंबर चार पाँच आठ सात, दो नौ एक शून्य नोट कर लें।",
    ),
    (
        "आपका टिकट PNR 4521897634 कन्फ़र्म है।",
        "आपका टिकट पी एन आर चार पाँच दो एक, आठ नौ सात छह, तीन चार कन्फ़र्म है।",
    ),
    ("ग्राहक ID 567890 से लॉगिन करें।", "ग्राहक आई डी पाँच छह सात आठ नौ शून्य से लॉगिन करें।"),
    ("मोबाइल नंबर 98765 43210 अपडेट हुआ।", "मोबाइल नंबर नौ आठ सात छह पाँच, चार तीन दो एक शून्य अपडेट हुआ।"),
    # ... and quantities stay quantities
    ("वोटर लिस्ट में 1,20,000 नाम हैं।", "वोटर लिस्ट में एक लाख बीस हज़ार नाम हैं।"),
    ("इस साल 25000 लोगों ने आवेदन किया।", "इस साल पच्चीस हज़ार लोगों ने आवेदन किया।"),
    ("मैच में भारत ने 300 रन बनाए।", "मैच में भारत ने तीन सौ रन बनाए।"),
    ("सेंसेक्स 500 अंक चढ़ा।", "सेंसेक्स पाँच सौ अंक चढ़ा।"),
    ("कार्ड से 5000 रुपये कटे।", "कार्ड से पाँच हज़ार रुपये कटे।"),
    (
        "आपका रिचार्ज ₹199 का हुआ, वैधता 28 दिन।",
        "आपका रिचार्ज एक सौ निन्यानवे रुपये का हुआ, वैधता अट्ठाईस दिन।",
    ),
    # acronyms: spelled, or said as words
    ("SBI ATM से ₹2,000 निकाले गए।", "एस बी आई ए टी एम से दो हज़ार रुपये निकाले गए।"),
    (
        "आपकी EMI ₹4,500 है, जो 5 तारीख को कटेगी।",
        "आपकी ई एम आई चार हज़ार पाँच सौ रुपये है, जो पाँच तारीख को कटेगी।",
    ),
    ("आपके IFSC कोड में गलती है।", "आपके आई एफ़ एस सी कोड में गलती है।"),
    ("GST 18% लगेगा।", "जी एस टी अठारह प्रतिशत लगेगा।"),
    ("आपका KYC अपडेट करें।", "आपका के वाई सी अपडेट करें।"),
    ("UPI से ₹299 का भुगतान सफल रहा।", "यू पी आई से दो सौ निन्यानवे रुपये का भुगतान सफल रहा।"),
    ("NASA और ISRO मिलकर काम करेंगे।", "नासा और इसरो मिलकर काम करेंगे।"),
    ("इस फ़ोन में 8GB RAM है।", "इस फ़ोन में आठ जीबी रैम है।"),
    # times with AM/PM: the part of the day
    ("आपकी फ़्लाइट का समय 10:30 AM है।", "आपकी फ़्लाइट का समय सुबह साढ़े दस बजे है।"),
    ("शो 7:45 PM से शुरू होगा।", "शो शाम पौने आठ बजे से शुरू होगा।"),
    ("ट्रेन 11:15 PM छूटेगी।", "ट्रेन रात सवा ग्यारह बजे छूटेगी।"),
    ("दुकान 9 AM से 9 PM तक खुली है।", "दुकान सुबह नौ बजे से रात नौ बजे तक खुली है।"),
    ("क्लास 8 AM से है।", "क्लास सुबह आठ बजे से है।"),
    ("डॉक्टर से मिलने का समय 4:30 PM है।", "डॉक्टर से मिलने का समय शाम साढ़े चार बजे है।"),
    (
        "कल सुबह 6 AM से पानी की सप्लाई बंद रहेगी।",
        "कल सुबह छह बजे से पानी की सप्लाई बंद रहेगी।",
    ),
    ("लंच 1 PM पर होगा।", "लंच दोपहर एक बजे पर होगा।"),
    # money with a scale word after it
    ("होम लोन ₹25 लाख तक मिलेगा।", "होम लोन पच्चीस लाख रुपये तक मिलेगा।"),
    ("आपको ₹1.5 लाख का प्री-अप्रूव्ड लोन मिला है।", "आपको डेढ़ लाख रुपये का प्री-अप्रूव्ड लोन मिला है।"),
    ("कंपनी का मुनाफ़ा ₹2.5 करोड़ रहा।", "कंपनी का मुनाफ़ा ढाई करोड़ रुपये रहा।"),
    ("बजट में Rs 2 crore रखे गए।", "बजट में दो करोड़ रुपये रखे गए।"),
    ("फ़्लैट की कीमत 1.25 करोड़ है।", "फ़्लैट की कीमत सवा एक करोड़ है।"),
    # alphanumerics, English month names, signed temperatures
    ("शहर में 5G सेवा शुरू हो गई है।", "शहर में फ़ाइव जी सेवा शुरू हो गई है।"),
    ("COVID-19 के नए मामले कम हुए।", "कोविड उन्नीस के नए मामले कम हुए।"),
    ("3D फ़िल्म का टिकट ₹350 का है।", "थ्री डी फ़िल्म का टिकट तीन सौ पचास रुपये का है।"),
    ("4K टीवी पर 10% छूट।", "फ़ोर के टीवी पर दस प्रतिशत छूट।"),
    ("A1 ग्रेड का चावल ₹80 किलो।", "ए वन ग्रेड का चावल अस्सी रुपये किलो।"),
    ("आपका पार्सल 221B, बेकर स्ट्रीट पर पहुँचा।", "आपका पार्सल दो सौ इक्कीस बी, बेकर स्ट्रीट पर पहुँचा।"),
    ("आपका ऑर्डर 22 Nov 2026 तक पहुँचेगा।", "आपका ऑर्डर बाईस नवंबर दो हज़ार छब्बीस तक पहुँचेगा।"),
    ("मीटिंग 5 Dec को है।", "मीटिंग पाँच दिसंबर को है।"),
    ("ऑफ़र 31 Dec तक वैध है।", "ऑफ़र इकतीस दिसंबर तक वैध है।"),
    ("फ़ॉर्म Jan 15, 2027 तक भरें।", "फ़ॉर्म पंद्रह जनवरी दो हज़ार सत्ताईस तक भरें।"),
    (
        "दिल्ली में तापमान -5°C तक गिर सकता है।",
        "दिल्ली में तापमान माइनस पाँच डिग्री सेल्सियस तक गिर सकता है।",
    ),
    # English words in a Hindi sentence: in Devanagari, as Indians say them
    ("मेरा order cancel हो गया, refund कब आएगा?", "मेरा ऑर्डर कैंसल हो गया, रिफ़ंड कब आएगा?"),
    ("अपना mobile number update करें।", "अपना मोबाइल नंबर अपडेट करें।"),
    ("आपका parcel deliver हो गया है।", "आपका पार्सल डिलीवर हो गया है।"),
    ("Please अपना password reset करें।", "प्लीज़ अपना पासवर्ड रीसेट करें।"),
    ("आपकी booking confirm हो गई है।", "आपकी बुकिंग कन्फ़र्म हो गई है।"),
    ("payment failed हो गया, दोबारा try करें।", "पेमेंट फ़ेल हो गया, दोबारा ट्राई करें।"),
    ("आपका UPI payment successful रहा।", "आपका यू पी आई पेमेंट सक्सेसफ़ुल रहा।"),
    ("Customer care से बात करने के लिए 1 दबाएँ।", "कस्टमर केयर से बात करने के लिए एक दबाएँ।"),
    ("आपका loan approve हो गया है।", "आपका लोन अप्रूव हो गया है।"),
    # e-mail and web addresses, read out
    ("अपनी शिकायत help@bank.in पर भेजें।", "अपनी शिकायत हेल्प एट द रेट बैंक डॉट इन पर भेजें।"),
    (
        "ज़्यादा जानकारी के लिए www.example.com देखें।",
        "ज़्यादा जानकारी के लिए डब्ल्यू डब्ल्यू डब्ल्यू डॉट एग्ज़ाम्पल डॉट कॉम देखें।",
    ),
    (
        "आधार update के लिए uidai.gov.in पर जाएँ।",
        "आधार अपडेट के लिए यू आई डी ए आई डॉट जी ओ वी डॉट इन पर जाएँ।",
    ),
]

# Hindi typed in Latin letters, English loans among its words (language hi).
ROMANISED = [
    ("mera order cancel ho gaya, refund kab aayega?", "मेरा ऑर्डर कैंसल हो गया, रिफ़ंड कब आयेगा?"),
]


@pytest.mark.parametrize(("text", "expected"), HINDI_MESSAGES + ROMANISED)
def test_hindi_messages(text: str, expected: str) -> None:
    assert TextNormaliser().normalise(text, "hi").text == expected


ENGLISH_MESSAGES = [
    (
        "Your OTP is 4821. Do not share it with anyone.",
        "Your O T P is four eight two one. Do not share it with anyone.",
    ),
    (
        "Call 1800 180 1234 for help.",
        "Call one eight zero zero, one eight zero, one two three four for help.",
    ),
    (
        "Your account number 123456789012 is active.",
        "Your account number one two three four, five six seven eight, nine zero one two"
        " is active.",
    ),
    ("Your PIN code is 560001.", "Your PIN code is five six zero zero zero one."),
    ("Dial 100 in an emergency.", "Dial one hundred in an emergency."),
    ("The 1990s saw the IT boom.", "The nineteen nineties saw the I T boom."),
    ("Music from the 80s is back.", "Music from the eighties is back."),
    ("Version 2.0.1 fixes the bug.", "Version two point zero point one fixes the bug."),
    (
        "He lives at 221B Baker St. in London.",
        "He lives at two twenty one B Baker Street in London.",
    ),
    ("St. Xavier's College opens on Monday.", "Saint Xavier's College opens on Monday."),
    ("Your flight leaves at 10:30 am.", "Your flight leaves at ten thirty A M."),
    ("Meet me at MG Rd. at 6 pm.", "Meet me at M G Road at six P M."),
    ("The offer ends Jan 5, 2024.", "The offer ends January fifth, twenty twenty four."),
    ("Your order will arrive by 22 Nov.", "Your order will arrive by twenty second November."),
    ("SBI has cut the EMI on home loans.", "S B I has cut the E M I on home loans."),
    ("NASA and ISRO signed a deal.", "NASA and ISRO signed a deal."),
    ("5G is now live in your city.", "five G is now live in your city."),
    ("COVID-19 cases fell this week.", "COVID nineteen cases fell this week."),
    ("The temperature fell to -5°C.", "The temperature fell to minus five degrees Celsius."),
    ("PLEASE CALL US BACK TODAY.", "please call us back today."),
]


@pytest.mark.parametrize(("text", "expected"), ENGLISH_MESSAGES)
def test_english_messages(text: str, expected: str) -> None:
    """A request in English is never transliterated."""
    assert TextNormaliser().normalise(text, "en").text == expected
