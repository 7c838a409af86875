// Writes src/generated/openapi.ts from docs/openapi.yaml with openapi-typescript, or with
// `--check` exits 1 when the file differs from what it would write (a test runs that).
// `--output <file>` names another file (the test checks that a stale file is caught).
// `defaultNonNullable: false`: a field with a default is optional in requests (the server
// fills it in), as the OpenAPI document means it.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

const { values } = parseArgs({
  options: {
    check: { type: 'boolean', default: false },
    output: {
      type: 'string',
      default: fileURLToPath(new URL('../src/generated/openapi.ts', import.meta.url)),
    },
  },
});
const source = new URL('../../../docs/openapi.yaml', import.meta.url);
const expected =
  COMMENT_HEADER + astToString(await openapiTS(source, { defaultNonNullable: false }));

if (values.check) {
  const actual = await readFile(values.output, 'utf8').catch(() => '');
  if (actual !== expected) {
    process.stderr.write(
      `${values.output} is stale against docs/openapi.yaml: run \`pnpm --filter @covgate/client generate\`\n`,
    );
    process.exit(1);
  }
  process.stdout.write(`${values.output} is up to date\n`);
} else {
  await writeFile(values.output, expected);
  process.stdout.write(`wrote ${values.output}\n`);
}
