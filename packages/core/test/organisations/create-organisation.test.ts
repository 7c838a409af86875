import { describe, expect, it } from 'vitest';
import { createAuditLogger, createMemoryAuditSink } from '../../src/audit/audit-sink.js';
import { createOrganisation } from '../../src/organisations/create-organisation.js';
import { OrganisationInputError } from '../../src/organisations/organisation-input.js';
import { createMemoryStore } from '../../src/storage/memory-store.js';
import { StoreConflictError } from '../../src/storage/store.js';
import { createIdGenerator } from '../../src/time/ids.js';

const NOW = new Date('2026-03-01T12:00:00.750Z');
const clock = { now: () => NOW };

describe('createOrganisation', () => {
  it('stores the organisation with defaults, whole-second time and an audit line', async () => {
    const store = createMemoryStore();
    const sink = createMemoryAuditSink();
    const org = await createOrganisation(
      store,
      { slug: 'acme' },
      {
        clock,
        ids: createIdGenerator({ now: () => NOW.getTime() }),
        audit: createAuditLogger(sink),
      },
    );
    expect(org).toEqual({
      id: expect.stringMatching(/^org_[0-9a-z]{26}$/),
      slug: 'acme',
      name: 'acme',
      plan: 'free',
      createdAt: new Date('2026-03-01T12:00:00Z'),
    });
    expect(await store.findOrganisationBySlug('acme')).toEqual(org);
    expect(sink.lines).toEqual([`[audit] organisation.create org_id=${org.id} slug=acme`]);
  });

  it('keeps the given name and plan', async () => {
    const org = await createOrganisation(
      createMemoryStore(),
      { slug: 'initech', name: 'Initech Ltd', plan: 'enterprise' },
      { clock },
    );
    expect(org).toMatchObject({ name: 'Initech Ltd', plan: 'enterprise' });
  });

  it('throws StoreConflictError for a taken slug and records nothing', async () => {
    const store = createMemoryStore();
    const sink = createMemoryAuditSink();
    await createOrganisation(store, { slug: 'twice' }, { clock });
    await expect(
      createOrganisation(store, { slug: 'twice' }, { clock, audit: createAuditLogger(sink) }),
    ).rejects.toBeInstanceOf(StoreConflictError);
    expect(sink.lines).toEqual([]);
  });

  it.each([
    [{ slug: 'Acme' }, 'slug', 'invalid parameter: slug'],
    [{ slug: '' }, 'slug', 'invalid parameter: slug'],
    [{ slug: 'a-' }, 'slug', 'invalid parameter: slug'],
    [{ slug: 'a'.repeat(65) }, 'slug', 'invalid parameter: slug'],
    [{ slug: 'github-1' }, 'slug', 'reserved slug: github-... is kept for personal organisations'],
    [
      { slug: 'bitbucket-x' },
      'slug',
      'reserved slug: bitbucket-... is kept for personal organisations',
    ],
    [{ slug: 'ok', name: '   ' }, 'name', 'invalid parameter: name'],
    [{ slug: 'ok', name: 'x'.repeat(101) }, 'name', 'invalid parameter: name'],
    [{ slug: 'ok', plan: 'gold' as never }, 'plan', 'invalid parameter: plan'],
  ])('refuses %j', async (input, field, message) => {
    const store = createMemoryStore();
    const error = await createOrganisation(store, input, { clock }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrganisationInputError);
    expect(error).toMatchObject({ field, message });
    expect(await store.findOrganisationBySlug('ok')).toBeNull();
  });

  it('accepts slugs that only contain a code host name elsewhere', async () => {
    const store = createMemoryStore();
    for (const slug of ['github', 'my-github-org', 'githubber', 'a', '0-9']) {
      await expect(createOrganisation(store, { slug }, { clock })).resolves.toMatchObject({ slug });
    }
  });
});
