import { createHash } from 'node:crypto';
import { type Reply, textReply } from './reply.js';

/**
 * The look of covgate's few HTML pages, the dashboard's sign-in card: inline, so the page
 * needs nothing from elsewhere, and allowed by its hash alone.
 */
const PAGE_STYLE = [
  ':root{color:#1f2328;background:#fff;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}',
  'body{margin:0}',
  'main{max-width:28rem;margin:4rem auto;padding:0 1rem;text-align:center}',
  'h1{font-size:1.6rem;margin:0 0 1rem}',
  'p{color:#59636e}',
  'strong{color:#1f2328}',
  'button{font:inherit;font-weight:600;padding:.75rem 1.5rem;margin-top:1rem;border-radius:6px;border:1px solid #1f6f43;background:#1f6f43;color:#fff;cursor:pointer}',
  'button:hover{background:#185c37}',
  'button:focus-visible{outline:3px solid #0969da;outline-offset:2px}',
].join('');

/** `'sha256-…'` of {@link PAGE_STYLE}, for the Content-Security-Policy's `style-src`. */
const PAGE_STYLE_SOURCE = `'sha256-${createHash('sha256').update(PAGE_STYLE, 'utf8').digest('base64')}'`;

/**
 * Headers of covgate's few HTML pages: nothing cached, no referrer (their URLs carry one-time
 * tokens), no script, no style but their own and no framing allowed, forms posting only to
 * covgate itself.
 */
const HTML_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'content-security-policy': `default-src 'none'; style-src ${PAGE_STYLE_SOURCE}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  'x-content-type-options': 'nosniff',
};

/**
 * Headers of every answer of the browser routes whose URLs carry a one-time secret
 * (`/auth/link`, `/auth/invite`): never cached, never sent on as a referrer.
 */
export const PRIVATE_ANSWER_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
};

/** Escapes text for an HTML element or a double-quoted attribute. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** A minimal page that confirms an action with one button posting a form. */
export interface ConfirmPage {
  title: string;
  /** Paragraphs of text (escaped here). */
  paragraphs: readonly string[];
  /** Where the form posts: a URL relative to the page's own. */
  action: string;
  /** Hidden fields of the form. */
  fields: Readonly<Record<string, string>>;
  button: string;
}

/** `200` with a page whose only control is a button that posts `fields` to `action`. */
export function confirmPageReply(page: ConfirmPage): Reply {
  const hidden = Object.entries(page.fields)
    .map(
      ([name, value]) =>
        `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`,
    )
    .join('');
  const text = page.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join('');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(page.title)}</title><style>${PAGE_STYLE}</style></head><body><main><h1>${escapeHtml(page.title)}</h1>${text}<form method="post" action="${escapeHtml(page.action)}">${hidden}<button type="submit">${escapeHtml(page.button)}</button></form></main></body></html>`;
  return textReply(200, html, { ...HTML_HEADERS });
}
