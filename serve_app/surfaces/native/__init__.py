"""Our own API, SPEC.md and API.md."""
