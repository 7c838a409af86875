import type { Store } from '../../src/storage/store.js';

/**
 * The store with its method `name` answered by `method` (a failing database, a lost race);
 * every other method is the store's own.
 */
export function withStoreMethod<Name extends keyof Store>(
  store: Store,
  name: Name,
  method: Store[Name],
): Store {
  return new Proxy(store, {
    get(target, property) {
      if (property === name) return method;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
