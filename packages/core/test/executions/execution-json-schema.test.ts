// Core's JSON types of a run against the schemas of docs/openapi.yaml, through the types the
// client generates from it (`packages/client/src/generated/openapi.ts`, kept in step with
// the document by `packages/client/test/generated.test.ts`). A field in one and not the
// other, or typed otherwise, fails `pnpm run typecheck`: the wire shape has one source.
import { describe, expectTypeOf, it } from 'vitest';
import type { components } from '../../../client/src/generated/openapi.js';
import type {
  BaselineJson,
  ExecutionJson,
  PatchJson,
} from '../../src/executions/execution-json.js';
import type { ExecutionDetailJson } from '../../src/http/routes/execution-detail.js';

type Schemas = components['schemas'];

describe("a run's JSON types and the OpenAPI document", () => {
  it('are the same types, field for field', () => {
    expectTypeOf<ExecutionJson>().toEqualTypeOf<Schemas['Execution']>();
    expectTypeOf<BaselineJson>().toEqualTypeOf<Schemas['Baseline']>();
    expectTypeOf<PatchJson>().toEqualTypeOf<Schemas['Patch']>();
    expectTypeOf<ExecutionDetailJson>().toEqualTypeOf<Schemas['ExecutionDetail']>();
  });
});
