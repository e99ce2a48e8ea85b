// What the hostile-input tests share: every export called on one history,
// the check that a refusal is a TypeError or RangeError naming the argument,
// the message and the field, and a session whose every export gives a known
// answer, to prove the module still works after the abuse.
import assert from "node:assert/strict";

/** Options that make pruning clear every old tool result it may. */
export const CLEAR_ALL = { protectTurns: 1, protectTokens: 0, minimumSavings: 0 };

/** Every export that reads a history, each called the way a caller would. */
export function exportsOf(kram) {
  return {
    estimateTokens: { argument: "messages", call: (h, o) => kram.estimateTokens(h, o) },
    needsCompaction: { argument: "effective", call: (h, o) => kram.needsCompaction(h, 100, o) },
    effectiveHistory: { argument: "all", call: (h, o) => kram.effectiveHistory(h, o) },
    pruneForModel: { argument: "effective", call: (h, o) => kram.pruneForModel(h, { ...CLEAR_ALL, ...o }) },
    emergencyPrune: { argument: "effective", call: (h, o) => kram.emergencyPrune(h, 100, o) },
    describeMessages: { argument: "messages", call: (h, o) => kram.describeMessages(h, o) },
  };
}

/** Calls `fn`; returns { value } or { error }. A wasm trap fails the test at once. */
export function attempt(fn) {
  try {
    return { value: fn() };
  } catch (error) {
    assert.ok(!(error instanceof WebAssembly.RuntimeError), `a wasm trap: ${error}`);
    return { error };
  }
}

/**
 * Asserts that `fn` throws a TypeError (or `kind`) whose message starts with
 * `argument` followed by `where` (a string or RegExp source after it).
 */
export function assertRefused(fn, argument, where, kind = TypeError) {
  const { value, error } = attempt(fn);
  assert.ok(error, `accepted, returned ${typeof value}`);
  assert.ok(error instanceof kind, `${error?.constructor?.name}: ${error?.message}`);
  const pattern = new RegExp(`^${argument}${typeof where === "string" ? escape(where) : where.source}`);
  assert.match(error.message, pattern);
  return error;
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Every export refuses `history` with an error at `where` (after the argument's name). */
export function assertAllRefuse(kram, history, where, kind = TypeError) {
  for (const [name, { argument, call }] of Object.entries(exportsOf(kram))) {
    try {
      assertRefused(() => call(typeof history === "function" ? history() : history), argument, where, kind);
    } catch (failure) {
      failure.message = `${name}: ${failure.message}`;
      throw failure;
    }
  }
}

/** A small session: system, two user turns, a tool call with a large result. */
export function session() {
  return [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Find the failing test." },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "run", arguments: '{"cmd":"npm test"}' } }],
    },
    { role: "tool", tool_call_id: "call_1", content: "FAIL tests/date.test.js expected 29 got 30\n".repeat(50) },
    { role: "assistant", content: "The leap-year check is off by one." },
    { role: "user", content: "Fix it." },
    { role: "assistant", content: "Fixed." },
  ];
}

/** A result as plain data (a Proxy a function handed back becomes what it reads as). */
export const plain = (value) => JSON.parse(JSON.stringify(value));

/** What every export answers for `session()`, as plain data. */
export function answers(kram) {
  const result = {};
  for (const [name, { call }] of Object.entries(exportsOf(kram))) {
    result[name] = plain(call(session()));
  }
  return result;
}
