"""OpenAI's speech API, answered on our ``/v1/audio/speech`` when a request names an
OpenAI model."""
