// An upper-case run not followed by lower case (HTTP in HTTPResponse), a word with an optional
// capital (Response, parse), digits, or letters without case (e.g. CJK).
const PART = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+|[\p{Lo}\p{Lt}\p{Lm}]+/gu;

/**
 * Split an identifier into lower-cased words for matching prompts against code:
 * camelCase, PascalCase, snake_case, kebab-case, dotted and digit boundaries.
 * `parseHTTPResponse2` → `['parse', 'http', 'response', '2']`; `MAX_SIZE` → `['max', 'size']`.
 */
export function splitIdentifier(name: string): string[] {
  return (name.match(PART) ?? []).map((part) => part.toLowerCase());
}
