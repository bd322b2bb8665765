/**
 * A module loaded the first time it is needed, once. Features most sessions never touch (the
 * message check's html-validate and caniemail data, the MCP SDK, certificate generation, the
 * HTML-to-text renderer, mailparser until the first SMTP message) would otherwise cost every
 * process 10-25 MB of memory each from start-up.
 */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = null;
      throw error;
    });
    return loading;
  };
}
