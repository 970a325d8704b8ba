"""A staged load shape: 1, 4, 16, then 64 users, each for LOAD_STAGE_S seconds (30).

locust -f loadtest/locustfile.py,loadtest/shapes.py --host ... --headless
"""

from __future__ import annotations

import os

from locust import LoadTestShape

STAGES = (1, 4, 16, 64)


class StagedShape(LoadTestShape):
    stage_s = float(os.environ.get("LOAD_STAGE_S", "30"))

    def tick(self) -> tuple[int, float] | None:
        stage = int(self.get_run_time() // self.stage_s)
        if stage >= len(STAGES):
            return None  # the run ends by itself
        users = STAGES[stage]
        return users, float(users)
