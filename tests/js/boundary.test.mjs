// A JS exception that unwinds through Rust frames skips their clean-up and can
// leave the wasm instance inconsistent. Every call the module makes into JS
// goes through an import in the glue; this test reads the built glue and fails
// on any import that could throw on a caller's value without being caught
// (`catch` imports are wrapped in handleError). A new unguarded import must be
// made a `catch` import or a guarded read (src/bindings/guarded.rs), or be shown
// safe and listed here. The guarded reads (src/bindings/guarded.js) are
// checked to catch whatever they call.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const dist = require.resolve("kram-compaction").replace(/node\.cjs$/, "");

/** Unguarded imports that cannot throw, each with the reason. */
const SAFE = [
  [/^const (ret|val|v|obj) = arg[01];?( const ret =)? typeof|^const ret = arg0 === (null|void 0);|^const ret = typeof arg0 ===|^const ret = !arg0;|^const ret = arg0 === arg1;/, "a typeof or identity check reads nothing"],
  [/^const obj = arg1; const ret = typeof obj === "(number|string)"/, "reads a primitive already known by typeof"],
  [/^(var v0 = getCachedStringFromWasm0\(arg0, arg1\); )?const ret = (\/\* @__PURE__ \*\/ )?new (Array|Object|Error|TypeError|RangeError|WeakMap)\((v0|arg0 >>> 0|getStringFromWasm0\(arg0, arg1\))?\);/, "a constructor of a fresh built-in"],
  [/^const ret = arg0\.(get\(arg1\)|set\(arg1, arg2\));/, "the memo's own WeakMap (the only type with get and set methods in src/bindings/own_values.rs): a WeakMap runs no caller code, and set is called only with objects"],
  [/^const ret = arg0\.push\(arg1\);|^arg0\[arg1 >>> 0\] = arg2;/, "writes only to arrays the bindings just made (outputs, copies, descriptions)"],
  [/^const ret = arg0\[arg1 >>> 0\];|^const ret = arg0\.length;/, "reads only arrays the engine made (Reflect.ownKeys, Object.keys) or the bindings made"],
  [/^(var v0 = getCachedStringFromWasm0\(arg0, arg1\); )?throw new Error\((v0|getStringFromWasm0\(arg0, arg1\))\);/, "wasm-bindgen's own internal errors (an exhausted externref table, a class instance re-entered); never a caller's value"],
  [/^const ret = typeof (globalThis|global|self|window) === "undefined"/, "reads a global binding"],
  [/^const ret = String\(arg1\); const ptr1 = passStringToWasm0\(ret, wasm\d?\.__wbindgen_malloc, wasm\d?\.__wbindgen_realloc\);/, "String of a number (src/bindings/strings.rs, string_of_number takes an f64): prints it, and runs no code of the caller's"],
  [/^(var v0 = getCachedStringFromWasm0\(arg0, arg1\); )?const ret = (arg0|v0); return ret; \}/, "a cast: returns its argument"],
  [/^const ret = getStringFromWasm0\(arg0, arg1\); return ret; \}/, "makes a JS string from the module's own memory"],
  [/^const ret = field\d?\(arg0, arg1 >>> 0\); return ret; \}/, "calls guarded.js's field with an index (guarded_item), which catches what it calls (the test below)"],
  [/^const ret = elementField\d?\(arg0, arg1 >>> 0, arg2, arg3\); return ret; \}$/, "calls guarded.js's elementField with the caller's history, an index and two names of the bindings' making; it catches what it reads (the test below)"],
  [/^const ret = copyArray\d?\(arg0, arg1 >>> 0\); return ret; \}/, "calls guarded.js's copyArray (guarded_copy_array), made by guarded(), which catches what it calls (the test below)"],
  [/^roleNames\d?\(arg0, arg1 >>> 0, arg2, arg3 !== 0, getArrayU8FromWasm0\(arg4, arg5\)\); \}$/, "calls guarded.js's roleNames with the caller's history, an index, the bindings' own array of names (keys::key_list) and a byte view of the module's memory; it catches what it reads (the test below)"],
  [/^const ret = elementsIn\d?\(arg0, getArrayU32FromWasm0\(arg1, arg2\)\); return ret; \}$/, "calls guarded.js's elementsIn with the caller's history and a view of the module's own memory; it catches what it reads (the test below)"],
  [/^const ret = elementsOrCopies\d?\(arg0, arg1, getArrayU8FromWasm0\(arg2, arg3\)\); return ret; \}$/, "calls guarded.js's elementsOrCopies with the caller's history, the bindings' own array of copies and a view of the module's own memory; it catches what it reads (the test below)"],
  [/^resultFields\d?\(arg0, getArrayU32FromWasm0\(arg1, arg2\), arg3, arg4, arg5 !== 0, arg6, getArrayU8FromWasm0\(arg7, arg8\), arg9, arg10\); \}$/, "calls guarded.js's resultFields with the caller's history and placeholder, views of the module's own memory, a flag, a string and an array of the bindings' making; it catches what it reads (the test below)"],
  [/^var v0 = getArrayJsValueFromWasm0\(arg3, arg4\); wasm\d?\.__wbindgen_free\(arg3, arg4 \* 4, 4\); resultParts\d?\(arg0, getArrayU32FromWasm0\(arg1, arg2\), v0, getArrayU8FromWasm0\(arg5, arg6\), arg7, getArrayU32FromWasm0\(arg8, arg9\), arg10, arg11, arg12, arg13, arg14, arg15, arg16 !== 0\); \}$/, "calls guarded.js's resultParts with the caller's history and placeholder, views of the module's own memory, arrays and objects of the bindings' making, the bindings' own strings of the marker's tag and name (keys::key), and a flag; it catches what it reads (the test below)"],
  [/^markerCandidates\d?\(arg0, arg1 >>> 0, arg2, arg3, arg4 !== 0, getArrayU8FromWasm0\(arg5, arg6\)\); \}$/, "calls guarded.js's markerCandidates with the caller's history, an index, the bindings' own strings (keys::key), a flag and a byte view of its memory; it catches what it reads (the test below)"],
  [/^const ret = jsonTape\d?\(arg0, arg1 >>> 0, arg2 >>> 0, arg3 >>> 0, arg4 >>> 0\); return ret; \}$/, "calls guarded.js's jsonTape with a caller's JSON value and numbers; it catches what it reads (the test below)"],
  [/^setOwn\d?\(arg0, arg1, arg2\); \}$/, "guarded.js's setOwn sets a field of a plain object the bindings just made (src/bindings/own_values.rs); it reads no caller value"],
  [/^takeTape\d?\(arg0 >>> 0\); \}$/, "guarded.js's takeTape copies its own tape into the module's memory; it reads no caller value"],
  [/^const ret = tapeSideText\d?\(arg0 >>> 0\); return ret; \}$/, "guarded.js's tapeSideText answers a string it kept from its own array; it reads no caller value"],
  [/^writeFlagsTo\d?\(arg0, arg1 >>> 0\); \}/, "guarded.js's writeFlagsTo keeps the module's own memory and an address (src/bindings/guarded.rs, at start); it reads no caller value"],
  [/^const ret = kram_encode_into\d?\(arg0, arg1, arg2 >>> 0, arg3 >>> 0\); return ret; \}/, "calls src/bindings/strings.rs's kram_encode_into, which catches what it calls (answering NaN)"],
  [/^const ret = kram_encode_many\d?\(arg0, arg1 >>> 0, arg2 >>> 0, arg3, arg4 >>> 0, arg5 >>> 0, arg6 >>> 0\); return ret; \}/, "calls src/bindings/strings.rs's kram_encode_many, which reads only the bindings' own array of recorded payloads and catches what it calls (answering NaN)"],
  [/^const table = wasm\d?\.__wbindgen_externrefs;/, "fills the module's own externref table at start"],
  [/^const ret = wasm\d?\.memory; return ret; \}/, "returns the module's own memory (src/bindings/strings.rs encodes strings into it)"],
];

