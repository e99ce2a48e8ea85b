// The built package in Deno 2: through an npm: specifier (resolved to the
// local package in node_modules) and through a plain path import of its entry.
import assert from "node:assert/strict";
import * as viaNpm from "npm:kram-compaction";
import * as viaPath from "../../pkg/dist/web.mjs";

const pkg = JSON.parse(await Deno.readTextFile(new URL("../../pkg/package.json", import.meta.url)));
const sample = [{ role: "user", content: "Fix the failing test" }];

Deno.test("npm: specifier loads the package, initialised on import", () => {
  assert.equal(viaNpm.VERSION, pkg.version);
  assert.ok(viaNpm.estimateTokens(sample) > 0);
  assert.equal(viaNpm.DEFAULT_MAX_TOKENS, 60000);
});

Deno.test("npm: specifier resolves to this repository's package", async () => {
  const resolved = import.meta.resolve("npm:kram-compaction");
  assert.ok(resolved.startsWith("file:"), resolved);
  assert.equal(await Deno.realPath(new URL(resolved)), await Deno.realPath(new URL("../../pkg/dist/web.mjs", import.meta.url)));
});

Deno.test("a plain path import of the web entry works", () => {
  assert.equal(viaPath.VERSION, pkg.version);
  assert.equal(viaPath.estimateTokens(sample), viaNpm.estimateTokens(sample));
});

Deno.test("bad input throws a TypeError naming the argument", () => {
  assert.throws(() => viaPath.estimateTokens("nope" as never), (e: unknown) => e instanceof TypeError && /messages/.test(e.message));
});
