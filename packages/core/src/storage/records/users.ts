// Users.
// The records and their store port; `../store.ts` joins the ports into `Store`.

/** A user known through the code host (OAuth login). */
export interface User {
  /** `usr_` + lowercase ULID. */
  id: string;
  /** Code-host name, for example `github`. */
  provider: string;
  /** The code host's stable id of the user. */
  externalId: string;
  login: string;
  createdAt: Date;
}

/** Users signed in through the code host. */
export interface UserStore {
  /**
   * Returns the user with this (provider, externalId), creating `candidate` when absent.
   * Safe under concurrent calls: all callers get the same stored user.
   */
  findOrCreateUser(candidate: User): Promise<User>;
  findUserById(id: string): Promise<User | null>;
}
