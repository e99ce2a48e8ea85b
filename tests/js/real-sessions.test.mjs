// The real-session suite: every public agent session in tests/sessions/ (see
// its SOURCES.md), read as the agent stored it, through every history
// function and ContextManager at several budgets, with compact going to the
// loopback model server. What it checks, per session and budget:
// - the input is unchanged and kept messages are the caller's own objects;
// - no tool call is separated from its result, and what is sent is a valid
//   request for the provider (read here independently of the package);
// - the leading system messages (the stored system prompt) are sent first;
// - the ladder is within budget whenever the leading system messages, the
//   newest request and its newest step fit it (issue #19, section 2);
// - no summariser call whose answer is thrown away;
// - the estimate grows like the prompt size the provider recorded.
// It writes tests/artifacts/real-sessions.json, the table the README quotes.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import {
  ContextManager,
  DEFAULT_MAX_TOKENS,
  describeMessages,
  effectiveHistory,
  emergencyPrune,
  estimateTokens,
  HistoryMemo,
  needsCompaction,
  openAIChatGateway,
  pruneForModel,
  requestReady,
} from "kram-compaction";
import Anthropic from "@anthropic-ai/sdk";
import { loadRealSessions } from "../support/real-sessions.mjs";
import { startModelServer } from "../support/model-server.mjs";
import { deepFreeze } from "../support/sessions.mjs";

const sessions = loadRealSessions();
const report = [];
let server;
before(async () => {
  server = await startModelServer();
});
after(async () => {
  await server.close();
  const dir = new URL("../artifacts/", import.meta.url);
  mkdirSync(dir, { recursive: true });
  writeFileSync(new URL("real-sessions.json", dir), JSON.stringify(report, null, 2) + "\n");
});

test("the suite holds at least 20 real sessions, and at least 3 of each format", () => {
  assert.ok(sessions.length >= 20, `${sessions.length} sessions`);
  for (const format of ["openai-chat", "anthropic", "openai-responses", "ai-sdk", "langchain"]) {
    assert.ok(sessions.filter((s) => s.format === format).length >= 3, format);
  }
  // Gemini: two gemini-cli checkpoints so far.
  assert.ok(sessions.filter((s) => s.format === "gemini").length >= 2, "gemini");
  assert.ok(sessions.filter(isSingleLongTask).length >= 8, "the single long task is well represented");
});

for (const session of sessions) {
  test(`${session.name} (${session.format}, ${session.messages.length} messages)`, async () => {
    const all = deepFreeze(structuredClone(session.messages));
    const snapshot = structuredClone(all);
    const described = describeMessages(all);
    assert.equal(described.format, session.format, "read as the format it is stored in");
    const infos = described.messages;
    const estimate = estimateTokens(all);
    const effective = effectiveHistory(all);
    assert.deepEqual(effective, all, "no marker: the whole history");
    effective.forEach((m, i) => assert.equal(m, all[i], "the very objects"));
    // Read newest first, pruning and the effective history are a whole read's (the memo reads the whole history).
    assert.deepEqual(effective, new HistoryMemo().effectiveHistory(all), "effectiveHistory, newest first");
    for (const options of [{}, { protectTurns: 1, protectTokens: 500, minimumSavings: 100 }, { protectTurns: 0, protectTokens: 0 }]) {
      const memo = new HistoryMemo();
      assert.deepEqual(pruneForModel(all, options), memo.pruneForModel(all, options), `pruneForModel ${JSON.stringify(options)}, newest first`);
    }

    const shape = shapeOf(infos);
    const floor = estimateTokens([...shape.leading, ...shape.request, ...shape.newestStep].map((i) => all[i]));
    const budgets = [...new Set([estimate, Math.floor(estimate / 2), Math.floor(estimate / 5), floor + 700, floor + 200])]
      .filter((b) => b >= 1);
    for (const budget of budgets) {
      const pruned = pruneForModel(all, { maxTokens: budget });
      checkPruned(all, pruned, session.format);
      const cut = emergencyPrune(all, budget);
      checkSent(all, cut, session.format, shape, `emergencyPrune at ${budget}`);
      // Read newest first, the cut is the one a whole read makes (the memo reads the whole history).
      assert.deepEqual(cut, new HistoryMemo().emergencyPrune(all, budget), `emergencyPrune at ${budget}, newest first`);
      // So is the budget check, which stops once the newest messages are over the budget.
      for (const edge of [budget - 1, budget]) {
        if (edge >= 1) assert.equal(needsCompaction(all, edge), estimate > edge, `needsCompaction at ${edge}, newest first`);
      }
      if (estimateTokens([...shape.leading, ...shape.request, ...shape.newestStep].map((i) => all[i])) <= budget) {
        assert.ok(estimateTokens(cut) <= budget, `emergencyPrune at ${budget}: ${estimateTokens(cut)} tokens`);
      }

      const calls = [];
      const gateway = openAIChatGateway({ baseURL: server.openAIBaseURL });
      const counting = (request, context) => (calls.push(request), gateway(request, context));
      const managers = [
        [false, new ContextManager({ maxTokens: budget })],
        [true, new ContextManager({ gateway: counting, model: "m", maxTokens: budget })],
      ];
      for (const [hasGateway, manager] of managers) {
        const before = calls.length;
        const out = await manager.prepare(all);
        const where = `prepare at ${budget} (${out.tier}: ${out.reason})`;
        checkSent(all, out.messages, session.format, shape, where, out.append);
        if (floor <= budget && (out.tier !== "compacted" || floor + 400 <= budget)) {
          assert.ok(out.tokensAfter <= budget, `${where}: ${out.tokensAfter} tokens`);
        }
        assert.equal(out.tokensAfter, estimateTokens(out.messages));
        if (calls.length > before) assert.equal(out.tier, "compacted", `${where}: a summariser call whose answer was thrown away`);
        if (out.tier === "compacted") {
          const stored = [...all, ...out.append];
          const again = effectiveHistory(stored);
          assert.deepEqual(again.slice(0, shape.instructions.length), shape.instructions.map((i) => all[i]), "the system prompt is sent again");
          assert.equal(again[shape.instructions.length], out.append[0], "then the marker");
          assert.ok(describeMessages(stored).messages[all.length].isMarker);
        }
        report.push({
          session: session.name,
          format: session.format,
          kind: session.kind,
          messages: all.length,
          estimate,
          budget,
          gateway: hasGateway,
          tier: out.tier,
          tokensAfter: out.tokensAfter,
          gatewayCalls: calls.length - before,
          reason: out.reason,
        });
      }
    }
    assert.deepEqual(all, snapshot, "the caller's history is unchanged");
    const growth = usageGrowth(session);
    if (growth) report.push({ session: session.name, usage: growth });
  });
}