function imports(file) {
  const glue = readFileSync(file, "utf8");
  const start = glue.indexOf("function __wbg_get_imports()");
  assert.ok(start >= 0, `no import table in ${file}`);
  return glue
    .slice(start)
    .split(/\n\s+(?=__wb\w+: function)/)
    .slice(1)
    .map(entry)
    .map((text) => ({
      name: text.match(/^(__wb\w+?)(_[0-9a-f]{16})?:/)[1],
      guarded: /handleError\(|\btry \{/.test(text),
      code: text.split("\n").slice(1).join(" ").replace(/\s+/g, " ").trim(),
    }));
}

/** One import's text: from its name to the brace that closes its function. */
function entry(text) {
  let depth = 0;
  for (let i = text.indexOf("{"); i < text.length; i++) {
    if (text[i] === "{") depth++;
    if (text[i] === "}" && --depth === 0) return text.slice(0, i + 1);
  }
  return text;
}

for (const file of ["node.cjs", "web.mjs"]) {
  test(`every import of the ${file} glue is caught or cannot throw`, () => {
    const all = imports(dist + file);
    assert.ok(all.length > 10, `found only ${all.length} imports`);
    assert.ok(all.some((i) => i.guarded && /Reflect\.get\(/.test(i.code) === false), "catch imports are recognised");
    const unsafe = all.filter((i) => !i.guarded && !SAFE.some(([pattern]) => pattern.test(i.code)));
    assert.deepEqual(unsafe.map((i) => `${i.name}: ${i.code}`), []);
    for (const name of ["isArray"]) {
      assert.ok(all.some((i) => i.name.includes(name) && i.guarded), `${name} is a catch import`);
    }
    assert.match(readFileSync(dist + file, "utf8"), /snippets\/kram-compaction-\w+\/src\/bindings\/guarded\.js/);
  });
}

test("every guarded read catches what it calls and answers undefined for it", () => {
  const source = readFileSync(new URL("../../src/bindings/guarded.js", import.meta.url), "utf8");
  const functions = [...source.matchAll(/^(?:export )?function (\w+)\(([^)]*)\) \{\n([\s\S]*?)\n\}$/gm)];
  const wrapped = [...source.matchAll(/^export const (\w+) = guarded\(/gm)];
  assert.ok(wrapped.length >= 5, `found ${wrapped.length} reads through guarded()`);
  const exported = functions.filter(([line]) => line.startsWith("export ")).length + wrapped.length;
  assert.equal(exported, (source.match(/^export /gm) ?? []).length, "every export is a plain function or guarded(...)");
  const caught = /  try \{\n    return [^;\n]+;\n  \} catch \(error\) \{\n    return fail\(error\);\n  \}/;
  for (const [, name, , body] of functions) {
    // The flag's own functions, and helpers that read no caller value: the
    // flag bytes' writers and lengthOf's typeof test of what it read.
    if (["takeThrown", "fail", "flags", "answer", "numberOrMinusOne"].includes(name)) continue;
    if (name === "takeBack") {
      // Cuts the bindings' own array of payloads (in resultParts' catch too):
      // reads no caller value, and cannot throw.
      assert.equal(body, "  if (Array.isArray(payloads) && payloads.length > length) payloads.length = length;", name);
      continue;
    }
    if (name === "kindOf") {
      // Only typeof tests, and the one call that can throw (Array.isArray of a revoked Proxy) caught.
      assert.equal(body.match(/\w+\(/g)?.join(" "), "isArray(", name);
      assert.match(body, /try \{\n\s+return Array\.isArray\(value\) \? 5 : 6;\n\s+\} catch \{\n\s+return 7;/, name);
      continue;
    }
    if (name === "writeFlagsTo") {
      // Only keeps where the flag bytes go: no call but an empty view made.
      assert.deepEqual(body.match(/\w+\(/g), ["Uint8Array("], name);
      continue;
    }
    if (name === "field") {
      // The type test, then the one read, caught; its kind to the kind byte.
      assert.match(
        body,
        /^  if \([^\n]+\) return answer\(undefined, 0\);\n  try \{\n(    \/\/ [^\n]+\n)*    const value = target\[key\];\n    return answer\(value, kindOf\(value\)\);\n  \} catch \(error\) \{\n    thrown = error;\n    return answer\(undefined, 8\);\n  \}$/,
        name,
      );
      continue;
    }
    if (name === "elementField") {
      // Every read (the element, its outer field, the field) in one try,
      // whose catch keeps what was thrown for takeThrown() and says so in
      // the kind byte, as field's does.
      assert.match(
        body,
        /^  try \{\n    const message = history\[index\];\n    if \([^\n]+\) return answer\(undefined, 0\);\n    const holder = outer === "" \? message : message\[outer\];\n    if \([^\n]+\) return answer\(undefined, 0\);\n    const value = holder\[key\];\n    return answer\(value, kindOf\(value\)\);\n  \} catch \(error\) \{\n    thrown = error;\n    return answer\(undefined, 8\);\n  \}$/,
        name,
      );
      continue;
    }
    if (name === "roleNames") {
      // A loop over the history, each element read in a try whose catch
      // answers 0, and each message through roleName.
      assert.match(
        body,
        /^  const numbers = numbersOf\(names\);\n  for \(let i = 0; i < found\.length; i\+\+\) \{\n    let message;\n    try \{\n      message = history\[start \+ i\];\n    \} catch \{\n      found\[i\] = 0;\n      continue;\n    \}\n    found\[i\] = roleName\(message, names, numbers, withContent\);\n  \}$/,
        name,
      );
      continue;
    }
    if (name === "markerCandidates") {
      // A loop over the history, each message read through mayBeMarker in
      // a try whose catch answers 1: the core reads that message itself.
      assert.match(
        body,
        /^  for \(let i = 0; i < out\.length; i\+\+\) \{\n    try \{\n      out\[i\] = mayBeMarker\(history\[start \+ i\], tag, name, roleless\);\n    \} catch \{\n      out\[i\] = 1;\n    \}\n  \}$/,
        name,
      );
      continue;
    }
    if (name === "firstField") {
      // The type test, then a loop over the bindings' own list of keys,
      // each read of the caller's value in a try whose catch counts it absent.
      assert.match(
        body,
        /^  if \(typeof target !== "object" \|\| target === null\) return -1;\n  for \(let i = 0; i < keys\.length; i\+\+\) \{\n    try \{\n      if \(target\[keys\[i\]\] !== undefined\) return i;\n    \} catch \{\n(      \/\/ [^\n]+\n)*    \}\n  \}\n  return -1;$/,
        name,
      );
      continue;
    }
    if (name === "elementsIn") {
      // The module's view of the bounds copied first; one range copied
      // by plainSlice where it can; else a loop over the history's ranges,
      // every element read in a try whose catch keeps what was thrown
      // (fail) and answers the index.
      assert.match(
        body,
        /^(  \/\/ [^\n]+\n)*  const pairs = bounds\.slice\(\);\n  if \(pairs\.length === 2\) \{\n    const copied = plainSlice\(history, pairs\[0\], pairs\[1\]\);\n    if \(copied !== undefined\) return copied;\n  \}\n  let length = 0;\n  for \(let k = 0; k < pairs\.length; k \+= 2\) length \+= pairs\[k \+ 1\] - pairs\[k\];\n  const elements = new Array\(length\);\n  let slot = 0;\n  for \(let k = 0; k < pairs\.length; k \+= 2\) \{\n    for \(let i = pairs\[k\]; i < pairs\[k \+ 1\]; i\+\+\) \{\n      try \{\n        elements\[slot\+\+\] = history\[i\];\n      \} catch \(error\) \{\n        fail\(error\);\n        return i;\n      \}\n    \}\n  \}\n  return elements;$/,
        name,
      );
      continue;
    }
    if (name === "elementsOrCopies") {
      // The module's view of the marks copied first; a loop over the
      // history: an element marked for a copy takes it from the bindings'
      // own array of copies (no caller value read); every other element is
      // read in a try whose catch keeps what was thrown (fail) and answers
      // the index; then the marks written back to the module's memory.
      assert.match(
        body,
        /^(  \/\/ [^\n]+\n)*  const marks = fromCopies\.slice\(\);\n  const marksAt = fromCopies\.byteOffset;\n  const copying = Array\.isArray\(copies\);\n  const elements = new Array\(marks\.length\);\n  for \(let i = 0; i < marks\.length; i\+\+\) \{\n    if \(copying && marks\[i\] === 1\) \{\n      const copy = copies\[i\];\n      if \(copy !== undefined\) \{\n        elements\[i\] = copy;\n        continue;\n      \}\n      marks\[i\] = 0;\n    \}\n    try \{\n      elements\[i\] = history\[i\];\n    \} catch \(error\) \{\n      fail\(error\);\n      return i;\n    \}\n  \}\n  if \(copying\) bytesAgain\(fromCopies, marksAt, marks\.length\)\.set\(marks\);\n  return elements;$/,
        name,
      );
      continue;
    }
    if (name === "bytesAgain") {
      // The module's own memory viewed again; reads no caller value.
      assert.equal(body, "  return bytes.length === length ? bytes : new Uint8Array(memory.buffer, at, length);", name);
      continue;
    }
    if (name === "resultFields") {
      // Whether it copies (no caller value read: the bindings' own array,
      // the rule's names), then a loop over the history, each message's
      // reads and copy in one try whose catch leaves its state as it was:
      // the core reads it itself.
      assert.match(body, /^  const copying = Array\.isArray\(copies\) && assignable\(outer\) && assignable\(key\);\n  for \(let i = 0; i < indexes\.length; i\+\+\) \{\n    try \{\n[\s\S]*\n    \} catch \{\n(      \/\/ [^\n]+\n)*    \}\n  \}$/, name);
      assert.equal(body.match(/try \{/g).length, 1, name);
      continue;
    }
    if (name === "resultParts") {
      // The rule's names (an array of the bindings' making), whether it
      // copies and whether it records payloads (arrays of the bindings'
      // making), its own object for what each part holds to estimate, then
      // a loop over the history, each message's reads and copy in one try
      // whose catch leaves its answer as it was (the core reads it itself)
      // and takes back the payloads it pushed for an answer not written
      // (the bindings' own array and memory: reads no caller value).
      assert.match(body, /^  const \[[\w, .]+\] = names;\n  const rule = \{[\w, ]+\};\n  const copying = Array\.isArray\(copies\) && \[[\w, ]+\]\.every\(assignable\);\n  const recording = Array\.isArray\(payloads\);\n(  \/\/ [^\n]+\n)*  const seen = \{ payload: NO_PAYLOAD, asJson: false \};\n  for \(let i = 0; i < indexes\.length; i\+\+\) \{\n(    \/\/ [^\n]+\n)*    const firstPayload = recording \? payloads\.length : 0;\n    try \{\n[\s\S]*\n    \} catch \{\n(      \/\/ [^\n]+\n)*      if \(answers\[3 \* i \+ 2\] === 0\) takeBack\(payloads, firstPayload\);\n    \}\n  \}$/, name);
      assert.equal(body.match(/try \{/g).length, 1, name);
      continue;
    }
    if (name === "jsonTape") {
      // The walk in one try, whose catch answers NaN (an empty tape).
      assert.match(body, /^  try \{\n[\s\S]*\n    writeValue\(walk, value, 0\);\n[\s\S]*\n  \} catch \{\n    return NaN;\n  \}$/, name);
      assert.equal(body.match(/try \{/g).length, 1, name);
      continue;
    }
    if (name === "toEstimate") {
      // Keeps what partToClear found in resultParts' own object; reads no caller value.
      assert.equal(body, "  seen.payload = value;\n  seen.asJson = asJson;", name);
      continue;
    }
    if (["takeTape", "tapeSideText", "writeTag", "writeNumber", "roomForTape"].includes(name)) {
      // The tape's own: no caller value read (only the tape, its side
      // texts and the module's memory).
      assert.doesNotMatch(body, /\b(value|object|array|item|child)\b/, name);
      continue;
    }
    if (["writeValue", "writeArray", "writeObject", "writeText"].includes(name)) {
      // The walk: called only from jsonTape's try (or from the walk), and
      // each read of the caller's value (an element, a field, the keys, an
      // array's length) in a try of its own that leaves it out.
      const callers = functions.filter(([, , , other]) => other.includes(`${name}(`)).map(([, caller]) => caller);
      assert.deepEqual(callers.filter((caller) => !["jsonTape", "writeValue", "writeArray", "writeObject"].includes(caller)), [], name);
      const reads = body.match(/= (array\[i\]|object\[keys\[i\]\]|Object\.keys\(object\)|Reflect\.get\(array, "length"\));/g) ?? [];
      assert.equal(reads.length, (body.match(/try \{/g) ?? []).length, name);
      continue;
    }
    if (["copyClearing", "isPlain", "isPlainObject", "partToClear", "keyedToClear", "stateToClear", "isObject", "mayBeMarker", "firstTextTagged", "roleCode", "soleKey"].includes(name)) {
      // Helpers called only inside the one try of resultFields,
      // resultParts, markerCandidates and roleName (or by helpers called
      // there, or by a read through guarded()), which catches what they call.
      const callers = functions.filter(([, , , other]) => other.includes(`${name}(`)).map(([, caller]) => caller);
      assert.ok(callers.length > 0, name);
      const insideTheTry = ["resultFields", "resultParts", "markerCandidates", "roleName", "mayBeMarker", "partToClear", "keyedToClear", "stateToClear", "copyClearing", "isPlain"];
      assert.deepEqual(callers.filter((caller) => !insideTheTry.includes(caller)), [], name);
      continue;
    }
    if (name === "numbersOf") {
      // A Map of the bindings' own array of names (roleNames' `names`),
      // kept in guarded.js's own WeakMap by that array; reads no caller value.
      assert.equal(body, "  let numbers = numbersByList.get(names);\n  if (numbers === undefined) {\n    numbers = new Map(names.map((name, i) => [name, i + 1]));\n    numbersByList.set(names, numbers);\n  }\n  return numbers;", name);
      continue;
    }
    if (name === "plainSlice") {
      // Every read and call in one try, whose catch answers undefined: the
      // loop of elementsIn then reads the elements again, each caught.
      assert.match(body, /^  try \{\n[\s\S]*\n  \} catch \{\n    return undefined;\n  \}$/, name);
      assert.equal(body.match(/try \{/g).length, 1, name);
      continue;
    }
    if (name === "assignable") {
      // No caller value read: a look at Object.prototype, which cannot throw.
      assert.equal(body, "  return !(key in Object.prototype);", name);
      continue;
    }
    if (name === "setOwn") {
      // Writes to an object the bindings made; reads no caller value.
      assert.match(body, /^  if \(assignable\(key\)\) object\[key\] = value;\n  else Reflect\.defineProperty\(object, key, \{ value, writable: true, enumerable: true, configurable: true \}\);$/, name);
      continue;
    }
    if (name === "roleName") {
      // Every read in one try, whose catch answers 0: the core reads the message itself.
      assert.match(body, /^  try \{\n[\s\S]*\n  \} catch \{\n    return 0;\n  \}$/, name);
      assert.equal(body.match(/try \{/g).length, 1, name);
      continue;
    }
    if (name === "guarded") {
      // The wrapper: the operation's call, caught, and nothing else.
      assert.match(body, new RegExp(`^  return \\(\\.\\.\\.args\\) => \\{\\n  ${caught.source.replaceAll("\\n  ", "\\n    ")}\\n  \\};$`), name);
      continue;
    }
    // Every other read: the one call, caught.
    assert.match(body, new RegExp(`^${caught.source}$`), name);
  }
});

test("markerCandidates in guarded.js reads the fields of MARKER_TEXT_FIELDS, and of a message nothing else but its role and name", () => {
  // guarded.js names the fields (V8 reads a named field faster than one
  // whose name is a value); the rule is src/formats/shared.rs's.
  const rust = readFileSync(new URL("../../src/formats/shared.rs", import.meta.url), "utf8");
  const fields = rust.match(/pub const MARKER_TEXT_FIELDS: &str = "([^"]+)";/)[1].split(" ");
  assert.ok(fields.length >= 3, fields.join(" "));
  const source = readFileSync(new URL("../../src/bindings/guarded.js", import.meta.url), "utf8");
  const body = source.match(/^function mayBeMarker\(message, tag, name, roleless\) \{\n([\s\S]*?)\n\}$/m)[1];
  // Each path's first text: a field of the message, or of the field before it.
  const read = new Set([...body.matchAll(/firstTextTagged\((\w+(?:\.\w+)*), tag\)/g)].map((m) => m[1].replace(/^message\./, "")));
  assert.deepEqual([...read].sort(), [...fields].sort());
  assert.deepEqual([...new Set([...body.matchAll(/message\.(\w+)/g)].map((m) => m[1]))].sort(), ["content", "kwargs", "name", "parts", "role"]);
  assert.match(body, /const kwargs = message\.kwargs;/);
});

test("mayBeMarker in guarded.js passes over the roles the core says no marker has", () => {
  const source = (path) => readFileSync(new URL(`../../src/${path}`, import.meta.url), "utf8");
  const strings = (text) => [...text.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
  const rust = source("formats/shared.rs").match(/^pub const NO_MARKER_ROLES: &\[&str\] = &\[([^\]]*)\];$/m);
  const js = source("bindings/guarded.js").match(/^const NO_MARKER_ROLES = \[([^\]]*)\];$/m);
  assert.ok(rust && js);
  assert.deepEqual(strings(js[1]), strings(rust[1]));
  assert.ok(strings(rust[1]).length >= 3);
  const body = source("bindings/guarded.js").match(/^function mayBeMarker\(message, tag, name, roleless\) \{\n([\s\S]*?)\n\}$/m)[1];
  assert.match(body, /if \(NO_MARKER_ROLES\.includes\(role\)\) return 0;/);
});

test("mayBeMarker in guarded.js reads a message's name only in the role the core says a named marker has", () => {
  const source = (path) => readFileSync(new URL(`../../src/${path}`, import.meta.url), "utf8");
  const rust = source("formats/shared.rs").match(/^pub const NAMED_MARKER_ROLE: &str = "([^"]+)";$/m);
  const js = source("bindings/guarded.js").match(/^const NAMED_MARKER_ROLE = "([^"]+)";$/m);
  assert.ok(rust && js);
  assert.equal(js[1], rust[1]);
  const body = source("bindings/guarded.js").match(/^function mayBeMarker\(message, tag, name, roleless\) \{\n([\s\S]*?)\n\}$/m)[1];
  assert.match(body, /if \(role === NAMED_MARKER_ROLE && message\.name === name\) return 1;/);
  assert.equal(body.match(/message\.name/g).length, 1);
});

test("roleName in guarded.js marks and finds roles by the core's own constants", () => {
  // guarded.js's roleName answers what the core's Node::role_names answers
  // (src/node.rs); the constants it names are the core's.
  const source = (path) => readFileSync(new URL(`../../src/${path}`, import.meta.url), "utf8");
  const glue = source("bindings/guarded.js");
  const constants = [
    ["node.rs", "MESSAGE_ITEM"],
    ["node.rs", "BY_TYPE"],
    ["node.rs", "TEXT_CONTENT"],
    ["formats/openai_responses.rs", "MESSAGE_TYPE"],
    ["formats/langchain.rs", "SERIALISED_TYPE"],
  ];
  for (const [file, name] of constants) {
    const rust = source(file).match(new RegExp(`^pub const ${name}: (?:u8|&str) = ([^;]+);$`, "m"));
    const js = glue.match(new RegExp(`^const ${name} = ([^;]+);$`, "m"));
    assert.ok(rust && js, name);
    assert.equal(js[1], rust[1], name);
    const bodies = ["roleName", "roleCode"].map((fn) => glue.match(new RegExp(`^function ${fn}\\(message, names, numbers(, withContent)?\\) \\{\\n([\\s\\S]*?)\\n\\}$`, "m"))[2]).join("\n");
    assert.match(bodies, new RegExp(`\\b${name}\\b`), name);
  }
  // And the field TEXT_CONTENT looks at is the core's.
  const roleNameBody = glue.match(/^function roleName\(message, names, numbers, withContent\) \{\n([\s\S]*?)\n\}$/m)[1];
  const field = source("node.rs").match(/^pub const TEXT_CONTENT_FIELD: &str = "(\w+)";$/m)[1];
  assert.match(roleNameBody, new RegExp(`typeof message\\.${field} === "string"`), "TEXT_CONTENT_FIELD");
});

test("resultFields and resultParts in guarded.js mark a copy they made by the core's own constants", () => {
  // The core takes such a copy in place of its edits once its walk is
  // decided (src/newest_first/prune.rs, Answer::Copied).
  const source = (path) => readFileSync(new URL(`../../src/${path}`, import.meta.url), "utf8");
  const glue = source("bindings/guarded.js");
  for (const [name, fn, write] of [
    ["COPIED", "resultFields", "states[i] |= COPIED;"],
    ["COPIED_PARTS", "resultParts", "answers[3 * i + 1] |= COPIED_PARTS;"],
  ]) {
    const rust = source("newest_first/messages.rs").match(new RegExp(`^pub const ${name}: u(?:8|32) = ([^;]+);$`, "m"));
    const js = glue.match(new RegExp(`^const ${name} = ([^;]+);$`, "m"));
    assert.ok(rust && js, name);
    assert.equal(js[1], rust[1], name);
    const body = glue.match(new RegExp(`^export function ${fn}\\([^)]*\\) \\{\\n([\\s\\S]*?)\\n\\}$`, "m"))[1];
    // Written right after the copy is put in its place.
    assert.match(body, new RegExp(`copies\\[indexes\\[i\\]\\] = copy;\\n\\s+${write.replace(/[[\]*|+]/g, "\\$&")}`), name);
  }
});

test("kram_encode_many marks a value that is no string by the bit the core reads", () => {
  // The inline JS of src/bindings/strings.rs writes the ends that ManyTexts
  // there reads.
  const strings = readFileSync(new URL("../../src/bindings/strings.rs", import.meta.url), "utf8");
  const js = strings.match(/^const NOT_TEXT = (0x[0-9a-f]+);$/m);
  const rust = strings.match(/^const NOT_TEXT: u32 = (0x[0-9a-f_]+);$/m);
  assert.ok(js && rust, "NOT_TEXT in both");
  assert.equal(Number(js[1]), Number(rust[1].replaceAll("_", "")));
  assert.match(strings, /ends\[k\] = \(used \| NOT_TEXT\) >>> 0;/);
});

test("jsonTape in guarded.js writes the core's tape tags", () => {
  // The tape is priced by src/estimate/json.rs (tape_milli) and written
  // there for a native value (write_tape); guarded.js writes it for a JS
  // value with the same tags.
  const source = (path) => readFileSync(new URL(`../../src/${path}`, import.meta.url), "utf8");
  const rust = source("estimate/json.rs");
  const glue = source("bindings/guarded.js");
  const names = ["TAPE_TEXT", "TAPE_KEY", "TAPE_CONTAINER", "TAPE_ELEMENT", "TAPE_LITERAL", "TAPE_SIDE_TEXT", "TAPE_SIDE_KEY"];
  for (const name of names) {
    const core = rust.match(new RegExp(`^pub const ${name}: u8 = (\\d+);$`, "m"));
    const js = glue.match(new RegExp(`^const ${name} = (\\d+);$`, "m"));
    assert.ok(core && js, name);
    assert.equal(js[1], core[1], name);
  }
  assert.equal(new Set(names.map((name) => rust.match(new RegExp(`^pub const ${name}: u8 = (\\d+);$`, "m"))[1])).size, names.length, "the tags differ");
});
