// A seeded generator of coding-agent histories, modelled on real sessions: a
// user request, then steps of assistant text with parallel tool calls and
// their outputs (source code, JSON, logs, diffs), then an answer; a share of
// the requests and answers in CJK. Every text is cut from the corpus of real
// text in tests/corpus/, so the histories read like the real thing.
//
// One abstract session is rendered three ways: OpenAI Chat messages, AI SDK
// model messages, and the plain objects LangChain's messages are built from.

import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { rng } from "../tests/support/random.mjs";

const CORPUS_DIR = fileURLToPath(new URL("../tests/corpus/", import.meta.url));

function corpusLines(categories) {
  const texts = [];
  for (const category of categories) {
    for (const file of readdirSync(join(CORPUS_DIR, category)).sort()) {
      const text = readFileSync(join(CORPUS_DIR, category, file), "utf8");
      const lines = file.endsWith(".json")
        ? JSON.parse(text).flatMap((message) => message.content.split("\n"))
        : text.split("\n");
      texts.push(lines);
    }
  }
  return texts;
}

const MATERIAL = {
  code: corpusLines(["code-rust", "code-typescript", "code-javascript", "code-python", "code-c"]),
  json: corpusLines(["json-pretty", "json-compact"]),
  logs: corpusLines(["logs"]),
  diff: corpusLines(["diff"]),
  prose: corpusLines(["prose-readme", "mixed-chat"]),
  cjk: corpusLines(["chinese", "japanese", "korean"]),
};

const TOOLS = {
  code: ["read_file", (r) => ({ path: `src/${word(r)}/${word(r)}.ts` })],
  json: ["http_get", (r) => ({ url: `https://api.example.test/v1/${word(r)}?page=${1 + Math.floor(r() * 9)}` })],
  logs: ["bash", (r) => ({ command: `npm test -- --grep ${word(r)}` })],
  diff: ["bash", (r) => ({ command: `git diff HEAD~${1 + Math.floor(r() * 5)} -- src/${word(r)}` })],
};
const WORDS = ["client", "session", "parser", "config", "router", "cache", "auth", "worker", "queue", "schema"];
const word = (r) => WORDS[Math.floor(r() * WORDS.length)];

/** About `bytes` of whole lines from a random place in one of `texts`. */
function slice(r, texts, bytes) {
  const lines = texts[Math.floor(r() * texts.length)];
  let at = Math.floor(r() * lines.length);
  let out = "";
  while (out.length < bytes) {
    out += lines[at % lines.length] + "\n";
    at += 1;
  }
  return out;
}

/** A session of about `count` messages, as abstract events. */
function session(count, seed) {
  const r = rng(seed);
  const events = [{ kind: "system", text: slice(r, MATERIAL.prose, 600) }];
  let call = 0;
  while (events.length < count) {
    const cjk = r() < 0.1;
    events.push({ kind: "user", text: slice(r, cjk ? MATERIAL.cjk : MATERIAL.prose, 80 + r() * 300) });
    const steps = 1 + Math.floor(r() * 4);
    for (let step = 0; step < steps && events.length < count; step++) {
      const calls = [];
      const parallel = 1 + Math.floor(r() * 3);
      for (let i = 0; i < parallel; i++) {
        const kind = ["code", "code", "json", "logs", "diff"][Math.floor(r() * 5)];
        const [name, input] = TOOLS[kind];
        const size = 400 + r() * r() * 14_000;
        calls.push({ id: `call_${seed}_${call++}`, name, input: input(r), output: slice(r, MATERIAL[kind], size) });
      }
      const text = r() < 0.6 ? slice(r, MATERIAL.prose, 60 + r() * 240) : "";
      events.push({ kind: "assistant", text, calls });
      for (const c of calls) events.push({ kind: "tool", call: c });
    }
    events.push({ kind: "assistant", text: slice(r, cjk ? MATERIAL.cjk : MATERIAL.prose, 150 + r() * 900), calls: [] });
  }
  return events.slice(0, count);
}

function toChat(events) {
  return events.map((e) => {
    switch (e.kind) {
      case "system":
      case "user":
        return { role: e.kind, content: e.text };
      case "assistant":
        return e.calls.length === 0
          ? { role: "assistant", content: e.text }
          : {
              role: "assistant",
              content: e.text || null,
              tool_calls: e.calls.map((c) => ({
                id: c.id,
                type: "function",
                function: { name: c.name, arguments: JSON.stringify(c.input) },
              })),
            };
      case "tool":
        return { role: "tool", tool_call_id: e.call.id, content: e.call.output };
    }
  });
}

function toAiSdk(events) {
  return events.map((e) => {
    switch (e.kind) {
      case "system":
        return { role: "system", content: e.text };
      case "user":
        return { role: "user", content: [{ type: "text", text: e.text }] };
      case "assistant":
        return {
          role: "assistant",
          content: [
            ...(e.text ? [{ type: "text", text: e.text }] : []),
            ...e.calls.map((c) => ({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: c.input })),
          ],
        };
      case "tool":
        return {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: e.call.id,
              toolName: e.call.name,
              output: { type: "text", value: e.call.output },
            },
          ],
        };
    }
  });
}

/** The fields LangChain's message classes are built from. */
function toLangChainFields(events) {
  return events.map((e) => {
    switch (e.kind) {
      case "system":
        return { type: "system", content: e.text };
      case "user":
        return { type: "human", content: e.text };
      case "assistant":
        return {
          type: "ai",
          content: e.text,
          tool_calls: e.calls.map((c) => ({ id: c.id, name: c.name, args: c.input, type: "tool_call" })),
        };
      case "tool":
        return { type: "tool", content: e.call.output, tool_call_id: e.call.id };
    }
  });
}

/** A history of `count` messages in every rendering, the same for a seed. */
export function generate(count, seed = 42) {
  const events = session(count, seed);
  return { chat: toChat(events), aiSdk: toAiSdk(events), langChain: toLangChainFields(events) };
}

/** The UTF-8 bytes of every string in a value, and how many strings. */
export function stringBytes(value) {
  let bytes = 0;
  let strings = 0;
  const visit = (v) => {
    if (typeof v === "string") {
      bytes += Buffer.byteLength(v);
      strings += 1;
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === "object") Object.values(v).forEach(visit);
  };
  visit(value);
  return { bytes, strings };
}
