// Types of dist/wasm-base64.js, which the build writes: posenc.wasm as one base64 string.
declare const wasmBase64: string;
export default wasmBase64;
