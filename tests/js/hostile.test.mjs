// Hostile JS values at every export: each is refused with a TypeError naming
// the argument, the message index and the field, or handled with the right
// answer; never a hang, a wasm trap or a changed input. The last test proves
// the module still answers correctly after all of it.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as kram from "kram-compaction";
import { codingSession } from "../support/sessions.mjs";
import { answers, assertAllRefuse, assertRefused, attempt, CLEAR_ALL, exportsOf, plain, session } from "./support/hostile.mjs";

const before = answers(kram);
const EXPORTS = exportsOf(kram);

/** `session()` with message 3 (the tool result, which pruning edits) replaced. */
function withTool(make) {
  const history = session();
  history[3] = make(history[3]);
  return history;
}

test("a getter that throws on a field the formats read: refused at that field", () => {
  const history = () =>
    withTool((m) => Object.defineProperty({ ...m }, "content", { enumerable: true, get: () => { throw new Error("boom"); } }));
  assertAllRefuse(kram, history, "[3].content could not be read: it threw boom");
});

test("what was thrown is described, whatever it is", () => {
  const throwing = (value) => () =>
    withTool((m) => Object.defineProperty({ ...m }, "content", { enumerable: true, get: () => { throw value; } }));
  assertAllRefuse(kram, throwing("text"), '[3].content could not be read: it threw "text"');
  assertAllRefuse(kram, throwing(Symbol("s")), "[3].content could not be read: it threw a non-Error value");
  assertAllRefuse(kram, throwing(undefined), "[3].content could not be read: it threw a non-Error value");
  const badMessage = Object.defineProperty(new Error(), "message", { get: () => { throw new Error("again"); } });
  assertAllRefuse(kram, throwing(badMessage), "[3].content could not be read: it threw an Error without a readable message");
  const symbolMessage = Object.defineProperty(new Error(), "message", { value: Symbol("m") });
  assertAllRefuse(kram, throwing(symbolMessage), "[3].content could not be read: it threw an Error without a readable message");
  const proxyError = new Proxy(new Error("x"), { get: () => { throw new Error("trap"); }, getPrototypeOf: () => { throw new Error("proto"); } });
  assertAllRefuse(kram, throwing(proxyError), "[3].content could not be read: it threw a non-Error value");
});

test("a getter that throws on a field nobody reads: kept messages pass, an edited one is refused", () => {
  const history = () => withTool((m) => Object.defineProperty({ ...m }, "meta", { enumerable: true, get: () => { throw new Error("boom"); } }));
  assert.equal(kram.estimateTokens(history()), before.estimateTokens);
  assert.equal(kram.effectiveHistory(history()).length, 7);
  assert.equal(kram.emergencyPrune(history(), 100).length, 3);
  assert.equal(kram.describeMessages(history()).messages.length, 7);
  // Pruning copies the message to clear its content, and copying reads `meta`.
  assertRefused(() => kram.pruneForModel(history(), CLEAR_ALL), "effective", "[3] could not be copied: it threw boom");
});

test("a getter that throws on another format's field: read as absent, as every other format's mark is", () => {
  // Each format looks for the others' fields (LangChain's `lc`, Ollama's
  // `thinking`, a `type`, `parts`) in one call into JS: a read that throws
  // there counts as no such field, and the field the formats read is read.
  for (const key of ["lc", "kwargs", "type", "parts", "thinking", "tool_name"]) {
    const reads = [];
    const history = () =>
      withTool((m) => Object.defineProperty({ ...m }, key, { enumerable: true, get: () => { reads.push(key); throw new Error("boom"); } }));
    assert.equal(kram.estimateTokens(history()), before.estimateTokens, key);
    assert.equal(kram.effectiveHistory(history()).length, 7, key);
    assert.ok(reads.length > 0, `${key} was looked for`);
  }
});

test("a getter that runs the package's own functions while it is read: every answer as before", () => {
  // The field names' cache is borrowed while a field is read: a read that
  // calls back into the module makes its own field names there.
  let inner = 0;
  const history = () =>
    withTool((m) => Object.defineProperty({ ...m }, "content", {
      enumerable: true,
      get: () => {
        inner++;
        assert.equal(kram.estimateTokens(session()), before.estimateTokens);
        assert.equal(kram.describeMessages(session()).messages.length, 7);
        return m.content;
      },
    }));
  for (const [name, { call }] of Object.entries(EXPORTS)) {
    assert.deepEqual(plain(call(history())), before[name], name);
  }
  assert.ok(inner > Object.keys(EXPORTS).length, `the getter ran ${inner} times`);
});

