/**
 * Real agent sessions for tests, read from tests/sessions/.
 *
 * Every file there is a session recorded by someone else's agent run and
 * published in a public repository (see tests/sessions/SOURCES.md); none was
 * written by this project. `loadRealSessions()` reads them with `node:fs` only
 * and returns, for each session:
 *
 *   { name, format, kind, source, messages, usage }
 *
 * - `format`: one of MESSAGE_FORMATS.
 * - `kind`: the agent that wrote the file ("swe-agent", "mini-swe-agent",
 *   "claude-code", "codex", "codex-legacy", "ai-sdk-devtools", "gemini-cli",
 *   "langgraph-stream", "usechat-request").
 * - `source`: "owner/name@commit:path" of the file in its repository.
 * - `messages`: the history as the agent stores (and sends) it, with the least
 *   conversion; the per-kind extractor below says what, if anything, changed.
 * - `usage`: provider-reported prompt sizes, or `undefined` when the file
 *   records none. Each point is `{ messageCount, promptTokens }`:
 *   `promptTokens` is the prompt size the provider reported for one model call,
 *   and `messageCount` is how many leading entries of `messages` were that
 *   call's input, i.e. the number of entries recorded before the call's first
 *   output entry. Per kind:
 *     - mini-swe-agent: `extra.response.usage.prompt_tokens` stored on each
 *       assistant message (the raw litellm response); messageCount = index of
 *       that assistant message in `messages`.
 *     - claude-code: `input_tokens + cache_creation_input_tokens +
 *       cache_read_input_tokens` of the assistant reply's `usage`. Claude Code
 *       stores one API reply as several consecutive entries sharing
 *       `message.id` (one content block each, each with a `usage` whose input
 *       side is the same); one point per distinct `message.id`, taken from
 *       its first entry, and
 *       messageCount = index of that first entry. Replies with model
 *       "<synthetic>" (written by Claude Code itself, not by the API) are
 *       skipped.
 *     - codex: `info.last_token_usage.input_tokens` of each `event_msg`
 *       `token_count` event. A call's output entries are a maximal run of
 *       model-produced response items (reasoning, assistant message,
 *       function_call, custom_tool_call, local_shell_call, web_search_call);
 *       the event is written right after that run (Codex 0.77 and later) or
 *       right before it (0.50, 0.58), and messageCount = index of the run's
 *       first entry. Events with `info: null`, repeats with an unchanged
 *       `total_token_usage`, and events next to no unclaimed run are skipped.
 */

import { readFileSync } from "node:fs";

const DIR = new URL("../sessions/", import.meta.url);

