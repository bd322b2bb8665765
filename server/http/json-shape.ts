/** Arrays and objects inside one another, at most (docs/security.md). */
export const JSON_MAX_DEPTH = 64;
/** Object keys and array items in one body, at most (docs/security.md). */
export const JSON_MAX_MEMBERS = 100_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
// The typed array's own search, a V8 builtin: Buffer's indexOf goes through a native binding
// and cost more than the scan itself on a body of short strings.
const indexOf = Uint8Array.prototype.indexOf;

/**
 * Why a JSON body is refused before it is parsed, or null: nested deeper than JSON_MAX_DEPTH, or
 * more than JSON_MAX_MEMBERS keys and array items. One pass over the bytes, strings skipped with
 * indexOf, stopping at the first level or member too many: JSON.parse of a body 5,000,000 levels
 * deep or 1,000,000 keys wide held the event loop for seconds. Not a validator (JSON.parse
 * still says what is malformed); it only counts.
 */
export function jsonShapeProblem(bytes: Uint8Array): string | null {
  // The container each open level is (true: an array), to count array items by their commas.
  const arrays: boolean[] = [];
  let members = 0;
  const end = bytes.length;
  for (let i = 0; i < end; i++) {
    const byte = bytes[i];
    if (byte === QUOTE) {
      i = stringEnd(bytes, i);
      continue;
    }
    if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (arrays.length === JSON_MAX_DEPTH) return `nested deeper than ${JSON_MAX_DEPTH} levels`;
      const array = byte === OPEN_ARRAY;
      arrays.push(array);
      // The first item of an array has no comma before it.
      if (array) members++;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) arrays.pop();
    else if (byte === COLON || (byte === COMMA && arrays[arrays.length - 1] === true)) members++;
    else continue;
    if (members > JSON_MAX_MEMBERS) return `more than ${JSON_MAX_MEMBERS} keys and array items`;
  }
  return null;
}

/** The index of the quote that closes the string opened at `open` (the last index when none does). */
function stringEnd(bytes: Uint8Array, open: number): number {
  let at = open;
  for (;;) {
    const quote = indexOf.call(bytes, QUOTE, at + 1);
    if (quote < 0) return bytes.length - 1;
    // Escaped when an odd number of backslashes stands before it; each is counted once, as the
    // search goes on past it.
    let slashes = 0;
    for (let j = quote - 1; j > at && bytes[j] === BACKSLASH; j--) slashes++;
    if (slashes % 2 === 0) return quote;
    at = quote;
  }
}
