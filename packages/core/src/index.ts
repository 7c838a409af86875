export * from './http/api-types.js';
export * from './storage/store.js';
