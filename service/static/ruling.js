// The printable ruling (`/ruling/<match_id>/<number>`, root `data-page="ruling"`): tournament, match,
// players, the call, the evidence with its commitments re-opened in this browser and where each was
// opened, the organizer's decision and note, the chain head and the signed receipt of the ruling's
// write, and the `gambit verify` command that checks it offline. It reads the match's resources as
// its viewer: without a key a spectator (everything once the match has finished; sealed evidence
// stays sealed while it runs), with the organizer key (#key=… or the desk's tab) the organizer.

import { ApiError, getAllEvents, getAudit, getJSON, getSummary } from "./api.js";
import { outcomeText } from "./board-parts.js";
import { download, readOrganizerKey, rememberOrganizerKey, saveBlob, takeFromFragment } from "./credentials.js";
import { el, scalar } from "./dom.js";
import { entryFor, recordLine, renderCall, renderEvidence, verifyCommand } from "./evidence-view.js";

// The records one ruling write may hold after its DisputeRuled record.
const RULING_WRITE = ["DisputeRuled", "OutcomeAmended", "ClockResumed", "MatchFinished"];
// The first element matching a CSS selector.
const $ = (selector) => document.querySelector(selector);
const [matchId, number] = window.location.pathname.split("/").filter(Boolean).slice(-2).map(decodeURIComponent);

// Show an error above the page (null hides it).
function showError(message) {
  $("#error").hidden = !message;
  $("#error").textContent = message || "";
}

// The page's state (tests and print wait on it).
function setState(state) {
  $("#ruling").dataset.state = state;
}

// The organizer key for this match's tournament: #key= (kept for the tab) or the desk's, checked by a read.
async function organizerKey(tournamentId, fromFragment) {
  if (!tournamentId) return null;
  if (fromFragment) rememberOrganizerKey(tournamentId, fromFragment);
  const key = fromFragment || readOrganizerKey(tournamentId);
  if (!key) return null;
  try {
    await getSummary(matchId, key);
    return key;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return null;
    throw err;
  }
}

// The signed receipt of the ruling's write. The write ends at the ruling's record or at a record written
// with it (the amended outcome, the clock resumed): the longest such run is asked for first.
async function rulingReceipt(records, ruled) {
  let last = ruled.version;
  while (last < records.length && RULING_WRITE.includes(records[last].kind) && records[last].kind !== "DisputeRuled") last += 1;
  for (let version = last; version >= ruled.version; version -= 1) {
    try {
      return await getJSON(`/matches/${encodeURIComponent(matchId)}/receipts/${version}`, null);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
    }
  }
  return null;
}

// A definition list from [term, description] pairs.
function facts(pairs) {
  return el("dl", { class: "facts" }, pairs.filter(Boolean).map(([term, value]) => [el("dt", {}, term), el("dd", {}, value)]));
}

// Each seat with its player's name and the entrant holding it.
function players(summary, entrants) {
  return el("ul", { class: "seat-list" }, summary.seats.map((s) => el("li", { "data-seat": s.seat },
    el("strong", {}, s.seat), ` ${s.name || "(open)"}`,
    s.entrant_id ? ` — entrant ${entrants.get(s.entrant_id) || ""} (${s.entrant_id})` : "")));
}

// Names of the tournament's entrants (public), empty where the service has none.
async function entrantNames(tournamentId) {
  if (!tournamentId) return new Map();
  try {
    const page = await getJSON(`/tournaments/${encodeURIComponent(tournamentId)}/entrants?limit=500`, null);
    return new Map(page.entrants.map((e) => [e.entrant_id, e.name]));
  } catch (_) {
    return new Map();
  }
}

// The proof section: the ruling write's chain head, its receipt (to keep), the export and the command.
function renderProof(summary, records, receipt, key) {
  const exportFile = `${matchId}.ndjson`;
  const receiptFile = `ruling-${matchId}-${number}-receipt.json`;
  const saveReceipt = el("button", { type: "button", class: "no-print", disabled: !receipt }, "Download the receipt");
  saveReceipt.addEventListener("click", () => saveBlob(new Blob([`${JSON.stringify(receipt, null, 1)}\n`], { type: "application/json" }), receiptFile));
  const saveExport = el("button", { type: "button", class: "no-print" }, "Download the match export");
  saveExport.addEventListener("click", () => download(`/matches/${encodeURIComponent(matchId)}/export`, key, exportFile)
    .catch((err) => showError(`Export refused: ${err.message}`)));
  const head = records[records.length - 1];
  $("#proof-body").replaceChildren(
    facts([
      ["chain head of the ruling's write", receipt ? el("code", { class: "hex full", "data-chain-head": receipt.head }, receipt.head) : "—"],
      ["at version", receipt ? `v${receipt.version}` : "—"],
      ["match's newest chain head", head ? el("code", { class: "hex full" }, head.chain) : "—"],
      ["newest version", `v${summary.version}`],
    ]),
    el("h3", {}, "Signed receipt of the ruling's write"),
    receipt ? el("pre", { class: "receipt", "data-receipt": String(receipt.version) }, JSON.stringify(receipt, null, 1))
      : el("p", { class: "muted", "data-receipt": "" }, "The receipt of this write is not available to this viewer yet."),
    el("h3", {}, "Check it yourself, offline"),
    el("ol", { class: "steps" },
      el("li", {}, "Save the service's key: ", el("a", { href: "/.well-known/gambit-signing-key", download: "signing-key.json" }, "signing-key.json"),
        " (better: the copy you saved earlier — a receipt proves the records only against a key you already trust)."),
      el("li", {}, "Save the match export as ", el("code", {}, exportFile), " ", saveExport,
        summary.status === "finished" ? "" : " (while the match runs, an export holds only what its reader may see)"),
      el("li", {}, "Save this receipt as ", el("code", {}, receiptFile), " ", saveReceipt),
      el("li", {}, "Run:")),
    el("pre", { class: "command", "data-verify-command": "" }, verifyCommand(exportFile, receiptFile)),
    el("p", { class: "hint" }, "VERIFIED means: the chain is whole, every commitment opens, every verdict follows from the rules, and the service signed this ruling's records — so neither the service nor the organizer can change them afterwards without it showing."));
}

