// The package bundled for the browser by esbuild and by Rollup, installed
// from its tarball, each build loaded in headless Chromium, with the set-up
// the README gives and without it (vite.test.mjs covers Vite). The app is the
// Vite test's, which is plain ESM importing the package by its name.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { before, after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { nodeResolve } from "@rollup/plugin-node-resolve";
import { importMetaAssets } from "@web/rollup-plugin-import-meta-assets";
import { rollup } from "rollup";
import { estimateTokens } from "kram-compaction";
import { browserSession, loadResult } from "./support/browser.mjs";
import { installPacked } from "./support/packed.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const { version } = JSON.parse(readFileSync(join(root, "pkg", "package.json"), "utf8"));
const expected = { version, tokens: estimateTokens([{ role: "user", content: "Fix the failing test" }]), pruned: 1 };
const session = browserSession();
let app;

before(() => {
  app = installPacked("kram-bundlers-");
  cpSync(join(root, "tests", "browser", "vite-app", "main.js"), join(app.dir, "main.js"));
});
after(() => app?.remove());

/** Serves `outDir` with the app's page in it and loads that page. */
async function loadBuilt(outDir) {
  cpSync(join(root, "tests", "browser", "vite-app", "index.html"), join(outDir, "index.html"));
  return loadResult(session.browser, await session.serve({ "/": outDir }));
}

/** The esbuild command line of the README, run in the app. */
function esbuild(outDir, ...args) {
  return execFileSync(join(root, "node_modules", ".bin", "esbuild"), ["main.js", "--bundle", ...args, `--outdir=${outDir}`, "--log-level=error"], {
    cwd: app.dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** A Rollup build of the app as the README configures it, with `plugins` after node-resolve. */
async function rollupBuild(outDir, plugins) {
  const bundle = await rollup({ input: join(app.dir, "main.js"), plugins: [nodeResolve({ browser: true }), ...plugins], logLevel: "silent" });
  await bundle.write({ dir: outDir, format: "es" });
  await bundle.close();
}

test("esbuild --format=esm with the .wasm copied beside the bundle runs", async () => {
  const outDir = join(app.dir, "esbuild");
  esbuild(outDir, "--format=esm");
  cpSync(join(app.dir, "node_modules", "kram-compaction", "dist", "kram_compaction_bg.wasm"), join(outDir, "kram_compaction_bg.wasm"));
  const { result, messages } = await loadBuilt(outDir);
  assert.deepEqual(messages, []);
  assert.deepEqual(result, expected);
});

test("esbuild: the default format refuses the top-level await, and without the copy the .wasm is not found", async () => {
  assert.throws(() => esbuild(join(app.dir, "esbuild-iife")), /Top-level await is currently not supported with the "iife" output format/);
  const outDir = join(app.dir, "esbuild-no-copy");
  esbuild(outDir, "--format=esm");
  await assert.rejects(loadBuilt(outDir), /status 404: \S+kram_compaction_bg\.wasm/);
});

test("Rollup with node-resolve and @web/rollup-plugin-import-meta-assets emits the .wasm and runs", async () => {
  const outDir = join(app.dir, "rollup");
  await rollupBuild(outDir, [importMetaAssets()]);
  const { result, messages } = await loadBuilt(outDir);
  assert.deepEqual(messages, []);
  assert.deepEqual(result, expected);
});

test("Rollup without the assets plugin leaves the .wasm behind", async () => {
  const outDir = join(app.dir, "rollup-no-assets");
  await rollupBuild(outDir, []);
  await assert.rejects(loadBuilt(outDir), /status 404: \S+kram_compaction_bg\.wasm/);
});
