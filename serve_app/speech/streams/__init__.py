"""Text that arrives a few words at a time (a WebSocket's contexts): buffered to
sentence ends (text_buffer.py), then checked, voiced, paid for, spoken and encoded
piece by piece (text_stream.py) through the live request path of ``speech/``."""
