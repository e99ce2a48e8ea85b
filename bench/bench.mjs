// `npm run bench`: the history functions on generated coding-agent histories
// of 100, 1,000 and 10,000 messages, side by side, in one process, with the
// byte-touch limit, a plain-JS implementation of the same rules, and the JS
// peers; then every format's fixture session and every real session in
// tests/sessions/, each repeated to 10,000 messages, in a process for each
// format (bench/sessions.mjs). Prints a table and writes
// bench/results/bench.json. Figures are ratios from one machine: only the
// ratios mean anything elsewhere.

import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

import { AIMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages } from "@langchain/core/messages";
import { countTokens as exactO200k } from "gpt-tokenizer/encoding/o200k_base";
import * as kram from "kram-compaction";
import { estimateTokenCount } from "tokenx";

import { generate, stringBytes } from "./generate.mjs";
import { aiSdkPrune, byteTouch, collect, copyOnce, median, reserve, summary, timeInRounds } from "./measure.mjs";
import * as plain from "./plain-js.mjs";

const SIZES = [100, 1_000, 10_000];
const quick = process.argv.includes("--quick");
const runsFor = (size) => (quick ? 3 : size >= 10_000 ? 11 : 15);

/** Every string of a history, for the text-only estimators. */
function strings(messages) {
  const out = [];
  const visit = (value) => {
    if (typeof value === "string") out.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === "object") Object.values(value).forEach(visit);
  };
  messages.forEach(visit);
  return out;
}

const langChainMessage = (fields) => {
  switch (fields.type) {
    case "system":
      return new SystemMessage(fields.content);
    case "human":
      return new HumanMessage(fields.content);
    case "ai":
      return new AIMessage({ content: fields.content, tool_calls: fields.tool_calls });
    case "tool":
      return new ToolMessage({ content: fields.content, tool_call_id: fields.tool_call_id });
  }
};
const charsOver4 = (messages) =>
  messages.reduce((sum, m) => sum + Math.ceil((typeof m.content === "string" ? m.content.length : 0) / 4), 0);

/** One work's times: a warm-up, then `runs` runs, each after a collection. */
async function time(work, runs) {
  return (await timeInRounds({ work }, runs)).work;
}

/**
 * The turns of an agent loop: one manager prepares `histories[0]`, then each
 * longer history in turn (its messages the one before's, then one more
 * turn), as a loop calls it once a turn; each of those calls is a sample.
 * No collection is forced between turns, as none is in a loop.
 */
async function timeLoop(options, histories) {
  const manager = new kram.ContextManager(options);
  await manager.prepare(histories[0]);
  const samples = [];
  for (const history of histories.slice(1)) {
    const start = process.hrtime.bigint();
    await manager.prepare(history);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return summary(samples);
}

/**
 * The time of `work(state)` on a state that `setup()` made, untimed: one
 * more turn read by a memo or a ContextManager that has seen the rest.
 */
async function timeAfter(setup, work, runs) {
  const samples = [];
  for (let i = 0; i <= runs; i++) {
    await collect();
    const state = await setup();
    globalThis.gc?.();
    const start = process.hrtime.bigint();
    await work(state);
    if (i > 0) samples.push(Number(process.hrtime.bigint() - start) / 1e6); // the first is a warm-up
  }
  return summary(samples, runs);
}

/** The checks that the plain-JS rules and the package agree on a history. */
function agree(history, budget) {
  const same = (a, b, what) => {
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`plain JS and the package differ: ${what}`);
  };
  same(plain.estimateTokens(history.chat), kram.estimateTokens(history.chat), "estimateTokens");
  same(plain.emergencyPrune(history.chat, budget).length, kram.emergencyPrune(history.chat, budget).length, "emergencyPrune");
  same(plain.pruneForModel(history.chat), kram.pruneForModel(history.chat), "pruneForModel");
}

const results = { date: new Date().toISOString(), node: process.version, sizes: {} };

