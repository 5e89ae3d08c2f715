/**
 * Malformed MCP tool calls for the fuzz suite, drawn from a Dice and the tools' listed input
 * schemas: unknown keys, `__proto__`/`constructor`/`prototype` keys, NUL characters, wrong types,
 * missing required fields, values out of range, arguments that are not an object, unknown tool
 * names. A call to a tool that changes state always carries one such defect; read-only tools also
 * get calls of the right shape with garbage values (ids, paths, unicode), which may succeed.
 */
import type { Dice } from './fuzz-random';
import type { FuzzIds } from './fuzz-http';

interface PropSchema {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  items?: PropSchema;
}

/** A tool as `tools/list` describes it. */
export interface ListedTool {
  name: string;
  inputSchema: { properties?: Record<string, PropSchema>; required?: string[] };
  annotations?: { readOnlyHint?: boolean };
}

export interface FuzzCall {
  tool: string;
  readOnly: boolean;
  /** The JSON-RPC request body. */
  body: string;
  /** Why the call must be refused (empty: a read-only call of the right shape). */
  defects: string[];
}

const FORBIDDEN = ['__proto__', 'constructor', 'prototype'];
const GARBAGE_STRINGS = ['%zz', '%00', '../../etc/passwd', '/etc/passwd', 'src/../../x', '😀'.repeat(30), '\u202e\u200b', 'a/b\\c', ' ', '$(rm -rf /)', '<script>'];

function plausible(dice: Dice, name: string, schema: PropSchema, ids: FuzzIds): unknown {
  if (schema.enum && schema.enum.length > 0) return dice.pick(schema.enum);
  switch (schema.type) {
    case 'integer':
    case 'number':
      return dice.between(schema.minimum ?? 1, Math.min(schema.maximum ?? 50, (schema.minimum ?? 1) + 50));
    case 'boolean':
      return dice.chance(0.5);
    case 'array': {
      const items = schema.items ?? { type: 'string' };
      return Array.from({ length: dice.between(1, 3) }, () => plausible(dice, name, items, ids));
    }
    default:
      if (name === 'id') return dice.pick([...ids.cards, ...ids.jobs, 'unknown-id']);
      if (name === 'paths' || name === 'target') return dice.pick(['src/config.ts', 'docs/guide.md', 'loadConfig', 'README.md']);
      return dice.pick(['loadConfig', 'where is the config read', 'parseConfig']);
  }
}

/** A value of the right JSON type that is garbage for the field (read-only calls only). */
function garbage(dice: Dice, schema: PropSchema): unknown {
  if (schema.type === 'string' && !schema.enum) {
    const s = dice.chance(0.5) ? dice.pick(GARBAGE_STRINGS) : dice.text(dice.between(1, 60)).replace(/\u0000/g, '');
    return schema.maxLength !== undefined ? s.slice(0, schema.maxLength) || 'x' : s;
  }
  if (schema.type === 'array' && schema.items?.type === 'string' && !schema.items.enum) return [dice.pick(GARBAGE_STRINGS)];
  return undefined;
}

/** A value that is certainly invalid for the field, whatever joi converts. */
function wrongType(dice: Dice, schema: PropSchema): unknown {
  if (schema.enum) return dice.pick(['not-a-listed-value', {}, 7]);
  switch (schema.type) {
    case 'integer':
      return dice.pick<unknown>([{}, [], 'x', true, 1.5, 'NaN']);
    case 'number':
      // 1.5 is a number: wrong only for an integer field (a dollar amount takes it).
      return dice.pick<unknown>([{}, [], 'x', true, 'NaN']);
    case 'boolean':
      return dice.pick<unknown>([{}, [], 'maybe', 7]);
    case 'array':
      return dice.pick<unknown>([{}, 7, [{}], [[]]]);
    default:
      return dice.pick<unknown>([{}, [], 12.5, true, [null]]);
  }
}

