// The package's rules written in plain JS, as a user would write them: the
// token estimate of src/estimate.rs and the history functions over OpenAI Chat
// messages. The benchmark checks that they give the package's answers, then
// times them side by side with it.

const C = {
  word: 1000, wordSlope: 55, longWordSlope: 205, prefix: 585,
  accentedBase: 1100, accentedLetter: 340, cyrillicBase: 670, cyrillicLetter: 235,
  alphabetBase: 185, alphabetLetter: 405, noSpace: 630, digitGroup: 1000,
  punct: 1000, punctSlope: 210, repeatSlope: 100, spaceBeforeDigit: 1000, spaceRun: 1000,
  newline: 1000, han: 875, kana: 780, thai: 530, hangul: 640, hangulWord: 495,
  cjkPunct: 630, symbol: 1200, repeatSymbol: 125, emoji: 1800, otherSpace: 1000,
  escape: 1000, escapePunct: 1000, escapeFinal: 1200, spaceBeforeEscape: 1000,
};
const ALPHA = /\p{Alphabetic}/u;
const SPACE = /\s/u;

function script(code, ch) {
  if (((code >= 0xc0 && code <= 0x24f) || (code >= 0x1e00 && code <= 0x1eff)) && ALPHA.test(ch)) return "latin";
  if (code >= 0x400 && code <= 0x52f) return "cyrillic";
  if (code >= 0x300 && code <= 0x36f) return "latin";
  if ((code >= 0x3040 && code <= 0x30ff) || (code >= 0x31f0 && code <= 0x31ff) || (code >= 0xff66 && code <= 0xff9f)) return "kana";
  if ((code >= 0x3400 && code <= 0x4dbf) || (code >= 0x4e00 && code <= 0x9fff) || (code >= 0xf900 && code <= 0xfaff) || (code >= 0x20000 && code <= 0x2ffff)) return "han";
  if ((code >= 0xac00 && code <= 0xd7af) || (code >= 0x1100 && code <= 0x11ff) || (code >= 0x3130 && code <= 0x318f)) return "hangul";
  if (code >= 0xe00 && code <= 0xe7f) return "thai";
  if ((code >= 0x3000 && code <= 0x303f) || (code >= 0xff00 && code <= 0xffef)) return "cjkPunct";
  if (code >= 0x1f000 && code <= 0x1faff) return "emoji";
  if (SPACE.test(ch)) return "space";
  if (code >= 0x590 && code <= 0xdff) return "alphabet";
  if (ALPHA.test(ch)) return "alphabet";
  return "symbol";
}

const isLower = (c) => c >= 97 && c <= 122;
const isUpper = (c) => c >= 65 && c <= 90;
const isDigit = (c) => c >= 48 && c <= 57;
const isSpace = (c) => c === 32 || c === 9;
const isNewline = (c) => c === 10 || c === 13;
const isEscape = (c) => c === 0x1b;
const isPunct = (c) => c < 128 && !isLower(c) && !isUpper(c) && !isDigit(c) && !isSpace(c) && !isNewline(c) && !isEscape(c);
const codeAt = (s, i) => s.codePointAt(i);
const width = (code) => (code > 0xffff ? 2 : 1);
/** 0: not a Latin letter; 1: small or accented; 2: capital. */
function latin(s, i) {
  const c = s.charCodeAt(i);
  if (isLower(c)) return 1;
  if (isUpper(c)) return 2;
  if (c < 128) return 0;
  const code = codeAt(s, i);
  return script(code, String.fromCodePoint(code)) === "latin" ? 1 : 0;
}