for (const size of SIZES) {
  const history = generate(size);
  const { bytes, strings: stringCount } = stringBytes(history.chat);
  const lang = history.langChain.map(langChainMessage);
  const texts = strings(history.chat);
  // Flatten the generated strings once, as JSON.parse would give them.
  JSON.stringify(history);
  const total = kram.estimateTokens(history.chat);
  const budget = Math.floor(total / 2);
  agree(history, budget);
  const runs = runsFor(size);
  reserve(bytes);
  const row = { messages: size, bytes, strings: stringCount, tokens: total, budget, times: {} };
  const measure = async (name, work, r = runs) => {
    row.times[name] = await time(work, r);
    process.stderr.write(`bench: ${size} ${name} ${row.times[name].median.toFixed(2)} ms\n`);
  };

  // The text as one string, in one message: the floor of any reading,
  // taken in with one copy and estimated with no walk of any message.
  const oneText = [{ role: "user", content: texts.join("\n") }];
  reserve(bytes + stringCount);
  // The same messages as a chat UI keeps them, text only: each fits six
  // formats, so detection checks it against every one of them.
  const plainText = history.chat.map((m) => ({ role: m.role === "tool" ? "user" : m.role, content: m.content ?? "" }));
  // A history compacted before: read newest first, only the messages after its marker are read.
  const marker = { role: "system", name: kram.COMPACTION_MARKER_NAME, content: "<summary>Earlier work.</summary>" };
  const marked = [...history.chat.slice(0, -200), marker, ...history.chat.slice(-200)];
  // A single long task: the same history with its first request alone, a
  // long tool loop after it. Without a budget its protected tail (two user
  // turns) reaches back to that request, so nothing is cleared.
  const firstRequest = history.chat.findIndex((m) => m.role === "user");
  const longTask = history.chat.filter((m, i) => m.role !== "user" || i === firstRequest);
  const roomy = { maxTokens: total * 10 };
  // The package's own rows, in rounds with the byte-touch limit they are
  // read against (the peers, some of which take seconds, one by one below).
  const ours = await timeInRounds(
    {
      "byte-touch": () => byteTouch(history.chat),
      estimateTokens: () => kram.estimateTokens(history.chat),
      "estimateTokens, the text as one string": () => kram.estimateTokens(oneText),
      // That string copied into memory alone, with one encodeInto, as the
      // module takes it in: the floor less this is the estimate's own
      // arithmetic, which any reading adds to the byte-touch limit.
      "the text as one string, copied alone": () => copyOnce(oneText[0].content),
      "byte-touch, plain text messages": () => byteTouch(plainText),
      "estimateTokens, plain text messages": () => kram.estimateTokens(plainText),
      needsCompaction: () => kram.needsCompaction(history.chat, budget),
      effectiveHistory: () => kram.effectiveHistory(history.chat),
      "effectiveHistory, a marker 200 from the end": () => kram.effectiveHistory(marked),
      describeMessages: () => kram.describeMessages(history.chat),
      pruneForModel: () => kram.pruneForModel(history.chat),
      emergencyPrune: () => kram.emergencyPrune(history.chat, budget),
      // At the default budget, as an agent loop cuts: read newest first, it reads only the newest messages.
      "emergencyPrune at 60,000": () => kram.emergencyPrune(history.chat, kram.DEFAULT_MAX_TOKENS),
      "pruneForModel (AI SDK)": () => kram.pruneForModel(history.aiSdk),
      "pruneForModel, a single long task": () => kram.pruneForModel(longTask),
      "ContextManager.prepare, first": () => new kram.ContextManager(roomy).prepare(history.chat),
    },
    runs,
  );
  for (const [name, time] of Object.entries(ours)) {
    row.times[name] = time;
    process.stderr.write(`bench: ${size} ${name} ${time.median.toFixed(2)} ms\n`);
  }
  // An agent loop's turn: the history it has read before, and one more turn
  // (a user message, a tool call, its result, an answer) at its end.
  const seen = history.chat.slice(0, -4);
  const after = async (name, setup, work) => {
    row.times[name] = await timeAfter(setup, work, runs);
    process.stderr.write(`bench: ${size} ${name} ${row.times[name].median.toFixed(2)} ms\n`);
  };
  /** A manager with these options that has prepared the history but its last turn. */
  const managerThatSaw = (options) => async () => {
    const manager = new kram.ContextManager(options);
    await manager.prepare(seen);
    return manager;
  };
  await after("ContextManager.prepare, one more turn", managerThatSaw(roomy), (manager) => manager.prepare(history.chat));
  // The same turn as an agent loop meets it: one manager, the history one
  // turn longer at each call, the turns' histories made before any is timed.
  const loopTurns = Math.min(50, size / 20);
  const histories = Array.from({ length: loopTurns + 1 }, (_, turn) =>
    history.chat.slice(0, history.chat.length - 4 * (loopTurns - turn)),
  );
  await collect();
  const loopRow = "ContextManager.prepare, an agent loop's turn";
  row.times[loopRow] = await timeLoop(roomy, histories);
  process.stderr.write(`bench: ${size} ${loopRow} ${row.times[loopRow].median.toFixed(2)} ms\n`);
  // The same turn over the budget, where pruning is enough: the tier a long
  // session sits at, reading its history, its pruned copy and its estimate.
  const prunedBudget = { maxTokens: Math.ceil(1.5 * kram.estimateTokens(kram.pruneForModel(history.chat))) };
  await after(
    "ContextManager.prepare, one more turn, pruned tier",
    managerThatSaw(prunedBudget),
    async (manager) => {
      const { tier } = await manager.prepare(history.chat);
      if (tier !== "pruned") throw new Error(`the pruned-tier turn came out ${tier}`);
    },
  );
  await after(
    "HistoryMemo estimateTokens, one more turn",
    () => {
      const memo = new kram.HistoryMemo();
      memo.estimateTokens(seen);
      return memo;
    },
    (memo) => memo.estimateTokens(history.chat),
  );
  await measure("plain JS estimateTokens", () => plain.estimateTokens(history.chat));
  await measure("plain JS needsCompaction", () => plain.needsCompaction(history.chat, budget));
  await measure("plain JS effectiveHistory", () => plain.effectiveHistory(history.chat));
  await measure("plain JS pruneForModel", () => plain.pruneForModel(history.chat));
  await measure("plain JS emergencyPrune", () => plain.emergencyPrune(history.chat, budget));
  await measure("LangChain trimMessages", () =>
    trimMessages(lang, { maxTokens: budget, strategy: "last", tokenCounter: charsOver4, startOn: "human", includeSystem: true }),
  );
  await measure("AI SDK pruneMessages", () => aiSdkPrune(history.aiSdk));
  await measure("tokenx estimateTokenCount", () => texts.reduce((sum, t) => sum + estimateTokenCount(t), 0));
  await measure(
    "gpt-tokenizer o200k count",
    () => texts.reduce((sum, t) => sum + exactO200k(t), 0),
    size >= 10_000 ? (quick ? 1 : 2) : runs,
  );
  results.sizes[size] = row;
}

