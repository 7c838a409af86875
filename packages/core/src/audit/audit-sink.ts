import { type AuditEvent, formatAuditLine } from './audit-line.js';

/** Where audit lines go. `line` is one complete line without its trailing newline. */
export interface AuditSink {
  write(line: string): void;
}

/** Writes each audit line, followed by `\n`, to the process's standard output. */
export const stdoutAuditSink: AuditSink = {
  write(line: string): void {
    process.stdout.write(`${line}\n`);
  },
};

/** An {@link AuditSink} that keeps the lines in memory, oldest first; for tests. */
export function createMemoryAuditSink(): AuditSink & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    write(line: string): void {
      lines.push(line);
    },
  };
}

/** Records audit events as lines. */
export interface AuditLogger {
  /** Formats the event with {@link formatAuditLine} and writes it; a throwing sink throws. */
  record(event: AuditEvent): void;
}

/** Creates an {@link AuditLogger} writing to `sink`. */
export function createAuditLogger(sink: AuditSink): AuditLogger {
  return {
    record(event: AuditEvent): void {
      sink.write(formatAuditLine(event));
    },
  };
}
