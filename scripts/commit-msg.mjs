#!/usr/bin/env node
// Checks a commit message the way contributors are asked to write one (docs/contributing.md):
// a subject of at most 72 characters, then a blank line before the body that gives the why.
// Git runs it as the commit-msg hook (`git config core.hooksPath .githooks`); it reads only
// the message it is given, so the history before the rule is never checked.
import { readFileSync } from 'node:fs';

/** The longest subject a commit may have. */
export const MAX_SUBJECT = 72;

/**
 * What is wrong with a commit message, or an empty list. Lines git drops (`#` comments, the
 * diff below a scissors line of `commit --verbose`) are not read.
 *
 * @param {string} message
 * @returns {string[]}
 */
export function commitMessageProblems(message) {
  const lines = [];
  for (const line of message.split('\n')) {
    if (line.startsWith('# ------------------------ >8')) break;
    if (!line.startsWith('#')) lines.push(line.replace(/\s+$/, ''));
  }
  while (lines.length > 0 && lines[0] === '') lines.shift();
  const [subject = '', second] = lines;
  if (subject === '') return ['the subject is empty'];
  const problems = [];
  const length = [...subject].length;
  if (length > MAX_SUBJECT) {
    problems.push(
      `the subject has ${length} characters, more than ${MAX_SUBJECT}: say what changed in it and put the why in the body`,
    );
  }
  if (second !== undefined && second !== '') {
    problems.push('the subject must be followed by a blank line before the body');
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node scripts/commit-msg.mjs <commit message file>\n');
    process.exit(2);
  }
  const problems = commitMessageProblems(readFileSync(file, 'utf8'));
  for (const problem of problems) process.stderr.write(`commit-msg: ${problem}\n`);
  process.exit(problems.length > 0 ? 1 : 0);
}
