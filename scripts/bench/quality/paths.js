'use strict';
// Where the quality set's data lives: outside the checkout, because the bug reports are third-party
// text (only a small sample is committed, sample.json) and the trees come from repository mirrors.
const path = require('node:path');

/** `$SOUS_QUALITY_DATA`, else /work/quality-set. */
function dataDir() {
  return process.env.SOUS_QUALITY_DATA ?? path.join('/work', 'quality-set');
}

/** `$SOUS_MIRRORS`, else /work/.mirror: bare git directories named `<owner>+<name>`. */
function mirrorsDir() {
  return process.env.SOUS_MIRRORS ?? path.join('/work', '.mirror');
}

module.exports = { dataDir, mirrorsDir };
