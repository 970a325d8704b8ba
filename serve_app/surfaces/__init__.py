"""The APIs clients speak, one folder each: ``native`` (our own), ``openai``,
``elevenlabs``, the ``websocket`` session they share, and the ``playground`` page."""