test("Proxies: transparent ones read like the object, throwing traps are refused", () => {
  const transparent = withTool((m) => new Proxy(m, {}));
  for (const [name, { call }] of Object.entries(EXPORTS)) {
    assert.deepEqual(plain(call(transparent)), before[name], name);
  }
  const throwingGet = () => withTool((m) => new Proxy(m, { get: () => { throw new Error("get trap"); } }));
  assertAllRefuse(kram, throwingGet, /\[3\]\.\w+ could not be read: it threw get trap/);
  for (const trap of ["ownKeys", "getOwnPropertyDescriptor", "getPrototypeOf"]) {
    const history = () => withTool((m) => new Proxy(m, { [trap]: () => { throw new Error(`${trap} trap`); } }));
    assert.equal(kram.estimateTokens(history()), before.estimateTokens, trap);
    assertRefused(() => kram.pruneForModel(history(), CLEAR_ALL), "effective", `[3] could not be copied: it threw ${trap} trap`);
  }
});

test("in a long history, an older message whose role cannot be found in one go is read alone, and refused as a whole read refuses it", () => {
  // 91 messages: read newest first, their roles found many at a time
  // (guarded.js's roleNames); message 40 is an assistant reply.
  const long = (bad) => {
    const history = [session()[0], ...Array.from({ length: 15 }, () => session().slice(1)).flat()];
    history[40] = bad(history[40]);
    return history;
  };
  const throwingRole = (m) => Object.defineProperty({ ...m }, "role", { enumerable: true, get: () => { throw new Error("boom"); } });
  const revoked = () => { const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); return proxy; };
  const bad = {
    "a role getter that throws": throwingRole,
    "an array with a role": (m) => Object.assign(["x"], m),
    "a revoked Proxy": revoked,
    "a Proxy whose get throws": (m) => new Proxy(m, { get: () => { throw new Error("trap"); } }),
    "a role that is no string": (m) => ({ ...m, role: 7 }),
    // Elements that are no message: the module reads no element it does
    // not need, and finds these when it asks for their roles.
    undefined: () => undefined,
    null: () => null,
    "a number": () => 7,
    "a string": () => "assistant",
  };
  for (const [what, make] of Object.entries(bad)) {
    for (const [name, read] of Object.entries({
      effectiveHistory: (memo, history) => memo.effectiveHistory(history),
      pruneForModel: (memo, history) => memo.pruneForModel(history, CLEAR_ALL),
    })) {
      const { error: whole } = attempt(() => read(new kram.HistoryMemo(), long(make)));
      assert.ok(whole instanceof TypeError && /\[40\]/.test(whole.message), `${what}, ${name}: ${whole}`);
      assert.throws(() => read(kram, long(make)), (error) => error instanceof TypeError && error.message === whole.message, `${what}, ${name}`);
    }
  }
  // An element whose read throws (a getter on the array itself): found when
  // its role is asked for, and refused as a whole read refuses it.
  const throwingElement = () => {
    const history = long((m) => m);
    Object.defineProperty(history, 40, { get: () => { throw new Error("element"); } });
    return history;
  };
  for (const name of ["effectiveHistory", "pruneForModel"]) {
    const { error: whole } = attempt(() => new kram.HistoryMemo()[name](throwingElement()));
    assert.equal(whole?.message, `${name === "effectiveHistory" ? "all" : "effective"}[40] could not be read: it threw element`);
    assert.throws(() => kram[name](throwingElement()), { name: "TypeError", message: whole.message });
  }
  // A user message may be a marker, so the marker search reads its content,
  // and a throw there is refused as a whole read refuses it. (Pruning reads
  // an older user message for its role alone: it holds no results.)
  const throwingContent = () =>
    Object.defineProperty({ role: "user" }, "content", { enumerable: true, get: () => { throw new Error("boom"); } });
  const { error: whole } = attempt(() => new kram.HistoryMemo().effectiveHistory(long(throwingContent)));
  assert.ok(whole instanceof TypeError && /\[40\]\.content/.test(whole.message), `${whole}`);
  assert.throws(() => kram.effectiveHistory(long(throwingContent)), (error) => error.message === whole.message);
});

