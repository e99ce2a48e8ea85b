// Each doc, list and default has one source (issue #16), and this checks the
// places that repeat one against it:
// - the README's example of each function is the `@example` of its JSDoc in
//   the published types (js/index.ts for the history functions);
// - the defaults the README states are those of the published types, which
//   the build fills from the Rust items (examples/ts_lists.rs), and
//   DEFAULT_MAX_TOKENS;
// - the unions the build fills are the lists the module itself uses, and the
//   README's format table and list of kinds are those lists.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import * as kram from "kram-compaction";

const typesDir = new URL("../../pkg/dist/types/", import.meta.url);
const declarations = Object.fromEntries(
  readdirSync(typesDir)
    .filter((name) => name.endsWith(".d.ts"))
    .map((name) => [name, readFileSync(new URL(name, typesDir), "utf8")]),
);
const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

/** A JSDoc comment's text, without its `/**`, `*\/` and leading ` * `. */
const docText = (comment) =>
  comment
    .split("\n")
    .map((line) => line.replace(/^\s*\*( |$)/, ""))
    .join("\n")
    .trim();

/** name -> { file, doc } of every exported declaration that has a JSDoc. */
const documented = new Map();
for (const [file, text] of Object.entries(declarations)) {
  for (const m of text.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*export declare (?:const|function|class) (\w+)/g)) {
    documented.set(m[2], { file, doc: docText(m[1]) });
  }
}

/** The code of a doc's `@example`, or undefined. */
const exampleOf = (doc) => doc.match(/@example\n```\w*\n([\s\S]*?)\n```/)?.[1];

