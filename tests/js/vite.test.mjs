// A Vite app importing the package as installed from its tarball (so Vite
// treats it as a real dependency in node_modules), run in headless Chromium:
// the production build as it is, and the dev server with and without the
// README's optimizeDeps.exclude, on Vite 7 (which needs it) and Vite 8.
import assert from "node:assert/strict";
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import * as vite7 from "vite";
import * as vite8 from "vite-8";
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

/** The app's dev server on `vite`, with its own vite.config.js or with none. */
async function withDevServer(vite, configFile, work) {
  const server = await vite.createServer({ root: app.dir, configFile, logLevel: "warn", server: { host: "127.0.0.1" } });
  await server.listen();
  try {
    return await work(server.resolvedUrls.local[0]);
  } finally {
    await server.close();
  }
}

/** A production build of the app by `vite` into dist-NAME, served and loaded. */
async function loadBuild(vite, name) {
  const outDir = join(app.dir, `dist-${name}`);
  await vite.build({ root: app.dir, configFile: false, logLevel: "warn", build: { outDir, emptyOutDir: true } });
  const { server, url } = await serveStatic({ "/": outDir });
  try {
    return await loadResult(browser, url);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

const fromVite = (messages) => messages.filter((m) => !m.startsWith("debug: [vite]"));

test("Vite 7: a production build runs, the .wasm emitted as an asset", async () => {
  assert.match(vite7.version, /^7\./);
  const { result, messages } = await loadBuild(vite7, "7");
  assert.deepEqual(messages, []);
  assert.deepEqual(result, expected);
});

test("Vite 7: the dev server runs the app with optimizeDeps.exclude", async () => {
  await withDevServer(vite7, join(app.dir, "vite.config.js"), async (url) => {
    const { result, messages } = await loadResult(browser, url);
    assert.deepEqual(fromVite(messages), []);
    assert.deepEqual(result, expected);
  });
});

test("Vite 7: without the exclude the dev server's pre-bundling loses the .wasm", async () => {
  await withDevServer(vite7, false, async (url) => {
    await assert.rejects(loadResult(browser, url), /never got ready/);
  });
});

test("Vite 8: a production build runs, and the dev server runs the app with no config at all", async () => {
  assert.match(vite8.version, /^8\./);
  const built = await loadBuild(vite8, "8");
  assert.deepEqual(built.messages, []);
  assert.deepEqual(built.result, expected);
  await withDevServer(vite8, false, async (url) => {
    const { result, messages } = await loadResult(browser, url);
    assert.deepEqual(fromVite(messages), []);
    assert.deepEqual(result, expected);
  });
});
