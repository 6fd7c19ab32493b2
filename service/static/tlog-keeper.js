// The page keeps the log (docs/playing.md, "The page keeps the log"): it reads the served checkpoint of its match's
// log (GET /log/checkpoint, or /log/{partition}/checkpoint with several partitions: the log its receipts name, else
// the partition its match id names), checks the service key's signature on it (the key of /.well-known/gambit-signing-key)
// and the cosignatures of the witnesses the service names (GET /log/), keeps the newest checkpoint a quorum
// cosigned in this browser's localStorage per log, and checks every newer one against it with an RFC 6962
// consistency proof (that log's GET …/consistency). A checkpoint that does not extend the kept one — another tree of
// the same size, a tree that does not contain the kept one, a smaller one — raises an alarm that stays on the
// page. It also keeps this seat's receipts — its join's (from the join answer, or read back with
// GET /matches/{id}/receipts/{version} for a seat that joined elsewhere: it proves which key the seat registered)
// and its moves' — and saves them with their inclusion proofs (GET /matches/{id}/log-proof/{version}, each checked
// here) for `gambit verify --receipt`. It asks for a proof only once GET /matches/{id}/logged says the served
// checkpoint holds the write, never for one it knows is not in the log yet; a proof that fails all the same is asked
// for again after a wait that doubles (PROOF_RETRY_MS up to PROOF_RETRY_MAX_MS). When the service's key is rotated, a kept receipt of the retired key gets
// its proof fetched again, against a checkpoint the new key signed (docs/verification.md, "Key rotation").
//
// The panel's data attributes say where it is: data-state (loading, kept, waiting, alarm, unavailable),
// data-kept-size and data-served-size (tree sizes), data-receipts (receipts kept), data-proven (of them, with a
// proof that stands), data-joined (the join's receipt is kept), data-refreshed (proofs fetched again after a
// rotation), data-rounds (looks at the log finished).

import { ApiError, authHeaders, getJSON } from "./api.js";
import { saveBlob } from "./credentials.js";
import { el } from "./dom.js";
import {
  consistent, cosigners, fromBase64, parseCheckpoint, parseNote, parseProof, proves, sameBytes, signedByLog,
} from "./tlog-proofs.js";

const CHECKPOINT_KEY = "gambit-log-checkpoint:"; // + the log's origin
const RECEIPTS_KEY = "gambit-receipts:";         // + match id + ":" + seat
const JOIN_KEY = "gambit-join-receipt:";         // + match id + ":" + seat: the version of the join's receipt
// The most receipts asked for to find where a seat's join write ended (a join that fills the table deals too).
const MAX_JOIN_RECORDS = 64;
// How often the page looks at the log again.
const CHECK_EVERY_MS = 15000;
// After a proof request that failed although the log said it held the write: the first wait, and the longest.
const PROOF_RETRY_MS = 2000;
const PROOF_RETRY_MAX_MS = 120000;
// A partitioned match id: a version-8 UUID whose first 16 bits are its partition (domain/partitions.py).
const PARTITIONED_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-/i;

/** The partition a match id names: its first 16 bits for a partitioned (version-8) id, 0 for any other. */
export function partitionOf(matchId) {
  const id = String(matchId || "");
  return PARTITIONED_ID.test(id) ? parseInt(id.slice(0, 4), 16) : 0;
}

// GET a text resource (the checkpoint); ApiError on an error status.
async function getText(path) {
  const response = await fetch(path, { cache: "no-store" });
  if (!response.ok) throw new ApiError(response.status, null, `HTTP ${response.status} for ${path}`);
  return response.text();
}

/** The log keeper of the watch page: one panel, one kept checkpoint per log, this seat's receipts. */
export class LogKeeper {
  // `box` is the panel's element; `storage` where checkpoints and receipts are kept (localStorage);
  // joinedAt(seat) the versions the seat's join write may end at, { first, last }, or null when not known yet.
  constructor(box, { matchId, storage = globalThis.localStorage, joinedAt = () => null }) {
    this.box = box;
    this.matchId = matchId;
    this.storage = storage;
    this.joinedAt = joinedAt;
    this.finding = null;    // the look for the join's receipt under way
    this.joinWalked = null; // the seat and versions of the last look that found no receipt
    this.stale = 0;         // kept proofs that no longer stand (a retired key's, against its own checkpoints), or
                            // whose checkpoint waits for its witnesses' cosignatures
    this.servedWitnessed = false; // whether the served checkpoint of the last round had its quorum's cosignatures
    this.token = null;
    this.seat = null;
    this.checking = null;   // the round under way
    this.timer = null;
    this.alarm = null;      // the first alarm raised: it stays
    this.listing = null;    // GET /log/, once read
    this.signing = null;    // the service's signing key document, once read
    this.retries = new Map(); // version → { wait, at }: a proof that failed, asked again no sooner than `at`
    this.build();
  }

