// The Node entry compiles and instantiates the .wasm on the first call that
// needs it, not when the package is loaded: compiling was most of what a
// `require` cost. Each case runs in a process of its own, since the test
// runner's process has long since called the package.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const require = createRequire(import.meta.url);
const kram = require("kram-compaction");

/** Runs `code` (CommonJS) in a fresh Node process and returns what it prints, parsed. */
function fresh(code, { input = "commonjs" } = {}) {
  return JSON.parse(execFileSync(process.execPath, [`--input-type=${input}`, "-e", code], { cwd: root, encoding: "utf8" }));
}

/** Counts, in `globalThis.counts`, every WebAssembly module compiled and instance made. */
const COUNT = `
globalThis.counts = { modules: 0, instances: 0 };
for (const [name, key] of [["Module", "modules"], ["Instance", "instances"]]) {
  WebAssembly[name] = new Proxy(WebAssembly[name], {
    construct(target, args) { counts[key]++; return Reflect.construct(target, args); },
  });
}
`;

test("require compiles no WebAssembly; the first call compiles and instantiates it, once", () => {
  const seen = fresh(`${COUNT}
    const kram = require("kram-compaction");
    const loaded = { ...counts };
    const constants = [kram.COMPACTION_MARKER_NAME, kram.DEFAULT_MAX_TOKENS, kram.MESSAGE_FORMATS.length, kram.VERSION];
    const read = { ...counts };
    kram.estimateTokens([{ role: "user", content: "hi" }]);
    kram.pruneForModel([]);
    new kram.HistoryMemo().estimateTokens([]);
    console.log(JSON.stringify({ loaded, read, called: counts, constants }));
  `);
  assert.deepEqual(seen.loaded, { modules: 0, instances: 0 }, "on require");
  assert.deepEqual(seen.read, { modules: 0, instances: 0 }, "after reading the constants");
  assert.deepEqual(seen.called, { modules: 1, instances: 1 }, "after three calls");
  assert.deepEqual(seen.constants, [kram.COMPACTION_MARKER_NAME, kram.DEFAULT_MAX_TOKENS, kram.MESSAGE_FORMATS.length, kram.VERSION]);
});

test("require makes no TextDecoder; the first string the module hands to JS makes the one it keeps", () => {
  const seen = fresh(`
    globalThis.decoders = 0;
    globalThis.TextDecoder = class extends TextDecoder {
      constructor(...args) { super(...args); decoders++; }
    };
    const kram = require("kram-compaction");
    const loaded = decoders;
    kram.estimateTokens([{ role: "user", content: "hi" }]);
    let message;
    try { kram.estimateTokens([{ role: "user", content: 5 }]); } catch (error) { message = error.message; }
    kram.describeMessages([{ role: "user", content: "hi" }]);
    console.log(JSON.stringify({ loaded, called: decoders, message }));
  `);
  assert.equal(seen.loaded, 0, "on require");
  assert.equal(seen.called, 1, "after three calls, which made JS strings (field names, an error message)");
  assert.match(seen.message, /^messages\[0\]\.content must be /);
});

test("import compiles no WebAssembly either", () => {
  const seen = fresh(
    `${COUNT}
    const kram = await import("kram-compaction");
    const loaded = { ...counts };
    kram.estimateTokens([]);
    console.log(JSON.stringify({ loaded, called: counts }));`,
    { input: "module" },
  );
  assert.deepEqual(seen, { loaded: { modules: 0, instances: 0 }, called: { modules: 1, instances: 1 } });
});

/** Calls that throw, each written as an expression over `kram`. */
const BAD_CALLS = [
  `kram.estimateTokens("not an array")`,
  `kram.estimateTokens([{ role: "user", content: 5 }])`,
  `kram.needsCompaction([], -1)`,
  `kram.effectiveHistory([null])`,
  `kram.pruneForModel([], { protectTurns: -1 })`,
  `kram.emergencyPrune([], "many")`,
  `kram.describeMessages([{ role: "user", content: "hi" }], { format: "no-such-format" })`,
  `new kram.HistoryMemo().estimateTokens(5)`,
  `new kram.ContextManager({ maxTokens: -5 })`,
];

/** The error `expression` throws in this process, where the module is long instantiated. */
function warmError(expression) {
  try {
    new Function("kram", expression)(kram);
  } catch (error) {
    return { type: error.constructor.name, message: error.message };
  }
  return "no error";
}

for (const expression of BAD_CALLS) {
  test(`as the first call, ${expression} throws what it throws later`, () => {
    const first = fresh(`
      const kram = require("kram-compaction");
      let out = "no error";
      try { ${expression}; } catch (error) { out = { type: error.constructor.name, message: error.message }; }
      console.log(JSON.stringify(out));
    `);
    assert.notEqual(first, "no error");
    assert.deepEqual(first, warmError(expression));
  });
}

test("without its .wasm the package still loads, and every call throws the read's error", () => {
  const dir = mkdtempSync(join(tmpdir(), "kram-no-wasm-"));
  try {
    cpSync(join(root, "pkg", "dist", "node.cjs"), join(dir, "node.cjs"));
    const seen = fresh(`
      const kram = require(${JSON.stringify(join(dir, "node.cjs"))});
      const calls = [1, 2].map(() => { try { kram.estimateTokens([]); return "no error"; } catch (error) { return error.code; } });
      console.log(JSON.stringify({ marker: kram.COMPACTION_MARKER_NAME, calls }));
    `);
    assert.deepEqual(seen, { marker: kram.COMPACTION_MARKER_NAME, calls: ["ENOENT", "ENOENT"] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
