// Types of dist/relaxed-base64.js, which the build writes: the relaxed-SIMD kernel module
// (src/kernels-relaxed/) as one base64 string, empty when the build had no clang-19.
declare const relaxedBase64: string;
export default relaxedBase64;
