// The built package in Node: ESM import, CJS require, one shared instance,
// initialised synchronously by its first call (nothing to await, no init to
// forget; first-use.test.mjs shows when).
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import * as esm from "kram-compaction";

const require = createRequire(import.meta.url);
const cjs = require("kram-compaction");
const sample = [{ role: "user", content: "Fix the failing test" }];
const pkg = JSON.parse(readFileSync(new URL("../../pkg/package.json", import.meta.url), "utf8"));

test("ESM import works with no init step", () => {
  assert.equal(typeof esm.estimateTokens(sample), "number");
  assert.ok(esm.estimateTokens(sample) > 0);
  assert.equal("init" in esm, false);
  assert.equal("default" in esm, false);
});

test("CJS require works with no init step", () => {
  assert.equal(cjs.estimateTokens(sample), esm.estimateTokens(sample));
  assert.equal("init" in cjs, false);
});

test("import and require share one module instance", () => {
  for (const name of Object.keys(cjs)) assert.equal(esm[name], cjs[name], name);
  assert.deepEqual(Object.keys(esm).sort(), Object.keys(cjs).sort());
});

test("the exports are the public surface", () => {
  for (const name of ["estimateTokens", "needsCompaction", "effectiveHistory", "pruneForModel", "emergencyPrune"]) {
    assert.equal(typeof esm[name], "function", name);
  }
  assert.equal(esm.COMPACTION_MARKER_NAME, "kram:compaction_summary");
  assert.equal(esm.DEFAULT_MAX_TOKENS, 60000);
});

test("VERSION is pkg/package.json's version and matches Cargo.toml", () => {
  assert.equal(esm.VERSION, pkg.version);
  const cargo = readFileSync(new URL("../../Cargo.toml", import.meta.url), "utf8");
  assert.equal(cargo.match(/^version = "(.*)"$/m)[1], pkg.version);
});

test("the wasm glue is not reachable, so nothing can call it uninitialised", () => {
  assert.throws(() => require("kram-compaction/dist/web.mjs"), { code: "ERR_PACKAGE_PATH_NOT_EXPORTED" });
  assert.throws(() => require("kram-compaction/dist/node.cjs"), { code: "ERR_PACKAGE_PATH_NOT_EXPORTED" });
});

test("errors crossing the boundary are Error objects", () => {
  assert.throws(() => esm.estimateTokens("not an array"), (e) => e instanceof TypeError && /messages/.test(e.message));
  assert.throws(() => cjs.estimateTokens([{ role: "user", content: 5 }]), (e) => e instanceof TypeError && /messages\[0\]\.content/.test(e.message));
});
