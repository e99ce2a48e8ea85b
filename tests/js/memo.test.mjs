// HistoryMemo and ContextManager's memo: the same answers as the plain
// functions, over histories read as an agent loop reads them (one more
// message each turn), and what the memo may not remember.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
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
import { codingSession, deepFreeze } from "../support/sessions.mjs";
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
