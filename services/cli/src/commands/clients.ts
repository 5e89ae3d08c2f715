import type { Command } from 'commander';
import * as os from 'node:os';
import { ensureConfigFile } from '@sous/config';
import { clients } from '@sous/setup';
import { CliError } from '../cli-error';
import { gitTopLevel } from '../repo-check';
import { LAUNCH_FAILURES, VERIFY_FAILURES, clientIdsFrom, printClientReport, wiringStore, wiringTarget } from '../client-wiring';
import { printJson, printLine } from '../output';
import { run } from '../run';
import { resolveWorkspace } from '../workspace';

interface WiringOptions {
  path?: string;
  clients?: string;
  composer?: boolean;
  force?: boolean;
  json?: boolean;
}

const ID_HELP = `client ids, comma-separated: ${clients.CLIENT_IDS.join(', ')}`;

/**
 * Spec 4.7: `sous launch <client_id…>` installs every applicable layer of each client (idempotent,
 * each layer reports its status), `sous clients verify | uninstall | list | snippet`. docs/clients.md.
 */
export function registerClientsCommands(program: Command): void {
  program
    .command('launch')
    .description('wire AI clients to this workspace: MCP entry, primer, skill/prompt, hooks (idempotent)')
    .argument('[client_ids...]', ID_HELP)
    .option('--clients <ids>', ID_HELP)
    .option('--path <dir>', 'the workspace (default: nearest .sous/ upward)')
    .option('--composer', 'also install the Claude Code L0 composer hook (sends a hash and length of each prompt, never its text)')
    .option('--force', 'replace a same-named rules/skill/prompt file Sous did not write (backed up first; uninstall restores it)')
    .option('--json', 'print the reports as JSON')
    .action(
      run(async (ids: string[], opts: WiringOptions) => {
        const chosen = clientIdsFrom([...ids, opts.clients]);
        if (chosen.length === 0) throw new CliError(`name at least one client: sous launch <client_id> (${clients.CLIENT_IDS.join(', ')})`, 2);
        const paths = resolveWorkspace(opts.path);
        // The MCP server refuses a directory that is not a git repository: an entry for one would never start.
        if (gitTopLevel(paths.root) === undefined) throw new CliError(`${paths.root} is not a git repository; run sous launch inside one or pass --path <repository>`, 2);
        // The manifest and backups live in .sous/, which keeps itself out of git (.gitignore `*`).
        await ensureConfigFile(paths);
        const target = wiringTarget(paths);
        const reports = chosen.map((id) => clients.launchClient(id, target, wiringStore(paths), { composer: opts.composer === true, force: opts.force === true }));
        const failed = reports.some((r) => r.layers.some((l) => LAUNCH_FAILURES.includes(l.status)));
        if (failed) process.exitCode = 1;
        if (opts.json) return printJson({ workspace: paths.root, clients: reports });
        for (const r of reports) printClientReport(r, target.home);
        if (!failed) printLine('Restart the client (or reload its MCP servers) to pick up Sous.');
      }),
    );

  const group = program.command('clients').description('AI clients: list, verify or remove their wiring');

  group
    .command('list')
    .description('the ten clients, whether each is installed here, and which are wired to this workspace')
    .option('--path <dir>', 'the workspace (default: nearest .sous/ upward)')
    .option('--json', 'print JSON')
    .action(
      run(async (opts: WiringOptions) => {
        const paths = resolveWorkspace(opts.path);
        const detected = clients.detectClients({ home: os.homedir(), platform: process.platform });
        const wired = clients.launchedClients(wiringStore(paths));
        const rows = detected.map((d) => ({ ...d, wired: wired.includes(d.id) }));
        if (opts.json) return printJson({ workspace: paths.root, clients: rows });
        for (const r of rows) printLine(`${r.id.padEnd(12)}${(r.installed ? 'installed' : 'not found').padEnd(11)}${r.wired ? 'wired' : ''}`);
      }),
    );

  group
    .command('verify')
    .description('check each layer of each client (default: the clients launched in this workspace)')
    .argument('[client_ids...]', ID_HELP)
    .option('--path <dir>', 'the workspace (default: nearest .sous/ upward)')
    .option('--json', 'print JSON')
    .action(
      run(async (ids: string[], opts: WiringOptions) => {
        const paths = resolveWorkspace(opts.path);
        const store = wiringStore(paths);
        const chosen = ids.length > 0 ? clientIdsFrom(ids) : clients.launchedClients(store);
        const target = wiringTarget(paths);
        const reports = chosen.map((id) => clients.verifyClient(id, target, store));
        if (reports.some((r) => r.layers.some((l) => VERIFY_FAILURES.includes(l.status)))) process.exitCode = 1;
        if (opts.json) return printJson({ workspace: paths.root, clients: reports });
        if (reports.length === 0) printLine(`No client is wired to ${paths.root}; run sous launch <client_id>.`);
        for (const r of reports) printClientReport(r, target.home);
      }),
    );

  group
    .command('uninstall')
    .description('remove exactly what launch added (the original bytes when nothing else changed)')
    .argument('<client_ids...>', ID_HELP)
    .option('--path <dir>', 'the workspace (default: nearest .sous/ upward)')
    .option('--json', 'print JSON')
    .action(
      run(async (ids: string[], opts: WiringOptions) => {
        const paths = resolveWorkspace(opts.path);
        const target = wiringTarget(paths);
        const reports = clientIdsFrom(ids).map((id) => clients.uninstallClient(id, target, wiringStore(paths)));
        if (reports.some((r) => r.layers.some((l) => l.status === 'error'))) process.exitCode = 1;
        if (opts.json) return printJson({ workspace: paths.root, clients: reports });
        for (const r of reports) printClientReport(r, target.home);
      }),
    );

  group
    .command('snippet')
    .description("print a client's MCP entry for this workspace and installation (to paste by hand)")
    .argument('<client_id>', ID_HELP)
    .option('--path <dir>', 'the workspace (default: nearest .sous/ upward)')
    .option('--json', 'print JSON')
    .action(
      run(async (id: string, opts: WiringOptions) => {
        const [client] = clientIdsFrom([id]);
        if (!client) throw new CliError(`name a client: ${clients.CLIENT_IDS.join(', ')}`, 2);
        const snippet = clients.getClient(client).snippet(wiringTarget(resolveWorkspace(opts.path)));
        if (opts.json) return printJson(snippet);
        printLine(`# ${snippet.file}`);
        printLine(snippet.text);
        if (snippet.command) printLine(`# or: ${snippet.command}`);
      }),
    );
}
