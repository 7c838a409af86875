import * as envFilter from '@covgate/env-filter';
import { describeReadme } from '../../../test/support/readme-example.js';

describeReadme('@covgate/env-filter', new URL('../README.md', import.meta.url), envFilter, [
  'CI HOME JAVA_HOME PATH PYTEST_ADDOPTS',
]);
