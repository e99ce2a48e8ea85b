// A Vite app importing the package as installed from its tarball (so Vite
// treats it as a real dependency in node_modules), run in headless Chromium:
// the production build as it is, and the dev server with and without the
// README's optimizeDeps.exclude.
import assert from "node:assert/strict";
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { build, createServer } from "vite";
import { estimateTokens } from "kram-compaction";
import { serveStatic } from "../../scripts/static-server.mjs";
import { launchChromium, loadResult } from "./support/browser.mjs";
import { installPacked } from "./support/packed.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const { version } = JSON.parse(readFileSync(join(root, "pkg", "package.json"), "utf8"));
const expected = { version, tokens: estimateTokens([{ role: "user", content: "Fix the failing test" }]), pruned: 1 };
let browser, app;

before(async () => {
  app = installPacked("kram-vite-");
  cpSync(join(root, "tests", "browser", "vite-app"), app.dir, { recursive: true });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  app?.remove();
});

/** The app's dev server, with its own vite.config.js or with none. */
async function withDevServer(configFile, work) {
  const server = await createServer({ root: app.dir, configFile, logLevel: "warn", server: { host: "127.0.0.1" } });
  await server.listen();
  try {
    return await work(server.resolvedUrls.local[0]);
  } finally {
    await server.close();
  }
}

test("a production build runs, the .wasm emitted as an asset", async () => {
  const outDir = join(app.dir, "dist");
  await build({ root: app.dir, logLevel: "warn", build: { outDir, emptyOutDir: true } });
  const { server, url } = await serveStatic({ "/": outDir });
  try {
    const { result, messages } = await loadResult(browser, url);
    assert.deepEqual(messages, []);
    assert.deepEqual(result, expected);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test("the dev server runs the app with optimizeDeps.exclude", async () => {
  await withDevServer(join(app.dir, "vite.config.js"), async (url) => {
    const { result, messages } = await loadResult(browser, url);
    assert.deepEqual(messages.filter((m) => !m.startsWith("debug: [vite]")), []);
    assert.deepEqual(result, expected);
  });
});

test("without the exclude the dev server's pre-bundling loses the .wasm", async () => {
  await withDevServer(false, async (url) => {
    await assert.rejects(loadResult(browser, url), /never got ready/);
  });
});
