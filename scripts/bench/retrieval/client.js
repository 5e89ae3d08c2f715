'use strict';
// Small HTTP helpers for the benchmark: JSON requests on a keep-alive agent, polling, free ports.
const fs = require('node:fs');
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
 * One JSON request as a load generator sends it: resolves `{ status, bytes }` once the whole answer
 * arrived, without parsing it. The generator shares the cores with the server it measures; parsing
 * every 20 KB answer would cost it about as much as the server spends sending it.
 */
function send(agent, port, path, body, timeoutMs = 30_000) {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(JSON.stringify(body));
    const req = http.request(
      { host: '127.0.0.1', port, method: 'POST', path, agent, timeout: timeoutMs, headers: { 'content-type': 'application/json', 'content-length': payload.length } },
      (res) => {
        let bytes = 0;
        res.on('data', (c) => (bytes += c.length));
        res.on('end', () => resolve({ status: res.statusCode, bytes }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`POST ${path} timed out after ${timeoutMs} ms`)));
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
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number((status.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm')) || [])[1] || 0);
    return { rssMb: Math.round(kb('VmRSS') / 1024), hwmMb: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return null;
  }
}

/** `pid` and all its descendants (from /proc; children of every thread). */
function processTree(pid) {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const task of fs.readdirSync(`/proc/${out[i]}/task`)) {
        const kids = fs.readFileSync(`/proc/${out[i]}/task/${task}/children`, 'utf8').trim();
        if (kids) out.push(...kids.split(/\s+/).map(Number));
      }
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

module.exports = { request, send, poll, sleep, freePort, processMemory, processTree };
