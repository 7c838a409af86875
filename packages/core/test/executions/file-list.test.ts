import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  decodeFileList,
  encodeFileList,
  type FileEntry,
  fileListText,
} from '../../src/executions/file-list.js';

describe('the stored file list', () => {
  it('stores rows of three, and of five for the entries with patch counts, and reads them back', async () => {
    const files: FileEntry[] = [
      { path: 'src/a.ts', covered: 1, coverable: 2, patchCovered: 0, patchCoverable: 1 },
      { path: 'src/b.ts', covered: 3, coverable: 3 },
      { path: 'vendor/', covered: 5, coverable: 9, patchCovered: 0, patchCoverable: 0 },
    ];
    const stored = await encodeFileList(fileListText(files));
    expect(JSON.parse(gunzipSync(stored).toString('utf8'))).toEqual([
      ['src/a.ts', 1, 2, 0, 1],
      ['src/b.ts', 3, 3],
      ['vendor/', 5, 9, 0, 0],
    ]);
    expect(await decodeFileList(stored)).toEqual(files);
  });
});
