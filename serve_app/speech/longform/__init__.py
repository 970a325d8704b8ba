"""Long-form jobs: a document cut into chapters and chunks (chunks.py, ssml.py,
vocabulary.py), submitted, listed and watched (jobs.py, view.py, progress.py), its
chunks spoken by every ingress replica (work.py, idle_waits.py), its audio put
together (audio.py) in the audio store (``speech/audio_store.py``, which the speech
cache shares), and its webhooks sent (webhooks.py).
The live request path (the modules of ``speech/`` itself) is what it speaks with;
nothing there imports this room."""
