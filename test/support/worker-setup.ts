import { isolateWorkerServices, workerNumber } from './worker-services.js';

// Vitest setup file: runs in the worker before each test file is loaded.
const worker = workerNumber();
if (worker !== undefined) isolateWorkerServices(process.env, worker);
