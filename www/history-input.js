// Turns pasted or dropped text into an array of messages: a JSON array, or
// JSONL (one message per line). Reading JSON is the browser's job; whether
// the messages are valid is the package's (describeMessages checks them).

/** A problem with the input, in words, naming the line where there is one. */
export class InputProblem extends Error {
  constructor(message, { line } = {}) {
    super(message);
    this.name = "InputProblem";
    this.line = line;
  }
}

/**
 * Returns { messages, lines, shape } where lines[i] is the 1-based line that
 * message i starts on (worked out when first asked for), or throws an
 * InputProblem.
 */
export function parseHistory(text) {
  const trimmed = text.trim();
  if (!trimmed) throw new InputProblem("Nothing to read: paste a JSON array of messages or JSONL, one message a line.");
  return trimmed.startsWith("[") ? parseArray(text) : parseLines(text);
}

function parseArray(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const where = locate(text, error.message);
    throw new InputProblem(`Invalid JSON${where.words}: ${plainReason(error.message)}`, { line: where.line });
  }
  if (!Array.isArray(value)) throw new InputProblem("Expected a JSON array of messages.");
  // The lines are needed only to name a bad message's line: scanned then, not for every history.
  return {
    messages: value,
    get lines() {
      return arrayLines(text, value.length);
    },
    shape: "JSON array",
  };
}

function parseLines(text) {
  const messages = [];
  const lines = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    try {
      messages.push(JSON.parse(line));
    } catch (error) {
      const column = locate(line, error.message).column;
      const at = column ? `line ${i + 1}, column ${column}` : `line ${i + 1}`;
      throw new InputProblem(`Invalid JSON on ${at}: ${plainReason(error.message)}`, { line: i + 1 });
    }
    lines.push(i + 1);
  });
  return { messages, lines, shape: "JSONL" };
}

/**
 * Where a JSON.parse error points: the engine's "position N" when it gives
 * one, otherwise the first offset that a strict scan of the text rejects.
 */
function locate(text, message) {
  const match = /position (\d+)/.exec(message);
  const offset = match ? Number(match[1]) : firstBadOffset(text);
  if (offset === undefined) return { words: "" };
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n");
  return { line, column, words: ` at line ${line}, column ${column}` };
}

/** A JSON grammar scan that returns the offset of the first error, or undefined. */
function firstBadOffset(text) {
  let i = 0;
  const fail = () => {
    throw i;
  };
  const space = () => {
    while (/[ \t\n\r]/.test(text[i] ?? "")) i++;
  };
  const literal = (word) => (text.startsWith(word, i) ? (i += word.length) : fail());
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
    i += m[0].length;
  };
  const list = (close, item) => {
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
  const value = () => {
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
    return Math.min(offset, text.length);
  }
}

/** The parser's reason without the position, which `locate` words better. */
function plainReason(message) {
  return message
    .replace(/\s*(in JSON )?at position \d+( \(line \d+ column \d+\))?/, "")
    .replace(/, \S.* is not valid JSON$/s, "")
    .replace(/^JSON\.parse: /, "");
}

/**
 * The line each top-level element of a JSON array starts on: a scan that
 * skips strings and counts nesting, run only on text JSON.parse accepted.
 */
function arrayLines(text, count) {
  const lines = [];
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
