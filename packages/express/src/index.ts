export * from './middleware.js';
export * from './raw-body.js';
