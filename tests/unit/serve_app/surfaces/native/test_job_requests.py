"""What a long-form job's request may be, over HTTP with the ingress in process: a
JSON body larger than a speech request's, a file uploaded as a form, and every
refusal in the API's error shape, counted against the key's rate."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from serve_app.surfaces.native.jobs import MARKDOWN_FILES, SSML_FILES
from tests.unit.serve_app.conftest import DEV_KEY, ESPEAK, make_state
from tests.unit.serve_app.surfaces.native.test_jobs import (
    BOOK,
    JOBS,
    finished,
    sentences,
    service,
)


async def test_refusals_name_what_is_wrong(tmp_path: Path, auth: dict[str, str]) -> None:
    state = make_state(tmp_path, longform_max_characters=5_000, longform_max_running_jobs=1)
    async with service(state, worker=False) as client:

        async def refused(body: dict, status: int, code: str) -> dict:
            response = await client.post(JOBS, headers=auth, json=body)
            assert response.status_code == status, response.text
            error = response.json()["error"]
            assert error["code"] == code and error["request_id"]
            return error

        both = {"input": "एक।", "chapters": [{"title": "क", "input": "दो।"}]}
        await refused(both, 400, "invalid_value")
        await refused({}, 400, "invalid_value")
        long = await refused({"input": "क " * 3_000}, 400, "input_too_long")
        assert "5000" in long["message"] and long["param"] == "input"
        await refused({"input": "  \n\n  "}, 400, "empty_input")
        await refused({"input": "……  —"}, 400, "empty_input")
        await refused({"input": "ठीक।", "voice": "no-such-voice"}, 404, "voice_not_found")
        await refused({"input": "ठीक।", "speling": 1}, 400, "unknown_field")
        assert (await client.post(JOBS, json={"input": "ठीक।"})).status_code == 401

        job = (await client.post(JOBS, headers=auth, json={"input": "एक छोटा पाठ।"})).json()
        too_many = await client.post(JOBS, headers=auth, json={"input": "दूसरा पाठ।"})
        assert too_many.status_code == 429 and too_many.headers["retry-after"]
        assert too_many.json()["error"]["code"] == "rate_limited"
        early = await client.get(f"{JOBS}/{job['id']}/audio", headers=auth)
        assert early.status_code == 404 and "running" in early.json()["error"]["message"]
        assert (
            await client.get(f"{JOBS}/{job['id']}/audio?chapter=7", headers=auth)
        ).status_code == 404

        # another project's key sees none of it
        other = state.store.create_key(state.store.create_project("other", 10**9))
        foreign = {"Authorization": f"Bearer {other}"}
        for path in ("", "/audio", "/events"):
            response = await client.get(f"{JOBS}/{job['id']}{path}", headers=foreign)
            assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
        assert (await client.delete(f"{JOBS}/{job['id']}", headers=foreign)).status_code == 404
        assert (await client.get(JOBS, headers=foreign)).json()["data"] == []

        # a balance that cannot cover the worst case: 402, nothing held
        poor = state.store.create_key(state.store.create_project("poor", 1_000))
        response = await client.post(
            JOBS, headers={"Authorization": f"Bearer {poor}"}, json={"input": "क " * 2_000}
        )
        assert response.status_code == 402
        assert response.json()["error"]["code"] == "insufficient_balance"

        # cancelled: what was held is released, nothing was made, nothing charged
        cancelled = (await client.delete(f"{JOBS}/{job['id']}", headers=auth)).json()
        assert cancelled["state"] == "cancelled" and cancelled["cost_deci_micros"] == 0
        project = (await state.auth.authorise(auth["Authorization"], None)).project_id
        assert (state.store.usage(project).held, state.store.usage(project).spent) == (0, 0)


@pytest.mark.parametrize("size", [1 << 20, 5 << 20])
async def test_a_job_s_body_may_be_larger_than_a_request_s(
    tmp_path: Path, auth: dict[str, str], size: int
) -> None:
    """Over the 1 MiB of a speech request, up to the jobs' own limit (4 MiB)."""
    state = make_state(tmp_path, longform_max_characters=10)
    async with service(state, worker=False) as client:
        body = json.dumps({"input": "a" * size}).encode()
        response = await client.post(
            JOBS, headers={**auth, "Content-Type": "application/json"}, content=body
        )
        error = response.json()["error"]
        assert (response.status_code, error["code"]) == (
            (400, "input_too_long") if size < 4 << 20 else (413, "body_too_large")
        )
        assert DEV_KEY not in response.text


