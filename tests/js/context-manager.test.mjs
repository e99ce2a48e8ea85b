// ContextManager: every tier, the run cap, the progress check, lastUsage and
// the configuration guards, with compact going to the loopback model server.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { ContextManager, effectiveHistory, estimateTokens, openAIChatGateway, COMPACTION_MARKER_NAME, MESSAGE_FORMATS } from "kram-compaction";
import { startModelServer } from "../support/model-server.mjs";
import { codingSession, deepFreeze } from "../support/sessions.mjs";

let server;
before(async () => {
  server = await startModelServer();
});
after(() => server.close());

const gateway = () => openAIChatGateway({ baseURL: server.openAIBaseURL });
/** A session whose tool outputs are too big for pruning to save it: many turns, each with text. */
const longTalk = (turns) => {
  const messages = [{ role: "system", content: "You are a coding agent." }];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: "user", content: `Request ${i}: ${"explain the parser in detail ".repeat(40)}` });
    messages.push({ role: "assistant", content: `Answer ${i}: ${"the parser reads tokens and builds a tree ".repeat(40)}` });
  }
  return messages;
};

test("tier none: within budget, the effective history as is", async () => {
  const all = deepFreeze(codingSession(2));
  const ctx = new ContextManager({ gateway: gateway(), model: "m" });
  const out = await ctx.prepare(all);
  assert.equal(out.tier, "none");
  assert.deepEqual(out.append, []);
  assert.equal(out.messages.length, all.length);
  out.messages.forEach((m, i) => assert.equal(m, all[i]));
  assert.equal(out.tokensBefore, estimateTokens(all));
  assert.match(out.reason, /within the budget of 60000/);
});

test("tier pruned: old tool output cleared, nothing to persist, no model call", async () => {
  const all = codingSession(6, { outputLines: 600 });
  const from = server.requests.length;
  const ctx = new ContextManager({ gateway: gateway(), model: "m", maxTokens: 20_000, prune: { protectTokens: 5_000, minimumSavings: 1_000 } });
  const out = await ctx.prepare(all);
  assert.equal(out.tier, "pruned", out.reason);
  assert.deepEqual(out.append, []);
  assert.ok(out.tokensAfter <= 20_000 && out.tokensAfter < out.tokensBefore);
  assert.equal(server.requests.length, from);
});

test("tier compacted: the marker and the newest turn to append, the newest request verbatim", async () => {
  const all = deepFreeze(longTalk(30));
  const ctx = new ContextManager({ gateway: gateway(), model: "m", maxTokens: 8_000 });
  const out = await ctx.prepare(all);
  assert.equal(out.tier, "compacted", out.reason);
  assert.equal(out.append[0].name, COMPACTION_MARKER_NAME);
  assert.deepEqual(out.append.slice(1), all.slice(-2), "the newest turn follows the marker");
  assert.equal(out.append[1], all.at(-2), "verbatim: the very objects");
  // The system prompt is an instruction: kept, and sent first.
  assert.deepEqual(effectiveHistory([...all, ...out.append]), [all[0], ...out.append]);
  assert.equal(out.messages[0], all[0]);
  assert.equal(out.messages.at(-2).content, all.at(-2).content);
  assert.ok(out.tokensAfter <= 8_000);
  for (const m of out.messages) assert.doesNotMatch(String(m.content), /^(please )?continue/i);
  // The summariser did not see the newest turn: it is sent verbatim instead.
  assert.doesNotMatch(server.requests.at(-1).json.messages[1].content, /Request 29:/);
});

test("a mid-run compaction keeps the open tool loop whole after the marker", async () => {
  const all = [...longTalk(30), ...codingSession(1).slice(1, 3)]; // a user request, then an assistant tool call
  all.push({ role: "tool", tool_call_id: all.at(-1).tool_calls[0].id, content: "3 tests failed" });
  const out = await new ContextManager({ gateway: gateway(), model: "m", maxTokens: 8_000 }).prepare(all);
  assert.equal(out.tier, "compacted", out.reason);
  assert.deepEqual(out.append.slice(1).map((m) => m.role), ["user", "assistant", "tool"]);
});

