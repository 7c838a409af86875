import { MAX_BODY_BYTES } from './request-body.js';

const MIB = 1024 * 1024;

/** What a gzip ingest body may inflate to: 16 MiB of JSON. */
export const MAX_INFLATED_INGEST_BYTES = 16 * MIB;

/**
 * Bytes an ingest (`POST /v1/executions`) may have on the wire by default: 4 MiB, so that a
 * run of 50 000 files with 2 million lines of line data (1.5 MiB gzip) is taken, while JSON
 * like it (gzip about 6:1) meets the 16 MiB inflated bound first.
 */
export const DEFAULT_INGEST_BODY_BYTES = 4 * MIB;

/** The settable range of the ingest's wire limit: from every route's 1 MiB to the inflated 16 MiB. */
export const INGEST_BODY_BYTES_RANGE = { min: MAX_BODY_BYTES, max: MAX_INFLATED_INGEST_BYTES };

/** A wire limit of the ingest outside {@link INGEST_BODY_BYTES_RANGE}. */
export class InvalidIngestBodyLimitError extends Error {
  constructor(value: number) {
    super(
      `ingestBodyBytes must be a whole number of bytes from ${INGEST_BODY_BYTES_RANGE.min} (1 MiB) to ${INGEST_BODY_BYTES_RANGE.max} (16 MiB), not ${value}`,
    );
    this.name = 'InvalidIngestBodyLimitError';
  }
}

/**
 * The ingest's wire limit: `value`, or {@link DEFAULT_INGEST_BODY_BYTES} when unset.
 *
 * @throws InvalidIngestBodyLimitError outside {@link INGEST_BODY_BYTES_RANGE}
 */
export function resolveIngestBodyBytes(value: number | undefined): number {
  if (value === undefined) return DEFAULT_INGEST_BODY_BYTES;
  const { min, max } = INGEST_BODY_BYTES_RANGE;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InvalidIngestBodyLimitError(value);
  }
  return value;
}
