"""eSpeak NG through its C library (engine.py): every language it has, on the CPU."""
