import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The documentation is one landing page and pages by audience; these checks keep its links whole
// and the landing page short.

const root = fileURLToPath(new URL('../../', import.meta.url));
const pages = [
  'README.md',
  'ARCHITECTURE.md',
  'test/deployed/README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text of a page outside fenced code blocks, line by line. */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page's headings make, repeated headings numbered as GitHub numbers them. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of proseLines(readFileSync(file, 'utf8'))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** The relative links of a page (outside code), as written. */
function relativeLinks(text: string): string[] {
  const links: string[] = [];
  for (const line of proseLines(text)) {
    const withoutCode = line.replace(/`[^`]*`/g, '');
    for (const match of withoutCode.matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push(target);
    }
  }
  return links;
}

describe('the documentation', () => {
  it('keeps README.md a landing page of at most 15 KB', () => {
    expect(statSync(join(root, 'README.md')).size).toBeLessThanOrEqual(15 * 1024);
  });

  it('has an index page listing every page of docs/', () => {
    const index = readFileSync(join(root, 'docs/README.md'), 'utf8');
    const listed = new Set(relativeLinks(index).map((link) => link.split('#')[0]));
    const unlisted = pages.filter((page) => page.startsWith('docs/') && page !== 'docs/README.md' && !listed.has(page.slice(5)));
    expect(unlisted).toEqual([]);
  });

  it.each(pages)('%s: every relative link leads to a file, and every #anchor to a heading of it', (page) => {
    const file = join(root, page);
    const broken: string[] = [];
    for (const link of relativeLinks(readFileSync(file, 'utf8'))) {
      const [path = '', anchor] = link.split('#', 2);
      const target = path === '' ? file : join(dirname(file), decodeURIComponent(path));
      if (!existsSync(target)) {
        broken.push(`${link}: no file ${relative(root, target)}`);
        continue;
      }
      if (anchor !== undefined && target.endsWith('.md') && !anchors(target).has(anchor.toLowerCase())) {
        broken.push(`${link}: no heading of ${relative(root, target)} makes #${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