async def test_a_file_uploaded_as_a_form_is_the_job_s_text(
    tmp_path: Path, auth: dict[str, str]
) -> None:
    """A .md file is Markdown (its headings chapters), the other fields as form fields
    (a number as in JSON); a .txt file plain text; a .ssml file SSML. Refused: no
    file, a second file, text that is not UTF-8, input beside the file, a field of the
    wrong type."""
    state = make_state(tmp_path)
    async with service(state) as client:
        form = {"voice": ESPEAK, "response_format": "wav", "speed": "1.25"}
        book = (f"book{MARKDOWN_FILES[0]}", BOOK.encode(), "text/markdown")
        created = await client.post(JOBS, headers=auth, data=form, files={"file": book})
        assert created.status_code == 202, created.text
        job = created.json()
        assert [c["title"] for c in job["chapters"]] == ["पहला अध्याय", "दूसरा अध्याय"]
        done = await finished(client, auth, job["id"])
        assert done["state"] == "done" and done["content_type"] == "audio/wav"
        as_json = {"input": BOOK, "text_type": "markdown", "speed": 1.25}
        same = (await client.post(JOBS, headers=auth, json={**form, **as_json})).json()
        assert same["characters"] == job["characters"] and same["chunks"] == job["chunks"]
        await client.delete(f"{JOBS}/{same['id']}", headers=auth)
        # plain text: one chapter (a heading is text), the BOM dropped
        words = "# नहीं शीर्षक\n\nनमस्ते।"
        text = ("notes.txt", ("\ufeff" + words).encode(), "text/plain")
        plain = (await client.post(JOBS, headers=auth, files={"file": text})).json()
        sent = (await client.post(JOBS, headers=auth, json={"input": words})).json()
        assert len(plain["chapters"]) == 1 and plain["characters"] == sent["characters"]
        for made in (plain, sent):
            await client.delete(f"{JOBS}/{made['id']}", headers=auth)
        # SSML: a paragraph a chunk where they do not fit together
        markup = "<speak>" + "".join(f"<p>{sentences(i, 14)}</p>" for i in range(3)) + "</speak>"
        document = (f"lesson{SSML_FILES[0]}", markup.encode(), "application/ssml+xml")
        marked = (await client.post(JOBS, headers=auth, files={"file": document})).json()
        assert marked["chunks"] == 3, marked
        await client.delete(f"{JOBS}/{marked['id']}", headers=auth)

        refusals = [
            ({"voice": ESPEAK}, None, "invalid_value", "file"),
            (form, {"file": ("a.txt", b"\xff\xfe\x00bad", "text/plain")}, "invalid_value", "file"),
            ({"input": "नमस्ते।"}, {"file": book}, "invalid_value", "file"),
            ({"speed": "fast"}, {"file": book}, "invalid_value", "speed"),
            ({"bogus": "1"}, {"file": book}, "unknown_field", "bogus"),
            (form, {"other": book}, "invalid_value", "other"),
            (form, {"file": book, "more": book}, "invalid_value", "file"),  # one file a form
        ]
        for fields, files, code, param in refusals:
            if files is None:  # a form with no file part at all
                response = await client.post(JOBS, headers=auth, files={"voice": (None, ESPEAK)})
            else:
                response = await client.post(JOBS, headers=auth, data=fields, files=files)
            error = response.json()["error"]
            assert (response.status_code, error["code"], error["param"]) == (400, code, param)
            assert DEV_KEY not in response.text


