/** A checkpoint's parts (server/storage/disk/checkpoint.ts Parts) joined, as the file holds them; null stays null. */
export function joined(parts: readonly Buffer[] | null): Buffer | null {
  return parts === null ? null : Buffer.concat(parts);
}
