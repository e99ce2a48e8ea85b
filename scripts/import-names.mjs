// wasm-bindgen names each import it makes `__wbg_<name>_<16 hex digits>`, a
// hash of the import. The hashes are random to gzip, so the 47 of them cost
// about 0.55 KB of the module's 90 KB gzipped budget. `shortenImportNames`
// takes them off (a name used twice gets `_2`, `_3`, ...) in the module and
// in its glue, whose import object is keyed by the same names.

/** Reads an unsigned LEB128 number of `bytes` at `at`: `[value, next]`. */
function readUnsigned(bytes, at) {
  let value = 0;
  let shift = 0;
  let byte;
  do {
    byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [value, at];
}

function unsigned(value) {
  const out = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return Buffer.from(out);
}

const name = (text) => Buffer.concat([unsigned(Buffer.byteLength(text)), Buffer.from(text)]);

/** The end of an import's description (its kind and type) that starts at `at`. */
function descriptionEnd(bytes, at) {
  const kind = bytes[at++];
  const limits = (from) => {
    const flags = bytes[from];
    let next = readUnsigned(bytes, from + 1)[1];
    if (flags & 1) next = readUnsigned(bytes, next)[1];
    return next;
  };
  switch (kind) {
    case 0: // function: its type index
      return readUnsigned(bytes, at)[1];
    case 1: // table: element type, then limits
      return limits(at + 1);
    case 2: // memory
      return limits(at);
    case 3: // global: value type and mutability
      return at + 2;
    default:
      throw new Error(`import-names: an import of unknown kind ${kind}`);
  }
}

/**
 * The module with its import names' hashes taken off, and the renames as a
 * Map from old name to new.
 */
export function shortenImportNames(wasm) {
  const renames = new Map();
  const parts = [wasm.subarray(0, 8)];
  let at = 8;
  while (at < wasm.length) {
    const id = wasm[at];
    const [length, start] = readUnsigned(wasm, at + 1);
    const end = start + length;
    if (id !== 2) {
      parts.push(wasm.subarray(at, end));
      at = end;
      continue;
    }
    let [count, next] = readUnsigned(wasm, start);
    const imports = [];
    for (; count > 0; count--) {
      const [moduleLength, moduleAt] = readUnsigned(wasm, next);
      const module = wasm.subarray(moduleAt, moduleAt + moduleLength).toString();
      const [nameLength, nameAt] = readUnsigned(wasm, moduleAt + moduleLength);
      const old = wasm.subarray(nameAt, nameAt + nameLength).toString();
      next = descriptionEnd(wasm, nameAt + nameLength);
      imports.push({ module, old, description: wasm.subarray(nameAt + nameLength, next) });
    }
    // A name without a hash is a JS module's export (guarded.js imported
    // twice as `field` is one export): kept as it is, and never given to
    // another import.
    const hashed = /_[0-9a-f]{16}$/;
    const taken = new Set(imports.filter(({ old }) => !hashed.test(old)).map(({ module, old }) => `${module}\0${old}`));
    const body = [unsigned(imports.length)];
    for (const { module, old, description } of imports) {
      let short = old;
      if (hashed.test(old)) {
        const stem = old.replace(hashed, "");
        short = stem;
        for (let n = 2; taken.has(`${module}\0${short}`); n++) short = `${stem}_${n}`;
        taken.add(`${module}\0${short}`);
        renames.set(old, short);
      }
      body.push(name(module), name(short), description);
    }
    const joined = Buffer.concat(body);
    parts.push(Buffer.from([2]), unsigned(joined.length), joined);
    at = end;
  }
  return { wasm: Buffer.concat(parts), renames };
}

/** The glue with each renamed import's key renamed; throws if one is not there once. */
export function renameInGlue(glue, renames) {
  for (const [old, short] of renames) {
    const key = `${old}: function`;
    const found = glue.split(key).length - 1;
    if (found !== 1) throw new Error(`import-names: the glue has ${found} keys \`${key}\`, not one`);
    glue = glue.replace(key, `${short}: function`);
  }
  return glue;
}
