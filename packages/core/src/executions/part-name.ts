/** A part's name: the character rule of `component` (a letter or digit, then `.`, `_`, `-`). */
export const PART_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
