// Renders docs/openapi.yaml as Markdown pages of the site: one page per tag, one section per
// operation (parameters, request body, every response with its headers and an example).
// Examples come from openapi-sampler (the sampler Redoc uses); the Markdown layout is ours
// because the site's search index and link checker need real pages, not client-side widgets.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { slug as headingAnchor } from 'github-slugger';
import { sample } from 'openapi-sampler';
import { parse } from 'yaml';

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'];

/** Resolves a local `$ref` (`#/components/...`) against the document. */
function resolve(document, node) {
  let current = node;
  const seen = new Set();
  while (current && typeof current === 'object' && typeof current.$ref === 'string') {
    if (seen.has(current.$ref)) throw new Error(`circular $ref ${current.$ref}`);
    seen.add(current.$ref);
    const path = current.$ref.replace(/^#\//, '').split('/');
    let target = document;
    for (const part of path) target = target?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (target === undefined) throw new Error(`unresolved $ref ${current.$ref}`);
    current = target;
  }
  return current;
}

/**
 * Re-flows a YAML description: lines of a paragraph are joined (a wrapped line starting with
 * `<value>` would otherwise read as HTML), list items and blank lines are kept.
 */
function prose(text) {
  return String(text ?? '')
    .trim()
    .split(/\n\s*\n/)
    .map((block) =>
      block
        .split('\n')
        .reduce((lines, line) => {
          const trimmed = line.trim();
          if (/^([-*]|\d+\.)\s/.test(trimmed) || lines.length === 0) lines.push(trimmed);
          else lines[lines.length - 1] += ` ${trimmed}`;
          return lines;
        }, [])
        .join('\n'),
    )
    .join('\n\n');
}

function cell(text) {
  return String(text ?? '')
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();
}

function schemaType(document, schema) {
  const resolved = resolve(document, schema ?? {});
  if (resolved.const !== undefined) return `\`${JSON.stringify(resolved.const)}\``;
  if (resolved.enum) return resolved.enum.map((value) => `\`${JSON.stringify(value)}\``).join(', ');
  if (resolved.type === 'array') return `array of ${schemaType(document, resolved.items)}`;
  if (Array.isArray(resolved.type)) return resolved.type.join(' or ');
  if (resolved.oneOf || resolved.anyOf) {
    return (resolved.oneOf ?? resolved.anyOf)
      .map((part) => schemaType(document, part))
      .join(' or ');
  }
  return resolved.type ?? 'any';
}

function constraints(schema) {
  const parts = [];
  if (schema.default !== undefined) parts.push(`default \`${JSON.stringify(schema.default)}\``);
  if (schema.minimum !== undefined) parts.push(`min ${schema.minimum}`);
  if (schema.maximum !== undefined) parts.push(`max ${schema.maximum}`);
  if (schema.minLength !== undefined) parts.push(`min length ${schema.minLength}`);
  if (schema.maxLength !== undefined) parts.push(`max length ${schema.maxLength}`);
  if (schema.pattern !== undefined) parts.push(`pattern \`${schema.pattern}\``);
  if (schema.format !== undefined) parts.push(`format ${schema.format}`);
  return parts.join(', ');
}

function exampleOf(document, schema) {
  const resolved = resolve(document, schema);
  return sample(resolved, { skipReadOnly: false, skipNonRequired: false, quiet: true }, document);
}

function jsonBlock(value) {
  return ['```json', JSON.stringify(value, null, 2), '```'];
}

function fieldsTable(document, schema) {
  const resolved = resolve(document, schema);
  if (resolved.type !== 'object' || !resolved.properties) return [];
  const required = new Set(resolved.required ?? []);
  const lines = ['| field | type | required | notes |', '|---|---|---|---|'];
  for (const [name, property] of Object.entries(resolved.properties)) {
    const field = resolve(document, property);
    const notes = [field.description, constraints(field)].filter(Boolean).join(' ');
    lines.push(
      `| \`${name}\` | ${cell(schemaType(document, field))} | ${required.has(name) ? 'yes' : 'no'} | ${cell(notes)} |`,
    );
  }
  return lines;
}

function securityLine(document, operation) {
  const requirements = operation.security ?? document.security ?? [];
  if (requirements.length === 0) return 'none';
  return requirements
    .map((requirement) => {
      const names = Object.keys(requirement);
      return names.length === 0
        ? 'none (optional)'
        : names.map((name) => `\`${name}\``).join(' + ');
    })
    .join(' or ');
}

function parametersTable(document, parameters) {
  if (parameters.length === 0) return [];
  const lines = [
    '**Parameters**',
    '',
    '| name | in | type | required | description |',
    '|---|---|---|---|---|',
  ];
  for (const parameter of parameters) {
    const schema = resolve(document, parameter.schema ?? {});
    const notes = [parameter.description, constraints(schema)].filter(Boolean).join(' ');
    lines.push(
      `| \`${parameter.name}\` | ${parameter.in} | ${cell(schemaType(document, schema))} | ${parameter.required ? 'yes' : 'no'} | ${cell(notes)} |`,
    );
  }
  lines.push('');
  return lines;
}

function requestBodySection(document, operation) {
  if (!operation.requestBody) return [];
  const body = resolve(document, operation.requestBody);
  const lines = [`**Request body** (${body.required ? 'required' : 'optional'})`, ''];
  for (const [mediaType, content] of Object.entries(body.content ?? {})) {
    lines.push(`\`${mediaType}\``, '');
    if (content.schema) {
      const table = fieldsTable(document, content.schema);
      if (table.length > 0) lines.push(...table, '');
      lines.push(
        'Example:',
        '',
        ...jsonBlock(content.example ?? exampleOf(document, content.schema)),
        '',
      );
    }
  }
  return lines;
}

function errorExamples(document, schema) {
  const resolved = resolve(document, schema);
  const error = resolve(document, resolved.properties?.error ?? {});
  if (resolved.type === 'object' && Array.isArray(error.enum)) {
    return error.enum.map((message) => ({ error: message }));
  }
  return null;
}

function responseSection(document, status, responseNode) {
  const response = resolve(document, responseNode);
  const lines = [`#### ${status}`, '', cell(response.description), ''];
  const headers = Object.entries(response.headers ?? {}).map(([name, header]) => [
    name,
    resolve(document, header),
  ]);
  if (headers.length > 0) {
    lines.push('| header | description |', '|---|---|');
    for (const [name, header] of headers)
      lines.push(`| \`${name}\` | ${cell(header.description)} |`);
    lines.push('');
  }
  for (const [mediaType, content] of Object.entries(response.content ?? {})) {
    lines.push(`\`${mediaType}\``, '');
    if (!content.schema) continue;
    const errors = errorExamples(document, content.schema);
    if (errors) {
      for (const example of errors) lines.push(...jsonBlock(example), '');
    } else if (mediaType.includes('json')) {
      lines.push(...jsonBlock(content.example ?? exampleOf(document, content.schema)), '');
    } else {
      lines.push(
        cell(resolve(document, content.schema).description ?? schemaType(document, content.schema)),
        '',
      );
    }
  }
  return lines;
}

function operationSection(document, path, method, operation, pathItem) {
  const title = `${method.toUpperCase()} ${path}`;
  const parameters = [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])].map((p) =>
    resolve(document, p),
  );
  const lines = [
    `## ${title}`,
    '',
    `**${cell(operation.summary)}**${operation.deprecated ? ' (deprecated)' : ''}`,
    '',
    prose(operation.description),
    '',
    `Credentials: ${securityLine(document, operation)}.`,
    '',
    ...parametersTable(document, parameters),
    ...requestBodySection(document, operation),
    '### Responses',
    '',
  ];
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    lines.push(...responseSection(document, status, response));
  }
  return { title, lines };
}

