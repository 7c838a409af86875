import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which non-public addresses code-host requests may reach (`ALLOW_PRIVATE_CODE_HOSTS`): none
 * (`false`, the default), all (`true`, for a self-managed GitHub Enterprise on a private
 * network), or the listed addresses and CIDR ranges (a comma-separated string or a list).
 */
export type PrivateCodeHostAllowance = boolean | string | readonly string[];

/** A code-host setting naming something that is not an IP address or a CIDR range. */
export class InvalidCodeHostAllowanceError extends Error {
  constructor(readonly entry: string) {
    super(`ALLOW_PRIVATE_CODE_HOSTS: "${entry}" is not an IP address or CIDR range`);
    this.name = 'InvalidCodeHostAllowanceError';
  }
}

/** Whether an address may be reached, and the kind of range that forbids it when not. */
export type AddressVerdict = { allowed: true } | { allowed: false; range: string };

/** Decides which addresses code-host requests (the outbox, link checks) may reach. */
export interface CodeHostAddressPolicy {
  /** The verdict on one IP address (any form `ipaddr.js` reads); not an address: refused. */
  check(address: string): AddressVerdict;
}

/** Resolves a host name to all its addresses (the system resolver by default). */
export type HostResolver = (hostname: string) => Promise<readonly string[]>;

/** The system resolver (`getaddrinfo`, `/etc/hosts` included): every address of the name. */
export const systemResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

function parseAllowance(allowance: PrivateCodeHostAllowance | undefined): Range[] | 'all' {
  if (allowance === true) return 'all';
  if (allowance === undefined || allowance === false) return [];
  const entries = typeof allowance === 'string' ? allowance.split(',') : [...allowance];
  return entries
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      try {
        if (entry.includes('/')) return ipaddr.parseCIDR(entry);
        const address = ipaddr.parse(entry);
        return [address, address.kind() === 'ipv4' ? 32 : 128] as Range;
      } catch {
        throw new InvalidCodeHostAllowanceError(entry);
      }
    })
    .map(([address, bits]): Range => {
      // An IPv4-mapped range is the IPv4 range (addresses are compared after the same step).
      // Only an IPv6 range has 96 bits or more.
      if (bits >= 96) {
        const v6 = address as ipaddr.IPv6;
        if (v6.isIPv4MappedAddress()) return [v6.toIPv4Address(), bits - 96];
      }
      return [address, bits];
    });
}

/** The range that makes an address non-public, or null for a public (global unicast) one. */
function nonPublicRange(address: ipaddr.IPv4 | ipaddr.IPv6): string | null {
  const range = address.range();
  if (range !== 'unicast') return range;
  // IPv4-compatible IPv6 (`::a.b.c.d`, deprecated): not a range `ipaddr.js` names. Parsed
  // here, not when the module loads, so no mistake in it can stop the module from loading.
  if (address.kind() === 'ipv6' && address.match(ipaddr.IPv6.parse('::'), 96)) {
    return 'ipv4Compatible';
  }
  return null;
}

/**
 * The policy of code-host addresses: a public (global unicast) address is allowed; loopback,
 * private (RFC 1918, `fc00::/7`), link-local (`169.254.0.0/16`, cloud metadata services
 * included, `fe80::/10`), unspecified, carrier-grade NAT (`100.64.0.0/10`), multicast,
 * documentation, NAT64 and the other special ranges are refused unless `allowance` allows them.
 * An IPv4-mapped IPv6 address is judged as its IPv4 address.
 *
 * @throws InvalidCodeHostAllowanceError for an allowance entry that is not an address or range.
 */
export function createCodeHostAddressPolicy(
  allowance?: PrivateCodeHostAllowance,
): CodeHostAddressPolicy {
  const allowed = parseAllowance(allowance);
  return {
    check(text) {
      let address: ipaddr.IPv4 | ipaddr.IPv6;
      try {
        address = ipaddr.process(text);
      } catch {
        return { allowed: false, range: 'invalid' };
      }
      const range = nonPublicRange(address);
      if (range === null || allowed === 'all') return { allowed: true };
      const listed = allowed.some(
        ([network, bits]) => network.kind() === address.kind() && address.match(network, bits),
      );
      return listed ? { allowed: true } : { allowed: false, range };
    },
  };
}

/** A host name that always means this machine (RFC 6761): `localhost` and its subdomains. */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * A host as a resolver or `isIP` takes it: an IPv6 literal without its brackets (`[::1]` is
 * `::1`). A parsed URL's host starts with `[` only as an IPv6 literal, which ends with `]`.
 */
export function unbracketed(host: string): string {
  return host.startsWith('[') ? host.slice(1, -1) : host;
}

/** The host of a URL as a resolver or `isIP` takes it: an IPv6 literal without brackets. */
export function hostOf(url: URL): string {
  return unbracketed(url.hostname);
}

/**
 * Every address `hostname` stands for: itself for an IP literal, loopback for a localhost
 * name (never asked of the resolver), else what `resolve` answers.
 */
export async function addressesOf(
  hostname: string,
  resolve: HostResolver,
): Promise<readonly string[]> {
  if (isIP(hostname) !== 0) return [hostname];
  if (isLocalhostName(hostname)) return ['127.0.0.1', '::1'];
  return resolve(hostname);
}

/** The first refused address of a list, with its verdict, or null when all are allowed. */
export function firstRefused(
  addresses: readonly string[],
  policy: CodeHostAddressPolicy,
): { address: string; range: string } | null {
  for (const address of addresses) {
    const verdict = policy.check(address);
    if (!verdict.allowed) return { address, range: verdict.range };
  }
  return null;
}

/** How long a link waits for its host name to resolve before storing it unchecked. */
export const LINK_RESOLVE_TIMEOUT_MS = 2_000;

/**
 * The verdict on a code-host URL when it is linked: its host (an IP literal, a localhost name,
 * or every address the name resolves to now) checked by `policy`. A name that does not
 * resolve, or not within `timeoutMs`, is allowed: the check at every connection decides then.
 */
export async function checkCodeHostUrl(
  url: URL,
  policy: CodeHostAddressPolicy,
  resolve: HostResolver,
  timeoutMs = LINK_RESOLVE_TIMEOUT_MS,
): Promise<AddressVerdict> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const gaveUp = new Promise<readonly string[]>((done) => {
    timer = setTimeout(() => done([]), timeoutMs);
  });
  try {
    const addresses = await Promise.race([
      addressesOf(hostOf(url), resolve).catch(() => [] as readonly string[]),
      gaveUp,
    ]);
    const refused = firstRefused(addresses, policy);
    return refused === null ? { allowed: true } : { allowed: false, range: refused.range };
  } finally {
    clearTimeout(timer);
  }
}
