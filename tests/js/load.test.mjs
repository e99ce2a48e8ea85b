// Load: 1,000 compact() calls in flight at once against the loopback model
// server, each reply after a random delay and one call in ten failing with an
// HTTP 500. Every call settles with its own marker or its own error, and
// rounds after the first leave the module's memory and its table of JS
// references exactly as large as the first left them.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { loadWithInstance } from "./support/wasm-instance.mjs";
import { startModelServer } from "../support/model-server.mjs";
import { codingSession } from "../support/sessions.mjs";
import { rng } from "../support/random.mjs";

const { kram, memoryBytes, refSlots } = await loadWithInstance();
const { compact, CompactionError, effectiveHistory, openAIChatGateway } = kram;

const CALLS = 1_000;
const FAILURES = 100;
const MAX_DELAY_MS = 50;

/** What the server does for each tag: its delay, and whether it fails. */
const plans = new Map();
const TAG = /Step \d+(L\d+n\d+x):/g;

let server;
before(async () => {
  server = await startModelServer({
    reply(request) {
      const user = request.json.messages.find((m) => m.role === "user").content;
      const tags = new Set([...user.matchAll(TAG)].map((m) => m[1]));
      // A transcript that mixed two calls' histories is answered with a 400,
      // which the test then counts as a failure nobody injected.
      if (tags.size !== 1) return { status: 400, body: `tags: ${[...tags].join(" ")}` };
      const [tag] = tags;
      const plan = plans.get(tag);
      if (plan === undefined) return { status: 400, body: `unknown tag ${tag}` };
      return plan.fail
        ? { status: 500, delayMs: plan.delayMs, body: { error: { message: `injected failure ${tag}` } } }
        : { summary: `## Objective\nSession ${tag}.`, delayMs: plan.delayMs };
    },
  });
});
after(() => server.close());

/** One round: CALLS calls at once, FAILURES of them (chosen by `seed`) answered with a 500. */
async function round(number, seed) {
  const next = rng(seed);
  const tags = Array.from({ length: CALLS }, (_, i) => `L${number}n${i}x`);
  const order = tags.map((tag) => [next(), tag]).sort((a, b) => a[0] - b[0]);
  const injected = new Set(order.slice(0, FAILURES).map(([, tag]) => tag));
  for (const tag of tags) plans.set(tag, { fail: injected.has(tag), delayMs: Math.floor(next() * (MAX_DELAY_MS + 1)) });

  const gateway = openAIChatGateway({ baseURL: server.openAIBaseURL });
  const histories = tags.map((tag) => codingSession(2, { tag }));
  const from = server.requests.length;
  const started = performance.now();
  const outcomes = await Promise.allSettled(histories.map((history) => compact(gateway, "m", history)));
  const ms = performance.now() - started;

  const failed = new Set();
  outcomes.forEach((outcome, i) => {
    const tag = tags[i];
    if (outcome.status === "rejected") {
      const error = outcome.reason;
      assert.ok(error instanceof CompactionError, `${tag}: ${error}`);
      assert.match(error.message, new RegExp(`answered 500 .*injected failure ${tag}"`), "its own error");
      failed.add(tag);
      return;
    }
    const marker = outcome.value;
    assert.ok(marker.content.endsWith(`<compaction_summary>\n## Objective\nSession ${tag}.\n</compaction_summary>`), `${tag}: its own summary`);
    // After the system prompt, which is an instruction and sent first.
    assert.equal(effectiveHistory([...histories[i], marker])[1], marker);
  });
  assert.equal(failed.size, FAILURES, "as many failures as were injected");
  assert.deepEqual([...failed].sort(), [...injected].sort(), "and exactly the injected ones");
  const requests = server.requests.slice(from);
  assert.equal(requests.length, CALLS, "one request a call");
  assert.equal(new Set(requests.map((r) => [...r.json.messages[1].content.matchAll(TAG)][0][1])).size, CALLS, "each its own history");
  for (const tag of tags) plans.delete(tag);
  return ms;
}

test("1,000 concurrent compact calls with random delays and 10% failures: each its own result, and no growth", async (t) => {
  const startBytes = memoryBytes();
  const startSlots = refSlots();
  const first = await round(0, 1);
  const bytes = memoryBytes();
  const slots = refSlots();
  t.diagnostic(`round 0: ${first.toFixed(0)} ms; memory ${startBytes} -> ${bytes} bytes, reference slots ${startSlots} -> ${slots}`);
  // A thousand jobs alive at once need room; linear memory never shrinks, so
  // the first round sets the size every later round must stay within.
  for (const number of [1, 2]) {
    const ms = await round(number, number + 1);
    t.diagnostic(`round ${number}: ${ms.toFixed(0)} ms; memory ${memoryBytes()} bytes, reference slots ${refSlots()}`);
    assert.equal(memoryBytes(), bytes, `round ${number}: memory grew`);
    assert.equal(refSlots(), slots, `round ${number}: the reference table grew`);
  }
});
