// Symbols of every source file under a folder, as JSON, to compare grammar versions on the same inputs:
//   node scripts/grammars/symbols-snapshot.js <folder> <out.json>      (needs `npm run build`)
//   node scripts/grammars/symbols-snapshot.js --compare <old.json> <new.json>
// Take a snapshot before and after a grammar or query change and compare: a node type renamed by a
// newer grammar silently drops the symbols of its pattern, and only a comparison shows it.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const dist = path.join(__dirname, '..', '..', 'shared', 'retrieval', 'dist');

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? walk(full) : entry.isFile() ? [full] : [];
  });
}

async function snapshot(folder, out) {
  const { extractSymbols, isSymbolLanguage } = require(path.join(dist, 'symbols', 'index.js'));
  const { detectLanguage } = require(path.join(dist, 'scope', 'language.js'));
  const files = {};
  for (const file of walk(folder).sort()) {
    const language = detectLanguage(file);
    if (!isSymbolLanguage(language)) continue;
    const s = await extractSymbols(language, fs.readFileSync(file, 'utf8'));
    files[path.relative(folder, file)] = {
      language,
      parser: s.parser,
      definitions: s.definitions.map((d) => `${d.line}-${d.endLine} ${d.kind} ${d.name}${d.exported === undefined ? '' : d.exported ? ' exported' : ''}`),
      imports: s.imports.map((i) => `${i.line} ${i.source} [${i.names.join(',')}]`),
      references: s.references.map((r) => `${r.name}×${r.count}`),
    };
  }
  fs.writeFileSync(out, JSON.stringify(files, null, 1));
  console.log(`${Object.keys(files).length} files -> ${out}`);
}

/** Entries of `a` missing from `b`, as a multiset. */
function missing(a, b) {
  const left = new Map();
  for (const x of b) left.set(x, (left.get(x) ?? 0) + 1);
  return a.filter((x) => {
    const n = left.get(x) ?? 0;
    if (n > 0) left.set(x, n - 1);
    return n === 0;
  });
}

function compare(oldFile, newFile, detail = 5) {
  const before = JSON.parse(fs.readFileSync(oldFile, 'utf8'));
  const after = JSON.parse(fs.readFileSync(newFile, 'utf8'));
  const totals = {};
  const examples = [];
  for (const [file, o] of Object.entries(before)) {
    const n = after[file];
    if (!n) continue;
    const t = (totals[o.language] ??= { files: 0, parserChanged: 0, changedFiles: 0 });
    t.files++;
    if (o.parser !== n.parser) t.parserChanged++;
    let changed = false;
    for (const field of ['definitions', 'imports', 'references']) {
      const lost = missing(o[field], n[field]);
      const gained = missing(n[field], o[field]);
      const f = (t[field] ??= { old: 0, new: 0, lost: 0, gained: 0 });
      f.old += o[field].length;
      f.new += n[field].length;
      f.lost += lost.length;
      f.gained += gained.length;
      if (lost.length || gained.length) changed = true;
      if ((lost.length || gained.length) && field !== 'references') examples.push({ file, field, parser: `${o.parser}->${n.parser}`, lost: lost.slice(0, detail), gained: gained.slice(0, detail) });
    }
    if (changed) t.changedFiles++;
  }
  console.log(JSON.stringify(totals, null, 1));
  for (const e of examples) console.log(JSON.stringify(e));
}

const [first, a, b] = process.argv.slice(2);
if (first === '--compare' && a && b) compare(a, b);
else if (first && a) snapshot(first, a).catch((err) => { console.error(err); process.exit(1); });
else {
  console.error('usage: symbols-snapshot.js <folder> <out.json> | --compare <old.json> <new.json>');
  process.exit(2);
}
