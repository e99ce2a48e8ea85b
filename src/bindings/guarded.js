// Reads of the caller's values for the wasm module. A getter or Proxy trap
// may throw; each function here catches it, keeps it for takeThrown(), sets
// the flag byte that says so and returns undefined, so no exception crosses
// the Rust frames. (A wasm-bindgen `catch` import that returns a JS value
// would do the same, but loses a slot of the module's reference table on
// every exception: tests/js/hostile-scale.)
let thrown;

function fail(error) {
  thrown = error;
  flags()[THREW] = 1;
  return undefined;
}

/** `Reflect.get`, written out rather than through `guarded`. */
export function get(target, key) {
  try {
    return Reflect.get(target, key);
  } catch (error) {
    return fail(error);
  }
}

// Two bytes of the module's memory, so that what Rust asks after most calls
// costs no call of its own: the kind of the value `field` answers (numbered
// as `kindOf` numbers them, 8 when the read threw), and whether a call threw
// since Rust last looked (`fail` sets it, Rust clears it). Set once, when the
// module starts.
const KIND = 0;
const THREW = 1;
let memory;
let flagsAt = 0;
let flagBytes = new Uint8Array(0);

export function writeFlagsTo(wasmMemory, at) {
  memory = wasmMemory;
  flagsAt = at;
  flagBytes = new Uint8Array(0);
}

/** The flag bytes; a view left empty by a grown memory is made again. */
function flags() {
  if (flagBytes.length === 0) flagBytes = new Uint8Array(memory.buffer, flagsAt, 2);
  return flagBytes;
}

/** Writes the kind byte, and answers `value`. */
function answer(value, kind) {
  flags()[KIND] = kind;
  return value;
}

/**
 * A field of an object, `undefined` for anything that is not one (as the
 * core's `Node::field` wants), so the type test costs no call of its own;
 * its kind goes to the kind byte. A throw is kept for takeThrown() (the
 * kind byte says it, not the throw flag). The module imports it twice: with
 * a key, and as `item` with an index that comes as a number, not a JS value
 * made for it (an element's kind, which every message read asks first).
 */
export function field(target, key) {
  if (typeof target !== "object" || target === null) return answer(undefined, 0);
  try {
    // Not `Reflect.get`, which reads the same but is about 20 times slower
    // with an index in V8.
    const value = target[key];
    return answer(value, kindOf(value));
  } catch (error) {
    thrown = error;
    return answer(undefined, 8);
  }
}

/**
 * The field `key` of the element of `history` at `index` (of the element's
 * object field `outer` when that is not ""), read as `field` reads each,
 * in one call: the one field that holds an older tool message's result,
 * which pruning's walk reads of thousands of messages
 * (`Messages::result_field_value`), where the element and then each field
 * took a call of their own.
 */
export function elementField(history, index, outer, key) {
  try {
    const message = history[index];
    if (typeof message !== "object" || message === null) return answer(undefined, 0);
    const holder = outer === "" ? message : message[outer];
    if (typeof holder !== "object" || holder === null) return answer(undefined, 0);
    const value = holder[key];
    return answer(value, kindOf(value));
  } catch (error) {
    thrown = error;
    return answer(undefined, 8);
  }
}

/**
 * The index in `keys` of the first field of `target` that is not
 * undefined, or -1 (and -1 for anything that is not an object), reading
 * them in order: what the core's `Node::first_field_of` reads a field at a
 * time, in one call. A read that throws counts as absent, as the core's
 * `has` counts it, and is not kept.
 */
export function firstField(target, keys) {
  if (typeof target !== "object" || target === null) return -1;
  for (let i = 0; i < keys.length; i++) {
    try {
      if (target[keys[i]] !== undefined) return i;
    } catch {
      // Absent, as `has` reads a field that throws.
    }
  }
  return -1;
}

/**
 * An array's `length` as a number in one call (reading it and then asking
 * for its number were two); -1 for a length that is no number at all. Rust
 * judges the number (`whole_length` in src/bindings/guarded.rs).
 */
export function lengthOf(value) {
  try {
    return numberOrMinusOne(Reflect.get(value, "length"));
  } catch (error) {
    return fail(error);
  }
}

function numberOrMinusOne(length) {
  return typeof length === "number" ? length : -1;
}

/** `operation`, answering what `fail` answers when it throws. */
function guarded(operation) {
  return (...args) => {
    try {
      return operation(...args);
    } catch (error) {
      return fail(error);
    }
  };
}

export const ownProperty = guarded(Reflect.getOwnPropertyDescriptor);
export const prototypeOf = guarded(Reflect.getPrototypeOf);
export const keys = guarded(Object.keys);
/** 0 when the one own enumerable string key of an object that has exactly one is `first`, 1 when it is `second`, else -1 (`Node::only_key_of`). */
export const onlyKeyOf = guarded((value, first, second) => {
  const key = soleKey(value);
  return key === first ? 0 : key === second ? 1 : -1;
});
export const construct = guarded((constructor, fields) => Reflect.construct(constructor, [fields]));

