// Plays one match of each ruleset named on the command line to the end through a TypeScript client
// generated from api-spec/openapi.yaml (openapi-typescript types, openapi-fetch calls), as a client
// developer would: create and join without credentials, then for the seat to act read
// legal-commands, form a body (listed, or drawn from a choice's domains), and post it with If-Match
// and an Idempotency-Key (posting it twice: the second answer is the first one again); finally read
// the export. Writes each export to <out>/<ruleset>.ndjson and prints a JSON report on stdout.
// `tsc --strict --noEmit` type-checks this file against the generated types before it runs.
import createClient from "openapi-fetch";
import { writeFileSync } from "node:fs";
import type { components, paths } from "./schema.js";

type Schemas = components["schemas"];

// Each ruleset's own command union, as the spec names it: a body is typed by its match's ruleset.
interface CommandOf {
  gambitz: Schemas["GambitzCommand"];
  "gambit-board": Schemas["GambitBoardCommand"];
  "dragons-gambit": Schemas["DragonsGambitCommand"];
  "gambit-tcg": Schemas["GambitTcgCommand"];
  "gattai-conflict": Schemas["GattaiConflictCommand"];
}
type RulesetId = keyof CommandOf;

// The unions are per ruleset: a gambit-tcg pass is a GambitTcgCommand, a gambitz redraw is not one.
const tcgPass: CommandOf["gambit-tcg"] = { type: "pass" };
// @ts-expect-error `redraw` is a gambitz command, not a gambit-tcg one
const notTcg: CommandOf["gambit-tcg"] = { type: "redraw" };
void tcgPass;
void notTcg;

type Domain = Schemas["ChoiceDomain"];
type Value = string | null | string[] | Record<string, string | string[]>;

/** A small seeded generator (mulberry32), so a failing run can be repeated. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let random = seeded(29);

function pick<T>(items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

function between(low: number, high: number): number {
  return low + Math.floor(random() * (high - low + 1));
}

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

function sample(pool: readonly string[], low: number, high: number): string[] {
  return shuffled(pool).slice(0, between(low, high));
}

/** A value drawn from a free field's domain (the forms `Choice` describes in the spec). */
function drawn(domain: Domain): Value {
  if ("one_of" in domain) return pick(domain.one_of);
  if ("subset_of" in domain) return sample(domain.subset_of, domain.min, domain.max);
  if ("sequence_of" in domain) return sample(domain.sequence_of, domain.min, domain.max);
  if ("union_of" in domain) return shuffled(domain.union_of.flatMap((part) => sample(part.subset_of, part.min, part.max)));
  if ("text" in domain) return "x".repeat(between(domain.text.min_length, domain.text.max_length));
  const entries: [string, string][] = [];
  for (const part of domain.pairs) {
    const keys = Array.isArray(part.keys) ? part.keys : sample(part.keys.sequence_of, part.keys.min, part.keys.max);
    const values = Array.isArray(part.values)
      ? part.values
      : sample(part.values.sequence_of, part.values.min, part.values.max);
    keys.forEach((key, i) => entries.push([key, values[i]]));
  }
  if (!domain.lists) return Object.fromEntries(entries);
  const out: Record<string, string[]> = {};
  for (const [key, value] of entries) (out[key] ??= []).push(value);
  for (const key of Object.keys(out)) out[key] = shuffled(out[key]);
  for (const key of domain.empty_keys) if (!(key in out) && random() < 0.25) out[key] = [];
  return out;
}

/** A body formed from a choice: its type, its fixed fields, a drawn value for each free field. */
function formed<R extends RulesetId>(choice: Schemas["Choice"]): CommandOf[R] {
  const body: Record<string, unknown> = { type: choice.type, ...choice.fixed };
  for (const [name, domain] of Object.entries(choice.free)) {
    const value = drawn(domain);
    if (value !== null) body[name] = value;
  }
  // The served choice promises the body is one of this ruleset's commands.
  return body as CommandOf[R];
}

function must<T>(data: T | undefined, error: unknown, what: string): T {
  if (data === undefined) throw new Error(`${what}: ${JSON.stringify(error)}`);
  return data;
}

async function play<R extends RulesetId>(base: string, ruleset: R, out: string): Promise<object> {
  // Creating and joining take no credentials: a client without a token does both.
  const anonymous = createClient<paths>({ baseUrl: base });
  const created = await anonymous.POST("/matches", { body: { ruleset, config: {} } });
  const match = must(created.data, created.error, `create ${ruleset}`);
  const match_id = match.match_id;
  const tokens: Record<string, string> = {};
  for (const seat of match.seats) {
    const joined = await anonymous.POST("/matches/{match_id}/seats", {
      params: { path: { match_id } },
      body: { name: `ts-${seat.seat}`, seat: seat.seat },
    });
    tokens[seat.seat] = must(joined.data, joined.error, `join ${seat.seat}`).token;
  }
  const seatClient = (seat: string) =>
    createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${tokens[seat]}` } });

  let commands = 0;
  for (let step = 0; step < 5000; step++) {
    const read = await anonymous.GET("/matches/{match_id}", { params: { path: { match_id } } });
    const summary = must(read.data, read.error, "summary");
    if (summary.status === "finished") break;
    const seat = pick([...summary.to_act].sort());
    const client = seatClient(seat);
    const legal = await client.GET("/matches/{match_id}/legal-commands", { params: { path: { match_id } } });
    const offered = must(legal.data, legal.error, "legal-commands");
    // Listed bodies are this ruleset's commands: the match's ruleset says which union they belong to.
    const options: CommandOf[R][] = [
      ...(offered.commands as CommandOf[R][]),
      ...offered.choices.map((choice) => formed<R>(choice)),
    ];
    if (options.length === 0) throw new Error(`${seat} is to act but has no legal command`);
    const body: CommandOf[R] = pick(options);
    const header = { "If-Match": `"${offered.version}"`, "Idempotency-Key": `ts-${ruleset}-${step}` };
    const posted = await client.POST("/matches/{match_id}/commands", {
      params: { path: { match_id }, header },
      body,
    });
    const result = must(posted.data, posted.error, `command ${JSON.stringify(body)}`);
    const again = await client.POST("/matches/{match_id}/commands", {
      params: { path: { match_id }, header },
      body,
    });
    const replayed = must(again.data, again.error, "the same command and key again");
    if (replayed.version !== result.version) throw new Error(`a repeated key recorded again: ${replayed.version}`);
    commands++;
  }
  const exported = await anonymous.GET("/matches/{match_id}/export", {
    params: { path: { match_id } },
    parseAs: "text",
  });
  const text = must(exported.data, exported.error, "export");
  writeFileSync(`${out}/${ruleset}.ndjson`, text);
  return { ruleset, match_id, commands, lines: text.trim().split("\n").length };
}

async function main(): Promise<void> {
  const [base, out, seed, ...rulesets] = process.argv.slice(2);
  random = seeded(Number(seed));
  const report: object[] = [];
  for (const ruleset of rulesets) report.push(await play(base, ruleset as RulesetId, out));
  process.stdout.write(JSON.stringify(report));
}

main().catch((error: unknown) => {
  process.stderr.write(String(error instanceof Error ? error.stack : error) + "\n");
  process.exit(1);
});
