// The demo page in www/, in Debian's headless Chromium (one launch for the
// file), served by the static server on 127.0.0.1. What the page shows is
// checked against what the package computes here in Node for the same input.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { build } from "vite";
import { DEFAULT_MAX_TOKENS, describeMessages, estimateTokens, MESSAGE_FORMATS } from "kram-compaction";
import { wwwMounts } from "../../scripts/static-server.mjs";
import { startModelServer } from "../support/model-server.mjs";
import { browserSession } from "./support/browser.mjs";
import { allRows, checkBudget, messageCount, openPage, paste } from "./support/www-page.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const artifacts = join(root, "tests", "artifacts");
const sample = JSON.parse(readFileSync(join(root, "pkg", "data", "sample-session.json"), "utf8"));
const { version } = JSON.parse(readFileSync(join(root, "pkg", "package.json"), "utf8"));
const session = browserSession();
let site;

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  site = await session.serve(wwwMounts(root));
});

/** The page at `url`, ready, closed when test `t` ends (see openPage). */
const open = (t, url = site, viewport = undefined) => openPage(t, session.browser, url, viewport);

const chat = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "List the files." },
  { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }] },
  { role: "tool", tool_call_id: "c1", content: "a.rs\nb.rs" },
  { role: "assistant", content: "Two files: a.rs and b.rs." },
];

test("the page loads the sample session: every message, its role and its estimate", async (t) => {
  const { page, problems } = await open(t);
  assert.equal(await page.textContent("#version"), version);
  assert.match(await page.textContent("#source"), new RegExp(`Sample session: ${sample.length} messages, openai-chat`));
  const rows = (await allRows(page)).map(({ kind, tokens }) => ({ kind, tokens }));
  const infos = describeMessages(sample).messages;
  assert.deepEqual(
    rows,
    infos.map((info, i) => ({ kind: info.isMarker ? "marker" : info.kind, tokens: estimateTokens([sample[i]]) })),
  );
  assert.ok(rows.some((r) => r.kind === "tool") && rows.some((r) => r.kind === "user"));
  // Tool calls and results are folded until opened.
  const toolResult = page.locator("#transcript .tool-result").first();
  assert.equal(await toolResult.evaluate((d) => d.open), false);
  await toolResult.locator("summary").click();
  assert.equal(await toolResult.evaluate((d) => d.open), true);
  assert.equal(Number(await page.inputValue("#budget-number")), DEFAULT_MAX_TOKENS);
  await checkBudget(page, sample, DEFAULT_MAX_TOKENS);
  assert.ok(await page.$eval("#chart svg path.bar.tool", (path) => path.getAttribute("d").length > 0), "the chart has tool bars");
  // The chart's numbers: a row per turn once opened, and the Sent column follows the budget.
  assert.equal(await page.$$eval("#chart-table tbody tr", (rows) => rows.length), 0, "made only when opened");
  await page.click("#chart-data summary");
  const turns = describeMessages(sample).messages.filter((m) => m.startsUserTurn).length + 1;
  const lastSent = () => page.$eval("#chart-table tbody tr:last-child td:last-child", (td) => td.textContent);
  // The table is built on the details' toggle event, which comes a task after the click.
  await page.waitForFunction((n) => document.querySelectorAll("#chart-table tbody tr").length >= n, turns, { timeout: 5_000 }).catch(() => {});
  assert.equal(await page.$$eval("#chart-table tbody tr", (rows) => rows.length), turns);
  const before = await lastSent();
  await page.fill("#budget-number", String(estimateTokens(sample) * 2));
  await page.waitForFunction((words) => document.querySelector("#chart-table tbody tr:last-child td:last-child").textContent !== words, before);
  // Within budget everything is sent: the last turn's Sent is its running total.
  assert.equal(await lastSent(), await page.$eval("#chart-table tbody tr:last-child td:nth-last-child(2)", (td) => td.textContent));
  assert.deepEqual(problems, []);
});

test("moving the budget changes kept / cleared / dropped and the meter as the package computes them", async (t) => {
  const { page, problems } = await open(t);
  const tiers = new Set();
  const total = estimateTokens(sample);
  for (const budget of [DEFAULT_MAX_TOKENS, total + 1, Math.round(total * 0.7), 20_000, 3_000, 500]) {
    await page.fill("#budget-number", String(budget));
    tiers.add((await checkBudget(page, sample, budget)).tier);
  }
  assert.deepEqual([...tiers].sort(), ["emergency", "none", "pruned"], "the budgets above reach every tier");
  // The slider, by keyboard: one step up from 60,000.
  await page.fill("#budget-number", "60000");
  await page.focus("#budget-range");
  await page.keyboard.press("ArrowRight");
  const step = Number(await page.getAttribute("#budget-range", "step"));
  assert.equal(Number(await page.inputValue("#budget-number")), 60_000 + step);
  await checkBudget(page, sample, 60_000 + step);
  // A budget that is not a positive number is refused in the page, and the last good one stays.
  await page.fill("#budget-number", "0");
  assert.equal(await page.getAttribute("#budget-number", "aria-invalid"), "true");
  await checkBudget(page, sample, 60_000 + step);
  assert.deepEqual(problems, []);
});

