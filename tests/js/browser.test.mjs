// The built package in real headless Chromium: a plain module script and the
// www page (vite.test.mjs covers Vite). Every page must load without a console
// warning or error.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { serveStatic } from "../../scripts/static-server.mjs";
import { launchChromium, loadResult } from "./support/browser.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const { version } = JSON.parse(readFileSync(join(root, "pkg", "package.json"), "utf8"));
const kram = await import("kram-compaction");
const expectedTokens = kram.estimateTokens([{ role: "user", content: "Fix the failing test" }]);
let browser;
const cleanups = [];

before(async () => {
  browser = await launchChromium();
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await browser?.close();
});

async function serve(mounts) {
  const { server, url } = await serveStatic(mounts);
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return url;
}

test("a plain <script type=module> page imports the package", async () => {
  const url = await serve({ "/": join(root, "tests", "browser", "plain"), "/pkg/dist/": join(root, "pkg", "dist") });
  const { result, messages } = await loadResult(browser, url);
  assert.deepEqual(messages, []);
  assert.equal(result.version, version);
  assert.equal(result.tokens, expectedTokens);
  // The same surface as in Node: no init() or other glue to call first.
  assert.deepEqual(result.exports, Object.keys(kram).sort());
  assert.equal(result.error.isTypeError, true);
  assert.match(result.error.message, /messages/);
});

test("the www page shows the version and an estimate", async () => {
  const url = await serve({ "/": join(root, "www"), "/pkg/dist/": join(root, "pkg", "dist") });
  const shown = () => document.getElementById("version")?.textContent !== "…";
  const { page, messages } = await loadResult(browser, url, shown);
  assert.equal(await page.textContent("#version"), version);
  const tokens = Number(await page.textContent("#tokens"));
  assert.ok(tokens > 0, `tokens shown: ${tokens}`);
  assert.deepEqual(messages, []);
  await page.close();
});