// Every format: its fixture session (tests/fixtures/FORMAT.json) and every
// real session in tests/sessions/ (agents' own stored sessions, not ours),
// each repeated to 10,000 messages, against that history's own byte-touch
// limit, with the floors: in a Node process for each format, as an agent
// loop that speaks one SDK runs (bench/sessions.mjs says why). The bench's
// own history is OpenAI Chat's and the AI SDK's only.
results.formats = {};
results.realSessions = {};
for (const format of kram.MESSAGE_FORMATS) {
  const script = fileURLToPath(new URL("./sessions.mjs", import.meta.url));
  const out = execFileSync(process.execPath, ["--expose-gc", script, format, ...(quick ? ["--quick"] : [])], {
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 * 1024 * 1024,
  });
  const rows = JSON.parse(out.toString());
  results.formats[format] = rows.format;
  Object.assign(results.realSessions, rows.realSessions);
}

// Instantiation: a fresh Node process loading the package, timed inside it:
// `require` (the glue; the .wasm is compiled and instantiated by the first
// call), `require` and a first call (`estimateTokens` of one message: that
// adds reading, compiling and instantiating the .wasm), and `import` (through
// Node's ES module loader). Beside them, in the same processes' turns, the
// same for a one-line CommonJS file and ES module: the machine's speed drifts
// from day to day, the ratio to these much less.
const trivial = new URL("./scratch/trivial", import.meta.url);
mkdirSync(new URL("./", trivial), { recursive: true });
writeFileSync(new URL(`${trivial.href}.cjs`), "module.exports = 1;\n");
writeFileSync(new URL(`${trivial.href}.mjs`), "export default 1;\n");
// And a one-line package with this package's `exports` map (each entry a
// one-line file), required by name as this one is: what Node costs for any
// package, looked up in node_modules and through its map.
const scratch = fileURLToPath(new URL("./scratch/", import.meta.url));
const onePackage = join(scratch, "node_modules", "kram-one-line-package");
mkdirSync(onePackage, { recursive: true });
const ourExports = JSON.parse(readFileSync(createRequire(import.meta.url).resolve("kram-compaction/package.json"), "utf8")).exports;
const oneLineExports = JSON.parse(
  JSON.stringify(ourExports, (_, value) => (typeof value === "string" ? (value.endsWith(".cjs") ? "./one.cjs" : "./one.mjs") : value)),
);
writeFileSync(join(onePackage, "package.json"), JSON.stringify({ name: "kram-one-line-package", type: "module", exports: oneLineExports }));
writeFileSync(join(onePackage, "one.cjs"), "module.exports = 1;\n");
writeFileSync(join(onePackage, "one.mjs"), "export default 1;\n");
// Every `require` resolves from bench/scratch/, so both packages are looked
// up the same way (this one is found two folders further up).
const requireCode = (spec, then = "") =>
  `import { createRequire } from "node:module"; const r = createRequire(${JSON.stringify(scratch)}); ` +
  `const t = performance.now(); const m = r(${JSON.stringify(spec)}); ${then}console.log(performance.now() - t);`;
