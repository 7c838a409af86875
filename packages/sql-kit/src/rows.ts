/** The first row of a query's answer, or null. */
export const first = async <Row>(rows: PromiseLike<Row[]>): Promise<Row | null> =>
  (await rows)[0] ?? null;
