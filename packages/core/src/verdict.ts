/**
 * `@covgate/core/verdict`: the words covgate says of a run's verdict, with no dependency and
 * no Node API, so that the run page (a browser bundle), the pull-request comment and the CLI
 * say the same sentence of the same facts, and name a carried part's age alike.
 */
export { ageText, carriedText } from './executions/carryforward.js';
export {
  type BranchFacts,
  TARGET_SOURCE_PHRASE,
  type VerdictFacts,
  type VerdictTargetSource,
  verdictSentence,
} from './gate/verdict-sentence.js';
