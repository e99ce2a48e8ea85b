// requestReady(): a stored history as a request the provider accepts. Which
// fields each provider refuses is decided in Rust (src/request.rs); this only
// makes the copies.
import * as wasm from "./wasm.js";
import type { FormatOptions, Message } from "./wasm.js";

type Fix = { drop: string[]; onlyId: string[] } | undefined;

/**
 * The history with every message the provider would refuse replaced by a copy
 * it accepts; the others are the very same objects. Anthropic replies stored
 * as returned (`id`, `type`, `model`, `stop_reason`, `usage`, ...) become
 * `{ role, content }`; OpenAI Chat replies lose `annotations` and keep only the
 * `id` of `audio`. AI SDK and OpenAI Responses messages go back as they are.
 *
 * ```ts
 * const reply = await client.messages.create({ model, max_tokens, system, messages: requestReady(history) });
 * history.push(reply); // stored as returned
 * ```
 */
export function requestReady<M extends Message>(messages: readonly M[], options?: FormatOptions): M[] {
  const fixes = wasm.requestFixes(messages as unknown as Message[], options) as Fix[];
  return messages.map((message, index) => {
    const fix = fixes[index];
    if (fix === undefined) return message;
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(message)) {
      if (fix.drop.includes(key)) continue;
      copy[key] = fix.onlyId.includes(key) ? { id: (value as { id?: unknown }).id } : value;
    }
    return copy as M;
  });
}