/**
 * An object's one own enumerable key (one of `Object.keys`), or undefined
 * when it has none or more: a Gemini `response`'s, looked at in each result
 * pruning reads, where `Object.keys` made an array each time (`for...in`
 * with `Object.hasOwn` makes none).
 */
function soleKey(object) {
  let sole;
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    if (sole !== undefined) return undefined;
    sole = key;
  }
  return sole;
}

/**
 * Sets a field of a plain object the bindings made (an answer, a
 * description, a cleared payload), as an object literal defines it:
 * `Reflect.set`, which the bindings called before, ran a setter of that
 * name on Object.prototype where someone had put one, and the field was
 * never made. Assigning is several times as fast as defining (and
 * describeMessages 0.84 to 0.90 of its time with Reflect.set), so it
 * defines only a name Object.prototype has (`assignable`).
 */
export function setOwn(object, key, value) {
  if (assignable(key)) object[key] = value;
  else Reflect.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * Sets an own, enumerable, writable data property (never a setter on the
 * prototype chain) in one call: a descriptor built field by field from Rust
 * cost five calls and four strings per field copied.
 */
export const defineData = guarded((object, key, value) =>
  Reflect.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true }),
);

/**
 * A shallow copy of an object that is not an array, in one call: its
 * prototype kept, each own enumerable property (symbols too) read once and
 * defined as an own data property, as `{ ...value }` does. From Rust this was
 * several calls per field, most of `pruneForModel`'s time.
 */
export const copyObject = guarded((value) => {
  const prototype = Reflect.getPrototypeOf(value);
  // A plain object: spread reads and defines the same properties in the
  // same order (the same traps of a Proxy), and V8 copies it many times
  // faster than the loop below.
  if (prototype === Object.prototype) return { ...value };
  const copy = Object.create(prototype);
  const keys = Reflect.ownKeys(value);
  for (let i = 0; i < keys.length; i++) {
    const own = Reflect.getOwnPropertyDescriptor(value, keys[i]);
    if (typeof own === "object" && own !== null && own.enumerable) {
      const field = Reflect.get(value, keys[i]);
      Reflect.defineProperty(copy, keys[i], { value: field, writable: true, enumerable: true, configurable: true });
    }
  }
  return copy;
});

/**
 * A copy of an array's first `length` elements (its length, read and checked
 * by Rust), element by element into a new plain array, in one call: never
 * through a subclass's iterator or constructor. From Rust it was two calls
 * an element.
 */
export const copyArray = guarded((value, length) => {
  const copy = new Array(length);
  for (let i = 0; i < length; i++) copy[i] = value[i];
  return copy;
});

/**
 * A value's kind in one call, numbered as the core's `Kind` is: 0 undefined,
 * 1 null, 2 boolean, 3 number, 4 string, 5 array, 6 object, 7 anything else
 * (functions, symbols, BigInt, a revoked Proxy). One call instead of a call
 * per type test: kinds are read on every field of every message.
 */
export function kindOf(value) {
  switch (typeof value) {
    case "undefined":
      return 0;
    case "boolean":
      return 2;
    case "number":
      return 3;
    case "string":
      return 4;
    case "object":
      if (value === null) return 1;
      try {
        return Array.isArray(value) ? 5 : 6;
      } catch {
        return 7; // a revoked Proxy
      }
    default:
      return 7;
  }
}

/**
 * For each of `found.length` messages of `history` from `start`, which of
 * `names` its `role` is (the index plus one, and MESSAGE_ITEM added when
 * its `type` is absent, null or "message"), or with no `role` its `type`,
 * or the class a serialised LangChain message names last in its `id`
 * (with BY_TYPE added), and `withContent` TEXT_CONTENT added to either
 * when its `content` is a string, into `found`, as the core's
 * `Node::role_names` says: 0 for a
 * message that is no object, or an array, or whose `role` (or `type`) is
 * no string of `names`. A read that throws also answers
 * 0, and is not kept: the core then reads that message itself, and reports
 * what it throws. One call for many messages, where the core's own reads of
 * a role cost about four calls a message.
 */
export function roleNames(history, start, names, withContent, found) {
  const numbers = numbersOf(names);
  for (let i = 0; i < found.length; i++) {
    let message;
    try {
      message = history[start + i];
    } catch {
      found[i] = 0;
      continue;
    }
    found[i] = roleName(message, names, numbers, withContent);
  }
}

/**
 * For each of `out.length` messages of `history` from `start`, whether it
 * may be a compaction marker by its fields alone into `out`, as the core's
 * `shared::may_be_marker_by_fields` says: 0 when it has no `role` and not
 * `roleless`, or when its `role` is one of NO_MARKER_ROLES (nothing else of
 * it is read); else 1 when its `role` is NAMED_MARKER_ROLE and its `name`
 * is `name`, or when the first text of one of the fields of
 * `MARKER_TEXT_FIELDS` (`content`, `parts`, `kwargs.content`) starts with
 * `tag`, and when it is no object, its `role` is no string or a read throws
 * (the core then reads it itself, and reports what is wrong); else 0. One
 * call for many messages, where the core's reads of one cost a call a
 * field.
 */