const importCode = (spec) => `const t = performance.now(); await import(${JSON.stringify(spec)}); console.log(performance.now() - t);`;
const loads = {
  require: requireCode("kram-compaction"),
  firstCall: requireCode("kram-compaction", 'm.estimateTokens([{ role: "user", content: "hi" }]); '),
  import: importCode("kram-compaction"),
  trivialRequire: requireCode(fileURLToPath(`${trivial.href}.cjs`)),
  trivialPackageRequire: requireCode("kram-one-line-package"),
  trivialImport: importCode(`${trivial.href}.mjs`),
};
const loadTimes = Object.fromEntries(Object.keys(loads).map((name) => [name, []]));
for (let i = 0; i < (quick ? 3 : 9); i++) {
  for (const [name, code] of Object.entries(loads)) {
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: process.cwd() });
    loadTimes[name].push(Number(out.toString().trim()));
  }
}
const loadStats = Object.fromEntries(
  Object.entries(loadTimes).map(([name, times]) => [name, { median: median(times), min: Math.min(...times), max: Math.max(...times) }]),
);
const require = createRequire(import.meta.url);
const wasmPath = require.resolve("kram-compaction/package.json").replace(/package\.json$/, "dist/kram_compaction_bg.wasm");
const wasm = readFileSync(wasmPath);
results.instantiation = loadStats;
results.wasm = { raw: wasm.length, gzip: gzipSync(wasm, { level: 9 }).length };

