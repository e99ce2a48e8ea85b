// HistoryMemo and ContextManager's memo: the same answers as the plain
// functions, over histories read as an agent loop reads them (one more
// message each turn), and what the memo may not remember.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import {
  ContextManager,
  HistoryMemo,
  MESSAGE_FORMATS,
  effectiveHistory,
  emergencyPrune,
  estimateTokens,
  needsCompaction,
  pruneForModel,
} from "kram-compaction";
import { codingSession, countedElements, deepFreeze } from "../support/sessions.mjs";
import { loadRealSessions } from "../support/real-sessions.mjs";

const fixture = (format) => JSON.parse(readFileSync(new URL(`../fixtures/${format}.json`, import.meta.url), "utf8"));
const EAGER = { protectTurns: 1, protectTokens: 0, minimumSavings: 0 };

/** Every function, plain and through the memo, on one history: the same answers, the same objects. */
function assertSameAnswers(memo, messages, label) {
  const half = Math.max(1, Math.floor(estimateTokens(messages) / 2));
  assert.equal(memo.estimateTokens(messages), estimateTokens(messages), `${label}: estimateTokens`);
  assert.equal(memo.needsCompaction(messages, half), needsCompaction(messages, half), `${label}: needsCompaction`);
  const same = (a, b, what) => {
    assert.deepEqual(a, b, `${label}: ${what}`);
    a.forEach((m, i) => messages.includes(b[i]) && assert.equal(m, b[i], `${label}: ${what} keeps message ${i} itself`));
  };
  same(memo.effectiveHistory(messages), effectiveHistory(messages), "effectiveHistory");
  same(memo.pruneForModel(messages, EAGER), pruneForModel(messages, EAGER), "pruneForModel");
  same(memo.emergencyPrune(messages, half), emergencyPrune(messages, half), "emergencyPrune");
}

test("each format's session, read one more message at a time, answers as the plain functions do", () => {
  for (const format of MESSAGE_FORMATS) {
    const session = deepFreeze(fixture(format));
    const memo = new HistoryMemo();
    for (let len = 1; len <= session.length; len++) assertSameAnswers(memo, session.slice(0, len), `${format} at ${len}`);
    assert.equal(memo.size, session.length - 1, `${format}: every message but the newest is remembered`);
  }
});

test("real sessions through one memo answer as the plain functions do", () => {
  const memo = new HistoryMemo();
  for (const session of loadRealSessions().slice(0, 8)) {
    const messages = deepFreeze(structuredClone(session.messages));
    for (const len of [Math.ceil(messages.length / 2), messages.length - 1, messages.length]) {
      assertSameAnswers(memo, messages.slice(0, len), `${session.name} at ${len}`);
    }
  }
});

test("the newest message is read again, so a message streamed in place is counted as it stands", () => {
  const history = codingSession(3);
  const streaming = { role: "assistant", content: "I will" };
  const memo = new HistoryMemo();
  const before = memo.estimateTokens([...history, streaming]);
  streaming.content += " now run the whole test suite again and read every failure";
  assert.equal(memo.estimateTokens([...history, streaming]), estimateTokens([...history, streaming]));
  assert.ok(memo.estimateTokens([...history, streaming]) > before);
});

test("a message replaced by a new object is read as the new object", () => {
  const history = codingSession(3);
  const memo = new HistoryMemo();
  memo.estimateTokens(history);
  const edited = [...history];
  edited[2] = { ...history[2], content: history[2].content + " and more output ".repeat(50) };
  assert.equal(memo.estimateTokens(edited), estimateTokens(edited));
});

test("a pruned message is copied once: the next call gives back the same copy, and the input is untouched", () => {
  const history = deepFreeze(codingSession(6));
  const memo = new HistoryMemo();
  const first = memo.pruneForModel(history, EAGER);
  const second = memo.pruneForModel(history, EAGER);
  const copies = first.filter((m, i) => m !== history[i]);
  assert.ok(copies.length >= 4, `${copies.length} copies`);
  first.forEach((m, i) => assert.equal(second[i], m, `message ${i}`));
  // Another placeholder is another copy.
  const other = memo.pruneForModel(history, { ...EAGER, placeholder: "[gone]" });
  const at = first.indexOf(copies[0]);
  assert.notEqual(other[at], copies[0]);
  assert.equal(other[at].content, "[gone]");
  assert.deepEqual(other, pruneForModel(history, { ...EAGER, placeholder: "[gone]" }));
});

test("errors through the memo name the argument, the index and the field as the plain functions do", () => {
  const history = codingSession(2);
  const memo = new HistoryMemo();
  memo.estimateTokens(history);
  const bad = [...history, { role: "tool", tool_call_id: 7, content: "x" }, { role: "user", content: "go on" }];
  assert.throws(() => memo.estimateTokens(bad), (e) => {
    assert.throws(() => estimateTokens(bad), (plain) => plain.message === e.message);
    return e instanceof TypeError && e.message.startsWith(`messages[${history.length}].tool_call_id`);
  });
});

