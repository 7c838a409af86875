import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMarkdownRenderer } from 'vitepress';
import { beforeAll, describe, expect, it } from 'vitest';

// VitePress compiles every page as a Vue template: a `<role>` written in prose, outside a code
// span, is an element that never ends, and the whole site fails to build ("Element is missing
// end tag"). The docs build takes minutes; this finds such a tag in seconds, in the pages and in
// the changesets the release notes page is made of.

const docsDir = fileURLToPath(new URL('../', import.meta.url));
const repo = join(docsDir, '..');
const VOID = new Set(
  'area base br col embed hr img input link meta param source track wbr'.split(' '),
);

/** The Markdown pages of the site (the generated reference folders included when present). */
function pages(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return pages(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** Element names opened in `html` without a matching end tag (void and self-closed ones aside). */
export function unclosedTags(html: string): string[] {
  const withoutCode = html.replace(/<(pre|code)\b[\s\S]*?<\/\1>/g, '');
  const open = new Map<string, number>();
  for (const match of withoutCode.matchAll(/<(\/?)([A-Za-z][\w-]*)\b[^>]*?(\/?)>/g)) {
    const [, closing, rawName, selfClosing] = match;
    const name = rawName!.toLowerCase();
    if (VOID.has(name) || selfClosing) continue;
    open.set(name, (open.get(name) ?? 0) + (closing ? -1 : 1));
  }
  return [...open].filter(([, count]) => count > 0).map(([name]) => `<${name}>`);
}

/**
 * Vue interpolations (`{{ ... }}`) in `html` outside blocks marked `v-pre` (VitePress marks
 * fenced code so; inline code is not: wrap it in `<span v-pre>`), which Vue evaluates: `${{ matrix.shard }}` in inline
 * code reads `matrix` of the page and fails the build.
 */
function interpolations(html: string): string[] {
  const outsidePre = html.replace(/<(pre|span)\b[^>]*\bv-pre\b[\s\S]*?<\/\1>/g, '');
  return [...outsidePre.matchAll(/\{\{[\s\S]*?\}\}/g)].map((match) => match[0]);
}

describe('Markdown the docs site compiles as Vue', () => {
  let render: (markdown: string, file?: string) => string;
  beforeAll(async () => {
    const md = await createMarkdownRenderer(docsDir);
    // Heading anchors change no tag, and their uniqueness check needs the build's page state.
    md.core.ruler.disable('anchor');
    // The file's path lets snippet includes (`<<< @/...`) resolve as in the build.
    const page = join(docsDir, 'index.md');
    render = (markdown, file = page) =>
      md.render(markdown, { path: file, relativePath: relative(docsDir, file), cleanUrls: false });
  });

  it('finds a tag left open in prose, and none in code', () => {
    expect(unclosedTags(render('says "You joined\n<organisation> as <role>."'))).toEqual([
      '<organisation>',
      '<role>',
    ]);
    expect(unclosedTags(render('says `You joined <organisation> as <role>.`'))).toEqual([]);
    expect(unclosedTags(render('```sh\ncovgate tokens revoke <id>\n```'))).toEqual([]);
  });

  it('finds an interpolation in inline code, and none in a code block', () => {
    expect(interpolations(render('pass `--part ${{ matrix.shard }}`'))).toEqual([
      '{{ matrix.shard }}',
    ]);
    expect(interpolations(render('```yaml\nrun: ${{ matrix.shard }}\n```'))).toEqual([]);
    expect(interpolations(render('pass <span v-pre>`${{ matrix.shard }}`</span>'))).toEqual([]);
  });

  it('leaves no element open and no interpolation outside code blocks on any page or in any changeset', () => {
    const changesets = readdirSync(join(repo, '.changeset'))
      .filter((name) => name.endsWith('.md') && name !== 'README.md')
      .map((name) => join(repo, '.changeset', name));
    const found = [...pages(docsDir), ...changesets].flatMap((file) => {
      const text = readFileSync(file, 'utf8').replace(/^---\n[\s\S]*?\n---\n/, '');
      const html = render(text, file);
      const problems = [...unclosedTags(html), ...interpolations(html)];
      return problems.length > 0 ? [`${relative(repo, file)}: ${problems.join(', ')}`] : [];
    });
    expect(found).toEqual([]);
  });
});
