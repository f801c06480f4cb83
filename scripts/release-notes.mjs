// Prints the CHANGELOG.md section of one version (the release notes), or exits 1 with a message.
// Usage: node scripts/release-notes.mjs 0.1.0 [CHANGELOG.md]   (a leading "v" is accepted)
import { readFileSync } from 'node:fs';

export function releaseNotes(changelog, version) {
  const wanted = version.replace(/^v/, '');
  const lines = changelog.split(/\r?\n/);
  const start = lines.findIndex((line) => {
    const m = /^## \[([^\]]+)\]/.exec(line);
    return m !== null && m[1] === wanted;
  });
  if (start < 0) return undefined;
  let end = lines.findIndex((line, i) => i > start && (/^## /.test(line) || /^\[[^\]]+\]: /.test(line)));
  if (end < 0) end = lines.length;
  return lines.slice(start + 1, end).join('\n').trim();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [version, file = 'CHANGELOG.md'] = process.argv.slice(2);
  if (!version) {
    console.error('usage: node scripts/release-notes.mjs <version> [CHANGELOG.md]');
    process.exit(2);
  }
  const notes = releaseNotes(readFileSync(file, 'utf8'), version);
  if (!notes) {
    console.error(`${file} has no non-empty section "## [${version.replace(/^v/, '')}]": add the release's entries first`);
    process.exit(1);
  }
  process.stdout.write(`${notes}\n`);
}
