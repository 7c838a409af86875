/** Settings of {@link createInflationBudget}. */
export interface InflationBudgetOptions {
  /**
   * Inflated bytes that all gzip bodies being inflated at once may hold together. Default
   * {@link DEFAULT_INFLATION_BUDGET_BYTES}. Keep it at least the largest body one request may
   * inflate (16 MiB on `POST /v1/executions`), or such a body is never accepted.
   */
  maxBytes?: number;
  /**
   * Told once when inflations start being refused and once when half the budget is free
   * again (with how many were refused), so an overload writes two log lines, not one per
   * refused request.
   */
  onOverload?: (
    state: 'started' | 'ended',
    load: { bytesInUse: number; inflations: number; refused: number },
  ) => void;
}

/** 64 MiB: four ingests inflating their whole 16 MiB at once. */
export const DEFAULT_INFLATION_BUDGET_BYTES = 64 * 1024 * 1024;

/**
 * The memory that gzip request bodies inflating at the same time may take together: each
 * inflation takes bytes as its output comes and gives them back once its body is parsed or
 * refused. Without it 64 concurrent 16 MiB bombs held a gigabyte at once.
 */
export interface InflationBudget {
  /** Starts an inflation: counts it until {@link InflationClaim.release}. */
  claim(): InflationClaim;
  /** Bytes held now by inflations in progress. */
  bytesInUse(): number;
}

/** One inflation's share of the {@link InflationBudget}. */
export interface InflationClaim {
  /** Takes `bytes` more; false (nothing taken) when the budget has fewer left. */
  take(bytes: number): boolean;
  /** Gives back everything this inflation took; later calls do nothing. */
  release(): void;
}

/** Creates an {@link InflationBudget}. @throws RangeError for a non-positive or non-integer size. */
export function createInflationBudget(options: InflationBudgetOptions = {}): InflationBudget {
  const maxBytes = options.maxBytes ?? DEFAULT_INFLATION_BUDGET_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes < 1) {
    throw new RangeError('the inflation budget must be a positive integer of bytes');
  }
  let inUse = 0;
  let inflations = 0;
  let refused = 0;

  const refuse = (): false => {
    if (refused === 0) options.onOverload?.('started', { bytesInUse: inUse, inflations, refused });
    refused += 1;
    return false;
  };
  const giveBack = (bytes: number): void => {
    inUse -= bytes;
    if (refused > 0 && inUse <= maxBytes / 2) {
      options.onOverload?.('ended', { bytesInUse: inUse, inflations, refused });
      refused = 0;
    }
  };

  return {
    claim() {
      let held = 0;
      let released = false;
      inflations += 1;
      return {
        take(bytes) {
          if (released) return false;
          if (inUse + bytes > maxBytes) return refuse();
          inUse += bytes;
          held += bytes;
          return true;
        },
        release() {
          if (released) return;
          released = true;
          inflations -= 1;
          giveBack(held);
          held = 0;
        },
      };
    },
    bytesInUse: () => inUse,
  };
}