async def test_a_job_counts_against_the_key_s_rate_before_its_text_is_read(
    tmp_path: Path, auth: dict[str, str]
) -> None:
    """Submitting is work (the text is read to price it): each submission is one of the
    key's requests a minute, refused past them, whatever becomes of it."""
    for attempt in range(2):  # again if a clock minute (the count's) ended meanwhile
        minute = time.time() // 60
        state = make_state(
            tmp_path / str(attempt), rate_limit_per_minute=2, longform_max_running_jobs=10
        )
        async with service(state, worker=False) as client:
            first = await client.post(JOBS, headers=auth, json={"input": "एक छोटा पाठ।"})
            empty = await client.post(JOBS, headers=auth, json={"input": "……"})
            third = await client.post(JOBS, headers=auth, json={"input": "एक छोटा पाठ।"})
            speech = await client.post(
                "/v1/audio/speech", headers=auth, json={"input": "नमस्ते।", "voice": ESPEAK}
            )
        if time.time() // 60 == minute:
            break
    assert (first.status_code, empty.status_code) == (202, 400)
    assert third.status_code == speech.status_code == 429
    assert third.json()["error"]["code"] == "rate_limited" and third.headers["retry-after"]
    assert "2 requests a minute" in third.json()["error"]["message"]


async def test_query_numbers_are_digits_and_unknown_parameters_are_refused(
    tmp_path: Path, auth: dict[str, str]
) -> None:
    """``1.0``, ``+1``, ``1_0`` are not chapter numbers (they were read as 1), and a
    parameter the route does not take is a 400, not ignored."""
    state = make_state(tmp_path)
    async with service(state, worker=False) as client:
        job = (await client.post(JOBS, headers=auth, json={"input": "एक छोटा पाठ।"})).json()
        audio = f"{JOBS}/{job['id']}/audio"
        for query in ("chapter=1.0", "chapter=+1", "chapter=1_0", "chapter=%D9%A1", "chapter=-0"):
            response = await client.get(f"{audio}?{query}", headers=auth)
            assert response.status_code == 400, (query, response.text)
            error = response.json()["error"]
            assert (error["code"], error["param"]) == ("invalid_value", "chapter"), query
        for query in ("limit=2.0", "limit=+2", "limit=0", "limit=101"):
            response = await client.get(f"{JOBS}?{query}", headers=auth)
            assert response.status_code == 400, (query, response.text)
            assert response.json()["error"]["param"] == "limit"
        for path, query in ((JOBS, "offset=20"), (JOBS, "page=2"), (audio, "chapters=0")):
            response = await client.get(f"{path}?{query}", headers=auth)
            assert response.status_code == 400, (query, response.text)
            error = response.json()["error"]
            assert error["param"] == query.partition("=")[0] and "Unknown" in error["message"]
        chapter = await client.get(f"{audio}?chapter=0", headers=auth)  # digits: asked for
        assert chapter.status_code == 404 and chapter.json()["error"]["param"] == "chapter"


async def test_the_job_list_pages_back_to_the_oldest_with_after(
    tmp_path: Path, auth: dict[str, str]
) -> None:
    state = make_state(tmp_path, longform_max_running_jobs=100)
    async with service(state, worker=False) as client:
        made = [
            (await client.post(JOBS, headers=auth, json={"input": f"पाठ {i}।"})).json()["id"]
            for i in range(7)
        ]
        seen: list[str] = []
        after = None
        while True:
            query = f"?limit=3&after={after}" if after else "?limit=3"
            page = (await client.get(JOBS + query, headers=auth)).json()
            seen += [job["id"] for job in page["data"]]
            assert page["last_id"] == page["data"][-1]["id"]
            if not page["has_more"]:
                break
            after = page["last_id"]
        assert seen == made[::-1]  # newest first, each once, the oldest reached
        other = state.store.create_key(state.store.create_project("other", 10**9))
        foreign = await client.get(
            f"{JOBS}?after={made[0]}", headers={"Authorization": f"Bearer {other}"}
        )
        assert foreign.status_code == 400 and foreign.json()["error"]["param"] == "after"