test("revoked Proxies as a message, a field, the history and the options", () => {
  const revoked = () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  };
  assertAllRefuse(kram, () => withTool(() => revoked()), "[3] must be a message object, got a non-JSON value");
  assertAllRefuse(kram, () => withTool((m) => ({ ...m, content: revoked() })), "[3].content must be");
  for (const { argument, call } of Object.values(EXPORTS)) {
    assertRefused(() => call(revoked()), argument, " must be an array of messages, got a non-JSON value");
  }
  assertRefused(() => kram.estimateTokens(session(), revoked()), "options", " must be an object, got a non-JSON value");
});

test("an array Proxy whose length throws or lies", () => {
  const lying = (length) => new Proxy(session(), { get: (t, k) => (k === "length" ? length() : t[k]) });
  for (const { argument, call } of Object.values(EXPORTS)) {
    assertRefused(() => call(lying(() => { throw new Error("len"); })), argument, ".length could not be read: it threw len");
    assertRefused(() => call(lying(() => "7")), argument, ".length could not be read: it is string");
    for (const number of [-1, 1.5, NaN, 2 ** 32]) {
      assertRefused(() => call(lying(() => number)), argument, ".length could not be read: it is number");
    }
  }
  // The same rule where a field's array is read (the kind of the field):
  // a length that is no whole number from 0 to 2^32 - 1 is no array.
  for (const number of [NaN, 1.5, -1, 2 ** 32, "1"]) {
    const parts = new Proxy([{ type: "text", text: "a" }], { get: (t, k) => (k === "length" ? number : t[k]) });
    assertAllRefuse(kram, [{ role: "user", content: parts }], "[0].content must be a string, null or an array of content parts, got a non-JSON value");
  }
  const content = new Proxy([{ type: "text", text: "a" }], { get: (t, k) => { if (k === "length") throw new Error("len"); return t[k]; } });
  assertAllRefuse(kram, [{ role: "user", content }], "[0].content must be a string, null or an array of content parts, got a non-JSON value");
  // A length that is the array itself: refused, not a stack overflow (what
  // the length was was asked of the length, and so on).
  const endless = new Proxy([], { get: (t, k) => (k === "length" ? endless : t[k]) });
  assertAllRefuse(kram, [{ role: "user", content: endless }], "[0].content must be a string, null or an array of content parts, got a non-JSON value");
  for (const { argument, call } of Object.values(EXPORTS)) {
    assertRefused(() => call(endless), argument, ".length could not be read: it is a non-JSON value");
  }
});

test("frozen and sealed messages: read, never changed, copied where edited", () => {
  const deepFreeze = (v) => (v && typeof v === "object" ? (Object.values(v).forEach(deepFreeze), Object.freeze(v)) : v);
  for (const lock of [deepFreeze, Object.seal, Object.preventExtensions]) {
    const history = session().map((m) => lock(m));
    const snapshot = structuredClone(history);
    for (const [name, { call }] of Object.entries(EXPORTS)) {
      assert.deepEqual(plain(call(history)), before[name], `${lock.name} ${name}`);
    }
    const pruned = kram.pruneForModel(history, CLEAR_ALL);
    assert.notEqual(pruned[3], history[3]);
    assert.equal(pruned[3].content, "[Old tool result content cleared]");
    pruned.forEach((m, i) => i !== 3 && assert.equal(m, history[i], "unchanged messages are the caller's objects"));
    assert.deepEqual(history, snapshot);
  }
});

test("sparse arrays: a hole is refused at its index, even in an array of length 2^32 - 1", () => {
  const holes = session();
  delete holes[4];
  assertAllRefuse(kram, holes, "[4] must be a message object, got undefined");
  const huge = session();
  huge.length = 2 ** 32 - 1;
  assertAllRefuse(kram, huge, "[7] must be a message object, got undefined");
  const parts = [{ type: "text", text: "a" }, , { type: "text", text: "b" }];
  assertAllRefuse(kram, [{ role: "user", content: parts }], "[0].content[1] must be a content part object, got undefined");
});

