// ContextManager: the tiers before each model call, in one call. It runs the
// package's functions in order and asks the Rust ladder (src/ladder.rs) what
// comes next; it decides nothing by itself.
import * as wasm from "./wasm.js";
import type { FormatOptions, Message, PruneOptions } from "./wasm.js";
import { compact, type CompactOptions, type Gateway, type AbortSignalLike } from "./compact.js";
import { kindOf } from "./errors.js";
import { newMemoState, numbersOf } from "./memo.js";

export interface ContextManagerOptions extends FormatOptions {
  /** The summariser's gateway; without one, an over-budget history gets the emergency cut. */
  gateway?: Gateway;
  /** The summariser's model, passed to `compact`. */
  model?: string;
  /** The budget of what is sent. Default 60,000. */
  maxTokens?: number;
  /** Compactions allowed in one run (between `startRun` calls). Default 2. */
  maxCompactionsPerRun?: number;
  /** Options of the pruning tier. */
  prune?: PruneOptions;
  /** Options of `compact` (maxInputTokens, timeoutMs, ...). */
  compact?: Omit<CompactOptions, "signal" | "format">;
}

/** The provider-reported prompt size of the first `messageCount` messages of `all`. */
export interface LastUsage {
  promptTokens: number;
  messageCount: number;
}

export type Tier = "none" | "pruned" | "compacted" | "emergency";

export interface Prepared<M extends Message> {
  /** What to send to the model. */
  messages: M[];
  /** What to persist, in order, atomically: empty unless a compaction happened. */
  append: M[];
  tier: Tier;
  tokensBefore: number;
  tokensAfter: number;
  /** Why this tier, in words. */
  reason: string;
}

export class ContextManager {
  readonly #options: ContextManagerOptions;
  readonly #maxTokens: number;
  readonly #maxCompactions: number;
  #compactionsInRun = 0;
  /** What was read of each stored message, so the next turn reads only the new ones. */
  readonly #memo = newMemoState();

  constructor(options: ContextManagerOptions = {}) {
    if (options === null || typeof options !== "object" || Array.isArray(options)) {
      throw new TypeError(`options must be an object, got ${kindOf(options)}`);
    }
    this.#options = options;
    this.#maxTokens = numberOption(options.maxTokens, "options.maxTokens", wasm.defaultMaxTokens(), false);
    this.#maxCompactions = numberOption(options.maxCompactionsPerRun, "options.maxCompactionsPerRun", 2, true);
    if (options.gateway !== undefined && typeof options.gateway !== "function") {
      throw new TypeError(`options.gateway must be a function, got ${kindOf(options.gateway)}`);
    }
  }

  /** Call at the start of each agent run: the run's compaction count starts again. */
  startRun(): void {
    this.#compactionsInRun = 0;
  }