async def test_what_a_document_may_hold_is_refused_before_it_is_read_not_dropped(
    tmp_path: Path, auth: dict[str, str]
) -> None:
    """Past 255 chapters (headings or named), Markdown nested past 20 or SSML past 32:
    a 400 that says so; once, Markdown 20 deep lost its deep text without a word and
    SSML 900 deep was a 500."""
    state = make_state(tmp_path, longform_max_running_jobs=100)
    async with service(state, worker=False) as client:

        async def refused(body: dict, param: str, says: str) -> None:
            response = await client.post(JOBS, headers=auth, json=body)
            assert response.status_code == 400, response.text
            error = response.json()["error"]
            assert (error["code"], error["param"]) == ("invalid_value", param), error
            assert says in error["message"], error["message"]

        headings = "".join(f"# अध्याय {i}\n\nपाठ {i}।\n\n" for i in range(256))
        await refused({"input": headings, "text_type": "markdown"}, "input", "255")
        named = [{"title": f"{i}", "input": "पाठ।"} for i in range(256)]
        await refused({"chapters": named}, "chapters", "255")
        most = {"input": headings.rpartition("# अध्याय 255")[0], "text_type": "markdown"}
        assert (await client.post(JOBS, headers=auth, json=most)).status_code == 202

        deep = "> " * 25 + "गहरी बात यहाँ है।\n"
        await refused({"input": deep, "text_type": "markdown"}, "input", "nested deeper")
        await refused({"input": "- " * 25 + "सूची।\n", "text_type": "markdown"}, "input", "nested")
        shallow = "> " * 8 + "गहरी बात यहाँ है।\n"
        kept = await client.post(
            JOBS, headers=auth, json={"input": shallow, "text_type": "markdown"}
        )
        assert kept.json()["characters"] == len("गहरी बात यहाँ है।")  # all of it read

        for element, depth in (("emphasis", 900), ("prosody", 1100), ("s", 40)):
            ssml = f"<speak>{f'<{element}>' * depth}नमस्ते।{f'</{element}>' * depth}</speak>"
            await refused({"input": ssml, "text_type": "ssml"}, "input", "nested deeper than 32")
            await refused(
                {"chapters": [{"title": "क", "input": ssml}], "text_type": "ssml"},
                "input",
                "nested",
            )


async def test_chapter_titles_are_one_clean_line(tmp_path: Path, auth: dict[str, str]) -> None:
    """NUL cut a title in the MP3's marks; ESC, a right-to-left override and newlines
    reached the JSON and the marks."""
    state = make_state(tmp_path)
    async with service(state, worker=False) as client:
        titles = ["पहला\x00 अध्याय", "\x1b[31mदूसरा\u202e अध्याय", "तीसरा\n\nअध्याय\t"]
        chapters = [{"title": t, "input": "पाठ यहाँ है।"} for t in titles]
        job = (await client.post(JOBS, headers=auth, json={"chapters": chapters})).json()
        markdown = "# चौथा\u202e\x07 अध्याय\n\nपाठ।\n"
        other = await client.post(
            JOBS, headers=auth, json={"input": markdown, "text_type": "markdown"}
        )
    assert [c["title"] for c in job["chapters"]] == ["पहला अध्याय", "[31mदूसरा अध्याय", "तीसरा अध्याय"]
    assert other.json()["chapters"][0]["title"] == "चौथा अध्याय"