test("__proto__, constructor and prototype keys: kept as data, nothing polluted", () => {
  const json = JSON.stringify(session()).replaceAll(
    '"tool_call_id"',
    '"__proto__":{"polluted":1,"role":"user"},"constructor":{"prototype":{"polluted":2}},"prototype":{"polluted":3},"tool_call_id"',
  );
  const history = JSON.parse(json);
  assert.ok(Object.hasOwn(history[3], "__proto__"));
  const snapshot = structuredClone(history);
  for (const [name, { call }] of Object.entries(EXPORTS)) {
    const result = call(history);
    assert.equal({}.polluted, undefined, name);
    assert.equal(Object.prototype.polluted, undefined, name);
    if (Array.isArray(result)) {
      assert.equal(Object.getPrototypeOf(result), Array.prototype);
      for (const message of result) assert.equal(Object.getPrototypeOf(message), Object.prototype, name);
    }
  }
  const pruned = kram.pruneForModel(history, CLEAR_ALL);
  assert.ok(Object.hasOwn(pruned[3], "__proto__"), "the copy keeps the key as its own data");
  assert.deepEqual(pruned[3].__proto__, { polluted: 1, role: "user" });
  assert.equal(pruned[3].role, "tool");
  assert.equal(pruned[3].polluted, undefined);
  assert.deepEqual(history, snapshot);
  // As field values, roles and ids, these names are plain strings.
  const names = [
    { role: "user", content: "__proto__" },
    { role: "constructor", content: "prototype" },
    { role: "assistant", content: null, tool_calls: [{ id: "__proto__", type: "function", function: { name: "constructor", arguments: "{}" } }] },
    { role: "tool", tool_call_id: "__proto__", content: "x" },
  ];
  assert.equal(kram.describeMessages(names).messages[1].kind, "other");
  assert.equal(kram.effectiveHistory(names).length, 4);
  assert.equal({}.polluted, undefined);
});

test("copies keep the prototype, inherited getters and symbol-keyed fields of the message", () => {
  const tag = Symbol("app.id");
  class ToolMessage {
    constructor(id, content) {
      this.tool_call_id = id;
      this.content = content;
      this[tag] = 42;
    }
    get role() {
      return "tool";
    }
  }
  const history = withTool((m) => new ToolMessage(m.tool_call_id, m.content));
  assert.equal(kram.estimateTokens(history), before.estimateTokens);
  const pruned = kram.pruneForModel(history, CLEAR_ALL);
  assert.ok(pruned[3] instanceof ToolMessage);
  assert.equal(pruned[3].role, "tool");
  assert.equal(pruned[3][tag], 42);
  assert.equal(pruned[3].content, "[Old tool result content cleared]");
  assert.equal(history[3].content, session()[3].content, "the caller's object is unchanged");
  const bare = withTool((m) => Object.assign(Object.create(null), m));
  assert.equal(Object.getPrototypeOf(kram.pruneForModel(bare, CLEAR_ALL)[3]), null);
});

test("copies take each own enumerable field once, as data, and leave non-enumerable ones out, as a spread does", () => {
  let reads = 0;
  const history = withTool((m) => {
    const message = { ...m };
    Object.defineProperty(message, "hidden", { value: "not copied", enumerable: false });
    Object.defineProperty(message, "counted", { enumerable: true, get: () => ++reads });
    return message;
  });
  const pruned = kram.pruneForModel(history, CLEAR_ALL);
  assert.equal(pruned[3].content, "[Old tool result content cleared]");
  assert.equal(Object.hasOwn(pruned[3], "hidden"), false);
  assert.equal(reads, 1);
  const counted = Object.getOwnPropertyDescriptor(pruned[3], "counted");
  assert.deepEqual(counted, { value: 1, writable: true, enumerable: true, configurable: true });
  assert.deepEqual(Object.keys(pruned[3]), Object.keys({ ...history[3] }));
});

