// posenc/webgpu: posenc's exact positional encodings as WebGPU resources and kernels. Tables come
// from a loaded posenc (`createPosEnc()` of 'posenc' or 'posenc/embedded'): its float64 values,
// rounded once; the kernels are WGSL compute shaders, each element read and written once.
export { createPosEncGpu, requestPosEncGpu } from './gpu.js';
export type { PosEncGpu, RequestPosEncGpuOptions } from './gpu.js';
export { GpuRopeTable } from './rope-table.js';
export type { GpuLayerTableOptions, GpuRopeTableOptions, GpuTableType, RopeAxes, RopeTableLayout } from './rope-table.js';
export type { GpuHeadLayout, GpuPositionIds, GpuPositionType, GpuRopeArgs } from './rope-kernel.js';
export { GpuPositionTable } from './tables.js';
export type { GpuAddPositionsArgs, GpuSinusoidalTableOptions } from './tables.js';
export type { GpuAlibiBiasArgs, GpuT5Args } from './bias.js';
export type { GpuTensor } from './gpu-args.js';
export { ropeWgsl } from './rope-wgsl.js';
export type { RopeWgsl, RopeWgslOptions } from './rope-wgsl.js';
export { float16Bits, float16Value } from './half.js';
export { PosEncError } from '../runtime/errors.js';
export type { PosEncErrorCode } from '../runtime/errors.js';