test("the emergency cut: no gateway, a failing summariser, too little progress, the run cap", async () => {
  const all = longTalk(30);
  const noGateway = await new ContextManager({ maxTokens: 8_000 }).prepare(all);
  assert.equal(noGateway.tier, "emergency");
  assert.match(noGateway.reason, /no gateway/);
  assert.deepEqual(noGateway.append, []);
  assert.ok(noGateway.tokensAfter <= 8_000);

  server.enqueue({ status: 500, body: "down" });
  const failing = await new ContextManager({ gateway: gateway(), model: "m", maxTokens: 8_000 }).prepare(all);
  assert.equal(failing.tier, "emergency");
  assert.match(failing.reason, /compacting failed.*500/);
  assert.deepEqual(failing.append, []);

  // A summary that is smaller, but not by a quarter: the system prompt (never
  // summarised) is over half of a history just over the budget, and the
  // summary takes all the room it is given.
  const talk = all.slice(1);
  let rules = "";
  while (estimateTokens([{ role: "system", content: rules }]) < 1.3 * estimateTokens(talk)) rules += "Follow the house rules for every change. ".repeat(20);
  const ruled = [{ role: "system", content: rules }, ...talk];
  const line = "a detail worth keeping, line by line\n";
  let wordy = "## Objective\n";
  while (estimateTokens([{ role: "system", content: wordy }]) < estimateTokens(ruled)) wordy += line.repeat(20);
  const justOver = Math.floor(estimateTokens(ruled) * 0.95);
  const little = await new ContextManager({ gateway: () => wordy, model: "m", maxTokens: justOver, compact: { maxSummaryTokens: 20_000 } }).prepare(ruled);
  assert.equal(little.tier, "emergency", little.reason);
  assert.match(little.reason, /less than the 25% cut required/);
  assert.deepEqual(little.append, []);

  let calls = 0;
  const counting = () => (calls++, "## Objective\nshort");
  const ctx = new ContextManager({ gateway: counting, model: "m", maxTokens: 8_000, maxCompactionsPerRun: 1 });
  assert.equal((await ctx.prepare(all)).tier, "compacted");
  const capped = await ctx.prepare(all);
  assert.equal(capped.tier, "emergency");
  assert.match(capped.reason, /already compacted 1 times \(maxCompactionsPerRun is 1\)/);
  ctx.startRun();
  assert.equal((await ctx.prepare(all)).tier, "compacted");
  assert.equal(calls, 2);
});

test("lastUsage: the provider's count for what it saw, estimates for the messages after", async () => {
  const all = codingSession(2);
  const ctx = new ContextManager({ maxTokens: 10_000 });
  const estimatedTail = estimateTokens(all.slice(4));
  const out = await ctx.prepare(all, { lastUsage: { promptTokens: 9_990, messageCount: 4 } });
  assert.equal(out.tokensBefore, 9_990 + estimatedTail);
  assert.equal(out.tier, "emergency", "over by the provider's count, though the estimate fits");
  const fits = await ctx.prepare(all, { lastUsage: { promptTokens: 10, messageCount: 4 } });
  assert.equal(fits.tier, "none");
  await assert.rejects(ctx.prepare(all, { lastUsage: { promptTokens: -1, messageCount: 1 } }), RangeError);
  await assert.rejects(ctx.prepare(all, { lastUsage: { promptTokens: 1, messageCount: 99 } }), /lastUsage\.messageCount \(99\)/);
  await assert.rejects(ctx.prepare(all, { lastUsage: { promptTokens: "1", messageCount: 1 } }), TypeError);
});

test("a budget per call: one manager answers every budget as a manager built for it", async () => {
  const all = codingSession(6, { outputLines: 600 });
  const prune = { protectTokens: 5_000, minimumSavings: 1_000 };
  const shared = new ContextManager({ prune });
  const tiers = new Set();
  for (const maxTokens of [1_000_000, 20_000, 200, 1_000_000]) {
    const got = await shared.prepare(all, { maxTokens });
    const want = await new ContextManager({ prune, maxTokens }).prepare(all);
    assert.deepEqual({ ...got, messages: undefined }, { ...want, messages: undefined }, `at ${maxTokens}`);
    assert.deepEqual(got.messages, want.messages, `messages at ${maxTokens}`);
    tiers.add(got.tier);
  }
  assert.deepEqual([...tiers].sort(), ["emergency", "none", "pruned"]);
  await assert.rejects(shared.prepare(all, { maxTokens: 0 }), /^RangeError: maxTokens must be a positive finite number, got 0$/);
  await assert.rejects(shared.prepare(all, { maxTokens: "9" }), /^TypeError: maxTokens must be a number, got string$/);
});