test("a message's role, content and tool calls are each read once: its reader takes what the format's checks read", () => {
  // (OpenAI Responses' and LangChain's checks read other fields.)
  const histories = {
    "openai-chat": [
      { role: "user", content: "hi" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: "out" },
    ],
    "ai-sdk": [
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "f", input: {} }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "f", output: { type: "text", value: "out" } }] },
    ],
    anthropic: [
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "f", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: "out" }] },
    ],
    ollama: [
      { role: "user", content: "hi" },
      { role: "assistant", content: "", tool_calls: [{ function: { name: "f", arguments: {} } }] },
      { role: "tool", content: "out", tool_name: "f" },
    ],
    gemini: [
      { role: "user", parts: [{ text: "hi" }] },
      { role: "model", parts: [{ functionCall: { name: "f", args: {} } }] },
      { role: "user", parts: [{ functionResponse: { name: "f", response: { output: "out" } } }] },
    ],
    "ai-sdk-ui": [
      { id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] },
      { id: "a1", role: "assistant", parts: [{ type: "tool-f", toolCallId: "c1", state: "output-available", input: {}, output: "out" }] },
    ],
  };
  // Found by detection, and named by options.format (whose checks run
  // before its reader, in place of detection's).
  for (const [format, history] of Object.entries(histories)) {
    for (const options of [undefined, { format }]) {
      const reads = [];
      // Every message but the first (whose content other steps read too)
      // counts the reads of its fields.
      const counted = history.map((message, index) => {
        if (index === 0) return message;
        const count = {};
        reads.push(count);
        const copy = {};
        for (const [key, value] of Object.entries(message)) {
          Object.defineProperty(copy, key, { enumerable: true, get: () => ((count[key] = (count[key] ?? 0) + 1), value) });
        }
        return copy;
      });
      assert.equal(kram.estimateTokens(counted, options), kram.estimateTokens(history), format);
      for (const count of reads) {
        for (const key of ["role", "content", "tool_calls"].filter((key) => key in count)) {
          assert.equal(count[key], 1, `${format}${options ? ", named" : ""}: ${key}`);
        }
      }
    }
  }
  // A Gemini content with no role (the API's default, user): the absent
  // field is read once too.
  let roleReads = 0;
  const roleless = new Proxy({ parts: [{ text: "more" }] }, {
    get: (target, key, receiver) => (key === "role" && roleReads++, Reflect.get(target, key, receiver)),
  });
  const gemini = [histories.gemini[0], roleless, { role: "model", parts: [{ text: "ok" }] }];
  assert.equal(kram.describeMessages(gemini).messages[1].role, "user");
  roleReads = 0;
  assert.equal(kram.estimateTokens(gemini), kram.estimateTokens([histories.gemini[0], { parts: [{ text: "more" }] }, gemini[2]]));
  assert.equal(roleReads, 1, "gemini: an absent role");
});

test("a plain object and a class instance are copied through the same traps, in the same order", () => {
  const traps = (prototype) => {
    const log = [];
    const history = withTool((m) => {
      const target = Object.assign(Object.create(prototype), m);
      return new Proxy(target, {
        getPrototypeOf: (t) => (log.push("getPrototypeOf"), Reflect.getPrototypeOf(t)),
        ownKeys: (t) => (log.push("ownKeys"), Reflect.ownKeys(t)),
        getOwnPropertyDescriptor: (t, k) => (log.push(`describe ${String(k)}`), Reflect.getOwnPropertyDescriptor(t, k)),
        get: (t, k, r) => (log.push(`get ${String(k)}`), Reflect.get(t, k, r)),
      });
    });
    kram.estimateTokens(history);
    log.length = 0;
    const pruned = kram.pruneForModel(history, CLEAR_ALL);
    assert.equal(pruned[3].content, "[Old tool result content cleared]");
    assert.equal(Object.getPrototypeOf(pruned[3]), prototype);
    return log;
  };
  const plainTraps = traps(Object.prototype);
  assert.ok(plainTraps.includes("ownKeys") && plainTraps.includes("describe content"), plainTraps.join(", "));
  assert.deepEqual(plainTraps, traps(Object.create(Object.prototype)));
});

