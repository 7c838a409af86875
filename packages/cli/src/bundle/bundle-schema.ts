import { BUNDLE_VERSION, MAX_BUNDLE_FILES, MAX_LINE } from './bundle.js';

const count = { type: 'integer', minimum: 0, maximum: 100_000_000 } as const;
const line = { type: 'integer', minimum: 1, maximum: MAX_LINE } as const;
const lineList = { type: 'array', maxItems: 1_000_000, items: line } as const;
const commit = { type: 'string', pattern: '^([0-9a-f]{40}|[0-9a-f]{64})$' } as const;
// No control character; the path rules beyond a schema's are checked after it.
const path = {
  type: 'string',
  minLength: 1,
  maxLength: 1024,
  pattern: '^[^\\u0000-\\u001f\\u007f]+$',
};
const name = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  pattern: '^[^\\u0000-\\u001f\\u007f]+$',
};

/**
 * The JSON Schema of a bundle, version {@link BUNDLE_VERSION}: every object closed
 * (`additionalProperties: false`), every number and list bounded. Checked by Ajv before
 * anything of the bundle is used; `checkBundle` then checks what a schema cannot say.
 */
export const BUNDLE_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  additionalProperties: false,
  required: [
    'covgate_bundle',
    'cli_version',
    'commit',
    'pull_request',
    'branch',
    'base_branch',
    'files',
    'patch',
    'patch_skipped',
  ],
  properties: {
    covgate_bundle: { const: BUNDLE_VERSION },
    cli_version: { type: 'string', pattern: '^[0-9A-Za-z.+-]{1,64}$' },
    commit,
    pull_request: { type: 'integer', minimum: 1, maximum: 2_147_483_647 },
    branch: name,
    base_branch: { anyOf: [name, { type: 'null' }] },
    files: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_BUNDLE_FILES,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['path', 'covered', 'coverable'],
        properties: {
          path,
          covered: count,
          coverable: count,
          lines: {
            type: 'object',
            additionalProperties: false,
            required: ['coverable', 'covered'],
            properties: { coverable: lineList, covered: lineList },
          },
          branches: {
            type: 'object',
            additionalProperties: false,
            required: ['covered', 'coverable'],
            properties: { covered: count, coverable: count },
          },
        },
      },
    },
    patch: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['base_ref', 'merge_base', 'changed'],
          properties: {
            base_ref: name,
            merge_base: commit,
            changed: {
              type: 'array',
              maxItems: MAX_BUNDLE_FILES,
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['path', 'ranges'],
                properties: {
                  path,
                  ranges: {
                    type: 'array',
                    minItems: 1,
                    maxItems: 100_000,
                    items: {
                      type: 'array',
                      minItems: 2,
                      maxItems: 2,
                      items: [line, { type: 'integer', minimum: 1, maximum: MAX_LINE }],
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
    patch_skipped: { anyOf: [{ ...name, maxLength: 2000 }, { type: 'null' }] },
  },
} as const;
