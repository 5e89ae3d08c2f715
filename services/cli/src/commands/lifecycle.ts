import type { Command } from 'commander';
import { registerInitCommand } from './init';
import { registerUpCommands } from './up';
import { registerStatusCommands } from './status';
import { registerLogsCommand } from './logs';
import { registerDoctorCommand } from './doctor';
import { registerJobsCommands } from './jobs';
import { registerContextCommand } from './context';
import { registerPrepareCommand } from './prepare';
import { registerWatchCommand } from './watch';
import { registerResourcesCommands } from './resources';
import { registerFocusCommands } from './focus';
import { registerGoalsCommands } from './goals';
import { registerSkillsCommands } from './skills';
import { registerDeepRunCommands } from './deep-run';
import { registerInspectCommand } from './inspect';
import { registerForgetCommand } from './forget';
import { registerMcpCommand } from './mcp';
import { registerProxyCommand } from './proxy';

/** Spec 4.7 lifecycle (init, up, down, status, ps, show, logs, doctor, jobs), the one-shots `context` and `prepare`, `goals`, `skills`, `deep-run`, and `proxy`. */
export function registerLifecycleCommands(program: Command): void {
  registerInitCommand(program);
  registerUpCommands(program);
  registerStatusCommands(program);
  registerLogsCommand(program);
  registerDoctorCommand(program);
  registerJobsCommands(program);
  registerContextCommand(program);
  registerPrepareCommand(program);
  registerWatchCommand(program);
  registerResourcesCommands(program);
  registerFocusCommands(program);
  registerGoalsCommands(program);
  registerSkillsCommands(program);
  registerDeepRunCommands(program);
  registerInspectCommand(program);
  registerForgetCommand(program);
  registerMcpCommand(program);
  registerProxyCommand(program);
}
