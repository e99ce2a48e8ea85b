// The least any implementation could pay for an answer it already knows, in
// plain JS, for the bench's rows of every format: what no design of
// `effectiveHistory`, `pruneForModel` or `emergencyPrune` can avoid, so that
// a ratio to the byte-touch limit can be read against it.
//
// - Looking at every message: one field read of each (`role`). Any answer
//   that depends on every message (no marker is found without looking at
//   each one; a tool result may be in any message) pays at least this.
// - Pruning: that look, a new array of the answer with every changed message
//   copied along the paths that changed (the caller's objects are never
//   changed, so a cleared message is a new object), and the text of the tool
//   results newer than the last one cleared copied into memory once (the
//   walk must estimate them to know where the protected tail ends; the
//   estimate's own arithmetic is left out).
// - The cut at a budget: the text of the messages it keeps copied into
//   memory once (each one's estimate decides the cut; the arithmetic is left
//   out), and the kept slice.

/** One read of each message's `role`. */
export function lookAtEach(history) {
  let found = 0;
  for (let i = 0; i < history.length; i++) if (history[i].role !== undefined) found++;
  return found;
}

/**
 * Where `after` differs from `before`, as a tree of the keys that changed,
 * with the new values at its leaves (shared, not copied); null for no change.
 * Every node has the same three fields, so that reading one is one shape.
 */
function patchOf(before, after) {
  if (before === after) return null;
  const object = (value) => typeof value === "object" && value !== null;
  const leaf = { leaf: after, keys: null, inner: null };
  if (!object(before) || !object(after) || Array.isArray(before) !== Array.isArray(after)) return leaf;
  const keys = Object.keys(after).filter((key) => before[key] !== after[key]);
  if (keys.length === 0) return leaf;
  return { leaf: undefined, keys, inner: keys.map((key) => patchOf(before[key], after[key])) };
}

/**
 * `value` copied along `patch`'s keys, with its leaves: one function for
 * each depth of the path (the message, its array, a part, the part's
 * result, deeper), so that each copy and each store sees the few shapes of
 * its own depth. One function for every depth made every site see every
 * shape, and V8 then copies several times slower: Gemini's cleared
 * messages took 3.0 to 3.1 ms so, where a function written for its format
 * alone read every message and copied them in 1.6 to 1.7.
 */
function copiedAt0(value, patch) {
  if (patch.keys === null) return patch.leaf;
  const copy = Array.isArray(value) ? value.slice() : { ...value };
  for (let k = 0; k < patch.keys.length; k++) copy[patch.keys[k]] = copiedAt1(value[patch.keys[k]], patch.inner[k]);
  return copy;
}

function copiedAt1(value, patch) {
  if (patch.keys === null) return patch.leaf;
  const copy = Array.isArray(value) ? value.slice() : { ...value };
  for (let k = 0; k < patch.keys.length; k++) copy[patch.keys[k]] = copiedAt2(value[patch.keys[k]], patch.inner[k]);
  return copy;
}

function copiedAt2(value, patch) {
  if (patch.keys === null) return patch.leaf;
  const copy = Array.isArray(value) ? value.slice() : { ...value };
  for (let k = 0; k < patch.keys.length; k++) copy[patch.keys[k]] = copiedAt3(value[patch.keys[k]], patch.inner[k]);
  return copy;
}

function copiedAt3(value, patch) {
  if (patch.keys === null) return patch.leaf;
  const copy = Array.isArray(value) ? value.slice() : { ...value };
  for (let k = 0; k < patch.keys.length; k++) copy[patch.keys[k]] = copiedDeeper(value[patch.keys[k]], patch.inner[k]);
  return copy;
}

function copiedDeeper(value, patch) {
  if (patch.keys === null) return patch.leaf;
  const copy = Array.isArray(value) ? value.slice() : { ...value };
  for (let k = 0; k < patch.keys.length; k++) copy[patch.keys[k]] = copiedDeeper(value[patch.keys[k]], patch.inner[k]);
  return copy;
}

/**
 * The floor of pruning `history` to `pruned`: a function that does the
 * least work above, given the answer. `describe` is `describeMessages`, for
 * where the tool results' text is; `copyIn` copies strings into memory.
 */
export function pruningFloor(history, pruned, describe, copyIn) {
  const patches = history.map((message, i) => patchOf(message, pruned[i]));
  const lastCleared = patches.findLastIndex((patch) => patch !== null);
  const tailResults = describe(history.slice(lastCleared + 1))
    .messages.flatMap((message) => message.blocks)
    .filter((block) => block.type === "tool-result" && typeof block.output === "string")
    .map((block) => block.output);
  return () => {
    lookAtEach(history);
    const answer = new Array(history.length);
    for (let i = 0; i < history.length; i++) answer[i] = patches[i] === null ? history[i] : copiedAt0(history[i], patches[i]);
    copyIn(tailResults);
    return answer;
  };
}

/**
 * The floor of the cut of `history` to `kept`, the messages it keeps (the
 * caller's own objects: a leading system prompt and the newest turns).
 */
export function cutFloor(history, kept, copyIn) {
  const indexes = kept.map((message) => history.indexOf(message));
  if (indexes.includes(-1)) throw new Error("the cut keeps a message that is not the caller's");
  return () => {
    const answer = indexes.map((i) => history[i]);
    copyIn(answer);
    return answer;
  };
}

/** Throws unless a floor's answer is the package's, message by message. */
export function sameAnswer(floor, answer, what) {
  const same = floor.length === answer.length && floor.every((message, i) => message === answer[i] || JSON.stringify(message) === JSON.stringify(answer[i]));
  if (!same) throw new Error(`${what} is not the package's answer`);
}
