// ContextManager: the tiers before each model call, in one call. It runs the
// package's functions in order and asks the Rust ladder (src/ladder.rs) what
// comes next; it decides nothing by itself.
import * as wasm from "./wasm.js";
import type { FormatOptions, Message, PruneOptions, Tier } from "./wasm.js";
import { compact, type CompactOptions, type Gateway, type AbortSignalLike } from "./compact.js";
import { defaultMaxTokens } from "./constants.js";
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

export type { Tier };

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
    this.#maxTokens = numberOr(options.maxTokens, "options.maxTokens", "positive", defaultMaxTokens);
    this.#maxCompactions = numberOr(options.maxCompactionsPerRun, "options.maxCompactionsPerRun", "count", 2);
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
    const maxTokens = numberOr(callMaxTokens, "maxTokens", "positive", this.#maxTokens);
    const turn = this.#turn<M>(maxTokens);
    const { effective, numbers, tokens: effectiveTokens } = turn.effective(all);
    const estimated = effectiveTokens ?? turn.estimate(effective, numbers);
    const tokens = withUsage(all, effective.length, estimated, lastUsage, turn.estimate);
    const result = turn.result(tokens);
    const fits = wasm.ladderBeforePruning(tokens, maxTokens) as { next: "none"; reason: string } | undefined;
    if (fits !== undefined) return result("none", effective, fits.reason, [], estimated);

    const pruned = turn.prune(effective);
    // Pruning saves what the estimate says it saves, whatever the provider counted.
    const prunedEstimate = turn.estimate(pruned);
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
    ) as { next: Exclude<Tier, "compacted"> | "compact"; reason: string };
    if (step.next === "none") return result("none", effective, step.reason);
    if (step.next === "pruned") return result("pruned", pruned, step.reason, [], prunedEstimate);
    if (step.next === "emergency") return result("emergency", turn.cut(pruned), step.reason);
    return this.#compacted(turn, { effective, numbers, pruned, tokens, tokensPruned, signal, result });
  }

  /**
   * The compaction tier: what to summarise and what follows the marker
   * verbatim is decided in Rust before any call (the newest user turn, or,
   * when it alone is too big, its request and newest steps), so no call is
   * made that cannot help; then the summary, checked for what it saved, or
   * the emergency cut when it fails or saves too little.
   */
  async #compacted<M extends Message>(
    turn: Turn<M>,
    { effective, numbers, pruned, tokens, tokensPruned, signal, result }: CompactionInput<M>,
  ): Promise<Prepared<M>> {
    const plan = this.#memo.core.compactionPlan(
      list(effective),
      numbers,
      turn.maxTokens,
      tokens,
      tokensPruned,
      this.#options.compact,
      turn.format,
    ) as CompactionPlan;
    if (plan.skip !== undefined) return result("emergency", turn.cut(pruned), plan.skip);
    const kept = plan.keep.map((index) => effective[index]!);
    let marker: M;
    try {
      marker = (await compact(this.#options.gateway!, this.#options.model!, effective.slice(0, plan.summariseEnd), {
        ...this.#options.compact,
        maxSummaryTokens: plan.maxSummaryTokens,
        ...turn.format,
        ...(signal ? { signal } : {}),
      })) as M;
    } catch (error) {
      if (signal?.aborted && error === signal.reason) throw error;
      const why = error instanceof Error ? error.message : String(error);
      return result("emergency", turn.cut(pruned), `compacting failed (${why}); the emergency cut keeps the newest turns`);
    }
    this.#compactionsInRun += 1;
    // The instructions are sent again ahead of the marker; the store already has them.
    const compacted = [...effective.slice(0, plan.instructions), marker, ...kept];
    const prunedAfter = turn.prune(compacted);
    const tokensCompacted = turn.estimate(prunedAfter);
    const shortfall = wasm.compactionShortfall(tokens, tokensCompacted);
    if (shortfall !== undefined) return result("emergency", turn.cut(pruned), `${shortfall}; the summary is dropped`);
    if (tokensCompacted <= turn.maxTokens) return result("compacted", prunedAfter, plan.reason, [marker, ...kept]);
    const sent = turn.cut(prunedAfter);
    const fallback = turn.cut(pruned);
    if (turn.estimate(sent) > turn.maxTokens && turn.estimate(fallback) <= turn.maxTokens) {
      return result("emergency", fallback, `${plan.reasonCut}, but the marker and the newest step are still over it; the summary is dropped`);
    }
    return result("compacted", sent, plan.reasonCut, [marker, ...kept]);
  }

  /** The package's functions for one `prepare`, at its budget, through the manager's memo. */
  #turn<M extends Message>(maxTokens: number): Turn<M> {
    const format = this.#options.format === undefined ? {} : { format: this.#options.format };
    const memo = this.#memo;
    const core = memo.core;
    const pruneOptions = { maxTokens, ...this.#options.prune, ...format };
    const estimate = (messages: readonly M[], numbers = numbersOf(memo, messages)) => core.estimateTokens(list(messages), numbers, format);
    return {
      maxTokens,
      format,
      estimate,
      // `all` is numbered once; the effective history's numbers are its
      // slices. The bounds come from a read with the estimates, which gives
      // the estimate too when the effective history is all of `all`.
      effective(all) {
        const numbers = numbersOf(memo, all);
        const [instructions, start, tokens] = core.effectiveBounds(list(all), numbers, format) as unknown as [number, number, number];
        if (start === instructions) return { effective: all.slice(), numbers, tokens };
        return {
          effective: [...all.slice(0, instructions), ...all.slice(start)],
          numbers: joined(numbers.subarray(0, instructions), numbers.subarray(start)),
        };
      },
      prune: (messages) => core.pruneForModel(list(messages), numbersOf(memo, messages), pruneOptions) as unknown as M[],
      cut: (messages) => core.emergencyPrune(list(messages), numbersOf(memo, messages), maxTokens, format) as unknown as M[],
      result: (tokensBefore) => (tier, messages, reason, append = [], tokensAfter = estimate(messages)) => ({
        messages,
        append,
        tier,
        tokensBefore,
        tokensAfter,
        reason,
      }),
    };
  }
}