test("the estimate grows as the provider's recorded prompt size grows", () => {
  // OpenAI (Codex, mini-swe-agent on GPT models) count with o200k_base-like
  // tokenizers: the estimate's growth is within 0.85 and 1.2 of theirs.
  // Anthropic's count grows faster than any o200k_base estimate (its
  // tokenizer and its rendering of tool blocks): 0.5 to 1.0, measured, so a
  // Claude loop should pass `lastUsage` (README, ContextManager).
  const bands = { codex: [0.85, 1.2], "mini-swe-agent": [0.85, 1.2], "claude-code": [0.5, 1.0] };
  let checked = 0;
  for (const session of sessions) {
    const growth = usageGrowth(session);
    const band = bands[session.kind];
    if (!growth || !band || session.name.includes("reasoner")) continue;
    checked++;
    assert.ok(growth.ratio >= band[0] && growth.ratio <= band[1], `${session.name}: ${growth.ratio.toFixed(2)}`);
  }
  assert.ok(checked >= 15, `${checked} sessions with recorded usage`);
});

test("requestReady: every stored Claude Code session, sent by @anthropic-ai/sdk, has role and content alone", async () => {
  const client = new Anthropic({ baseURL: server.anthropicBaseURL, apiKey: "test-key" });
  const claude = sessions.filter((s) => s.kind === "claude-code");
  assert.ok(claude.length >= 5);
  for (const session of claude) {
    const stored = deepFreeze(structuredClone(session.messages));
    const replies = stored.filter((m) => m.type === "message").length;
    assert.ok(replies > 0, `${session.name} stores replies as returned`);
    const ready = requestReady(emergencyPrune(stored, 20_000));
    const kept = new Set(stored);
    for (const message of ready) {
      assert.deepEqual(Object.keys(message).sort(), ["content", "role"], session.name);
      // A message that needs nothing is the very object; a copy carries the
      // stored content itself (the very array or string).
      if (!kept.has(message)) {
        assert.ok(stored.some((m) => m.content === message.content && Object.keys(m).length > 2), "a copy of a stored reply");
      }
    }
    await client.messages.create({ model: "claude-test", max_tokens: 16, messages: ready });
    const { json } = server.requests.at(-1);
    assert.equal(json.messages.length, ready.length);
    for (const message of json.messages) assert.deepEqual(Object.keys(message).sort(), ["content", "role"]);
  }
});