  /**
   * The effective history, pruned, summarised or cut to fit `maxTokens`: the
   * manager's, or this call's (a chat UI whose budget changes keeps one
   * manager, and so one memo, for every budget).
   */
  async prepare<M extends Message>(
    all: readonly M[],
    { lastUsage, signal, maxTokens: callMaxTokens }: { lastUsage?: LastUsage; signal?: AbortSignalLike; maxTokens?: number } = {},
  ): Promise<Prepared<M>> {
    const maxTokens = numberOption(callMaxTokens, "maxTokens", this.#maxTokens, false);
    const format = this.#options.format === undefined ? {} : { format: this.#options.format };
    const memo = this.#memo;
    const core = memo.core;
    const list = (messages: readonly M[]) => messages as unknown as Message[];
    // `all` is numbered once; the effective history's numbers are its slices.
    const allNumbers = numbersOf(memo, all);
    const [instructions, start] = core.effectiveBounds(list(all), allNumbers, format) as unknown as [number, number];
    const whole = start === instructions;
    const effective = whole ? all.slice() : [...all.slice(0, instructions), ...all.slice(start)];
    const effectiveNumbers = whole ? allNumbers : joined(allNumbers.subarray(0, instructions), allNumbers.subarray(start));
    const estimate = (messages: readonly M[], numbers = numbersOf(memo, messages)) =>
      core.estimateTokens(list(messages), numbers, format);
    const estimated = estimate(effective, effectiveNumbers);
    const tokens = withUsage(all, effective.length, estimated, lastUsage, estimate);
    const result = (tier: Tier, messages: M[], reason: string, append: M[] = [], tokensAfter = estimate(messages)): Prepared<M> => ({
      messages,
      append,
      tier,
      tokensBefore: tokens,
      tokensAfter,
      reason,
    });
    const fits = wasm.ladderBeforePruning(tokens, maxTokens) as { next: "none"; reason: string } | undefined;
    if (fits !== undefined) return result("none", effective, fits.reason, [], estimated);

    const pruneOptions = { maxTokens, ...this.#options.prune, ...format };
    const prune = (messages: readonly M[]) => core.pruneForModel(list(messages), numbersOf(memo, messages), pruneOptions) as unknown as M[];
    const pruned = prune(effective);
    // Pruning saves what the estimate says it saves, whatever the provider counted.
    const prunedEstimate = estimate(pruned);
    const tokensPruned = Math.max(0, tokens - (estimated - prunedEstimate));
    const { gateway, model } = this.#options;
    const step = wasm.ladderAfterPruning(
      tokens,
      tokensPruned,
      maxTokens,
      this.#compactionsInRun,
      this.#maxCompactions,
      gateway !== undefined,
      model,
    ) as { next: "none" | "pruned" | "compact" | "emergency"; reason: string };
    const cut = (messages: M[]) => core.emergencyPrune(list(messages), numbersOf(memo, messages), maxTokens, format) as unknown as M[];

    if (step.next === "none") return result("none", effective, step.reason);
    if (step.next === "pruned") return result("pruned", pruned, step.reason, [], prunedEstimate);
    if (step.next === "emergency") return result("emergency", cut(pruned), step.reason);

    // What to summarise and what follows the marker verbatim is decided in
    // Rust before any call: the newest user turn, or (when it alone is too
    // big) its request and newest steps. No call is made that cannot help.
    const plan = core.compactionPlan(
      list(effective),
      effectiveNumbers,
      maxTokens,
      tokens,
      tokensPruned,
      this.#options.compact,
      format,
    ) as CompactionPlan;
    if (plan.skip !== undefined) return result("emergency", cut(pruned), plan.skip);
    const kept = plan.keep.map((index) => effective[index]!);
    let marker: M;
    try {
      marker = (await compact(gateway!, model!, effective.slice(0, plan.summariseEnd), {
        ...this.#options.compact,
        maxSummaryTokens: plan.maxSummaryTokens,
        ...format,
        ...(signal ? { signal } : {}),
      })) as M;
    } catch (error) {
      if (signal?.aborted && error === signal.reason) throw error;
      const why = error instanceof Error ? error.message : String(error);
      return result("emergency", cut(pruned), `compacting failed (${why}); the emergency cut keeps the newest turns`);
    }
    this.#compactionsInRun += 1;
    // The instructions are sent again ahead of the marker; the store already has them.
    const compacted = [...effective.slice(0, plan.instructions), marker, ...kept];
    const prunedAfter = prune(compacted);
    const tokensCompacted = estimate(prunedAfter);
    const shortfall = wasm.compactionShortfall(tokens, tokensCompacted);
    if (shortfall !== undefined) return result("emergency", cut(pruned), `${shortfall}; the summary is dropped`);
    if (tokensCompacted <= maxTokens) return result("compacted", prunedAfter, plan.reason, [marker, ...kept]);
    const sent = cut(prunedAfter);
    const fallback = cut(pruned);
    if (estimate(sent) > maxTokens && estimate(fallback) <= maxTokens) {
      return result("emergency", fallback, `${plan.reasonCut}, but the marker and the newest step are still over it; the summary is dropped`);
    }
    return result("compacted", sent, plan.reasonCut, [marker, ...kept]);
  }
}

/** What `compactionPlan` decides (src/ladder.rs). */
type CompactionPlan =
  | { skip: string; instructions?: undefined; summariseEnd?: undefined; keep?: undefined; maxSummaryTokens?: undefined; reason?: undefined; reasonCut?: undefined }
  | { skip?: undefined; instructions: number; summariseEnd: number; keep: number[]; maxSummaryTokens: number; reason: string; reasonCut: string };

/** Two runs of numbers as one. */
function joined(first: Uint32Array, second: Uint32Array): Uint32Array {
  const numbers = new Uint32Array(first.length + second.length);
  numbers.set(first);
  numbers.set(second, first.length);
  return numbers;
}

/** The budget measure: the provider's count for the messages it saw, estimates for the rest. */
function withUsage<M>(
  all: readonly M[],
  effectiveLength: number,
  estimated: number,
  usage: LastUsage | undefined,
  estimate: (messages: readonly M[]) => number,
): number {
  if (usage === undefined) return estimated;
  if (usage === null || typeof usage !== "object" || Array.isArray(usage)) throw new TypeError(`lastUsage must be an object, got ${kindOf(usage)}`);
  numberOption(usage.promptTokens, "lastUsage.promptTokens", undefined, false, true);
  const count = numberOption(usage.messageCount, "lastUsage.messageCount", undefined, true);
  if (count > all.length) {
    throw new RangeError(`lastUsage.messageCount (${count}) is more than the ${all.length} messages of all`);
  }
  // Usage from before the newest marker counted messages no longer sent.
  if (count <= all.length - effectiveLength) return estimated;
  return usage.promptTokens + estimate(all.slice(count));
}

/** A number option: positive and finite (or, for counts, a whole number from 0). */
function numberOption(value: unknown, name: string, fallback: number | undefined, count: boolean, zeroOk = false): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== "number") throw new TypeError(`${name} must be a number, got ${kindOf(value)}`);
  const ok = count ? Number.isInteger(value) && value >= 0 : Number.isFinite(value) && (value > 0 || (zeroOk && value === 0));
  if (!ok) {
    const want = count ? "a whole number from 0" : zeroOk ? "a non-negative finite number" : "a positive finite number";
    throw new RangeError(`${name} must be ${want}, got ${value}`);
  }
  return value;
}
