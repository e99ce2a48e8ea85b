// Turns pasted or dropped text into an array of messages through the
// package's reader of stored histories (a JSON array, or JSONL), in the
// page's words.
import { readStoredHistory, StoredHistoryError } from "kram-compaction";

/** A problem with the input, in words, naming the line where there is one. */
export class InputProblem extends Error {
  constructor(message, { line } = {}) {
    super(message);
    this.name = "InputProblem";
    this.line = line;
  }
}

/**
 * Returns { messages, lineOf, shape } where lineOf(i) is the 1-based line
 * that message i starts on, or throws an InputProblem.
 */
export function parseHistory(text) {
  if (!text.trim()) throw new InputProblem("Nothing to read: paste a JSON array of messages or JSONL, one message a line.");
  try {
    return readStoredHistory(text);
  } catch (error) {
    if (error instanceof StoredHistoryError) throw new InputProblem(error.message, { line: error.line });
    throw error;
  }
}
