import { describe, expect, it } from 'vitest';
import { ApiError, ERRORS } from '../../src/http/api-error.js';

describe('ApiError', () => {
  it('carries status, public message and headers, and no stack frames', () => {
    const error = new ApiError(503, ERRORS.serviceUnavailable, { 'retry-after': '1' });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ApiError');
    expect(error.message).toBe('service unavailable');
    expect(error.publicMessage).toBe('service unavailable');
    expect(error.status).toBe(503);
    expect(error.headers).toEqual({ 'retry-after': '1' });
    expect(error.stack).toBe('ApiError: service unavailable');
  });

  it('leaves the stack trace limit of other errors as it was', () => {
    const before = Error.stackTraceLimit;
    new ApiError(404, ERRORS.notFound);
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error('elsewhere').stack).toMatch(/\n\s+at /);
  });

  it('defaults to no extra headers', () => {
    expect(new ApiError(404, ERRORS.notFound).headers).toEqual({});
  });
});