test("an array on a copied path is copied element by element, and an element that throws when copied is refused there", async () => {
  const { readFileSync } = await import("node:fs");
  const fixture = () => JSON.parse(readFileSync(new URL("../fixtures/ai-sdk.json", import.meta.url), "utf8"));
  const clean = kram.pruneForModel(fixture(), CLEAR_ALL);
  assert.equal(clean[3].content[0].output.value, "[Old tool result content cleared]");
  const readsOfFirst = (throwOnRead) => {
    const history = fixture();
    let reads = 0;
    history[3].content = new Proxy(history[3].content, {
      get: (target, key, receiver) => {
        if (key === "0" && ++reads === throwOnRead) throw new Error("element read");
        return Reflect.get(target, key, receiver);
      },
    });
    return { history, reads: () => reads };
  };
  const counted = readsOfFirst(0);
  const pruned = kram.pruneForModel(counted.history, CLEAR_ALL);
  assert.ok(Array.isArray(pruned[3].content) && pruned[3].content !== counted.history[3].content, "a copy");
  assert.deepEqual(pruned[3].content, clean[3].content);
  // The copy is the last read of the element: throwing there is the copy's error.
  const { history } = readsOfFirst(counted.reads());
  assertRefused(() => kram.pruneForModel(history, CLEAR_ALL), "effective", "[3].content could not be copied: it threw element read");
});

test("a setter on Object.prototype is never called by a copy", () => {
  let called = 0;
  Object.defineProperty(Object.prototype, "content", { set() { called++; }, configurable: true });
  try {
    const history = JSON.parse(JSON.stringify(session()));
    const pruned = kram.pruneForModel(history, CLEAR_ALL);
    assert.ok(Object.hasOwn(pruned[3], "content"));
    assert.equal(pruned[3].content, "[Old tool result content cleared]");
    assert.equal(called, 0);
  } finally {
    delete Object.prototype.content;
  }
});

test("a setter on Object.prototype named as a field pruning's copies set is never called, in any format", async () => {
  // The copies made in JS assign that field after a spread, which such a
  // setter would take; with one there, the module makes them itself.
  const { readFileSync } = await import("node:fs");
  const keys = ["content", "parts", "output", "result", "value", "errorText", "functionResponse", "response", "kwargs"];
  for (const format of kram.MESSAGE_FORMATS) {
    const fixture = JSON.parse(readFileSync(new URL(`../fixtures/${format}.json`, import.meta.url), "utf8"));
    const history = Array.from({ length: 10 }, () => structuredClone(fixture)).flat();
    const expected = JSON.stringify(kram.pruneForModel(history, CLEAR_ALL));
    assert.notEqual(expected, JSON.stringify(history), format);
    for (const key of keys) {
      let called = 0;
      Object.defineProperty(Object.prototype, key, { set() { called++; }, configurable: true });
      try {
        assert.equal(JSON.stringify(kram.pruneForModel(history, CLEAR_ALL)), expected, `${format}, ${key}`);
        assert.equal(called, 0, `${format}, ${key}`);
      } finally {
        delete Object.prototype[key];
      }
    }
  }
});

test("symbols, BigInt and functions in fields: refused at the field", () => {
  for (const bad of [Symbol("x"), 10n, () => "x"]) {
    assertAllRefuse(kram, () => withTool((m) => ({ ...m, tool_call_id: bad })), "[3].tool_call_id must be a string, got a non-JSON value");
    assertAllRefuse(kram, () => withTool((m) => ({ ...m, role: bad })), "[3]");
    assertAllRefuse(kram, () => withTool((m) => ({ ...m, content: bad })), "[3].content must be a string, null or an array of content parts");
  }
  assertAllRefuse(kram, () => withTool(() => Symbol("m")), "[3] must be a message object, got a non-JSON value");
  for (const bad of [10n, Symbol("n"), { valueOf: () => 5 }, "100"]) {
    assertRefused(() => kram.needsCompaction(session(), bad), "maxTokens", " must be a number");
    assertRefused(() => kram.emergencyPrune(session(), bad), "maxTokens", " must be a number");
  }
  for (const field of ["protectTurns", "protectTokens", "minimumSavings", "placeholder"]) {
    assertRefused(() => kram.pruneForModel(session(), { [field]: 1n }), "options", `.${field} must be a`);
    const getter = Object.defineProperty({}, field, { get: () => { throw new Error("opt"); } });
    assertRefused(() => kram.pruneForModel(session(), getter), "options", `.${field} could not be read: it threw opt`);
  }
});

