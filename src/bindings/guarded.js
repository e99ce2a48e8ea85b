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

export function get(target, key) {
  try {
    return Reflect.get(target, key);
  } catch (error) {
    return fail(error);
  }
}

export function ownKeys(value) {
  try {
    return Reflect.ownKeys(value);
  } catch (error) {
    return fail(error);
  }
}

export function ownProperty(value, key) {
  try {
    return Reflect.getOwnPropertyDescriptor(value, key);
  } catch (error) {
    return fail(error);
  }
}

export function prototypeOf(value) {
  try {
    return Reflect.getPrototypeOf(value);
  } catch (error) {
    return fail(error);
  }
}

export function keys(value) {
  try {
    return Object.keys(value);
  } catch (error) {
    return fail(error);
  }
}

export function create(prototype) {
  try {
    return Object.create(prototype);
  } catch (error) {
    return fail(error);
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

export function construct(constructor, fields) {
  try {
    return Reflect.construct(constructor, [fields]);
  } catch (error) {
    return fail(error);
  }
}
