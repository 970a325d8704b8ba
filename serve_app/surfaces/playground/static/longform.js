// The playground's long text: a long-form job started, followed to its end (a chapter
// can be played as soon as it is made), its whole audio played. Uses playground.js's
// $, authHeaders and errorOf.
"use strict";

const POLL_MS = 1000;
// What the page has seen of the current job; tests read it too.
const job = { id: null, state: "idle", chunks: 0, chunksDone: 0, chapters: [], error: null };
window.playground.job = job;
let following = null; // the job being followed: a new one stops the old one's loop

function jobFormat() {
  const format = $("format").value;
  return format === "pcm" ? "mp3" : format; // an <audio> element plays files, not raw PCM
}

function jobError(message) {
  job.state = "error";
  job.error = message;
  $("job-error").textContent = message;
  $("job-error").hidden = false;
}

async function playJobAudio(path, player) {
  const response = await fetch(path, { headers: authHeaders() });
  if (!response.ok) {
    jobError(await errorOf(response));
    return;
  }
  if (player.src) URL.revokeObjectURL(player.src);
  player.src = URL.createObjectURL(await response.blob());
  player.hidden = false;
}

function showJob(now) {
  Object.assign(job, {
    state: now.state, chunks: now.chunks, chunksDone: now.chunks_done, chapters: now.chapters,
  });
  $("job-progress").value = now.characters ? now.characters_done / now.characters : 0;
  const left = now.estimated_seconds_left === null ? "" : `, about ${Math.ceil(now.estimated_seconds_left)} s left`;
  $("job-status").textContent =
    `${now.state}: ${now.chunks_done} of ${now.chunks} chunks, ` +
    `${now.audio_seconds.toFixed(1)} s of audio${left}.`;
  const list = $("job-chapters");
  now.chapters.forEach((chapter, index) => {
    let item = list.children[index];
    if (!item) {
      item = document.createElement("li");
      item.append(document.createElement("span"));
      list.append(item);
    }
    item.firstChild.textContent = `${chapter.title || "Chapter " + (index + 1)}: ${chapter.state}`;
    if (chapter.state === "done" && item.children.length === 1) {
      const play = document.createElement("button");
      play.type = "button";
      play.textContent = "▶ play";
      play.addEventListener("click", () =>
        playJobAudio(`/v1/speech/jobs/${now.id}/audio?chapter=${index}`, $("job-player")));
      item.append(play);
    }
  });
}

async function follow(id) {
  following = id;
  while (following === id) {
    const response = await fetch(`/v1/speech/jobs/${id}`, { headers: authHeaders() });
    if (!response.ok) {
      jobError(await errorOf(response));
      break;
    }
    const now = await response.json();
    showJob(now);
    if (now.state !== "running") {
      if (now.state === "done") await playJobAudio(`/v1/speech/jobs/${id}/audio`, $("job-player"));
      else if (now.error) jobError(now.error);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  if (following === id) $("job-cancel").disabled = true;
}

async function startJob(event) {
  event.preventDefault();
  Object.assign(job, { id: null, state: "requesting", chunks: 0, chunksDone: 0, chapters: [], error: null });
  $("job-error").hidden = true;
  $("job-chapters").replaceChildren();
  $("job-player").hidden = true;
  $("job-progress").value = 0;
  const body = {
    input: $("job-text").value,
    text_type: $("job-type").value,
    language: $("language").value,
    voice: $("voice").value,
    response_format: jobFormat(),
  };
  const description = $("description").value.trim();
  if (description) body.voice_description = description;
  const response = await fetch("/v1/speech/jobs", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...authHeaders() },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    jobError(await errorOf(response));
    return;
  }
  const created = await response.json();
  job.id = created.id;
  showJob(created);
  $("job-cancel").disabled = false;
  await follow(created.id);
}

async function cancelJob() {
  if (!job.id) return;
  following = null;
  const response = await fetch(`/v1/speech/jobs/${job.id}`, { method: "DELETE", headers: authHeaders() });
  if (response.ok) {
    const last = await response.json();
    job.state = "deleted";
    $("job-status").textContent = `Cancelled and deleted: ${last.chunks_done} of ${last.chunks} chunks had been made.`;
  } else {
    jobError(await errorOf(response));
  }
  $("job-cancel").disabled = true;
}

async function readFile() {
  const file = $("job-file").files[0];
  if (!file) return;
  $("job-text").value = await file.text();
  const name = file.name.toLowerCase();
  $("job-type").value = name.endsWith(".md") || name.endsWith(".markdown") ? "markdown" : "text";
}

$("job-form").addEventListener("submit", (event) => startJob(event).catch((e) => jobError(String(e))));
$("job-cancel").addEventListener("click", () => cancelJob().catch((e) => jobError(String(e))));
$("job-file").addEventListener("change", () => readFile().catch((e) => jobError(String(e))));
