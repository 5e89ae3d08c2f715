/**
 * Whether a backend runs on this machine or the private network. Background preparation may call
 * only such backends: no proactive work runs in the cloud in this release (spec 1, invariant 4).
 */
import { isIP } from 'node:net';

/** True for loopback, private-network (RFC 1918, unique-local IPv6) and `.local`/`localhost` hosts. */
export function isLocalBackendUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host === 'host.docker.internal') return true;
  if (isIP(host) === 4) {
    const [a = 0, b = 0] = host.split('.').map(Number);
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
  }
  if (isIP(host) === 6) return host === '::1' || host.startsWith('fc') || host.startsWith('fd');
  // A bare name without dots (a compose service such as `ollama`) resolves on the private network.
  return !host.includes('.');
}

/**
 * True only for a backend on this machine's loopback: `localhost` (and `*.localhost`), 127.0.0.0/8,
 * `::1`. Decided by the URL as written, never by resolving a name (a name could resolve elsewhere
 * tomorrow). The stricter test for what must not leave the machine at all: external skills' text
 * (docs/skills.md#zones).
 */
export function isLoopbackBackendUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.split('.')[0] === '127';
  return host === '::1';
}
