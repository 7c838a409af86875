import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { slug } from 'github-slugger';
import { type DefaultTheme, defineConfig } from 'vitepress';

const docsDir = fileURLToPath(new URL('..', import.meta.url));
const repoDir = resolve(docsDir, '..');
/** Where files outside `docs/` (the root README, bench results, sources) are read. */
const REPOSITORY_BLOB = 'https://github.com/covgate/covgate/blob/main/';

function generatedSidebar(name: string): DefaultTheme.SidebarItem[] {
  const path = resolve(docsDir, '.vitepress', 'generated', `${name}.json`);
  if (!existsSync(path)) {
    throw new Error(
      `${path} is missing: build the site with \`pnpm docs:build\`, which generates it`,
    );
  }
  return JSON.parse(readFileSync(path, 'utf8')) as DefaultTheme.SidebarItem[];
}

const guide: DefaultTheme.SidebarItem[] = [
  {
    text: 'Introduction',
    items: [
      { text: 'What is covgate?', link: '/guide/what-is-covgate' },
      { text: 'Quick start: gate CI', link: '/quickstart/ci' },
      { text: 'Quick start: self-host the server', link: '/quickstart/self-host' },
      { text: 'Quick start: embed in Express', link: '/quickstart/embed-express' },
      { text: 'Quick start: embed in Hapi', link: '/quickstart/embed-hapi' },
      { text: 'Quick start: embed in a Fetch runtime', link: '/quickstart/embed-fetch' },
      { text: 'Gate pull requests', link: '/guide/gate-pull-requests' },
      { text: 'Pull request feedback', link: '/guide/pull-request-feedback' },
      { text: 'Merge requests on GitLab', link: '/guide/gitlab-merge-requests' },
      { text: 'Pull requests on Gitea and Forgejo', link: '/guide/gitea-pull-requests' },
      { text: 'Sharded and matrix CI', link: '/guide/sharded-ci' },
    ],
  },
  {
    text: 'Concepts',
    items: [
      { text: 'Gate evaluation', link: '/gate-evaluation' },
      { text: 'Policy (covgate.yml)', link: '/policy' },
      { text: 'Tokens and sessions', link: '/tokens-and-sessions' },
      { text: 'Signing in and teams', link: '/teams' },
      { text: 'Security model', link: '/security-model' },
      { text: 'Scaling out', link: '/scaling' },
      { text: 'OAuth login', link: '/oauth' },
      { text: 'Payment webhooks', link: '/webhooks' },
      { text: 'Audit log', link: '/audit-log' },
      { text: 'Storage', link: '/storage' },
    ],
  },
  {
    text: 'Operations',
    items: [
      { text: 'Configuration', link: '/configuration' },
      { text: 'Deploy: container, compose, Kubernetes, systemd', link: '/deploy' },
      { text: 'Production checklist', link: '/operations/production-checklist' },
      { text: 'Upgrading', link: '/operations/upgrading' },
      { text: 'Secret rotation', link: '/operations/rotation' },
      { text: 'Backups', link: '/operations/backups' },
      { text: 'Troubleshooting', link: '/operations/troubleshooting' },
      { text: 'Stores (SQLite, MySQL)', link: '/stores' },
    ],
  },
  {
    text: 'Clients',
    items: [
      { text: 'Command-line client', link: '/cli' },
      { text: 'GitHub Action', link: '/github-action' },
      { text: 'Keyless CI (OIDC)', link: '/keyless-ci' },
      { text: 'Fork pull requests', link: '/fork-pull-requests' },
      { text: 'Required checks', link: '/required-checks' },
      { text: 'Typed client', link: '/client' },
      { text: 'Dashboard', link: '/dashboard' },
    ],
  },
  {
    text: 'Adapters and utilities',
    items: [
      { text: 'Express', link: '/adapters/express' },
      { text: 'Hapi', link: '/adapters/hapi' },
      { text: 'Node bridge', link: '/adapters/node-bridge' },
      { text: 'Environment filter', link: '/env-filter' },
      { text: 'Webhook signatures', link: '/webhook-signatures' },
    ],
  },
  {
    text: 'Project',
    items: [
      { text: 'Release notes', link: '/release-notes' },
      { text: 'Decisions', link: '/decisions' },
      { text: 'Architecture', link: '/architecture' },
      { text: 'Glossary', link: '/glossary' },
      { text: 'Contributing', link: '/contributing' },
    ],
  },
];

