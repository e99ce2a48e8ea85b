// Every export of kram-compaction used with real types; the @ts-expect-error
// lines prove that wrong uses fail to compile (tsc fails if one compiles).
import {
  COMPACTION_MARKER_NAME,
  DEFAULT_MAX_TOKENS,
  VERSION,
  effectiveHistory,
  emergencyPrune,
  estimateTokens,
  needsCompaction,
  pruneForModel,
  describeMessages,
  HistoryMemo,
  type ChatContentPart,
  type ChatMessage,
  type ChatToolCall,
  type FormatOptions,
  type Message,
  type MessageFormat,
  type PruneOptions,
  type MessageBlock,
  type MessageInfo,
  type HistoryDescription,
} from "kram-compaction";

const call: ChatToolCall = { id: "call_1", type: "function", function: { name: "run", arguments: "{}" } };
const part: ChatContentPart = { type: "text", text: "Fix the failing test" };
const history: ChatMessage[] = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: [part] },
  { role: "assistant", content: null, tool_calls: [call] },
  { role: "tool", tool_call_id: "call_1", content: "ok" },
  { role: "developer", content: "unknown roles are allowed" },
];
const format: MessageFormat = "openai-chat";
const formatOptions: FormatOptions = { format };
const pruneOptions: PruneOptions = { protectTurns: 2, protectTokens: 40_000, minimumSavings: 0, placeholder: "[cleared]", format };

const tokens: number = estimateTokens(history, formatOptions);
// Fields the types do not name are allowed where a history is passed in.
const withUnknown: number = estimateTokens([{ role: "tool", tool_call_id: "call_1", content: "ok", reasoning_content: "kept as is" }]);
const over: boolean = needsCompaction(history, DEFAULT_MAX_TOKENS, formatOptions);
const effective: ChatMessage[] = effectiveHistory(history);
const pruned: ChatMessage[] = pruneForModel(effective, pruneOptions);
const cut: Message[] = emergencyPrune(pruned, 1_000);
const marker: string = COMPACTION_MARKER_NAME;
const version: string = VERSION;
const first: ChatMessage | undefined = pruned[0];
const described: HistoryDescription = describeMessages(history, formatOptions);
const info: MessageInfo | undefined = described.messages[0];
const kinds: MessageInfo["kind"][] = described.messages.map((m) => m.kind);
const calls: string[] = described.messages
  .flatMap((m): MessageBlock[] => m.blocks)
  .flatMap((b) => (b.type === "tool-call" ? [b.name] : []));
const memo = new HistoryMemo();
const remembered: ChatMessage[] = memo.pruneForModel(memo.effectiveHistory(history), { protectTurns: 1 });
const memoTokens: number = memo.estimateTokens(remembered) + memo.size;
const memoCut: ChatMessage[] = memo.emergencyPrune(remembered, 1_000);
const memoOver: boolean = memo.needsCompaction(memoCut, 1_000);
// @ts-expect-error the memo's functions take messages too
memo.estimateTokens("hello");

export { tokens, withUnknown, over, marker, version, first, info, kinds, calls, memoTokens, memoOver };

// @ts-expect-error a message list, not a string
estimateTokens("hello");
// @ts-expect-error content is a string, null or parts, never a number
estimateTokens([{ role: "user", content: 5 }]);
// @ts-expect-error a message needs a role
estimateTokens([{ content: "no role" }]);
// @ts-expect-error options of pruneForModel are typed
pruneForModel(history, { protectTurns: "two" });
// @ts-expect-error only known formats
estimateTokens(history, { format: "anthropic-xml" });
// @ts-expect-error a budget is a number
needsCompaction(history, "60000");
// @ts-expect-error the result is a message list, not a number
const wrong: number = effectiveHistory(history);
// @ts-expect-error a description's format is a known one
const notAFormat: "xml" = described.format;
// @ts-expect-error VERSION is a constant
VERSION = "2";
