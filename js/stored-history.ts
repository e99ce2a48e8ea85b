// A stored history's text as messages: a JSON array, or JSONL (one message a
// line), as agents store them. Reading JSON is the engine's job; whether the
// messages are valid is the history functions' (`describeMessages` checks
// them). The command line and the demo page read their input through this.
import { kindOf } from "./errors.js";

/** The text is not JSON: where (1-based, when the engine or a scan finds it) and why. */
export class StoredHistoryError extends SyntaxError {
  /** The line of the error, in the whole text. */
  readonly line: number | undefined;
  readonly column: number | undefined;
  /** What the JSON parser said, without its own position. */
  readonly reason: string;
  readonly shape: StoredHistory["shape"];

  constructor(shape: StoredHistory["shape"], reason: string, line?: number, column?: number) {
    const at = line === undefined ? "" : shape === "JSONL" ? ` on line ${line}` : ` at line ${line}`;
    super(`Invalid JSON${at}${column === undefined ? "" : `, column ${column}`}: ${reason}`);
    this.name = "StoredHistoryError";
    this.shape = shape;
    this.reason = reason;
    this.line = line;
    this.column = column;
  }
}

/** What `readStoredHistory` read. */
export interface StoredHistory {
  /** The messages, unchecked: pass them to the history functions. */
  messages: unknown[];
  shape: "JSON array" | "JSONL";
  /** The 1-based line that message `index` starts on (worked out when first asked, for a JSON array). */
  lineOf(index: number): number | undefined;
}

/**
 * Reads a stored history: a JSON array when the text starts with `[`,
 * otherwise JSONL, blank lines skipped. Blank text gives no messages.
 *
 * ```ts
 * const { messages, lineOf } = readStoredHistory(readFileSync("session.jsonl", "utf8"));
 * ```
 */
export function readStoredHistory(text: string): StoredHistory {
  if (typeof text !== "string") throw new TypeError(`text must be a string, got ${kindOf(text)}`);
  return text.trimStart().startsWith("[") ? readArray(text) : readLines(text);
}

function readArray(text: string): StoredHistory {
  let value: unknown[];
  try {
    value = JSON.parse(text) as unknown[];
  } catch (error) {
    const message = (error as Error).message;
    const { line, column } = locate(text, message);
    throw new StoredHistoryError("JSON array", plainReason(message), line, column);
  }
  let lines: number[] | undefined;
  // The lines are needed only to name a bad message's line: scanned then, not for every history.
  return { messages: value, shape: "JSON array", lineOf: (index) => (lines ??= arrayLines(text, value.length))[index] };
}

function readLines(text: string): StoredHistory {
  const messages: unknown[] = [];
  const lines: number[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    try {
      messages.push(JSON.parse(line));
    } catch (error) {
      const message = (error as Error).message;
      throw new StoredHistoryError("JSONL", plainReason(message), i + 1, locate(line, message).column);
    }
    lines.push(i + 1);
  });
  return { messages, shape: "JSONL", lineOf: (index) => lines[index] };
}

/**
 * Where a JSON.parse error points: the engine's "position N" when it gives
 * one (V8 does), otherwise the first offset that a strict scan of the text
 * rejects (engines that give no position).
 */
function locate(text: string, message: string): { line?: number; column?: number } {
  const match = /position (\d+)/.exec(message);
  const offset = match ? Number(match[1]) : firstBadOffset(text);
  if (offset === undefined) return {};
  const before = text.slice(0, offset);
  return { line: before.split("\n").length, column: before.length - before.lastIndexOf("\n") };
}

/** A JSON grammar scan that returns the offset of the first error, or undefined. */
function firstBadOffset(text: string): number | undefined {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const space = () => {
    while (/[ \t\n\r]/.test(text[i] ?? "")) i++;
  };
  const literal = (word: string) => (text.startsWith(word, i) ? (i += word.length) : fail());
  const string = () => {
    i++;
    while (text[i] !== '"') {
      if (i >= text.length || text[i] < " ") fail();
      if (text[i] === "\\") {
        i++;
        if (text[i] === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) i += 4;
        else if (!'"\\/bfnrt'.includes(text[i] ?? "x")) fail();
      }
      i++;
    }
    i++;
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!m) fail();
    else i += m[0].length;
  };
  const list = (close: string, item: () => void) => {
    i++;
    space();
    if (text[i] === close) return i++;
    for (;;) {
      item();
      space();
      if (text[i] === close) return i++;
      if (text[i] !== ",") fail();
      i++;
    }
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === "{") {
      list("}", () => {
        space();
        if (text[i] !== '"') fail();
        string();
        space();
        if (text[i] !== ":") fail();
        i++;
        value();
      });
    } else if (c === "[") list("]", value);
    else if (c === '"') string();
    else if (c === "t") literal("true");
    else if (c === "f") literal("false");
    else if (c === "n") literal("null");
    else number();
  };
  try {
    value();
    space();
    return i < text.length ? i : undefined;
  } catch (offset) {
    return Math.min(offset as number, text.length);
  }
}

/** The parser's reason without the position, which `locate` words better. */
function plainReason(message: string): string {
  return message
    .replace(/\s*(in JSON )?at position \d+( \(line \d+ column \d+\))?/, "")
    .replace(/, \S.* is not valid JSON$/s, "")
    .replace(/^JSON\.parse: /, "");
}

/**
 * The line each top-level element of a JSON array starts on: a scan that
 * skips strings and counts nesting, run only on text JSON.parse accepted.
 */
function arrayLines(text: string, count: number): number[] {
  const lines: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let expecting = false;
  for (let i = 0; i < text.length && lines.length < count; i++) {
    const c = text[i];
    if (c === "\n") line++;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    // JSON.parse accepted the text: between tokens there is only JSON white space.
    if (c === " " || c === "\n" || c === "\r" || c === "\t") continue;
    if (depth === 1 && expecting && c !== "]") {
      lines.push(line);
      expecting = false;
    }
    if (c === '"') inString = true;
    else if (c === "[" || c === "{") expecting = ++depth === 1;
    else if (c === "]" || c === "}") depth--;
    else if (c === "," && depth === 1) expecting = true;
  }
  return lines;
}
