import pino from 'pino';

/** Pending characters past which lines are written at once instead of at the end of the turn. */
const MAX_PENDING_CHARS = 64 * 1024;

/**
 * A pino destination that collects the lines of one event-loop turn and writes them with
 * one synchronous write. See {@link batchedLogDestination}.
 */
export interface BatchedLogDestination {
  /** Queues one line (pino passes it with its trailing newline). */
  write(line: string): void;
  /** Writes every queued line now. */
  flushSync(): void;
  /** Writes every queued line now, then calls `callback` (pino's `logger.flush`). */
  flush(callback?: (error?: Error) => void): void;
}

/** Destinations whose lines must be written before the process exits. */
const unflushed = new Set<WeakRef<BatchedLogDestination>>();
let exitHookInstalled = false;

function flushAllOnExit(): void {
  for (const ref of unflushed) {
    try {
      ref.deref()?.flushSync();
    } catch {
      // A closed stdout at exit: nothing left to tell, and the exit code must stay the one given.
    }
  }
}

function keepForExit(destination: BatchedLogDestination): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', flushAllOnExit);
  }
  if (unflushed.size >= 64) {
    for (const ref of unflushed) if (ref.deref() === undefined) unflushed.delete(ref);
  }
  unflushed.add(new WeakRef(destination));
}

/**
 * A pino destination for busy servers: the lines logged during one event-loop turn (for
 * example the access lines of every request a burst of readable sockets completed) are
 * written together once the turn ends (`setImmediate`), with one synchronous write through
 * pino's own destination (`sync: true`, which handles partial writes and `EAGAIN`). A line
 * therefore reaches the file at most one turn late, in the order it was logged; more than
 * 64 Ki characters pending are written at once. Queued lines are written when the process
 * exits (`process.on('exit')`, which also runs after an uncaught exception); a `SIGKILL`
 * loses at most the current turn's lines.
 *
 * pino's asynchronous destination costs about 6 µs of the main thread per line (it
 * re-measures the growing pending buffer on every line) and the synchronous one a write
 * system call per line; this one costs about one system call per turn.
 *
 * @param dest - A file descriptor (default 1, standard output) or a file path.
 */
export function batchedLogDestination(dest: number | string = 1): BatchedLogDestination {
  const target = pino.destination({ dest, sync: true });
  let pending: string[] = [];
  let pendingChars = 0;
  let scheduled = false;

  const destination: BatchedLogDestination = {
    write(line) {
      pending.push(line);
      pendingChars += line.length;
      if (pendingChars >= MAX_PENDING_CHARS) destination.flushSync();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flushAtEndOfTurn);
      }
    },
    flushSync() {
      if (pending.length === 0) return;
      const text = pending.join('');
      pending = [];
      pendingChars = 0;
      target.write(text);
    },
    flush(callback) {
      try {
        destination.flushSync();
      } catch (error) {
        callback?.(error as Error);
        return;
      }
      callback?.();
    },
  };
  function flushAtEndOfTurn() {
    scheduled = false;
    destination.flushSync();
  }
  keepForExit(destination);
  return destination;
}
