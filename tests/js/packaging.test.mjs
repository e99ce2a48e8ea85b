// The package as users install it: `npm pack`, installed from the tarball
// into a fresh project outside the repository, then used from Node ESM, Node
// CJS, Deno (npm: specifier and path import, type-checked) and its bin.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { installPacked } from "./support/packed.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const { version } = JSON.parse(readFileSync(join(root, "pkg", "package.json"), "utf8"));
const deno = join(root, "node_modules", ".bin", "deno");
let project;

before(() => {
  project = installPacked();
});
after(() => project?.remove());

/**
 * Runs a command in the project and returns its stdout; fails on a non-zero
 * exit and on any stderr line that `quiet` does not allow.
 */
function run(command, args, { env = {}, quiet = /^$/ } = {}) {
  const done = spawnSync(command, args, { cwd: project.dir, encoding: "utf8", env: { ...process.env, ...env } });
  assert.equal(done.status, 0, `${command} ${args.join(" ")}: ${done.stderr}`);
  assert.deepEqual(done.stderr.split("\n").filter((line) => !quiet.test(line)), [], `${command} wrote to stderr`);
  return done.stdout.trim();
}

test("the tarball holds the package and nothing else", () => {
  const files = execFileSync("tar", ["-tzf", project.tarball], { encoding: "utf8" }).trim().split("\n").sort();
  for (const file of ["package.json", "README.md", "LICENSE", "bin/kram-compact.mjs", "dist/node.cjs", "dist/node.mjs", "dist/web.mjs", "dist/edge.mjs", "dist/init.mjs", "dist/kram_compaction_bg.wasm", "dist/types/index.d.ts", "dist/types/index.d.cts", "dist/types/init.d.ts"]) {
    assert.ok(files.includes(`package/${file}`), `${file} missing from ${files.join(", ")}`);
  }
  assert.deepEqual(files.filter((f) => !/^package\/(package\.json|README\.md|LICENSE|bin\/|data\/|dist\/)/.test(f)), []);
});

test("Node ESM imports the installed package", () => {
  writeFileSync(join(project.dir, "esm.mjs"), 'import { estimateTokens, VERSION } from "kram-compaction";\nconsole.log(VERSION, estimateTokens([{ role: "user", content: "hi" }]));\n');
  const [v, tokens] = run("node", ["esm.mjs"]).split(" ");
  assert.equal(v, version);
  assert.ok(Number(tokens) > 0);
});

test("Node CJS requires the installed package, the same instance as import", () => {
  writeFileSync(
    join(project.dir, "cjs.cjs"),
    'const kram = require("kram-compaction");\nimport("kram-compaction").then((esm) => console.log(kram.VERSION, esm.estimateTokens === kram.estimateTokens));\n',
  );
  assert.equal(run("node", ["cjs.cjs"]), `${version} true`);
});

test("Deno loads the installed package via npm: and via its entry's path, type-checked, without warnings", () => {
  writeFileSync(
    join(project.dir, "deno.test.ts"),
    [
      // No node:assert here: type-checking it would need @types/node installed.
      'import * as viaNpm from "npm:kram-compaction";',
      'import * as viaPath from "./node_modules/kram-compaction/dist/web.mjs";',
      'const messages: viaNpm.Message[] = [{ role: "user", content: "hi" }];',
      'Deno.test("both imports work", () => {',
      `  if (viaNpm.VERSION !== ${JSON.stringify(version)}) throw new Error(viaNpm.VERSION);`,
      "  const [a, b] = [viaPath.estimateTokens(messages), viaNpm.estimateTokens(messages)];",
      "  if (!(a > 0 && a === b)) throw new Error(`${a} ${b}`);",
      "});",
      "",
    ].join("\n"),
  );
  const env = { DENO_DIR: join(root, "target", "deno"), DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" };
  // Deno reports "Check FILE" on stderr; anything else there is a warning.
  const out = run(deno, ["test", "--allow-read", "deno.test.ts"], { env, quiet: /^(Check \S+)?$/ });
  assert.match(out, /ok \| 1 passed \| 0 failed/);
});

test("the kram-compact bin runs", () => {
  assert.equal(run("npx", ["--no-install", "kram-compact", "--version"]), version);
});