/** The estimate of one text, in thousandths of a token. */
export function textMilli(s) {
  let total = 0;
  let i = 0;
  let afterSpace = false;
  let afterPunct = false;
  let prefixed = false;
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    const space = isSpace(c);
    const punct = isPunct(c);
    if (latin(s, i)) {
      let letters = 0;
      let accented = false;
      let previous = 2;
      while (i < n) {
        const kind = latin(s, i);
        if (!kind) break;
        if (kind === 2 && previous === 1) break;
        const code = s.charCodeAt(i);
        if (code >= 128) accented = true;
        letters += 1;
        previous = code >= 128 ? 1 : kind;
        i += code >= 128 ? width(codeAt(s, i)) : 1;
      }
      if (accented) {
        total += C.accentedBase + letters * C.accentedLetter + (prefixed ? C.prefix : 0) + (afterSpace || prefixed ? 0 : C.noSpace);
      } else {
        const slope = prefixed ? 2 * C.wordSlope : C.wordSlope;
        const mid = Math.min(Math.max(letters, 3), 12) - 3;
        total += C.word + mid * slope + Math.max(0, letters - 12) * C.longWordSlope + (prefixed ? C.prefix : 0);
      }
    } else if (isDigit(c)) {
      const start = i;
      while (i < n && isDigit(s.charCodeAt(i))) i++;
      total += Math.ceil((i - start) / 3) * C.digitGroup;
    } else if (space) {
      const start = i;
      while (i < n && isSpace(s.charCodeAt(i))) i++;
      const run = i - start;
      const next = i < n ? s.charCodeAt(i) : -1;
      if (next === -1) total += C.spaceRun;
      else if (isNewline(next)) total += 0;
      else if (isDigit(next)) total += run === 1 ? C.spaceBeforeDigit : C.spaceRun + C.spaceBeforeDigit;
      else if (isEscape(next)) total += run === 1 ? C.spaceBeforeEscape : C.spaceRun + C.spaceBeforeEscape;
      else if (run > 1) total += C.spaceRun;
    } else if (isNewline(c)) {
      let end = i;
      while (end < n) {
        const b = s.charCodeAt(end);
        if (isNewline(b)) i = end + 1;
        else if (!isSpace(b)) break;
        end++;
      }
      if (!afterPunct) total += C.newline;
    } else if (punct) {
      const start = i;
      let extra = 0;
      while (i < n && isPunct(s.charCodeAt(i))) {
        if (i - start >= 2) extra += s.charCodeAt(i) === s.charCodeAt(i - 1) ? C.repeatSlope : C.punctSlope;
        i++;
      }
      if (i - start === 1 && i < n && latin(s, i)) {
        prefixed = true;
        afterSpace = false;
        afterPunct = false;
        continue;
      }
      total += C.punct + extra;
    } else if (isEscape(c)) {
      // ESC, then punctuation opens a sequence: digits in groups of three and
      // punctuation, until the letter that ends it.
      total += C.escape;
      i++;
      if (i < n && isPunct(s.charCodeAt(i))) {
        total += C.escapePunct;
        i++;
        let digits = 0;
        while (i < n) {
          const b = s.charCodeAt(i);
          if (isDigit(b)) {
            if (digits % 3 === 0) total += C.digitGroup;
            digits++;
          } else if (isPunct(b)) {
            total += C.escapePunct;
            digits = 0;
          } else {
            if (isLower(b) || isUpper(b)) {
              total += C.escapeFinal;
              i++;
            }
            break;
          }
          i++;
        }
      }
    } else {
      const code = codeAt(s, i);
      const kind = script(code, String.fromCodePoint(code));
      const start = i;
      i += width(code);
      if (kind === "cyrillic" || kind === "alphabet" || kind === "hangul") {
        let letters = 1;
        while (i < n && s.charCodeAt(i) >= 128) {
          const next = codeAt(s, i);
          if (script(next, String.fromCodePoint(next)) !== kind) break;
          letters++;
          i += width(next);
        }
        const [base, letter] =
          kind === "cyrillic" ? [C.cyrillicBase, C.cyrillicLetter] : kind === "hangul" ? [C.hangulWord, C.hangul] : [C.alphabetBase, C.alphabetLetter];
        total += base + letters * letter + (kind !== "hangul" && !afterSpace ? C.noSpace : 0);
      } else if (kind === "latin" || kind === "symbol") {
        const before = start > 0 ? codeAt(s, start - 1 - (start > 1 && s.charCodeAt(start - 1) >= 0xdc00 && s.charCodeAt(start - 1) <= 0xdfff ? 1 : 0)) : -1;
        total += before === code ? C.repeatSymbol : C.symbol;
      } else {
        total += C[kind === "space" ? "otherSpace" : kind];
      }
    }
    afterSpace = space;
    afterPunct = punct;
    prefixed = false;
  }
  return total;
}

