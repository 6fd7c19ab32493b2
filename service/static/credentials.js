// Credentials of the organizer's and entrants' pages: taken from the URL fragment (#key=…, #invite=…),
// kept only in this tab's session storage, removed from the address bar, sent only as a Bearer header.

import { ApiError, authHeaders } from "./api.js";

const ORGANIZER_KEY = "gambit-organizer-key:";
const INVITE_KEY = "gambit-invite:";

// Take one parameter out of the fragment (and out of the address bar and history); null when absent.
export function takeFromFragment(name) {
  const fragment = new URLSearchParams(window.location.hash.replace(/^#/, ""));
  const value = fragment.get(name);
  if (!value) return null;
  fragment.delete(name);
  const rest = fragment.toString();
  history.replaceState(null, "", window.location.pathname + window.location.search + (rest ? `#${rest}` : ""));
  return value;
}

/** The organizer key of a tournament: from `#key=` (then kept for the tab), else from this tab's session. */
export function readOrganizerKey(tournamentId) {
  const fromFragment = takeFromFragment("key");
  if (fromFragment) rememberOrganizerKey(tournamentId, fromFragment);
  return fromFragment || sessionStorage.getItem(ORGANIZER_KEY + tournamentId) || null;
}

/** Keep (or, with null, forget) a tournament's organizer key for this tab only. */
export function rememberOrganizerKey(tournamentId, key) {
  if (key) sessionStorage.setItem(ORGANIZER_KEY + tournamentId, key);
  else sessionStorage.removeItem(ORGANIZER_KEY + tournamentId);
}

/** An entrant's invite for a tournament or a match: from `#invite=` (then kept), else from this tab's session. */
export function readInvite(scope) {
  const fromFragment = takeFromFragment("invite");
  if (fromFragment) rememberInvite(scope, fromFragment);
  return fromFragment || sessionStorage.getItem(INVITE_KEY + scope) || null;
}

/** Keep (or, with null, forget) an invite for this tab only. */
export function rememberInvite(scope, invite) {
  if (invite) sessionStorage.setItem(INVITE_KEY + scope, invite);
  else sessionStorage.removeItem(INVITE_KEY + scope);
}

// The problem of an error response as an ApiError (its code and detail), or a generic one.
async function problemOf(response) {
  let problem = {};
  try { problem = await response.json(); } catch (_) { /* not JSON */ }
  const error = new ApiError(response.status, problem.code, problem.detail || problem.title);
  error.problem = problem;
  return error;
}

/** POST a JSON body with a Bearer credential; the parsed answer (and `location`), or an ApiError. */
export async function postJSON(path, token, body) {
  let response;
  try {
    response = await fetch(path, {
      method: "POST",
      headers: authHeaders(token, { "Content-Type": "application/json" }),
      body: JSON.stringify(body ?? {}),
      cache: "no-store",
    });
  } catch (err) {
    throw new ApiError(0, "network_error", `cannot reach the server (${err.message})`);
  }
  if (!response.ok) throw await problemOf(response);
  const answer = await response.json();
  return { ...answer, location: response.headers.get("Location") };
}

/** Fetch a file with a Bearer credential and hand it to the browser as a download (the key stays in a header). */
export async function download(path, token, filename) {
  let response;
  try {
    response = await fetch(path, { headers: authHeaders(token, { Accept: "*/*" }), cache: "no-store" });
  } catch (err) {
    throw new ApiError(0, "network_error", `cannot reach the server (${err.message})`);
  }
  if (!response.ok) throw await problemOf(response);
  saveBlob(await response.blob(), filename);
}

/** Offer a Blob as a file download (an object URL, revoked once the click has been handled). */
export function saveBlob(blob, filename) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/** Copy a text to the clipboard (the field is selected as well, for a manual copy where that is refused). */
export async function copyText(text, field) {
  if (field) field.select();
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch (_) {
    return document.execCommand ? document.execCommand("copy") : false;
  }
}