/** The files, their repository of origin, and how each is read. */
const FILES = [
  // OpenAI Chat: SWE-agent 1.x (function calling)
  {
    file: "swe-agent-marshmallow-1867-fc.traj",
    format: "openai-chat",
    kind: "swe-agent",
    read: sweAgentV1,
    source:
      "SWE-agent/SWE-agent@3ea751c087f32b16e039a2233dd6eefecef325d5:trajectories/demonstrations/replay__marshmallow-code__marshmallow-1867__function_calling_replace_from_source/marshmallow-code__marshmallow-1867.traj",
  },
  {
    file: "swe-agent-marshmallow-1867-fc-replace.traj",
    format: "openai-chat",
    kind: "swe-agent",
    read: sweAgentV1,
    source:
      "SWE-agent/SWE-agent@3ea751c087f32b16e039a2233dd6eefecef325d5:trajectories/demonstrations/replay__marshmallow-code__marshmallow-1867__function_calling_replace__install-1/marshmallow-code__marshmallow-1867.traj",
  },
  // OpenAI Chat: SWE-agent 0.x (no function calling, gpt-4 run)
  {
    file: "swe-agent-pydicom-1458.traj",
    format: "openai-chat",
    kind: "swe-agent",
    read: sweAgentV0,
    source:
      "SWE-agent/SWE-agent@3ea751c087f32b16e039a2233dd6eefecef325d5:tests/test_data/trajectories/gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1/pydicom__pydicom-1458.traj",
  },
  // OpenAI Chat: mini-swe-agent 2.x (tool calls, litellm responses stored)
  ...[
    ["mini-swe-agent-django-11099.traj.json", "output/deepseek_chat_test_1-100/django__django-11099/django__django-11099.traj.json"],
    ["mini-swe-agent-django-13964.traj.json", "output/deepseek_chat_test_1-100/django__django-13964/django__django-13964.traj.json"],
    ["mini-swe-agent-sqlfluff-1763-reasoner.traj.json", "output/deepseek_reasoner_dev/sqlfluff__sqlfluff-1763/sqlfluff__sqlfluff-1763.traj.json"],
    ["mini-swe-agent-pvlib-1072.traj.json", "output/deepseek_chat_dev/pvlib__pvlib-python-1072/pvlib__pvlib-python-1072.traj.json"],
  ].map(([file, path]) => ({
    file,
    format: "openai-chat",
    kind: "mini-swe-agent",
    read: miniSweAgent,
    source: `SWE-agent/mini-swe-agent@ec0e8e849fea5b1619deb1753007201000904672:${path}`,
  })),
  {
    file: "mini-swe-agent-astropy-12907.traj.json",
    format: "openai-chat",
    kind: "mini-swe-agent",
    read: miniSweAgent,
    source:
      "SWE-agent/mini-swe-agent@9672e6b73735e63c59aa91cf830a8db857752c49:eval/example_trajectories/astropy__astropy-12907.traj.json",
  },
  // Anthropic Messages: Claude Code session files
  ...[
    ["claude-code-viewer-1af7fc5e.jsonl", "d-kimuson/claude-code-viewer@9367cf006be9965c954e6cd36526f2195dce67ea:mock-global-claude-dir/projects/sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"],
    ["claude-code-viewer-5c0375b4.jsonl", "d-kimuson/claude-code-viewer@9367cf006be9965c954e6cd36526f2195dce67ea:mock-global-claude-dir/projects/sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"],
    ["claude-code-viewer-fe5e1c67.jsonl", "d-kimuson/claude-code-viewer@9367cf006be9965c954e6cd36526f2195dce67ea:mock-global-claude-dir/projects/sample-project/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"],
    ["claude-code-zibe-4eb362e5.jsonl", "Zatoichi-42/claude-zibe@0a42058a34e87db7e8e0a9d1e3eaaa6584f7a5f2:.claude/projects/-home-zorrik-Projects-Sentinel/4eb362e5-e40d-4f92-be47-a5eb907628b9.jsonl"],
    ["claude-code-zibe-233f3f06.jsonl", "Zatoichi-42/claude-zibe@0a42058a34e87db7e8e0a9d1e3eaaa6584f7a5f2:.claude/projects/-home-zorrik-Projects-Sentinel/233f3f06-aec8-4e4c-9da6-0ac730f2a265.jsonl"],
    ["claude-code-clauding-ad9315b5.jsonl", "carollynn2253/Clauding@2ac3366d1c6135a6ab4619868c9c5698740f87aa:.claude/projects/-Users-07404-chingting-chiu-Documents-AndroidStudioProject-android-188asia2-Bet188-application/ad9315b5-313a-4c05-80a4-a079ea7f23f4.jsonl"],
    ["claude-code-clauding-e7ffdd64.jsonl", "carollynn2253/Clauding@2ac3366d1c6135a6ab4619868c9c5698740f87aa:.claude/projects/-Users-07404-chingting-chiu-Documents-AndroidStudioProject-android-188asia2-Bet188-application/e7ffdd64-4fcb-47e3-8ce1-27ab71296170.jsonl"],
  ].map(([file, source]) => ({ file, format: "anthropic", kind: "claude-code", read: claudeCode, source })),
  // OpenAI Responses: Codex CLI rollout files
  ...[
    ["codex-session-view-019a93b9.jsonl", "AcidicSoil/codex-session-view@23314e081365810b6c593aebd60a4ccb2149befb:.sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl"],
    ["codex-travelblogs-019b47bc.jsonl", "dreyer-thomas/TravelBlogs@d1b37f74c7e43aed3f42e61289c6cab3486f2fd1:.codex/sessions/2025/12/22/rollout-2025-12-22T21-24-57-019b47bc-8d0a-7c80-bb69-ebf5fbef8510.jsonl"],
    ["codex-travelblogs-019b6496.jsonl", "dreyer-thomas/TravelBlogs@d1b37f74c7e43aed3f42e61289c6cab3486f2fd1:.codex/sessions/2025/12/28/rollout-2025-12-28T11-52-47-019b6496-dd4d-76d3-b7a6-4e155cd50fb9.jsonl"],
    ["codex-lab2-019c1fb5.jsonl", "pratham124/Lab2@b1f7511bfda1087a3f85690baecf93164b62fcca:.codex/sessions/2026/02/02/rollout-2026-02-02T11-54-44-019c1fb5-0cab-7dd1-afce-5a65e86918a5.jsonl"],
    ["codex-lab2-019c1b73.jsonl", "pratham124/Lab2@b1f7511bfda1087a3f85690baecf93164b62fcca:.codex/sessions/2026/02/01/rollout-2026-02-01T16-04-37-019c1b73-775e-7ec0-ad56-b95e8c04e283.jsonl"],
    ["codex-rps3-019a294a.jsonl", "Kooksun/RPS_3@949962e8697731e1c8768a73756e175ce9dbfc75:.codex/sessions/2025/10/28/rollout-2025-10-28T14-28-35-019a294a-1fd4-75a2-b137-02977f067579.jsonl"],
    ["codex-voice-assistant-019b5669.jsonl", "0h-n0/local-voice-assistant-codex@d69f8b301ab77a6e3b582b169c13c5c4ba48c79f:.codex/sessions/2025/12/26/rollout-2025-12-26T01-48-36-019b5669-8da8-7bc3-bed8-e1c1b805dad5.jsonl"],
  ].map(([file, source]) => ({ file, format: "openai-responses", kind: "codex", read: codexRollout, source })),
  {
    file: "codex-legacy-example.jsonl",
    format: "openai-responses",
    kind: "codex-legacy",
    read: codexLegacy,
    source: "AcidicSoil/codex-session-viewer@2a6b193d68e866bb3752273e883b368bcd8af467:docs/example.jsonl",
  },
  // AI SDK: @ai-sdk/devtools capture files (one session per run)
  {
    file: "ai-sdk-devtools-openpaw.json",
    format: "ai-sdk",
    kind: "ai-sdk-devtools",
    read: aiSdkDevtools,
    runs: ["20260318081220351-2ff20ebf", "20260318083758905-e26438cb"],
    source: "amanmprojects/openpaw@9d8907b64b84ee0d51f9005adfe05a3d5b1bd841:.devtools/generations.json",
  },
  {
    file: "ai-sdk-devtools-sqlrooms.json",
    format: "ai-sdk",
    kind: "ai-sdk-devtools",
    read: aiSdkDevtools,
    runs: ["20260617194607766-33a10bcc"],
    source: "sqlrooms/sqlrooms@c2fe8af4c50d54d309e25144bf9da44e1f6afac2:.devtools/generations.json",
  },
  // Gemini: gemini-cli `/chat save` checkpoints, the chat's Content[] as sent
  ...[
    ["gemini-cli-ksl-1215-15.json", "1215-15.json"],
    ["gemini-cli-ksl-vibe-coding.json", "vibe_coding.json"],
  ].map(([file, path]) => ({
    file,
    format: "gemini",
    kind: "gemini-cli",
    read: geminiCliCheckpoint,
    source: `minwookhan/ksl@03e7d3b6c3199bec35803c692758f8dd2642e86f:${path}`,
  })),
  // AI SDK UI messages: a useChat request body recorded by pydantic-ai's tests
  {
    file: "pydantic-ai-usechat-submit.json",
    format: "ai-sdk-ui",
    kind: "usechat-request",
    read: useChatRequest,
    source: "pydantic/pydantic-ai@4fda38988f2939fa6ea9cdefcf120693e10ef491:tests/test_vercel_ai.py",
  },
  {
    file: "vercel-ai-langgraph-fixtures.json",
    format: "langchain",
    kind: "langgraph-stream",
    read: langgraphStream,
    source: "vercel/ai@ed857f50f112e23930b0c2dd8d532cc8bebbc911:packages/langchain/src/__fixtures__/langgraph.ts",
  },
];