export function markerCandidates(history, start, tag, name, roleless, out) {
  for (let i = 0; i < out.length; i++) {
    try {
      out[i] = mayBeMarker(history[start + i], tag, name, roleless);
    } catch {
      out[i] = 1;
    }
  }
}

/** The roles no format's marker has (NO_MARKER_ROLES in src/formats/shared.rs). */
const NO_MARKER_ROLES = ["assistant", "tool", "model", "function"];

/** The one role a marker told by its name has (NAMED_MARKER_ROLE in src/formats/shared.rs). */
const NAMED_MARKER_ROLE = "system";

/**
 * The fields are named here, as `roleName` names `role`, not passed as
 * paths: V8 reads a named field about four times faster than a field
 * whose name is a value (tests/js/boundary.test.mjs holds these to
 * `MARKER_TEXT_FIELDS`).
 */
function mayBeMarker(message, tag, name, roleless) {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return 1;
  const role = message.role;
  if (role === undefined && !roleless) return 0;
  if (role !== undefined && typeof role !== "string") return 1;
  if (NO_MARKER_ROLES.includes(role)) return 0;
  if (role === NAMED_MARKER_ROLE && message.name === name) return 1;
  if (firstTextTagged(message.content, tag) || firstTextTagged(message.parts, tag)) return 1;
  const kwargs = message.kwargs;
  return typeof kwargs === "object" && kwargs !== null && firstTextTagged(kwargs.content, tag) ? 1 : 0;
}

/** Whether a field's first text (itself when a string, else its first element's `text`) starts with `tag`. */
function firstTextTagged(field, tag) {
  if (typeof field === "string") return field.startsWith(tag);
  if (!Array.isArray(field) || field.length === 0) return false;
  const first = field[0];
  if (typeof first !== "object" || first === null) return false;
  const text = first.text;
  return typeof text === "string" && text.startsWith(tag);
}

/**
 * A new array of every element of `history`, one for each mark in
 * `fromCopies`, in one call: the output of pruning, where Rust set it an
 * element a call. An element marked 1 takes the copy in `copies` at its
 * index (`resultFields` or `resultParts` made it) if there is one, and is
 * unmarked if not. A read that throws is kept (`fail`), and its index is
 * answered.
 */
export function elementsOrCopies(history, copies, fromCopies) {
  // The marks copied first, and written back last: a getter this loop
  // runs may grow the module's memory (another history function called
  // from it), which empties every view of it. With no copies, none is
  // marked.
  const marks = fromCopies.slice();
  const marksAt = fromCopies.byteOffset;
  const copying = Array.isArray(copies);
  const elements = new Array(marks.length);
  for (let i = 0; i < marks.length; i++) {
    if (copying && marks[i] === 1) {
      const copy = copies[i];
      if (copy !== undefined) {
        elements[i] = copy;
        continue;
      }
      marks[i] = 0;
    }
    try {
      elements[i] = history[i];
    } catch (error) {
      fail(error);
      return i;
    }
  }
  if (copying) bytesAgain(fromCopies, marksAt, marks.length).set(marks);
  return elements;
}

/**
 * A new array of the elements of `history` in the ranges `bounds` gives (a
 * Uint32Array of start and end pairs), in order, in one call: the output
 * of a history function that keeps the caller's messages (the effective
 * history, the cut), with no index written for each. A read that throws is
 * kept (`fail`), and its index is answered.
 */
export function elementsIn(history, bounds) {
  // Copied first: a getter this loop runs may grow the module's memory,
  // which empties every view of it.
  const pairs = bounds.slice();
  if (pairs.length === 2) {
    const copied = plainSlice(history, pairs[0], pairs[1]);
    if (copied !== undefined) return copied;
  }
  let length = 0;
  for (let k = 0; k < pairs.length; k += 2) length += pairs[k + 1] - pairs[k];
  const elements = new Array(length);
  let slot = 0;
  for (let k = 0; k < pairs.length; k += 2) {
    for (let i = pairs[k]; i < pairs[k + 1]; i++) {
      try {
        elements[slot++] = history[i];
      } catch (error) {
        fail(error);
        return i;
      }
    }
  }
  return elements;
}

const arraySlice = Array.prototype.slice;
const arrayIncludes = Array.prototype.includes;

/**
 * The elements of `history` from `start` to `end`, copied by the engine's
 * own `slice` (a fifth of the time of reading them one by one), when that
 * copy is what `elementsIn`'s loop makes: `history` an array whose
 * prototype is Array.prototype, with no `constructor` of its own, and every
 * element there and not undefined (where `slice` would keep a hole, the
 * loop reads undefined). Else undefined, and also when a read throws: the
 * loop then reads them again, and answers where.
 */