// The table: median ms (spread min-max as % of the median), and the ratios.
const fmt = (t) => `${t.median.toFixed(2)} (±${(((t.max - t.min) / 2 / t.median) * 100).toFixed(0)}%)`;
const pairs = [
  ["estimateTokens", "plain JS estimateTokens", "tokenx estimateTokenCount", "gpt-tokenizer o200k count"],
  ["estimateTokens, the text as one string", "estimateTokens"],
  ["the text as one string, copied alone"],
  ["estimateTokens, plain text messages", "byte-touch, plain text messages"],
  ["needsCompaction", "plain JS needsCompaction"],
  ["effectiveHistory", "plain JS effectiveHistory"],
  ["effectiveHistory, a marker 200 from the end"],
  ["describeMessages"],
  ["pruneForModel", "plain JS pruneForModel"],
  ["pruneForModel (AI SDK)", "AI SDK pruneMessages"],
  ["pruneForModel, a single long task", "pruneForModel"],
  ["emergencyPrune", "plain JS emergencyPrune", "LangChain trimMessages"],
  ["emergencyPrune at 60,000"],
  ["ContextManager.prepare, first", "estimateTokens"],
  ["ContextManager.prepare, one more turn", "ContextManager.prepare, first"],
  ["ContextManager.prepare, an agent loop's turn", "ContextManager.prepare, one more turn"],
  ["ContextManager.prepare, one more turn, pruned tier", "ContextManager.prepare, one more turn"],
  ["HistoryMemo estimateTokens, one more turn", "estimateTokens"],
];
const big = results.sizes[10_000];
const mid = results.sizes[1_000];
const lines = [];
lines.push(`kram-compaction bench, ${results.date.slice(0, 10)}, Node ${process.version}`);
for (const size of SIZES) {
  const r = results.sizes[size];
  lines.push(`history of ${size} messages: ${(r.bytes / 1e6).toFixed(1)} MB in ${r.strings} strings, ${r.tokens} estimated tokens`);
}
lines.push("");
lines.push("| function | 10k ms (spread) | × byte-touch | × each peer (peer time / ours) | 10k / 1k |");
lines.push("| --- | --- | --- | --- | --- |");
const touch = big.times["byte-touch"].median;
lines.push(`| byte-touch limit | ${fmt(big.times["byte-touch"])} | 1.00 | | ${(touch / mid.times["byte-touch"].median).toFixed(1)} |`);
results.ratios = {};
for (const [ours, ...peers] of pairs) {
  const t = big.times[ours];
  const peerText = peers
    .map((p) => `${p} ${fmt(big.times[p])} ms: ${(big.times[p].median / t.median).toFixed(2)}`)
    .join("; ");
  const scaling = t.median / mid.times[ours].median;
  results.ratios[ours] = {
    byteTouch: t.median / touch,
    scaling,
    peers: Object.fromEntries(peers.map((p) => [p, big.times[p].median / t.median])),
  };
  lines.push(`| ${ours} | ${fmt(t)} | ${(t.median / touch).toFixed(2)} | ${peerText} | ${scaling.toFixed(1)} |`);
}
lines.push("");
// Each function with the floor of its answer (bench/floors.mjs), "x (floor)".
const formatColumns = [
  ["effectiveHistory", "floor: a look at each message"],
  ["emergencyPrune at 60,000", "floor: emergencyPrune at 60,000"],
  ["pruneForModel", "floor: pruneForModel"],
  ["estimateTokens"],
];
lines.push("every format's fixture session repeated to 10,000 messages, × its own byte-touch limit,");
lines.push("with the least any implementation could pay for the same answer (bench/floors.mjs) in brackets:");
lines.push(`| format | byte-touch ms | ${formatColumns.map(([name]) => name).join(" | ")} |`);
lines.push(`| --- | --- | ${formatColumns.map(() => "---").join(" | ")} |`);
for (const [format, row] of Object.entries(results.formats)) {
  const limit = row.times["byte-touch"].median;
  const ratio = (name) => (row.times[name].median / limit).toFixed(2);
  const cells = formatColumns.map(([name, floor]) => (floor ? `${ratio(name)} (${ratio(floor)})` : ratio(name)));
  lines.push(`| ${format} (${row.messages}) | ${fmt(row.times["byte-touch"])} | ${cells.join(" | ")} |`);
}
lines.push("");
// The AI SDK's own pruning beside ours, on the sessions in its format.
const sessions = [...Object.entries(results.formats), ...Object.entries(results.realSessions)];
for (const [name, row] of sessions.filter(([, row]) => row.times["AI SDK pruneMessages"])) {
  const limit = row.times["byte-touch"].median;
  const ratio = (time) => (row.times[time].median / limit).toFixed(2);
  lines.push(`${name}: AI SDK pruneMessages ${ratio("AI SDK pruneMessages")}, pruneForModel ${ratio("pruneForModel")} × its byte-touch limit`);
}
lines.push("");
lines.push("every real session in tests/sessions/ repeated to 10,000 messages, × its own byte-touch limit,");
lines.push("with the pruning floor in brackets:");
lines.push("| session | format | messages, KB a message | byte-touch ms | effectiveHistory | emergencyPrune at 60,000 | pruneForModel |");
lines.push("| --- | --- | --- | --- | --- | --- | --- |");
for (const [name, row] of Object.entries(results.realSessions)) {
  const limit = row.times["byte-touch"].median;
  const ratio = (time) => (row.times[time].median / limit).toFixed(2);
  lines.push(
    `| ${name} | ${row.format} | ${row.messages}, ${(row.bytes / row.messages / 1024).toFixed(1)} | ${fmt(row.times["byte-touch"])} | ` +
      `${ratio("effectiveHistory")} | ${ratio("emergencyPrune at 60,000")} | ${ratio("pruneForModel")} (${ratio("floor: pruneForModel")}) |`,
  );
}
lines.push("");
const load = (t) => `median ${t.median.toFixed(1)} ms (${t.min.toFixed(1)}-${t.max.toFixed(1)})`;
const against = (name, base, what = "a one-line file's") =>
  `${load(loadStats[name])}, ${(loadStats[name].median / loadStats[base].median).toFixed(2)}x ${what}`;
lines.push(
  `instantiation in a fresh Node process: require ${against("require", "trivialRequire")}, ` +
    `${(loadStats.require.median / loadStats.trivialPackageRequire.median).toFixed(2)}x a one-line package's ` +
    `(${load(loadStats.trivialPackageRequire)}); ` +
    `require and a first call ${against("firstCall", "trivialRequire")}; import ${against("import", "trivialImport")}`,
);
lines.push(`.wasm: ${(results.wasm.raw / 1024).toFixed(1)} KB raw, ${(results.wasm.gzip / 1024).toFixed(1)} KB gzipped`);
console.log(lines.join("\n"));

mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
const out = new URL("./results/bench.json", import.meta.url);
writeFileSync(out, JSON.stringify(results, null, 2) + "\n");
console.log(`wrote ${out.pathname}`);