async def test_a_job_that_may_not_start_is_refused_before_its_text_is_read(
    tmp_path: Path, auth: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key with no balance got its 402 after 17 s of reading 400k characters; a
    project at its limit of jobs its 429 after the same: now neither text is read."""
    state = make_state(tmp_path, longform_max_running_jobs=1)
    reads = []
    read = state.speech.read

    async def counted(*args: Any, **kwargs: Any) -> Any:  # the real reading, counted
        reads.append(args)
        return await read(*args, **kwargs)

    monkeypatch.setattr(state.speech, "read", counted)
    broke = state.store.create_key(state.store.create_project("broke", 0))
    book = {"input": sentences(0, 600)}
    async with service(state, worker=False) as client:
        refused = await client.post(JOBS, headers={"Authorization": f"Bearer {broke}"}, json=book)
        assert refused.status_code == 402, refused.text
        assert refused.json()["error"]["code"] == "insufficient_balance"
        assert reads == []
        first = await client.post(JOBS, headers=auth, json={"input": "एक छोटा पाठ।"})
        assert first.status_code == 202 and len(reads) == 1
        too_many = await client.post(JOBS, headers=auth, json=book)
        assert too_many.status_code == 429 and len(reads) == 1


async def test_a_job_is_spoken_and_billed_with_its_dictionaries_as_they_were(
    tmp_path: Path, auth: dict[str, str]
) -> None:
    """A dictionary changed while the job waits: its chunks still say (and cost) what
    was held for, not the new alias ten times as long."""
    state = make_state(tmp_path)
    async with service(state, worker=False) as client:
        rules = [{"type": "alias", "string_to_replace": "OK", "alias": "ठीक"}]
        made = (
            await client.post(
                "/v1/pronunciation-dictionaries/add-from-rules",
                headers=auth,
                json={"name": "words", "rules": rules},
            )
        ).json()
        body = {
            "input": " ".join(["सब OK है।"] * 20),
            "voice": ESPEAK,
            "pronunciation_dictionaries": [{"id": made["id"]}],
        }
        job = (await client.post(JOBS, headers=auth, json=body)).json()
        longer = [{"type": "alias", "string_to_replace": "OK", "alias": "बहुत " * 10 + "ठीक"}]
        changed = await client.post(
            f"/v1/pronunciation-dictionaries/{made['id']}/set-rules",
            headers=auth,
            json={"rules": longer},
        )
        assert changed.status_code == 200, changed.text
    async with service(state) as client:
        done = await finished(client, auth, job["id"])
        # the same text as a speech request of the dictionary's first version
        first = {**body, "response_format": "pcm", "sample_rate": 22050}
        first["pronunciation_dictionaries"] = [{"id": made["id"], "version_id": made["version_id"]}]
        then = await client.post("/v1/audio/speech", headers=auth, json=first)
    assert done["state"] == "done", done
    assert done["cost_deci_micros"] == job["held_deci_micros"]  # what was held: all of it said
    then_seconds = len(then.content) / 2 / 22050
    assert abs(done["audio_seconds"] - then_seconds) < 0.1 * then_seconds, (
        done["audio_seconds"], then_seconds,
    )  # fmt: skip


async def test_silence_a_job_asks_for_is_held_and_billed_as_speech(
    tmp_path: Path, auth: dict[str, str]
) -> None:
    """A character and a ten-second break, many times over: 4,602 s of audio for
    10,335 characters billed USD 0.0072 once. Now each second of silence is held (and
    billed) as 15 characters."""
    state = make_state(tmp_path)
    price = state.config.price_per_character_deci_micros
    # each paragraph in an element of its own: a chunk of its own (one document a chunk,
    # and a document's pauses are bounded, 120 s)
    paragraphs = "".join(
        f'<prosody rate="{90 + i}%"><p>क<break time="10s"/></p></prosody>' for i in range(30)
    )
    markup = f"<speak>{paragraphs}</speak>"
    async with service(state, worker=False) as client:
        job = (
            await client.post(
                JOBS, headers=auth, json={"input": markup, "text_type": "ssml", "voice": ESPEAK}
            )
        ).json()
    assert "held_deci_micros" in job, job
    silence_s = 30 * 10  # the breaks alone, paragraph ends aside
    assert job["held_deci_micros"] >= price * 15 * silence_s
