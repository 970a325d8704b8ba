"""Realistic request texts, Hindi and English, short to long."""

from __future__ import annotations

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
