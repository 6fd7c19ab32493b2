// REST client of the viewer: every read goes through here, with the token only as a Bearer header.

/** An error response of the API (problem+json), or a network failure. */
export class ApiError extends Error {
  // Keep the HTTP status and the problem's stable code next to the message.
  constructor(status, code, detail) {
    super(detail || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}

const TOKEN_KEY = "gambit-watch-token:";

// The token for a match: from the URL fragment (#token=...), else from this tab's session storage.
export function readToken(matchId) {
  const fragment = new URLSearchParams(window.location.hash.replace(/^#/, ""));
  const fromFragment = fragment.get("token");
  if (fromFragment) {
    rememberToken(matchId, fromFragment);
    fragment.delete("token");
    // Take the token out of the address bar and history; it stays in this tab's session only.
    const rest = fragment.toString();
    history.replaceState(null, "", window.location.pathname + window.location.search + (rest ? `#${rest}` : ""));
    return fromFragment;
  }
  return sessionStorage.getItem(TOKEN_KEY + matchId) || null;
}

// Keep (or, with null, forget) the token of a match for this browser tab.
export function rememberToken(matchId, token) {
  if (token) sessionStorage.setItem(TOKEN_KEY + matchId, token);
  else sessionStorage.removeItem(TOKEN_KEY + matchId);
}

// The request headers for a caller: Authorization only when there is a token.
export function authHeaders(token, extra = {}) {
  const headers = { Accept: "application/json", ...extra };
  if (token) headers.Authorization = `Bearer ${token}`;
  return headers;
}

// GET a JSON resource; throws ApiError with the problem's code on an error status.
export async function getJSON(path, token) {
  let response;
  try {
    response = await fetch(path, { headers: authHeaders(token), cache: "no-store" });
  } catch (err) {
    throw new ApiError(0, "network_error", `cannot reach the server (${err.message})`);
  }
  if (!response.ok) {
    let problem = {};
    try { problem = await response.json(); } catch (_) { /* not JSON */ }
    throw new ApiError(response.status, problem.code, problem.detail || problem.title);
  }
  return response.json();
}

// Path of a match sub-resource with its id escaped.
function matchPath(matchId, rest = "") {
  return `/matches/${encodeURIComponent(matchId)}${rest}`;
}

// The match summary (ruleset, status, version, seats, outcome).
export function getSummary(matchId, token) {
  return getJSON(matchPath(matchId), token);
}

// Every event record of the match in the caller's form, paging through /events.
export async function getAllEvents(matchId, token, after = 0) {
  const out = [];
  let cursor = after;
  for (;;) {
    const page = await getJSON(matchPath(matchId, `/events?after=${cursor}&limit=500`), token);
    out.push(...page.events);
    if (page.next_after === null || page.next_after === undefined || page.events.length === 0) return out;
    cursor = page.next_after;
  }
}

// Replay frames (record + view) for versions from..to; follows next_from across pages.
export async function getFrames(matchId, token, from, to) {
  const frames = [];
  let start = from;
  while (start !== null && start !== undefined && start <= to) {
    const page = await getJSON(matchPath(matchId, `/replay?from=${start}&to=${to}`), token);
    frames.push(...page.frames);
    start = page.next_from;
  }
  return frames;
}

// The view at one version (what the page must show there).
export function getView(matchId, token, at) {
  return getJSON(matchPath(matchId, at ? `/view?at=${at}` : "/view"), token);
}

// One game's public description: default config, command types and its card catalogue.
export function getRuleset(ruleset) {
  return getJSON(`/rulesets/${encodeURIComponent(ruleset)}`, null);
}

// The bluff-call audit of the match (claims, verdicts, evidence when visible, `verified`).
export function getAudit(matchId, token) {
  return getJSON(matchPath(matchId, "/audit/bluffs"), token);
}

// A page of the match list, newest first (status: "active", "finished", "open" or null for all).
export function listMatches(status, after = null, limit = 25) {
  const query = new URLSearchParams({ limit: String(limit) });
  if (status) query.set("status", status);
  if (after) query.set("after", after);
  return getJSON(`/matches?${query}`, null);
}
