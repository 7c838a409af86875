/** The secret the tests of the presets and of the refusals sign and verify with. */
export const SECRET = 'shared_test_secret';

/** The moment, in Unix seconds, their timestamped headers are signed at. */
export const T = 1_700_000_000;

/** A clock standing at {@link T}, for `now`. */
export const now = () => T * 1000;
