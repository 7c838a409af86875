/**
 * `@covgate/core/percent`: how covgate truncates and shows percentages, with no dependency
 * and no Node API, so that a browser bundle (the dashboard) shows figures exactly as the API
 * stores them and the badge draws them.
 */
export {
  type PercentPlaces,
  truncateDecimal,
  truncateToHundredths,
} from './numbers/truncate-decimal.js';
