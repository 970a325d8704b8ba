"""Numbers to key in and addresses, read aloud: phone numbers and landlines, postal
addresses and PIN codes, e-mail and web addresses, IP addresses, files and paths,
vehicle and bank codes. Written by hand, as a native speaker reads each one."""

from __future__ import annotations

import pytest

from deployments.normaliser.normaliser import TextNormaliser
from deployments.reading import ReadingOptions

CODES_HINDI = [
    # phone numbers, read in digit groups
    ("9876543210", "नौ आठ सात छह पाँच, चार तीन दो एक शून्य"),
    ("98765 43210", "नौ आठ सात छह पाँच, चार तीन दो एक शून्य"),
    ("+91 98765 43210", "प्लस नौ एक, नौ आठ सात छह पाँच, चार तीन दो एक शून्य"),
    ("+91-9123456780", "प्लस नौ एक, नौ एक दो तीन चार, पाँच छह सात आठ शून्य"),
    ("मेरा नंबर 7000012345 है", "मेरा नंबर सात शून्य शून्य शून्य शून्य, एक दो तीन चार पाँच है"),
    # landlines (STD code with or without its 0, after +91), toll-free numbers
    (
        "इसपे कॉल करो ०३८६२-३५१७९१",
        "इसपे कॉल करो शून्य तीन आठ छह दो, तीन पाँच एक सात नौ एक",
    ),
    ("1374-309988", "एक तीन सात चार, तीन शून्य नौ नौ आठ आठ"),
    ("0522 2345678", "शून्य पाँच दो दो, दो तीन चार पाँच छह सात आठ"),
    ("+91 11 2345 6789", "प्लस नौ एक, एक एक, दो तीन चार पाँच, छह सात आठ नौ"),
    ("1800-180-1551", "एक आठ शून्य शून्य, एक आठ शून्य, एक पाँच पाँच एक"),
    ("टोल फ़्री 1800 11 4000", "टोल फ़्री एक आठ शून्य शून्य, एक एक, चार शून्य शून्य शून्य"),
    ("कार्ड के आखिरी अंक 1234", "कार्ड के आखिरी अंक एक दो तीन चार"),
    # postal addresses: four digits or more after नं. one by one, shorter ones a number
    ("फ़्लैट नं. 1204", "फ़्लैट नंबर एक दो शून्य चार"),
    ("मकान नं. 12, सेक्टर 15", "मकान नंबर बारह, सेक्टर पंद्रह"),
    # handles and e-mail addresses: letters apart from digits, digits one by one
    (
        "मेरा ईमेल vivaan62@gmail.com है",
        "मेरा ईमेल विवान छह दो एट द रेट जीमेल डॉट कॉम है",
    ),
    # PIN codes, IP addresses, files and paths, codes of letters and digits
    ("नई दिल्ली 110005", "नई दिल्ली एक एक शून्य शून्य शून्य पाँच"),
    ("लखनऊ, उत्तर प्रदेश 226001", "लखनऊ, उत्तर प्रदेश दो दो छह शून्य शून्य एक"),
    ("राउटर का पता 192.168.1.10 है", "राउटर का पता एक नौ दो डॉट एक छह आठ डॉट एक डॉट एक शून्य है"),
    ("कोड 007", "कोड शून्य शून्य सात"),
    ("report.pdf भेज दीजिए", "रिपोर्ट डॉट पी डी एफ़ भेज दीजिए"),
    ("+49 30 1234567", "प्लस चार नौ, तीन शून्य, एक दो तीन चार, पाँच छह सात"),
    ("(0522) 2345678", "शून्य पाँच दो दो, दो तीन चार पाँच छह सात आठ"),
    ("IFSC कोड SBIN0001234 है", "आई एफ़ एस सी कोड एस बी आई एन, शून्य शून्य शून्य एक दो तीन चार है"),
    ("गाड़ी नंबर MH 12 AB 1234", "गाड़ी नंबर एम एच बारह ए बी एक दो तीन चार"),
    ("MH12AB1234", "एम एच बारह ए बी एक दो तीन चार"),
    ("फ़ाइल C:\\Users\\HP\\Desktop में है", "फ़ाइल सी कोलन बैकस्लैश यूज़र्स बैकस्लैश एच पी बैकस्लैश डेस्कटॉप में है"),
    ("मेरा ईमेल rahul@yahoo.com है", "मेरा ईमेल राहुल एट द रेट याहू डॉट कॉम है"),
    ("https://www.irctc.co.in पर", "डब्ल्यू डब्ल्यू डब्ल्यू डॉट आई आर सी टी सी डॉट को डॉट इन पर"),
]

CODES_ENGLISH = [
    ("call 9876543210", "call nine eight seven six five, four three two one zero"),
    ("call 011-23456789", "call zero one one, two three four five six seven eight nine"),
    ("+91 11 2345 6789", "plus nine one, one one, two three four five, six seven eight nine"),
    ("1800-180-1551", "one eight zero zero, one eight zero, one five five one"),
    ("last 4 digits 1234", "last four digits one two three four"),
    ("write to vivaan62@gmail.com", "write to vivaan six two at gmail dot com"),
    ("www.example.com/help", "w w w dot example dot com slash help"),
    ("Bengaluru 560001", "Bengaluru five six zero zero zero one"),
    ("The server is 10.0.0.1", "The server is one zero dot zero dot zero dot one"),
    ("code 007", "code zero zero seven"),
    ("data.csv", "data dot C S V"),
    ("+44 20 7946 0958", "plus four four, two zero, seven nine four six, zero nine five eight"),
    (
        "Your IFSC code is SBIN0001234.",
        "Your I F S C code is S B I N, zero zero zero one two three four.",
    ),
    ("Vehicle MH 12 AB 1234 is parked", "Vehicle M H twelve A B one two three four is parked"),
    ("see /var/www", "see slash V A R slash w w w"),
    ("write to rahul@yahoo.com", "write to rahul at yahoo dot com"),
    ("visit https://www.amazon.in now", "visit w w w dot amazon dot in now"),
    ("open report.pdf", "open report dot P D F"),
]

_normaliser = TextNormaliser()


@pytest.mark.parametrize(("text", "expected"), CODES_HINDI)
def test_hindi(text: str, expected: str) -> None:
    assert _normaliser.normalise(text, ReadingOptions("hi", "high")).text == expected


@pytest.mark.parametrize(("text", "expected"), CODES_ENGLISH)
def test_english(text: str, expected: str) -> None:
    assert _normaliser.normalise(text, ReadingOptions("en", "high")).text == expected
