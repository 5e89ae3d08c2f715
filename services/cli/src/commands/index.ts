import type { Command } from 'commander';
import { registerConfigCommands } from './config';
import { registerSetupCommands } from './setup';
import { registerLifecycleCommands } from './lifecycle';
import { registerClientsCommands } from './clients';

/** Every `sous` command group registers itself here; one module per group. */
export function registerCommands(program: Command): void {
  registerLifecycleCommands(program);
  registerConfigCommands(program);
  registerSetupCommands(program);
  registerClientsCommands(program);
}
