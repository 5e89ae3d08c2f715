import * as os from 'node:os';
import type { Express } from 'express';
import { gpuLoad, systemCpuLoad } from '@sous/engine';
import { classifyTier, probeHardware, type HardwareSnapshot } from '@sous/setup';
import type { DaemonContext } from '../daemon';

/**
 * `GET /resources` (spec 2.6, 4.2): a read-only inventory of the local runtime and devices, from the
 * configuration, the backend probe and the hardware probe (run once per daemon, in the background,
 * on the first request). Never a key: profiles show the variable name only. docs/http-api.md.
 */
export function resourceRoutes(app: Express, ctx: DaemonContext): void {
  // Probed once, on the first request: a daemon nobody asks pays nothing for it.
  let hardware: Promise<HardwareSnapshot> | undefined;
  const hardwareProbe = (): Promise<HardwareSnapshot> => (hardware ??= probeHardware());
  app.get('/resources', async (_req, res) => {
    const config = ctx.config();
    const snapshot = await hardwareProbe();
    const probe = ctx.backend.latest();
    const cores = os.cpus().length;
    const [cpuLoad, gpu] = await Promise.all([systemCpuLoad(), gpuLoad()]);
    res.json({
      backend: {
        name: config.backend.name,
        base_url: config.backend.base_url,
        model: config.backend.model,
        api_key_env: config.backend.api_key_env,
        reachable: probe?.reachable ?? null,
        model_present: probe?.model_present ?? null,
        models: probe?.models ?? [],
        checked_at: probe?.checked_at ?? null,
        ...(probe?.error ? { error: probe.error } : {}),
      },
      backends: Object.fromEntries(Object.entries(config.backends).map(([name, p]) => [name, { base_url: p.base_url, model: p.model, api_key_env: p.api_key_env }])),
      compute: {
        ...config.compute,
        cores,
        // What cpu_fraction allows a cycle to run at once (at least one detector).
        cycle_concurrency: Math.max(1, Math.floor(cores * config.compute.cpu_fraction)),
        // The loads the idle check compares with the thresholds now; gpu is null when no GPU load can be read.
        load: { cpu: Math.round(cpuLoad * 100) / 100, gpu: gpu === null ? null : Math.round(gpu * 100) / 100 },
        idle_only_effective: config.compute.idle_only || config.compute.preset === 'background',
      },
      embedding: { model: config.exploration.embedding_model, device: config.compute.embedding_device },
      hardware: {
        tier: classifyTier(snapshot).tier,
        ram_gb: snapshot.ram_gb,
        cpu: { class: snapshot.cpu_class, brand: snapshot.cpu_brand, physical_cores: snapshot.cpu_physical_cores, logical_cores: cores },
        gpu: { kind: snapshot.gpu_kind, vendor: snapshot.gpu_vendor, model: snapshot.gpu_model, vram_gb: snapshot.gpu_vram_gb },
        battery_present: snapshot.battery_present,
        thermal_constrained: snapshot.thermal_constrained,
        runtimes: snapshot.runtimes,
        probed_at: snapshot.probed_at,
        ...(snapshot.probe_errors.length ? { probe_errors: snapshot.probe_errors } : {}),
      },
    });
  });
}
