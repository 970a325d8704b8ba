"""Realistic request texts, Hindi and English, short to long."""

from __future__ import annotations

import random

HINDI = (
    "नमस्ते, आप कैसे हैं?",
    "आपका ऑर्डर कल शाम तक पहुँच जाएगा। धन्यवाद।",
    "कृपया अपना खाता नंबर बताइए, ताकि हम आपकी शिकायत दर्ज कर सकें।",
    "आज दिल्ली में मौसम साफ़ रहेगा, दोपहर में हल्की धूप होगी और शाम को ठंडी हवा चलेगी। "
    "कल सुबह कोहरा छा सकता है, इसलिए गाड़ी धीरे चलाएँ।",
)
ENGLISH = (
    "Hello, how can I help you today?",
    "Your appointment is confirmed for Monday at ten in the morning.",
    "Thank you for calling. Please stay on the line, and the next available agent will be "
    "with you shortly. Your call may be recorded for quality purposes.",
)


# The pieces of long_hindi's prose: who, where, what happened, and numbers to read.
_WHO = ("गाँव के किसान", "शहर की नगर पालिका", "डॉ. मीरा शर्मा", "स्कूल के बच्चे", "रेलवे विभाग",
        "बाज़ार के दुकानदार", "ज़िले के अधिकारी", "नदी किनारे के मछुआरे")  # fmt: skip
_WHERE = ("लखनऊ में", "पहाड़ी इलाक़ों में", "पुराने बाज़ार के पास", "राजमार्ग 48 पर",
          "सरकारी अस्पताल में", "गंगा के तट पर")  # fmt: skip
_WHAT = (
    "{who} ने {date} को {where} एक नई योजना शुरू की, जिस पर ₹{money} ख़र्च होंगे।",
    "{where} पिछले साल {count} लोगों ने इस सेवा का लाभ उठाया, और इस बार यह संख्या और बढ़ेगी।",
    "क्या {who} समय पर पहुँच पाएँगे? यह सवाल {where} हर किसी के मन में था।",
    "{who} कहते हैं कि बारिश के मौसम में {where} पानी भर जाता है, इसलिए सड़कें {percent}% तक ख़राब हो जाती हैं।",
    "सुबह {hour} बजे से ही {where} भीड़ जमा होने लगी थी; {who} ने सबको धैर्य रखने को कहा।",
    "रिपोर्ट के अनुसार {where} {count} पेड़ लगाए गए, जिनमें से ज़्यादातर नीम और पीपल के हैं।",
)


def _sentence(rng: random.Random) -> str:
    return rng.choice(_WHAT).format(
        who=rng.choice(_WHO),
        where=rng.choice(_WHERE),
        date=f"{rng.randint(1, 28)}/{rng.randint(1, 12)}/{rng.randint(1990, 2025)}",
        money=f"{rng.randint(1, 999)},{rng.randint(100, 999)}",
        count=rng.randint(12, 98_000),
        percent=rng.randint(5, 60),
        hour=rng.randint(5, 11),
    )


def long_hindi(characters: int, seed: int = 0) -> str:
    """About ``characters`` characters of varied Hindi prose as Markdown: chapters
    (a heading every twelve paragraphs) of paragraphs of three to six sentences, with
    dates, money, percentages and counts for the normaliser to read."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = paragraphs = 0
    while size < characters:
        if paragraphs % 12 == 0:
            heading = f"# अध्याय {paragraphs // 12 + 1}"
            parts.append(heading)
            size += len(heading) + 2
        sentences = [_sentence(rng) for _ in range(rng.randint(3, 6))]
        paragraph = " ".join(sentences)
        parts.append(paragraph)
        size += len(paragraph) + 2
        paragraphs += 1
    return "\n\n".join(parts)
