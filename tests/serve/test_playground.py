"""The playground in a real browser: Debian's Chromium, driven by Playwright, loading
the page from the running service, speaking, and failing the way a user would see."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.serve.conftest import Service
from tests.waiting import HANG_S

pytestmark = pytest.mark.serve

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
if not os.access(CHROMIUM, os.X_OK):
    pytest.skip(
        f"no Chromium at {CHROMIUM}: `make test` installs Debian's chromium "
        "(apt-get, as root); set CHROMIUM to another binary",
        allow_module_level=True,
    )

from playwright.sync_api import Browser, Page, expect, sync_playwright  # noqa: E402

# Every wait of the page's, Playwright's own and expect's included (5 s where none is
# named): a hang's guard, in its milliseconds.
HANG_MS = int(HANG_S * 1000)
expect.set_options(timeout=HANG_MS)
BROWSER_ARGS = [
    "--autoplay-policy=no-user-gesture-required",
    "--no-sandbox",  # root in a container: Chromium's sandbox cannot start there
    "--disable-dev-shm-usage",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=BROWSER_ARGS
        )
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context()
    context.set_default_timeout(HANG_MS)
    opened = context.new_page()
    yield opened
    context.close()


def stats(page: Page) -> dict[str, object]:
    result: dict[str, object] = page.evaluate("() => ({...window.playground.stats})")
    return result


def open_with_key(page: Page, service: Service, key: str) -> None:
    page.goto(service.url + "/")
    expect(page.locator("#voice option").first).to_be_attached()
    page.fill("#key", key)
    page.dispatch_event("#key", "change")


@pytest.mark.parametrize("delivery", ["audio", "sse"])
def test_hindi_speech_streams_and_plays_in_the_browser(
    page: Page, service: Service, delivery: str
) -> None:
    open_with_key(page, service, service.key)
    page.select_option("#language", "hi")
    page.select_option("#voice", "hi-female-beta")
    page.select_option("#delivery", delivery)
    page.click("#play")
    page.wait_for_function("() => window.playground.stats.state === 'done'", timeout=HANG_MS)
    seen = stats(page)
    assert seen["error"] is None
    assert isinstance(seen["bytes"], int) and seen["bytes"] > 48_000  # over a second of PCM
    assert isinstance(seen["firstAudioMs"], (int, float)) and seen["firstAudioMs"] > 0
    assert isinstance(seen["chunks"], int) and seen["chunks"] >= 1
    # the audio clock moves: what arrived is being played
    page.wait_for_function("() => window.playground.stats.playedSeconds > 0.3", timeout=HANG_MS)
    assert page.locator("#ttfa").inner_text() != "–"
    headers = page.locator("#headers").inner_text()
    assert "x-service-language\thi" in headers and "x-service-sample-rate\t24000" in headers
    expect(page.locator("#normalised")).to_contain_text("ओ टी पी चार आठ दो एक")


def test_a_description_changes_the_voice_and_says_how(page: Page, service: Service) -> None:
    open_with_key(page, service, service.key)
    page.fill("#description", "a calm, deep male voice, speaking slowly")
    page.click("#play")
    page.wait_for_function("() => window.playground.stats.state === 'done'", timeout=HANG_MS)
    assert stats(page)["error"] is None
    expect(page.locator("#headers")).to_contain_text("mode=description; gender=male")


def test_a_whole_mp3_plays_in_the_audio_element(page: Page, service: Service) -> None:
    open_with_key(page, service, service.key)
    page.select_option("#delivery", "buffered")
    page.select_option("#format", "mp3")
    page.click("#play")
    page.wait_for_function("() => window.playground.stats.state === 'done'", timeout=HANG_MS)
    expect(page.locator("#player")).to_be_visible()
    page.wait_for_function("() => window.playground.stats.receivedSeconds > 1", timeout=HANG_MS)
    assert page.locator("#headers").inner_text().count("audio/mpeg") == 1


def test_a_long_text_file_becomes_a_job_followed_to_its_audio(
    page: Page, service: Service, tmp_path: Path
) -> None:
    """The long-text tab: a Markdown file read from disk, started as a job, its
    chapters listed as they are made, each playable, and the whole audio played."""
    book = tmp_path / "book.markdown"
    book.write_text(
        "# पहला अध्याय\n\nगाँव के किनारे एक पुराना बरगद का पेड़ था।\n\n"
        "# दूसरा अध्याय\n\nबरसात के दिनों में नदी का पानी बढ़ जाता था।\n"
    )
    open_with_key(page, service, service.key)
    page.select_option("#language", "hi")
    page.select_option("#voice", "hi-espeak-aditi")
    page.set_input_files("#job-file", str(book))
    expect(page.locator("#job-text")).to_have_value(book.read_text())
    page.click("#job-start")
    page.wait_for_function("() => window.playground.job.state === 'done'", timeout=2 * HANG_MS)
    job = page.evaluate("() => ({...window.playground.job})")
    assert job["error"] is None and job["chunksDone"] == job["chunks"] == 2
    assert [c["title"] for c in job["chapters"]] == ["पहला अध्याय", "दूसरा अध्याय"]
    expect(page.locator("#job-chapters li button")).to_have_count(2)
    expect(page.locator("#job-player")).to_be_visible()
    seconds = page.wait_for_function(
        "() => { const p = document.getElementById('job-player');"
        " return p.readyState >= 1 && p.duration > 1 && p.duration; }",
        timeout=HANG_MS,
    ).json_value()
    assert 2 < seconds < 20  # both chapters' sentences, as MP3
    assert page.locator("#job-progress").evaluate("p => p.value") == 1


def test_a_bad_key_shows_the_api_s_error(page: Page, service: Service) -> None:
    page.goto(service.url + "/")
    page.fill("#key", "sk-proj-nobody-0000000000000000000000000000")
    page.click("#play")
    page.wait_for_function("() => window.playground.stats.state === 'error'", timeout=HANG_MS)
    expect(page.locator("#error")).to_be_visible()
    expect(page.locator("#error")).to_contain_text("The API key is not valid.")
    expect(page.locator("#error")).to_contain_text("401 invalid_api_key")
    assert stats(page)["bytes"] == 0


def test_the_key_stays_in_the_browser(page: Page, service: Service) -> None:
    """Kept in localStorage for the next visit; never in a URL."""
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    open_with_key(page, service, service.key)
    page.reload()
    assert page.input_value("#key") == service.key
    assert not any(service.key in url for url in requests)


def test_words_are_highlighted_as_they_are_spoken(page: Page, service: Service) -> None:
    """The default voice times its words (Kokoro's durations): the page shows the text
    as spoken and marks the word sounding now, moving forward with the audio clock."""
    open_with_key(page, service, service.key)
    page.select_option("#language", "hi")
    page.select_option("#voice", "default")
    page.select_option("#delivery", "timed")
    page.fill("#text", "नमस्ते दोस्तों, आज का मौसम बहुत सुहाना है।")
    page.click("#play")
    expect(page.locator("#spoken span.saying")).to_have_count(1, timeout=HANG_MS)
    first = stats(page)["spokenWord"]
    page.wait_for_function("() => window.playground.stats.state === 'done'", timeout=HANG_MS)
    page.wait_for_function(
        f"() => window.playground.stats.spokenWord > {first}", timeout=HANG_MS
    )  # the mark moves on as the audio plays
    seen = stats(page)
    assert seen["error"] is None
    words = seen["words"]
    assert isinstance(words, list)
    assert [w["text"] for w in words] == "नमस्ते दोस्तों, आज का मौसम बहुत सुहाना है।".split()
    starts = [w["start"] for w in words]
    assert starts == sorted(starts) and starts[0] == 0 and starts[-1] < seen["receivedSeconds"]
    expect(page.locator("#spoken span.said").first).to_have_text("नमस्ते")
