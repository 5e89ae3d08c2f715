// The release's build provenance: an in-toto Statement v1 with an SLSA Provenance v1 predicate.
// Subjects are the artefacts (tarball, SBOM) by SHA-256; the resolved dependencies are what the
// build read (the git commit, package-lock.json, the Node.js binary and npm); the external
// parameters are the command and version. docs/release.md explains each field.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
const PREDICATE_TYPE = 'https://slsa.dev/provenance/v1';
/** What this build is: docs/release.md, "Build type", defines it. */
const BUILD_TYPE = 'urn:sous:build-type:npm-release:v1';

/** Hex SHA-256 of a file, read in chunks (the Node.js binary is ~100 MB). */
function sha256File(file) {
  const hash = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0; ) hash.update(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}

/**
 * The statement for `subjects` (file paths). `build` says what was read and how: git commit, remote
 * (or null), whether the working tree was clean, the lockfile's path, npm's version, the command,
 * and when the build started and finished.
 */
function provenanceStatement({ subjects, version, git, lockFile, npmVersion, command, builderId, startedOn, finishedOn }) {
  const source = { digest: { gitCommit: git.commit } };
  if (git.remote) source.uri = `git+${git.remote}@${git.commit}`;
  return {
    _type: STATEMENT_TYPE,
    subject: subjects.map((file) => ({ name: path.basename(file), digest: { sha256: sha256File(file) } })),
    predicateType: PREDICATE_TYPE,
    predicate: {
      buildDefinition: {
        buildType: BUILD_TYPE,
        externalParameters: { version, command, source: { commit: git.commit, ...(git.remote ? { remote: git.remote } : {}) } },
        internalParameters: { worktreeClean: git.clean, platform: `${process.platform}-${process.arch}` },
        resolvedDependencies: [
          { name: 'source', ...source },
          { name: 'package-lock.json', digest: { sha256: sha256File(lockFile) } },
          { name: 'node', uri: `pkg:generic/node@${process.version}`, digest: { sha256: sha256File(process.execPath) } },
          { name: 'npm', uri: `pkg:npm/npm@${npmVersion}` },
        ],
      },
      runDetails: {
        builder: { id: builderId },
        metadata: { invocationId: crypto.randomUUID(), startedOn, finishedOn },
      },
    },
  };
}

module.exports = { STATEMENT_TYPE, PREDICATE_TYPE, BUILD_TYPE, sha256File, provenanceStatement };
