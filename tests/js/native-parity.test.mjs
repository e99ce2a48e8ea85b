// The package's answers, read through the JS boundary (src/bindings/: field
// reads, kinds, lengths, strings, copies), against the same rules run
// natively over serde_json values (examples/answers.rs), on every real
// session in tests/sessions/ and on generated coding-agent histories: a read
// at the boundary that lost or changed anything shows up as a difference.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMPACTION_MARKER_NAME, effectiveHistory, emergencyPrune, estimateTokens, pruneForModel } from "kram-compaction";
import { generate } from "../../bench/generate.mjs";
import { loadRealSessions } from "../support/real-sessions.mjs";
import { rng } from "../support/random.mjs";
import { CLEAR_ALL } from "./support/hostile.mjs";

const BUDGETS = [2_000, 60_000]; // as examples/answers.rs asks
// Protected output that runs out a few results back (as examples/answers.rs asks).
const PROTECTING_SOME = { ...CLEAR_ALL, protectTokens: 500 };

function histories() {
  const out = loadRealSessions().map((session) => ({ name: session.name, messages: session.messages }));
  for (const seed of [1, 2, 3]) {
    const { chat, aiSdk } = generate(300, seed);
    out.push({ name: `generated ${seed}, OpenAI Chat`, messages: chat });
    out.push({ name: `generated ${seed}, AI SDK`, messages: aiSdk });
    const marked = [...chat];
    marked.splice(chat.length - 50, 0, { role: "system", name: COMPACTION_MARKER_NAME, content: "The summary." });
    out.push({ name: `generated ${seed}, OpenAI Chat, a marker 50 from the end`, messages: marked });
  }
  out.push({ name: "texts of every ASCII byte, repeated", messages: asciiTexts() });
  out.push({ name: "JSON tool inputs and outputs: random, deep, wide and long", messages: jsonPayloads() });
  out.push({ name: "AI SDK, three results a message, the protected output running out inside one", messages: parallelResults() });
  out.push({ name: "AI SDK, text results of every size, many to a window of the module's reads", messages: manyTextResults() });
  return out;
}

/**
 * AI SDK tool calls and results whose inputs and outputs are free-form JSON
 * values, which the module walks in JS (`jsonTape` in
 * src/bindings/guarded.js) and the native build in Rust: random values of
 * every kind (numbers that JSON carries exactly), values nested past the
 * walk's depth, an array of more values than it visits, and one long string
 * held many times, past what a tape copies.
 */
function jsonPayloads() {
  const random = rng(11);
  const texts = ["src/lib.rs", "π ≈ 3.14", "東京", "line\nbreak", "", "a".repeat(40), "\u001b[31mred\u001b[0m"];
  const value = (depth) => {
    const pick = random();
    if (depth > 4 || pick < 0.3) return texts[Math.floor(random() * texts.length)];
    if (pick < 0.45) return [0, -1, 42, 1.5, -0.25, 1e21, 123456789][Math.floor(random() * 7)];
    if (pick < 0.55) return [true, false, null][Math.floor(random() * 3)];
    if (pick < 0.75) return Array.from({ length: Math.floor(random() * 5) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(random() * 5) }, (_, i) => [`key${i}_${texts[i % texts.length]}`, value(depth + 1)]));
  };
  let deep = "bottom";
  for (let i = 0; i < 40; i++) deep = i % 2 ? [deep, i] : { level: i, inner: deep };
  const wide = Array.from({ length: 150_000 }, (_, i) => (i % 3 ? i : `item ${i}`));
  const long = "word ".repeat(400_000); // 2 MB, held ten times: 20 MB
  const payloads = [...Array.from({ length: 200 }, () => value(0)), deep, wide, { long: Array(10).fill(long), [long.slice(0, 100)]: 1 }];
  const messages = [{ role: "user", content: "Run the tools." }];
  payloads.forEach((payload, i) => {
    const id = `call_${i}`;
    messages.push({ role: "assistant", content: [{ type: "tool-call", toolCallId: id, toolName: "tool", input: payload }] });
    messages.push({ role: "tool", content: [{ type: "tool-result", toolCallId: id, toolName: "tool", output: { type: "json", value: payload } }] });
  });
  messages.push({ role: "assistant", content: "Done." });
  return messages;
}

/**
 * AI SDK turns of three tool calls whose three results carry about 200
 * tokens each: with 500 tokens protected, the walk back past the newest
 * turn keeps the newest two results of the tool message before it and
 * clears its oldest, so that one message has results both kept and
 * cleared (a copy that cleared all of them would be wrong, and was, in a
 * build that tried).
 */
