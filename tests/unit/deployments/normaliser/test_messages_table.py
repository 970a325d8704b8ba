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
from deployments.reading import ReadingOptions

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
    ("फ़्लैट की कीमत 1.25 करोड़ है।", "फ़्लैट की कीमत सवा करोड़ है।"),
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
    # bank alerts, bills, orders, travel, weather, markets, schools, news
    ("आपके खाते से ₹1,500 डेबिट हुए हैं।", "आपके खाते से एक हज़ार पाँच सौ रुपये डेबिट हुए हैं।"),
    ("आपके खाते में ₹25,000 क्रेडिट हुए।", "आपके खाते में पच्चीस हज़ार रुपये क्रेडिट हुए।"),
    ("उपलब्ध बैलेंस ₹12,345.67 है।", "उपलब्ध बैलेंस बारह हज़ार तीन सौ पैंतालीस रुपये सड़सठ पैसे है।"),
    (
        "आपका बिल ₹850 है, अंतिम तिथि 15/12/2026 है।",
        "आपका बिल आठ सौ पचास रुपये है, अंतिम तिथि पंद्रह दिसंबर दो हज़ार छब्बीस है।",
    ),
    ("बिजली बिल का भुगतान 10 तारीख तक करें।", "बिजली बिल का भुगतान दस तारीख तक करें।"),
    ("आपका ऑर्डर #45821 शिप हो गया है।", "आपका ऑर्डर चार पाँच आठ दो एक शिप हो गया है।"),
    ("डिलीवरी आज शाम 6 बजे तक होगी।", "डिलीवरी आज शाम छह बजे तक होगी।"),
    ("आपका पैकेज 2-3 दिन में पहुँचेगा।", "आपका पैकेज दो से तीन दिन में पहुँचेगा।"),
    ("ट्रेन संख्या 12951 प्लेटफ़ॉर्म 3 पर आएगी।", "ट्रेन संख्या एक दो नौ पाँच एक प्लेटफ़ॉर्म तीन पर आएगी।"),
    ("फ़्लाइट AI 302 समय पर है।", "फ़्लाइट ए आई तीन शून्य दो समय पर है।"),
    ("सीट नंबर 14B है।", "सीट नंबर चौदह बी है।"),
    ("अपॉइंटमेंट 3:15 PM पर तय है।", "अपॉइंटमेंट दोपहर सवा तीन बजे पर तय है।"),
    ("कल का तापमान 32°C रहेगा।", "कल का तापमान बत्तीस डिग्री सेल्सियस रहेगा।"),
    ("बारिश की संभावना 70% है।", "बारिश की संभावना सत्तर प्रतिशत है।"),
    ("पेट्रोल ₹96.72 प्रति लीटर हुआ।", "पेट्रोल छियानवे रुपये बहत्तर पैसे प्रति लीटर हुआ।"),
    ("सोने का भाव ₹72,500 प्रति 10 ग्राम रहा।", "सोने का भाव बहत्तर हज़ार पाँच सौ रुपये प्रति दस ग्राम रहा।"),
    ("सेंसेक्स 1.2% गिरकर 72,000 पर बंद हुआ।", "सेंसेक्स एक दशमलव दो प्रतिशत गिरकर बहत्तर हज़ार पर बंद हुआ।"),
    ("परीक्षा 1 मार्च से शुरू होगी।", "परीक्षा एक मार्च से शुरू होगी।"),
    ("रिज़ल्ट 25 May को आएगा।", "रिज़ल्ट पच्चीस मई को आएगा।"),
    ("कक्षा 10 के छात्र ध्यान दें।", "कक्षा दस के छात्र ध्यान दें।"),
    ("अस्पताल का हेल्पलाइन नंबर 104 है।", "अस्पताल का हेल्पलाइन नंबर एक सौ चार है।"),
    (
        "आपकी पॉलिसी 31/03/2027 को समाप्त होगी।",
        "आपकी पॉलिसी इकतीस मार्च दो हज़ार सत्ताईस को समाप्त होगी।",
    ),
    ("प्रीमियम ₹12,000 सालाना है।", "प्रीमियम बारह हज़ार रुपये सालाना है।"),
    ("आपका KYC 30 दिन में पूरा करें।", "आपका के वाई सी तीस दिन में पूरा करें।"),
    ("हिंदी के लिए 1 दबाएँ, English के लिए 2 दबाएँ।", "हिंदी के लिए एक दबाएँ, इंग्लिश के लिए दो दबाएँ।"),
    ("मैच शाम 7:30 बजे शुरू होगा।", "मैच शाम साढ़े सात बजे शुरू होगा।"),
    ("दिल्ली से मुंबई की दूरी 1,400 km है।", "दिल्ली से मुंबई की दूरी एक हज़ार चार सौ किलोमीटर है।"),
    ("आपका वज़न 65 kg है।", "आपका वज़न पैंसठ किलोग्राम है।"),
    ("दवा दिन में 2 बार लें।", "दवा दिन में दो बार लें।"),
    ("आपका OTP 10 मिनट तक मान्य है।", "आपका ओ टी पी दस मिनट तक मान्य है।"),
    ("UPI PIN किसी को न बताएँ।", "यू पी आई पिन किसी को न बताएँ।"),
    (
        "आपके कार्ड ending 4321 से ₹2,499 का भुगतान हुआ।",
        "आपके कार्ड एंडिंग चार तीन दो एक से दो हज़ार चार सौ निन्यानवे रुपये का भुगतान हुआ।",
    ),
    ("लोन की EMI ₹8,750 है।", "लोन की ई एम आई आठ हज़ार सात सौ पचास रुपये है।"),
    ("FD पर 7.5% ब्याज मिलेगा।", "एफ़ डी पर साढ़े सात प्रतिशत ब्याज मिलेगा।"),
    ("आपका ऑर्डर 3 आइटम का है।", "आपका ऑर्डर तीन आइटम का है।"),
    ("कैशबैक ₹50 आपके वॉलेट में जुड़ गया।", "कैशबैक पचास रुपये आपके वॉलेट में जुड़ गया।"),
    ("ऑफ़र सिर्फ़ 24 घंटे के लिए है।", "ऑफ़र सिर्फ़ चौबीस घंटे के लिए है।"),
    ("50% तक की छूट पाएँ।", "पचास प्रतिशत तक की छूट पाएँ।"),
    ("स्टॉक में सिर्फ़ 2 बचे हैं।", "स्टॉक में सिर्फ़ दो बचे हैं।"),
    ("चुनाव के नतीजे 4 जून को आएँगे।", "चुनाव के नतीजे चार जून को आएँगे।"),
    ("देश की आबादी 140 करोड़ है।", "देश की आबादी एक सौ चालीस करोड़ है।"),
    ("बजट ₹48 लाख करोड़ का है।", "बजट अड़तालीस लाख करोड़ रुपये का है।"),
    ("GDP ग्रोथ 6.5% रही।", "जी डी पी ग्रोथ साढ़े छह प्रतिशत रही।"),
    ("RBI ने रेपो रेट 6.5% पर रखा।", "आर बी आई ने रेपो रेट साढ़े छह प्रतिशत पर रखा।"),
    ("मौसम विभाग ने 48 घंटे का अलर्ट जारी किया।", "मौसम विभाग ने अड़तालीस घंटे का अलर्ट जारी किया।"),
    ("कोहरे के कारण 20 ट्रेनें लेट हैं।", "कोहरे के कारण बीस ट्रेनें लेट हैं।"),
    # scores are not ranges
    ("भारत ने 2-1 से मैच जीता।", "भारत ने दो-एक से मैच जीता।"),
    ("भारत ने पाकिस्तान को 3-0 से हराया।", "भारत ने पाकिस्तान को तीन-शून्य से हराया।"),
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
    ("ऐप का नया वर्ज़न 2.0.1 डाउनलोड करें।", "ऐप का नया वर्ज़न दो पॉइंट शून्य पॉइंट एक डाउनलोड करें।"),
    # ratios: a colon that cannot be a time, or is named a ratio
    ("यह फ़ोन 16:9 की स्क्रीन के साथ आता है।", "यह फ़ोन सोलह अनुपात नौ की स्क्रीन के साथ आता है।"),
    (
        "सीमेंट और रेत को 1:3 के अनुपात में मिलाएँ।",
        "सीमेंट और रेत को एक और तीन के अनुपात में मिलाएँ।",
    ),
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
    # words that are English and romanised Hindi stay Hindi (main = मैं, use = उसे)
    ("main ghar ja raha hoon, use bata dena", "मैं घर जा रहा हूं, उसे बता देना"),
]


