"""Piper's ONNX voices (engine.py), with the ``piper`` extra installed."""
