// Part of the server's build: the covgate CLI of this release as one self-contained npm tarball,
// `dist/cli/covgate.tgz`, which the server answers at `GET /cli/covgate.tgz`. Self-hosters whose
// CI reaches nothing but their covgate server install the CLI from it: the bin is one bundled
// file (the CLI, its workspace packages and its third-party libraries), the package declares no
// dependency, and THIRD-PARTY-LICENSES.md carries the licence of every library bundled.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const serverDir = fileURLToPath(new URL('../', import.meta.url));
const outFile = join(serverDir, 'dist', 'cli', 'covgate.tgz');

/** The CLI package's folder and manifest, as the server's workspace dependency resolves it. */
function cliPackage() {
  const manifestPath = createRequire(join(serverDir, 'package.json')).resolve(
    '@covgate/cli/package.json',
  );
  return { dir: dirname(manifestPath), manifest: JSON.parse(readFileSync(manifestPath, 'utf8')) };
}

/** The folder of the package that holds `file` (the nearest package.json with a name). */
function packageRootOf(file) {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name) return dir;
  }
  throw new Error(`no package.json above ${file}`);
}

/** What a package without a licence file says of its licence. */
function withoutLicenceFile({ license, author, repository }) {
  const who = typeof author === 'string' ? author : author?.name;
  const where = typeof repository === 'string' ? repository : repository?.url;
  return [
    `Licence: ${license} (the package ships no licence file).`,
    ...(who ? [`Author: ${who}.`] : []),
    ...(where ? [`Repository: ${where}.`] : []),
  ].join('\n');
}

const LICENCE_FILE = /^licen[cs]e(\.(md|txt))?$|^copying$/i;

/**
 * The licence section of each third-party package among the bundle's inputs: name, version,
 * licence name and the text of its licence file (or, for a package that ships none, what its
 * package.json says: licence, author, repository).
 */
function licenceSections(inputFiles) {
  const roots = new Set(
    inputFiles.filter((file) => file.includes('/node_modules/')).map(packageRootOf),
  );
  const sections = [...roots].map((root) => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const file = readdirSync(root).find((name) => LICENCE_FILE.test(name));
    const text = file
      ? readFileSync(join(root, file), 'utf8').trim()
      : withoutLicenceFile(manifest);
    return { id: `${manifest.name}@${manifest.version}`, licence: manifest.license, text };
  });
  const workspace = sections.filter(({ id }) => id.startsWith('@covgate/'));
  if (workspace.length > 0) throw new Error(`bundled from node_modules: ${workspace[0].id}`);
  return sections.sort((a, b) => a.id.localeCompare(b.id));
}

function licencesDocument(sections) {
  const parts = sections.map(
    ({ id, licence, text }) => `## ${id} (${licence})\n\n\`\`\`text\n${text}\n\`\`\`\n`,
  );
  return `# Third-party licences\n\nbin.js bundles these packages with the covgate CLI (MIT, see LICENSE).\n\n${parts.join('\n')}`;
}

/** Bundles the CLI's built bin into `stage/bin.js`; returns the input files it read. */
async function bundle(cli, stage) {
  const entry = join(cli.dir, cli.manifest.bin.covgate);
  if (!existsSync(entry)) throw new Error(`${entry} is missing: build @covgate/cli first`);
  const result = await build({
    entryPoints: [entry],
    outfile: join(stage, 'bin.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    metafile: true,
    legalComments: 'eof',
    // The CLI's manifest says `sideEffects: false` for its library; its built bin imports
    // chunks for their effects, which that flag would make esbuild drop.
    ignoreAnnotations: true,
    logLevel: 'warning',
    // The libraries written as CommonJS call require() for Node's own modules.
    banner: {
      js: "import { createRequire as __covgateRequire } from 'node:module'; const require = __covgateRequire(import.meta.url);",
    },
  });
  // esbuild names inputs relative to the working folder; a leading shebang line stays.
  return Object.keys(result.metafile.inputs).map((input) => resolve(input));
}

async function packCli() {
  const cli = cliPackage();
  const work = await mkdtemp(join(tmpdir(), 'covgate-cli-pack-'));
  try {
    const stage = join(work, 'package');
    await mkdir(stage);
    const inputs = await bundle(cli, stage);
    const { name, version, description, license, author, engines, keywords } = cli.manifest;
    const manifest = {
      name,
      version,
      description,
      license,
      author,
      type: 'module',
      engines,
      keywords,
      bin: { covgate: 'bin.js' },
    };
    await writeFile(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    await writeFile(
      join(stage, 'THIRD-PARTY-LICENSES.md'),
      licencesDocument(licenceSections(inputs)),
    );
    for (const file of ['LICENSE', 'README.md']) {
      await copyFile(join(cli.dir, file), join(stage, file));
    }
    // npm's own packing: the archive npm installs, with its fixed timestamps (same bytes for the
    // same files, so the checksum changes only with the CLI).
    const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
      cwd: stage,
      encoding: 'utf8',
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_loglevel: 'error' },
    });
    const [{ filename }] = JSON.parse(packed);
    await mkdir(dirname(outFile), { recursive: true });
    await copyFile(join(work, filename), outFile);
    console.log(`CLI ${name}@${version} packed: ${outFile}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await packCli();
