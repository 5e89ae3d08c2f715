// One jest run for the whole workspace: unit tests beside each package (shared/*/test, services/*/test)
// and cross-service tests in test/. Sources are transpiled by ts-jest; `npm test` builds first so
// tests that start real processes run the compiled entry points.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/shared', '<rootDir>/services', '<rootDir>/test', '<rootDir>/scripts'],
  testMatch: ['**/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
  // Shared packages resolve to their sources; services are started as processes or imported by path.
  moduleNameMapper: { '^@sous/(protocol|logging|config|backend|store|jobs|setup|retrieval|engine|focus|http|runtime|mcp|gateway)$': '<rootDir>/shared/$1/src/index.ts' },
  // PostgreSQL and Redis are found once per run (environment, testcontainers, local) and handed to
  // every worker; containers it started are stopped at the end.
  globalSetup: '<rootDir>/test/support/global-services.js',
  globalTeardown: '<rootDir>/test/support/global-teardown.js',
  setupFiles: ['<rootDir>/test/support/jest-env.js'],
  testTimeout: 60000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/scripts/ci/summary-reporter.js'],
};
