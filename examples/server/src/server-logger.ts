import type { AuditSink } from '@covgate/core';
import { batchedLogDestination } from '@covgate/core/internal';
import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

/** Fields pino-pretty leaves out of a development line (the message carries what matters). */
const HIDDEN = 'time,level,pid,hostname';

/** A development line: the message alone at `info` (so `[audit] ...` lines read as docs/audit-log.md shows them), else prefixed by the level. */
function developmentMessage(log: Record<string, unknown>, messageKey: string, levelLabel: string) {
  const message = String(log[messageKey] ?? '');
  const level = pino.levels.labels[Number(log.level)] ?? levelLabel;
  return level === 'info' ? message : `${level.toUpperCase()} ${message}`;
}

/**
 * Whether the log is written for people: only in development (`NODE_ENV` unset, empty or
 * `development`). Production, test and any other environment get JSON for log pipelines.
 */
export function readableLogs(nodeEnv: string | undefined): boolean {
  return nodeEnv === undefined || nodeEnv === '' || nodeEnv === 'development';
}

/**
 * The reference server's one log stream, on stdout. `readable: false` (production): every
 * line is pino's JSON. `readable: true` (development): lines through pino-pretty, with
 * `[audit] ...` lines printed exactly as their text. `destination` replaces stdout (tests).
 */
export function createServerLogger(options: {
  readable: boolean;
  destination?: DestinationStream;
}): Logger {
  if (!options.readable) {
    return pino({ base: null }, options.destination ?? batchedLogDestination(1));
  }
  return pino(
    { base: null },
    pretty({
      ignore: HIDDEN,
      hideObject: false,
      singleLine: true,
      colorize: false,
      sync: true,
      messageFormat: developmentMessage,
      ...(options.destination ? { destination: options.destination } : { destination: 1 }),
    }),
  );
}

/** Routes core's audit lines into the server's log: each one is the `msg` of an `info` line. */
export function loggerAuditSink(logger: Logger): AuditSink {
  return { write: (line) => logger.info(line) };
}