test("a pasted history as a JSON array and as JSONL, and a dropped file", async (t) => {
  const { page, problems } = await open(t);
  await paste(page, JSON.stringify(chat, null, 2));
  assert.match(await page.textContent("#source"), /Pasted history: 5 messages, openai-chat/);
  assert.equal(await messageCount(page), 5);
  assert.match(await page.textContent("#transcript"), /Two files: a\.rs and b\.rs\./);
  await checkBudget(page, chat, DEFAULT_MAX_TOKENS);

  const withMarker = [...chat, { role: "system", name: "kram:compaction_summary", content: "Earlier: listed files." }, { role: "user", content: "Now read a.rs." }];
  await paste(page, withMarker.map((m) => JSON.stringify(m)).join("\n") + "\n");
  assert.match(await page.textContent("#source"), /7 messages/);
  assert.equal(await page.getAttribute("#message-5", "data-kind"), "marker");
  assert.match(await page.textContent("#message-5 .role"), /Compaction summary/);
  const want = await checkBudget(page, withMarker, DEFAULT_MAX_TOKENS);
  // The system prompt is an instruction, still sent; the rest before the marker is summarised.
  assert.deepEqual(want.status, ["kept", "summarised", "summarised", "summarised", "summarised", "kept", "kept"]);

  await page.setInputFiles("#file", { name: "chat.jsonl", mimeType: "text/plain", buffer: Buffer.from(chat.map((m) => JSON.stringify(m)).join("\n")) });
  await page.waitForFunction(() => document.getElementById("source").textContent.startsWith("chat.jsonl"));
  assert.equal(await messageCount(page), 5);

  const dropped = await page.evaluateHandle((text) => {
    const data = new DataTransfer();
    data.items.add(new File([text], "dropped.json", { type: "application/json" }));
    return data;
  }, JSON.stringify(chat.slice(0, 2)));
  await page.dispatchEvent("#drop", "drop", { dataTransfer: dropped });
  await page.waitForFunction(() => document.getElementById("source").textContent.startsWith("dropped.json"));
  assert.equal(await messageCount(page), 2);
  assert.deepEqual(problems, []);
});

test("a pasted history in every format the package reads", async (t) => {
  const { page, problems } = await open(t);
  const formats = MESSAGE_FORMATS;
  for (const [i, format] of formats.entries()) {
    const history = JSON.parse(readFileSync(join(root, "tests", "fixtures", `${format}.json`), "utf8"));
    // Half as JSON arrays, half as JSONL.
    await paste(page, i % 2 ? history.map((m) => JSON.stringify(m)).join("\n") : JSON.stringify(history, null, 1));
    assert.match(await page.textContent("#source"), new RegExp(`${history.length} messages, ${format}$`));
    const rows = await allRows(page);
    assert.deepEqual(rows.map((r) => r.kind), describeMessages(history).messages.map((m) => (m.isMarker ? "marker" : m.kind)), format);
    assert.ok(rows.some((r) => r.toolCalls > 0), `${format}: tool calls shown`);
    assert.ok(rows.some((r) => r.toolResults > 0), `${format}: tool results shown`);
    for (const budget of [1_000_000, Math.round(estimateTokens(history) / 3)]) {
      await page.fill("#budget-number", String(budget));
      await checkBudget(page, history, budget);
    }
  }
  assert.deepEqual(problems, []);
});

test("bad input gets a message naming the line or message, and the page keeps working", async (t) => {
  const { page, problems } = await open(t);
  const error = async () => ((await page.isVisible("#input-error")) ? page.textContent("#input-error") : "");

  await paste(page, '[\n  {"role": "user", "content": "hi"},\n  {"role": }\n]');
  assert.match(await error(), /Invalid JSON at line 3, column 12/);
  await paste(page, '{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "ok"\n');
  assert.match(await error(), /Invalid JSON on line 2/);
  await paste(page, JSON.stringify([chat[1], { role: "tool", content: "no id" }], null, 2));
  assert.match(await error(), /messages\[1\]\.tool_call_id must be a string.*line 6 of the JSON array/);
  await paste(page, '{"role":"user","content":"hi"}\n\n{"role":"assistant","tool_calls":"none"}');
  assert.match(await error(), /messages\[1\]\.tool_calls must be an array.*line 3 of the JSONL/);
  await paste(page, '{"messages": []}');
  assert.match(await error(), /one message per line|Expected a JSON array|messages\[0\]/);
  await paste(page, "   ");
  assert.match(await error(), /Nothing to read/);

  // The sample is still there and still live.
  assert.equal(await messageCount(page), sample.length);
  await page.fill("#budget-number", "20000");
  await checkBudget(page, sample, 20_000);
  await paste(page, JSON.stringify(chat));
  assert.equal(await error(), "");
  assert.equal(await messageCount(page), chat.length);
  assert.deepEqual(problems, []);
});