function outOfRange(schema: PropSchema): unknown {
  if (schema.type === 'integer' || schema.type === 'number') return schema.maximum !== undefined ? schema.maximum + 1 : (schema.minimum ?? 0) - 1;
  if (schema.type === 'string' && schema.maxLength !== undefined && schema.maxLength <= 40_000) return 'x'.repeat(schema.maxLength + 1);
  if (schema.type === 'array' && schema.maxItems !== undefined) return Array.from({ length: schema.maxItems + 1 }, () => 'x');
  return undefined;
}

/** Adds `key: value` as the first key of a serialized object (keeps `__proto__` as a key). */
function withKey(json: string, key: string, value: string): string {
  return json === '{}' ? `{"${key}":${value}}` : json.replace(/^\{/, `{"${key}":${value},`);
}

/** Call `dice` draws for one of `tools`. */
export function fuzzCall(dice: Dice, tools: readonly ListedTool[], ids: FuzzIds, id: number): FuzzCall {
  const tool = dice.pick(tools);
  const readOnly = tool.annotations?.readOnlyHint === true;
  const props = tool.inputSchema.properties ?? {};
  const names = Object.keys(props);
  const required = tool.inputSchema.required ?? [];
  const args: Record<string, unknown> = {};
  for (const name of names) if (required.includes(name) || dice.chance(0.4)) args[name] = plausible(dice, name, props[name] as PropSchema, ids);

  const defects: string[] = [];
  let name = tool.name;
  let text: string | undefined;
  const loose = readOnly && dice.chance(0.3);
  if (loose) {
    for (const n of names) {
      const g = garbage(dice, props[n] as PropSchema);
      if (g !== undefined && (required.includes(n) || dice.chance(0.5))) args[n] = g;
    }
  } else {
    const strings = names.filter((n) => props[n]?.type === 'string' && !props[n]?.enum);
    switch (dice.int(9)) {
      case 0:
        args[`zz_${dice.int(99)}`] = dice.pick<unknown>([1, 'x', null, {}, []]);
        defects.push('unknown key');
        break;
      case 1: {
        const key = dice.pick(FORBIDDEN);
        text = dice.chance(0.5) ? withKey(JSON.stringify(args), key, '{"polluted":true}') : withKey(JSON.stringify(args), 'nested', `{"${key}":{"x":1}}`);
        defects.push(`${key} key`);
        break;
      }
      case 2:
        if (strings.length > 0) args[dice.pick(strings)] = `a\u0000${dice.text(3)}`;
        else args[`k${dice.int(9)}`] = '\u0000';
        defects.push('NUL in a string');
        break;
      case 3:
        if (names.length > 0) {
          const n = dice.pick(names);
          args[n] = wrongType(dice, props[n] as PropSchema);
        } else args.extra = true;
        defects.push('wrong type');
        break;
      case 4:
        if (required.length > 0) delete args[dice.pick(required)];
        else args[`zz_${dice.int(99)}`] = 1;
        defects.push(required.length > 0 ? 'missing required field' : 'unknown key');
        break;
      case 5: {
        const ranged = names.filter((n) => outOfRange(props[n] as PropSchema) !== undefined);
        if (ranged.length > 0) {
          const n = dice.pick(ranged);
          args[n] = outOfRange(props[n] as PropSchema);
          defects.push('value out of range');
        } else {
          args[`zz_${dice.int(99)}`] = 'x';
          defects.push('unknown key');
        }
        break;
      }
      case 6:
        text = dice.pick(['[]', '"x"', '7', 'true', '[{}]', '"\\u0000"']);
        defects.push('arguments that are not an object');
        break;
      case 7:
        name = dice.pick(['sous_nope', '', 'x'.repeat(300), `${tool.name}_x`, tool.name.toUpperCase(), 'sous.', '__proto__']);
        defects.push('unknown tool');
        break;
      default:
        text = `{"${names[0] ?? 'a'}":1,"${names[0] ?? 'a'}":{}, ${dice.chance(0.5) ? '' : '"b":'}`;
        defects.push('arguments that are not JSON');
    }
  }
  const argumentsText = text ?? JSON.stringify(args);
  const body = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${argumentsText}}}`;
  return { tool: tool.name, readOnly, body, defects };
}
