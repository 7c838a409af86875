import { type Store, StoreConflictError } from '@covgate/core';

/** The user sign-in links are for unless told otherwise (the bootstrap command's too). */
export const DEFAULT_ADMIN_USER = 'usr_admin';

/** The code-host name of the users `covgate-admin` makes: none, a name only. */
export const ADMIN_MADE_PROVIDER = 'covgate-admin';

/** How the members page names {@link DEFAULT_ADMIN_USER}. */
export const ADMINISTRATOR_NAME = 'Administrator';

/**
 * Gives {@link DEFAULT_ADMIN_USER} a user record named {@link ADMINISTRATOR_NAME} (provider
 * {@link ADMIN_MADE_PROVIDER}) when it has none, so the members page shows a name rather than
 * the raw id. Any other user id is left alone: covgate knows no name for it.
 */
export async function nameAdministrator(store: Store, userId: string, now: Date): Promise<void> {
  if (userId !== DEFAULT_ADMIN_USER) return;
  try {
    await store.findOrCreateUser({
      id: userId,
      provider: ADMIN_MADE_PROVIDER,
      externalId: userId,
      login: ADMINISTRATOR_NAME,
      createdAt: now,
    });
  } catch (error) {
    // The id already has a record of another identity: that record names it.
    if (!(error instanceof StoreConflictError)) throw error;
  }
}
