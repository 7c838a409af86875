import { beforeAll, describe, expect, it } from 'vitest';
import { coreRoutes } from '../../src/http/routes/route-table.js';
import { resolveWebhookOptions } from '../../src/webhooks/webhook-options.js';
import {
  allRefs,
  compiledSchema,
  openApiDocument as doc,
  documentedOperations,
  escapePointer,
  locate,
  nodeAt,
  type OperationObject,
  openObjects,
  type ParameterObject,
  type PathItem,
  problemsWith,
  type ResponseObject,
  resolved,
  responseSchemaPointers,
  schemaErrors,
} from './support/openapi-document.js';
import { runScenario, Scenario } from './support/openapi-scenario.js';

const operations = documentedOperations();
const operationKeys = [...operations.keys()];
const routeKeys = coreRoutes({ webhooks: resolveWebhookOptions() }).map(
  (route) => `${route.method} ${route.pattern}`,
);

function pointerOf(key: string): string {
  return operations.get(key) as string;
}

describe('docs/openapi.yaml as an OpenAPI 3.1 document', () => {
  it('declares OpenAPI 3.1 with a title, a version and a server', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(typeof doc.info.title).toBe('string');
    expect(typeof doc.info.version).toBe('string');
    expect(doc.servers?.length).toBeGreaterThan(0);
  });

  it('documents every route of the core route table and nothing else', () => {
    expect([...operationKeys].sort()).toEqual([...routeKeys].sort());
  });

  it('gives every operation a unique operationId, a summary, a tag, a security rule and responses', () => {
    const ids = new Set<string>();
    for (const key of operationKeys) {
      const operation = resolved<OperationObject>(pointerOf(key));
      expect(operation.operationId, key).toMatch(/^[a-z][A-Za-z]+$/);
      expect(ids.has(operation.operationId as string), key).toBe(false);
      ids.add(operation.operationId as string);
      expect(operation.summary, key).toBeTruthy();
      expect(operation.tags?.length, key).toBeGreaterThan(0);
      expect(Array.isArray(operation.security), key).toBe(true);
      expect(Object.keys(operation.responses ?? {}).length, key).toBeGreaterThan(0);
    }
  });

  it('keys every response by a real status code and describes it', () => {
    for (const key of operationKeys) {
      const pointer = pointerOf(key);
      for (const status of Object.keys(resolved<OperationObject>(pointer).responses ?? {})) {
        expect(status, key).toMatch(/^[1-5][0-9]{2}$/);
        const response = resolved<ResponseObject>(`${pointer}/responses/${status}`);
        expect(response.description, `${key} ${status}`).toBeTruthy();
      }
    }
  });

  it('declares each path template parameter as a required path parameter, and no other', () => {
    for (const key of operationKeys) {
      const pointer = pointerOf(key);
      const pathItem = pointer.slice(0, pointer.lastIndexOf('/'));
      const declared = [
        ...(resolved<PathItem>(pathItem).parameters ?? []).map(
          (_, i) => `${pathItem}/parameters/${i}`,
        ),
        ...(resolved<OperationObject>(pointer).parameters ?? []).map(
          (_, i) => `${pointer}/parameters/${i}`,
        ),
      ]
        .map((at) => resolved<ParameterObject>(at))
        .filter((parameter) => parameter.in === 'path');
      const templated = [...key.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      expect(declared.map((parameter) => parameter.name).sort(), key).toEqual(templated.sort());
      expect(
        declared.every((parameter) => parameter.required === true),
        key,
      ).toBe(true);
    }
  });

  it('resolves every $ref to a node of the document', () => {
    const refs = allRefs(doc);
    expect(refs.length).toBeGreaterThan(50);
    const broken = refs.filter(
      ({ ref }) => !ref.startsWith('#/') || nodeAt(ref.slice(1)) === undefined,
    );
    expect(broken).toEqual([]);
  });

  it('compiles every schema of the document with ajv (JSON Schema 2020-12) in strict mode', () => {
    for (const name of Object.keys(doc.components.schemas ?? {})) {
      expect(
        () => compiledSchema(`/components/schemas/${escapePointer(name)}`),
        name,
      ).not.toThrow();
    }
    for (const pointer of responseSchemaPointers()) {
      expect(() => compiledSchema(pointer), pointer).not.toThrow();
    }
  });

  it('closes every object of every response body, so an undocumented field fails', () => {
    expect(responseSchemaPointers().flatMap((pointer) => openObjects(pointer))).toEqual([]);
  });
});

describe('docs/openapi.yaml against a real API', () => {
  const scenario = new Scenario();
  beforeAll(() => runScenario(scenario));

  function exchangesOf(label: string) {
    return scenario.exchanges.filter((exchange) => exchange.label === label);
  }

  it('labels every request with the operation the router picks for it', () => {
    expect(scenario.mislabelled).toEqual([]);
  });

  it.each(operationKeys)('%s: every response is documented and matches the document', (key) => {
    const exchanges = exchangesOf(key);
    expect(exchanges.length).toBeGreaterThan(0);
    const problems = exchanges.flatMap((exchange) =>
      problemsWith(exchange, `${pointerOf(key)}/responses/${exchange.status}`),
    );
    expect(problems).toEqual([]);
  });

  it.each(operationKeys)('%s: every documented status occurs', (key) => {
    const documented = Object.keys(resolved<OperationObject>(pointerOf(key)).responses ?? {});
    const seen = new Set(exchangesOf(key).map((exchange) => String(exchange.status)));
    expect(documented.filter((status) => !seen.has(status))).toEqual([]);
  });

  it.each(operationKeys)('%s: every accepted JSON request body matches the document', (key) => {
    const pointer = pointerOf(key);
    const accepted = exchangesOf(key).filter(
      (exchange) => exchange.status < 300 && exchange.requestBody !== undefined,
    );
    if (!resolved<OperationObject>(pointer).requestBody) {
      expect(accepted).toEqual([]);
      return;
    }
    const content = `${locate(`${pointer}/requestBody`)}/content`;
    // A form (`POST /auth/link`) is checked as the object of its fields.
    const form = nodeAt(`${content}/application~1x-www-form-urlencoded`) !== undefined;
    const schema = `${content}/${form ? 'application~1x-www-form-urlencoded' : 'application~1json'}/schema`;
    const refused = accepted
      .map((exchange) => {
        const body = form
          ? Object.fromEntries(new URLSearchParams(String(exchange.requestBody)))
          : exchange.requestBody;
        return [exchange.request, schemaErrors(schema, body)];
      })
      .filter(([, errors]) => errors !== null);
    expect(refused).toEqual([]);
  });

  it.each(['NotFound', 'MethodNotAllowed', 'Preflight'])(
    'answers the cross-cutting %s exactly as the shared response documents',
    (name) => {
      const exchanges = exchangesOf(name);
      expect(exchanges.length).toBeGreaterThan(0);
      const problems = exchanges.flatMap((exchange) =>
        problemsWith(exchange, `/components/responses/${name}`),
      );
      expect(problems).toEqual([]);
    },
  );

  it('puts X-Request-ID and Vary: Origin on every response of the scenario', () => {
    const missing = scenario.exchanges.filter(
      (exchange) =>
        !exchange.headers.get('x-request-id') || exchange.headers.get('vary') !== 'Origin',
    );
    expect(missing.map((exchange) => exchange.request)).toEqual([]);
  });
});
