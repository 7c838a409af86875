// Generates the reference pages the site does not keep in git: the HTTP API from openapi.yaml
// and each package's exported API from its TSDoc (TypeDoc + its Markdown plugin).
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { slug } from 'github-slugger';
import { Application, Converter, OptionDefaults, ReflectionKind } from 'typedoc';
import { MarkdownPageEvent } from 'typedoc-plugin-markdown';
import { writeHttpReference } from './http-reference.mjs';
import { sourceLinkTemplate } from './source-links.mjs';

const docsDir = fileURLToPath(new URL('..', import.meta.url));
const defaultRepoDir = join(docsDir, '..');
const packagesDir = join(defaultRepoDir, 'packages');
const generatedSidebar = join(docsDir, '.vitepress', 'generated');

/**
 * Published packages the generated reference leaves out. The test kit's exports are documented
 * by hand in storage.md (builders, `createTestApi`, the suites), as they were while the kit was a
 * subpath of the core; its 31 generated pages weighed 5.4 MB, past the site's 50 MB budget.
 */
const NOT_IN_THE_REFERENCE = ['@covgate/testing'];

/** Folders of the published packages with a library entry point (a bin-only package has nothing to document). */
async function documentedPackages() {
  const names = (await readdir(packagesDir)).sort();
  const found = [];
  for (const name of names) {
    const manifestPath = join(packagesDir, name, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
    if (manifest.private || NOT_IN_THE_REFERENCE.includes(manifest.name)) continue;
    if (!existsSync(join(packagesDir, name, 'src', 'index.ts'))) continue;
    found.push(join(packagesDir, name));
  }
  return found;
}

/**
 * Types of `@covgate/client` generated from docs/openapi.yaml: the HTTP reference documents the
 * same operations and schemas, and rendered as TypeScript they made pages of 54 000 to
 * 170 000 px.
 */
const MIRRORS_OF_THE_OPENAPI_DOCUMENT = ['paths', 'operations', 'components'];

/**
 * Removes the generated mirrors of the OpenAPI document from the client's reference, before
 * TypeDoc groups the members (as `@hidden` does); counts what it removed in `removed`.
 */
function dropOpenApiMirrors(project, removed) {
  for (const reflection of project.getReflectionsByKind(ReflectionKind.Interface)) {
    const file = reflection.sources?.[0]?.fileName ?? '';
    if (!MIRRORS_OF_THE_OPENAPI_DOCUMENT.includes(reflection.name)) continue;
    if (!file.endsWith('client/src/generated/openapi.ts')) continue;
    project.removeReflection(reflection);
    removed.add(reflection.name);
  }
}

/**
 * Links to anchors as GitHub's slugger (the site's `markdown.anchor.slugify`) writes them, and
 * written `./`-relative so that typedoc-vitepress-theme leaves them alone: its own slugger
 * turns `_` into `-`, and `#report_formats` became a link to `#report-formats`, which no
 * heading has.
 */
function keepAnchorsAsTheSiteWritesThem(page) {
  if (!page.contents) return;
  const self = `./${basename(page.url)}`;
  page.contents = page.contents.replace(
    /\]\((?!https?:|\/|\.)([^)#\s]*)#([^)\s]+)\)/g,
    (_link, path, anchor) => `](${path ? `./${path}` : self}#${slug(decodeURIComponent(anchor))})`,
  );
}

/**
 * Removes from each interface the members it inherits from an interface of the same project:
 * they are documented on that interface's own page, which the Hierarchy section links. The
 * store port `Store` extends every entity's store, and listing their hundred methods again made
 * it the site's one page over its height budget (52 923 px).
 */
function dropMembersDocumentedOnTheirOwnPage(project) {
  for (const reflection of project.getReflectionsByKind(ReflectionKind.Interface)) {
    for (const member of [...(reflection.children ?? [])]) {
      // Set when the member it inherits is a reflection of this project (not an external type).
      if (member.inheritedFrom?.reflection) project.removeReflection(member);
    }
  }
}

/**
 * TypeDoc's options for the reference of `packages` (package folders) written to `outDir`,
 * read with `tsconfig`, with source links into the repository named in `repoDir`'s
 * package.json.
 */
export function referenceOptions({ packages, outDir, repoDir = defaultRepoDir, tsconfig }) {
  // Set, the template keeps TypeDoc from reading the `origin` remote (and warning without one).
  const sourceLinks = { sourceLinkTemplate: sourceLinkTemplate(repoDir) };
  return {
    entryPointStrategy: 'packages',
    entryPoints: packages,
    packageOptions: {
      entryPoints: ['src/index.ts'],
      tsconfig: tsconfig ?? join(docsDir, 'tsconfig.typedoc.json'),
      ...sourceLinks,
      skipErrorChecking: true,
      excludePrivate: true,
      excludeInternal: true,
      readme: 'none',
      // openapi-typescript writes these two on the generated client types.
      blockTags: [...OptionDefaults.blockTags, '@description', '@constant'],
    },
    plugin: ['typedoc-plugin-markdown', 'typedoc-vitepress-theme'],
    out: outDir,
    readme: 'none',
    name: 'Packages',
    docsRoot: docsDir,
    skipErrorChecking: true,
    hidePageHeader: true,
    entryFileName: 'index',
    // Classes, interfaces and functions get a page each; type aliases and variables are listed
    // on their package's page. One page per member made 400 pages, each carrying the whole
    // sidebar, for 86 of the site's 99 MB.
    membersWithOwnFile: ['Class', 'Interface', 'Function'],
    // A method's parameters as one table rather than a heading and a list each: the store port's
    // page (every entity's methods) stays within the site's page height.
    parametersFormat: 'table',
    logLevel: 'Warn',
    treatWarningsAsErrors: false,
    ...sourceLinks,
  };
}

async function writePackageReference() {
  const packages = await documentedPackages();
  const outDir = join(docsDir, 'reference', 'packages');
  const app = await Application.bootstrapWithPlugins(referenceOptions({ packages, outDir }));
  const removed = new Set();
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) =>
    dropOpenApiMirrors(context.project, removed),
  );
  // After TypeDoc has copied inherited members in (a lower priority runs later).
  app.converter.on(
    Converter.EVENT_RESOLVE_END,
    (context) => dropMembersDocumentedOnTheirOwnPage(context.project),
    -100,
  );
  // Before the theme's own rewriting of links (a higher priority runs first).
  app.renderer.on(MarkdownPageEvent.END, keepAnchorsAsTheSiteWritesThem, 100);
  const project = await app.convert();
  if (!project) throw new Error('TypeDoc could not convert the packages');
  if (removed.size !== MIRRORS_OF_THE_OPENAPI_DOCUMENT.length) {
    throw new Error(
      `@covgate/client no longer exports ${MIRRORS_OF_THE_OPENAPI_DOCUMENT.filter((name) => !removed.has(name)).join(', ')}: update MIRRORS_OF_THE_OPENAPI_DOCUMENT`,
    );
  }
  await app.generateOutputs(project);
  // A warning is a defect of the reference (an unknown tag, a type the pages cannot link to).
  if (app.logger.hasWarnings() || app.logger.hasErrors()) {
    throw new Error('TypeDoc reported warnings (above): fix them, the reference must have none');
  }
  const sidebar = JSON.parse(await readFile(join(outDir, 'typedoc-sidebar.json'), 'utf8'));
  return sidebar;
}

export async function generateReference() {
  await mkdir(generatedSidebar, { recursive: true });
  const http = await writeHttpReference(
    join(docsDir, 'openapi.yaml'),
    join(docsDir, 'reference', 'http'),
    '/reference/http/',
  );
  await mkdir(join(docsDir, 'public'), { recursive: true });
  await copyFile(join(docsDir, 'openapi.yaml'), join(docsDir, 'public', 'openapi.yaml'));
  const packages = await writePackageReference();
  await writeFile(join(generatedSidebar, 'http.json'), JSON.stringify(http, null, 2));
  await writeFile(join(generatedSidebar, 'packages.json'), JSON.stringify(packages, null, 2));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await generateReference();
}
