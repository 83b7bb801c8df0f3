// Base64 text to bytes, for the modules the build embeds in JavaScript (posenc/embedded's
// posenc.wasm, every entry's relaxed-SIMD kernels). atob exists in browsers, workers and Node 16+.

/** The bytes `base64` encodes. */
export function decodeBase64(base64: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}
