/**
 * `@covgate/example-shared`: what the Express and Hapi example applications have in common,
 * so that each example keeps only its own framework wiring.
 */

export { seedDemoOrganisation } from './demo-organisation.js';
export { homePage } from './home-page.js';
export {
  DEVELOPMENT_SERVICE_TOKEN,
  readSettings,
  type Settings,
  SettingsError,
} from './settings.js';
export {
  exitCannotListen,
  onShutdownSignal,
  prepareTodoApp,
  reportListening,
  type TodoAppStartUp,
} from './start-up.js';
export {
  createTodoList,
  MAX_TITLE_LENGTH,
  type Todo,
  type TodoList,
  todoTitleOf,
} from './todos.js';