function parallelResults() {
  const messages = [{ role: "user", content: "Read every file of the project." }];
  for (let step = 0; step < 40; step++) {
    const ids = [0, 1, 2].map((n) => `call_${step}_${n}`);
    if (step > 0) messages.push({ role: "user", content: "Go on." });
    messages.push({ role: "assistant", content: ids.map((id) => ({ type: "tool-call", toolCallId: id, toolName: "read", input: { path: `${id}.ts` } })) });
    messages.push({
      role: "tool",
      content: ids.map((id) => ({ type: "tool-result", toolCallId: id, toolName: "read", output: { type: "text", value: `export const ${id} = 1;\n`.repeat(18) } })),
    });
  }
  messages.push({ role: "assistant", content: "Read them all." });
  return messages;
}

/**
 * AI SDK tool results of text, 1 to 3 a message over 300 messages, that the
 * walk back estimates in windows of many at a time (`ManyTexts` in
 * src/bindings/strings.rs): short ASCII, empty, non-ASCII past the short
 * strings' loop, and every 25th one of 100 KB, more than a window's bytes,
 * so that windows end early and one comes in alone.
 */
function manyTextResults() {
  const random = rng(5);
  const texts = ["ok", "", "exit 0", "東京 π ≈ 3.14 — naïve café ".repeat(3), "line\nbreak\tand tab", "0123456789".repeat(5)];
  const messages = [{ role: "user", content: "Run every check." }];
  let n = 0;
  for (let step = 0; step < 100; step++) {
    const ids = Array.from({ length: 1 + Math.floor(random() * 3) }, (_, k) => `call_${step}_${k}`);
    messages.push({ role: "assistant", content: ids.map((id) => ({ type: "tool-call", toolCallId: id, toolName: "check", input: {} })) });
    const value = () => (++n % 25 === 0 ? "log line\n".repeat(11_000) : texts[Math.floor(random() * texts.length)]);
    messages.push({ role: "tool", content: ids.map((id) => ({ type: "tool-result", toolCallId: id, toolName: "check", output: { type: "text", value: value() } })) });
    messages.push({ role: "user", content: "Next." });
  }
  messages.push({ role: "assistant", content: "All checked." });
  return messages;
}

/**
 * Messages of random ASCII text, every byte from 0 to 127 with the ones the
 * estimate's rule tells apart (letters, digits, blanks, line breaks, ESC,
 * punctuation) the most likely, each text repeated 200 times after a line
 * break: the module classes bytes 16 at a time with SIMD, the native build
 * one at a time, and a difference of the smallest cost (5 thousandths of a
 * token) in a text comes out as whole tokens in its message.
 */
function asciiTexts() {
  const random = rng(7);
  const common = "aAzZmB09 \t\n\r\u001b[;.-_=(){}\"'";
  const messages = [];
  for (let i = 0; i < 60; i++) {
    let text = "";
    const length = 1 + Math.floor(random() * 300);
    for (let k = 0; k < length; k++) {
      text += random() < 0.7 ? common[Math.floor(random() * common.length)] : String.fromCharCode(Math.floor(random() * 128));
    }
    messages.push({ role: i % 2 ? "assistant" : "user", content: `${text}\n`.repeat(200) });
  }
  return messages;
}

function answer(call) {
  try {
    return JSON.parse(JSON.stringify(call()));
  } catch (error) {
    return { error: error.message };
  }
}

test("every history function answers through the boundary as it does natively", () => {
  const all = histories();
  const dir = mkdtempSync(join(tmpdir(), "kram-parity-"));
  let native;
  try {
    const file = join(dir, "histories.json");
    writeFileSync(file, JSON.stringify(all.map(({ messages }) => ({ messages }))));
    const out = execFileSync("cargo", ["run", "--quiet", "--example", "answers", "--", file], {
      encoding: "utf8",
      maxBuffer: 1 << 30,
    });
    native = JSON.parse(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(native.length, all.length);
  all.forEach(({ name, messages }, i) => {
    const ours = {
      estimateTokens: answer(() => estimateTokens(messages)),
      effectiveHistory: answer(() => effectiveHistory(messages)),
      pruneForModel: answer(() => pruneForModel(messages)),
      "pruneForModel, clearing all": answer(() => pruneForModel(messages, CLEAR_ALL)),
      "pruneForModel, protecting 500 tokens": answer(() => pruneForModel(messages, PROTECTING_SOME)),
      emergencyPrune: BUDGETS.map((budget) => answer(() => emergencyPrune(messages, budget))),
    };
    for (const [fn, expected] of Object.entries(native[i])) {
      assert.deepStrictEqual(ours[fn], expected, `${name}: ${fn}`);
    }
  });
  assert.ok(all.length >= 29, `${all.length} histories`);
});
