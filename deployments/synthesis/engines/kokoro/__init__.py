"""Kokoro-82M, the default voices: the engine (engine.py; batching.py its torch form;
loading.py makes the one the options ask for), text to its phonemes
(phonemes.py), a segment's model calls and their audio (passages.py), the model behind
one interface (backends.py: the int8 ONNX export, or model/ in torch with float
weights converted from it; onnx_float.py: the float ONNX export), and where the
weights and voices come from (assets.py)."""