const tokens = (milli) => Math.ceil(milli / 1000);
const PLACEHOLDER = "[Old tool result content cleared]";
const MARKER = "kram:compaction_summary";

/** Each message's estimate and, for tool results, the payload's. */
function views(messages) {
  return messages.map((m) => {
    let milli = 0;
    let payload = 0;
    if (typeof m.content === "string") milli += textMilli(m.content);
    else if (Array.isArray(m.content)) {
      for (const part of m.content) milli += part.type === "text" ? textMilli(part.text) : 1_000_000;
    }
    if (m.role === "tool") payload = tokens(milli);
    if (typeof m.name === "string") milli += textMilli(m.name);
    for (const call of m.tool_calls ?? []) milli += textMilli(call.function.name) + textMilli(call.function.arguments);
    return {
      tokens: 4 + tokens(milli),
      payload,
      cleared: m.role === "tool" && m.content === PLACEHOLDER,
      user: m.role === "user",
      system: m.role !== "user" && m.role !== "assistant" && m.role !== "tool" && m.role !== "function",
      marker: m.role === "system" && m.name === MARKER,
    };
  });
}

export const estimateTokens = (messages) => views(messages).reduce((sum, v) => sum + v.tokens, 0);

export const needsCompaction = (messages, maxTokens) => estimateTokens(messages) > maxTokens;

export function effectiveHistory(messages) {
  const v = views(messages);
  let start = 0;
  for (let i = v.length - 1; i >= 0; i--) if (v[i].marker) { start = i; break; }
  return messages.slice(start);
}

export function pruneForModel(messages, { protectTurns = 2, protectTokens = 40_000, minimumSavings = 20_000 } = {}) {
  const v = views(messages);
  let tail = 0;
  for (let i = v.length - 1, seen = 0; i >= 0; i--) if (v[i].user && ++seen === protectTurns) { tail = i; break; }
  let running = 0;
  let savings = 0;
  const clear = new Set();
  for (let i = tail - 1; i >= 0; i--) {
    if (v[i].marker || messages[i].role !== "tool" || v[i].cleared) continue;
    running += v[i].payload;
    if (running > protectTokens) {
      savings += v[i].payload;
      clear.add(i);
    }
  }
  if (clear.size === 0 || savings < minimumSavings) return messages.slice();
  return messages.map((m, i) => (clear.has(i) ? { ...m, content: PLACEHOLDER } : m));
}

export function emergencyPrune(messages, maxTokens) {
  const v = views(messages);
  let leading = 0;
  while (leading < v.length && (messages[leading].role === "system" || v[leading].system)) leading++;
  let newest = -1;
  for (let i = v.length - 1; i >= leading; i--) if (v[i].user) { newest = i; break; }
  if (newest < 0) return messages.slice();
  let kept = 0;
  for (let i = 0; i < leading; i++) kept += v[i].tokens;
  let keepFrom = v.length;
  for (let i = v.length - 1; i >= leading; i--) {
    kept += v[i].tokens;
    if (v[i].user || i === leading) {
      if (kept <= maxTokens) keepFrom = i;
      else break;
    }
  }
  return [...messages.slice(0, leading), ...messages.slice(Math.min(keepFrom, newest))];
}
