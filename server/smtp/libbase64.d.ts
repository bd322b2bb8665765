/** libbase64 (mailsplit's base64 decoder, used the same way by the quick MIME read) ships no types. */
declare module 'libbase64' {
  const libbase64: { decode(value: string): Buffer };
  export default libbase64;
}
