import { describe, expect, it } from 'vitest';
import {
  createVerificationGate,
  VerificationOverloadError,
  type VerificationPriority,
} from '../../src/tokens/verification-gate.js';

/** A gate whose tasks only finish when the test says so, with the order they started in. */
function manualGate(maxConcurrent: number, maxQueued: number, reservedForTrusted = 0) {
  const overloads: string[] = [];
  const gate = createVerificationGate({
    maxConcurrent,
    maxQueued,
    reservedForTrusted,
    onOverload: (state, load) => overloads.push(`${state} ${load.running}/${load.queued}`),
  });
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const outcomes = new Map<string, string>();
  function submit(name: string, priority: VerificationPriority = 'normal') {
    const done = gate.run(priority, () => {
      started.push(name);
      return new Promise<string>((resolve) => finishers.set(name, () => resolve(name)));
    });
    done.then(
      () => outcomes.set(name, 'done'),
      (error: unknown) =>
        outcomes.set(name, error instanceof VerificationOverloadError ? 'shed' : 'error'),
    );
    return done.catch(() => undefined);
  }
  async function finish(name: string) {
    const finisher = finishers.get(name);
    if (!finisher) throw new Error(`${name} has not started`);
    finisher();
    // The task's promise, the gate's `finally` and the next waiter's start.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  }
  const settled = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { gate, started, outcomes, overloads, submit, finish, settled };
}

describe('verification gate', () => {
  it('runs at most maxConcurrent at once, queues maxQueued in order and sheds the next', async () => {
    const fx = manualGate(2, 2);
    for (const name of ['a', 'b', 'c', 'd', 'e']) fx.submit(name);
    await fx.settled();
    expect(fx.started).toEqual(['a', 'b']);
    expect(fx.gate.load()).toEqual({ running: 2, queued: 2 });
    expect([...fx.outcomes]).toEqual([['e', 'shed']]);
    await fx.finish('b');
    expect(fx.started).toEqual(['a', 'b', 'c']);
    await fx.finish('a');
    expect(fx.started).toEqual(['a', 'b', 'c', 'd']);
    expect(fx.overloads).toEqual(['started 2/2', 'ended 2/0']);
  });

  it('starts a trusted waiter before normal ones that queued earlier', async () => {
    const fx = manualGate(1, 4);
    for (const name of ['a', 'n1', 'n2']) fx.submit(name);
    fx.submit('owner', 'trusted');
    await fx.settled();
    await fx.finish('a');
    expect(fx.started).toEqual(['a', 'owner']);
    await fx.finish('owner');
    expect(fx.started).toEqual(['a', 'owner', 'n1']);
  });

  it('lets a trusted verification take the place of the newest normal waiter when full', async () => {
    const fx = manualGate(1, 2);
    for (const name of ['a', 'n1', 'n2']) fx.submit(name);
    await fx.settled();
    expect(fx.gate.admits('normal')).toBe(false);
    expect(fx.gate.admits('trusted')).toBe(true);
    fx.submit('owner', 'trusted');
    await fx.settled();
    expect([...fx.outcomes]).toEqual([['n2', 'shed']]);
    await fx.finish('a');
    expect(fx.started).toEqual(['a', 'owner']);
  });

  it('starts a trusted verification at once in a reserved slot, which normal ones never take', async () => {
    const fx = manualGate(2, 2, 1);
    for (const name of ['a', 'b', 'n1', 'n2', 'n3']) fx.submit(name);
    await fx.settled();
    expect([...fx.outcomes]).toEqual([['n3', 'shed']]);
    expect(fx.gate.admits('trusted')).toBe(true);
    fx.submit('owner', 'trusted');
    await fx.settled();
    expect(fx.started).toEqual(['a', 'b', 'owner']);
    expect(fx.gate.load()).toEqual({ running: 3, queued: 2 });
    // The owner finishing frees only the reserved slot: the normal waiters still wait.
    await fx.finish('owner');
    expect(fx.started).toEqual(['a', 'b', 'owner']);
    fx.submit('t2', 'trusted');
    fx.submit('t3', 'trusted');
    await fx.settled();
    expect(fx.started).toEqual(['a', 'b', 'owner', 't2']);
    // A freed normal slot goes to the waiting trusted verification first.
    await fx.finish('a');
    expect(fx.started).toEqual(['a', 'b', 'owner', 't2', 't3']);
    await fx.finish('b');
    expect(fx.started).toEqual(['a', 'b', 'owner', 't2', 't3']);
    await fx.finish('t2');
    expect(fx.started).toEqual(['a', 'b', 'owner', 't2', 't3', 'n1']);
    // t3 found the queue full and took the place of the newest normal waiter.
    expect([...fx.outcomes]).toEqual([
      ['n3', 'shed'],
      ['owner', 'done'],
      ['n2', 'shed'],
      ['a', 'done'],
      ['b', 'done'],
      ['t2', 'done'],
    ]);
  });

  it('refuses bounds that cannot work', () => {
    expect(() => createVerificationGate({ maxConcurrent: 0 })).toThrow(
      new RangeError('maxConcurrent must be a positive integer'),
    );
    expect(() => createVerificationGate({ maxQueued: -1 })).toThrow(
      new RangeError('maxQueued must be a non-negative integer'),
    );
    expect(() => createVerificationGate({ reservedForTrusted: 1.5 })).toThrow(
      new RangeError('reservedForTrusted must be a non-negative integer'),
    );
  });

  it('sheds a trusted verification too when only trusted ones wait', async () => {
    const fx = manualGate(1, 1);
    fx.submit('a');
    fx.submit('t1', 'trusted');
    await fx.settled();
    expect(fx.gate.admits('trusted')).toBe(false);
    fx.submit('t2', 'trusted');
    await fx.settled();
    expect([...fx.outcomes]).toEqual([['t2', 'shed']]);
  });
});
