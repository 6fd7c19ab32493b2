// Live following: Server-Sent Events from /matches/{id}/events, read with fetch() so a token
// can go in the Authorization header (EventSource cannot send one; a token never goes in a URL).
//
// The stream never gives up while the match runs: after any drop (the server's scheduled close,
// a network failure, the browser going offline, a server restart, a silent dead connection) it
// reconnects with backoff, resuming after the last record the page holds (`after=` and
// `Last-Event-ID`, service/events.py), so no record is skipped and none is delivered twice.

import { authHeaders } from "./api.js";

// Backoff after a failed connection: 0.5 s, 1 s, 2 s, 4 s, then every 8 s (each with some jitter).
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 8000;
// The server sends a keep-alive every 15 s (service/events.py): a stream silent for longer is dead.
const SILENCE_MS = 25000;

/** The wait before reconnect attempt number `failures` (1, 2, …): doubling, capped, with jitter. */
export function backoffMs(failures) {
  const base = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1));
  return Math.round(base * (0.85 + Math.random() * 0.3));
}

/**
 * Follow a match's new records; returns a handle with stop() and wake().
 * `from()` gives the last version the page holds (the stream resumes after it); onRecord(record)
 * gets each record in the caller's form; onEnd() runs once the match has finished and the stream
 * said so; onState(state) reports "connecting", "live", "reconnecting" or "stopped"; onResume()
 * runs each time the stream is back after a failure (the page re-reads what it may have missed).
 */
export function follow(matchId, token, from, { onRecord, onEnd, onState, onError, onResume = () => {} }) {
  let stopped = false;
  let failures = 0;
  let current = null;        // the AbortController of the open request
  let wakeUp = null;         // resolves the pause between attempts early
  let state = null;

  // Report a state change once.
  function setState(next) {
    if (next === state) return;
    state = next;
    onState(next);
  }

  // One streaming request; resolves to true when the server said the match has ended.
  async function connect() {
    const abort = new AbortController();
    current = abort;
    let silence = setTimeout(() => abort.abort(new Error("the stream went silent")), SILENCE_MS);
    try {
      const position = from();
      const response = await fetch(`/matches/${encodeURIComponent(matchId)}/events?after=${position}`, {
        headers: authHeaders(token, { Accept: "text/event-stream", "Last-Event-ID": String(position) }),
        cache: "no-store",
        signal: abort.signal,
      });
      if (!response.ok || !response.body) {
        const error = new Error(`the event stream answered ${response.status}`);
        error.status = response.status;
        throw error;
      }
      const resumed = failures > 0;
      failures = 0;
      setState("live");
      if (resumed) onResume();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return false;
        clearTimeout(silence);
        silence = setTimeout(() => abort.abort(new Error("the stream went silent")), SILENCE_MS);
        buffer += value.replace(/\r\n?/g, "\n");
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const message = parseMessage(buffer.slice(0, cut));
          buffer = buffer.slice(cut + 2);
          if (message.event === "end") return true;
          if (message.event === "record" && message.data) onRecord(JSON.parse(message.data));
        }
      }
    } finally {
      clearTimeout(silence);
      current = null;
    }
  }

  // Wait `ms`, or less when wake() is called (the browser came back online).
  function pause(ms) {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeUp = () => { clearTimeout(timer); resolve(); };
    }).finally(() => { wakeUp = null; });
  }

  // Connect, and reconnect after every close or failure, until the match ends or stop() is called.
  async function run() {
    setState("connecting");
    while (!stopped) {
      const began = Date.now();
      try {
        if (await connect()) {
          stopped = true;
          setState("stopped");
          onEnd();
          return;
        }
        // The server closes every stream on schedule: resume at once, quietly (a stream closed
        // as soon as it opened is a failure, or a broken server would be asked again and again).
        if (!stopped && navigator.onLine !== false && Date.now() - began > 1000) continue;
      } catch (err) {
        if (stopped) return;
        if (err.status === 401 || err.status === 403 || err.status === 404) {
          stopped = true;
          setState("stopped");
          onError(err);
          return;
        }
      }
      if (stopped) return;
      failures += 1;
      setState("reconnecting");
      await pause(navigator.onLine === false ? MAX_RETRY_MS : backoffMs(failures));
    }
  }

  // Offline: the open stream is dead whatever it says; online: try again now.
  const offline = () => {
    if (current) current.abort(new Error("the browser went offline"));
  };
  const online = () => {
    if (wakeUp) wakeUp();
  };
  window.addEventListener("offline", offline);
  window.addEventListener("online", online);

  run();
  return {
    // Stop following (closes the stream).
    stop() {
      stopped = true;
      window.removeEventListener("offline", offline);
      window.removeEventListener("online", online);
      if (current) current.abort();
      if (wakeUp) wakeUp();
      setState("stopped");
    },
    // Try to reconnect now instead of at the end of the backoff pause.
    wake() {
      if (wakeUp) wakeUp();
    },
    // The state last reported.
    get state() { return state; },
  };
}

// One SSE message block into {event, data, id, retry}; comment lines (": keep-alive") are skipped.
export function parseMessage(block) {
  const message = { event: "message", data: "", id: null, retry: null };
  const data = [];
  for (const line of block.split("\n")) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") message.event = value;
    else if (field === "data") data.push(value);
    else if (field === "id") message.id = value;
    else if (field === "retry" && /^\d+$/.test(value)) message.retry = Number(value);
  }
  message.data = data.join("\n");
  return message;
}
