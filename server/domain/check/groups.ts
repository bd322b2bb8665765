/**
 * `text.replace(/\<open>[^<close>]*\<close>/g, replace)` in one pass: the regular expression
 * searched to the end of the text again for every `open` left unclosed (quadratic, issue 19).
 */
export function replaceGroups(text: string, open: string, close: string, replace: (group: string) => string): string {
  let out = '';
  let at = 0;
  let end = -2;
  for (let start = text.indexOf(open); start >= 0; start = text.indexOf(open, at)) {
    // The next `close`, looked up again only once passed (-1: there is none ahead).
    if (end !== -1 && end <= start) end = text.indexOf(close, start + 1);
    if (end < 0) break;
    out += text.slice(at, start) + replace(text.slice(start, end + 1));
    at = end + 1;
  }
  return out + text.slice(at);
}