test("messages of histories no longer read are forgotten", () => {
  const memo = new HistoryMemo();
  memo.estimateTokens(codingSession(20));
  assert.equal(memo.size, 80);
  const small = codingSession(1);
  for (let i = 0; i < 40; i++) memo.estimateTokens(small);
  assert.equal(memo.size, small.length - 1);
});

test("a memo and a manager that live on keep no message alive that the caller dropped", async () => {
  // The collector, without a flag on the test command.
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc");
  const memo = new HistoryMemo();
  const manager = new ContextManager({ maxTokens: 2_000, prune: EAGER });
  let history = codingSession(40, { outputLines: 20 });
  const messages = history.map((message) => new WeakRef(message));
  // Every function that remembers, through both, with pruned copies made
  // (the memo keeps a copy per original, weakly) and every tier above none.
  memo.estimateTokens(history);
  memo.effectiveHistory(history);
  memo.pruneForModel(history, EAGER);
  memo.emergencyPrune(history, 1_000);
  const { tier } = await manager.prepare(history);
  assert.notEqual(tier, "none");
  assert.ok(memo.size > 0);
  history = undefined;
  const alive = () => messages.filter((message) => message.deref() !== undefined).length;
  // A WeakRef's target lives to the end of the job that made or read it.
  for (let round = 0; round < 10 && alive() > 0; round++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
  }
  assert.equal(alive(), 0, "every dropped message is collected while the memo and the manager live");
  assert.ok(memo.size > 0 && manager instanceof ContextManager);
});

test("ContextManager over a growing session answers as a new ContextManager does each turn", async () => {
  const session = deepFreeze(codingSession(30, { outputLines: 40 }));
  const options = { maxTokens: Math.floor(estimateTokens(session) / 3), prune: { protectTokens: 2_000 } };
  const kept = new ContextManager(options);
  for (let len = 4; len <= session.length; len += 4) {
    const history = session.slice(0, len);
    const remembered = await kept.prepare(history);
    const fresh = await new ContextManager(options).prepare(history);
    assert.deepEqual(remembered, fresh, `after ${len} messages`);
  }
});

/** Each message behind a Proxy that counts the reads of its fields. */
function counted(messages) {
  const reads = messages.map(() => 0);
  const wrapped = messages.map(
    (message, index) =>
      new Proxy(message, {
        get(target, key, receiver) {
          reads[index] += 1;
          return Reflect.get(target, key, receiver);
        },
      }),
  );
  return { wrapped, reads };
}

test("a history grown by one turn: the messages read before are not read again, and the answers hold", async () => {
  const session = codingSession(12, { outputLines: 10 });
  const { wrapped, reads } = counted(session);
  const seen = wrapped.slice(0, -4);
  const memo = new HistoryMemo();
  const manager = new ContextManager({ maxTokens: 10 * estimateTokens(session) });
  memo.estimateTokens(seen);
  await manager.prepare(seen);
  reads.fill(0);
  assert.equal(memo.estimateTokens(wrapped), estimateTokens(session));
  const prepared = await manager.prepare(wrapped);
  assert.equal(prepared.tier, "none");
  assert.equal(prepared.tokensBefore, estimateTokens(session));
  assert.equal(prepared.messages.length, session.length);
  // The newest of the earlier history was read afresh then; now it is known.
  const known = seen.length - 1;
  assert.deepEqual(reads.slice(0, known), new Array(known).fill(0), "no field of a known message is read");
  assert.ok(reads.slice(known).every((count) => count > 0), "every new message is read");
  // Not even the array's elements cross into WebAssembly: js/memo.ts reads
  // each but the newest once to number it, and the module reads only the
  // ones after the known messages.
  const { proxy, count } = countedElements(wrapped);
  const numbering = wrapped.length - 1;
  const fresh = wrapped.length - known;
  const memoAgain = new HistoryMemo();
  memoAgain.estimateTokens(seen);
  const managerAgain = new ContextManager({ maxTokens: 10 * estimateTokens(session) });
  await managerAgain.prepare(seen);
  memoAgain.estimateTokens(proxy);
  assert.equal(count.reads, numbering + fresh);
  // prepare numbers the history, reads the fresh ones for the bounds, and
  // copies the effective history (one read each), which it then estimates.
  count.reads = 0;
  await managerAgain.prepare(proxy);
  assert.equal(count.reads, numbering + fresh + wrapped.length);
});

test("a lazy read that needs a message it left unread reads the history again, whole: the same answers and errors", () => {
  const session = codingSession(6);
  const memo = new HistoryMemo();
  memo.estimateTokens(session.slice(0, -2));
  // Forced, the read has no remembered history of its own to take the
  // messages left unread from: it misses, and reads the whole history.
  assert.equal(memo.estimateTokens(session, { format: "openai-chat" }), estimateTokens(session));
  let plain;
  try {
    estimateTokens(session, { format: "ollama" });
  } catch (error) {
    plain = error;
  }
  assert.ok(plain instanceof TypeError, "an OpenAI Chat history is not an Ollama one");
  assert.throws(() => memo.estimateTokens(session, { format: "ollama" }), { name: plain.name, message: plain.message });
  // And detected again, it answers from what it remembers.
  assert.equal(memo.estimateTokens(session), estimateTokens(session));
});
