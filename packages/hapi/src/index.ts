export * from './auth-scheme.js';
export * from './plugin.js';
