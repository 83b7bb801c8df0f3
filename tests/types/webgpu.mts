// Type test: posenc/webgpu as an ESM consumer writes it, with TypeScript's own DOM WebGPU types
// (no @webgpu/types). Each @ts-expect-error line must be a type error.
import { createPosEnc } from 'posenc';
import type { ModelPlan } from 'posenc';
import { createPosEncGpu, GpuRopeTable, PosEncError, requestPosEncGpu, ropeWgsl } from 'posenc/webgpu';
import type { GpuRopeArgs, PosEncGpu, RopeTableLayout, RopeWgsl } from 'posenc/webgpu';

const pe = await createPosEnc();
const gpu: PosEncGpu = await requestPosEncGpu(pe, { float16: false, adapter: { powerPreference: 'high-performance' } });
declare const device: GPUDevice;
const mine: PosEncGpu = createPosEncGpu(pe, device);
const table: GpuRopeTable = gpu.ropeTable({ headDim: 128, maxPositions: 4096, scaling: { type: 'linear', factor: 2 }, dtype: 'float16' });
const cos: GPUBuffer = table.cos;
const layout: Readonly<RopeTableLayout> = table.layout;
declare const qBuf: GPUBuffer;
declare const encoder: GPUCommandEncoder;
const args: GpuRopeArgs = { q: { buffer: qBuf, dims: [1, 1, 32, 128] }, layout: 'bshd', offset: 7, encoder };
gpu.rope(table, args);
gpu.rope(table, { qkv: { buffer: qBuf, dims: [1, 4, 48 * 128] }, numHeads: 32, numKeyValueHeads: 8, positionIds: { buffer: qBuf, dims: [4], dtype: 'int64' } });
declare const plan: ModelPlan;
mine.layerTable(plan, 3, { maxPositions: 1024, laneOrder: 'vllm' });
const w: RopeWgsl = ropeWgsl(layout, { group: 1, binding: 0, prefix: 'p_' });
const code: string = w.code;
mine.alibiBias({ numHeads: 8, qLen: 1, kLen: 9, form: 'symmetric', out: { buffer: qBuf, dims: [8, 1, 9] } });
mine.t5Bias({ buffer: qBuf, dims: [32, 8] }, { qLen: 1, kLen: 9, out: { buffer: qBuf, dims: [8, 1, 9] } });
const e: PosEncError = new PosEncError('UNSUPPORTED', 'x');
table.destroy();

// @ts-expect-error layout is 'bshd' or 'bhsd'
gpu.rope(table, { q: { buffer: qBuf, dims: [1] }, layout: 'sbhd' });
// @ts-expect-error dtype is 'float32' or 'float16'
gpu.ropeTable({ headDim: 8, maxPositions: 8, dtype: 'float64' });
// @ts-expect-error a GpuTensor holds a GPUBuffer, not a typed array
gpu.rope(table, { q: { buffer: new Float32Array(4), dims: [4] } });
// @ts-expect-error position ids are int32, uint32 or int64
gpu.rope(table, { q: args.q!, positionIds: { buffer: qBuf, dims: [1], dtype: 'float32' } });
void [cos, code, e];
