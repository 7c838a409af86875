// Sends the body-limit attack of body-limits.test.ts from its own process, so that the test
// process's event loop (which measures /health meanwhile) is not the one busy sending 12 MiB.
// Usage: node body-attack.mjs <server url>. Prints `in flight` once every request is started,
// then one JSON line: the [status, body] of each answer, in order.
const [url] = process.argv.slice(2);

/** A body that streams `text` in 16 KiB chunks with no Content-Length (chunked encoding). */
function chunked(text) {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.subarray(offset, offset + 16 * 1024));
      offset += 16 * 1024;
    },
  });
  return { body, duplex: 'half' };
}

const validate = (init) =>
  fetch(`${url}/v1/auth/validate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    ...init,
  });
const mebibyte = '['.repeat(1024 * 1024);
const underLimit = '['.repeat(64 * 1024);
// Six of each in flight together: declared 1 MiB, streamed 1 MiB, and 64 KiB (the limit).
const attacks = [
  ...Array.from({ length: 6 }, () => validate({ body: mebibyte })),
  ...Array.from({ length: 6 }, () => validate(chunked(mebibyte))),
  ...Array.from({ length: 6 }, () => validate({ body: underLimit })),
];
process.stdout.write('in flight\n');
const answers = await Promise.all(
  attacks.map(async (response) => {
    const answer = await response;
    return [answer.status, await answer.text()];
  }),
);
process.stdout.write(`${JSON.stringify(answers)}\n`);
