// Builds the npm package in pkg/ from the crate and the TypeScript glue in js/:
// cargo (release, wasm32) -> wasm-bindgen (the web glue, which every entry
// bundles, and the nodejs target's declarations; their lists and defaults,
// and js/constants.ts's, filled by a native run of examples/ts_lists.rs)
// -> wasm-opt -Oz (npm binaryen, never Debian's) -> the import names'
// hashes taken off (scripts/import-names.mjs) -> esbuild bundles -> tsc
// declarations.
// Everything it writes is generated and gitignored: pkg/dist/, pkg/README.md and pkg/LICENSE.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";
import { renameInGlue, shortenImportNames } from "./import-names.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const at = (...parts) => join(root, ...parts);
const bin = (name) => at("node_modules", ".bin", name);
const crate = "kram_compaction";
const dist = at("pkg", "dist");
const bindgen = at("target", "bindgen");
const started = Date.now();

function run(command, args, env = {}) {
  execFileSync(command, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
}

async function step(name, work) {
  const t = Date.now();
  const result = await work();
  console.log(`build: ${name} ${((Date.now() - t) / 1000).toFixed(1)}s`);
  return result;
}

const { version } = JSON.parse(readFileSync(at("pkg", "package.json"), "utf8"));

// The module's std is built here from Rust's sources (`-Zbuild-std`, the
// rust-src component scripts/setup.sh adds) with `-Cpanic=immediate-abort`:
// a panic (a bug: bad input is refused by checks) is then the bare trap
// `RuntimeError: unreachable`, with none of std's panic machinery (its
// handler, hook, payloads and their formatting): 2.7 KB of the gzipped
// budget, which the speed work needed. `-Zlocation-detail=none` leaves out
// the file, line and column of every place that could panic. Both are
// unstable flags, which the machine's stable Rust accepts with
// RUSTC_BOOTSTRAP, as scripts/fuzz.sh's flags are; native builds (the
// tests, the fuzzer) keep the panic's message and place.
const wasmFlags = {
  RUSTC_BOOTSTRAP: "1",
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS: "-Zlocation-detail=none -Zunstable-options -Cpanic=immediate-abort",
};
// std built as rustup ships it, at opt-level 3, where the crate's own
// "z" would apply: std at "z" made `estimateTokens` 1.14× and pruning
// 1.08× slower (its slices, strings and copies are the inner loops).
const stdAtFullSpeed = ["core", "alloc", "std", "compiler_builtins"].flatMap((name) => [
  "--config",
  `profile.release.package.${name}.opt-level=3`,
]);
await step("cargo", () =>
  run(
    "cargo",
    ["build", "--release", "--target", "wasm32-unknown-unknown", "--lib", "-Zbuild-std=std,panic_abort", ...stdAtFullSpeed],
    wasmFlags,
  ),
);
const rawWasm = at("target", "wasm32-unknown-unknown", "release", `${crate}.wasm`);

const rustLists = JSON.parse(
  execFileSync("cargo", ["run", "--quiet", "--example", "ts_lists"], { cwd: root, encoding: "utf8" }),
);
// js/constants.ts's names, each the ts_lists entry it is written from.
const rustConstants = {
  __KRAM_COMPACTION_MARKER_NAME__: "COMPACTION_MARKER_NAME",
  __KRAM_MESSAGE_FORMATS__: "MessageFormat",
  __KRAM_DEFAULT_MAX_TOKENS__: "DEFAULT_MAX_TOKENS",
};

await step("wasm-bindgen", () => {
  // The nodejs target for its declarations only: the web target's add its init's.
  for (const target of ["nodejs", "web"]) {
    const out = join(bindgen, target === "nodejs" ? "node" : "web");
    rmSync(out, { recursive: true, force: true });
    run("wasm-bindgen", ["--target", target, "--out-dir", out, rawWasm]);
  }
  // js/*.ts see the wasm exports as ./wasm.js (tsconfig rootDirs). The
  // classes' `[Symbol.dispose]()` is dropped from the types: it needs the
  // esnext.disposable lib, which a user's tsconfig may lack (the method stays
  // in the JS, where the glue adds it only when Symbol.dispose exists).
  mkdirSync(join(bindgen, "types"), { recursive: true });
  const types = readFileSync(join(bindgen, "node", `${crate}.d.ts`), "utf8");
  writeFileSync(
    join(bindgen, "types", "wasm.d.ts"),
    fillRustLists(types.replace(/^\s*\[Symbol\.dispose\]\(\): void;\n/gm, "")),
  );
});

/**
 * The declarations in src/bindings/*.rs name the lists and defaults Rust
 * decides as `{{name}}` (a format's name, a `kind`, an option's default);
 * each is filled here from what `examples/ts_lists.rs` reads of the Rust
 * items themselves. It runs natively, so the `.wasm` carries none of it. A
 * list becomes a union of string literals, a number is written as the docs
 * write numbers (`40,000`), a string as a literal, and `{ typescript }` as
 * the TypeScript it holds.
 */
function fillRustLists(text) {
  const unused = new Set(Object.keys(rustLists).filter((name) => !Object.values(rustConstants).includes(name)));
  const filled = text.replace(/\{\{(\w+)\}\}/g, (_, name) => {
    if (!(name in rustLists)) throw new Error(`build: {{${name}}} in the declarations, but examples/ts_lists.rs prints no ${name}`);
    unused.delete(name);
    const value = rustLists[name];
    if (Array.isArray(value)) return value.map((item) => JSON.stringify(item)).join(" | ");
    if (typeof value === "number") return value.toLocaleString("en-US");
    if (typeof value?.typescript === "string") return value.typescript;
    return JSON.stringify(value);
  });
  // A name printed but never used is a default the declarations forgot.
  if (unused.size > 0) throw new Error(`build: examples/ts_lists.rs prints ${[...unused].join(", ")}, which no declaration names`);
  return filled;
}

// Both targets' glue load the very same module, so one optimised .wasm serves them.
const bindgenWasm = join(bindgen, "node", `${crate}_bg.wasm`);
if (!readFileSync(bindgenWasm).equals(readFileSync(join(bindgen, "web", `${crate}_bg.wasm`)))) {
  throw new Error("the nodejs and web targets produced different .wasm files");
}

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
const wasmOut = join(dist, `${crate}_bg.wasm`);

/**
 * The folder target/build-cache/NAME/KEY, filled by `fill(folder)` only when
 * it is not there yet: steps whose inputs did not change cost nothing.
 */
function cached(name, key, fill) {
  const base = at("target", "build-cache", name);
  const folder = join(base, key);
  if (!existsSync(folder)) {
    rmSync(base, { recursive: true, force: true }); // only the newest is worth keeping
    mkdirSync(`${folder}.tmp`, { recursive: true });
    fill(`${folder}.tmp`);
    renameSync(`${folder}.tmp`, folder);
  }
  return folder;
}

const hashOf = (...files) => {
  const hash = createHash("sha256");
  for (const file of files) hash.update(file).update(readFileSync(file));
  return hash.digest("hex").slice(0, 16);
};

await step("wasm-opt", () => {
  // --converge and the strip flags: 0.2 KB gzipped less than -Oz alone. The
  // two memory flags (0.7 KB) hold for a wasm-bindgen module: Rust places
  // nothing in the first 1 KB of memory, and the module's own memory starts
  // zeroed. The control flow flattened and rebuilt between two rounds of -Oz
  // (--flatten --rereloop): 0.27 KB gzipped less, 2.5 KB raw, at the same
  // speed (every history function within 5% in one process, 2026-12-06).
  // Twice so, then -Oz twice more: 0.45 KB gzipped less again, as
  // --converge stops once the raw size stops shrinking (more rounds of
  // either gave no more; 2026-12-06).
  const flatten = ["--flatten", "--rereloop", "-Oz"];
  const flags = ["-Oz", ...flatten, ...flatten, "-Oz", "-Oz", "--converge", "--low-memory-unused", "--zero-filled-memory", "--strip-producers", "--strip-debug"];
  const key = createHash("sha256").update(hashOf(bindgenWasm)).update(flags.join(" ")).digest("hex").slice(0, 16);
  const folder = cached("wasm-opt", key, (out) =>
    run(bin("wasm-opt"), [...flags, bindgenWasm, "-o", join(out, `${crate}_bg.wasm`)]),
  );
  cpSync(join(folder, `${crate}_bg.wasm`), wasmOut);
});

await step("import names", () => {
  // Off with the hashes wasm-bindgen puts in the import names: 0.55 KB
  // gzipped (scripts/import-names.mjs says why), in the module and the glue.
  const { wasm, renames } = shortenImportNames(readFileSync(wasmOut));
  writeFileSync(wasmOut, wasm);
  const glue = join(bindgen, "web", `${crate}.js`);
  writeFileSync(glue, renameInGlue(readFileSync(glue, "utf8"), renames));
});

/** Maps `./wasm.js`, imported by js/*.ts, to the glue of one target, its text changed by `edit`. */
const wasmGlue = (file, edit = (text) => text) => ({
  name: "wasm-glue",
  setup(build) {
    build.onResolve({ filter: /^\.\/wasm\.js$/ }, () => ({ path: file }));
    build.onLoad({ filter: /kram_compaction\.js$/ }, (args) => ({
      contents: edit(readFileSync(args.path, "utf8")),
      resolveDir: dirname(args.path),
      loader: "js",
    }));
  },
});

/**
 * The web glue as the Node entry uses it: its `wasm` starts as a stand-in
 * that, on the first read of any export, compiles and instantiates the .wasm
 * beside the bundle (initSync puts the real exports in its place). Compiling
 * was most of what a `require` cost; now the first call pays it. A failure
 * (a missing file) is thrown by that call and by each next one, as it was by
 * each `require`. The glue is ES modules, so esbuild joins it to js/*.ts
 * with no CommonJS wrappers, whose export copies also cost at load.
 */
function compileOnFirstUse(glue) {
  const declaration = "let wasmModule, wasmInstance, wasm;";
  if (!glue.includes(declaration)) throw new Error(`build: the web glue no longer declares \`${declaration}\``);
  return decoderOnFirstUse(glue).replace(
    declaration,
    `const wasmOnFirstUse = new Proxy({}, {
    get(_, name) {
        wasm = undefined;
        try {
            return initSync({ module: require("node:fs").readFileSync(__dirname + "/kram_compaction_bg.wasm") })[name];
        } catch (error) {
            wasm = wasmOnFirstUse;
            throw error;
        }
    },
});
let wasmModule, wasmInstance, wasm = wasmOnFirstUse;`,
  );
}

/**
 * The glue makes its TextDecoder (and decodes nothing once) as it loads:
 * about 0.35 ms of each `require` in Node 20, for the first string the
 * module hands to JS, which many programs never ask for. Made by the first
 * decode instead, in the same way.
 */
function decoderOnFirstUse(glue) {
  const made = "let cachedTextDecoder = new TextDecoder('utf-8', { ignoreBOM: true });\ncachedTextDecoder.decode();";
  if (!glue.includes(made)) throw new Error(`build: the web glue no longer makes its TextDecoder as \`${made}\``);
  return glue.replace(
    made,
    `let cachedTextDecoder = {
    decode(bytes) {
        cachedTextDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
        cachedTextDecoder.decode();
        return cachedTextDecoder.decode(bytes);
    },
};`,
  );
}

await step("esbuild", async () => {
  const common = {
    entryPoints: [at("js", "index.ts")],
    bundle: true,
    target: "es2022",
    legalComments: "none",
    logLevel: "warning",
    // wasm-bindgen's glue names the guarded.js snippet once per import it
    // takes from it, each time the same module: a duplicate key, not a bug.
    logOverride: { "duplicate-object-key": "silent" },
    define: {
      __KRAM_VERSION__: JSON.stringify(version),
      ...Object.fromEntries(Object.entries(rustConstants).map(([name, list]) => [name, JSON.stringify(rustLists[list])])),
    },
  };
  // Node, CommonJS: the web glue, which compiles and instantiates the .wasm
  // synchronously on the first call that needs it (compileOnFirstUse).
  await esbuild.build({
    ...common,
    platform: "node",
    format: "cjs",
    outfile: join(dist, "node.cjs"),
    plugins: [wasmGlue(join(bindgen, "web", `${crate}.js`), compileOnFirstUse)],
    // import.meta is read only by the glue's async init, which nothing here
    // calls: esbuild drops it, after warning. The check below proves it gone.
    logOverride: { ...common.logOverride, "empty-import-meta": "silent" },
  });
  if (readFileSync(join(dist, "node.cjs"), "utf8").includes("import_meta")) {
    throw new Error("build: node.cjs reads import.meta, which is empty in CommonJS");
  }
  // Browsers, Deno, bundlers: ESM over the web glue, top-level await init.
  await esbuild.build({
    ...common,
    platform: "neutral",
    format: "esm",
    outfile: join(dist, "web.mjs"),
    plugins: [wasmGlue(at("scripts", "wasm-shims", "web.mjs"))],
  });
  // kram-compaction/init: initSync({ module }) instantiates the web glue from
  // a module or bytes the caller has, then returns the API (the shim says why).
  await esbuild.build({
    ...common,
    entryPoints: [at("scripts", "wasm-shims", "init.mjs")],
    platform: "neutral",
    format: "esm",
    outfile: join(dist, "init.mjs"),
    plugins: [wasmGlue(join(bindgen, "web", `${crate}.js`))],
  });
  // Node, ESM: re-exports the CommonJS entry, so import and require share one
  // module instance. The names are read from that entry, never listed by hand.
  // It imports node.cjs through a two-line file: Node's ES module loader scans
  // every CommonJS file it imports for export names (cjs-module-lexer, in JS),
  // which took about 25 ms over node.cjs; a `require` inside is not scanned.
  // `module.exports = require(...)` would be followed and scanned.
  const names = Object.keys(createRequire(import.meta.url)(join(dist, "node.cjs"))).sort();
  const exportList = `export const {\n${names.map((n) => `  ${n},\n`).join("")}}`;
  writeFileSync(join(dist, "node-esm.cjs"), `const api = require("./node.cjs");\nmodule.exports = api;\n`);
  writeFileSync(
    join(dist, "node.mjs"),
    `// Node ESM entry: the same instance as require("kram-compaction").\n` +
      `import cjs from "./node-esm.cjs";\n\n` +
      `${exportList} = cjs;\n`,
  );
  // Workers (workerd) and edge functions (edge-light): their bundlers turn a
  // `.wasm?module` import into a compiled WebAssembly.Module (wrangler and
  // Vercel alike), and nothing here reads import.meta or awaits at the top.
  writeFileSync(
    join(dist, "edge.mjs"),
    `// Workers and edge functions entry: the runtime's bundler hands in the compiled\n` +
      `// module; the same instance as kram-compaction/init.\n` +
      `import module from "./${crate}_bg.wasm?module";\n` +
      `import { initSync } from "./init.mjs";\n\n` +
      `${exportList} = initSync({ module });\n`,
  );
});

await step("tsc", () => {
  const tsc = at("node_modules", "typescript", "bin", "tsc");
  const sources = readdirSync(at("js")).filter((f) => f.endsWith(".ts")).sort().map((f) => at("js", f));
  const wasmTypes = join(bindgen, "types", "wasm.d.ts");
  const key = hashOf(at("tsconfig.json"), at("node_modules", "typescript", "package.json"), wasmTypes, ...sources);
  const folder = cached("types", key, (types) => {
    // Declarations of js/*.ts plus the wasm-bindgen types they re-export.
    run(process.execPath, [tsc, "-p", at("tsconfig.json"), "--outDir", types]);
    cpSync(wasmTypes, join(types, "wasm.d.ts"));
    // pkg is "type": "module", so these are ES module types. `require` users
    // (TypeScript's node16 mode) need CommonJS ones: the same text as .d.cts
    // files whose relative imports name the .d.cts siblings.
    for (const file of readdirSync(types).filter((f) => f.endsWith(".d.ts"))) {
      const text = readFileSync(join(types, file), "utf8").replace(/(["']\.\.?\/[^"']*)\.js(["'])/g, "$1.cjs$2");
      writeFileSync(join(types, file.replace(/\.d\.ts$/, ".d.cts")), text);
    }
  });
  cpSync(folder, join(dist, "types"), { recursive: true });
  cpSync(at("scripts", "wasm-shims", "init.d.ts"), join(dist, "types", "init.d.ts"));
});

cpSync(at("README.md"), at("pkg", "README.md"));
cpSync(at("LICENSE"), at("pkg", "LICENSE"));

const wasmBytes = readFileSync(wasmOut);
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log(
  `build: ${crate}_bg.wasm ${kb(wasmBytes.length)} raw, ${kb(gzipSync(wasmBytes, { level: 9 }).length)} gzipped ` +
    `(budget 250 KB raw, 90 KB gzipped; before wasm-opt ${kb(statSync(bindgenWasm).size)})`,
);
console.log(`build: kram-compaction ${version} in pkg/ (${((Date.now() - started) / 1000).toFixed(1)}s)`);
