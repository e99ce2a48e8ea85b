// Reads of the caller's values for the wasm module. A getter or Proxy trap
// may throw; each function here catches it, keeps it for takeThrown() and
// returns undefined, so no exception crosses the Rust frames. (A wasm-bindgen
// `catch` import that returns a JS value would do the same, but loses a slot
// of the module's reference table on every exception: tests/js/hostile-scale.)
let failed = false;
let thrown;

function fail(error) {
  failed = true;
  thrown = error;
  return undefined;
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

/**
 * `Reflect.get`, written out rather than through `guarded` since it is
 * called for every field and element read. The module imports it twice:
 * with a key, and as `item` with an index that comes as a number, not a JS
 * value made for it.
 */
export function get(target, key) {
  try {
    return Reflect.get(target, key);
  } catch (error) {
    return fail(error);
  }
}

/**
 * A field of an object, `undefined` for anything that is not one (as the
 * core's `Node::field` wants), so the type test costs no call of its own.
 */
export function field(target, key) {
  if (typeof target !== "object" || target === null) return undefined;
  return get(target, key);
}

export const ownKeys = guarded(Reflect.ownKeys);
export const ownProperty = guarded(Reflect.getOwnPropertyDescriptor);
export const prototypeOf = guarded(Reflect.getPrototypeOf);
export const keys = guarded(Object.keys);
export const create = guarded(Object.create);
export const construct = guarded((constructor, fields) => Reflect.construct(constructor, [fields]));

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

/** Whether the last call failed; clears the flag. */
export function tookThrow() {
  const result = failed;
  failed = false;
  return result;
}

/** What the last failed call threw; forgets it. */
export function takeThrown() {
  const result = thrown;
  thrown = undefined;
  return result;
}
