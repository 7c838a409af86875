import { ageText } from '@covgate/core/verdict';
import { commitUrl } from '../code-host.js';
import { runPath } from '../router.js';
import type { RunDetail } from '../run-types.js';
import { Link } from './ui.js';

/** A commit's report merged from parts: what it received, lacks and carried. */
type Parts = NonNullable<RunDetail['parts']>;

/**
 * The parts a commit's report was merged from: those received, those missing, and those
 * carried forward from an earlier commit's report, each with its commit, run and age
 * (docs/decisions.md, "Carryforward of a missing part"): a carried part is never silent.
 */
export function RunParts(props: { repo: string; parts: Parts; webUrl: string | null }) {
  const { parts } = props;
  const missing =
    parts.missing.length > 0
      ? parts.missing.join(', ')
      : parts.missing_count > 0
        ? `${parts.missing_count} of the expected parts`
        : null;
  return (
    <>
      <h2>Parts</h2>
      <dl class="details" data-testid="parts">
        <div>
          <dt>Received</dt>
          <dd>{parts.received.join(', ')}</dd>
        </div>
        {missing === null ? null : (
          <div>
            <dt>Missing</dt>
            <dd>{missing}</dd>
          </div>
        )}
      </dl>
      {parts.carried.length === 0 ? null : (
        <>
          <p class="note">
            Carried forward: not run on this commit. Their lines count in the coverage, never on a
            changed line, so never in the patch.
          </p>
          <ul data-testid="parts-carried">
            {parts.carried.map((carried) => (
              <li key={carried.part}>
                <code>{carried.part}</code> carried from{' '}
                <CarriedCommit sha={carried.from_commit} webUrl={props.webUrl} /> (
                <Link to={runPath(props.repo, carried.from_run)}>its run</Link>),{' '}
                {ageText(carried.age_seconds)}
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

/** The commit a part was carried from, linked to the code host when its URL is known. */
function CarriedCommit(props: { sha: string; webUrl: string | null }) {
  const url = commitUrl(props.webUrl, props.sha);
  const short = <code class="commit">{props.sha.slice(0, 7)}</code>;
  return url ? (
    <a href={url} class="external" aria-label={`Commit ${props.sha.slice(0, 7)} on the code host`}>
      {short}
    </a>
  ) : (
    short
  );
}
