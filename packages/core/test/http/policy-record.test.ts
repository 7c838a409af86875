import { describe, expect, it } from 'vitest';
import { apiFixture } from './api-fixture.js';

// A run records the policy file that judged it (issue 40): POST /v1/executions takes
// `policy: {digest, commit}`, the answer and GET /v1/executions/{id} show it.

const DIGEST = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
const COMMIT = 'ABCDEF0123456789ABCDEF0123456789ABCDEF01';

async function post(body: Record<string, unknown>) {
  const t = await apiFixture();
  const { token } = await t.insertToken();
  const response = await t.request('/v1/executions', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ repo: 'r', branch: 'main', coverage: 80, ...body }),
  });
  return { t, token, response };
}

describe('the policy a run was judged by', () => {
  it('is recorded and shown by the answer and by GET /v1/executions/{id}', async () => {
    const { t, token, response } = await post({ policy: { digest: DIGEST, commit: COMMIT } });
    expect(response.status).toBe(201);
    const created = (await response.json()) as { id: string; policy: unknown };
    expect(created.policy).toEqual({ digest: DIGEST, commit: COMMIT.toLowerCase() });
    const detail = await t.get(`/v1/executions/${created.id}`, token);
    expect(detail.status).toBe(200);
    expect(((await detail.json()) as { policy: unknown }).policy).toEqual({
      digest: DIGEST,
      commit: COMMIT.toLowerCase(),
    });
  });

  it('may come without a commit (read outside git), and is absent when not sent', async () => {
    const outside = await post({ policy: { digest: DIGEST } });
    expect(((await outside.response.json()) as { policy: unknown }).policy).toEqual({
      digest: DIGEST,
      commit: null,
    });
    const none = await post({});
    expect(await none.response.json()).not.toHaveProperty('policy');
  });

  it.each([
    [{ digest: 'abc' }, 'policy.digest'],
    [{ digest: DIGEST.toUpperCase() }, 'policy.digest'],
    [{ digest: DIGEST, commit: 'xyz' }, 'policy.commit'],
    ['covgate.yml', 'policy'],
  ])('refuses %j with 400 naming the field', async (policy, field) => {
    const { response } = await post({ policy });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: `invalid parameter: ${field}` });
  });
});

describe('a change that edits the policy file', () => {
  it('is recorded with the run and shown by the answer and by GET /v1/executions/{id}', async () => {
    const { t, token, response } = await post({
      policy: { digest: DIGEST, commit: COMMIT },
      policy_edited: 'covgate.yml',
    });
    expect(response.status).toBe(201);
    const created = (await response.json()) as { id: string; policy_edited: unknown };
    expect(created.policy_edited).toBe('covgate.yml');
    const detail = await t.get(`/v1/executions/${created.id}`, token);
    expect(((await detail.json()) as { policy_edited: unknown }).policy_edited).toBe('covgate.yml');
  });

  it('is absent when not sent or sent as null', async () => {
    for (const body of [{}, { policy_edited: null }]) {
      const { response } = await post(body);
      expect(response.status).toBe(201);
      expect(await response.json()).not.toHaveProperty('policy_edited');
    }
  });

  it.each([['codecov.yml'], [true], ['../covgate.yml'], ['']])(
    'refuses %j with 400 naming the field, storing nothing',
    async (policyEdited) => {
      const { t, token, response } = await post({ policy_edited: policyEdited });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: 'invalid parameter: policy_edited' });
      const listed = await t.get(`/v1/executions?org=${t.org.slug}&repo=r`, token);
      expect(((await listed.json()) as { executions: unknown[] }).executions).toEqual([]);
    },
  );
});

describe("the policy's comment sections", () => {
  it.each([
    [false, []],
    [{ sections: [] }, []],
    [{ sections: ['files', 'verdict'] }, ['verdict', 'files']],
  ])('records comment %j as comment_sections %j', async (comment, sections) => {
    const { t, token, response } = await post({ comment });
    expect(response.status).toBe(201);
    const created = (await response.json()) as { id: string; comment_sections: unknown };
    expect(created.comment_sections).toEqual(sections);
    const detail = await t.get(`/v1/executions/${created.id}`, token);
    expect(((await detail.json()) as { comment_sections: unknown }).comment_sections).toEqual(
      sections,
    );
  });

  it('is absent for true, null or not sent: every section', async () => {
    for (const body of [{}, { comment: null }, { comment: true }]) {
      const { response } = await post(body);
      expect(response.status).toBe(201);
      expect(await response.json()).not.toHaveProperty('comment_sections');
    }
  });

  it.each([
    ['off', 'comment'],
    [{ sections: ['verdict', 'verdict'] }, 'comment.sections'],
    [{ sections: ['summary'] }, 'comment'],
    [{ sections: ['verdict'], layout: 'header' }, 'comment'],
  ])('refuses %j with 400 naming the field', async (comment, field) => {
    const { response } = await post({ comment });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: `invalid parameter: ${field}` });
  });
});

describe('the project target and informational rules', () => {
  const judged = async (body: Record<string, unknown>) => {
    const { response } = await post(body);
    expect(response.status).toBe(201);
    return (await response.json()) as Record<string, unknown>;
  };

  it('fails a run below the floor, whatever the baseline, and says so', async () => {
    expect(await judged({ coverage: 69.999, project_target: 70 })).toMatchObject({
      outcome: 'fail',
      decided_by: 'target',
      project_target: { target: 70, passed: false, source: 'run' },
    });
    expect(await judged({ coverage: 70, project_target: 70 })).toMatchObject({
      outcome: 'pass',
      decided_by: 'delta',
      project_target: { target: 70, passed: true, source: 'run' },
    });
  });

  it('project_informational turns the floor failure into a warning', async () => {
    expect(
      await judged({ coverage: 60, project_target: 70, project_informational: true }),
    ).toMatchObject({ outcome: 'warn', decided_by: 'target' });
  });

  it('patch_informational turns a patch below its target into a warning', async () => {
    const patch = { covered: 1, coverable: 4 };
    expect(await judged({ patch, patch_target: 80 })).toMatchObject({
      outcome: 'fail',
      decided_by: 'patch',
    });
    expect(await judged({ patch, patch_target: 80, patch_informational: true })).toMatchObject({
      outcome: 'warn',
      decided_by: 'patch',
    });
  });

  it('refuses a floor outside 0..100', async () => {
    const { response } = await post({ project_target: 101 });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'invalid parameter: project_target' });
  });
});
