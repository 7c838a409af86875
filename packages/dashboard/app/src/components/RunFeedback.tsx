import {
  type Feedback,
  feedbackDecision,
  feedbackItemName,
  feedbackOutcome,
  feedbackSummary,
} from '../feedback-format.js';

/**
 * The run's "Feedback" section: where its statuses and comment go, and for each whether it
 * was queued or why not, and what the outbox did with it (docs/required-checks.md, "Why
 * nothing was posted").
 */
export function RunFeedback(props: { feedback: Feedback | undefined }) {
  const { feedback } = props;
  return (
    <section aria-labelledby="feedback-title" data-testid="feedback">
      <h2 id="feedback-title">Feedback</h2>
      {feedback === undefined ? (
        <p class="state empty">
          This run was recorded before covgate kept what it posted to the code host.
        </p>
      ) : (
        <>
          <p class="note" data-testid="feedback-summary">
            {feedbackSummary(feedback)}
          </p>
          <div class="table-scroll">
            <table class="feedback-table">
              <thead>
                <tr>
                  <th scope="col">What</th>
                  <th scope="col">Decision</th>
                  <th scope="col">What happened</th>
                </tr>
              </thead>
              <tbody>
                {feedback.items.map((item) => (
                  <tr key={item.kind} data-kind={item.kind}>
                    <th scope="row">{feedbackItemName(item)}</th>
                    <td>{feedbackDecision(item)}</td>
                    <td>{feedbackOutcome(item)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
