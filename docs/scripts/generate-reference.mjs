// Generates the reference pages the site does not keep in git: the HTTP API from openapi.yaml
// and each package's exported API from its TSDoc (TypeDoc + its Markdown plugin).
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Application } from 'typedoc';
import { writeHttpReference } from './http-reference.mjs';

const docsDir = fileURLToPath(new URL('..', import.meta.url));
const repoDir = join(docsDir, '..');
const packagesDir = join(repoDir, 'packages');
const generatedSidebar = join(docsDir, '.vitepress', 'generated');

/** Folders of the published packages with a library entry point (a bin-only package has nothing to document). */
async function documentedPackages() {
  const names = (await readdir(packagesDir)).sort();
  const found = [];
  for (const name of names) {
    const manifestPath = join(packagesDir, name, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
    if (manifest.private) continue;
    if (!existsSync(join(packagesDir, name, 'src', 'index.ts'))) continue;
    found.push(join(packagesDir, name));
  }
  return found;
}

async function writePackageReference() {
  const packages = await documentedPackages();
  const outDir = join(docsDir, 'reference', 'packages');
  const app = await Application.bootstrapWithPlugins({
    entryPointStrategy: 'packages',
    entryPoints: packages,
    packageOptions: {
      entryPoints: ['src/index.ts'],
      tsconfig: join(docsDir, 'tsconfig.typedoc.json'),
      skipErrorChecking: true,
      excludePrivate: true,
      excludeInternal: true,
      readme: 'none',
    },
    plugin: ['typedoc-plugin-markdown', 'typedoc-vitepress-theme'],
    out: outDir,
    readme: 'none',
    name: 'Packages',
    docsRoot: docsDir,
    skipErrorChecking: true,
    hidePageHeader: true,
    entryFileName: 'index',
    logLevel: 'Warn',
    treatWarningsAsErrors: false,
  });
  const project = await app.convert();
  if (!project) throw new Error('TypeDoc could not convert the packages');
  await app.generateOutputs(project);
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
