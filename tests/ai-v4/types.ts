// AI SDK 4's own CoreMessage goes in and comes back as itself.
import type { CoreMessage } from "ai";
import { emergencyPrune, pruneForModel, estimateTokens } from "kram-compaction";

const history: CoreMessage[] = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: [{ type: "text", text: "Read a.ts" }, { type: "image", image: new URL("https://example.com/a.png") }] },
  { role: "assistant", content: [{ type: "tool-call", toolCallId: "call_1", toolName: "readFile", args: { path: "a.ts" } }] },
  { role: "tool", content: [{ type: "tool-result", toolCallId: "call_1", toolName: "readFile", result: "export const a = 1;", isError: false }] },
];
const pruned: CoreMessage[] = pruneForModel(history, { format: "ai-sdk-4", protectTurns: 1 });
const cut: CoreMessage[] = emergencyPrune(pruned, 1_000);
const tokens: number = estimateTokens(cut);
export { tokens };
