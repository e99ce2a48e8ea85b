// Writes pkg/data/sample-session.json: the embedded sample session that
// `kram-compact` (and so `npm start`) runs on when it is given no file.
//
// A long coding-agent session in OpenAI Chat format: an agent works in a
// checkout of postcss. Every file it reads, every grep hit and directory entry,
// the JSON it dumps and the CSS fixture are real text from packages in the
// repo's node_modules (postcss and playwright-core, pinned by package-lock.json);
// test logs, the diff and the tool-call ids are built from that text by a seeded
// generator, so the same lockfile always gives the same file. The turns
// themselves are in scripts/sample-session-story.mjs.
//
//   node scripts/make-sample-session.mjs [--check]
//
// `--check` writes nothing and exits 1 when the committed file differs.
import { readFileSync, readdirSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { rng } from "../tests/support/random.mjs";
import { story } from "./sample-session-story.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = join(ROOT, "pkg", "data", "sample-session.json");
const MODULES = join(ROOT, "node_modules");
const POSTCSS = join(MODULES, "postcss");
const REPORT_CSS = join(MODULES, "playwright-core", "lib", "vite", "htmlReport", "report.css");
const SEED = 20261101;
const require = createRequire(join(ROOT, "package.json"));

const random = rng(SEED);
const pick = (items) => items[Math.floor(random() * items.length)];

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
function callId() {
  let id = "call_";
  for (let i = 0; i < 24; i++) id += BASE62[Math.floor(random() * 62)];
  return id;
}

const source = (rel) => readFileSync(join(POSTCSS, rel), "utf8");
const postcssVersion = JSON.parse(source("package.json")).version;

/** A file as `cat -n` prints it, which is how the agent's read_file answers. */
function numbered(text) {
  return text
    .replace(/\n$/, "")
    .split("\n")
    .map((line, i) => `${String(i + 1).padStart(6)}\t${line}`)
    .join("\n");
}

function readFileTool(rel) {
  return numbered(source(rel));
}

const libFiles = () => readdirSync(join(POSTCSS, "lib")).sort();

/** `grep -rn PATTERN lib` over the real files. */
function grep(pattern, exts = [".js", ".d.ts"]) {
  const re = new RegExp(pattern);
  const hits = [];
  for (const name of libFiles()) {
    if (!exts.some((ext) => name.endsWith(ext))) continue;
    source(`lib/${name}`)
      .split("\n")
      .forEach((line, i) => {
        if (re.test(line)) hits.push(`lib/${name}:${i + 1}:${line}`);
      });
  }
  return hits.join("\n");
}

/** `ls -la lib` with the real sizes. */
function listDir() {
  const rows = libFiles().map((name) => {
    const size = statSync(join(POSTCSS, "lib", name)).size;
    return `-rw-r--r--  1 dev dev ${String(size).padStart(6)} Oct 28 14:02 ${name}`;
  });
  return [`total ${rows.length * 8}`, ...rows].join("\n");
}

/** The test names: one suite per class of lib/, one test per method. */
function testSuites() {
  const phrases = [
    "returns the node itself", "keeps raws when cloning", "works on an empty root",
    "preserves source positions", "handles comments", "supports custom properties",
    "is chainable", "throws on a missing semicolon", "copies the input source",
    "handles Windows line endings", "works with nested rules", "keeps the order of nodes",
    "handles an empty value", "works after a node is removed", "normalizes strings to nodes",
  ];
  const suites = [];
  for (const name of libFiles().filter((n) => n.endsWith(".js"))) {
    const text = source(`lib/${name}`);
    const cls = text.match(/^class (\w+)/m);
    if (!cls) continue;
    const methods = [...text.matchAll(/^  (?:static )?(\w+)\(/gm)]
      .map((m) => m[1])
      .filter((m) => m !== "constructor");
    const tests = [...new Set(methods)].flatMap((method) =>
      [0, 1].slice(0, 1 + Math.floor(random() * 2)).map(() => `${method}() ${pick(phrases)}`),
    );
    suites.push({ name: cls[1], file: name, tests: [...new Set(tests)] });
  }
  return suites;
}
const SUITES = testSuites();
const ms = () => (random() < 0.8 ? random() * 2 : random() * 30).toFixed(6);

/** Where a method starts in a lib file, for stack traces that point at real lines. */
function lineOf(rel, needle) {
  return source(rel).split("\n").findIndex((line) => line.includes(needle)) + 1;
}

/**
 * `node --test` with the spec reporter over every suite; `failing` names the
 * tests that fail, each with its assertion.
 */
function testLog(failing = {}) {
  const out = [];
  let pass = 0;
  let fail = 0;
  const failures = [];
  for (const suite of SUITES) {
    out.push(`▶ ${suite.name}`);
    const own = Object.keys(failing)
      .filter((key) => key.startsWith(`${suite.name} `))
      .map((key) => key.slice(suite.name.length + 1));
    for (const test of [...new Set([...suite.tests, ...own])]) {
      const key = `${suite.name} ${test}`;
      if (failing[key]) {
        fail++;
        out.push(`  ✖ ${test} (${ms()}ms)`);
        const detail = failing[key].split("\n").map((line) => `    ${line}`);
        out.push(...detail, "");
        failures.push(`✖ ${test} (${ms()}ms)`, ...detail);
      } else {
        pass++;
        out.push(`  ✔ ${test} (${ms()}ms)`);
      }
    }
    out.push(`▶ ${suite.name} (${(random() * 40 + 2).toFixed(6)}ms)`, "");
  }
  out.push(
    `ℹ tests ${pass + fail}`, `ℹ suites ${SUITES.length}`, `ℹ pass ${pass}`, `ℹ fail ${fail}`,
    "ℹ cancelled 0", "ℹ skipped 0", "ℹ todo 0", `ℹ duration_ms ${(random() * 900 + 600).toFixed(6)}`,
  );
  if (failures.length) out.push("", "✖ failing tests:", "", ...failures);
  return out.join("\n");
}

/**
 * Where each edit of a real file applies: it replaces `remove` lines from the
 * first line containing `from` (searched after the line containing `after`,
 * when given) by `to`.
 */
function locate(lines, edits) {
  return edits.map((edit) => {
    const from = edit.after ? lines.findIndex((line) => line.includes(edit.after)) : 0;
    const at = lines.findIndex((line, i) => i >= from && line.includes(edit.from));
    if (at < 0) throw new Error(`edit anchor not found: ${edit.from}`);
    return { ...edit, at };
  });
}

/** The file as it is after the edits. */
function patchedSource(rel, edits) {
  const lines = source(rel).split("\n");
  for (const { at, remove, to } of locate(lines, edits).reverse()) lines.splice(at, remove, ...to);
  return lines.join("\n");
}

/** The edits as `git diff` prints them, with three lines of context. */
function unifiedDiff(rel, edits) {
  const lines = source(rel).split("\n");
  const out = [`diff --git a/${rel} b/${rel}`, "index 3f9c2a1..8be07d4 100644", `--- a/${rel}`, `+++ b/${rel}`];
  let shift = 0;
  for (const { at, remove, to } of locate(lines, edits)) {
    const start = Math.max(0, at - 3);
    const end = Math.min(lines.length, at + remove + 3);
    const oldLen = end - start;
    const newLen = oldLen - remove + to.length;
    const fn = lines.slice(0, at).reverse().find((l) => /^  \w+\(.*\) \{$/.test(l)) ?? "";
    out.push(`@@ -${start + 1},${oldLen} +${start + 1 + shift},${newLen} @@ ${fn.trim()}`.trimEnd());
    out.push(...lines.slice(start, at).map((l) => ` ${l}`));
    out.push(...lines.slice(at, at + remove).map((l) => `-${l}`), ...to.map((l) => `+${l}`));
    out.push(...lines.slice(at + remove, end).map((l) => ` ${l}`));
    shift += to.length - remove;
  }
  return out.join("\n");
}

/**
 * The CSS fixture: the first rules of playwright-core's real report
 * stylesheet, pretty-printed by postcss itself (its default raws), with the
 * declaration the bug report is about.
 */
function fixtureCss() {
  const postcss = require(POSTCSS);
  const root = postcss.parse(readFileSync(REPORT_CSS, "utf8"));
  const rules = root.nodes
    .filter((n) => n.type === "rule" && !n.selector.startsWith(":root") && n.nodes.length >= 3)
    .slice(0, 14);
  const fixture = postcss.root({ nodes: rules.map((r) => r.clone()) });
  fixture.cleanRaws();
  const css = fixture.toString();
  return `.brand-link {\n    color: /* brand */ var(--color-accent-fg);\n    text-decoration: none /* underline on hover */;\n}\n${css}\n`;
}

/** `node scripts/dump-ast.mjs FILE`: postcss's own toJSON of the fixture. */
function astJson(css) {
  const postcss = require(POSTCSS);
  const root = postcss.parse(css, { from: "/home/dev/postcss/test/fixtures/comments-in-values.css" });
  const json = root.toJSON();
  json.nodes = json.nodes.slice(0, 8);
  return JSON.stringify(json, null, 2);
}

/** c8's text report over the real lib/ files (coverage figures seeded). */
function coverage() {
  const rows = [["File", "% Stmts", "% Branch", "% Funcs", "% Lines", "Uncovered Line #s"]];
  for (const name of libFiles().filter((n) => n.endsWith(".js"))) {
    const lines = source(`lib/${name}`).split("\n").length;
    const pct = () => (random() < 0.5 ? 100 : 90 + random() * 10).toFixed(2);
    const misses = Array.from({ length: Math.floor(random() * 4) }, () => 1 + Math.floor(random() * lines))
      .sort((a, b) => a - b)
      .map((line) => (random() < 0.5 ? `${line}` : `${line}-${line + 1 + Math.floor(random() * 6)}`));
    rows.push([` ${name}`, pct(), pct(), pct(), pct(), misses.join(",")]);
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const line = (r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join(" | ");
  const rule = widths.map((w) => "-".repeat(w)).join("-|-");
  return [rule, line(rows[0]), rule, ...rows.slice(1).map(line), rule].join("\n");
}

/** Builds the messages from the story's turns. */
function build() {
  const tools = { coverage, numbered, patchedSource, readFileTool, grep, listDir, testLog, unifiedDiff, fixtureCss, astJson, lineOf, source };
  const turns = story({ tools, postcssVersion, suites: SUITES });
  const messages = [{ role: "system", content: turns.system }];
  for (const turn of turns.turns) {
    messages.push({ role: "user", content: turn.user });
    for (const step of turn.steps) {
      const calls = step.calls.map((call) => ({ ...call, id: callId() }));
      messages.push({
        role: "assistant",
        content: step.text ?? null,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: JSON.stringify(call.args) },
        })),
      });
      for (const call of calls) messages.push({ role: "tool", tool_call_id: call.id, content: call.output() });
    }
    if (turn.reply) messages.push({ role: "assistant", content: turn.reply });
  }
  return messages;
}

const text = `${JSON.stringify(build(), null, 1)}\n`;
if (process.argv.includes("--check")) {
  let committed = "";
  try {
    committed = readFileSync(OUT, "utf8");
  } catch {}
  if (committed !== text) {
    console.error(`${OUT} is not what scripts/make-sample-session.mjs makes; run it again`);
    process.exit(1);
  }
} else {
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, text);
  console.log(`wrote ${OUT}: ${(text.length / 1024).toFixed(0)} KB`);
}
