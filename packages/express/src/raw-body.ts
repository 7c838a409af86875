import type { IncomingMessage, ServerResponse } from 'node:http';
import { hasRequestBody } from '@covgate/node-bridge';

/** A request on which a body parser may have left the raw bytes (`req.rawBody`). */
interface RequestWithRawBody extends IncomingMessage {
  rawBody?: unknown;
  body?: unknown;
}

/**
 * A `verify` callback for Express body parsers that keeps the exact bytes received on
 * `req.rawBody`, so covgate can check webhook signatures even when the host application
 * parses JSON before covgate runs: `app.use(express.json({ verify: covgateRawBody }))`.
 */
export function covgateRawBody(req: IncomingMessage, _res: ServerResponse, buffer: Buffer): void {
  (req as RequestWithRawBody).rawBody = buffer;
}

/** The request body was read by a body parser that kept no raw bytes. */
export class BodyAlreadyConsumedError extends Error {
  constructor() {
    super(
      'request body already consumed by a body parser; install covgate before express.json() or pass verify: covgateRawBody',
    );
    this.name = 'BodyAlreadyConsumedError';
  }
}

/**
 * The body bytes a body parser already read, when one did: `req.rawBody` (from
 * {@link covgateRawBody} or any tool with that convention), or a `Buffer` `req.body` left by
 * `express.raw()`. `undefined` when the body is still unread and can be streamed; `null`
 * when the request has no body.
 *
 * @throws BodyAlreadyConsumedError when a parser read the body and kept only its parsed
 * form: a re-serialisation would not be the bytes a webhook provider signed.
 */
export function bodyReadByParser(req: IncomingMessage): Uint8Array | null | undefined {
  const { rawBody, body } = req as RequestWithRawBody;
  if (rawBody instanceof Uint8Array) return rawBody;
  if (!req.readableDidRead && !req.readableEnded) return undefined;
  if (body instanceof Uint8Array) return body;
  if (!hasRequestBody(req)) return null;
  throw new BodyAlreadyConsumedError();
}
