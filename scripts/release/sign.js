// Signatures for release artefacts: OpenSSH's `ssh-keygen -Y sign` (OpenSSH 8.1 or later), which any
// user can check with `ssh-keygen -Y verify` and the published allowed_signers line. The key never
// lives in the repository: SOUS_RELEASE_SIGNING_KEY names a private key file, or a public key whose
// private half an ssh-agent (or a hardware token) holds.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');

/** The namespace every Sous release signature is made in: a signature for git or e-mail never verifies here. */
const NAMESPACE = 'sous-release';
/** The principal named in allowed_signers unless SOUS_RELEASE_SIGNER says otherwise. */
const DEFAULT_SIGNER = 'release@sous';

function run(args, options = {}) {
  return execFileSync('ssh-keygen', args, { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], ...options });
}

/** The public key (one `ssh-ed25519 AAAA… comment` line) of a private key file, or the .pub file itself. */
function publicKeyOf(keyFile) {
  const text = fs.readFileSync(keyFile, 'utf8');
  if (/^(ssh-|ecdsa-|sk-)/.test(text.trim())) return text.trim();
  return run(['-y', '-f', keyFile]).trim();
}

/** The allowed_signers line users put in a file to verify: `<principal> namespaces="sous-release" <key>`. */
function allowedSignersLine(keyFile, signer = DEFAULT_SIGNER) {
  const [type, blob] = publicKeyOf(keyFile).split(/\s+/);
  return `${signer} namespaces="${NAMESPACE}" ${type} ${blob}`;
}

/** Signs `file` into `file.sig` (armored SSH signature); returns the signature's path. */
function signFile(file, keyFile) {
  fs.rmSync(`${file}.sig`, { force: true });
  run(['-Y', 'sign', '-q', '-f', keyFile, '-n', NAMESPACE, file]);
  return `${file}.sig`;
}

/** Checks `file.sig` against an allowed_signers file; throws with ssh-keygen's words when it does not verify. */
function verifyFile(file, allowedSignersFile, signer = DEFAULT_SIGNER) {
  return run(['-Y', 'verify', '-f', allowedSignersFile, '-I', signer, '-n', NAMESPACE, '-s', `${file}.sig`], { input: fs.readFileSync(file) }).trim();
}

module.exports = { NAMESPACE, DEFAULT_SIGNER, publicKeyOf, allowedSignersLine, signFile, verifyFile };
