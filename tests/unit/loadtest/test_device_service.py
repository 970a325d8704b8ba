"""What the whole service needs on a lent GPU machine, read from this environment."""

from __future__ import annotations

import pytest

from loadtest.device_image import WHEELS, image_distributions, image_packages
from loadtest.device_service import requirements, service_distributions


def test_the_service_needs_ray_serve_and_its_framework_but_not_what_the_image_holds() -> None:
    needed = service_distributions("3.12")
    # the image has none of these; ray's serve extra brings its HTTP stack
    for name in ("ray", "fastapi", "uvicorn", "starlette", "lameenc", "av", "psycopg-binary"):
        assert name in needed
    held = set(image_distributions(image_packages())) | {w.lower() for w in WHEELS}
    assert not held & set(needed)  # neither the image's nor the GPU kit's again
    assert "numpy" not in needed and "torch" not in needed
    assert len(needed) == len(set(needed))


@pytest.mark.parametrize(("extras", "has_serve"), [(frozenset(), False), ({"serve"}, True)])
def test_an_extra_brings_its_requirements_only_when_named(
    extras: frozenset[str], has_serve: bool
) -> None:
    names = {r.name.lower() for r in requirements("ray", frozenset(extras), "3.12")}
    assert ("fastapi" in names) is has_serve
