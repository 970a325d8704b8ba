"""The stream-input WebSocket session, shared by our protocol and ElevenLabs' two."""
