"""Load tests (Locust) for the speech service. Run from Locust's CLI, never with Ray imported."""
