// The package in Cloudflare's workerd and Vercel's edge-runtime, installed
// from its tarball: a Worker bundled by wrangler and run by Miniflare, and an
// edge function bundled with Next.js's edge conditions and run by EdgeRuntime.
// Both resolve the `workerd`/`edge-light` entry, which imports the .wasm as a
// compiled module (compiled in the function's realm, as deployed, or in
// Node's, as the local dev servers do). Also `kram-compaction/init` in Node.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import { EdgeRuntime } from "edge-runtime";
import { Miniflare } from "miniflare";
import * as kram from "kram-compaction";
import { installPacked } from "./support/packed.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const history = JSON.parse(readFileSync(join(root, "pkg", "data", "sample-session.json"), "utf8"));
/** What each runtime answers for a history: `kram` is the package as imported there. */
const answers = (kram, history) => ({
  version: kram.VERSION,
  tokens: kram.estimateTokens(history),
  kept: kram.emergencyPrune(history, 30000),
  pruned: kram.pruneForModel(history).map((m) => kram.estimateTokens([m])),
});
// The Node entry's answers, as JSON carries them; every runtime must give the same.
const expected = JSON.parse(JSON.stringify(answers(kram, history)));
// The code both runtimes run: the same function, over the package as they resolve it.
const answerCode = `import * as kram from "kram-compaction";\nconst answers = ${answers};\nconst answer = (history) => Response.json(answers(kram, history));\n`;
const post = { method: "POST", body: JSON.stringify(history) };
let project;

before(() => {
  project = installPacked("kram-edge-");
});
after(() => project?.remove());

test("a Worker bundled by wrangler runs in workerd (Miniflare) and answers as Node does", async () => {
  writeFileSync(
    join(project.dir, "worker.js"),
    `${answerCode}export default { async fetch(request) { return answer(await request.json()); } };\n`,
  );
  writeFileSync(join(project.dir, "wrangler.toml"), 'name = "kram-test"\nmain = "worker.js"\ncompatibility_date = "2026-04-01"\n');
  const wrangler = spawnSync(join(root, "node_modules", ".bin", "wrangler"), ["deploy", "--dry-run", "--outdir", "out"], {
    cwd: project.dir,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1", NO_COLOR: "1" },
  });
  assert.equal(wrangler.status, 0, wrangler.stderr + wrangler.stdout);
  const bundle = readFileSync(join(project.dir, "out", "worker.js"), "utf8");
  // wrangler took the workerd entry: the .wasm is a module of the upload, not a URL.
  assert.match(bundle, /^import \w+ from "\.\/\w+-kram_compaction_bg\.wasm";$/m);
  assert.doesNotMatch(bundle, /import\.meta/);

  const out = join(project.dir, "out");
  const mf = new Miniflare({
    host: "127.0.0.1",
    modules: true,
    modulesRoot: out,
    scriptPath: join(out, "worker.js"),
    modulesRules: [{ type: "CompiledWasm", include: ["**/*.wasm"] }],
  });
  try {
    const response = await mf.dispatchFetch("http://localhost/", post);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), expected);
  } finally {
    await mf.dispose();
  }
});

/**
 * The edge function, bundled: Vercel's edge build turns
 * `import m from "x.wasm?module"` into a global holding the compiled module
 * (@vercel/node's edge-wasm-plugin), and Next.js resolves packages with the
 * conditions edge-light, worker, then the defaults. Resolves to the script and
 * the .wasm file behind each such global.
 */
async function bundleEdgeFunction() {
  writeFileSync(
    join(project.dir, "function.js"),
    `${answerCode}addEventListener("fetch", (event) => event.respondWith(event.request.json().then(answer)));\n`,
  );
  const wasmFiles = new Map();
  const wasmModules = {
    name: "wasm-module",
    setup(build) {
      build.onResolve({ filter: /\.wasm\?module$/ }, async (args) => {
        const file = await build.resolve(args.path.replace(/\?module$/, ""), { resolveDir: args.resolveDir, kind: "import-statement" });
        const name = `wasm_${wasmFiles.size}`;
        wasmFiles.set(name, file.path);
        return { path: name, namespace: "wasm-module" };
      });
      build.onLoad({ filter: /.*/, namespace: "wasm-module" }, (args) => ({
        contents: `export default globalThis[${JSON.stringify(args.path)}];`,
        loader: "js",
      }));
    },
  };
  const built = await esbuild.build({
    entryPoints: [join(project.dir, "function.js")],
    absWorkingDir: project.dir,
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    conditions: ["edge-light", "worker"],
    logLevel: "silent",
    plugins: [wasmModules],
  });
  assert.deepEqual([...wasmFiles.values()], [join(project.dir, "node_modules", "kram-compaction", "dist", "kram_compaction_bg.wasm")]);
  return { script: built.outputFiles[0].text, wasmFiles };
}

/** Runs `runtime` on the posted history and checks its answers against Node's. */
async function assertAnswers(runtime) {
  const response = await runtime.dispatchFetch("http://localhost/", post);
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), expected);
}

test("an edge function runs in edge-runtime, its .wasm compiled in the function's realm as a deployed one is", async () => {
  const { script, wasmFiles } = await bundleEdgeFunction();
  const runtime = new EdgeRuntime();
  const RuntimeWasm = runtime.evaluate("WebAssembly");
  for (const [name, file] of wasmFiles) runtime.context[name] = new RuntimeWasm.Module(readFileSync(file));
  runtime.evaluate(script);
  await assertAnswers(runtime);
});

test("an edge function runs in edge-runtime, its .wasm compiled by Node as vercel dev and next dev do", async () => {
  const { script, wasmFiles } = await bundleEdgeFunction();
  // As @vercel/node's edge handler and Next.js's edge sandbox: WebAssembly.compile
  // in Node, the modules assigned to the context in `extend`.
  const modules = {};
  for (const [name, file] of wasmFiles) modules[name] = await WebAssembly.compile(readFileSync(file));
  const runtime = new EdgeRuntime({ initialCode: script, extend: (context) => Object.assign(context, modules) });
  await assertAnswers(runtime);
});

test("kram-compaction/init: initSync({ module }) from the file's bytes returns the API, once", async () => {
  // Resolved through the installed package's exports map, as a user's import is.
  const resolve = createRequire(join(project.dir, "index.js")).resolve;
  const { initSync } = await import(pathToFileURL(resolve("kram-compaction/init")));
  const bytes = readFileSync(resolve("kram-compaction/kram_compaction_bg.wasm"));
  assert.throws(() => initSync({ module: { not: "a module" } }), TypeError);
  const api = initSync({ module: bytes });
  assert.notEqual(api.estimateTokens, kram.estimateTokens, "a module of its own, not the Node entry");
  assert.deepEqual(Object.keys(api).sort(), Object.keys(kram).sort());
  assert.deepEqual(answers(api, history), answers(kram, history));
  assert.equal(initSync({ module: new WebAssembly.Module(bytes) }), api);
});
