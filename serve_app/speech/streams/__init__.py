"""Text that arrives a few words at a time (a WebSocket's contexts): a session's
contexts, voicing and bill (session.py, contexts.py); each context's text buffered to
sentence ends (text_buffer.py), then checked, voiced, paid for, spoken and encoded
piece by piece (text_stream.py) through the live request path of ``speech/``."""
