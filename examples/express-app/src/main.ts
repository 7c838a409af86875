#!/usr/bin/env node
import type { AddressInfo } from 'node:net';
import {
  exitCannotListen,
  onShutdownSignal,
  prepareTodoApp,
  reportListening,
} from '@covgate/example-shared';
import { COVGATE_MOUNT, createApp } from './app.js';

const { settings, demo, covgateOptions } = await prepareTodoApp();
const app = createApp(covgateOptions);

const server = app.listen(settings.port, settings.host, (error?: Error) => {
  if (error) exitCannotListen(error);
  const { port } = server.address() as AddressInfo;
  reportListening(`http://${settings.host}:${port}`, COVGATE_MOUNT, demo);
});
onShutdownSignal(() => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
});
