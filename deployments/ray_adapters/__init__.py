"""The parts of Ray that Ray keeps private and we use: one module a need.

Ray Serve 2.60 has no public way to do any of these. Each module here says what it
touches and why; nothing else in the project (the tests included) imports
``ray._private`` or ``ray.serve._private`` (``tests/unit/test_layout.py`` keeps it
so), and ``tests/unit/deployments/ray_adapters/`` fails on a Ray that no longer has
what a module uses, so an upgrade shows there and not as a quiet change in behaviour.
"""
