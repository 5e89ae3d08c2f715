import type * as SmolToml from 'smol-toml' with { 'resolution-mode': 'import' };

/*
 * smol-toml ships a CommonJS build (dist/index.cjs, its "require" export) but only ESM-flavoured
 * type declarations, which TypeScript refuses to `import` from a CommonJS module. Load the CommonJS
 * build with require and borrow the types.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const smol = require('smol-toml') as typeof SmolToml;

export const parseToml = smol.parse;
export const TomlError = smol.TomlError;
