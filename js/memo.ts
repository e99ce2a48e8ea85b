// HistoryMemo: the history functions through the Rust memo (src/memo.rs),
// with each message object numbered here, in a JS WeakMap. Looking a message
// up in a WeakMap costs tens of nanoseconds in JS and about a microsecond
// from WebAssembly, so the numbers cross in one Uint32Array per call.
import * as wasm from "./wasm.js";

/** What a memo holds: the Rust memo, and each message object's number. */
export interface MemoState {
  core: wasm.HistoryMemo;
  numbers: WeakMap<object, number>;
  next: number;
}

/** A new, empty memo (a HistoryMemo's, or a ContextManager's). */
export function newMemoState(): MemoState {
  return { core: new wasm.HistoryMemo(), numbers: new WeakMap<object, number>(), next: 0 };
}

/**
 * Each message's number, for a read of `messages` through `state`: 0 for the
 * newest message (read afresh: a streaming UI may still be changing it in
 * place) and for anything that is not an object. A history that cannot be
 * walked (not an array, a throwing element) gets no numbers: Rust reads it
 * then, and says what is wrong with it.
 */
export function numbersOf(state: MemoState, messages: unknown): Uint32Array {
  if (!Array.isArray(messages)) return new Uint32Array(0);
  try {
    const numbers = new Uint32Array(messages.length);
    for (let index = 0; index + 1 < messages.length; index++) {
      const message: unknown = messages[index];
      if (typeof message !== "object" || message === null) continue;
      let number = state.numbers.get(message);
      if (number === undefined) {
        number = ++state.next;
        state.numbers.set(message, number);
      }
      numbers[index] = number;
    }
    return numbers;
  } catch {
    return new Uint32Array(0);
  }
}

type Messages = readonly wasm.Message[];

/**
 * The same answers as the plain functions, for a history read again and
 * again (each turn of an agent loop, each change in a chat UI): what was
 * learned of a message object is remembered (weakly: a message the caller
 * drops is forgotten), so a grown history costs what its new messages cost.
 * The newest message is always read again; a message changed in place must
 * be replaced by a new object.
 *
 * ```ts
 * const memo = new HistoryMemo();
 * const tokens = memo.estimateTokens(history); // the next turn reads only new messages
 * ```
 */
export class HistoryMemo {
  readonly #state: MemoState = newMemoState();

  /** `estimateTokens`, reading only the messages it has not seen. */
  estimateTokens<M extends wasm.Message>(messages: readonly M[], options?: wasm.FormatOptions): number {
    return this.#state.core.estimateTokens(messages as Messages as wasm.Message[], numbersOf(this.#state, messages), options);
  }

  /** `needsCompaction`, through the memo. */
  needsCompaction<M extends wasm.Message>(messages: readonly M[], maxTokens?: number, options?: wasm.FormatOptions): boolean {
    return this.#state.core.needsCompaction(messages as Messages as wasm.Message[], numbersOf(this.#state, messages), maxTokens, options);
  }

  /** `effectiveHistory`, through the memo. */
  effectiveHistory<M extends wasm.Message>(messages: readonly M[], options?: wasm.FormatOptions): M[] {
    return this.#state.core.effectiveHistory(messages as Messages as wasm.Message[], numbersOf(this.#state, messages), options) as M[];
  }

  /** `pruneForModel`, through the memo. */
  pruneForModel<M extends wasm.Message>(messages: readonly M[], options?: wasm.PruneOptions): M[] {
    return this.#state.core.pruneForModel(messages as Messages as wasm.Message[], numbersOf(this.#state, messages), options) as M[];
  }

  /** `emergencyPrune`, through the memo. */
  emergencyPrune<M extends wasm.Message>(messages: readonly M[], maxTokens?: number, options?: wasm.FormatOptions): M[] {
    return this.#state.core.emergencyPrune(messages as Messages as wasm.Message[], numbersOf(this.#state, messages), maxTokens, options) as M[];
  }

  /** How many message objects it remembers. */
  get size(): number {
    return this.#state.core.size;
  }
}
