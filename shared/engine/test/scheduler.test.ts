/**
 * When cycles run: signals merged into one queued cycle after a quiet period, nothing queued twice
 * while a cycle is in flight, a deferred cycle asked again later; and the idle check of
 * `compute.idle_only`.
 */
import { CycleScheduler, idleRefusal, sessionRefusal, systemCpuLoad, type CycleTrigger } from '../src';
import { until } from '../../../test/support/wait';

function scheduler(options: { debounceMs?: number; retryMs?: number } = {}) {
  const queued: CycleTrigger[] = [];
  const s = new CycleScheduler({ enqueue: async (t) => void queued.push(t), debounceMs: options.debounceMs ?? 20, retryMs: options.retryMs ?? 40 });
  return { s, queued };
}

describe('cycle scheduler', () => {
  test('a burst of saves becomes one cycle naming every path; a commit outranks a save', async () => {
    const { s, queued } = scheduler();
    s.request({ kind: 'file_change', paths: ['src/a.ts'] });
    s.request({ kind: 'file_change', paths: ['src/b.ts', 'src/a.ts'] });
    s.request({ kind: 'commit' });
    await until(() => (queued.length > 0 ? true : undefined), 2000, 5);
    expect(queued).toEqual([{ kind: 'commit', paths: ['src/a.ts', 'src/b.ts'] }]);
    s.close();
  });

  test('while a cycle is in flight, new signals wait for it and then make one more', async () => {
    const { s, queued } = scheduler();
    s.request({ kind: 'start' });
    await until(() => (queued.length === 1 ? true : undefined), 2000, 5);
    s.request({ kind: 'file_change', paths: ['src/c.ts'] });
    await new Promise((r) => setTimeout(r, 80));
    expect(queued).toHaveLength(1);
    s.cycleEnded();
    await until(() => (queued.length === 2 ? true : undefined), 2000, 5);
    expect(queued[1]).toEqual({ kind: 'file_change', paths: ['src/c.ts'] });
    s.close();
  });

  test('a deferred cycle is asked again later with its trigger', async () => {
    const { s, queued } = scheduler();
    s.request({ kind: 'file_change', paths: ['src/d.ts'] });
    await until(() => (queued.length === 1 ? true : undefined), 2000, 5);
    s.retryLater(queued[0] as CycleTrigger);
    await until(() => (queued.length === 2 ? true : undefined), 2000, 5);
    expect(queued[1]).toEqual({ kind: 'file_change', paths: ['src/d.ts'] });
    s.close();
  });

  test('a closed scheduler queues nothing', async () => {
    const { s, queued } = scheduler();
    s.request({ kind: 'warm' });
    s.close();
    await new Promise((r) => setTimeout(r, 60));
    expect(queued).toEqual([]);
  });
});

describe('idle check (compute.idle_only)', () => {
  const busy = async () => 0.9;
  const quiet = async () => 0.1;
  const cpuOnly = (cpu: () => Promise<number>) => ({ cpu, gpu: async () => null });

  test('with idle_only, a busy system defers and says why; a quiet one runs', async () => {
    expect(await idleRefusal({ idle_only: true, idle_cpu_threshold: 0.6 }, cpuOnly(busy))).toBe('CPU load 0.90 is at or above compute.idle_cpu_threshold 0.6');
    expect(await idleRefusal({ idle_only: true, idle_cpu_threshold: 0.6 }, cpuOnly(quiet))).toBeNull();
  });

  test('a busy GPU defers too, when its load can be read; an unreadable one does not block', async () => {
    const compute = { idle_only: true, idle_cpu_threshold: 0.6, idle_gpu_threshold: 0.7 };
    expect(await idleRefusal(compute, { cpu: quiet, gpu: async () => 0.95 })).toBe('GPU load 0.95 is at or above compute.idle_gpu_threshold 0.7');
    expect(await idleRefusal(compute, { cpu: quiet, gpu: async () => 0.2 })).toBeNull();
    expect(await idleRefusal(compute, { cpu: quiet, gpu: async () => null })).toBeNull();
  });

  test('without idle_only, load does not matter', async () => {
    expect(await idleRefusal({ idle_only: false, idle_cpu_threshold: 0.6 }, cpuOnly(busy))).toBeNull();
  });

  test('the system load is a fraction of all cores', async () => {
    const load = await systemCpuLoad(50);
    expect(load).toBeGreaterThanOrEqual(0);
    expect(load).toBeLessThanOrEqual(1);
  });
});

describe('session limit (compute.max_session_minutes)', () => {
  test('background work lasts the session after the last change, then waits for the next one', () => {
    const last = Date.parse('2026-11-23T10:00:00Z');
    expect(sessionRefusal(last, last + 29 * 60_000, 30)).toBeNull();
    expect(sessionRefusal(last, last + 30 * 60_000, 30)).toBeNull();
    expect(sessionRefusal(last, last + 31 * 60_000, 30)).toBe('Dormant: no change for more than compute.max_session_minutes (30 min); background preparation resumes with the next change.');
  });
});
