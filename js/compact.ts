// compact(): carries the summariser's requests to the host's gateway and its
// replies back. What to send, how to read a reply and the marker are decided
// in Rust (src/summary), per CompactionJob, so calls in flight never share state.
import * as wasm from "./wasm.js";
import type { CompactionMarker, GatewayReply, Message, MessageFormat, SummaryOptions, SummaryRequest } from "./wasm.js";
import { CompactionError, kindOf } from "./errors.js";
import { markerOfHistoryClass } from "./instances.js";

/**
 * An `AbortSignal`, named by its shape so the types need no DOM library;
 * `compact` accepts only a real `AbortSignal` at run time.
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/**
 * The signal a gateway is handed: the runtime's own `AbortSignal` type where
 * the program has one (the DOM library or Node's types), so a gateway passes
 * it to an SDK client as it is; `AbortSignalLike` in a program with neither.
 * At run time it is always a real `AbortSignal`.
 */
export type GatewaySignal = typeof globalThis extends { AbortSignal: { prototype: infer S } } ? S : AbortSignalLike;

/** The host's own LLM call: any function answering a reply or a promise of one. */
export type Gateway = (
  request: SummaryRequest,
  context: { signal: GatewaySignal },
) => GatewayReply | PromiseLike<GatewayReply>;

/** Options of `compact`. */
export interface CompactOptions extends SummaryOptions {
  /** Aborting rejects promptly with the signal's reason, even if the gateway ignores it. */
  signal?: AbortSignalLike;
  /** Bounds the whole call: past it, a `CompactionError` whose cause is a `TimeoutError`. */
  timeoutMs?: number;
  /** Called after each summarised chunk of a long history. */
  onProgress?: (progress: { done: number; total: number }) => void;
}

/**
 * Summarises `effective` through `gateway` and returns a compaction marker in
 * the history's own format, ready for the caller to append.
 */
export async function compact<M extends Message, F extends MessageFormat | undefined = undefined>(
  gateway: Gateway,
  model: string,
  effective: readonly M[],
  options: CompactOptions & { format?: F } = {},
): Promise<CompactionMarker<M, F>> {
  if (typeof gateway !== "function") {
    throw new TypeError(`gateway must be a function, got ${kindOf(gateway)}`);
  }
  // Reads and checks everything Rust reads (the history, the model, that
  // options is an object, its format and limits), synchronously: a later
  // change to the caller's array cannot reach the summary.
  const job = new wasm.CompactionJob(effective as unknown as Message[], model, options);
  let stop: ReturnType<typeof stopper> | undefined;
  try {
    const { signal, timeoutMs, onProgress } = readCallOptions(options ?? {});
    stop = stopper(signal, timeoutMs);
    for (let request = job.request(); request !== undefined; request = job.request()) {
      if (stop.signal.aborted) throw stop.reason();
      const reply = await stop.race(callGateway(gateway, request as SummaryRequest, stop));
      try {
        job.accept(reply);
      } catch (problem) {
        throw new CompactionError((problem as Error).message);
      }
      onProgress?.({ done: job.done, total: job.total });
    }
    try {
      return markerOfHistoryClass(job.finish() as M, effective) as unknown as CompactionMarker<M, F>;
    } catch (problem) {
      throw new CompactionError((problem as Error).message);
    }
  } finally {
    stop?.release();
    job.free();
  }
}

/** The gateway's reply, or a `CompactionError` carrying what it threw. */
async function callGateway(gateway: Gateway, request: SummaryRequest, stop: ReturnType<typeof stopper>): Promise<unknown> {
  const { signal } = stop;
  try {
    return await gateway(request, { signal: signal as GatewaySignal });
  } catch (thrown) {
    // The gateway passed on the abort itself: the call stopped, it did not fail.
    if (signal.aborted && thrown === signal.reason) throw stop.reason();
    const why = thrown instanceof Error ? thrown.message : String(thrown);
    throw new CompactionError(`the gateway failed: ${why}`, { cause: thrown });
  }
}

/** The options only the JS side reads; Rust has checked that `options` is an object, or absent (undefined or null). */
function readCallOptions(options: CompactOptions) {
  const { signal, timeoutMs, onProgress } = options;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError(`options.signal must be an AbortSignal, got ${kindOf(signal)}`);
  }
  // Checked and worded in Rust, as every number option is.
  if (timeoutMs !== undefined) wasm.readNumber(timeoutMs, "options.timeoutMs", "positive");
  if (onProgress !== undefined && typeof onProgress !== "function") {
    throw new TypeError(`options.onProgress must be a function, got ${kindOf(onProgress)}`);
  }
  // Checked above: a real AbortSignal, which AbortSignal.any takes.
  return { signal: signal as AbortSignal | undefined, timeoutMs, onProgress };
}

/**
 * One signal for every gateway call: the caller's signal and the timeout as
 * one (`AbortSignal.any`). `race` rejects the moment it aborts, so a gateway
 * that ignores the signal cannot hold the call. Why it stopped (`reason`) is
 * the caller's reason, or, on the timeout, a `CompactionError` whose cause
 * is the timeout's `TimeoutError`. The timeout is a plain `setTimeout`, not
 * `AbortSignal.timeout`, whose timer does not keep Node's event loop alive:
 * a script awaiting a gateway that never answers would exit before it fired.
 */
function stopper(outer: AbortSignal | undefined, timeoutMs: number | undefined) {
  const timeout = new AbortController();
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => timeout.abort(new DOMException(`compact timed out after ${timeoutMs} ms`, "TimeoutError")), timeoutMs);
  const signal = outer === undefined ? timeout.signal : AbortSignal.any([outer, timeout.signal]);
  const reason = () =>
    timeout.signal.aborted && signal.reason === timeout.signal.reason
      ? new CompactionError(`compact timed out after ${timeoutMs} ms`, { cause: timeout.signal.reason })
      : signal.reason;
  let rejectOnAbort: (reason: unknown) => void = () => {};
  const aborted = new Promise<never>((_, reject) => (rejectOnAbort = reject));
  aborted.catch(() => {});
  const abort = () => rejectOnAbort(reason());
  if (signal.aborted) abort();
  else signal.addEventListener("abort", abort, { once: true });
  return {
    signal,
    reason,
    race: <T>(work: Promise<T>) => Promise.race([work, aborted]),
    release() {
      clearTimeout(timer);
      signal.removeEventListener("abort", abort);
    },
  };
}
