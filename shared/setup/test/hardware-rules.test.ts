import { classifyCpu, classifyGpu, ramGbFromBytes } from '../src';

const GIB = 1024 ** 3;

describe('hardware rules', () => {
  test.each([
    [0, 0],
    [null, 0],
    [-5, 0],
    [15.5 * GIB, 16],
    [23.54 * GIB, 24],
    [64 * GIB, 64],
  ])('ramGbFromBytes(%p) = %p', (bytes, gb) => {
    expect(ramGbFromBytes(bytes)).toBe(gb);
  });

  test.each<[number | null, number | null, string]>([
    [null, null, 'low'],
    [2, 4.0, 'low'],
    [4, 1.6, 'low'],
    [4, null, 'mid'],
    [6, 3.5, 'mid'],
    [8, 1.8, 'mid'],
    [8, null, 'high'],
    [16, 3.0, 'high'],
  ])('classifyCpu(%p cores, %p GHz) = %p', (cores, speed, cls) => {
    expect(classifyCpu(cores, speed)).toBe(cls);
  });

  test.each([
    ['no controllers', [], 'none', null],
    ['a VM display adapter only', [{ vendor: 'VMware', model: 'SVGA II Adapter', vram: 16 }], 'none', null],
    ['a server BMC', [{ vendor: 'ASPEED Technology, Inc.', model: 'ASPEED Graphics Family', vram: 64 }], 'none', null],
    ['NVIDIA with nvidia-smi memory', [{ vendor: 'NVIDIA Corporation', model: 'GeForce RTX 4090', vram: 24564, memoryTotal: 24564 }], 'discrete_nvidia', 24],
    ['a 16 GB card reporting 16376 MB', [{ vendor: 'NVIDIA', model: 'RTX A4000', vram: 16376 }], 'discrete_nvidia', 16],
    ['Apple silicon', [{ vendor: 'Apple', model: 'Apple M2 Pro', vram: null, vramDynamic: true }], 'unified_memory', null],
    ['AMD APU', [{ vendor: 'Advanced Micro Devices, Inc. [AMD/ATI]', model: 'Rembrandt Radeon 680M', vram: 512, vramDynamic: true }], 'integrated', null],
    ['AMD discrete', [{ vendor: 'AMD', model: 'Radeon RX 7900 XTX', vram: 24576 }], 'discrete_amd', 24],
    ['Intel iGPU', [{ vendor: 'Intel Corporation', model: 'UHD Graphics 770', vram: 128 }], 'integrated', null],
    ['Intel Arc', [{ vendor: 'Intel Corporation', model: 'Arc A770', vram: 16384 }], 'discrete_other', 16],
    [
      'iGPU plus discrete picks the discrete one',
      [{ vendor: 'Intel Corporation', model: 'UHD Graphics 630' }, { vendor: 'NVIDIA Corporation', model: 'GeForce RTX 3060', vram: 12288 }],
      'discrete_nvidia',
      12,
    ],
  ])('classifyGpu: %s', (_name, controllers, kind, vram) => {
    const g = classifyGpu(controllers);
    expect(g.kind).toBe(kind);
    expect(g.vram_gb).toBe(vram);
  });
});