function plainSlice(history, start, end) {
  try {
    if (Reflect.getPrototypeOf(history) !== Array.prototype || Object.hasOwn(history, "constructor")) return undefined;
    const elements = Reflect.apply(arraySlice, history, [start, end]);
    const plain = Array.isArray(elements) && Reflect.getPrototypeOf(elements) === Array.prototype;
    if (!plain || elements.length !== end - start || Reflect.apply(arrayIncludes, elements, [undefined])) return undefined;
    return elements;
  } catch {
    return undefined;
  }
}

/**
 * `bytes`, a view of `length` bytes of the module's memory from `at` that
 * Rust passed, or the same bytes viewed again when a grown memory has
 * emptied it (as `flags` makes its view again).
 */
function bytesAgain(bytes, at, length) {
  return bytes.length === length ? bytes : new Uint8Array(memory.buffer, at, length);
}

/**
 * What `resultFields` adds to a state 1 whose message it copied (COPIED in
 * src/newest_first/messages.rs), and what `resultParts` sets in the second
 * number of a message it copied (COPIED_PARTS there): the core then takes
 * the copy in place of its edits once its walk is decided.
 */
const COPIED = 4;
const COPIED_PARTS = 1 << 31;

/**
 * For each message of `history` at `indexes` (a Uint32Array), what its field
 * `key` (of the message, or of its object field `outer` when that is not "")
 * is into `states`, as the core's `Messages::result_fields` says: 1 a
 * string other than `placeholder` (or an array, when `parts`: content parts
 * the core clears whole), 2 `placeholder`, 0 anything else (a
 * message that is no object, or whose read throws: the core then reads it
 * itself, and reports what throws). A state the core set to 1 before the
 * call is of a field it has read: that field is not read again. When `copies` is an array, a message
 * answered 1 that is a plain object (and whose `outer` is) also gets its
 * copy there, at its index, with `replacement` at `key` (as `copyObject`
 * then `defineData` make it; not an object keeping LangChain's `lc_kwargs`,
 * which is built anew through its class, nor one whose copy throws: Rust
 * copies those, and every message when a field it would set cannot be
 * assigned: `assignable`), and its state gets COPIED. One call for all of
 * pruning's older tool messages, where the core's reads of one cost about
 * ten calls, and its copy about seven.
 */
export function resultFields(history, indexes, outer, key, parts, placeholder, states, replacement, copies) {
  const copying = Array.isArray(copies) && assignable(outer) && assignable(key);
  for (let i = 0; i < indexes.length; i++) {
    try {
      const message = history[indexes[i]];
      if (typeof message !== "object" || message === null) continue;
      const holder = outer === "" ? message : message[outer];
      if (typeof holder !== "object" || holder === null) continue;
      // A state already 1 is the core's own, from its read of the field.
      if (states[i] !== 1) {
        const value = holder[key];
        if (value === placeholder) {
          states[i] = 2;
          continue;
        }
        if (typeof value !== "string" && !(parts && Array.isArray(value))) continue;
        states[i] = 1;
      }
      if (!copying || !isPlain(message)) continue;
      const copy = { ...message };
      if (outer === "") copy[key] = replacement;
      else if (isPlainObject(holder)) {
        const inner = { ...holder };
        inner[key] = replacement;
        copy[outer] = inner;
      } else continue;
      copies[indexes[i]] = copy;
      states[i] |= COPIED;
    } catch {
      // 0: the core reads this message itself; or 1 with no copy.
    }
  }
}

/**
 * For each message of `history` at `indexes` (a Uint32Array), which of its
 * parts hold a tool result to clear, as the core's `ResultParts::to_clear`
 * (src/formats/result_parts.rs) says, following the same steps over JS
 * values. Three numbers a message go into `answers`: bit i for the part at
 * i, with bit 31 set (that bit alone when the parts' field is text), or 0
 * when the rule cannot say (the core then reads that message itself, and
 * reports what is wrong or throws); then which of those parts report an
 * error; then, when `payloads` is an array and each of those parts has a
 * payload the core estimates as it is (`toEstimate`), bit 31 set and the
 * bits of those estimated as JSON: their payloads are pushed to
 * `payloads`, in order, for the core to estimate there without reading
 * the message again (`Messages::recorded_payload`, and the texts many at
 * a time: `Messages::recorded_text`).
 * The rule comes as data: `names` are its field names (the parts' array, a
 * result part's type, its call id, its payload, the payload's value, the
 * field that keeps a part whole, the field that makes a part a result when
 * it has no type, a keyed payload's output and error keys) and then the
 * payload types it clears, and `kinds` what each of those holds (1: its
 * value is text, 2: it reports an error, 4: its value is any JSON value),
 * then what an untagged payload may be (`Untagged`'s code).
 * When `copies` is an array, a plain message with parts to clear also gets
 * its copy there, at its index (as `copyObject`, `copyArray` and
 * `defineData` make it along each path): its parts copied, and each plain
 * part to clear copied with a copy of `cleared` (`clearedError` for an
 * error) as its payload, and its second number gets COPIED_PARTS. Rust
 * copies every message when a field the copies
 * would set cannot be assigned (`assignable`). A message with parts to
 * clear that may be a marker (`mayBeMarker`, by `tag`, `name` and
 * `roleless`) is answered 0: a marker's results are kept, and the core
 * reads it to tell. One call for all of
 * pruning's older AI SDK messages, where the core's read of a tool message
 * costs about forty calls.
 */
