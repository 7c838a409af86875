import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createAuditLogger,
  createMemoryAuditSink,
  stdoutAuditSink,
} from '../../src/audit/audit-sink.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('audit sinks', () => {
  it('keeps memory lines in the order they were written', () => {
    const sink = createMemoryAuditSink();
    sink.write('[audit] token.revoke token_id=a');
    sink.write('[audit] token.revoke token_id=b');
    expect(sink.lines).toEqual([
      '[audit] token.revoke token_id=a',
      '[audit] token.revoke token_id=b',
    ]);
  });

  it('writes one line followed by a newline to stdout, in a single write', () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    stdoutAuditSink.write('[audit] session.delete session_id=ses_1');
    expect(write).toHaveBeenCalledTimes(1);
    expect(write).toHaveBeenCalledWith('[audit] session.delete session_id=ses_1\n');
  });
});

describe('createAuditLogger', () => {
  it('records each event as its formatted line', () => {
    const sink = createMemoryAuditSink();
    const audit = createAuditLogger(sink);
    audit.record({ type: 'token.rotate', oldId: 'old', newId: 'new' });
    audit.record({ type: 'session.create.denied', remote: '203.0.113.9' });
    expect(sink.lines).toEqual([
      '[audit] token.rotate old_id=old new_id=new',
      '[audit] session.create.denied reason=invalid_service_token remote=203.0.113.9',
    ]);
  });

  it('lets a failing sink throw, so a lost audit line is never silent', () => {
    const audit = createAuditLogger({
      write() {
        throw new Error('disk full');
      },
    });
    expect(() => audit.record({ type: 'token.revoke', tokenId: 'abc' })).toThrow('disk full');
  });
});
