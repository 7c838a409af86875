import { parse } from 'yaml';
import { usageError } from '../errors.js';
import type { Policy } from './policy.js';

/** What `covgate config import` makes of a codecov.yml: the policy and what it could not convert. */
export interface CodecovImport {
  policy: Policy;
  /** Each key (dotted path) left out, with why. */
  notConverted: string[];
}

type Mapping = Record<string, unknown>;

const isMapping = (value: unknown): value is Mapping =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `80%`, `80`, `"80.5"` -> 80.5; `auto` and anything else -> undefined. */
function percent(value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
  const match = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  if (!match) return undefined;
  const n = Number(match[1]);
  return n >= 0 && n <= 100 ? n : undefined;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** A Codecov path (a folder, a file, or a glob) as a covgate glob: a folder gains `/**`. */
function glob(path: string): string {
  const clean = path.replace(/^\.\//, '').replace(/^\^/, '');
  if (/[*?[\]{}]/.test(clean)) return clean;
  if (clean.endsWith('/')) return `${clean}**`;
  // A last segment without a dot is taken as a folder (`vendor`, `src/gen`).
  return /\.[^/]+$/.test(clean) ? clean : `${clean}/**`;
}

const COMPONENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Converts the common subset of a codecov.yml (docs/policy.md, "From Codecov"): the `default`
 * project and patch statuses (target, threshold, informational), `ignore`,
 * `component_management` components, `codecov.branch` and `comment: false`. Every other key is
 * listed as not converted, never dropped silently.
 *
 * @throws CliError (exit 2) when the text is not YAML or not a mapping
 */
export function importCodecov(text: string, name: string): CodecovImport {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    throw usageError(`${name}: not YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (!isMapping(doc)) throw usageError(`${name}: not a mapping of keys`);
  const policy: Policy = {};
  const notConverted: string[] = [];
  const skip = (key: string, why: string) => notConverted.push(`${key}: ${why}`);

  for (const [key, value] of Object.entries(doc)) {
    if (key === 'coverage') convertCoverage(value, policy, skip);
    else if (key === 'ignore') {
      const paths = Array.isArray(value) ? value.filter((p) => typeof p === 'string') : [];
      if (paths.length > 0) policy.ignore = paths.map(glob);
    } else if (key === 'component_management') convertComponents(value, policy, skip);
    else if (key === 'codecov' && isMapping(value)) {
      for (const [sub, subValue] of Object.entries(value)) {
        if (sub === 'branch' && typeof subValue === 'string') policy.base_branch = subValue;
        else skip(`codecov.${sub}`, 'no covgate equivalent');
      }
    } else if (key === 'comment' && value === false) policy.comment = false;
    else if (key === 'flags' || key === 'flag_management') {
      skip(
        key,
        "flags become covgate's parts of sharded CI runs: list them by hand in parts.expect and parts.carryforward",
      );
    } else skip(key, 'no covgate equivalent');
  }
  return { policy, notConverted };
}

function convertCoverage(value: unknown, policy: Policy, skip: (k: string, w: string) => void) {
  if (!isMapping(value)) return skip('coverage', 'not a mapping');
  for (const [key, sub] of Object.entries(value)) {
    if (key !== 'status') {
      skip(`coverage.${key}`, 'no covgate equivalent');
      continue;
    }
    if (!isMapping(sub)) {
      skip('coverage.status', `${JSON.stringify(sub)}: only project and patch statuses convert`);
      continue;
    }
    for (const [kind, status] of Object.entries(sub)) {
      if (kind === 'project' || kind === 'patch') convertStatus(kind, status, policy, skip);
      else skip(`coverage.status.${kind}`, 'no covgate equivalent');
    }
  }
}

function convertStatus(
  kind: 'project' | 'patch',
  status: unknown,
  policy: Policy,
  skip: (k: string, w: string) => void,
) {
  const where = `coverage.status.${kind}`;
  if (!isMapping(status)) {
    return skip(where, `${JSON.stringify(status)}: covgate always applies its ${kind} rule`);
  }
  const names = Object.keys(status);
  const chosen = names.includes('default') ? 'default' : names.length === 1 ? names[0] : undefined;
  for (const other of names)
    if (other !== chosen) skip(`${where}.${other}`, 'one status per rule: only one converts');
  if (chosen === undefined) return;
  const rule = status[chosen];
  if (!isMapping(rule)) return;
  const at = `${where}.${chosen}`;
  const target = percent(rule.target);
  const threshold = percent(rule.threshold);
  const out: { target?: number; fail?: number; informational?: boolean } = {};
  for (const [key, v] of Object.entries(rule)) {
    if (key === 'target') {
      if (target === undefined) {
        if (kind === 'patch')
          skip(`${at}.target`, `${JSON.stringify(v)}: a patch target is a percentage`);
        // `auto` (compare with the base) is what the project's drop thresholds do.
      } else out.target = round2(Math.max(0, target - (threshold ?? 0)));
    } else if (key === 'threshold') {
      if (threshold === undefined)
        skip(`${at}.threshold`, `${JSON.stringify(v)}: not a percentage`);
      else if (target === undefined && kind === 'project') out.fail = Math.max(0.01, threshold);
      else if (target === undefined) skip(`${at}.threshold`, 'a patch has no drop threshold');
    } else if (key === 'informational' && typeof v === 'boolean') out.informational = v;
    else skip(`${at}.${key}`, 'no covgate equivalent');
  }
  if (kind === 'project') {
    const project = {
      ...(out.fail !== undefined ? { fail: out.fail } : {}),
      ...(out.target !== undefined ? { target: out.target } : {}),
      ...(out.informational !== undefined ? { informational: out.informational } : {}),
    };
    if (Object.keys(project).length > 0) policy.project = project;
  } else {
    const patch = {
      ...(out.target !== undefined ? { target: out.target } : {}),
      ...(out.informational !== undefined ? { informational: out.informational } : {}),
    };
    if (Object.keys(patch).length > 0) policy.patch = patch;
  }
}

function convertComponents(value: unknown, policy: Policy, skip: (k: string, w: string) => void) {
  if (!isMapping(value)) return skip('component_management', 'not a mapping');
  for (const [key, sub] of Object.entries(value)) {
    if (key !== 'individual_components' || !Array.isArray(sub)) {
      skip(`component_management.${key}`, 'per-component statuses do not convert');
      continue;
    }
    const components: Record<string, string[]> = {};
    // Where each component_id was first listed, so that a repeat is named rather than lost.
    const firstAt = new Map<string, { index: number; name: unknown }>();
    for (const [index, component] of (sub as unknown[]).entries()) {
      const at = `component_management.individual_components[${index}]`;
      if (!isMapping(component)) {
        skip(at, 'not a mapping');
        continue;
      }
      const id = String(component.component_id ?? '');
      const paths = ([] as unknown[])
        .concat(component.paths ?? [])
        .filter((p) => typeof p === 'string') as string[];
      if (!COMPONENT.test(id)) {
        skip(at, `component_id ${JSON.stringify(id)} is not a covgate component name`);
        continue;
      }
      if (paths.length === 0) {
        skip(at, 'no paths');
        continue;
      }
      const first = firstAt.get(id);
      if (first !== undefined) {
        const named = typeof first.name === 'string' ? ` (${JSON.stringify(first.name)})` : '';
        skip(
          at,
          `component_id ${JSON.stringify(id)} repeats individual_components[${first.index}]${named}: its paths ${paths.join(', ')} are not converted; give it a name of its own`,
        );
        continue;
      }
      firstAt.set(id, { index, name: component.name });
      components[id] = paths.map(glob);
      for (const extra of Object.keys(component)) {
        if (!['component_id', 'paths', 'name'].includes(extra))
          skip(`${at}.${extra}`, 'per-component settings do not convert');
      }
    }
    if (Object.keys(components).length > 0) policy.components = components;
  }
}
