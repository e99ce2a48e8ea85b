// The size budget of the WebAssembly module, with every function in.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { gzipSync } from "node:zlib";

const wasm = readFileSync(new URL("../../pkg/dist/kram_compaction_bg.wasm", import.meta.url));

test("the .wasm is at most 150 KB raw and 60 KB gzipped", () => {
  const gzipped = gzipSync(wasm, { level: 9 }).length;
  assert.ok(wasm.length <= 150 * 1024, `${wasm.length} bytes raw`);
  assert.ok(gzipped <= 60 * 1024, `${gzipped} bytes gzipped`);
});

test("the .wasm went through wasm-opt (no name section left)", () => {
  const names = new WebAssembly.Module(wasm);
  assert.deepEqual(WebAssembly.Module.customSections(names, "name"), []);
});
