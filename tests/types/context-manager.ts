// ContextManager used with real types.
import { ContextManager, type ChatMessage, type ContextManagerOptions, type LastUsage, type Prepared, type Tier, type Gateway } from "kram-compaction";

declare const gateway: Gateway;
const options: ContextManagerOptions = { gateway, model: "gpt-4o-mini", maxTokens: 100_000, maxCompactionsPerRun: 2, prune: { protectTurns: 2 }, compact: { timeoutMs: 60_000 } };
const ctx = new ContextManager(options);
ctx.startRun();
const all: ChatMessage[] = [{ role: "user", content: "Fix the failing test" }];
const usage: LastUsage = { promptTokens: 1_200, messageCount: 1 };
async function step(): Promise<Tier> {
  const prepared: Prepared<ChatMessage> = await ctx.prepare(all, { lastUsage: usage });
  const toSend: ChatMessage[] = prepared.messages;
  const toPersist: ChatMessage[] = prepared.append;
  return toSend.length + toPersist.length > 0 ? prepared.tier : "none";
}
export { step };

// @ts-expect-error maxTokens is a number
new ContextManager({ maxTokens: "60000" });

// A budget per call, for a UI whose budget moves.
async function atBudget(maxTokens: number): Promise<Tier> {
  return (await ctx.prepare(all, { maxTokens })).tier;
}
export { atBudget };
// @ts-expect-error a call's maxTokens is a number
void ctx.prepare(all, { maxTokens: "60000" });
