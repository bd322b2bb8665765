/**
 * An attachment's file name as it may be shown or saved: the bidirectional controls in it are
 * written out as visible escapes (`[U+202E]`), so `invoice\u202Efdp.exe` reads as
 * `invoice[U+202E]fdp.exe`, never as "invoiceexe.pdf". Used for the inbox's list of attachments,
 * its download name and the server's Content-Disposition. No imports, so the UI may share it
 * (scripts/check-layers.mjs).
 */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

export function visibleFileName(name: string): string {
  return name.replace(BIDI_CONTROLS, (c) => `[U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}]`);
}
