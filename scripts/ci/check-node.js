// Refuses, in one line, a Node.js older than package.json's `engines.node` (the one place the minimum is
// written). Run first by ./sous, `npm test` and .ci/run: on an old Node, `npm ci` alone would only warn
// (EBADENGINE) for each dependency and the failure would come later, far from its cause.
// Plain CommonJS with no newer syntax, so that it runs on the old Node it has to refuse.
'use strict';
var path = require('path');

var wanted = require(path.join(__dirname, '..', '..', 'package.json')).engines.node;

/** "22.22" or ">=22.22.0" → [22, 22, 0]; undefined for any other form. */
function minimum(range) {
  var m = /^>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(String(range).trim());
  return m ? [Number(m[1]), Number(m[2] || 0), Number(m[3] || 0)] : undefined;
}

function atLeast(version, min) {
  var have = version.replace(/^v/, '').split('.').map(Number);
  for (var i = 0; i < 3; i++) {
    if ((have[i] || 0) !== min[i]) return (have[i] || 0) > min[i];
  }
  return true;
}

var min = minimum(wanted);
if (min === undefined) {
  process.stderr.write('sous: package.json engines.node must read ">=X.Y" (found ' + JSON.stringify(wanted) + ')\n');
  process.exit(1);
}
if (!atLeast(process.versions.node, min)) {
  process.stderr.write('sous: Node.js ' + min.join('.').replace(/\.0$/, '') + ' or newer is required (this is ' + process.version + ' at ' + process.execPath + '); install Node ' + min[0] + ' LTS or newer (https://nodejs.org) and try again\n');
  process.exit(1);
}
