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

Deno.test("compact through openAIChatGateway on Deno's fetch, against the loopback model server", async () => {
  const { startModelServer } = await import("../support/model-server.mjs");
  const server = await startModelServer();
  try {
    const history = [
      { role: "user", content: "Fix the failing test in src/app.ts" },
      { role: "assistant", content: "Reading src/app.ts, then running the tests. ".repeat(20) },
    ];
    const marker = await viaNpm.compact(viaNpm.openAIChatGateway({ baseURL: server.openAIBaseURL }), "m", history);
    assert.equal((marker as { name?: string }).name, viaNpm.COMPACTION_MARKER_NAME);
    assert.match(marker.content as string, /<compaction_summary>\n## Objective\nSummary 1\.\n<\/compaction_summary>$/);
    assert.match(server.requests[0].json.messages[1].content, /<conversation_transcript>/);
    await assert.rejects(
      viaNpm.compact(() => "", "m", history),
      (e: unknown) => e instanceof viaNpm.CompactionError && /empty summary/.test(e.message),
    );
  } finally {
    await server.close();
  }
});