/** The estimate's growth from the first to the last recorded call, against the provider's. */
function usageGrowth(session) {
  if (!session.usage || session.usage.length < 2) return undefined;
  const first = session.usage[0];
  const last = session.usage.at(-1);
  const estimated = (count) => estimateTokens(session.messages.slice(0, count));
  const reported = last.promptTokens - first.promptTokens;
  const grew = estimated(last.messageCount) - estimated(first.messageCount);
  return { reported, estimated: grew, ratio: grew / reported, calls: session.usage.length };
}

/** One request in the user's own words, then many tool steps. */
function isSingleLongTask(session) {
  const infos = describeMessages(session.messages).messages;
  const turns = infos.filter((m) => m.startsUserTurn).length;
  const calls = infos.flatMap((m) => m.blocks).filter((b) => b.type === "tool-call").length;
  return turns <= 2 && calls >= 8;
}

/**
 * Where the history's parts are, read from describeMessages: the leading
 * system messages (the instructions among them, before any marker), the
 * newest user turn's request, and its newest step.
 */
function shapeOf(infos) {
  const system = (i) => infos[i].kind === "system" || infos[i].kind === "other";
  let lead = 0;
  while (lead < infos.length && system(lead)) lead++;
  const leading = [...Array(lead).keys()];
  const instructions = leading.filter((i) => !infos[i].isMarker);
  const turn = infos.findLastIndex((m) => m.startsUserTurn);
  const assistant = (i) => infos[i].kind === "assistant";
  const from = Math.max(turn, lead);
  let requestEnd = from;
  while (turn >= 0 && requestEnd < infos.length && !assistant(requestEnd)) requestEnd++;
  const request = turn >= 0 ? range(from, requestEnd) : [];
  let step = infos.length - 1;
  while (step > requestEnd && !(assistant(step) && !assistant(step - 1))) step--;
  const newestStep = step >= requestEnd ? range(step, infos.length) : [];
  return { leading, instructions, request, newestStep };
}

const range = (from, to) => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);

/** Pruning keeps every message; a changed one is a copy whose tool result reads as cleared. */
function checkPruned(all, pruned, format) {
  assert.equal(pruned.length, all.length);
  pruned.forEach((m, i) => {
    if (m !== all[i]) {
      assert.notEqual(m, all[i]);
      assert.ok(JSON.stringify(m).includes("[Old tool result content cleared]"), `message ${i} changed without a placeholder`);
    }
  });
  assert.deepEqual(orphans(pruned, format), orphans(all, format), "pruning pairs every call as before");
}

/**
 * What is sent: the instructions first (the very objects), then messages of
 * the history or the marker, no call without its result that had one, no
 * result without its call, and the provider's own ordering rules.
 */
function checkSent(all, sent, format, shape, where, append = []) {
  shape.instructions.forEach((index, i) => assert.equal(sent[i], all[index], `${where}: the system prompt is sent first`));
  const known = new Set([...all, ...append]);
  for (const m of sent) {
    if (!known.has(m)) assert.ok(JSON.stringify(m).includes("[Old tool result content cleared]"), `${where}: a message that is neither stored nor pruned`);
  }
  const [calls, results] = orphans(sent, format);
  const [callsBefore] = orphans(all, format);
  assert.deepEqual([...results], [], `${where}: a result without its call`);
  for (const id of calls) assert.ok(callsBefore.has(id), `${where}: call ${id} lost its result`);
  if (format === "anthropic") {
    const first = sent.findIndex((m) => m.role !== "system");
    if (first >= 0) assert.equal(sent[first].role, "user", `${where}: Anthropic's messages start with a user message`);
  }
  if (format === "openai-responses") {
    // A reasoning item goes with the item after it; a cut never makes a new
    // pair of reasoning and a user message (a stored one, from a response
    // that was interrupted, stays as it was).
    const next = new Map(all.map((m, i) => [m, all[i + 1]]));
    sent.forEach((m, i) => {
      const after = sent[i + 1];
      if (m.type === "reasoning" && after && after !== next.get(m)) {
        assert.ok(!(after.role === "user"), `${where}: reasoning ${i} sent alone before a user message`);
      }
    });
  }
}

