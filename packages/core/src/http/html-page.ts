import { type Reply, textReply } from './reply.js';

/**
 * Headers of covgate's few HTML pages: nothing cached, no referrer (their URLs carry one-time
 * tokens), no script, no style and no framing allowed, forms posting only to covgate itself.
 */
const HTML_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
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
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(page.title)}</title></head><body><main><h1>${escapeHtml(page.title)}</h1>${text}<form method="post" action="${escapeHtml(page.action)}">${hidden}<button type="submit">${escapeHtml(page.button)}</button></form></main></body></html>`;
  return textReply(200, html, { ...HTML_HEADERS });
}
