import * as wasm from "./wasm.js";

/**
 * Why a compaction failed: the gateway threw or rejected (`cause` is what it
 * threw), timed out, or answered with no usable summary. Nothing is lost when
 * it is thrown: the history is untouched and no marker exists.
 */
export class CompactionError extends Error {
  override readonly name = "CompactionError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A gateway's HTTP request answered with an error status (`status`), or with
 * a body that is not JSON (`status` is then the 2xx it came with). `compact`
 * wraps it in a `CompactionError` as its `cause`.
 */
export class GatewayHttpError extends Error {
  override readonly name = "GatewayHttpError";
  readonly status: number;
  readonly url: string;

  constructor(message: string, status: number, url: string) {
    super(message);
    this.status = status;
    this.url = url;
  }
}

/**
 * A value's kind in the words every error of the package uses after "got",
 * from the Rust side (`Kind::describe`): "null", "array", "a non-JSON
 * value" for a function or a symbol.
 */
export function kindOf(value: unknown): string {
  return wasm.describeKind(value);
}
