export { CliError } from './cli-error';