/** Groups the document's operations by their first tag, in the order of `tags`. */
function operationsByTag(document) {
  const groups = new Map((document.tags ?? []).map((tag) => [tag.name, { tag, operations: [] }]));
  for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (!operation) continue;
      const name = operation.tags?.[0] ?? 'other';
      if (!groups.has(name)) groups.set(name, { tag: { name }, operations: [] });
      groups.get(name).operations.push({ path, method, operation, pathItem });
    }
  }
  return [...groups.values()].filter((group) => group.operations.length > 0);
}

function securitySchemesPage(document) {
  const lines = [
    '# Credentials',
    '',
    'How each route is authenticated (`Credentials:` lines refer to these names).',
    '',
  ];
  for (const [name, scheme] of Object.entries(document.components?.securitySchemes ?? {})) {
    const how =
      scheme.type === 'http'
        ? `HTTP \`${scheme.scheme}\``
        : `${scheme.type} in ${scheme.in} \`${scheme.name}\``;
    lines.push(
      `## ${name}`,
      '',
      `${how}${scheme.bearerFormat ? `, format ${scheme.bearerFormat}` : ''}.`,
      '',
    );
    if (scheme.description) lines.push(prose(scheme.description), '');
  }
  return lines.join('\n');
}

/**
 * Writes the HTTP reference into `outDir` and returns the sidebar entries for it.
 * @param {string} specPath path of openapi.yaml
 * @param {string} outDir folder of the generated pages (emptied first)
 * @param {string} base site path of that folder, e.g. `/reference/http/`
 */
export async function writeHttpReference(specPath, outDir, base) {
  const document = parse(await readFile(specPath, 'utf8'));
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const groups = operationsByTag(document);
  const sidebar = [
    { text: 'Overview', link: base },
    { text: 'Credentials', link: `${base}credentials` },
  ];
  const overview = [
    `# HTTP API reference`,
    '',
    `Generated from [\`openapi.yaml\`](/openapi.yaml) (OpenAPI ${document.openapi}, API version ${document.info.version}) by the docs build. `,
    'The same contract in prose, with the order of every check, is the [API reference](../../api-reference.md).',
    '',
    prose(document.info.description),
    '',
    '| route | summary | page |',
    '|---|---|---|',
  ];
  for (const { tag, operations } of groups) {
    const page = `${tag.name}.md`;
    const lines = [`# ${tag.name}`, '', prose(tag.description), ''];
    for (const { path, method, operation, pathItem } of operations) {
      const section = operationSection(document, path, method, operation, pathItem);
      lines.push(...section.lines);
      overview.push(
        `| [\`${section.title}\`](./${tag.name}.md#${headingAnchor(section.title)}) | ${cell(operation.summary)} | ${tag.name} |`,
      );
    }
    await writeFile(join(outDir, page), `${lines.join('\n')}\n`);
    sidebar.push({ text: tag.name, link: `${base}${tag.name}` });
  }
  await writeFile(join(outDir, 'index.md'), `${overview.join('\n')}\n`);
  await writeFile(join(outDir, 'credentials.md'), `${securitySchemesPage(document)}\n`);
  return sidebar;
}