/** name -> the first code block of the README section `#### \`name(...\``. */
const readmeExamples = new Map();
for (const section of readme.split(/^(?=#{1,4} )/m)) {
  const name = section.match(/^#### `(?:new )?(\w+)\(/)?.[1];
  const code = section.match(/^```\w*\n([\s\S]*?)\n```/m)?.[1];
  if (name && code) readmeExamples.set(name, code);
}

test("the history functions' JSDoc in the published types carries an example", () => {
  const own = [...documented].filter(([, { file }]) => file === "index.d.ts").map(([name]) => name);
  for (const name of ["estimateTokens", "needsCompaction", "effectiveHistory", "pruneForModel", "emergencyPrune", "describeMessages"]) {
    assert.ok(own.includes(name), `${name} has no JSDoc in index.d.ts`);
    assert.ok(exampleOf(documented.get(name).doc), `${name}'s JSDoc has no @example`);
  }
});

test("the README's example of each function is its JSDoc's @example", () => {
  const checked = [];
  for (const [name, { doc }] of documented) {
    const example = exampleOf(doc);
    if (example === undefined) continue;
    assert.ok(readmeExamples.has(name), `the README has no section with an example for ${name}`);
    assert.equal(readmeExamples.get(name), example, `the README's example of ${name} differs from its JSDoc's`);
    checked.push(name);
  }
  assert.ok(checked.length >= 6, checked.join());
});

/**
 * name -> default, as the published types' JSDoc states it ("Default 40,000."),
 * of the options of the history functions, compact and ContextManager.
 */
const typeDefaults = new Map();
for (const text of [declarations["wasm.d.ts"], declarations["context-manager.d.ts"]]) {
  for (const m of text.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*(\w+)\?:/g)) {
    const value = docText(m[1]).match(/\bDefault ((?:"[^"]*"|[^.\s])+)\./)?.[1];
    if (value === undefined) continue;
    assert.ok(!typeDefaults.has(m[2]) || typeDefaults.get(m[2]) === value, `${m[2]} has two defaults in the types`);
    typeDefaults.set(m[2], value);
  }
}
const plain = (value) => value.replace(/[`,_\s]/g, "");

test("the published types state the Rust defaults the build filled in", () => {
  assert.deepEqual(Object.fromEntries(typeDefaults), {
    protectTurns: "2",
    protectTokens: "40,000",
    minimumSavings: "20,000",
    placeholder: '"[Old tool result content cleared]"',
    maxInputTokens: "60,000",
    maxSummaryTokens: "4,096",
    toolOutputChars: "2,000",
    maxTokens: "60,000",
    maxCompactionsPerRun: "2",
  });
  assert.equal(plain(typeDefaults.get("maxTokens")), String(kram.DEFAULT_MAX_TOKENS));
  assert.equal(plain(typeDefaults.get("maxInputTokens")), String(kram.DEFAULT_MAX_TOKENS));
});

test("every default the README states is the code's", () => {
  const seen = new Set();
  // "`protectTokens` (default 40,000)", "`protectTurns` user turns (default\n2)"
  for (const m of readme.matchAll(/`(\w+)`((?:\s+[a-z]+){0,2})\s+\(default\s+([^)]+)\)/g)) {
    if (!typeDefaults.has(m[1])) continue;
    assert.equal(plain(m[3]), plain(typeDefaults.get(m[1])), `README: ${m[0]}`);
    seen.add(m[1]);
  }
  // option tables: "| `maxSummaryTokens` | 4,096 | ..."
  for (const m of readme.matchAll(/^\| `(\w+)` \| ([^|]+?) \|/gm)) {
    if (!typeDefaults.has(m[1])) continue;
    assert.equal(plain(m[2]), plain(typeDefaults.get(m[1])), `README: ${m[0]}`);
    seen.add(m[1]);
  }
  assert.deepEqual([...typeDefaults.keys()].filter((name) => !seen.has(name)), [], "defaults the README never states");
  // "`DEFAULT_MAX_TOKENS` is `60000`", "maxTokens = 60000", "--max-tokens` (default 60,000)"
  const budgets = [
    ...readme.matchAll(/`DEFAULT_MAX_TOKENS` is\s+`([\d,_]+)`/g),
    ...readme.matchAll(/maxTokens = ([\d,_]+)/g),
    ...readme.matchAll(/`--max-tokens` \(default ([\d,_]+)\)/g),
  ];
  assert.ok(budgets.length >= 4, budgets.map((m) => m[0]).join());
  for (const m of budgets) assert.equal(plain(m[1]), String(kram.DEFAULT_MAX_TOKENS), `README: ${m[0]}`);
});

/** The string literals of a union type declared as `NAME = ...;` or `NAME: ...;`. */
const union = (text, pattern) => {
  const body = text.match(pattern)?.[1];
  assert.ok(body, `no ${pattern} in the types`);
  return [...body.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
};

test("the MessageFormat union is MESSAGE_FORMATS, in order", () => {
  assert.deepEqual(union(declarations["wasm.d.ts"], /export type MessageFormat = ([^;]*);/), [...kram.MESSAGE_FORMATS]);
});

test("MessageInfo.kind's union is every kind describeMessages gives", () => {
  const kinds = union(declarations["wasm.d.ts"], /interface MessageInfo \{[\s\S]*?\bkind: ([^;]*);/);
  const history = [
    { role: "system", content: "rules" },
    { role: "user", content: "hi" },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
    { role: "tool", tool_call_id: "c1", content: "ok" },
    { role: "developer", content: "note" },
  ];
  const given = kram.describeMessages(history).messages.map((m) => m.kind);
  assert.deepEqual([...new Set(given)].sort(), [...kinds].sort());
});

test("the README lists every format, in MESSAGE_FORMATS order, and every kind", () => {
  const table = readme.slice(readme.indexOf("| format | detected by |"));
  const rows = [...table.matchAll(/^\| `([\w-]+)`/gm)].map((m) => m[1]);
  const formats = rows.slice(0, kram.MESSAGE_FORMATS.length);
  assert.deepEqual(formats, [...kram.MESSAGE_FORMATS], "the Message formats table");
  const kinds = readme.match(/`kind` \(((?:`"\w+"`,?\s+(?:or\s+)?)+)/)?.[1];
  assert.ok(kinds, "the README's list of describeMessages' kinds");
  const declared = union(declarations["wasm.d.ts"], /interface MessageInfo \{[\s\S]*?\bkind: ([^;]*);/);
  assert.deepEqual([...kinds.matchAll(/"(\w+)"/g)].map((m) => m[1]), declared);
});
