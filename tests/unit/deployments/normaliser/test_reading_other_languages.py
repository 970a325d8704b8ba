"""What the voice is given in the other Indian languages with a number reader
(Marathi, Bengali, Tamil, Telugu, Kannada) and the rest: the same rules as
Hindi's and English's table (test_reading_table.py), with each language's words;
expected forms as a native speaker reads them."""

from __future__ import annotations

import pytest

from deployments.normaliser.normaliser import TextNormaliser

OTHER = [
    ("bn", "৫০", "পঞ্চাশ"),
    ("bn", "21", "একুশ"),
    ("bn", "১০০০", "এক হাজার"),
    ("mr", "५", "पाच"),
    ("mr", "47", "सत्तेचाळीस"),
    ("mr", "100", "शंभर"),
    ("mr", "125", "एकशे पंचवीस"),
    ("mr", "1,250", "एक हजार दोनशे पन्नास"),
    ("mr", "1,00,000", "एक लाख"),
    ("ta", "5", "ஐந்து"),
    ("ta", "15", "பதினைந்து"),
    ("ta", "40", "நாற்பது"),
    ("ta", "100", "நூறு"),
    ("ta", "125", "நூற்று இருபத்து ஐந்து"),
    ("ta", "1000", "ஆயிரம்"),
    ("ta", "2000", "இரண்டாயிரம்"),  # thousands join their count
    ("ta", "5500", "ஐயாயிரத்து ஐந்நூறு"),
    ("ta", "2,50,000", "இரண்டு லட்சத்து ஐம்பதாயிரம்"),
    ("ta", "1,00,000", "ஒரு லட்சம்"),
    ("te", "5", "ఐదు"),
    ("te", "21", "ఇరవై ఒకటి"),
    ("te", "100", "వంద"),
    ("te", "125", "నూట ఇరవై ఐదు"),
    ("te", "1000", "వెయ్యి"),
    ("te", "2000", "రెండు వేలు"),
    ("te", "1,00,000", "లక్ష"),
    ("te", "౨౫", "ఇరవై ఐదు"),
    # dates (day first), ranges, rupees and the clock in every number language
    ("mr", "15/08/1947", "पंधरा ऑगस्ट एकोणीसशे सत्तेचाळीस"),
    ("mr", "06-05", "सहा मे"),
    ("mr", "10-20", "दहा ते वीस"),
    ("mr", "₹500", "पाचशे रुपये"),
    ("mr", "12:30", "बारा वाजून तीस मिनिटे"),
    ("mr", "5 km", "पाच किलोमीटर"),
    ("bn", "15/08/1947", "পনের আগস্ট উনিশশো সাতচল্লিশ"),
    ("bn", "10-20", "দশ থেকে বিশ"),
    ("bn", "₹500", "পাঁচশত টাকা"),
    ("bn", "12:30", "বারোটা বেজে ত্রিশ মিনিট"),
    ("ta", "06-05", "ஆறு மே"),
    ("ta", "10-20", "பத்து முதல் இருபது வரை"),
    ("ta", "₹500", "ஐந்நூறு ரூபாய்"),
    ("ta", "10:00", "பத்து மணி"),
    ("te", "10-20", "పది నుండి ఇరవై వరకు"),
    ("te", "06-05", "ఆరు మే"),
    ("te", "12:30", "పన్నెండు గంటల ముప్పై నిమిషాలు"),
    ("kn", "06-05", "ಆರು ಮೇ"),
    ("kn", "10-20", "ಹತ್ತರಿಂದ ಇಪ್ಪತ್ತು"),  # "from" is a case ending on the first
    ("kn", "1000-2000", "ಒಂದು ಸಾವಿರದಿಂದ ಎರಡು ಸಾವಿರ"),
    ("ta", "5-10 km", "ஐந்து முதல் பத்து கிலோமீட்டர் வரை"),
    ("bn", "5 km", "পাঁচ কিলোমিটার"),
    ("ta", "2 kg", "இரண்டு கிலோகிராம்"),
    ("te", "$20", "ఇరవై డాలర్లు"),  # plural after numbers but one
    ("te", "20 kg", "ఇరవై కిలోగ్రాములు"),
    ("kn", "5 km", "ಐದು ಕಿಲೋಮೀಟರ್"),
    # "one" before what it counts, and the rupee's singular
    ("mr", "₹1", "एक रुपया"),
    ("ta", "₹1", "ஒரு ரூபாய்"),
    ("ta", "1 km", "ஒரு கிலோமீட்டர்"),
    ("te", "$1", "ఒక డాలర్"),
    ("te", "₹1.50", "ఒక రూపాయి యాభై పైసలు"),
    ("te", "₹500", "ఐదు వందల రూపాయలు"),  # a number's form before a noun
    ("te", "2000 km", "రెండు వేల కిలోమీటర్లు"),
    ("te", "₹3,00,000", "మూడు లక్షల రూపాయలు"),
    # fractions: halves and quarters by name, with a whole number as the language
    # says them; the rest (door numbers too) "a by b"
    ("mr", "1/2", "अर्धा"),
    ("mr", "1½ किलो", "दीड किलो"),
    ("mr", "3½", "साडे तीन"),
    ("mr", "1¾", "पावणे दोन"),
    ("mr", "2563/412", "दोन हजार पाचशे त्रेसष्ट बटा चारशे बारा"),
    ("bn", "2½", "আড়াই"),
    ("bn", "2¼", "সোয়া দুই"),
    ("bn", "3/4", "তিন চতুর্থাংশ"),
    ("bn", "12/3", "বারো বাই তিন"),
    ("ta", "1½", "ஒன்றரை"),
    ("ta", "2¼", "இரண்டே கால்"),
    ("ta", "3/4", "முக்கால்"),
    ("ta", "12/3", "பன்னிரண்டு பை மூன்று"),
    ("te", "1½", "ఒకటిన్నర"),
    ("te", "2½", "రెండున్నర"),
    ("te", "1/4", "పావు"),
    ("te", "2¼", "రెండు మరియు పావు"),
    ("kn", "2½", "ಎರಡೂವರೆ"),
    ("kn", "1¼", "ಒಂದೂಕಾಲು"),
    ("kn", "1/2", "ಅರ್ಧ"),
    ("kn", "12/3", "ಹನ್ನೆರಡು ಬೈ ಮೂರು"),
    # Kannada's numbers join tens and units (num2words wrote ಮೂವತ್ಏಳು)
    ("kn", "21", "ಇಪ್ಪತ್ತೊಂದು"),
    ("kn", "37", "ಮೂವತ್ತೇಳು"),
    ("kn", "24", "ಇಪ್ಪತ್ನಾಲ್ಕು"),
    ("kn", "100", "ನೂರು"),
    ("kn", "2563", "ಎರಡು ಸಾವಿರದ ಐನೂರ ಅರವತ್ಮೂರು"),
    ("kn", "1,00,000", "ಒಂದು ಲಕ್ಷ"),
    ("kn", "12:30", "ಹನ್ನೆರಡು ಗಂಟೆ ಮೂವತ್ತು ನಿಮಿಷ"),
    # telephone numbers digit by digit in their groups, in every number language
    ("mr", "0522-2345678", "शून्य पाच दोन दोन, दोन तीन चार पाच सहा सात आठ"),
    ("mr", "98765 43210", "नऊ आठ सात सहा पाच, चार तीन दोन एक शून्य"),
    ("ta", "1800-180-1551", "ஒன்று எட்டு பூஜ்ஜியம் பூஜ்ஜியம், ஒன்று எட்டு பூஜ்ஜியம், ஒன்று ஐந்து ஐந்து ஒன்று"),
    ("gu", "૧૨", "12"),  # no reader yet: digits become ASCII for the engine
    # English words in the language's own script; codes digit by digit
    ("ta", "உங்கள் order online ஆனது", "உங்கள் ஆர்டர் ஆன்லைன் ஆனது"),
    ("ta", "OTP 4821", "ஓ டீ பீ நான்கு எட்டு இரண்டு ஒன்று"),
    ("te", "మీ bank number", "మీ బ్యాంక్ నంబర్"),
    ("kn", "ನಿಮ್ಮ bank order", "ನಿಮ್ಮ ಬ್ಯಾಂಕ್ ಆರ್ಡರ್"),
    ("ml", "നിങ്ങളുടെ bank order", "നിങ്ങളുടെ ബാങ്ക് ഓർഡർ"),
    ("bn", "আপনার phone online", "আপনার ফোন অনলাইন"),
    ("gu", "તમારો bank order", "તમારો બેંક ઑર્ડર"),
    ("pa", "ਤੁਹਾਡਾ bank order", "ਤੁਹਾਡਾ ਬੈਂਕ ਆਰਡਰ"),
    ("mr", "तुमची order", "तुमची ऑर्डर"),
    ("mr", "PIN 4821", "पी आई एन चार आठ दोन एक"),
    # titles before names, their full stop not a sentence's end; currencies by name
    ("mr", "डॉ. पाटील आणि श्री. जोशी आले.", "डॉक्टर पाटील आणि श्री जोशी आले."),
    ("bn", "ডাঃ রায়", "ডাক্তার রায়"),
    ("ta", "திரு. ரமேஷ் வந்தார்", "திரு ரமேஷ் வந்தார்"),
    ("te", "డా. రావు", "డాక్టర్ రావు"),
    ("kn", "ಡಾ. ರಾವ್", "ಡಾಕ್ಟರ್ ರಾವ್"),
    ("mr", "₩760 आणि AED 500", "सातशे साठ वॉन आणि पाचशे दिरहम"),
    ("mr", "12:10:10", "बारा वाजून दहा मिनिटे दहा सेकंद"),
    # Indian names in Latin letters read as Hindi, in each script (hindi_letters.py)
    ("mr", "Mayank, तुमची order", "मयंक, तुमची ऑर्डर"),
    ("ta", "வணக்கம் Kapil", "வணக்கம் கபில்"),
    ("te", "Priyanka గారు", "ప్రియంకా గారు"),
    ("bn", "Anjali, আপনার phone", "অঞ্জলি, আপনার ফোন"),
]

_normaliser = TextNormaliser()


@pytest.mark.parametrize(("language", "text", "expected"), OTHER)
def test_other_languages(language: str, text: str, expected: str) -> None:
    assert _normaliser.normalise(text, language, "high").text == expected
