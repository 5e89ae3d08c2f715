// Every jest worker gets a Sous home of its own, so daemons started in tests never share Auto Focus
// state with each other's files or with the real ~/.sous of the machine.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

if (!process.env.SOUS_HOME) process.env.SOUS_HOME = fs.mkdtempSync(path.join(os.tmpdir(), 'sous-home-'));
