import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  compiledSchema,
  documentedOperations,
  escapePointer,
  locate,
} from './support/openapi-document.js';

// The examples of runs in docs/api-reference.md, each marked `<!-- example of: METHOD /path
// STATUS -->`, against that response's schema in docs/openapi.yaml. Examples shorten ids
// (`exe_01jq...`), which are written out before the check. Those that leave fields out
// (`"...": "..."`) are not marked.
const reference = readFileSync(
  new URL('../../../../docs/api-reference.md', import.meta.url),
  'utf8',
);
const MARKED = /<!-- example of: (\S+) (\S+) (\d{3}) -->\n```json\n([\s\S]*?)\n```/g;
const examples = [...reference.matchAll(MARKED)].map(([, method, path, status, json]) => ({
  label: `${method} ${path} ${status}`,
  method: method!,
  path: path!,
  status: status!,
  json: json!,
}));

/**
 * The example with its shortened ids written out: `exe_01jq...` becomes `exe_01jq` and zeros
 * up to the 26 characters of a ULID, which keeps the example's prefix and digits checked.
 */
function writtenOut(json: string): unknown {
  return JSON.parse(
    json.replace(/"([a-z]+)_([0-9a-z]*)\.\.\."/g, (_, prefix: string, head: string) =>
      JSON.stringify(`${prefix}_${head.padEnd(26, '0')}`),
    ),
  );
}

/** Schema errors of the example at its response's schema. */
function errorsOf(example: (typeof examples)[number]): string[] {
  const operation = documentedOperations().get(`${example.method} ${example.path}`);
  if (operation === undefined) return [`no operation ${example.method} ${example.path}`];
  const response = locate(`${operation}/responses/${example.status}`);
  const validate = compiledSchema(
    `${response}/content/${escapePointer('application/json')}/schema`,
  );
  if (validate(writtenOut(example.json))) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

describe('the examples of runs in docs/api-reference.md', () => {
  it('are marked where they stand: the list, both ingest answers and the repositories', () => {
    expect(examples.map((example) => example.label)).toEqual([
      'GET /v1/executions 200',
      'POST /v1/executions 201',
      'POST /v1/executions 201',
      'GET /v1/repos 200',
    ]);
  });

  it.each(examples.map((example) => [example.label, example] as const))(
    '%s matches its response schema in docs/openapi.yaml',
    (_label, example) => {
      expect(errorsOf(example)).toEqual([]);
    },
  );
});
