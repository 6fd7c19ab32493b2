// Live following: Server-Sent Events from /matches/{id}/events, read with fetch() so a token
// can go in the Authorization header (EventSource cannot send one; a token never goes in a URL).

import { authHeaders } from "./api.js";

/**
 * Follow a match's new records; returns a handle with stop().
 * onRecord(record) gets each record in the caller's form, onEnd() runs once the match has
 * finished and the stream said so, onState(text) reports "live", "reconnecting", "stopped".
 */
export function follow(matchId, token, after, { onRecord, onEnd, onState, onError }) {
  const abort = new AbortController();
  let position = after;
  let retryMs = 2000;
  let stopped = false;

  // One streaming request; resolves to true when the server said the match has ended.
  async function connect() {
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
    onState("live");
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return false;
      buffer += value.replace(/\r\n?/g, "\n");
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const message = parseMessage(buffer.slice(0, cut));
        buffer = buffer.slice(cut + 2);
        if (message.retry) retryMs = message.retry;
        if (message.event === "end") return true;
        if (message.event === "record" && message.data) {
          const record = JSON.parse(message.data);
          if (record.version > position) {
            position = record.version;
            onRecord(record);
          }
        }
      }
    }
  }

  // Reconnect after the server closes the stream (it does every minute) until the match ends.
  async function run() {
    while (!stopped) {
      let failed = false;
      try {
        if (await connect()) {
          stopped = true;
          onState("stopped");
          onEnd();
          return;
        }
      } catch (err) {
        if (stopped || err.name === "AbortError") return;
        if (err.status === 401 || err.status === 403 || err.status === 404) {
          stopped = true;
          onState("stopped");
          onError(err);
          return;
        }
        failed = true;
      }
      if (stopped) return;
      // A stream the server closed on schedule is resumed quietly; a failure is shown.
      if (failed) onState("reconnecting");
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }

  run();
  return {
    // Stop following (closes the stream).
    stop() {
      stopped = true;
      abort.abort();
      onState("stopped");
    },
    // The last version received.
    get position() { return position; },
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
