"""The engines, one folder each: ``kokoro/`` (Kokoro-82M, the default voices),
``espeak/`` (eSpeak NG), ``piper/`` (Piper's ONNX voices), ``vits/`` (a VITS
checkpoint in torch). Each speaks its voices through the ``Engine`` interface of
``deployments/synthesis/engine.py``; ``deployments/synthesis/registry.py`` loads them by
name, importing an engine only when a voice asks for it, so nothing here is imported
by the package itself."""
