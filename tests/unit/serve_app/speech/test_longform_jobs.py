"""Where a long-form job's files are made: below the process's priority, so that a
book's encoding leaves the cores to live requests (the files' contents are tested
through the API: tests/unit/serve_app/surfaces/native/test_jobs.py)."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from deployments.synthesis.priority import BACKGROUND_NICENESS
from serve_app.speech.longform_jobs import FILE_MAKERS


def _niceness() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a nice value per thread")
def test_a_job_s_files_are_made_below_the_process_s_priority() -> None:
    own = _niceness()
    makers = {FILE_MAKERS.submit(_niceness).result(timeout=30) for _ in range(8)}
    assert makers == {min(own + BACKGROUND_NICENESS, 19)}
    assert _niceness() == own  # the caller's own thread is left as it was