export function resultParts(history, indexes, names, kinds, placeholder, answers, cleared, clearedError, copies, payloads, tag, name, roleless) {
  const [array, partType, idKey, payload, valueKey, keptIf, resultKey, outputKey, errorKey, typePrefix, stateKey, ...types] = names;
  const rule = { partType, idKey, payload, valueKey, keptIf, resultKey, outputKey, errorKey, typePrefix, stateKey, types, kinds, placeholder };
  const copying = Array.isArray(copies) && [array, resultKey, payload, valueKey].every(assignable);
  const recording = Array.isArray(payloads);
  // What partToClear finds to estimate in each part (this call's own: a
  // getter that runs another history function makes that call's).
  const seen = { payload: NO_PAYLOAD, asJson: false };
  for (let i = 0; i < indexes.length; i++) {
    // This message's payloads go straight into `payloads` (no array of its
    // own: pruning reads thousands of messages), and are taken back unless
    // every part to clear has one and the answer is written.
    const firstPayload = recording ? payloads.length : 0;
    try {
      const message = history[indexes[i]];
      if (typeof message !== "object" || message === null) continue;
      const parts = message[array];
      if (typeof parts === "string") {
        answers[3 * i] = 0x80000000; // text alone: no parts
        continue;
      }
      if (!Array.isArray(parts) || parts.length > 31) continue;
      const read = new Array(parts.length);
      let toClear = 0;
      let reportErrors = 0;
      let known = true;
      let allFound = recording;
      let asJson = 0;
      for (let p = 0; p < read.length; p++) {
        read[p] = parts[p];
        const answer = partToClear(read[p], rule, seen);
        if (answer < 0) {
          known = false;
          break;
        }
        if (answer & 1) {
          toClear |= 1 << p;
          if (allFound) {
            if (seen.payload === NO_PAYLOAD) allFound = false;
            else payloads.push(seen.payload);
          }
          if (seen.asJson) asJson |= 1 << p;
        }
        if (answer & 2) reportErrors |= 1 << p;
      }
      // A marker's results are kept: the core reads one that may be.
      if (known && toClear !== 0 && mayBeMarker(message, tag, name, roleless) !== 0) known = false;
      if (!known || !allFound || toClear === 0) takeBack(payloads, firstPayload);
      if (!known) continue;
      answers[3 * i] = 0x80000000 | toClear;
      answers[3 * i + 1] = reportErrors;
      if (allFound && toClear !== 0) answers[3 * i + 2] = 0x80000000 | asJson;
      if (toClear === 0 || !copying || !isPlain(message)) continue;
      const copy = copyClearing(message, array, read, toClear, reportErrors, rule, cleared, clearedError);
      if (copy === undefined) continue;
      copies[indexes[i]] = copy;
      answers[3 * i + 1] |= COPIED_PARTS;
    } catch {
      // 0: the core reads this message itself; or an answer with no copy.
      if (answers[3 * i + 2] === 0) takeBack(payloads, firstPayload);
    }
  }
}

/** `payloads` (when it is an array) cut back to its first `length`. */
function takeBack(payloads, length) {
  if (Array.isArray(payloads) && payloads.length > length) payloads.length = length;
}

/**
 * What `resultParts` makes of one part by the rule, in the order of the
 * core's reads: -1 when the rule cannot say, 0 nothing to clear (no result,
 * a payload kept as it is, or cleared already), 1 a result to clear, 3 one
 * that reports an error.
 */
function partToClear(part, rule, seen) {
  seen.payload = NO_PAYLOAD;
  if (!isObject(part)) return -1;
  // The object that holds the result: the part, or its `resultKey`.
  let result = part;
  if (rule.resultKey === "") {
    const type = part.type;
    if (typeof type !== "string") return -1;
    if (type !== rule.partType && (rule.typePrefix === "" || !type.startsWith(rule.typePrefix))) return 0;
  } else {
    result = part[rule.resultKey];
    if (result === undefined) return 0;
    if (!isObject(result)) return -1;
  }
  if (rule.idKey !== "" && typeof result[rule.idKey] !== "string") return -1;
  if (rule.stateKey !== "") return stateToClear(result, rule, seen);
  const output = result[rule.payload];
  if (rule.types.length === 0) {
    // The payload is the value (ResultParts::untagged in src/formats/result_parts.rs).
    // The code after the types' codes, here the only one: 1 when it may be
    // any JSON value, 2 when it is an object keyed by its output or error.
    const json = rule.kinds[0] === 1;
    if (rule.keptIf !== "" && part[rule.keptIf] !== undefined) return 0;
    if (output === undefined) return json ? -1 : 0;
    if (rule.kinds[0] === 2) return keyedToClear(output, rule, seen);
    if (typeof output === "string") {
      if (output === rule.placeholder) return 0;
      toEstimate(seen, output, false);
      return 1;
    }
    // (An array of content blocks is estimated by the core's reader.)
    if (json) toEstimate(seen, output, true);
    return json || Array.isArray(output) ? 1 : -1;
  }
  if (typeof output !== "object" || output === null || Array.isArray(output)) return -1;
  const outputType = output.type;
  if (typeof outputType !== "string") return -1;
  const at = rule.types.indexOf(outputType);
  if (at < 0) return 0;
  if (rule.kinds[at] & 1) {
    const value = output[rule.valueKey];
    if (typeof value !== "string") return -1;
    if (value === rule.placeholder) return 0;
    toEstimate(seen, value, false);
  } else if (rule.kinds[at] & 4) {
    const value = output[rule.valueKey];
    if (value !== undefined) toEstimate(seen, value, true);
  }
  return rule.kinds[at] & 2 ? 3 : 1;
}

