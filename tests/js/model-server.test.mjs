// The shared test model server (tests/support/model-server.mjs) over plain
// fetch: both endpoints, the recording, the scripted replies and failures,
// and the CORS answers a browser page needs.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startModelServer } from "../support/model-server.mjs";

let server;
before(async () => (server = await startModelServer()));
after(() => server.close());

const post = (path, body, init = {}) =>
  fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), ...init });

test("listens on 127.0.0.1 with the base URLs the gateways and SDKs take", () => {
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(server.openAIBaseURL, `${server.url}/v1`);
  assert.equal(server.anthropicBaseURL, server.url);
});

test("answers each endpoint in its own format and records the request", async () => {
  const from = server.requests.length;
  const chat = await (await post("/v1/chat/completions", { model: "m", messages: [] })).json();
  assert.equal(chat.object, "chat.completion");
  assert.match(chat.choices[0].message.content, /^## Objective\nSummary \d+\.$/);
  const claude = await (await post("/v1/messages", { model: "c", messages: [] })).json();
  assert.equal(claude.type, "message");
  assert.equal(claude.content[0].type, "text");
  const [first, second] = server.requests.slice(from);
  assert.equal(first.api, "openai");
  assert.equal(second.api, "anthropic");
  assert.deepEqual(first.json, { model: "m", messages: [] });
  assert.equal(first.headers["content-type"], "application/json");
});

test("scripted replies come in order, then the default reply", async () => {
  server.enqueue("first", { summary: "second", delayMs: 5 }, { json: { any: "thing" } });
  const texts = [];
  for (let i = 0; i < 4; i++) texts.push(await (await post("/v1/chat/completions", { model: "m" })).json());
  assert.equal(texts[0].choices[0].message.content, "first");
  assert.equal(texts[1].choices[0].message.content, "second");
  assert.deepEqual(texts[2], { any: "thing" });
  assert.match(texts[3].choices[0].message.content, /^## Objective\nSummary/);
});

test("failure modes: status codes, malformed JSON, unknown paths", async () => {
  server.enqueue({ status: 500 }, { status: 429, headers: { "retry-after": "2" }, body: "slow down" }, { malformed: true });
  const failed = await post("/v1/chat/completions", {});
  assert.equal(failed.status, 500);
  assert.match((await failed.json()).error.message, /scripted 500/);
  const limited = await post("/v1/messages", {});
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get("retry-after"), "2");
  assert.equal(await limited.text(), "slow down");
  const malformed = await post("/v1/chat/completions", {});
  assert.equal(malformed.status, 200);
  await assert.rejects(malformed.json(), SyntaxError);
  assert.equal((await post("/v2/other", {})).status, 404);
});

test("a hang answers nobody; the client's abort is recorded", async () => {
  const from = server.requests.length;
  server.enqueue({ hang: true });
  const controller = new AbortController();
  const pending = post("/v1/chat/completions", {}, { signal: controller.signal });
  while (server.requests.length <= from) await new Promise((resolve) => setImmediate(resolve));
  controller.abort();
  await assert.rejects(pending, (e) => e.name === "AbortError");
  while (!server.requests[from].aborted) await new Promise((resolve) => setImmediate(resolve));
});

test("CORS: preflight and answers allow a page of another origin", async () => {
  const preflight = await fetch(`${server.url}/v1/chat/completions`, {
    method: "OPTIONS",
    headers: { origin: "http://127.0.0.1:9", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get("access-control-allow-origin"), "http://127.0.0.1:9");
  assert.equal(preflight.headers.get("access-control-allow-headers"), "authorization, content-type");
  assert.match(preflight.headers.get("access-control-allow-methods"), /POST/);
  assert.equal(server.preflights.at(-1).method, "OPTIONS");
  const answer = await post("/v1/chat/completions", {}, { headers: { origin: "http://127.0.0.1:9", "content-type": "application/json" } });
  assert.equal(answer.headers.get("access-control-allow-origin"), "http://127.0.0.1:9");
});

test("close ends hanging requests and frees the port", async () => {
  const other = await startModelServer();
  other.enqueue({ hang: true });
  const pending = fetch(`${other.openAIBaseURL}/chat/completions`, { method: "POST", body: "{}" });
  while (other.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
  await other.close();
  await assert.rejects(pending);
  await assert.rejects(fetch(`${other.url}/v1/messages`, { method: "POST", body: "{}" }));
});
