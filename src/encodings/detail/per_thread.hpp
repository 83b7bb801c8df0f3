// POSENC_PER_THREAD: storage for per-thread caches (scratch blocks, the last RoPE frequencies).
//
// Natively it is `thread_local`, so the C++ library stays safe to call from several threads. The
// WebAssembly module is built without threads, where thread_local would be plain static storage
// anyway; spelling it `static` there matters because with -mbulk-memory clang lowers thread_local
// to real wasm TLS, which wasm-ld then refuses without the atomics feature.
#pragma once

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define POSENC_PER_THREAD static
#else
#define POSENC_PER_THREAD thread_local
#endif