/**
 * What `partToClear` makes of a payload keyed by its output or error (a
 * Gemini `response`): 0 when its one key is either and holds the
 * placeholder, 3 when it has the error's key but not the output's, else 1.
 */
function keyedToClear(output, rule, seen) {
  if (!isObject(output)) return -1;
  const key = soleKey(output);
  const only = key !== undefined && (key === rule.outputKey || key === rule.errorKey) ? output[key] : undefined;
  if (only !== undefined && only === rule.placeholder) return 0;
  // One text under the output's or the error's key is estimated as text,
  // else the whole payload as JSON.
  toEstimate(seen, typeof only === "string" ? only : output, typeof only !== "string");
  return output[rule.errorKey] !== undefined && output[rule.outputKey] === undefined ? 3 : 1;
}

/**
 * What `partToClear` makes of a result whose state says where its payload
 * is (an AI SDK UI tool part): 0 for a state that holds none, no payload,
 * or the placeholder; -1 for a state, or a text, that is no string; else 1,
 * or 3 for a state that reports an error, its payload under `valueKey`.
 */
function stateToClear(result, rule, seen) {
  const state = result[rule.stateKey];
  if (typeof state !== "string") return -1;
  const at = rule.types.indexOf(state);
  if (at < 0) return 0;
  const error = (rule.kinds[at] & 2) !== 0;
  const payload = result[error ? rule.valueKey : rule.payload];
  if (payload === undefined || payload === rule.placeholder) return 0;
  if (typeof payload !== "string" && rule.kinds[at] & 1) return -1;
  toEstimate(seen, payload, typeof payload !== "string");
  return error ? 3 : 1;
}

/**
 * What `partToClear` finds to estimate in a part, into `seen` (one for each
 * `resultParts` call): the value, and whether the core estimates it as
 * JSON (else as text), as the format's reader of a result part does
 * (`Format::result_of_part`); it stays NO_PAYLOAD where the reader does
 * more than that (an array of content blocks).
 */
const NO_PAYLOAD = Symbol("no payload");

function toEstimate(seen, value, asJson) {
  seen.payload = value;
  seen.asJson = asJson;
}

function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `resultParts`' copy of `message`: its parts (`read`) in a new array, each
 * part at a bit of `toClear` copied with a copy of `cleared` (or
 * `clearedError`) as its payload (in a copy of its `resultKey` object when
 * the rule has one); undefined when such a part, or that object, is no
 * plain object (Rust copies that message).
 */
function copyClearing(message, array, read, toClear, reportErrors, rule, cleared, clearedError) {
  for (let p = 0; p < read.length; p++) {
    if ((toClear & (1 << p)) === 0) continue;
    const part = read[p];
    if (!isPlainObject(part)) return undefined;
    const result = rule.resultKey === "" ? part : part[rule.resultKey];
    if (!isPlainObject(result)) return undefined;
    const error = (reportErrors & (1 << p)) !== 0;
    const replacement = error ? clearedError : cleared;
    // With a state, an error's payload is under `valueKey`.
    const key = error && rule.stateKey !== "" ? rule.valueKey : rule.payload;
    // A tagged payload is copied for each part; a placeholder is a string.
    const payload = { ...result };
    payload[key] = typeof replacement === "object" ? { ...replacement } : replacement;
    if (rule.resultKey === "") read[p] = payload;
    else {
      const copy = { ...part };
      copy[rule.resultKey] = payload;
      read[p] = copy;
    }
  }
  const copy = { ...message };
  copy[array] = read;
  return copy;
}

/**
 * Whether `copy[key] = value` on a spread copy of a plain object defines
 * `key` as `{ ...object, [key]: value }` does: unless Object.prototype has
 * a property of that name (`__proto__`, or a setter someone put there),
 * which would take the assignment. V8 makes the spread and then the
 * assignment in about half the time of the computed key (Gemini's results:
 * 0.25 against 0.47 ms for 3,000 messages' copies). The empty name, no
 * field, is assignable.
 */
function assignable(key) {
  return !(key in Object.prototype);
}

/** Whether an object's prototype is `Object.prototype`: a spread copies it whole. */
function isPlainObject(value) {
  return Reflect.getPrototypeOf(value) === Object.prototype;
}