/** What `prepare` has in hand when it compacts. */
interface CompactionInput<M extends Message> {
  effective: M[];
  numbers: Uint32Array;
  pruned: M[];
  tokens: number;
  tokensPruned: number;
  signal: AbortSignalLike | undefined;
  result: ResultOf<M>;
}

/** A `prepare` result at a tier, the estimate of what is sent unless given. */
type ResultOf<M extends Message> = (tier: Tier, messages: M[], reason: string, append?: M[], tokensAfter?: number) => Prepared<M>;

/** The package's functions for one `prepare` (see `ContextManager.#turn`). */
interface Turn<M extends Message> {
  maxTokens: number;
  format: FormatOptions;
  estimate(messages: readonly M[], numbers?: Uint32Array): number;
  /** The effective history, its numbers, and its estimate when it is all of `all`. */
  effective(all: readonly M[]): { effective: M[]; numbers: Uint32Array; tokens?: number };
  prune(messages: readonly M[]): M[];
  cut(messages: M[]): M[];
  result(tokensBefore: number): ResultOf<M>;
}

/** A history as the wasm functions take it. */
const list = <M extends Message>(messages: readonly M[]) => messages as unknown as Message[];

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
  wasm.readNumber(usage.promptTokens, "lastUsage.promptTokens", "non-negative");
  const count = wasm.readNumber(usage.messageCount, "lastUsage.messageCount", "count");
  if (count > all.length) {
    throw new RangeError(`lastUsage.messageCount (${count}) is more than the ${all.length} messages of all`);
  }
  // Usage from before the newest marker counted messages no longer sent.
  if (count <= all.length - effectiveLength) return estimated;
  return usage.promptTokens + estimate(all.slice(count));
}

/**
 * A number option, `fallback` when absent; checked and worded in Rust
 * (`options::check_number`), as every number option of the package is.
 */
function numberOr(value: unknown, name: string, rule: "positive" | "count", fallback: number): number {
  return value === undefined ? fallback : wasm.readNumber(value, name, rule);
}
