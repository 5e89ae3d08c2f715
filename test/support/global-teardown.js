// Jest globalTeardown: stops the containers global-services.js started (none without a Docker engine)
// and removes the run's cache directory.
'use strict';
const fs = require('node:fs');

module.exports = async function globalTeardown() {
  if (globalThis.__sousCacheDir) fs.rmSync(globalThis.__sousCacheDir, { recursive: true, force: true });
  const started = globalThis.__sousContainers ?? [];
  globalThis.__sousContainers = [];
  await Promise.all(started.map((c) => c.stop()));
};
