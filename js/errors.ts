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
