// tests/types/*.ts must use every export, so that tsc checks each one's
// published type: a new export without a typed use there fails this test.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import * as kram from "kram-compaction";

const typesDir = new URL("../types/", import.meta.url);
const usage = readdirSync(typesDir)
  .filter((name) => name.endsWith(".ts"))
  .map((name) => readFileSync(new URL(name, typesDir), "utf8").replace(/^import[^;]*;/ms, ""))
  .join("\n");
const declarations = readFileSync(new URL("../../pkg/dist/types/index.d.ts", import.meta.url), "utf8");
const used = (name) => new RegExp(`\\b${name}\\b`).test(usage);

test("every value export is used in tests/types/", () => {
  assert.deepEqual(Object.keys(kram).filter((name) => !used(name)), []);
});

test("every type exported by index.d.ts is used in tests/types/", () => {
  const types = [...declarations.matchAll(/export type \{([^}]*)\}/g)].flatMap((m) => m[1].split(",").map((n) => n.trim()).filter(Boolean));
  assert.ok(types.includes("Message"), types.join());
  assert.deepEqual(types.filter((name) => !used(name)), []);
});
