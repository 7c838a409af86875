/**
 * `@covgate/core/line-data`: the encoding of a file's line data as `POST /v1/executions`
 * takes it (docs/decisions.md, "Line data"), with no dependency and no Node API, so that a
 * client (covgate's CLI) writes exactly what the server checks and stores.
 */
export {
  decodeLineData,
  decodeRanges,
  type EncodedLineData,
  encodeCovered,
  encodeLineData,
  encodeRanges,
  type LineData,
  MAX_LINE_NUMBER,
  mergeLineData,
} from './executions/line-data.js';
