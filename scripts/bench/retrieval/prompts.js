'use strict';
// Prompts of the /v1/context load test: what an agent sends for a task on this corpus (bug-report
// prose naming identifiers of the corpus, stack traces naming corpus files, bare paths). They only
// drive latency; quality is measured with the changelog fixtures.

const PROMPTS = [
  'qs.parse drops keys when arrayLimit is exceeded with indexed notation; throwOnLimitExceeded should throw a RangeError instead',
  'stringify with arrayFormat comma and encodeValuesOnly crashes in encoder when the array contains null',
  'router.param callback is called twice for the same value when next("route") is used in a param handler',
  'TypeError: Cannot read properties of null (reading destroy)\n    at onFinished (src/finalhandler/index.js:121:18)\n    at Object.finalhandler (src/finalhandler/index.js:92:7)',
  'URIError: Failed to decode param \'%E0%A4%A\'\n    at decodeParam (src/router/lib/layer.js:336:17)\n    at Layer.matchPath (src/router/lib/layer.js:73:23)\n    at next (src/router/index.js:260:27)',
  'src/source-map/lib/source-map-consumer.js',
  'SourceMapConsumer.originalPositionFor returns null for columns past the last mapping; use GREATEST_LOWER_BOUND bias',
  'lcov report is missing BRDA lines for files without branch data, genhtml fails to parse it',
  'src/istanbul-lib-instrument/src/visitor.js: istanbul ignore next before export default class is not honoured',
  'v8 coverage for ESM files reports wrong lines when the source map has no sourcesContent',
  'ts-jest hoisting: jest.mock calls are not hoisted above imports when the file uses isolatedModules',
  'Error: Lock file is already being held\n    at /repo/src/proper-lockfile/lib/lockfile.js:68:47\n    at callback (src/graceful-fs/polyfills.js:306:20)',
  'AsyncLock maxPending reached: Too many pending tasks in queue when acquiring a batch of keys',
  'object-inspect prints [Object: null prototype] for objects created with Object.create(Foo.prototype)',
  'type-is returns false for application/json; charset=utf-8 when the request has a Transfer-Encoding header but no Content-Length',
  'src/qs/lib/utils.js',
  'Content-Security-Policy header on the 404 page blocks the favicon; finalhandler should only set default-src none',
  'jest-circus: beforeAll hook timeout is reported against the wrong test when tests are concurrent',
  'debug module: DEBUG=* does not enable namespaces with a colon when DEBUG_HIDE_DATE is set',
  'semver.satisfies("1.2.3-beta.1", "^1.2.0") returns false; includePrerelease option ignored in Range',
];

module.exports = { PROMPTS };
