// The playground: one page on the public API. Streams are played as they arrive:
// raw PCM (or SSE deltas of it) scheduled chunk after chunk on a Web Audio clock.
"use strict";

const PCM_RATE = 24000;
const KEY_STORE = "speech-playground-key";
const $ = (id) => document.getElementById(id);

// What the page has seen of the current request; tests read it too.
const stats = {
  state: "idle", // idle | requesting | playing | done | error
  bytes: 0,
  chunks: 0,
  firstAudioMs: null,
  receivedSeconds: 0,
  playedSeconds: 0,
  error: null,
  words: [], // timed deliveries: { text, start } in seconds from the audio's start
  spokenWord: -1, // the word sounding now
};
window.playground = { stats };

let audio = null; // { context, playhead, carry, started }
let controller = null;

function show() {
  $("ttfa").textContent = stats.firstAudioMs === null ? "–" : stats.firstAudioMs.toFixed(0);
  $("bytes").textContent = stats.bytes.toLocaleString("en");
  $("chunks").textContent = String(stats.chunks);
  $("seconds").textContent = stats.receivedSeconds.toFixed(2);
  $("played").textContent = stats.playedSeconds.toFixed(2);
}

function setStatus(text) {
  $("status").textContent = text;
}

function showError(message) {
  stats.state = "error";
  stats.error = message;
  $("error").textContent = message;
  $("error").hidden = false;
  setStatus("The request failed.");
}

function authHeaders() {
  const key = $("key").value.trim();
  return key ? { Authorization: `Bearer ${key}` } : {};
}

async function errorOf(response) {
  try {
    const body = await response.json();
    const error = body.error || {};
    return `${error.message || response.statusText} (${response.status} ${error.code || ""})`.trim();
  } catch {
    return `${response.status} ${response.statusText}`;
  }
}

function showHeaders(response) {
  const body = $("headers").tBodies[0];
  body.replaceChildren();
  for (const [name, value] of response.headers) {
    const row = body.insertRow();
    row.insertCell().textContent = name;
    row.insertCell().textContent = value;
  }
}

// -- voices and languages -------------------------------------------------------------

let voices = [];

async function loadVoices() {
  const response = await fetch("/v1/voices", { headers: authHeaders() });
  if (!response.ok) {
    // a wrong key: list the public voices, say why the key's own are missing
    showError(await errorOf(response));
    const open = await fetch("/v1/voices");
    voices = (await open.json()).data;
  } else {
    voices = (await response.json()).data;
  }
  const languages = [...new Set(voices.flatMap((v) => v.languages))];
  const languageSelect = $("language");
  const chosen = languageSelect.value || "hi";
  const names = new Intl.DisplayNames(["en"], { type: "language" });
  const label = (code) => `${names.of(code) || code} (${code})`;
  languageSelect.replaceChildren(
    ...languages.map((code) => new Option(label(code), code, false, code === chosen)),
  );
  fillVoices();
}

function fillVoices() {
  const language = $("language").value;
  const select = $("voice");
  const before = select.value;
  const speakers = voices.filter((v) => v.languages.includes(language));
  select.replaceChildren(
    ...speakers.map((v) => {
      const label = `${v.name} — ${v.engine}, ${v.gender}${v.custom ? ", yours" : ""}`;
      return new Option(label, v.id, false, v.id === before);
    }),
  );
}

// -- playing --------------------------------------------------------------------------

function startAudio() {
  const context = new AudioContext({ sampleRate: PCM_RATE });
  audio = { context, playhead: 0, carry: null, started: null };
  context.resume();
}

function tickPlayed() {
  if (!audio) return;
  if (audio.started !== null) {
    const played = Math.min(audio.context.currentTime - audio.started, stats.receivedSeconds);
    stats.playedSeconds = Math.max(0, played);
    highlight(stats.playedSeconds);
  }
  show();
  if (stats.state === "requesting" || stats.state === "playing") {
    requestAnimationFrame(tickPlayed);
  } else if (audio.started !== null && stats.playedSeconds < stats.receivedSeconds - 0.01) {
    requestAnimationFrame(tickPlayed); // still sounding after the stream ended
  }
}

