// Every jest worker gets a Sous home of its own, so daemons started in tests never share Auto Focus
// state with each other's files or with the real ~/.sous of the machine.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

if (!process.env.SOUS_HOME) process.env.SOUS_HOME = fs.mkdtempSync(path.join(os.tmpdir(), 'sous-home-'));
// AI clients are looked for only among executables in this (empty) folder: a developer's running
// editor, or another test's fake client, never changes a test's outcome.
if (!process.env.SOUS_TEST_CLIENT_DIR) process.env.SOUS_TEST_CLIENT_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'sous-clients-'));