test("cyclic objects in fields nobody reads are kept as they are", () => {
  const history = withTool((m) => {
    const copy = { ...m };
    copy.self = copy;
    return copy;
  });
  assert.equal(kram.estimateTokens(history), before.estimateTokens);
  const pruned = kram.pruneForModel(history, CLEAR_ALL);
  assert.equal(pruned[3].self, history[3], "a shallow copy shares the field");
});

test("a tool input's hostile values are counted as the JSON rule says, by the walk in JS as by the core's", () => {
  // The estimate of a free-form JSON value is walked in JS in one call
  // (jsonTape in src/bindings/guarded.js); each hostile value is counted as
  // a plain value that the rule counts the same.
  const tokens = (input) =>
    kram.estimateTokens([{ role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "tool", input }] }]);
  const throwing = { get path() { throw new Error("no path"); }, line: 7 };
  assert.equal(tokens(throwing), tokens({ path: undefined, line: 7 }), "a field that throws: its key alone");
  const holey = [1, 2, 3];
  Object.defineProperty(holey, 1, { get() { throw new Error("no element"); } });
  assert.equal(tokens(holey), tokens([1, 3]), "an element that throws: left out");
  const noKeys = new Proxy({ a: "text" }, { ownKeys() { throw new Error("no keys"); } });
  assert.equal(tokens(noKeys), tokens({}), "keys that cannot be read: none");
  const noLength = new Proxy([1, 2], { get: (target, key) => (key === "length" ? Infinity : target[key]) });
  assert.equal(tokens({ list: noLength }), tokens({ list: () => {} }), "an array whose length is no length: no value");
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  assert.equal(tokens({ gone: revoked.proxy }), tokens({ gone: Symbol("x") }), "a revoked Proxy: no value");
  const cycle = { name: "loop" };
  cycle.self = cycle;
  assert.ok(tokens(cycle) > tokens({ name: "loop" }), "a cycle is walked to the walk's bounds, then cut off");
  assert.equal(tokens(cycle), tokens(cycle), "and cut off at the same place every time");
  // A getter that runs the package, and so another walk, while this one is
  // under way: each walk keeps its own tape.
  const other = [{ role: "assistant", content: [{ type: "tool-call", toolCallId: "c2", toolName: "t", input: { list: ["a", 3], more: "text ".repeat(50) } }] }];
  const reentrant = { first: "some text", get middle() { kram.estimateTokens(other); return "middle"; }, last: ["x", 1, true] };
  assert.equal(tokens(reentrant), tokens({ first: "some text", middle: "middle", last: ["x", 1, true] }), "a walk inside a walk");
});

test("lone UTF-16 surrogates: counted, and a placeholder comes back exactly as given", () => {
  const lone = "\uD800 half \uDFFF";
  const history = [{ role: "user", content: lone }];
  assert.ok(kram.estimateTokens(history) > 0);
  assert.equal(kram.effectiveHistory(history)[0], history[0]);
  const pruned = kram.pruneForModel(session(), { ...CLEAR_ALL, placeholder: "\uDBFF cleared" });
  assert.equal(pruned[3].content, "\uDBFF cleared");
  assert.equal(kram.describeMessages(history).messages[0].blocks[0].text, "\uFFFD half \uFFFD", "described as UTF-8 reads it");
  // Past a long ASCII start, and after another text that is not ASCII.
  const late = `${"a".repeat(100)}é ${"b".repeat(70)}\uDC00`;
  assert.equal(kram.describeMessages([{ role: "user", content: late }]).messages[0].blocks[0].text, late.replace("\uDC00", "\uFFFD"));
});

