// A Gemini history, pruned, compacted and behind its marker, sent through the
// real @google/genai client (`models.generateContent`) to a loopback server
// the test starts: the contents go out as the package returned them, and the
// reply's content is a content of the same history.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startJsonServer } from "./support/json-server.mjs";
import { readFileSync } from "node:fs";
import { GoogleGenAI } from "@google/genai";
import { compact, describeMessages, effectiveHistory, emergencyPrune, estimateTokens, pruneForModel } from "kram-compaction";

const PLACEHOLDER = "[Old tool result content cleared]";
const SUMMARY = "The export crashed because flush_every_rows was 0.";
const fixture = () => JSON.parse(readFileSync(new URL("../fixtures/gemini.json", import.meta.url), "utf8"));
const deepFreeze = (value) => {
  if (value && typeof value === "object") Object.values(Object.freeze(value)).forEach(deepFreeze);
  return value;
};

let server;
let client;

const reply = {
  candidates: [{ content: { role: "model", parts: [{ text: "Understood." }] }, finishReason: "STOP", index: 0 }],
  usageMetadata: { promptTokenCount: 120, candidatesTokenCount: 3, totalTokenCount: 123 },
  modelVersion: "gemini-2.5-flash",
};

before(async () => {
  server = await startJsonServer(() => reply);
  client = new GoogleGenAI({ apiKey: "x", httpOptions: { baseUrl: server.origin } });
});

after(() => server.close());

async function send(contents) {
  const response = await client.models.generateContent({ model: "gemini-2.5-flash", contents });
  const { path, body } = server.received.at(-1);
  assert.equal(path, "/v1/models/gemini-2.5-flash:generateContent");
  return { response, body };
}

test("the pruned contents are sent by @google/genai as they are, and the reply is a content of the history", async () => {
  const input = deepFreeze(fixture());
  const pruned = pruneForModel(input, { protectTurns: 1, protectTokens: 0, minimumSavings: 1 });
  // Kept contents are the caller's own objects; the edited ones are copies.
  assert.equal(pruned[0], input[0]);
  assert.notEqual(pruned[2], input[2]);
  assert.deepEqual(pruned[2].parts[0].functionResponse.response, { output: PLACEHOLDER });
  assert.deepEqual(pruned[4].parts[0].functionResponse.response, { error: PLACEHOLDER });
  assert.equal(pruned[1].parts[1].thoughtSignature, input[1].parts[1].thoughtSignature);

  const { response, body } = await send(pruned);
  assert.deepEqual(body.contents, pruned);
  assert.equal(response.text, "Understood.");
  // The reply's content goes back into the history and reads as Gemini.
  const next = [...pruned, response.candidates[0].content];
  assert.equal(describeMessages(next).format, "gemini");
  assert.ok(estimateTokens(next) > estimateTokens(pruned));
});

test("a compaction marker from compact is a user content @google/genai sends as it is", async () => {
  const all = deepFreeze(fixture());
  const marker = await compact(() => `## Objective\n${SUMMARY}`, "m", all.slice(0, 6));
  assert.deepEqual(Object.keys(marker).sort(), ["parts", "role"]);
  assert.equal(marker.role, "user");
  assert.match(marker.parts[0].text, /^<kram:compaction_summary>\n/);
  const stored = [...all.slice(0, 6), marker, ...all.slice(6)];
  const effective = effectiveHistory(stored);
  // No system messages in contents: the effective history starts at the marker.
  assert.equal(effective[0], marker);
  assert.deepEqual(effective, stored.slice(6));

  const { response, body } = await send(effective);
  assert.deepEqual(body.contents, effective);
  assert.ok(body.contents[0].parts[0].text.includes(SUMMARY));
  assert.equal(response.text, "Understood.");
});

test("an emergency cut of the contents keeps each call with its response and is sent as it is", async () => {
  const input = deepFreeze(fixture());
  const total = estimateTokens(input);
  for (const budget of [total - 1, Math.floor(total / 2), 50]) {
    const cut = emergencyPrune(input, budget);
    cut.forEach((content, i) => {
      if (content.parts.some((p) => p.functionResponse)) assert.ok(cut[i - 1]?.parts.some((p) => p.functionCall), `${budget}: response ${i}`);
      if (content.parts.some((p) => p.functionCall)) assert.ok(cut[i + 1]?.parts.some((p) => p.functionResponse), `${budget}: call ${i}`);
    });
    assert.equal(cut[0].role, "user");
    const { body } = await send(cut);
    assert.deepEqual(body.contents, cut);
  }
});

test("Gemini parts beside a role are never read as another format", () => {
  const history = [
    { role: "user", parts: [{ text: "hi" }] },
    { role: "model", parts: [{ functionCall: { name: "f", args: {} } }] },
  ];
  assert.equal(describeMessages(history).format, "gemini");
  assert.ok(estimateTokens(history) > 8);
  assert.throws(() => estimateTokens(history, { format: "openai-chat" }), {
    name: "TypeError",
    message: /^messages\[0\] is not a message of the format "openai-chat" that options\.format names \(its field `parts` does not fit it\)/,
  });
});

test("a real gemini-cli checkpoint, pruned and cut, is sent by @google/genai as it is", async () => {
  const stored = deepFreeze(JSON.parse(readFileSync(new URL("../sessions/gemini-cli-ksl-1215-15.json", import.meta.url), "utf8")));
  assert.equal(describeMessages(stored).format, "gemini");
  const pruned = pruneForModel(stored, { protectTurns: 1, protectTokens: 0, minimumSavings: 1 });
  assert.ok(estimateTokens(pruned) < estimateTokens(stored));
  const cleared = pruned.flatMap((c) => c.parts).filter((p) => p.functionResponse?.response?.output === PLACEHOLDER);
  assert.ok(cleared.length > 0);
  const cut = emergencyPrune(pruned, 20_000);
  for (const contents of [pruned, cut]) {
    const { body } = await send(contents);
    assert.deepEqual(body.contents, contents);
  }
});
