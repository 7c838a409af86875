import { StoreConflictError } from '../store.js';

/** A record found by its id and by the hash of its secret token (a session, invite, sign-in link). */
interface TokenHashed {
  id: string;
  tokenHash: string;
}

/**
 * The memory store's records of one kind, by id and by token hash, both unique as the SQL
 * stores' keys are. Records are kept as given: the store copies them in and out.
 */
export class TokenHashedRecords<T extends TokenHashed> {
  readonly #byId = new Map<string, T>();
  readonly #idByTokenHash = new Map<string, string>();

  /** @param kind - what the records are, for the conflict messages (`session`). */
  constructor(private readonly kind: string) {}

  /** Keeps `record`; throws {@link StoreConflictError} when its id or token hash is taken. */
  insert(record: T): void {
    if (this.#byId.has(record.id)) {
      throw new StoreConflictError(`${this.kind} id already exists: ${record.id}`);
    }
    if (this.#idByTokenHash.has(record.tokenHash)) {
      throw new StoreConflictError(`${this.kind} token hash already exists`);
    }
    this.#byId.set(record.id, record);
    this.#idByTokenHash.set(record.tokenHash, record.id);
  }

  byId(id: string): T | undefined {
    return this.#byId.get(id);
  }

  byTokenHash(tokenHash: string): T | undefined {
    const id = this.#idByTokenHash.get(tokenHash);
    return id === undefined ? undefined : this.#byId.get(id);
  }

  /** Forgets the record `id` and its token hash; false when there was none. */
  delete(id: string): boolean {
    const record = this.#byId.get(id);
    if (!record) return false;
    this.#byId.delete(id);
    this.#idByTokenHash.delete(record.tokenHash);
    return true;
  }

  values(): IterableIterator<T> {
    return this.#byId.values();
  }
}
