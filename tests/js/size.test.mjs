// The size of the WebAssembly module. The budget of issue #2 is 150 KB raw and
// 60 KB gzipped with every function in; with compact() in, the module is
// with the ladder 149.7 KB raw and 66.7 KB gzipped, over it. Until the trim lands (README,
// Performance: "Module size"), this holds the line at today's size so that it
// cannot grow unnoticed; lower GZIP_CEILING to 60 KB with the trim.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { gzipSync } from "node:zlib";

const wasm = readFileSync(new URL("../../pkg/dist/kram_compaction_bg.wasm", import.meta.url));

const RAW_CEILING = 150 * 1024;
const GZIP_CEILING = 67 * 1024;

test("the .wasm is at most 150 KB raw and 67 KB gzipped (the 60 KB budget is missed)", () => {
  const gzipped = gzipSync(wasm, { level: 9 }).length;
  assert.ok(wasm.length <= RAW_CEILING, `${wasm.length} bytes raw`);
  assert.ok(gzipped <= GZIP_CEILING, `${gzipped} bytes gzipped`);
});

test("the .wasm went through wasm-opt (no name section left)", () => {
  const names = new WebAssembly.Module(wasm);
  assert.deepEqual(WebAssembly.Module.customSections(names, "name"), []);
});
