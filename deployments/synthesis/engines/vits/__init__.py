"""A VITS checkpoint in torch (engine.py), with the ``vits`` extra installed."""
