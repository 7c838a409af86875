import { wholeSeconds } from '../../time/timestamp.js';
import type { RepositorySettingsStore } from '../store.js';
import { copy, copyOrNull } from './copy.js';
import { type MemoryTables, pairKey } from './tables.js';

/** The memory store's per-repository settings. */
export function memoryRepositorySettings(t: MemoryTables): RepositorySettingsStore {
  return {
    async findRepositorySettings(orgId, repo) {
      return copyOrNull(t.repositorySettings.get(pairKey(orgId, repo)));
    },

    async saveRepositorySettings(settings) {
      t.repositorySettings.set(
        pairKey(settings.orgId, settings.repo),
        copy({ ...settings, updatedAt: wholeSeconds(settings.updatedAt) }),
      );
    },

    async claimRepositoryWebUrl(orgId, repo, webUrl, at) {
      const key = pairKey(orgId, repo);
      const settings = t.repositorySettings.get(key);
      if (settings?.webUrlSource != null) return false;
      t.repositorySettings.set(key, {
        orgId,
        repo,
        patchTarget: settings?.patchTarget ?? null,
        expectedParts: settings?.expectedParts ?? null,
        partsDeadlineMinutes: settings?.partsDeadlineMinutes ?? null,
        carryforwardParts: settings?.carryforwardParts ?? null,
        webUrl,
        webUrlSource: 'ingest',
        ciTrust: settings?.ciTrust ?? null,
        updatedAt: wholeSeconds(at),
      });
      return true;
    },
  };
}
