'use strict';
// Small HTTP helpers for the benchmark: JSON requests on a keep-alive agent, polling, free ports.
const http = require('node:http');
const net = require('node:net');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One JSON request; resolves `{ status, body }` (body parsed when it is JSON). */
function request(agent, port, method, path, body, timeoutMs = 30_000) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        timeout: timeoutMs,
        headers: payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {},
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: keep the text for the error message
          }
          resolve({ status: res.statusCode, body: parsed });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Calls `probe()` every `everyMs` until it returns a truthy value (returned) or `timeoutMs` passes
 * (returns undefined). Errors from `probe` count as "not yet".
 */
async function poll(probe, { everyMs = 100, timeoutMs = 60_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value;
    if (Date.now() >= deadline) return undefined;
    await sleep(everyMs);
  }
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** VmRSS and VmHWM of a process in MB, or null when it is gone. */
function processMemory(pid) {
  try {
    const status = require('node:fs').readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number((status.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm')) || [])[1] || 0);
    return { rssMb: Math.round(kb('VmRSS') / 1024), hwmMb: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return null;
  }
}

module.exports = { request, poll, sleep, freePort, processMemory };