  // The panel's fixed parts.
  build() {
    this.alarmLine = el("p", { class: "keeper-alarm", role: "alert", "data-testid": "log-alarm", hidden: true });
    this.status = el("p", { class: "keeper-status", "data-testid": "log-status" }, "Reading the log…");
    this.save = el("button", { type: "button", "data-testid": "save-receipts" }, "Save my receipts with their log proofs");
    this.save.addEventListener("click", () => this.saveReceipts());
    this.saveCheckpoint = el("button", { type: "button", "data-testid": "save-checkpoint", hidden: true }, "Save the kept checkpoint");
    this.saveCheckpoint.addEventListener("click", () => this.downloadCheckpoint());
    this.checkNow = el("button", { type: "button", "data-testid": "check-log" }, "Check the log now");
    this.checkNow.addEventListener("click", () => this.check());
    this.receiptsLine = el("p", { class: "keeper-receipts", "data-testid": "log-receipts" });
    this.receiptsBox = el("div", { class: "keeper-keep", hidden: true }, this.receiptsLine, this.save);
    this.box.replaceChildren(el("h2", {}, "Transparency log"), this.alarmLine, this.status, this.checkNow, " ",
      this.saveCheckpoint, this.receiptsBox);
    this.box.dataset.state = "loading";
    this.box.hidden = false;
  }

  /** Check now and then every CHECK_EVERY_MS. */
  start() {
    clearInterval(this.timer);
    this.timer = setInterval(() => this.check(), CHECK_EVERY_MS);
    return this.check();
  }

  /** The viewer changed: a seat (its token and name) or a spectator (nulls). */
  setSeat(token, seat) {
    this.token = token || null;
    this.seat = seat || null;
    this.renderReceipts();
    this.findJoin();
  }

  /** One look at the log (a round already under way is not doubled). */
  check() {
    if (!this.checking) {
      this.checking = this.round()
        .catch((err) => this.unavailable(`the log cannot be checked now: ${err.message}`))
        .finally(() => {
          this.checking = null;
          this.box.dataset.rounds = String(Number(this.box.dataset.rounds || 0) + 1);
        });
    }
    return this.checking;
  }

  // The checkpoint kept for a log: { origin, size, root (base64), note }, or null.
  kept(origin) {
    try {
      return JSON.parse(this.storage.getItem(CHECKPOINT_KEY + origin) || "null");
    } catch {
      return null;
    }
  }

