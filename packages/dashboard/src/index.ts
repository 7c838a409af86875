export {
  CLI_CHECKSUM_PATH,
  CLI_TARBALL_PATH,
  type CliDownloadHandler,
  serveCliDownload,
} from './cli-download.js';
export {
  DASHBOARD_ASSET_CACHE_CONTROL,
  DASHBOARD_PAGE_CACHE_CONTROL,
  dashboardContentSecurityPolicy,
} from './headers.js';
export { type DashboardHandler, type ServeDashboardOptions, serveDashboard } from './serve.js';
