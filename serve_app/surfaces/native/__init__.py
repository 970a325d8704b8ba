"""Our own API: speech, voices, models, capabilities, usage, readiness."""