function firstAudio(started) {
  if (stats.firstAudioMs === null) {
    stats.firstAudioMs = performance.now() - started;
    stats.state = "playing";
    setStatus("Playing as it arrives…");
  }
}

// 16-bit little-endian mono PCM, possibly split mid-sample between chunks.
function playPcm(bytes) {
  let data = bytes;
  if (audio.carry) {
    data = new Uint8Array(audio.carry.length + bytes.length);
    data.set(audio.carry);
    data.set(bytes, audio.carry.length);
    audio.carry = null;
  }
  const whole = data.length - (data.length % 2);
  if (whole < data.length) audio.carry = data.slice(whole);
  if (whole === 0) return;
  const view = new DataView(data.buffer, data.byteOffset, whole);
  const samples = new Float32Array(whole / 2);
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(2 * i, true) / 32768;
  const buffer = audio.context.createBuffer(1, samples.length, PCM_RATE);
  buffer.copyToChannel(samples, 0);
  const source = audio.context.createBufferSource();
  source.buffer = buffer;
  source.connect(audio.context.destination);
  const now = audio.context.currentTime;
  if (audio.playhead < now + 0.02) audio.playhead = now + 0.05; // start, or an underrun
  if (audio.started === null) audio.started = audio.playhead;
  source.start(audio.playhead);
  audio.playhead += buffer.duration;
  stats.receivedSeconds += buffer.duration;
}

function base64Bytes(text) {
  const raw = atob(text);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

async function readRaw(response, started) {
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    stats.bytes += value.length;
    stats.chunks += 1;
    firstAudio(started);
    playPcm(value);
  }
}

async function readEvents(response, started) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    pending += value;
    let end;
    while ((end = pending.indexOf("\n\n")) >= 0) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] || "{}");
      if (event === "audio.delta") {
        const bytes = base64Bytes(data.delta);
        stats.bytes += bytes.length;
        stats.chunks += 1;
        firstAudio(started);
        playPcm(bytes);
      } else if (event === "error") {
        showError(`${data.error.message} (${data.error.code})`);
      }
    }
  }
}

// -- words highlighted as they are spoken -------------------------------------------------

// ElevenLabs' /stream/with-timestamps: a JSON object a line, its audio and the start
// of each character (seconds from the start of the audio) of the text as spoken.
async function readTimed(response, started) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    pending += value;
    let end;
    while ((end = pending.indexOf("\n")) >= 0) {
      const line = JSON.parse(pending.slice(0, end));
      pending = pending.slice(end + 1);
      const bytes = base64Bytes(line.audio_base64);
      stats.bytes += bytes.length;
      stats.chunks += 1;
      firstAudio(started);
      if (line.alignment) addWords(line.alignment);
      playPcm(bytes);
    }
  }
}

let wordNodes = []; // the #spoken span of each of stats.words

function addWords(alignment) {
  const box = $("spoken");
  const { characters, character_start_times_seconds: starts } = alignment;
  // a new chunk's characters start a new word (segments join without a space)
  let word = null;
  characters.forEach((char, i) => {
    if (/\s/.test(char)) {
      word = null;
      return;
    }
    if (word === null) {
      word = { text: "", start: starts[i] };
      stats.words.push(word);
      wordNodes.push(document.createElement("span"));
      if (box.childNodes.length) box.append(" ");
      box.append(wordNodes[wordNodes.length - 1]);
    }
    word.text += char;
    wordNodes[wordNodes.length - 1].textContent = word.text;
  });
  box.hidden = false;
}

function highlight(seconds) {
  let now = -1;
  while (now + 1 < stats.words.length && stats.words[now + 1].start <= seconds) now += 1;
  if (now === stats.spokenWord) return;
  wordNodes.forEach((node, i) => {
    node.className = i < now ? "said" : i === now ? "saying" : "";
  });
  stats.spokenWord = now;
}

