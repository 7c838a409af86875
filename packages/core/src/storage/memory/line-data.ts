/**
 * The memory store's line data of runs: the bytes each run's ingest gave, by execution id,
 * with the organisation that owns them (another organisation's read finds nothing).
 */
export class MemoryLineData {
  readonly #byExecution = new Map<string, { orgId: string; lines: Uint8Array }>();

  /** Keeps a copy of `lines` for the run; nothing when the run sent none. */
  put(orgId: string, executionId: string, lines: Uint8Array | null | undefined): void {
    if (lines) this.#byExecution.set(executionId, { orgId, lines: new Uint8Array(lines) });
  }

  /** A copy of the run's line data, or null when it has none or belongs to another organisation. */
  find(orgId: string, executionId: string): Uint8Array | null {
    const stored = this.#byExecution.get(executionId);
    return stored && stored.orgId === orgId ? new Uint8Array(stored.lines) : null;
  }

  /** The size in bytes of the organisation's run's line data, or null when it has none. */
  size(orgId: string, executionId: string): number | null {
    const stored = this.#byExecution.get(executionId);
    return stored && stored.orgId === orgId ? stored.lines.byteLength : null;
  }

  /** Forgets the organisation's run's line data. */
  delete(orgId: string, executionId: string): void {
    if (this.size(orgId, executionId) !== null) this.#byExecution.delete(executionId);
  }
}
