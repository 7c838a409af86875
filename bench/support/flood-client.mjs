// The attacking side of verification-flood.mjs, in its own process so that sending and
// answering 400 requests does not delay the measured client's own event loop.
// Message in: { baseUrl, count, token?, firstAddress, health? }; out: { started } then
// { statuses }. With `health`, the burst is `GET /health` (no token, no argon2). With `token`,
// each request is a different guess at that token's secret (same id, its own last 4 hex):
// identical guesses in flight together share one verification, distinct ones do not.
function randomToken() {
  const hex = [...crypto.getRandomValues(new Uint8Array(20))]
    .map((byte) => byte.toString(16).padStart(2, '0'))
    .join('');
  return `cvg_${hex}`;
}

function guessAt(token, n) {
  const guess = `${token.slice(0, -4)}${n.toString(16).padStart(4, '0')}`;
  return guess === token ? `${token.slice(0, -4)}ffff` : guess;
}

function address(n) {
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

process.on('message', async ({ baseUrl, count, token, firstAddress, health }) => {
  const requests = Array.from({ length: count }, (_, i) =>
    fetch(`${baseUrl}${health ? '/health' : '/v1/auth/validate'}`, {
      method: health ? 'GET' : 'POST',
      headers: {
        ...(health ? {} : { authorization: `Bearer ${token ? guessAt(token, i) : randomToken()}` }),
        'x-forwarded-for': address(firstAddress + i),
      },
    }).then(async (response) => {
      await response.arrayBuffer();
      return response.status;
    }),
  );
  process.send({ started: true });
  const statuses = {};
  for (const status of await Promise.all(requests)) statuses[status] = (statuses[status] ?? 0) + 1;
  process.send({ statuses });
});
