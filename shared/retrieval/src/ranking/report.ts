/**
 * Issue-template boilerplate taken out of a prompt before it is analyzed. A real bug report pasted
 * from a tracker carries its template: checklists ("- [x] I have searched the issues", with links
 * to CONTRIBUTING.md), HTML comments with instructions, and environment sections (OS, versions, the
 * output of `tool doctor` or `pip freeze`). Their words and paths are the same in every report of
 * the repository, so they point at the files that mention versions and platforms, never at the one
 * the report is about. What the user wrote about the problem is left as it is.
 */

// `- [x] I have searched…`: a checkbox line that speaks of the reporter, not a task list of work.
const CHECKLIST_LINE_RE = /^[ \t]*(?:[-*+]|\d+\.)[ \t]+\[[ xX]\][ \t]+(.*)$/gm;
const CHECKLIST_WORDS = /\b(I|I'm|I've|I'd|my|we|have|has been|searched|read|agree|checked|confirm(?:ed)?|duplicate|latest|code of conduct|guidelines?|faq|discussions?)\b/i;
const HTML_COMMENT_RE = /<!--[\s\S]*?(?:-->|$)/g;
const IMAGE_RE = /!\[[^\]\n]*\]\([^)\n]*\)|<img\b[^>\n]*>/gi;

// A section heading: `## Environment`, `**Output of \`dvc doctor\`:**`, `Environment:` alone on its line.
const HEADING_RE = /^[ \t]*(?:#{1,6}[ \t]+(.+?)[ \t#]*|\*\*([^*\n]+?)\*\*[ \t]*:?|__([^_\n]+?)__[ \t]*:?|([A-Z][A-Za-z /()`.-]{2,60}):)[ \t]*$/;
// Headings of sections that describe the reporter's machine, not the problem.
const ENVIRONMENT_HEADING = /\b(environment|env info|system info(?:rmation)?|system details|platform|versions?|os|operating system|installation(?: method)?|installed|doctor|pip freeze|pip list|dependencies versions|checklist|prerequisites|code of conduct|setup information|runtime)\b/i;
// `- **OS**: Ubuntu 22.04`, `Python version: 3.11`, `rustc 1.75.0`-style key/value lines about the machine.
const ENVIRONMENT_LINE_RE = /^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?([A-Za-z][\w .()/-]{0,40}?)(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]*\S.*$/;
const ENVIRONMENT_KEY = /^(?:[\w.-]+ )?(?:os|os version|os version and name|version|platform|python|python version|node|node version|node\.js version|npm|yarn|pnpm|rustc?|rust version|cargo|go|go version|browser|operating system|system|arch|architecture|kernel|distro|distribution|shell|terminal|installed|installation|install method|ide|editor|virtualenv|venv)$/i;

/** The section heading a line is, or null. */
function headingOf(line: string): string | null {
  const m = HEADING_RE.exec(line);
  if (m === null) return null;
  return (m[1] ?? m[2] ?? m[3] ?? m[4] ?? '').trim();
}

/**
 * The prompt without template boilerplate (see the module comment). Lines are removed whole; a
 * prompt without a template comes back unchanged.
 */
export function cleanReport(text: string): string {
  const stripped = text
    .replace(HTML_COMMENT_RE, '')
    .replace(IMAGE_RE, '')
    .replace(CHECKLIST_LINE_RE, (line, rest: string) => (CHECKLIST_WORDS.test(rest) ? '' : line));
  const out: string[] = [];
  let skipping = false;
  let fence = false;
  for (const line of stripped.split('\n')) {
    if (/^[ \t]*(```|~~~)/.test(line)) {
      fence = !fence;
      if (!skipping) out.push(line);
      continue;
    }
    if (!fence) {
      const heading = headingOf(line);
      if (heading !== null) {
        skipping = ENVIRONMENT_HEADING.test(heading);
        if (!skipping) out.push(line);
        continue;
      }
      const kv = ENVIRONMENT_LINE_RE.exec(line);
      if (kv !== null && ENVIRONMENT_KEY.test((kv[1] ?? '').trim())) continue;
    }
    if (!skipping) out.push(line);
  }
  return out.join('\n');
}
