"""The ingress: the Serve deployment, its state, the FastAPI app the surfaces attach to,
where each stage runs, and the front proxy of ``make run``."""