async function playWhole(response, started, format) {
  const blob = await response.blob();
  stats.bytes = blob.size;
  stats.chunks = 1;
  firstAudio(started);
  if (format === "pcm") {
    playPcm(new Uint8Array(await blob.arrayBuffer()));
    return;
  }
  const player = $("player");
  player.onloadedmetadata = () => {
    if (Number.isFinite(player.duration)) stats.receivedSeconds = player.duration;
    show();
  };
  player.ontimeupdate = () => {
    stats.playedSeconds = player.currentTime;
    show();
  };
  player.onerror = () => showError(`The browser cannot play this ${format} file.`);
  player.src = URL.createObjectURL(blob);
  player.hidden = false;
  await player.play().catch(() => setStatus("Press play on the player to listen."));
}

async function normalise(text, language) {
  const response = await fetch("/v1/text/normalize", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...authHeaders() },
    body: JSON.stringify({ input: text, language }),
  });
  $("normalised").textContent = response.ok ? (await response.json()).text : "–";
}

async function speak(event) {
  event.preventDefault();
  stop();
  Object.assign(stats, {
    state: "requesting", bytes: 0, chunks: 0, firstAudioMs: null,
    receivedSeconds: 0, playedSeconds: 0, error: null, words: [], spokenWord: -1,
  });
  wordNodes = [];
  $("spoken").replaceChildren();
  $("spoken").hidden = true;
  $("error").hidden = true;
  $("player").hidden = true;
  $("headers").tBodies[0].replaceChildren();
  show();
  const text = $("text").value;
  const language = $("language").value;
  const delivery = $("delivery").value;
  const stream = delivery !== "buffered";
  const format = stream ? "pcm" : $("format").value; // streams play raw PCM
  const body = { input: text, language, voice: $("voice").value, response_format: format, stream };
  if (format === "pcm") body.sample_rate = PCM_RATE;
  if (stream) body.stream_format = delivery;
  const description = $("description").value.trim();
  if (description) body.voice_description = description;

  startAudio();
  requestAnimationFrame(tickPlayed);
  controller = new AbortController();
  $("stop").disabled = false;
  setStatus("Requesting…");
  const started = performance.now();
  normalise(text, language).catch(() => {});
  try {
    const timed = delivery === "timed"; // ElevenLabs' route: it answers character times
    const voice = encodeURIComponent($("voice").value);
    const url = timed
      ? `/v1/text-to-speech/${voice}/stream/with-timestamps?output_format=pcm_${PCM_RATE}`
      : "/v1/audio/speech";
    const sent = timed ? { text, language_code: language } : body;
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...authHeaders() },
      body: JSON.stringify(sent),
      signal: controller.signal,
    });
    showHeaders(response);
    if (!response.ok) {
      showError(await errorOf(response));
      return;
    }
    if (!stream) await playWhole(response, started, format);
    else if (delivery === "sse") await readEvents(response, started);
    else if (timed) await readTimed(response, started);
    else await readRaw(response, started);
    if (stats.state !== "error") {
      stats.state = "done";
      setStatus(`Done: ${stats.receivedSeconds.toFixed(2)} s of audio.`);
    }
  } catch (error) {
    if (error.name !== "AbortError") showError(String(error));
  } finally {
    $("stop").disabled = true;
    show();
  }
}

function stop() {
  if (controller) controller.abort();
  controller = null;
  if (audio) audio.context.close();
  audio = null;
  if (stats.state === "requesting" || stats.state === "playing") {
    stats.state = "done";
    setStatus("Stopped.");
  }
}

function init() {
  const saved = localStorage.getItem(KEY_STORE);
  if (saved) $("key").value = saved;
  $("key").addEventListener("change", () => {
    localStorage.setItem(KEY_STORE, $("key").value.trim());
    $("error").hidden = true;
    loadVoices();
  });
  $("language").addEventListener("change", fillVoices);
  $("form").addEventListener("submit", speak);
  $("stop").addEventListener("click", stop);
  loadVoices().catch((error) => showError(String(error)));
  show();
}

init();
