/**
 * One pass at a time across the processes of a deployment: runs `work` when this process
 * holds the lock, else answers null at once. `work`'s signal aborts when the lock is lost.
 */
export interface RetentionLock {
  runAlone<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T | null>;
  dispose(): Promise<void>;
}