/** Whether `resultFields` and `resultParts` may copy `message` by spreading it. */
function isPlain(message) {
  return isPlainObject(message) && !Object.hasOwn(message, "lc_kwargs");
}

/**
 * What `Node::role_names` adds for a message whose `type` is absent, null or
 * MESSAGE_TYPE (MESSAGE_ITEM in src/node.rs): an OpenAI Responses item that
 * is a message.
 */
const MESSAGE_ITEM = 0x80;
/** The `type` of an OpenAI Responses message item (MESSAGE_TYPE in src/formats/openai_responses.rs). */
const MESSAGE_TYPE = "message";
/** What it adds for a message with no `role` found by its `type` (BY_TYPE in src/node.rs). */
const BY_TYPE = 0x40;
/**
 * The `type` of a serialised LangChain message, which is found by the class
 * it names last in its `id` (SERIALISED_TYPE in src/formats/langchain.rs).
 */
const SERIALISED_TYPE = "constructor";

/** What it adds to either for a message whose `content` is a string (TEXT_CONTENT in src/node.rs). */
const TEXT_CONTENT = 0x20;

function roleName(message, names, numbers, withContent) {
  try {
    const code = roleCode(message, names, numbers);
    if (code === 0 || !withContent) return code;
    return typeof message.content === "string" ? code + TEXT_CONTENT : code;
  } catch {
    return 0;
  }
}

/**
 * Each of `names` with its number (its index plus one), for `roleCode` to
 * find a `type` or a class by: those are the list's last names, where
 * `indexOf` compares a type with twenty names before it finds it
 * (LangChain's pruning 0.87× to 0.94× with a Map); a `role` is among its
 * first few, found by `indexOf` as fast. Made once for each list: the
 * core passes a list as the one array it made of it (`keys::key_list`),
 * and never changes it.
 */
const numbersByList = new WeakMap();

function numbersOf(names) {
  let numbers = numbersByList.get(names);
  if (numbers === undefined) {
    numbers = new Map(names.map((name, i) => [name, i + 1]));
    numbersByList.set(names, numbers);
  }
  return numbers;
}

/** `roleName` without TEXT_CONTENT (role_code in src/node.rs). */
function roleCode(message, names, numbers) {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return 0;
  const role = message.role;
  if (role === undefined) {
    let type = message.type;
    if (type === SERIALISED_TYPE) {
      const id = message.id;
      type = Array.isArray(id) ? id[id.length - 1] : undefined;
    }
    const byType = typeof type === "string" ? (numbers.get(type) ?? 0) : 0;
    return byType === 0 ? 0 : byType + BY_TYPE;
  }
  const found = typeof role === "string" ? names.indexOf(role) + 1 : 0;
  if (found === 0) return 0;
  const type = message.type;
  return type === undefined || type === null || type === MESSAGE_TYPE ? found + MESSAGE_ITEM : found;
}

/** The tape's tags (TAPE_* in src/estimate/json.rs). */
const TAPE_TEXT = 1;
const TAPE_KEY = 2;
const TAPE_CONTAINER = 3;
const TAPE_ELEMENT = 4;
const TAPE_LITERAL = 5;
const TAPE_SIDE_TEXT = 6;
const TAPE_SIDE_KEY = 7;
/**
 * The most bytes of text a tape holds: a text that would pass it is left
 * where it is, as a side text the core estimates on its own, so that a
 * value holding one long string many times is not copied as many times.
 */
const LONGEST_TAPE = 1 << 24;
const tapeEncoder = new TextEncoder();
/** A new tape's bytes; a tape grown past KEPT_TAPE is not kept for the next walk. */
const FIRST_TAPE = 1 << 12;
const KEPT_TAPE = 1 << 20;
/** A tape to write the next walk into, reused from walk to walk. */
let spareTape = new Uint8Array(FIRST_TAPE);
/** The walk that ended last: its tape, for `takeTape`, and its side texts. */
let lastWalk = { tape: spareTape, length: 0, sides: [] };

/**
 * The tape of a free-form JSON value for the core's estimate of it, as the
 * core's `estimate::json::write_tape` writes it for a node, walked here in
 * one call where the core's walk crosses into JS for every value: depth
 * first, keys in `Object.keys` order, no deeper than `maxDepth` and no more
 * than `maxNodes` values; an element whose read throws left out, and the
 * value of a member whose read throws or that is undefined. Written at `at`
 * in the module's memory when `capacity` bytes hold it, answering its
 * length; else -1 - its length, and `takeTape` copies it once the core has
 * made room. Every read of the caller's value is caught where it is made,
 * so the catch here meets nothing (it answers NaN, an empty tape).
 *
 * Each walk keeps its own state and tape: a getter in the value may run
 * the package again, and so another walk (with its `takeTape` and side
 * texts), before this one ends.
 */
