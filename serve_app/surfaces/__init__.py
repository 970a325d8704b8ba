"""The APIs clients speak, one folder each: ``native`` (SPEC.md), ``openai``,
``elevenlabs``, the ``websocket`` session they share, and the ``playground`` page."""