test("the compaction panel: cancel a slow one, an error in words, then compact() from the page with the marker applied", async (t) => {
  const server = await startModelServer();
  t.after(() => server.close());
  const { page, problems } = await open(t);
  await page.fill("#base-url", server.openAIBaseURL);
  await page.fill("#model", "browser-model");
  await page.fill("#api-key", "sk-page");

  // A slow server, cancelled: nothing changes.
  server.enqueue({ hang: true });
  await page.click("#compact-run");
  await page.waitForFunction(() => !document.getElementById("compact-cancel").disabled);
  await page.click("#compact-cancel");
  await page.waitForFunction(() => /Cancelled/.test(document.getElementById("compact-error").textContent));
  assert.equal(await messageCount(page), sample.length);

  // An error status from the endpoint, in words.
  server.enqueue({ status: 401, body: { error: { message: "bad key" } } });
  await page.click("#compact-run");
  await page.waitForFunction(() => /refused the key \(401\)/.test(document.getElementById("compact-error").textContent));

  await page.click("#compact-run");
  await page.waitForFunction(() => /Summary appended/.test(document.getElementById("compact-status").textContent), null, { timeout: 15_000 });
  const request = server.requests.at(-1);
  assert.equal(server.requests.length, 3);
  assert.equal(request.json.model, "browser-model");
  assert.equal(request.headers.authorization, "Bearer sk-page");
  assert.match(request.json.messages[1].content, /<conversation_transcript>/);
  const after = await allRows(page);
  assert.equal(after.length, sample.length + 1);
  assert.match(after.at(-1).text, /Summary 3\./, "the marker is the newest message");
  assert.equal(after[0].status, "kept", "the sample's system prompt is an instruction, still sent");
  assert.ok(after.slice(1, sample.length).every((m) => m.status === "summarised"), "everything else before it is summarised");
  await page.screenshot({ path: join(artifacts, "www-compacted.png") });
  assert.deepEqual(problems.filter((p) => !/401/.test(p)), []);
});

test("keyboard and focus: the controls are labelled and focus is visible", async (t) => {
  const { page } = await open(t);
  const unlabelled = await page.$$eval("input, textarea, button, select", (els) =>
    els.filter((el) => !el.labels?.length && !el.getAttribute("aria-label") && !el.textContent.trim()).map((el) => el.id || el.outerHTML),
  );
  assert.deepEqual(unlabelled, []);
  await page.keyboard.press("Tab"); // the skip link
  await page.keyboard.press("Tab");
  const focused = await page.evaluate(() => {
    const el = document.activeElement;
    const style = getComputedStyle(el);
    return { id: el.id, outline: style.outlineStyle, width: parseFloat(style.outlineWidth) };
  });
  assert.equal(focused.id, "paste");
  assert.notEqual(focused.outline, "none");
  assert.ok(focused.width >= 2, `outline ${focused.width}px`);
});

test("screenshots at desktop and 375 px widths, and nothing wider than the screen", async (t) => {
  for (const [name, viewport] of [["desktop", { width: 1280, height: 900 }], ["375", { width: 375, height: 812 }]]) {
    const { page, problems } = await open(t, site, viewport);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= viewport.width, `${name}: the page is ${width}px wide`);
    await page.screenshot({ path: join(artifacts, `www-${name}.png`) });
    // The top of the full page: the controls, the chart and the first messages.
    const clip = { x: 0, y: 0, width: viewport.width, height: 2400 };
    await page.screenshot({ path: join(artifacts, `www-${name}-long.png`), fullPage: true, clip });
    assert.deepEqual(problems, []);
  }
});

test("the Vite build of www/ is a static folder that works on its own", async (t) => {
  const outDir = mkdtempSync(join(tmpdir(), "kram-www-"));
  session.defer(() => rmSync(outDir, { recursive: true, force: true }));
  await build({ configFile: join(root, "www", "vite.config.mjs"), logLevel: "error", build: { outDir, emptyOutDir: true } });
  const { page, problems } = await open(t, await session.serve({ "/": outDir }));
  assert.equal(await page.textContent("#version"), version);
  assert.equal(await messageCount(page), sample.length);
  await checkBudget(page, sample, DEFAULT_MAX_TOKENS);
  assert.deepEqual(problems, []);
});
