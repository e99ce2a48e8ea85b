// kram-compact, the command line: the report of every tier on the sample
// session, compaction through the loopback model server, --json, --out,
// JSONL, and bad input as one clear line with a non-zero exit.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { COMPACTION_MARKER_NAME, MESSAGE_FORMATS, effectiveHistory, estimateTokens } from "kram-compaction";
import { startModelServer } from "../support/model-server.mjs";
import { codingSession } from "../support/sessions.mjs";

const BIN = fileURLToPath(new URL("../../node_modules/kram-compaction/bin/kram-compact.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "kram-cli-"));
const NO_GATEWAY = { PATH: process.env.PATH };

/** Runs the command; resolves to { code, stdout, stderr } (stderr is not a terminal here). */
function cli(args, env = NO_GATEWAY, input) {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { env }, (error, stdout, stderr) =>
      resolve({ code: error ? error.code : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin.end(input);
  });
}

let server;
before(async () => {
  server = await startModelServer();
});
after(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

test("the sample session without a gateway: every free tier, compaction skipped, the emergency fallback", async () => {
  const { code, stdout, stderr } = await cli([]);
  assert.equal(code, 0, stderr);
  assert.equal(stderr, "");
  assert.match(stdout, /the sample session, budget 60000 estimated tokens/);
  assert.match(stdout, /stored\s+86 messages\s+\d+ estimated tokens/);
  assert.match(stdout, /cleared tool results: #\d+ tool/);
  assert.match(stdout, /compaction\s+skipped: no gateway configured/);
  // At the default budget pruning alone is enough (it reaches into the
  // protected turns when they do not fit).
  assert.match(stdout, /^result: pruned, /m);

  const tight = await cli(["--max-tokens", "30000"]);
  assert.equal(tight.code, 0, tight.stderr);
  assert.match(tight.stdout, /dropped: #1 user/);
  assert.match(tight.stdout, /^result: emergency, /m);
});

test("with a gateway from the environment: compacted through the server, the marker shown, --json and --out", async () => {
  const env = { ...NO_GATEWAY, KRAM_BASE_URL: server.openAIBaseURL, KRAM_MODEL: "summary-model", KRAM_API_KEY: "sk-cli" };
  const from = server.requests.length;
  const out = join(dir, "out.json");
  const { code, stdout, stderr } = await cli(["--json", "--out", out, "--max-tokens", "30000"], env);
  assert.equal(code, 0, stderr);
  assert.equal(stderr, "", "no progress bar when stderr is not a terminal");
  const report = JSON.parse(stdout);
  assert.ok(server.requests.length > from);
  assert.equal(server.requests.at(-1).headers.authorization, "Bearer sk-cli");
  assert.equal(report.result.tier, "compacted", report.result.reason);
  assert.equal(report.compaction.model, "summary-model");
  assert.equal(report.compaction.marker.name, COMPACTION_MARKER_NAME);
  assert.ok(report.pruned.tokens < report.all.tokens);
  assert.ok(report.result.tokens <= 30000);
  const written = JSON.parse(readFileSync(out, "utf8"));
  assert.equal(written.length, report.result.messages);
  // The sample session's system prompt is sent first, then the marker.
  assert.equal(written[0].role, "system");
  assert.equal(written[1].name, COMPACTION_MARKER_NAME);
  assert.deepEqual(effectiveHistory(written), written);

  const human = await cli(["--max-tokens", "30000"], env);
  assert.match(human.stdout, /compacted\s+\d+ messages/);
  assert.match(human.stdout, /marker \(summary-model\):\n\s+This message is a summary/);
});

test("a JSONL file and --max-tokens", async () => {
  const file = join(dir, "history.jsonl");
  writeFileSync(file, codingSession(3).map((m) => JSON.stringify(m)).join("\n") + "\n");
  const { code, stdout } = await cli([file, "--max-tokens", "100000"]);
  assert.equal(code, 0);
  assert.match(stdout, /stored\s+13 messages/);
  assert.match(stdout, /^result: none, 13 messages/m);
  const anthropic = fileURLToPath(new URL("../fixtures/anthropic.json", import.meta.url));
  const other = await cli([anthropic, "--max-tokens", "1000", "--json"]);
  assert.equal(other.code, 0, other.stderr);
  assert.equal(JSON.parse(other.stdout).result.tier, "emergency");
  const piped = await cli(["-", "--json"], NO_GATEWAY, JSON.stringify(codingSession(1)));
  assert.equal(JSON.parse(piped.stdout).all.messages, 5);
});

test("a stored history of every format, detected and brought within budget", async () => {
  for (const format of MESSAGE_FORMATS) {
    const file = fileURLToPath(new URL(`../fixtures/${format}.json`, import.meta.url));
    const budget = Math.floor(estimateTokens(JSON.parse(readFileSync(file, "utf8"))) / 2);
    const out = join(dir, `${format}-out.json`);
    const { code, stdout, stderr } = await cli([file, "--max-tokens", String(budget), "--json", "--out", out]);
    assert.equal(code, 0, `${format}: ${stderr}`);
    const report = JSON.parse(stdout);
    assert.equal(report.all.format, format);
    assert.ok(["pruned", "emergency"].includes(report.result.tier), `${format}: ${report.result.tier}`);
    assert.ok(estimateTokens(JSON.parse(readFileSync(out, "utf8"))) <= budget, format);
  }
});

test("bad input exits non-zero with one clear line, never a stack trace", async () => {
  const broken = join(dir, "broken.json");
  writeFileSync(broken, '[\n  {"role": "user", "content": "hi"},\n  {"role": "user" "content": "x"}\n]\n');
  const invalid = join(dir, "invalid.json");
  writeFileSync(invalid, JSON.stringify([{ role: "user", content: "hi" }, { role: "assistant", content: 7 }]));
  const badLine = join(dir, "bad.jsonl");
  writeFileSync(badLine, '{"role":"user","content":"a"}\n{"role":"user",}\n');
  const cases = [
    [[join(dir, "missing.json")], 1, /^kram-compact: cannot read .*missing\.json: no such file\n$/],
    [[broken], 1, /^kram-compact: .*broken\.json is not valid JSON: line 3, column \d+: /],
    [[badLine], 1, /^kram-compact: .*bad\.jsonl is not valid JSONL: line 2, column \d+: /],
    [[invalid], 1, /^kram-compact: .*invalid\.json: messages\[1\]\.content must be/],
    [["--max-tokens", "0"], 2, /^kram-compact: --max-tokens must be a positive whole number, got 0\n$/],
    [["--frobnicate"], 2, /^kram-compact: unknown option --frobnicate; usage: /],
    [["--max-tokens"], 2, /^kram-compact: --max-tokens needs a value; usage: /],
    [["a.json", "b.json"], 2, /^kram-compact: one FILE at most; usage: /],
  ];
  for (const [args, expected, pattern] of cases) {
    const { code, stdout, stderr } = await cli(args);
    assert.equal(code, expected, `${args}: ${stderr}`);
    assert.equal(stdout, "");
    assert.match(stderr, pattern);
    assert.equal(stderr.trim().split("\n").length, 1, stderr);
    assert.doesNotMatch(stderr, /\n\s+at /);
  }
});

test("--help lists every option and environment variable; --version the package's", async () => {
  const { code, stdout, stderr } = await cli(["--help"]);
  assert.equal(code, 0, stderr);
  for (const word of ["--max-tokens N", "--out FILE", "--json", "--help", "--version", "KRAM_BASE_URL", "KRAM_MODEL", "KRAM_API_KEY", "Exit codes"]) {
    assert.ok(stdout.includes(word), word);
  }
  const version = await cli(["--version"]);
  assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
});