/** Every session in tests/sessions/, in the order of FILES. */
export function loadRealSessions() {
  const sessions = [];
  for (const entry of FILES) {
    const text = readFileSync(new URL(entry.file, DIR), "utf8");
    const base = entry.file.replace(/\.(traj\.json|traj|jsonl|json)$/, "");
    for (const part of entry.read(text, entry)) {
      sessions.push({
        name: part.suffix ? `${base}-${part.suffix}` : base,
        format: entry.format,
        kind: entry.kind,
        source: entry.source,
        messages: part.messages,
        usage: part.usage && part.usage.length > 0 ? part.usage : undefined,
      });
    }
  }
  return sessions;
}

function jsonLines(text) {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
}

/**
 * SWE-agent 1.x: the `history` array, converted exactly as the agent converts
 * it before sending: `LiteLLMModel._history_to_messages` in
 * sweagent/agent/models.py (SWE-agent/SWE-agent). A tool message becomes
 * `{role, content, tool_call_id: tool_call_ids[0]}`; a message with
 * `tool_calls` becomes `{role, content, tool_calls}` (plus `thinking_blocks`
 * when present); any other becomes `{role, content}`; `cache_control` is kept
 * when present. The keys it drops (`agent`, `message_type`, `thought`,
 * `action`) are not sent. System stays "system" (convert_system_to_user is
 * false in these runs). History processors (here last_n_observations) run at
 * query time and are not applied: this is the stored history.
 */