export function jsonTape(value, maxDepth, maxNodes, at, capacity) {
  try {
    const walk = { tape: spareTape ?? new Uint8Array(FIRST_TAPE), length: 0, textBytes: 0, nodesLeft: maxNodes, deepest: maxDepth, sides: [] };
    spareTape = undefined;
    writeValue(walk, value, 0);
    lastWalk = walk;
    spareTape = walk.tape.length > KEPT_TAPE ? new Uint8Array(FIRST_TAPE) : walk.tape;
    if (walk.length > capacity) return -1 - walk.length;
    takeTape(at);
    return walk.length;
  } catch {
    return NaN;
  }
}

/** Copies the tape of the walk that ended last to `at` in the module's memory. */
export function takeTape(at) {
  new Uint8Array(memory.buffer, at, lastWalk.length).set(lastWalk.tape.subarray(0, lastWalk.length));
}

/** The side text at `index` of the walk that ended last; let go of here. */
export function tapeSideText(index) {
  const text = lastWalk.sides[index];
  lastWalk.sides[index] = undefined;
  return text;
}

/** `write_value` in src/estimate/json.rs, over a JS value. */
function writeValue(walk, value, depth) {
  if (walk.nodesLeft === 0 || depth > walk.deepest) return;
  walk.nodesLeft--;
  switch (kindOf(value)) {
    case 1:
    case 2:
      writeTag(walk, TAPE_LITERAL);
      return;
    case 3:
      writeText(walk, TAPE_TEXT, String(value));
      return;
    case 4:
      writeText(walk, TAPE_TEXT, value);
      return;
    case 5:
      writeArray(walk, value, depth);
      return;
    case 6:
      writeObject(walk, value, depth);
  }
}

function writeArray(walk, array, depth) {
  let length;
  try {
    length = Reflect.get(array, "length");
  } catch {
    return; // An array whose length cannot be read is of no kind the core knows.
  }
  // The rule of an array's length (whole_length in src/bindings/guarded.rs).
  if (typeof length !== "number" || !(length >= 0 && Number.isInteger(length) && length <= 0xffffffff)) return;
  writeTag(walk, TAPE_CONTAINER);
  for (let i = 0; i < length && walk.nodesLeft > 0; i++) {
    let item;
    try {
      item = array[i];
    } catch {
      continue;
    }
    writeTag(walk, TAPE_ELEMENT);
    writeValue(walk, item, depth + 1);
  }
}

function writeObject(walk, object, depth) {
  writeTag(walk, TAPE_CONTAINER);
  let keys;
  try {
    keys = Object.keys(object);
  } catch {
    return;
  }
  for (let i = 0; i < keys.length && walk.nodesLeft > 0; i++) {
    writeText(walk, TAPE_KEY, keys[i]);
    let child;
    try {
      child = object[keys[i]];
    } catch {
      continue;
    }
    if (child !== undefined) writeValue(walk, child, depth + 1);
  }
}

function writeTag(walk, tag) {
  roomForTape(walk, 1);
  walk.tape[walk.length++] = tag;
}

/**
 * A tag, then the UTF-8 length of `text` (4 bytes, little-endian) and its
 * UTF-8; or, for a text that would take the tape's text past LONGEST_TAPE,
 * the tag's side tag and the text's index in the walk's side texts.
 */
function writeText(walk, tag, text) {
  if (walk.textBytes + 3 * text.length > LONGEST_TAPE) {
    writeNumber(walk, tag === TAPE_TEXT ? TAPE_SIDE_TEXT : TAPE_SIDE_KEY, walk.sides.push(text) - 1);
    return;
  }
  roomForTape(walk, 5 + 3 * text.length);
  const tape = walk.tape;
  const start = walk.length + 5;
  let written = 0;
  // Keys, numbers and short strings: a loop over ASCII is faster than
  // encodeInto, whose result object is garbage on every call.
  if (text.length <= 32) {
    for (; written < text.length; written++) {
      const code = text.charCodeAt(written);
      if (code > 0x7f) break;
      tape[start + written] = code;
    }
  }
  if (written < text.length) written = tapeEncoder.encodeInto(text, tape.subarray(start)).written;
  writeNumber(walk, tag, written);
  walk.length += written;
  walk.textBytes += written;
}

/** A tag and a number (4 bytes, little-endian). */
function writeNumber(walk, tag, number) {
  roomForTape(walk, 5);
  const tape = walk.tape;
  const at = walk.length;
  tape[at] = tag;
  tape[at + 1] = number & 0xff;
  tape[at + 2] = (number >>> 8) & 0xff;
  tape[at + 3] = (number >>> 16) & 0xff;
  tape[at + 4] = number >>> 24;
  walk.length += 5;
}

/** Grows the walk's tape to hold `bytes` more. */
function roomForTape(walk, bytes) {
  const needed = walk.length + bytes;
  if (needed <= walk.tape.length) return;
  let size = walk.tape.length * 2;
  while (size < needed) size *= 2;
  const grown = new Uint8Array(size);
  grown.set(walk.tape.subarray(0, walk.length));
  walk.tape = grown;
}

/** What the last failed call threw; forgets it. */
export function takeThrown() {
  const result = thrown;
  thrown = undefined;
  return result;
}
