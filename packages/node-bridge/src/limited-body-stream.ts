import type { IncomingMessage } from 'node:http';
import { PayloadTooLargeError } from './payload-too-large-error.js';

/**
 * Whether the request carries a body: a `Transfer-Encoding` or a non-zero
 * `Content-Length`. A `POST` with `Content-Length: 0` has none.
 */
export function hasRequestBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && Number(length) > 0;
}

/**
 * The request body as a byte stream that reads from the socket only when the consumer
 * pulls (backpressure), and fails with {@link PayloadTooLargeError} as soon as the declared
 * `Content-Length` or the bytes actually received exceed `maxBytes`. After that failure, or
 * a cancel, the rest of the body is read and discarded so the connection stays usable and
 * the client can read the answer; nothing is kept in memory.
 */
export function limitedBodyStream(
  req: IncomingMessage,
  maxBytes: number,
): ReadableStream<Uint8Array> {
  let received = 0;
  let detach = (): void => {};

  const discardRest = (): void => {
    detach();
    req.resume();
  };

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const declared = Number(req.headers['content-length']);
        if (declared > maxBytes) {
          controller.error(new PayloadTooLargeError(maxBytes));
          return;
        }
        if (req.readableEnded) {
          controller.close();
          return;
        }
        if (req.destroyed) {
          controller.error(new Error('client closed the connection before the body ended'));
          return;
        }
        const onData = (chunk: Buffer): void => {
          received += chunk.byteLength;
          if (received > maxBytes) {
            controller.error(new PayloadTooLargeError(maxBytes));
            discardRest();
            return;
          }
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        };
        const onEnd = (): void => {
          detach();
          controller.close();
        };
        const onFailure = (error?: Error): void => {
          detach();
          controller.error(
            error ?? new Error('client closed the connection before the body ended'),
          );
        };
        const onClose = (): void => {
          if (!req.readableEnded) onFailure();
        };
        detach = () => {
          req.off('data', onData);
          req.off('end', onEnd);
          req.off('error', onFailure);
          req.off('close', onClose);
        };
        req.pause();
        req.on('data', onData);
        req.on('end', onEnd);
        req.on('error', onFailure);
        req.on('close', onClose);
      },
      pull() {
        req.resume();
      },
      cancel() {
        discardRest();
      },
    },
    { highWaterMark: 0 },
  );
}
