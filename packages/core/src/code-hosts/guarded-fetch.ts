import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import {
  addressesOf,
  type CodeHostAddressPolicy,
  firstRefused,
  type HostResolver,
} from './code-host-address.js';

/** Words for the ranges {@link CodeHostAddressPolicy} refuses, for messages people read. */
const RANGE_WORDS: Record<string, string> = {
  loopback: 'loopback',
  private: 'private',
  uniqueLocal: 'private',
  linkLocal: 'link-local',
  unspecified: 'unspecified',
  carrierGradeNat: 'carrier-grade NAT',
};

/**
 * A connection refused because the code host's address is not public: the request never left
 * the process. Its message names the host and the kind of address, never the address itself.
 */
export class CodeHostAddressError extends Error {
  /** Reported like a network error code. */
  readonly code = 'ECODEHOSTADDRESS';

  constructor(
    readonly hostname: string,
    readonly range: string,
  ) {
    super(
      `${hostname} is or resolves to a ${RANGE_WORDS[range] ?? 'non-public'} address (refused unless ALLOW_PRIVATE_CODE_HOSTS allows it)`,
    );
    this.name = 'CodeHostAddressError';
  }
}

type LookupCallback = Parameters<LookupFunction>[2];

function familyOf(options: LookupOptions): number {
  const { family } = options;
  if (family === 'IPv4') return 4;
  if (family === 'IPv6') return 6;
  return family ?? 0;
}

function notFound(hostname: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
  error.code = 'ENOTFOUND';
  return error;
}

/**
 * A `lookup` for `net.connect`: resolves the name, refuses the connection
 * ({@link CodeHostAddressError}) when any of its addresses is refused by `policy`, and
 * otherwise hands over only the addresses it checked, so the socket connects to one of them
 * (a name that resolves differently a moment later, DNS rebinding, changes nothing).
 */
export function guardedLookup(
  policy: CodeHostAddressPolicy,
  resolve: HostResolver,
): LookupFunction {
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    addressesOf(hostname, resolve).then(
      (addresses) => {
        const refused = firstRefused(addresses, policy);
        if (refused !== null) {
          callback(new CodeHostAddressError(hostname, refused.range), '', 0);
          return;
        }
        const family = familyOf(options);
        const usable = addresses.filter((address) => family === 0 || isIP(address) === family);
        const [first] = usable;
        if (first === undefined) {
          callback(notFound(hostname), '', 0);
          return;
        }
        if (options.all) {
          const all: LookupAddress[] = usable.map((address) => ({
            address,
            family: isIP(address),
          }));
          callback(null, all);
          return;
        }
        callback(null, first, isIP(first));
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** What {@link createGuardedFetch} needs. */
export interface GuardedFetchOptions {
  policy: CodeHostAddressPolicy;
  /** Default: the system resolver. */
  resolve: HostResolver;
}

/**
 * A `fetch` (undici's, loaded on first use) whose every connection, redirects included, goes
 * to an address `policy` allows: a host given as an IP literal is checked before connecting,
 * a name through {@link guardedLookup}.
 */
export function createGuardedFetch(options: GuardedFetchOptions): typeof fetch {
  let guarded: Promise<typeof fetch> | undefined;
  const load = async (): Promise<typeof fetch> => {
    const undici = await import('undici');
    const connectThroughLookup = undici.buildConnector({
      lookup: guardedLookup(options.policy, options.resolve),
    });
    const agent = new undici.Agent({
      connect: (connectOptions, callback) => {
        // undici hands over an IPv6 literal without its brackets (`::1`, not `[::1]`); one
        // with brackets would not be an IP and would fail in the lookup: refused either way.
        const host = connectOptions.hostname;
        if (isIP(host) !== 0) {
          const verdict = options.policy.check(host);
          if (!verdict.allowed) {
            callback(new CodeHostAddressError(host, verdict.range), null);
            return;
          }
        }
        connectThroughLookup(connectOptions, callback);
      },
    });
    return ((
      input: Parameters<typeof undici.fetch>[0],
      init?: Parameters<typeof undici.fetch>[1],
    ) => undici.fetch(input, { ...init, dispatcher: agent })) as unknown as typeof fetch;
  };
  return async (input, init) => {
    guarded ??= load();
    return (await guarded)(input, init);
  };
}
