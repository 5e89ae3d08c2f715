import type * as SmolToml from 'smol-toml' with { 'resolution-mode': 'import' };

// smol-toml's CommonJS build with its ESM-flavoured types (the same loading as @sous/config's toml-lib).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const smol = require('smol-toml') as typeof SmolToml;

export const parseToml = smol.parse;
export const stringifyToml = smol.stringify;
