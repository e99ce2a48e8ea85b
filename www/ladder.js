// The tiers for one budget, every step a call into the package: the effective
// history, pruning, and the emergency cut when pruning is not enough. What
// happened to each message is read off the package's outputs, never worked
// out here: the very same object means kept, a new object means its tool
// result was cleared, absence means dropped.
import { effectiveHistory, emergencyPrune, estimateTokens, needsCompaction, pruneForModel } from "kram-compaction";

/** The budget-independent part: effective history and pruning. */
export function prepare(all) {
  const effective = effectiveHistory(all);
  const pruned = pruneForModel(effective);
  return {
    all,
    effective,
    pruned,
    // Where each message of `all` is in the effective history, or -1 when
    // it is not sent: the effective history is the leading system messages,
    // then everything from the newest marker on.
    positions: positionsIn(all, effective),
    tokens: { all: estimateTokens(all), effective: estimateTokens(effective), pruned: estimateTokens(pruned) },
  };
}

/**
 * The tier that applies at `budget` ("none", "pruned" or "emergency": over
 * budget even after pruning, so a summary is needed and, without one, the
 * emergency cut is what gets sent), what is sent, and each message's fate.
 */
export function atBudget(prepared, budget) {
  const { all, effective, pruned, positions } = prepared;
  const cut = emergencyPrune(pruned, budget);
  const tier = !needsCompaction(effective, budget) ? "none" : !needsCompaction(pruned, budget) ? "pruned" : "emergency";
  const sent = tier === "none" ? effective : tier === "pruned" ? pruned : cut;
  const inCut = new Set(cut);
  const status = all.map((message, i) => {
    const j = positions[i];
    if (j < 0) return "summarised";
    if (tier === "emergency" && !inCut.has(pruned[j])) return "dropped";
    if (tier !== "none" && pruned[j] !== effective[j]) return "cleared";
    return "kept";
  });
  const counts = { kept: 0, cleared: 0, dropped: 0, summarised: 0 };
  for (const s of status) counts[s]++;
  return {
    tier,
    sent,
    status,
    counts,
    tokens: { ...prepared.tokens, cut: estimateTokens(cut), sent: estimateTokens(sent) },
    cutLength: cut.length,
  };
}

/** For each message of `all`, its index in `effective` (the very object), or -1. */
function positionsIn(all, effective) {
  const at = new Map(effective.map((message, j) => [message, j]));
  return all.map((message) => at.get(message) ?? -1);
}
