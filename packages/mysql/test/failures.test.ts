import { errorCode, failureLine, redact } from '@covgate/core/storage-kit';
import { describe, expect, it } from 'vitest';
import { DEADLOCK_ATTEMPTS, retryDeadlocks } from '../src/deadlock-retry.js';
import { isDuplicateKey } from '../src/failures.js';

/** A mysql2 error as drizzle throws it: wrapped, the SQL and its parameters in the message. */
function drizzleWrapped(driver: { code: string; errno: number; message: string }): Error {
  const cause = Object.assign(new Error(driver.message), driver);
  return new Error('Failed query: select * from `tokens` where `id` = ?\nparams: cvg_abc', {
    cause,
  });
}

const deadlock = () =>
  drizzleWrapped({ code: 'ER_LOCK_DEADLOCK', errno: 1213, message: 'Deadlock found' });

describe('failureLine', () => {
  it("logs the driver's code and message, never drizzle's query text", () => {
    const error = drizzleWrapped({
      code: 'ER_LOCK_WAIT_TIMEOUT',
      errno: 1205,
      message: 'Lock wait timeout exceeded; try restarting transaction',
    });

    expect(failureLine('tokens', 'findTokenById', error, [])).toBe(
      '[tokens] findTokenById failed: ER_LOCK_WAIT_TIMEOUT: Lock wait timeout exceeded; try restarting transaction',
    );
  });

  it('redacts the password and the URL wherever the driver message holds them', () => {
    const error = Object.assign(new Error("cannot reach mysql://u:pw-42@h/db with 'pw-42'"), {
      code: 'X',
    });

    const line = failureLine('sessions', 'insertSession', error, ['mysql://u:pw-42@h/db', 'pw-42']);

    expect(line).toBe("[sessions] insertSession failed: X: cannot reach *** with '***'");
  });

  it('describes a thrown non-error value', () => {
    expect(failureLine('webhooks', 'claim', 'boom', [])).toBe(
      '[webhooks] claim failed: UNKNOWN: boom',
    );
  });
});

describe('error classification', () => {
  it('recognises a duplicate key under drizzle wrapping, and nothing else as one', () => {
    expect(
      isDuplicateKey(drizzleWrapped({ code: 'ER_DUP_ENTRY', errno: 1062, message: 'd' })),
    ).toBe(true);
    expect(isDuplicateKey(deadlock())).toBe(false);
    expect(isDuplicateKey(null)).toBe(false);
  });

  it('names the error by its driver code, else by its class', () => {
    expect(errorCode(deadlock())).toBe('ER_LOCK_DEADLOCK');
    expect(errorCode(new TypeError('x'))).toBe('TypeError');
  });
});

describe('redact', () => {
  it('replaces the longer secret first so no fragment of it survives', () => {
    expect(redact('a secret-long b secret', ['secret', 'secret-long'])).toBe('a *** b ***');
  });

  it('ignores an empty secret', () => {
    expect(redact('text', [''])).toBe('text');
  });
});

describe('retryDeadlocks', () => {
  it('runs a deadlocked transaction again until it commits', async () => {
    let runs = 0;
    const result = await retryDeadlocks(async () => {
      runs += 1;
      if (runs < 3) throw deadlock();
      return 'committed';
    });

    expect(result).toBe('committed');
    expect(runs).toBe(3);
  });

  it(`gives up after ${DEADLOCK_ATTEMPTS} deadlocks and throws the last one`, async () => {
    let runs = 0;
    await expect(
      retryDeadlocks(async () => {
        runs += 1;
        throw deadlock();
      }),
    ).rejects.toThrow('Failed query');
    expect(runs).toBe(DEADLOCK_ATTEMPTS);
  });

  it('never runs again after another error, such as a duplicate key', async () => {
    let runs = 0;
    await expect(
      retryDeadlocks(async () => {
        runs += 1;
        throw drizzleWrapped({ code: 'ER_DUP_ENTRY', errno: 1062, message: 'dup' });
      }),
    ).rejects.toThrow();
    expect(runs).toBe(1);
  });
});
