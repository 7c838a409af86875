import { relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { readSlowFiles, slowestFirst } from './slowest-first.js';

const slowFilesPath = fileURLToPath(new URL('../slow-files.json', import.meta.url));

/**
 * Vitest's sequencer with the slowest test files first (see slowest-first.ts). A file's
 * duration is the one vitest's results cache holds from the last run here, else the checked-in
 * list's; files known to neither follow in vitest's own order.
 */
export class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const listed = readSlowFiles(slowFilesPath);
    const root = this.ctx.config.root;
    return slowestFirst(await super.sort(files), (spec) => {
      const path = relative(root, spec.moduleId).split(sep).join('/');
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`);
      return cached?.duration ?? listed.get(path);
    });
  }
}