/** Call ids without a result and result ids without a call, read independently. */
function orphans(messages, format) {
  const calls = new Map();
  const results = [];
  const open = (id) => calls.set(id, (calls.get(id) ?? 0) + 1);
  const answer = (id) => {
    if (calls.get(id) > 0) calls.set(id, calls.get(id) - 1);
    else results.push(id);
  };
  for (const m of messages) {
    if (format === "openai-chat") {
      for (const call of m.tool_calls ?? []) open(call.id);
      if (m.role === "tool") answer(m.tool_call_id);
    } else if (format === "langchain") {
      for (const call of m.kwargs.tool_calls ?? []) open(call.id);
      if (/^ToolMessage/.test(m.id.at(-1))) answer(m.kwargs.tool_call_id);
    } else if (format === "openai-responses") {
      if (/_call$/.test(m.type ?? "") && m.call_id) open(m.call_id);
      if (/_call_output$/.test(m.type ?? "") && m.call_id) answer(m.call_id);
    } else {
      for (const part of Array.isArray(m.content) ? m.content : []) {
        if (part.type === "tool_use" || part.type === "tool-call") open(part.id ?? part.toolCallId);
        if (part.type === "tool_result" || part.type === "tool-result") answer(part.tool_use_id ?? part.toolCallId);
      }
    }
  }
  return [new Set([...calls].filter(([, n]) => n > 0).map(([id]) => id)), new Set(results)];
}

test("pruneForModel: every real session repeated into a long one is pruned newest first as a whole read prunes it", () => {
  // Forty times over, each session is long enough to be read newest first,
  // so its older messages are read by the rules of where results are
  // (`content` alone in OpenAI Chat, the parts in AI SDK messages). The
  // answer is held to the memo's whole read, object for object.
  let edited = 0;
  for (const session of sessions) {
    const messages = deepFreeze(structuredClone(session.messages));
    const long = Array.from({ length: 40 }, () => messages).flat();
    for (const options of [undefined, { protectTokens: 0, minimumSavings: 0 }, { protectTokens: 200, minimumSavings: 100, protectTurns: 1 }]) {
      const whole = new HistoryMemo().pruneForModel(long, options);
      const pruned = pruneForModel(long, options);
      assert.deepEqual(pruned, whole, `${session.name} ${JSON.stringify(options)}`);
      pruned.forEach((message, i) => assert.equal(message === long[i], whole[i] === long[i], `${session.name} message ${i}`));
      edited += pruned.filter((message, i) => message !== long[i]).length;
    }
  }
  assert.ok(edited > 1_000, `${edited} messages edited`);
});

test("emergencyPrune: every real session repeated into a long one is cut newest first as a whole read cuts it, reading back only about as far as it keeps", () => {
  // At the default budget the cut keeps the newest few hundred messages or
  // fewer, and reads runs from the end until they decide it: never more
  // than four times what it keeps and 256 messages, nor messages of more
  // than 1.6 times the budget. A cut that could not be sure (gemini-cli's
  // responses, paired by an id their calls lack, once looked answered by
  // an unread call) read all of them; one whose second run reached as far
  // as the rate of the newest 32 messages said read up to 3.5 times the
  // budget (Claude Code's clauding-ad9315b5).
  for (const session of sessions) {
    const long = Array.from({ length: 40 }, () => session.messages).flat();
    const read = new Set();
    const watched = long.map((message, i) => new Proxy(message, { get: (target, key) => (read.add(i), Reflect.get(target, key)) }));
    const cut = emergencyPrune(watched, DEFAULT_MAX_TOKENS);
    assert.deepEqual(cut, new HistoryMemo().emergencyPrune(long, DEFAULT_MAX_TOKENS), session.name);
    // (The leading messages are looked at for the system prompt.)
    const reach = long.length - Math.min(...[...read].filter((i) => i >= 16));
    assert.ok(reach <= 4 * cut.length + 256, `${session.name}: read back ${reach} messages to keep ${cut.length}`);
    const readTokens = estimateTokens(long.slice(long.length - reach));
    assert.ok(readTokens <= 1.6 * DEFAULT_MAX_TOKENS, `${session.name}: read back ${readTokens} tokens`);
  }
});

test("pruneForModel: a history of text messages alone (SWE-agent 0.x) repeated into a long one is read for its roles alone", () => {
  // Its `{ role, content }` messages fit OpenAI Chat, Ollama, OpenAI
  // Responses and both AI SDK formats at once. An older assistant message
  // holds no results in OpenAI Chat by its role, and none in the AI SDK by
  // its text `content` (results there are parts of it): the roles' look
  // finds both (TEXT_CONTENT), so no older message is read further. When
  // only the role counted, the formats' reads differed and every message
  // was read whole (33 field reads each).
  const session = sessions.find((s) => s.name === "swe-agent-pydicom-1458");
  const long = Array.from({ length: 40 }, () => session.messages).flat();
  const reads = long.map(() => 0);
  const watched = long.map((message, i) => new Proxy(message, { get: (target, key) => (reads[i]++, Reflect.get(target, key)) }));
  const pruned = pruneForModel(watched);
  const older = reads.slice(0, long.length - 64);
  assert.ok(Math.max(...older) <= 3, `an older message was read ${Math.max(...older)} times`);
  assert.deepEqual(pruned, new HistoryMemo().pruneForModel(long));
});
