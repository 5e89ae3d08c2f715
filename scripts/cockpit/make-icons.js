#!/usr/bin/env node
// Writes the cockpit's PNG app icons (services/cockpit/public/icon-{192,512}.png): the SVG icon's
// shapes drawn as plain pixels, so no image tool is needed. Run again only when the icon changes.
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');

const BLUE = [0x1d, 0x4e, 0x89];
const WHITE = [0xff, 0xff, 0xff];

function crc32(buf) {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** The pixel at (x, y) of a 64-unit icon scaled to `size`: a pot (trapezoid) under three steam strokes. */
function colour(x, y, size) {
  const u = (v) => (v / size) * 64;
  const [X, Y] = [u(x), u(y)];
  const inPot = Y >= 40 && Y <= 50 && X >= 16 + (Y - 40) * 0.4 && X <= 48 - (Y - 40) * 0.4;
  const inSteam = Y >= 20 && Y <= 34 && [24, 34, 44].some((cx) => Math.abs(X - (cx - (34 - Y) * 0.15)) <= 2);
  return inPot || inSteam ? WHITE : BLUE;
}

function png(size) {
  const rows = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 3);
    for (let x = 0; x < size; x++) Buffer.from(colour(x, y, size)).copy(row, 1 + x * 3);
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(Buffer.concat(rows), { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

const out = path.join(__dirname, '..', '..', 'services', 'cockpit', 'public');
for (const size of [192, 512]) fs.writeFileSync(path.join(out, `icon-${size}.png`), png(size));