@pytest.mark.parametrize(("text", "expected"), HINDI_MESSAGES + ROMANISED)
def test_hindi_messages(text: str, expected: str) -> None:
    assert TextNormaliser().normalise(text, ReadingOptions("hi")).text == expected


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
    ("India won 2-1 last night.", "India won two one last night."),
    (
        "Rs. 1,500 has been debited from your account.",
        "one thousand five hundred rupees has been debited from your account.",
    ),
    (
        "Your available balance is Rs. 12,345.67.",
        "Your available balance is twelve thousand three hundred and forty five rupees"
        " and sixty seven paise.",
    ),
    ("Your order #45821 has been shipped.", "Your order four five eight two one has been shipped."),
    ("Your parcel will arrive in 2-3 days.", "Your parcel will arrive in two to three days."),
    (
        "Train number 12951 will arrive on platform 3.",
        "Train number one two nine five one will arrive on platform three.",
    ),
    ("Your seat is 14B.", "Your seat is fourteen B."),
    ("The appointment is at 3:15 PM.", "The appointment is at three fifteen P M."),
    ("Tomorrow will be 32°C and sunny.", "Tomorrow will be thirty two degrees Celsius and sunny."),
    ("There is a 70% chance of rain.", "There is a seventy percent chance of rain."),
    (
        "Petrol now costs ₹96.72 a litre.",
        "Petrol now costs ninety six rupees and seventy two paise a litre.",
    ),
    ("Exams begin on 1 March.", "Exams begin on first March."),
    ("Results are out on May 25.", "Results are out on May twenty fifth."),
    ("Press 1 for Hindi and 2 for English.", "Press one for Hindi and two for English."),
    ("The distance is 1,400 km.", "The distance is one thousand four hundred kilometres."),
    ("Take the medicine 2 times a day.", "Take the medicine two times a day."),
    ("The OTP is valid for 10 minutes.", "The O T P is valid for ten minutes."),
    ("Never share your UPI PIN.", "Never share your U P I PIN."),
    (
        "Rs. 2,499 was paid with your card ending 4321.",
        "two thousand four hundred and ninety nine rupees was paid with your card ending"
        " four three two one.",
    ),
    (
        "Your EMI of ₹8,750 is due.",
        "Your E M I of eight thousand seven hundred and fifty rupees is due.",
    ),
    ("Get up to 50% off.", "Get up to fifty percent off."),
    ("Only 2 left in stock.", "Only two left in stock."),
    ("GDP grew 6.5% last year.", "G D P grew six point five percent last year."),
    ("Dr. Rao will see you at 11 am.", "Doctor Rao will see you at eleven A M."),
    ("Windows 11 needs 8 GB of RAM.", "Windows eleven needs eight gigabytes of RAM."),
    ("The match starts at 7:30.", "The match starts at seven thirty."),
    ("Mumbai got 120 mm of rain.", "Mumbai got one hundred and twenty millimetres of rain."),
    ("India won by 5 wickets.", "India won by five wickets."),
    ("Mix cement and sand in the ratio 1:3.", "Mix cement and sand in the ratio one to three."),
    ("Most films are shot in 16:9.", "Most films are shot in sixteen to nine."),
]


@pytest.mark.parametrize(("text", "expected"), ENGLISH_MESSAGES)
def test_english_messages(text: str, expected: str) -> None:
    """A request in English is never transliterated."""
    assert TextNormaliser().normalise(text, ReadingOptions("en")).text == expected


def test_the_table_is_large() -> None:
    assert len(HINDI_MESSAGES) + len(ROMANISED) + len(ENGLISH_MESSAGES) >= 150
