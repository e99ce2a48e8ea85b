// Agent-loop histories for tests, in the OpenAI Chat Completions format.

/**
 * A coding session: a system prompt, then `turns` user turns, each with a
 * tool call whose output has `outputLines` lines and a closing answer.
 */
export function codingSession(turns, { outputLines = 20, tag = "" } = {}) {
  const messages = [{ role: "system", content: "You are a coding agent." }];
  for (let turn = 0; turn < turns; turn++) {
    const id = `call_${tag}${turn}`;
    messages.push(
      { role: "user", content: `Step ${turn}${tag}: fix the failing test in src/mod${turn}.rs` },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id, type: "function", function: { name: "run_tests", arguments: `{"path":"src/mod${turn}.rs"}` } }],
      },
      { role: "tool", tool_call_id: id, content: `test mod${turn}::case ... FAILED at line ${turn}\n`.repeat(outputLines) },
      { role: "assistant", content: `Fixed src/mod${turn}.rs${tag}.` },
    );
  }
  return messages;
}

/**
 * `codingSession` as AI SDK `ModelMessage`s: each tool message a
 * `tool-result` part whose `output` is text.
 */
export function aiSdkSession(turns, options) {
  return codingSession(turns, options).map((message) => {
    if (message.role === "user") return { role: "user", content: [{ type: "text", text: message.content }] };
    if (message.role === "tool") {
      const output = { type: "text", value: message.content };
      return { role: "tool", content: [{ type: "tool-result", toolCallId: message.tool_call_id, toolName: "run_tests", output }] };
    }
    if (!message.tool_calls) return message;
    const calls = message.tool_calls.map(({ id, function: call }) => ({
      type: "tool-call",
      toolCallId: id,
      toolName: call.name,
      input: JSON.parse(call.arguments),
    }));
    return { role: "assistant", content: calls };
  });
}

/** Freezes a value and everything in it, so any mutation throws. */
export function deepFreeze(value) {
  if (value && typeof value === "object") {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

/** The `--- message N: role ---` numbers of a transcript, in order. */
export function messageNumbers(text) {
  return [...text.matchAll(/^--- message (\d+): /gm)].map((m) => Number(m[1]));
}

/** An array behind a Proxy that counts the reads of its elements: in all, and of each (`at`). */
export function countedElements(array) {
  const count = { reads: 0, at: new Array(array.length).fill(0) };
  const proxy = new Proxy(array, {
    get(target, key, receiver) {
      if (typeof key === "string" && /^\d+$/.test(key)) {
        count.reads += 1;
        count.at[key] += 1;
      }
      return Reflect.get(target, key, receiver);
    },
  });
  return { proxy, count };
}
