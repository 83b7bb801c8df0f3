/* What every relaxed-SIMD kernel file shares: the export marker and unaligned float loads/stores.
   The kernels are the wasm32 twins of src/kernels/kernels.hpp functions of the same names: the same
   contracts and signatures under the wasm32 ABI (size_t = i32, bool = i32, pointers i32), with
   f32x4/f64x2 relaxed_madd where the SIMD128 build multiplies and adds separately. Each is a leaf
   over its arguments: no libc, no data, no stack, nothing kept between calls (docs/building.md#14-relaxed-simd). */
#ifndef POSENC_KERNELS_RELAXED_H
#define POSENC_KERNELS_RELAXED_H

#include <stdbool.h>
#include <stddef.h>
#include <wasm_simd128.h>

#define KEEP __attribute__((visibility("default")))

static inline v128_t load(const void* p) { return wasm_v128_load(p); }
static inline void store(void* p, v128_t v) { wasm_v128_store(p, v); }

#endif
