import { describeStandalonePackage } from '../../../test/support/standalone-package.js';

describeStandalonePackage('@covgate/env-filter', new URL('../', import.meta.url));
