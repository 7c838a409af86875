import { jsonResponse } from '../json-response.js';
import type { RouteHandler } from '../services.js';

/** `GET /health`: liveness, no authentication. */
export const getHealth: RouteHandler = async () => jsonResponse(200, { status: 'ok' });
