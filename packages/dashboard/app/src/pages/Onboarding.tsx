import type { Execution } from '@covgate/client';
import { useEffect, useState } from 'preact/hooks';
import { Form, TextField } from '../components/Form.js';
import { GateRecipes } from '../components/GateRecipes.js';
import { ErrorState, Link, OutcomeTag, SecretPanel } from '../components/ui.js';
import { useApp } from '../context.js';
import { formatComparison, formatCountdown, formatCoverage } from '../format.js';
import { useAction, useFailure } from '../hooks.js';
import { POLL_TIMEOUT_MS, pollUntil } from '../onboarding-poll.js';
import { canManageTokens } from '../roles.js';

type Step =
  | { step: 'setup' }
  | { step: 'waiting'; repo: string; secret: string; attempt: number }
  | { step: 'timeout'; repo: string; secret: string; attempt: number }
  | { step: 'done'; repo: string; secret: string; execution: Execution };

/**
 * The onboarding wizard: create a token, ask for the coverage tool and show the command and
 * CI jobs that run it and gate its report, then wait for the first run (GET /v1/executions every 5 s for 10 minutes) and show its outcome and delta.
 */
export function Onboarding(props: { first?: boolean }) {
  const { session } = useApp();
  if (!canManageTokens(session.role)) {
    return (
      <section aria-labelledby="onboarding-title" class="onboarding">
        <h1 id="onboarding-title">Add a repository</h1>
        <p class="state notice" data-testid="onboarding-member">
          Adding a repository needs a token for its CI, which admins and owners of {session.org}{' '}
          create. You are a <strong>member</strong>: ask one of them on the{' '}
          <Link to="/members">members page</Link>.
        </p>
      </section>
    );
  }
  return <Wizard first={props.first} />;
}

function Wizard(props: { first?: boolean }) {
  const { client, session, ciUrl } = useApp();
  const failed = useFailure();
  const [state, setState] = useState<Step>({ step: 'setup' });
  const [repo, setRepo] = useState('');
  const [tokenName, setTokenName] = useState('ci');
  const { busy, failure, run } = useAction();
  const [pollError, setPollError] = useState<string | null>(null);
  const [deadline, setDeadline] = useState(0);
  const [now, setNow] = useState(Date.now());

  const waiting = state.step === 'waiting' ? state : null;
  useEffect(() => {
    if (!waiting) return;
    const controller = new AbortController();
    setDeadline(Date.now() + POLL_TIMEOUT_MS);
    setNow(Date.now());
    const tick = window.setInterval(() => setNow(Date.now()), 1000);
    pollUntil<Execution>({
      signal: controller.signal,
      check: async (signal) => {
        const page = await client.listExecutions({
          org: session.org,
          repo: waiting.repo,
          limit: 1,
          signal,
        });
        setPollError(null);
        return page.total > 0 ? (page.executions[0] ?? null) : null;
      },
      onError: (error) => {
        const message = failed(error);
        if (message === null) controller.abort();
        else setPollError(message);
      },
    }).then((execution) => {
      if (controller.signal.aborted) return;
      setState(
        execution
          ? { step: 'done', repo: waiting.repo, secret: waiting.secret, execution }
          : {
              step: 'timeout',
              repo: waiting.repo,
              secret: waiting.secret,
              attempt: waiting.attempt,
            },
      );
    });
    return () => {
      controller.abort();
      window.clearInterval(tick);
    };
  }, [waiting?.repo, waiting?.attempt]);

  const createToken = async () => {
    const name = repo.trim();
    if (name === '' || tokenName.trim() === '') return;
    await run(async () => {
      const created = await client.createToken({
        body: { name: tokenName.trim(), agent_type: 'github-actions' },
      });
      setState({ step: 'waiting', repo: name, secret: created.secret, attempt: 0 });
    });
  };

  return (
    <section aria-labelledby="onboarding-title" class="onboarding">
      <h1 id="onboarding-title">
        {props.first ? 'Set up your first repository' : 'Add a repository'}
      </h1>
      <ol class="steps">
        <li class={state.step === 'setup' ? 'current' : 'done'}>Create a token</li>
        <li class={state.step === 'setup' ? '' : state.step === 'done' ? 'done' : 'current'}>
          Run the gate
        </li>
        <li class={state.step === 'done' ? 'current' : ''}>See the first run</li>
      </ol>
      {state.step === 'setup' ? (
        <Form class="stack" onSubmit={createToken}>
          <p>
            covgate records a run each time your CI gates a build on coverage. Name the repository
            and create a token for its CI.
          </p>
          <TextField
            label="Repository name"
            name="repo"
            value={repo}
            required
            maxLength={255}
            placeholder="e.g. shop-web"
            onValue={setRepo}
          />
          <TextField
            label="Token name"
            name="token-name"
            value={tokenName}
            required
            maxLength={100}
            onValue={setTokenName}
          />
          {failure ? <ErrorState message={failure} /> : null}
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create token'}
          </button>
        </Form>
      ) : (
        <>
          <SecretPanel secret={state.secret} title="Your CI token">
            <p>
              Store it as the repository secret <code>COVGATE_TOKEN</code> in your CI settings.
            </p>
          </SecretPanel>
          <h2>Run the gate</h2>
          <GateRecipes apiUrl={ciUrl} repo={state.repo} secret={state.secret} />
          <h2>First run</h2>
          {state.step === 'waiting' ? (
            <div class="state waiting" role="status" data-testid="onboarding-status">
              <p>
                Waiting for the first run of <strong>{state.repo}</strong>… checking every 5
                seconds.
              </p>
              <p class="countdown">
                Time left: <span data-testid="countdown">{formatCountdown(deadline - now)}</span>
              </p>
              {pollError ? <p class="poll-error">{pollError} Still trying.</p> : null}
            </div>
          ) : null}
          {state.step === 'timeout' ? (
            <div class="state error" role="alert" data-testid="onboarding-status">
              <p>No run of {state.repo} arrived in 10 minutes.</p>
              <button
                type="button"
                onClick={() => setState({ ...state, step: 'waiting', attempt: state.attempt + 1 })}
              >
                Keep waiting
              </button>
            </div>
          ) : null}
          {state.step === 'done' ? (
            <div class="state success" role="status" data-testid="onboarding-status">
              <p>
                First run received: <OutcomeTag execution={state.execution} />{' '}
                <span data-testid="first-coverage">{formatCoverage(state.execution.coverage)}</span>
                {state.execution.baseline === null ? (
                  <>
                    {' '}
                    on {state.execution.branch}:{' '}
                    <span data-testid="first-delta">nothing to compare yet</span>.
                  </>
                ) : (
                  <>
                    , delta{' '}
                    <span data-testid="first-delta">{formatComparison(state.execution)}</span> on{' '}
                    {state.execution.branch}.
                  </>
                )}
              </p>
              <Link to={`/repos/${encodeURIComponent(state.repo)}`} class="button primary">
                Open {state.repo}
              </Link>
            </div>
          ) : null}
        </>
      )}
    </section>
  );
}
