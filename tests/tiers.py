"""Which tests run where in `make test`, in one place (no imports: the Makefile asks
it with ``python -m tests.tiers compute``).

The compute tests run a neural model on the CPU for seconds each and keep no
wall-clock deadline (no sleeps, timeouts or waits: only the model's arithmetic and
its answers). `make test` runs them at the lowest priority beside the cluster and
serve tiers, in the CPU those tiers leave idle while they wait for replicas;
everything else of the unit tier runs before, at full priority.
`tests/unit/test_layout.py` keeps these files free of deadlines. Their tier collects
these paths alone: collecting the whole unit tier again (importing the service's
every module in each worker) would cost it twice the CPU it takes to collect them.
"""

from __future__ import annotations

import sys

COMPUTE_TESTS = (
    "tests/gpu/",
    "tests/unit/deployments/synthesis/engines/kokoro/",
    "tests/unit/deployments/synthesis/test_phoneme_timings.py",
    "tests/unit/loadtest/test_kokoro_baseline.py",
)

if __name__ == "__main__":
    if sys.argv[1:] != ["compute"]:
        sys.exit("usage: python -m tests.tiers compute")
    print(*COMPUTE_TESTS)