function sweAgentV1(text) {
  const { history } = JSON.parse(text);
  const messages = history.map((item) => {
    let message;
    if (item.role === "tool") {
      message = { role: item.role, content: item.content, tool_call_id: item.tool_call_ids[0] };
    } else if (item.tool_calls !== undefined && item.tool_calls !== null) {
      message = { role: item.role, content: item.content, tool_calls: item.tool_calls };
      if (item.thinking_blocks) message.thinking_blocks = item.thinking_blocks;
    } else {
      message = { role: item.role, content: item.content };
    }
    if ("cache_control" in item) message.cache_control = item.cache_control;
    return message;
  });
  return [{ messages }];
}

/**
 * SWE-agent 0.x: the `history` array reduced to `{role, content}`, as the
 * agent does before sending: `OpenAIModel.history_to_messages` in
 * sweagent/agent/models.py (SWE-agent/SWE-agent, branch v0.7). It drops
 * `agent` and `is_demo`, which are not sent.
 */
/**
 * gemini-cli checkpoint (`/chat save <tag>` writes `checkpoint-<tag>.json`):
 * the chat's history, a `Content[]` as gemini-cli sends it in `contents`,
 * taken unchanged. No usage is recorded.
 */
/** A useChat `submit-message` body: its `messages`, without the envelope. */
function useChatRequest(text) {
  return [{ messages: JSON.parse(text).messages }];
}

function geminiCliCheckpoint(text) {
  return [{ messages: JSON.parse(text) }];
}

function sweAgentV0(text) {
  const { history } = JSON.parse(text);
  return [{ messages: history.map((item) => ({ role: item.role, content: item.content })) }];
}

/**
 * mini-swe-agent 2.x: the `messages` array with the key `extra` removed from
 * each message, as `LitellmModel._prepare_messages_for_api` in
 * src/minisweagent/models/litellm_model.py (SWE-agent/mini-swe-agent) does;
 * its other two steps are no-ops here (no Anthropic thinking blocks, and
 * set_cache_control is null in these runs). The final `role: "exit"` message
 * is dropped: the agent appends it when it stops and never sends it.
 */
function miniSweAgent(text) {
  const { messages: stored } = JSON.parse(text);
  const messages = [];
  const usage = [];
  for (const message of stored) {
    if (message.role === "exit") continue;
    const promptTokens = message.extra?.response?.usage?.prompt_tokens;
    if (message.role === "assistant" && typeof promptTokens === "number") {
      usage.push({ messageCount: messages.length, promptTokens });
    }
    const { extra: _extra, ...sent } = message;
    messages.push(sent);
  }
  return [{ messages, usage }];
}

/**
 * Claude Code: the `message` field of every `user`/`assistant` entry that is
 * not a sidechain, in file order, unchanged (assistant replies keep `id`,
 * `type`, `model`, `stop_reason`, `usage`, ...). Other entry types (summary,
 * system, progress, file-history-snapshot, queue-operation, attachment, ...)
 * are not messages.
 */
function claudeCode(text) {
  const messages = [];
  const usage = [];
  const seen = new Set();
  for (const entry of jsonLines(text)) {
    if (entry.type !== "user" && entry.type !== "assistant") continue;
    if (entry.isSidechain) continue;
    const message = entry.message;
    if (entry.type === "assistant" && message.usage && message.model !== "<synthetic>" && !seen.has(message.id)) {
      seen.add(message.id);
      const u = message.usage;
      usage.push({
        messageCount: messages.length,
        promptTokens: (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0),
      });
    }
    messages.push(message);
  }
  return [{ messages, usage }];
}

