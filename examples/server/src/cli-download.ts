import { fileURLToPath } from 'node:url';

export {
  CLI_CHECKSUM_PATH,
  CLI_TARBALL_PATH,
  type CliDownloadHandler,
  serveCliDownload,
} from '@covgate/dashboard';

/** The tarball the server's build writes beside its modules (`dist/cli/covgate.tgz`). */
export function defaultCliTarball(): string {
  return fileURLToPath(new URL('./cli/covgate.tgz', import.meta.url));
}