/** Keeps only sidebar entries whose page exists, so a page still being written is no dead link. */
function existing(items: DefaultTheme.SidebarItem[]): DefaultTheme.SidebarItem[] {
  return items
    .map((group) => ({
      ...group,
      items: group.items?.filter(
        (item) => !item.link || existsSync(resolve(docsDir, `.${item.link}.md`)),
      ),
    }))
    .filter((group) => (group.items?.length ?? 0) > 0);
}

/**
 * The package reference's sidebars: the list of packages on the reference's index, and on a
 * package's pages that list followed by the package's own pages only. One
 * sidebar of every member of every package was rendered into each of 400 pages.
 */
/** The groups of a package's sidebar; its page lists everything, functions and types too. */
const SIDEBAR_GROUPS = ['Classes', 'Interfaces'];

/**
 * A package's classes and interfaces. Its functions have pages too, but listing them in the
 * sidebar of every page of the package (63 in the core) weighed 20 MB; type aliases and
 * variables are on the package's page, and the theme's anchors to them are not the site's
 * (`#report-formats` for the heading `#report_formats`).
 */
function ownPages(groups: DefaultTheme.SidebarItem[]): DefaultTheme.SidebarItem[] {
  return groups.filter((group) => SIDEBAR_GROUPS.includes(group.text ?? ''));
}

function packageSidebars(): DefaultTheme.SidebarMulti {
  const packages = generatedSidebar('packages');
  const list: DefaultTheme.SidebarItem[] = packages.map(({ text, link }) => ({
    text: text ?? '',
    ...(link ? { link } : {}),
  }));
  const sidebars: DefaultTheme.SidebarMulti = {
    '/reference/packages/': [{ text: 'Packages', items: list }],
  };
  for (const item of packages) {
    if (!item.link) continue;
    sidebars[item.link] = [
      { text: 'Packages', link: '/reference/packages/', collapsed: true, items: list },
      { text: item.text ?? '', link: item.link, items: ownPages(item.items ?? []) },
    ];
  }
  return sidebars;
}

export default defineConfig({
  title: 'covgate',
  description: 'Gate every CI run on test coverage and see where coverage is going.',
  lang: 'en-GB',
  head: [['link', { rel: 'icon', type: 'image/svg+xml', href: '/favicon.svg' }]],
  srcExclude: ['README.md', 'node_modules/**', 'scripts/**', 'test/**', 'snippets/**'],
  cleanUrls: false,
  lastUpdated: false,
  markdown: {
    // Headings such as `GET /v1/tokens/{id}` are route names, not attribute lists.
    attrs: { disable: true },
    // GitHub's anchors, so a link such as `api-reference.md#get-v1tokensid` works on GitHub and here.
    anchor: { slugify: slug },
    config(md) {
      // Links to files outside docs/ (the root README, bench/, sources) point at the repository.
      const defaultRender =
        md.renderer.rules.link_open ??
        ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
      md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
        const token = tokens[idx];
        const href = token?.attrGet('href');
        const source =
          (env as { realPath?: string; path?: string }).realPath ?? (env as { path?: string }).path;
        if (token && href && source && /^\.\.?\//.test(href)) {
          const fragmentAt = href.indexOf('#');
          const path = fragmentAt === -1 ? href : href.slice(0, fragmentAt);
          const fragment = fragmentAt === -1 ? '' : href.slice(fragmentAt);
          const target = resolve(dirname(source), path);
          if (relative(docsDir, target).startsWith('..')) {
            token.attrSet('href', REPOSITORY_BLOB + relative(repoDir, target) + fragment);
            token.attrSet('target', '_blank');
          }
        }
        return defaultRender(tokens, idx, options, env, self);
      };
    },
  },
  themeConfig: {
    search: { provider: 'local' },
    nav: [
      { text: 'Guide', link: '/guide/what-is-covgate' },
      { text: 'HTTP API', link: '/reference/http/' },
      { text: 'Packages', link: '/reference/packages/' },
    ],
    sidebar: {
      '/reference/http/': [{ text: 'HTTP API', items: generatedSidebar('http') }],
      ...packageSidebars(),
      '/': existing(guide),
    },
    outline: { level: [2, 3] },
    footer: { message: 'MIT licensed.' },
  },
});
