#!/usr/bin/env node
import {
  exitCannotListen,
  onShutdownSignal,
  prepareTodoApp,
  reportListening,
} from '@covgate/example-shared';
import { COVGATE_PREFIX, createApp } from './app.js';

const { settings, demo, covgateOptions } = await prepareTodoApp();
const server = await createApp({
  host: settings.host,
  port: settings.port,
  ...covgateOptions,
});

try {
  await server.start();
} catch (error) {
  exitCannotListen(error as Error);
}
reportListening(server.info.uri, COVGATE_PREFIX, demo);
onShutdownSignal(() => {
  server.stop({ timeout: 10_000 }).then(() => process.exit(0));
});
