// The built package in real headless Chromium: a plain module script
// (vite.test.mjs covers Vite, www.test.mjs the demo page). Every page must load
// without a console warning or error.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { browserSession, loadResult } from "./support/browser.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const { version } = JSON.parse(readFileSync(join(root, "pkg", "package.json"), "utf8"));
const kram = await import("kram-compaction");
const expectedTokens = kram.estimateTokens([{ role: "user", content: "Fix the failing test" }]);
const session = browserSession();

test("a plain <script type=module> page imports the package", async () => {
  const url = await session.serve({ "/": join(root, "tests", "browser", "plain"), "/pkg/dist/": join(root, "pkg", "dist") });
  const { result, messages } = await loadResult(session.browser, url);
  assert.deepEqual(messages, []);
  assert.equal(result.version, version);
  assert.equal(result.tokens, expectedTokens);
  // The same surface as in Node: no init() or other glue to call first.
  assert.deepEqual(result.exports, Object.keys(kram).sort());
  assert.equal(result.error.isTypeError, true);
  assert.match(result.error.message, /messages/);
});
