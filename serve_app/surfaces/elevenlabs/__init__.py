"""ElevenLabs' text-to-speech API and WebSockets."""
