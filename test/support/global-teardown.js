// Jest globalTeardown: stops the containers global-services.js started (none without a Docker engine).
'use strict';
module.exports = async function globalTeardown() {
  const started = globalThis.__sousContainers ?? [];
  globalThis.__sousContainers = [];
  await Promise.all(started.map((c) => c.stop()));
};
