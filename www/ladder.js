// The tiers for one budget, every decision the package's: the tier is
// ContextManager's (its ladder, in Rust), pruning and the cut are
// pruneForModel and emergencyPrune at that budget. What happened to each
// message is read off their outputs, never worked out here: the very same
// object means kept, a new object means its tool result was cleared,
// absence means dropped. One ContextManager and one HistoryMemo live as long
// as the history, so a budget change reads no stored message again.
import { ContextManager, HistoryMemo, estimateTokens } from "kram-compaction";

/**
 * What does not depend on the budget, read once per history; `described` is
 * describeMessages(all), which the page has read already.
 */
export function prepare(all, described) {
  const options = { format: described.format };
  const memo = new HistoryMemo();
  const effective = memo.effectiveHistory(all, options);
  return {
    all,
    effective,
    options,
    memo,
    manager: new ContextManager(options),
    // Tokens of each cleared copy, by the copy: the memo hands back the same copy every time.
    copyTokens: new WeakMap(),
    // Where each message of `all` is in the effective history, or -1 when
    // it is not sent: the effective history is the leading system messages,
    // then everything from the newest marker on.
    positions: positionsIn(all, effective),
    messageTokens: described.messages.map((info) => info.tokens),
    tokens: { all: memo.estimateTokens(all, options), effective: memo.estimateTokens(effective, options) },
  };
}

/**
 * The tier that applies at `budget` ("none", "pruned" or "emergency": over
 * budget even after pruning, so a summary is needed and, without one, the
 * emergency cut is what gets sent), each step's result, and each message's
 * fate and tokens as sent.
 */
export async function atBudget(prepared, budget) {
  const { all, effective, positions, memo, options, messageTokens } = prepared;
  const { tier } = await prepared.manager.prepare(all, { maxTokens: budget });
  const pruned = memo.pruneForModel(effective, { ...options, maxTokens: budget });
  const cut = memo.emergencyPrune(pruned, budget, options);
  const inCut = tier === "emergency" ? new Set(cut) : undefined;
  const status = new Array(all.length);
  const sentTokens = new Float64Array(all.length);
  const counts = { kept: 0, cleared: 0, dropped: 0, summarised: 0 };
  for (let i = 0; i < all.length; i++) {
    const j = positions[i];
    let fate = "kept";
    if (j < 0) fate = "summarised";
    else if (inCut && !inCut.has(pruned[j])) fate = "dropped";
    else if (tier !== "none" && pruned[j] !== effective[j]) fate = "cleared";
    status[i] = fate;
    counts[fate]++;
    if (fate === "kept") sentTokens[i] = messageTokens[i];
    else if (fate === "cleared") sentTokens[i] = tokensOfCopy(prepared, pruned[j]);
  }
  const tokens = { ...prepared.tokens, pruned: memo.estimateTokens(pruned, options), cut: memo.estimateTokens(cut, options) };
  // What is sent is the tier's step: its tokens are that step's.
  tokens.sent = { none: tokens.effective, pruned: tokens.pruned, emergency: tokens.cut }[tier];
  return {
    tier,
    status,
    // What each message costs as sent: 0 when it is not sent, its copy's estimate when cleared.
    sentTokens,
    counts,
    tokens,
    prunedLength: pruned.length,
    cutLength: cut.length,
  };
}

/**
 * A cleared copy's estimate, asked once per copy. The plain function, not
 * the memo: thousands of one-message reads would push the history out of it.
 */
function tokensOfCopy(prepared, copy) {
  let tokens = prepared.copyTokens.get(copy);
  if (tokens === undefined) {
    tokens = estimateTokens([copy], prepared.options);
    prepared.copyTokens.set(copy, tokens);
  }
  return tokens;
}

/** For each message of `all`, its index in `effective` (the very object), or -1. */
function positionsIn(all, effective) {
  const at = new Map(effective.map((message, j) => [message, j]));
  return all.map((message) => at.get(message) ?? -1);
}
