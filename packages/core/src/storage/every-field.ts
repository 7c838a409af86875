/**
 * `true` when `Fields` names every key of `T`, else `{ missing: <the keys it leaves out> }`:
 * assigning `true` to it fails to compile once a field is added to a record but not to its
 * list.
 */
export type EveryField<T, Fields extends readonly unknown[]> = [
  Exclude<keyof T, Fields[number]>,
] extends [never]
  ? true
  : { missing: Exclude<keyof T, Fields[number]> };
