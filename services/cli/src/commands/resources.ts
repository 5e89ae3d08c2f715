import type { Command } from 'commander';
import { DaemonRequestError } from '@sous/runtime';
import { CliError } from '../cli-error';
import { requireClient } from '../daemon-control';
import { printJson, printLine } from '../output';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

interface Resources {
  backend: { name: string; base_url: string; model: string; reachable: boolean | null; model_present: boolean | null; models: string[]; error?: string };
  compute: Record<string, unknown> & { cores: number; cycle_concurrency: number; idle_only: boolean; idle_cpu_threshold: number; cpu_fraction: number; max_cycle_seconds: number };
  embedding: { model: string; device: string };
  hardware: { tier: string; ram_gb: number; cpu: { class: string; brand: string | null; logical_cores: number }; gpu: { kind: string; model: string | null; vram_gb: number | null } };
}

/** `sous resources status`: the daemon's read-only inventory (GET /resources). */
export function registerResourcesCommands(program: Command): void {
  program
    .command('resources')
    .description('the read-only inventory of model runtime, compute limits and devices')
    .command('status')
    .description('what Sous may use on this machine, and what it found')
    .option('--path <dir>', 'repository (default: nearest .sous/ upward)')
    .option('--json', 'print as JSON')
    .action(
      run(async (opts: { path?: string; json?: boolean }) => {
        const client = requireClient(resolveWorkspace(opts.path));
        const r = await client.get<Resources>('/resources').catch((err: unknown) => {
          if (err instanceof DaemonRequestError) throw new CliError(err.message);
          throw err;
        });
        if (opts.json) return printJson(r);
        const b = r.backend;
        const reach = b.reachable === null ? 'not checked yet' : b.reachable ? `reachable, ${b.models.length} models${b.model_present === false ? ` (${b.model} is not among them)` : ''}` : `not reachable${b.error ? `: ${b.error}` : ''}`;
        printLine(`model backend  ${b.name} at ${b.base_url}, model ${b.model}: ${reach}`);
        const c = r.compute;
        printLine(`compute        ${c.cores} cores; cycles use up to ${c.cycle_concurrency} (cpu_fraction ${c.cpu_fraction}); ${c.idle_only ? `only while CPU load < ${c.idle_cpu_threshold}` : 'not limited to idle time'}; cycle limit ${c.max_cycle_seconds} s`);
        printLine(`embedding      ${r.embedding.model} on ${r.embedding.device}`);
        const h = r.hardware;
        printLine(`hardware       tier ${h.tier}; ${h.ram_gb} GB RAM; CPU ${h.cpu.brand ?? h.cpu.class}; GPU ${h.gpu.kind}${h.gpu.model ? ` (${h.gpu.model}${h.gpu.vram_gb ? `, ${h.gpu.vram_gb} GB` : ''})` : ''}`);
      }),
    );
}
