import * as webhookSignature from '@covgate/webhook-signature';
import { describeReadme } from '../../../test/support/readme-example.js';

describeReadme(
  '@covgate/webhook-signature',
  new URL('../README.md', import.meta.url),
  webhookSignature,
  [true, 'timestamp_outside_tolerance', 'signature_mismatch'],
);
