import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
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

/** Whether the request announces more than `maxBytes` in its `Content-Length`. */
export function declaresTooLargeBody(req: IncomingMessage, maxBytes: number): boolean {
  return Number(req.headers['content-length']) > maxBytes;
}

/**
 * A request body (the `IncomingMessage`, or the stream a framework hands over) as a byte
 * stream that reads from the socket only when the consumer pulls (backpressure), and fails
 * with {@link PayloadTooLargeError} as soon as more than `maxBytes` arrived. After that
 * failure, or a cancel, the rest of the body is read and discarded so the connection stays
 * usable and the client can read the answer; nothing is kept in memory.
 */
export function limitedBodyStream(source: Readable, maxBytes: number): ReadableStream<Uint8Array> {
  let received = 0;
  let detach = (): void => {};

  const discardRest = (): void => {
    detach();
    source.resume();
  };

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (source.readableEnded) {
          controller.close();
          return;
        }
        if (source.destroyed) {
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
          if ((controller.desiredSize ?? 0) <= 0) source.pause();
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
          if (!source.readableEnded) onFailure();
        };
        detach = () => {
          source.off('data', onData);
          source.off('end', onEnd);
          source.off('error', onFailure);
          source.off('close', onClose);
        };
        source.pause();
        source.on('data', onData);
        source.on('end', onEnd);
        source.on('error', onFailure);
        source.on('close', onClose);
      },
      pull() {
        source.resume();
      },
      cancel() {
        discardRest();
      },
    },
    { highWaterMark: 0 },
  );
}