  async round() {
    if (!(globalThis.crypto && crypto.subtle)) {
      this.unavailable("this page cannot check the log here (checking needs HTTPS)");
      return;
    }
    // The list of logs (its witnesses) and the service key are read once per page; the checkpoint every round.
    if (!this.listing) {
      try {
        this.listing = await getJSON("/log/", null);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) {
          this.unavailable("this service keeps no transparency log");
          return;
        }
        throw err;
      }
    }
    // Read again while a previous key waits for its retirement in the log: its receipts' proofs are then fetched again.
    const retiring = this.signing && (this.signing.previous_keys || []).some((k) => !k.retired);
    if (!this.signing || retiring) this.signing = await getJSON("/.well-known/gambit-signing-key", null);
    const log = this.matchLog();
    if (!log) {
      this.unavailable(`this service lists no log of this match's partition (${partitionOf(this.matchId)})`);
      return;
    }
    this.log = log;
    const signing = this.signing;
    const served = await getText(log.checkpoint || "/log/checkpoint");
    const note = parseNote(served);
    const checkpoint = parseCheckpoint(note.text);
    this.box.dataset.servedSize = String(checkpoint.size);
    this.box.dataset.origin = checkpoint.origin;
    if (checkpoint.origin !== log.origin) {
      this.raise(`the served checkpoint is of log ${checkpoint.origin}, not of ${log.origin}`);
      return;
    }
    let signed = await signedByLog(note, checkpoint.origin, signing.public_key);
    if (signed === false) {
      // The service key may have been rotated since this page read it: read it again before calling it a lie.
      this.signing = await getJSON("/.well-known/gambit-signing-key", null);
      signed = await signedByLog(note, checkpoint.origin, this.signing.public_key);
    }
    if (signed === false) {
      this.raise(`the served checkpoint of ${checkpoint.size} leaves is not signed by the service's key`);
      return;
    }
    const kept = this.kept(checkpoint.origin);
    if (kept && !(await this.extendsKept(kept, checkpoint, log))) return;
    const witnesses = log.witnesses || [];
    const names = witnesses.length ? await cosigners(note, witnesses) : [];
    const quorum = log.quorum || 0;
    const witnessed = names !== null && names.length >= quorum;
    this.servedWitnessed = witnessed;
    if (witnessed && (!kept || checkpoint.size > kept.size)) {
      this.storage.setItem(CHECKPOINT_KEY + checkpoint.origin, JSON.stringify({
        origin: checkpoint.origin, size: checkpoint.size, root: note.text.split("\n")[2], note: served,
      }));
    }
    this.render(checkpoint, this.kept(checkpoint.origin), { signed, names, quorum, witnesses, witnessed });
    if (this.token) {
      await this.findJoin();
      await this.proveReceipts();
    }
  }

  // The listed log this match's writes are leaves of: the one its kept receipts name, else its partition's (the one
  // log when there is one).
  matchLog() {
    const logs = (this.listing && this.listing.logs) || [];
    if (logs.length <= 1) return logs[0] || null;
    const named = this.receipts().map((r) => r.log).find(Boolean);
    if (named) return logs.find((l) => l.origin === named) || null;
    const partition = partitionOf(this.matchId);
    return logs.find((l) => l.partition === partition) || null;
  }

  // Whether the served checkpoint extends the kept one (an alarm is raised when it does not).
  async extendsKept(kept, checkpoint, log) {
    const keptRoot = fromBase64(kept.root);
    const where = `The log forked: the served checkpoint of ${checkpoint.size} leaves`;
    if (checkpoint.size < kept.size) {
      this.raise(`${where} is smaller than the one of ${kept.size} leaves this page kept: history was rewritten`);
      return false;
    }
    if (checkpoint.size === kept.size) {
      if (sameBytes(keptRoot, checkpoint.root)) return true;
      this.raise(`${where} has another root than the one of ${kept.size} leaves this page kept: two trees of one size`);
      return false;
    }
    const answer = await getJSON(`${log.consistency || "/log/consistency"}?first=${kept.size}&second=${checkpoint.size}`, null);
    let ok = false;
    try {
      ok = await consistent(kept.size, checkpoint.size, keptRoot, checkpoint.root, (answer.proof || []).map(fromBase64));
    } catch {
      ok = false;
    }
    if (!ok) this.raise(`${where} does not extend the one of ${kept.size} leaves this page kept: history was rewritten`);
    return ok;
  }

  // Say what the page keeps and what it saw (an alarm already raised stays in front).
  render(checkpoint, kept, { signed, names, quorum, witnesses, witnessed }) {
    if (this.alarm) return;
    const signature = signed ? "signed by the service's key" : "its signature not checkable in this browser";
    const cosigned = !witnesses.length ? "the service names no witnesses"
      : names === null ? "cosignatures not checkable in this browser"
        : `cosigned by ${names.length ? names.join(", ") : "no witness"} (${quorum} needed)`;
    const keeping = kept ? `This page keeps the log's checkpoint of ${kept.size} leaves.` : "This page keeps no checkpoint yet.";
    const served = kept && checkpoint.size > kept.size
      ? ` The served one (${checkpoint.size} leaves) extends it but waits for its witnesses.` : "";
    this.status.textContent = `${keeping}${served} Served: ${checkpoint.size} leaves, ${signature}, ${cosigned}; consistent with what this page kept.`;
    this.box.dataset.state = kept ? (witnessed ? "kept" : "waiting") : "waiting";
    this.box.dataset.keptSize = kept ? String(kept.size) : "";
    this.saveCheckpoint.hidden = !kept;
  }

  // A fork or a rewrite: say so, plainly and for good.
  raise(text) {
    if (!this.alarm) {
      this.alarm = text;
      this.alarmLine.textContent = `ALARM: ${text}. Keep this page's saved checkpoint and your receipts: they prove what you were shown.`;
    }
    this.alarmLine.hidden = false;
    this.box.dataset.state = "alarm";
    this.status.textContent = "";
  }

  // The log cannot be checked (no log, no WebCrypto, the server away): say why, keep what was kept.
  unavailable(text) {
    if (this.alarm) return;
    this.box.dataset.state = "unavailable";
    this.status.textContent = text;
  }

  // ----- the seat's receipts --------------------------------------------------------------------------

  // Where a seat's receipts are kept (this seat's by default).
  receiptsKey(seat = this.seat) {
    return seat ? `${RECEIPTS_KEY}${this.matchId}:${seat}` : null;
  }

  /** The receipts a seat (this one by default) kept here, oldest first. */
  receipts(seat = this.seat) {
    const key = this.receiptsKey(seat);
    if (!key) return [];
    try {
      return JSON.parse(this.storage.getItem(key) || "[]");
    } catch {
      return [];
    }
  }

  /** Keep the receipt of one of a seat's writes (a command's; a join's with `join`). */
  keepReceipt(receipt, seat = this.seat, { join = false } = {}) {
    if (!receipt || !seat) return;
    const kept = this.receipts(seat).filter((r) => r.version !== receipt.version);
    kept.push(receipt);
    kept.sort((a, b) => a.version - b.version);
    this.storage.setItem(this.receiptsKey(seat), JSON.stringify(kept));
    if (join) this.storage.setItem(`${JOIN_KEY}${this.matchId}:${seat}`, String(receipt.version));
    this.renderReceipts();
  }

  // Whether the seat's join receipt is kept here.
  joinKept(seat = this.seat) {
    return Boolean(seat && this.storage.getItem(`${JOIN_KEY}${this.matchId}:${seat}`));
  }

  /** Read back the join's receipt of a seat that joined elsewhere (another page, a client): the receipt of the
   * write that holds the seat's SeatJoined record, the first receipt at or after it. */
  findJoin() {
    if (this.finding || !this.token || !this.seat || this.joinKept()) return this.finding || Promise.resolve();
    const seat = this.seat;
    const token = this.token;
    const range = this.joinedAt(seat);
    const last = range ? Math.min(range.last, range.first + MAX_JOIN_RECORDS - 1) : 0;
    // A walk that found nothing is not walked again until the page holds newer records.
    if (!range || this.joinWalked === `${seat}:${last}`) return Promise.resolve();
    this.finding = (async () => {
      for (let version = range.first; version <= last; version += 1) {
        let receipt;
        try {
          receipt = await getJSON(`/matches/${encodeURIComponent(this.matchId)}/receipts/${version}`, token);
        } catch (err) {
          if (err instanceof ApiError && err.status === 404) continue; // no write ended here: the join's goes on
          throw err;
        }
        if (receipt.match_id === this.matchId && receipt.version === version) this.keepReceipt(receipt, seat, { join: true });
        return;
      }
      this.joinWalked = `${seat}:${last}`;
    })().catch(() => {
      // The server away: asked again next round.
    }).finally(() => {
      this.finding = null;
    });
    return this.finding;
  }

  renderReceipts() {
    const kept = this.receipts();
    const proven = kept.filter((r) => r.log_proof).length - this.stale;
    const joined = this.joinKept();
    this.receiptsBox.hidden = !this.token || kept.length === 0;
    this.box.dataset.receipts = String(kept.length);
    this.box.dataset.proven = String(proven);
    this.box.dataset.joined = String(joined);
    this.receiptsLine.textContent = `${kept.length} receipt${kept.length === 1 ? "" : "s"} of your ${joined ? "join and " : ""}moves` +
      ` kept in this browser (${proven} with their log proof).`;
  }

  // The retirement of the key that signed a receipt (from the service's key document), or null.
  retirementOf(receipt) {
    const previous = ((this.signing && this.signing.previous_keys) || []).find((k) => k.key_id === receipt.key_id);
    return previous && previous.retired ? previous.retired : null;
  }

  // Whether a proof stands for the receipt: it proves that very receipt, and for a receipt of a retired key it is
  // against a checkpoint the key signing now signed, at an index below the retirement (as `gambit verify` wants).
  async stands(receipt, text) {
    if (!(await proves(receipt, text))) return false;
    const retired = this.retirementOf(receipt);
    if (!retired) return true;
    const proof = parseProof(text);
    return proof.index < retired.size && (await signedByLog(proof.note, proof.checkpoint.origin, this.signing.public_key)) !== false;
  }

  // Whether a proof's checkpoint carries the cosignatures of a quorum of the log's witnesses (true for a log without
  // witnesses, and where this browser cannot check cosignatures: the panel says so).
  async witnessedProof(text) {
    const witnesses = (this.log && this.log.witnesses) || [];
    const quorum = (this.log && this.log.quorum) || 0;
    if (!witnesses.length || !quorum) return true;
    let names = null;
    try {
      names = await cosigners(parseProof(text).note, witnesses);
    } catch {
      return true; // not a proof this page can read: `stands` already judged it
    }
    return names === null || names.length >= quorum;
  }

  // How far the served checkpoint holds this match's writes ({ log, size, version }), or null when it cannot be told.
  async logged() {
    try {
      return await getJSON(`/matches/${encodeURIComponent(this.matchId)}/logged`, this.token);
    } catch {
      return null; // the server away: asked again next round
    }
  }

  // Whether the log holds a receipt's write, as the service said (`logged`), and no failed request waits for its time.
  askable(receipt, logged, now) {
    if (!logged || logged.version === null || receipt.version > logged.version) return false;
    if (receipt.log && receipt.log !== logged.log) return false;
    const retry = this.retries.get(receipt.version);
    return !retry || now >= retry.at;
  }

  // A proof request failed although the log held the write (or its answer did not stand): wait longer next time.
  failed(version, now) {
    const previous = this.retries.get(version);
    const wait = previous ? Math.min(previous.wait * 2, PROOF_RETRY_MAX_MS) : PROOF_RETRY_MS;
    this.retries.set(version, { wait, at: now + wait });
  }

  /** Ask for the proof of every kept receipt that has none yet, or one that no longer stands (its key retired), once
   * the served checkpoint holds its write; keep a proof only when it stands. A proof against a checkpoint its
   * witnesses had not cosigned yet (the log's first, served before any was) is asked for again once the served one
   * is cosigned: `gambit verify --witness-key` waits on such a proof (PENDING), so it is not counted as proven. */
  async proveReceipts() {
    const seat = this.seat;
    const kept = this.receipts(seat);
    let stale = 0;
    const wanted = [];
    const waiting = new Set();
    for (const receipt of kept) {
      if (receipt.log_proof && (!this.retirementOf(receipt) || (await this.stands(receipt, receipt.log_proof)))) {
        if (await this.witnessedProof(receipt.log_proof)) continue;
        waiting.add(receipt.version);
        if (!this.servedWitnessed) continue; // a proof asked for now would wait for the witnesses as well
      }
      wanted.push(receipt);
    }
    // Only what the log holds is asked for: a write not in the served checkpoint yet waits for a later round.
    const logged = wanted.length ? await this.logged() : null;
    for (const receipt of wanted) {
      const now = Date.now();
      let text = null;
      if (this.askable(receipt, logged, now)) {
        const path = `/matches/${encodeURIComponent(this.matchId)}/log-proof/${receipt.version}`;
        try {
          const response = await fetch(path, { headers: authHeaders(this.token, { Accept: "text/plain" }), cache: "no-store" });
          if (response.ok) text = await response.text();
        } catch {
          // The server away: asked again after the wait.
        }
        if (text !== null && !(await this.stands(receipt, text))) text = null;
        if (text === null) this.failed(receipt.version, now);
        else this.retries.delete(receipt.version);
      }
      if (text !== null) {
        if (receipt.log_proof && !waiting.has(receipt.version)) {
          this.box.dataset.refreshed = String(Number(this.box.dataset.refreshed || 0) + 1);
        }
        receipt.log_proof = text;
        if (await this.witnessedProof(text)) waiting.delete(receipt.version);
        else waiting.add(receipt.version);
      } else if (receipt.log_proof && !waiting.has(receipt.version)) {
        stale += 1; // kept until one that stands comes: it still proves the write was logged under the old key
      }
    }
    stale += waiting.size;
    // Receipts kept meanwhile (a move answered during the look) stay: the proofs go onto what is kept now.
    const proofs = new Map(kept.map((r) => [r.version, r.log_proof]));
    const now = this.receipts(seat).map((r) => (proofs.get(r.version) ? { ...r, log_proof: proofs.get(r.version) } : r));
    if (seat) this.storage.setItem(this.receiptsKey(seat), JSON.stringify(now));
    if (seat === this.seat) this.stale = stale;
    this.renderReceipts();
    return now;
  }

  /** Save this seat's receipts (a JSON list, each with its `log_proof` once the log has it) for `gambit verify`. */
  async saveReceipts() {
    const kept = await this.proveReceipts();
    const name = `receipts-${this.matchId}-${this.seat}.json`;
    saveBlob(new Blob([`${JSON.stringify(kept, null, 1)}\n`], { type: "application/json" }), name);
  }

  /** Save the kept checkpoint (a signed note) for `gambit verify --checkpoint`. */
  downloadCheckpoint() {
    const origin = this.box.dataset.origin || "";
    const kept = origin ? this.kept(origin) : null;
    if (kept) saveBlob(new Blob([kept.note], { type: "text/plain" }), "kept-checkpoint.txt");
  }
}