// Draw the whole ruling.
async function render(key) {
  const summary = await getSummary(matchId, key);
  const [records, audit, disputes, tournament, entrants] = await Promise.all([
    getAllEvents(matchId, key), getAudit(matchId, key),
    getJSON(`/matches/${encodeURIComponent(matchId)}/disputes`, key),
    summary.tournament_id ? getJSON(`/tournaments/${encodeURIComponent(summary.tournament_id)}?limit=1`, null).catch(() => null) : null,
    entrantNames(summary.tournament_id)]);
  const dispute = disputes.disputes.find((d) => String(d.dispute) === number);
  $("#viewer-note").textContent = summary.status === "finished" ? "The match has finished: all of its evidence is public."
    : key ? "Shown to the organizer while the match runs: evidence still sealed from the players is included."
      : "The match is still running: evidence still sealed is not shown here (its commitments are).";
  $("#facts-body").replaceChildren(facts([
    ["tournament", tournament ? `${tournament.name} (${tournament.tournament_id})` : scalar(summary.tournament_id)],
    ["match", el("code", {}, summary.match_id)],
    ["game", summary.ruleset],
    ["status", `${summary.status} (v${summary.version})`],
    ["outcome", summary.outcome ? outcomeText(summary.outcome) : "—"],
    ["players", players(summary, entrants)],
  ]));
  if (!dispute) {
    $("#title").textContent = `No dispute ${number} (yet)`;
    $("#dispute-body").replaceChildren(el("p", {}, `This match has no dispute ${number} that this viewer may see.`));
    setState("missing");
    return;
  }
  const entry = entryFor(audit.calls, dispute.call_version);
  const ruled = records.find((r) => r.kind === "DisputeRuled" && (r.public || {}).dispute === dispute.dispute);
  const amended = records.find((r) => r.kind === "OutcomeAmended" && (r.public || {}).dispute === dispute.dispute);
  const filed = records.find((r) => r.kind === "DisputeFiled" && (r.public || {}).dispute === dispute.dispute);
  $("#title").textContent = `Ruling on dispute ${dispute.dispute} · ${summary.ruleset} ${summary.match_id.slice(0, 8)}`;
  document.title = `Ruling ${dispute.dispute} · ${summary.match_id.slice(0, 8)} · Gambit`;
  $("#call-body").replaceChildren(renderCall(entry));
  const filer = summary.seats.find((s) => s.seat === dispute.filed_by);
  $("#dispute-body").replaceChildren(facts([
    ["filed by", `${dispute.filed_by}${filer && filer.name ? ` (${filer.name})` : ""}`],
    ["filed at", `v${dispute.filed_version}${filed ? `, ${new Date(filed.timestamp).toLocaleString()}` : ""}`],
    ["reason", el("q", {}, dispute.reason)],
  ]));
  await renderEvidence($("#evidence-body"), entry, records);
  if (!ruled) {
    $("#decision-body").replaceChildren(el("p", { "data-decision": "" }, "Not ruled yet: the organizer has not decided this dispute."));
    $("#proof-body").replaceChildren();
    setState("pending");
    return;
  }
  const p = ruled.public;
  $("#decision-body").replaceChildren(
    el("p", { class: `decision decision-${p.decision}`, "data-decision": p.decision },
      p.decision === "upheld" ? "UPHELD: the call's verdict stands." : "OVERTURNED: the call's verdict is set aside."),
    facts([
      ["the organizer's ruling", el("q", { "data-note": "" }, p.note || "(no note)")],
      ["ruled at", `v${ruled.version}, ${new Date(ruled.timestamp).toLocaleString()}`],
      amended ? ["amended outcome", el("span", { "data-amended": "" }, outcomeText(amended.public.outcome))] : null,
      amended ? ["outcome before", outcomeText(amended.public.previous_outcome)] : null,
    ]),
    el("ol", { class: "records" }, records.filter((r) => r.version >= ruled.version && (r === ruled || r === amended)).map((r) => recordLine(r))));
  renderProof(summary, records, await rulingReceipt(records, ruled), key);
  // A printed ruling shows every part: nothing stays folded away.
  for (const details of document.querySelectorAll("#ruling main details")) details.open = true;
  setState("ready");
}

// Page start: the key (if any) once the match's tournament is known, then the ruling.
async function main() {
  $("#print").addEventListener("click", () => window.print());
  const fromFragment = takeFromFragment("key");
  try {
    const publicSummary = await getSummary(matchId, null);
    const key = await organizerKey(publicSummary.tournament_id, fromFragment);
    await render(key);
  } catch (err) {
    showError(err instanceof ApiError && err.status === 404 ? "There is no such match." : `Could not load the ruling: ${err.message}`);
    setState("error");
  }
}

main();
