import { z } from 'zod';

/**
 * A monorepo component's name, as a run carries it and a read filters by it: a letter or
 * digit, then letters, digits, `.`, `_`, `-`; 64 at most.
 */
export const COMPONENT = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/);