const CODEX_OUTPUT_TYPES = new Set([
  "reasoning",
  "function_call",
  "custom_tool_call",
  "local_shell_call",
  "web_search_call",
]);

function isCodexOutput(item) {
  return CODEX_OUTPUT_TYPES.has(item.type) || (item.type === "message" && item.role === "assistant");
}

/**
 * Codex CLI rollout: the `payload` of every `response_item` line, unchanged
 * (ghost_snapshot and reasoning items with encrypted_content included).
 */
function codexRollout(text) {
  const messages = [];
  const points = [];
  let lastTotal;
  for (const line of jsonLines(text)) {
    if (line.type === "response_item") {
      messages.push(line.payload);
    } else if (line.type === "event_msg" && line.payload?.type === "token_count") {
      const info = line.payload.info;
      const promptTokens = info?.last_token_usage?.input_tokens;
      if (typeof promptTokens !== "number") continue;
      // Codex writes the same event again at the end of a turn: one point per
      // change of the running total.
      const total = JSON.stringify(info.total_token_usage);
      if (total === lastTotal) continue;
      lastTotal = total;
      points.push({ at: messages.length, promptTokens });
    }
  }
  // The model calls' outputs: maximal runs of model-produced items.
  const runs = [];
  messages.forEach((item, i) => {
    if (!isCodexOutput(item)) return;
    if (i > 0 && isCodexOutput(messages[i - 1])) runs[runs.length - 1].end = i + 1;
    else runs.push({ start: i, end: i + 1, used: false });
  });
  const usage = [];
  for (const { at, promptTokens } of points) {
    // Codex 0.77 and later write the event after the call's output items
    // (the run ends where the event is); 0.50 and 0.58 write it before them
    // (the run starts there). An event next to no unused run is skipped.
    const run = runs.find((r) => !r.used && r.end === at) ?? runs.find((r) => !r.used && r.start === at);
    if (!run) continue;
    run.used = true;
    usage.push({ messageCount: run.start, promptTokens });
  }
  usage.sort((a, b) => a.messageCount - b.messageCount);
  return [{ messages, usage }];
}

/**
 * Codex CLI rollout in the older format (mid-2025): line 1 is the session
 * header `{id, timestamp, instructions, git}`, then the response items
 * themselves, one a line, interleaved with `{"record_type": "state"}` lines.
 * messages = every line that has a `type`, unchanged. No usage is recorded.
 */
function codexLegacy(text) {
  const messages = jsonLines(text).filter((line) => typeof line.type === "string");
  return [{ messages }];
}

/**
 * @ai-sdk/devtools capture (`.devtools/generations.json`): `{runs, steps}`,
 * each step one model call whose `input` is a JSON string holding the
 * `prompt` the AI SDK passed to the provider (LanguageModelV3Prompt: the
 * standardized ModelMessage list, with `tool-call` `input` and `tool-result`
 * `output: {type, value}`). One session per listed run: messages = the prompt
 * of the run's last step, unchanged (each earlier step's prompt is a prefix of
 * it). The steps' `usage` is recorded as empty objects, so usage is undefined.
 */
/**
 * Recorded LangGraph.js `stream` outputs (`[mode, payload]` events) of a
 * createAgent graph, one recording per key: the session is the graph state's
 * `messages` (serialised LangChain messages) of the recording's last `values`
 * event that has them, as a checkpoint stores it.
 */
function langgraphStream(text) {
  return Object.entries(JSON.parse(text)).map(([name, events]) => {
    const states = events.filter(([mode, payload]) => mode === "values" && Array.isArray(payload.messages));
    return { suffix: name.toLowerCase().replaceAll("_", "-"), messages: states.at(-1)[1].messages };
  });
}

function aiSdkDevtools(text, entry) {
  const { steps } = JSON.parse(text);
  return entry.runs.map((runId) => {
    const runSteps = steps.filter((step) => step.run_id === runId).sort((a, b) => a.step_number - b.step_number);
    const last = runSteps[runSteps.length - 1];
    const { prompt } = JSON.parse(last.input);
    return { suffix: runId.slice(-8), messages: prompt };
  });
}