test("a getter that runs another history function, which grows the module's memory, loses no answer", () => {
  // The bindings hand JS views of the module's memory (indexes to read,
  // bytes to answer in); a call that grows the memory empties them all.
  // Each getter call here describes a longer text than the one before, so
  // the memory grows each time.
  let grown = 0;
  const grow = () => kram.describeMessages([{ role: "user", content: "word ".repeat(2_000_000 * ++grown) }]);
  // A marker after a message whose content is such a getter, in the window
  // the marker look reads in one call.
  const history = Array.from({ length: 200 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}` }));
  const text = history[180].content;
  Object.defineProperty(history[180], "content", { enumerable: true, get: () => (grow(), text) });
  const marker = { role: "system", name: kram.COMPACTION_MARKER_NAME, content: "The summary." };
  history.splice(190, 0, marker);
  const effective = kram.effectiveHistory(history);
  assert.equal(effective[0], marker);
  assert.equal(effective.length, history.length - 190);
  // A message of a pruned history behind such a getter of the array: every
  // message is in the answer, as without it.
  const plainHistory = codingSession(300, { outputLines: 40 });
  const expected = kram.pruneForModel(plainHistory);
  const watched = [...plainHistory];
  Object.defineProperty(watched, 300, { enumerable: true, get: () => (grow(), plainHistory[300]) });
  const before = grown;
  const pruned = kram.pruneForModel(watched);
  assert.ok(grown > before, "the getter ran");
  assert.equal(pruned.length, expected.length);
  for (let i = 0; i < pruned.length; i++) assert.ok(i in pruned, `message ${i} is in the answer`);
  assert.deepEqual(pruned, expected);
});

test("a message whose read throws only when the answer is put together is refused at its index", () => {
  // The effective history and the cut put their answer together from the
  // caller's array in one call (elementsIn in guarded.js), which reads each
  // kept message again: a getter of the array that throws there alone (and
  // not in the reads that decided) is refused as any read that throws.
  const history = Array.from({ length: 200 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}` }));
  const message = history[150];
  Object.defineProperty(history, 150, {
    enumerable: true,
    get() {
      if (new Error().stack.includes("elementsIn")) throw new Error("read for the answer");
      return message;
    },
  });
  const refused = (argument) => ({ name: "TypeError", message: `${argument}[150] could not be read: it threw read for the answer` });
  assert.throws(() => kram.effectiveHistory(history), refused("all"));
  assert.throws(() => kram.emergencyPrune(history, kram.DEFAULT_MAX_TOKENS), refused("effective"));
});

test("the kept messages come back in a plain Array, and no constructor or species of the history is read", () => {
  // One range of kept messages is copied by the engine's own slice
  // (plainSlice in guarded.js) only where it makes what reading them one
  // by one makes: a slice reads the history's constructor and species
  // (caller code), and would make a subclass's instance, or keep a hole.
  const messages = () => Array.from({ length: 300 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}` }));
  const expected = messages();
  const read = [];
  class Subclass extends Array {
    static get [Symbol.species]() {
      read.push("species");
      return Array;
    }
  }
  const withConstructor = messages();
  Object.defineProperty(withConstructor, "constructor", { get: () => (read.push("constructor"), Array) });
  const histories = { subclass: Subclass.from(messages()), "own constructor": withConstructor, proxy: new Proxy(messages(), {}) };
  for (const [name, history] of Object.entries(histories)) {
    for (const kept of [kram.effectiveHistory(history), kram.emergencyPrune(history, 1e9)]) {
      assert.equal(Reflect.getPrototypeOf(kept), Array.prototype, name);
      assert.deepEqual([...kept], expected, name);
      kept.forEach((message, i) => assert.equal(message, history[i], `${name}: the caller's own message ${i}`));
    }
  }
  assert.deepEqual(read, []);
  const holed = messages();
  delete holed[299];
  assert.throws(() => kram.effectiveHistory(holed), { name: "TypeError", message: "all[299] must be a message object, got undefined" });
});

test("every thrown value is an Error object, for every export", () => {
  for (const { call } of Object.values(EXPORTS)) {
    for (const bad of [undefined, null, 5, "x", {}, new Map(), new Uint8Array(4), [1], [[]], [null]]) {
      const { error } = attempt(() => call(bad));
      assert.ok(error instanceof TypeError, String(error));
    }
  }
});

test("after all of it, every export still gives the right answers", () => {
  assert.deepEqual(answers(kram), before);
  assert.equal(kram.estimateTokens([]), 0);
  const history = session();
  kram.pruneForModel(history, CLEAR_ALL).forEach((m, i) => i !== 3 && assert.equal(m, history[i]));
});
