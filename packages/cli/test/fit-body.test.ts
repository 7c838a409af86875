import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fitBody } from '../src/gate/fit-body.js';

const run = { repo: 'web', branch: 'main', coverage: 50 };
const lines = { coverable: [1, 2], covered: [1, 1] };

/** `count` files of incompressible paths (`bytes` random bytes each), with or without line data. */
function files(count: number, withLines: boolean, bytes = 36) {
  return Array.from({ length: count }, () => ({
    path: `src/${randomBytes(bytes).toString('base64url')}.ts`,
    covered: 1,
    coverable: 2,
    ...(withLines ? { lines, patch_lines: [1, 1] } : {}),
  }));
}

describe('fitting the body of a run to the service', () => {
  it('sends a short body as plain JSON, as it is', () => {
    const body = { ...run, files: files(3, true) };
    expect(fitBody(body)).toEqual({ body, gzip: false, linesLeftOut: null });
  });

  it('gzips a long body and keeps its line data while it fits', () => {
    const body = { ...run, files: files(2_000, true) };
    expect(fitBody(body)).toEqual({ body, gzip: true, linesLeftOut: null });
  });

  it('leaves the line data out of a body over 4 MiB compressed, keeping the counts', () => {
    const body = { ...run, files: files(36_000, true, 120) };
    const fitted = fitBody(body);
    expect(fitted.gzip).toBe(true);
    expect(fitted.linesLeftOut).toMatch(
      /^the run with it is 4\.\d\d MiB gzip-compressed, over the service's 4 MiB$/,
    );
    expect(fitted.body).toEqual({
      ...run,
      files: body.files.map(({ path, covered, coverable }) => ({ path, covered, coverable })),
    });
  });

  it('leaves a long body without line data as it is, whatever its size', () => {
    const body = { ...run, files: files(30_000, false) };
    expect(fitBody(body)).toEqual({ body, gzip: true, linesLeftOut: null });
  });
});
