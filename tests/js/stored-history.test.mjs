// readStoredHistory: the stored text as messages, JSON array or JSONL, with
// every error naming its line and column; the command line and the demo page
// read their input through it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { readStoredHistory, StoredHistoryError, describeMessages } from "kram-compaction";

const sessions = new URL("../sessions/", import.meta.url);

test("a JSON array: its messages, and the line each starts on", () => {
  const text = '[\n  {"role": "user", "content": "a [b] {c}"},\n\n  {"role": "assistant",\n   "content": "d\\"]"},  {"role": "user", "content": "e"}\n]\n';
  const read = readStoredHistory(text);
  assert.equal(read.shape, "JSON array");
  assert.deepEqual(read.messages.map((m) => m.content), ["a [b] {c}", 'd"]', "e"]);
  assert.deepEqual([0, 1, 2, 3].map(read.lineOf), [2, 4, 5, undefined]);
  assert.equal(describeMessages(read.messages).format, "openai-chat");
});

test("JSONL: a message a line, blank lines and CRLF skipped, the lines kept", () => {
  const read = readStoredHistory('{"role":"user","content":"a"}\r\n\r\n{"role":"assistant","content":"b"}\n');
  assert.equal(read.shape, "JSONL");
  assert.deepEqual(read.messages.map((m) => m.content), ["a", "b"]);
  assert.deepEqual([0, 1].map(read.lineOf), [1, 3]);
  assert.deepEqual(readStoredHistory("  \n").messages, [], "blank text: no messages");
});

test("not JSON: a StoredHistoryError (a SyntaxError) with the line, the column and the parser's reason", () => {
  const bad = (text) => {
    try {
      readStoredHistory(text);
    } catch (error) {
      assert.ok(error instanceof StoredHistoryError, String(error));
      return error;
    }
    assert.fail(`read: ${text}`);
  };
  const array = bad('[\n  {"role": "user"},\n  {"role": x}\n]');
  assert.ok(array instanceof SyntaxError);
  assert.deepEqual([array.shape, array.line, array.column], ["JSON array", 3, 12]);
  assert.match(array.message, /^Invalid JSON at line 3, column 12: Unexpected token/);
  assert.doesNotMatch(array.reason, /position/);
  const lines = bad('{"role":"user","content":"a"}\n{"role": tru}\n');
  assert.deepEqual([lines.shape, lines.line, lines.column], ["JSONL", 2, 10]);
  assert.match(lines.message, /^Invalid JSON on line 2, column 10: /);
  assert.throws(() => readStoredHistory(7), { name: "TypeError", message: "text must be a string, got number" });
});

test("every real session stored as JSONL reads a record a line, each on its own line", () => {
  const files = readdirSync(sessions).filter((f) => f.endsWith(".jsonl"));
  assert.ok(files.length >= 10, `${files.length} files`);
  for (const file of files) {
    const text = readFileSync(new URL(file, sessions), "utf8");
    const lines = text.split(/\r?\n/);
    const read = readStoredHistory(text);
    assert.equal(read.messages.length, lines.filter((l) => l.trim()).length, file);
    const last = read.messages.length - 1;
    assert.deepEqual(JSON.parse(lines[read.lineOf(last) - 1]), read.messages[last], file);
  }
});
