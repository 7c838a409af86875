import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runStoreConformanceSuite } from '@covgate/core/testing';
import { createSqliteStore } from '@covgate/sqlite';
import { afterAll } from 'vitest';

const directory = mkdtempSync(join(tmpdir(), 'covgate-sqlite-'));
const fileUrl = `file:${join(directory, 'conformance.db')}`;

afterAll(() => rmSync(directory, { recursive: true, force: true }));

runStoreConformanceSuite('sqlite file', { createStore: () => createSqliteStore({ url: fileUrl }) });
runStoreConformanceSuite('sqlite :memory:', { createStore: () => createSqliteStore({ url: ':memory:' }) });
