import { describeStandalonePackage } from '../../../test/support/standalone-package.js';

describeStandalonePackage('@covgate/webhook-signature', new URL('../', import.meta.url));
