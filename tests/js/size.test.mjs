// The size of the WebAssembly module: the budget is 250 KB raw and 90 KB
// gzipped with every function in (issue #16; README, Performance: "Module size").
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { gzipSync } from "node:zlib";

const wasm = readFileSync(new URL("../../pkg/dist/kram_compaction_bg.wasm", import.meta.url));

const RAW_CEILING = 250 * 1024;
const GZIP_CEILING = 90 * 1024;

test("the .wasm is at most 250 KB raw and 90 KB gzipped", () => {
  const gzipped = gzipSync(wasm, { level: 9 }).length;
  assert.ok(wasm.length <= RAW_CEILING, `${wasm.length} bytes raw`);
  assert.ok(gzipped <= GZIP_CEILING, `${gzipped} bytes gzipped`);
});

test("the .wasm went through wasm-opt (no name section left)", () => {
  const names = new WebAssembly.Module(wasm);
  assert.deepEqual(WebAssembly.Module.customSections(names, "name"), []);
});
