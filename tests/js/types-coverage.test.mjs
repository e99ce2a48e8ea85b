// tests/types/usage.ts must use every export, so that tsc checks each one's
// published type: a new export without a typed use there fails this test.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import * as kram from "kram-compaction";

const usage = readFileSync(new URL("../types/usage.ts", import.meta.url), "utf8");
const declarations = readFileSync(new URL("../../pkg/dist/types/index.d.ts", import.meta.url), "utf8");
const used = (name) => new RegExp(`\\b${name}\\b`).test(usage.replace(/^import[^;]*;/ms, ""));

test("every value export is used in tests/types/usage.ts", () => {
  assert.deepEqual(Object.keys(kram).filter((name) => !used(name)), []);
});

test("every type exported by index.d.ts is used in tests/types/usage.ts", () => {
  const types = [...declarations.matchAll(/export type \{([^}]*)\}/g)].flatMap((m) => m[1].split(",").map((n) => n.trim()).filter(Boolean));
  assert.ok(types.includes("Message"), types.join());
  assert.deepEqual(types.filter((name) => !used(name)), []);
});
