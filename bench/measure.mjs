// What every part of the bench times with: the byte-touch limit, the runs
// in rounds, and the AI SDK's own pruning as a peer. Shared by bench.mjs and
// by the process each format's sessions are timed in (sessions.mjs).

import { pruneMessages } from "ai";

// The byte-touch limit: every string of the history copied once into
// WebAssembly memory with TextEncoder.encodeInto.
const memory = new WebAssembly.Memory({ initial: 16, maximum: 65536 });
const encoder = new TextEncoder();

/** Grows the limit's memory to hold `bytes`. */
export function reserve(bytes) {
  const need = Math.ceil(bytes / 65536) + 1;
  const have = memory.buffer.byteLength / 65536;
  if (have < need) memory.grow(need - have);
}

/** Copies every string of `messages` into the memory once: the byte-touch limit. */
export function byteTouch(messages) {
  const view = new Uint8Array(memory.buffer);
  let at = 0;
  const visit = (value) => {
    if (typeof value === "string") at += encoder.encodeInto(value, view.subarray(at)).written;
    else if (Array.isArray(value)) for (const item of value) visit(item);
    else if (value !== null && typeof value === "object") for (const key in value) visit(value[key]);
  };
  for (const message of messages) visit(message);
  return at;
}

/** One string copied into the memory with one encodeInto. */
export function copyOnce(text) {
  return encoder.encodeInto(text, new Uint8Array(memory.buffer)).written;
}

/** The AI SDK's own pruning of its messages, by its own rules: the peer of `pruneForModel`. */
export const aiSdkPrune = (messages) =>
  pruneMessages({ messages, reasoning: "before-last-message", toolCalls: "before-last-2-messages" });

/** The peers timed beside a session's rows: `pruneMessages` takes only the AI SDK's messages. */
export const peersOf = (format, history) => (format === "ai-sdk" ? { "AI SDK pruneMessages": () => aiSdkPrune(history) } : {});

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** A row's figures from its samples, in milliseconds. */
export const summary = (samples, runs = samples.length) => ({
  median: median(samples),
  min: Math.min(...samples),
  max: Math.max(...samples),
  runs,
});

/**
 * A collection, then a turn of the event loop: a memo or manager an earlier
 * run dropped is freed by its FinalizationRegistry callback, which runs as a
 * task of its own. Without the turn, the runs' memos piled up in the
 * module's memory and every run grew it.
 */
export async function collect() {
  globalThis.gc?.();
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
}

/**
 * A work's warm-up: run until it has run this many times, or for this many
 * milliseconds, whichever comes first. V8 runs a function's first calls in
 * its lower tiers: pruning OpenAI Chat's session repeated took 20, 10, 7.3,
 * 4.0 and 2.2 ms in its first five calls, then 1.3 to 2 ms, so with one
 * call of warm-up the timed runs were mostly those early calls.
 */
const WARM_UP_CALLS = 10;
const WARM_UP_MS = 250;

/** Runs `work` as its warm-up. */
async function warmUp(work) {
  const start = performance.now();
  for (let call = 0; call < WARM_UP_CALLS && (call === 0 || performance.now() - start < WARM_UP_MS); call++) await work();
}

/**
 * The times of several works measured in rounds, each round timing every
 * work once (after a collection each), so that the machine's slower and
 * faster spells fall on them all alike and the ratios between them hold:
 * a row's byte-touch limit and its functions were measured one after
 * another before, and a spell that fell on one moved their ratio by 1.5×
 * to 2× from run to run.
 */
export async function timeInRounds(works, runs) {
  const samples = Object.fromEntries(Object.keys(works).map((name) => [name, []]));
  for (const work of Object.values(works)) await warmUp(work);
  for (let round = 0; round < runs; round++) {
    for (const [name, work] of Object.entries(works)) {
      await collect();
      const start = process.hrtime.bigint();
      await work();
      samples[name].push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  return Object.fromEntries(
    Object.entries(samples).map(([name, xs]) => [name, summary(xs, runs)]),
  );
}
