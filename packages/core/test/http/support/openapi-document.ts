import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

/** The parts of OpenAPI objects the checks read. */
export interface HeaderObject {
  $ref?: string;
  required?: boolean;
  schema?: { type?: unknown };
}
export interface ResponseObject {
  $ref?: string;
  description?: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: unknown }>;
}
export interface ParameterObject {
  $ref?: string;
  name?: string;
  in?: string;
  required?: boolean;
}
export interface OperationObject {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: ParameterObject[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, ResponseObject>;
}
export type PathItem = Record<string, unknown> & { parameters?: ParameterObject[] };
export interface OpenApiDocument {
  openapi: string;
  info: { title?: unknown; version?: unknown };
  servers?: { url: string }[];
  paths: Record<string, PathItem>;
  components: Record<string, Record<string, unknown>>;
}

/** `docs/openapi.yaml`, parsed. */
export const openApiDocument = parse(
  readFileSync(new URL('../../../../../docs/openapi.yaml', import.meta.url), 'utf8'),
) as OpenApiDocument;

const DOCUMENT_ID = 'https://covgate.test/openapi.json';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Escapes one JSON-pointer segment (`/v1/tokens` -> `~1v1~1tokens`). */
export function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The node at a JSON pointer into the document, or undefined. */
export function nodeAt(pointer: string): unknown {
  let node: unknown = openApiDocument;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** The pointer of the node at `pointer` once every local `$ref` on the way is followed. */
export function locate(pointer: string): string {
  let current = pointer;
  for (let hops = 0; hops < 10; hops++) {
    const node = nodeAt(current) as { $ref?: unknown } | undefined;
    if (typeof node?.$ref !== 'string') return current;
    current = node.$ref.slice(1);
  }
  throw new Error(`$ref loop at ${pointer}`);
}

/** The node at `pointer`, `$ref`s followed. */
export function resolved<T>(pointer: string): T {
  return nodeAt(locate(pointer)) as T;
}

/** `METHOD /path` of every operation in the document, with the operation's pointer. */
export function documentedOperations(): Map<string, string> {
  const operations = new Map<string, string>();
  for (const [path, item] of Object.entries(openApiDocument.paths)) {
    for (const method of HTTP_METHODS) {
      if (item[method] !== undefined) {
        operations.set(
          `${method.toUpperCase()} ${path}`,
          `/paths/${escapePointer(path)}/${method}`,
        );
      }
    }
  }
  return operations;
}

/** Every `$ref` value under `node`, with where it occurs. */
export function allRefs(node: unknown, at = ''): { at: string; ref: string }[] {
  if (typeof node !== 'object' || node === null) return [];
  const refs: { at: string; ref: string }[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') refs.push({ at, ref: value });
    else refs.push(...allRefs(value, `${at}/${escapePointer(key)}`));
  }
  return refs;
}

// strictRequired is off: `anyOf: [{required: [a]}, {required: [b]}]` is the idiom for "a or b".
const ajv = new Ajv2020({
  strict: true,
  strictRequired: false,
  allErrors: true,
  allowUnionTypes: true,
});
addFormats(ajv);
// The document is added whole so that `#/components/...` references resolve; these are the
// OpenAPI fields around the schemas, which JSON Schema does not know.
ajv.addVocabulary(['openapi', 'info', 'servers', 'tags', 'paths', 'components']);
ajv.addSchema(openApiDocument, DOCUMENT_ID);

/** Validates `value` against the schema at `pointer`; the errors as text, or null when valid. */
export function schemaErrors(pointer: string, value: unknown): string | null {
  const validate = compiledSchema(pointer);
  return validate(value) ? null : ajv.errorsText(validate.errors);
}

/** Compiles the schema at `pointer` (throws when it is not a valid strict schema). */
export function compiledSchema(pointer: string) {
  const validate = ajv.getSchema(`${DOCUMENT_ID}#${locate(pointer)}`);
  if (!validate) throw new Error(`no schema at ${pointer}`);
  return validate;
}

/** Pointers of the body schemas of every response (of operations and shared responses). */
export function responseSchemaPointers(): string[] {
  const responsePointers = [
    ...[...documentedOperations().values()].flatMap((operation) =>
      Object.keys(resolved<OperationObject>(operation).responses ?? {}).map(
        (status) => `${operation}/responses/${status}`,
      ),
    ),
    ...Object.keys(openApiDocument.components.responses ?? {}).map(
      (name) => `/components/responses/${name}`,
    ),
  ];
  return responsePointers.flatMap((pointer) => {
    const location = locate(pointer);
    const content = resolved<ResponseObject>(location).content ?? {};
    return Object.keys(content).map((type) => `${location}/content/${escapePointer(type)}/schema`);
  });
}

/** Object schemas reachable from `pointer` that do not forbid undocumented properties. */
export function openObjects(pointer: string, seen = new Set<string>()): string[] {
  const location = locate(pointer);
  if (seen.has(location)) return [];
  seen.add(location);
  const schema = nodeAt(location) as Record<string, unknown>;
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const open: string[] = [];
  if ((schema.type === 'object' || schema.properties) && schema.additionalProperties !== false) {
    open.push(location);
  }
  for (const name of Object.keys(properties)) {
    open.push(...openObjects(`${location}/properties/${escapePointer(name)}`, seen));
  }
  if (schema.items) open.push(...openObjects(`${location}/items`, seen));
  for (const key of ['oneOf', 'anyOf', 'allOf']) {
    ((schema[key] as unknown[] | undefined) ?? []).forEach((_, index) => {
      open.push(...openObjects(`${location}/${key}/${index}`, seen));
    });
  }
  return open;
}

/** One request sent to the API and what came back. */
export interface Exchange {
  /** `METHOD /pattern` of the operation, or the name of a shared response for cross-cutting rules. */
  label: string;
  /** What was sent, for messages. */
  request: string;
  /** The JSON body sent, parsed, when there was a small one. */
  requestBody: unknown;
  status: number;
  headers: Headers;
  text: string;
}

/** Header values are text; integer headers (`Retry-After`...) are checked as numbers. */
function headerValue(header: HeaderObject, raw: string): unknown {
  return header.schema?.type === 'integer' && /^-?[0-9]+$/.test(raw) ? Number(raw) : raw;
}

/**
 * Everything in `exchange` that disagrees with the documented response at `pointer`: an
 * undocumented status, a required header missing, a header or body outside its schema, an
 * undocumented content type, or a body where none is documented.
 */
export function problemsWith(exchange: Exchange, pointer: string): string[] {
  const where = `${exchange.request} -> ${exchange.status}`;
  const location = locate(pointer);
  const response = nodeAt(location) as ResponseObject | undefined;
  if (!response) return [`${where}: status not documented`];
  const problems: string[] = [];

  for (const name of Object.keys(response.headers ?? {})) {
    const headerPointer = locate(`${location}/headers/${escapePointer(name)}`);
    const header = nodeAt(headerPointer) as HeaderObject;
    const raw = exchange.headers.get(name);
    if (raw === null) {
      if (header.required) problems.push(`${where}: required header ${name} missing`);
      continue;
    }
    const errors = schemaErrors(`${headerPointer}/schema`, headerValue(header, raw));
    if (errors) problems.push(`${where}: header ${name}: ${raw}: ${errors}`);
  }

  const contentType = exchange.headers.get('content-type');
  if (!response.content) {
    if (exchange.text !== '' || contentType !== null) {
      problems.push(`${where}: documented without a body, got ${contentType}: ${exchange.text}`);
    }
    return problems;
  }
  const essence = contentType?.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  if (!Object.hasOwn(response.content, essence)) {
    return [...problems, `${where}: content type ${contentType} not documented`];
  }
  const body = essence === 'application/json' ? JSON.parse(exchange.text) : exchange.text;
  const errors = schemaErrors(`${location}/content/${escapePointer(essence)}/schema`, body);
  if (errors) problems.push(`${where}: ${exchange.text}: ${errors}`);
  return problems;
}
