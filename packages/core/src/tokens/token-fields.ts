import { z } from 'zod';
import { SCOPES } from '../identity/token-scopes.js';

/** Scopes of a new or changed token: at least one, duplicates dropped (the route and provisioning). */
export const scopesSchema = z
  .array(z.enum(SCOPES))
  .min(1)
  .transform((scopes) => [...new Set(scopes)]);
/** A token's name: 1-100 characters after trimming, no control characters. */
export const nameSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[^\p{Cc}]+$/u);

/** The kind of agent a token is for: up to 64 of `A-Z a-z 0-9 . _ -`. */
export const agentTypeSchema = z
  .string()
  .max(64)
  .regex(/^[A-Za-z0-9._-]*$/);