test("bad configuration is a RangeError or TypeError naming the option", () => {
  assert.throws(() => new ContextManager({ maxTokens: 0 }), /^RangeError: options\.maxTokens must be a positive finite number, got 0$/);
  assert.throws(() => new ContextManager({ maxTokens: Infinity }), RangeError);
  assert.throws(() => new ContextManager({ maxCompactionsPerRun: -1 }), /options\.maxCompactionsPerRun must be a whole number from 0/);
  assert.throws(() => new ContextManager({ gateway: "x" }), TypeError);
  assert.throws(() => new ContextManager(null), TypeError);
});

test("every 'got' names the value's kind in the same words on both sides of the boundary", async () => {
  const { estimateTokens, compact } = await import("kram-compaction");
  const words = (fn) => {
    try {
      fn();
    } catch (error) {
      return error.message;
    }
    return "no error";
  };
  assert.equal(words(() => new ContextManager([])), "options must be an object, got array");
  assert.equal(words(() => new ContextManager({ maxTokens: [1] })), "options.maxTokens must be a number, got array");
  assert.equal(words(() => new ContextManager({ gateway: [] })), "options.gateway must be a function, got array");
  assert.equal(words(() => estimateTokens([], [])), "options must be an object, got array");
  const history = [{ role: "user", content: "hi" }];
  await assert.rejects(compact(() => "x", "m", history, { onProgress: null }), { message: "options.onProgress must be a function, got null" });
  await assert.rejects(compact([], "m", []), { message: "gateway must be a function, got array" });
  // A symbol: JS-side checks and Rust-side ones alike.
  assert.equal(words(() => new ContextManager({ gateway: Symbol("g") })), "options.gateway must be a function, got a non-JSON value");
  assert.equal(words(() => estimateTokens([], Symbol("o"))), "options must be an object, got a non-JSON value");
  await assert.rejects(compact(() => "x", "m", history, { signal: () => {} }), { message: "options.signal must be an AbortSignal, got a non-JSON value" });
  await assert.rejects(compact(() => "x", "m", history, 5), { message: "options must be an object, got number" });
});

test("every message format: compacted, the marker in the history's own format, found by effectiveHistory", async () => {
  const { readFileSync } = await import("node:fs");
  const { describeMessages } = await import("kram-compaction");
  for (const format of MESSAGE_FORMATS) {
    const all = JSON.parse(readFileSync(new URL(`../fixtures/${format}.json`, import.meta.url), "utf8"));
    const ctx = new ContextManager({
      gateway: () => "## Objective\nshort",
      model: "m",
      maxTokens: Math.floor(estimateTokens(all) / 2),
      prune: { minimumSavings: 0, protectTokens: 0 },
    });
    const out = await ctx.prepare(all);
    assert.equal(out.tier, "compacted", `${format}: ${out.reason}`);
    const stored = [...all, ...out.append];
    assert.equal(describeMessages(stored).format, format);
    const instructions = describeMessages(all).messages.findIndex((m) => m.kind !== "system" && m.kind !== "other");
    assert.deepEqual(effectiveHistory(stored), [...all.slice(0, instructions), ...out.append], format);
    assert.ok(describeMessages(stored).messages[all.length].isMarker, format);
  }
});

test("a blank model means no summariser: the emergency cut, with no call and a reason that says so", async () => {
  let calls = 0;
  const out = await new ContextManager({ gateway: () => (calls++, "## Objective\nx"), model: "   ", maxTokens: 8_000 }).prepare(longTalk(30));
  assert.equal(out.tier, "emergency");
  assert.match(out.reason, /no gateway and model are configured/);
  assert.equal(calls, 0);
});
