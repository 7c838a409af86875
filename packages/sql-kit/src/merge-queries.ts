/** The intersection of a union's members. */
type Intersection<Union> = (Union extends unknown ? (member: Union) => void : never) extends (
  all: infer All,
) => void
  ? All
  : never;

/** One object holding the queries of every factory, each given `context`. */
export function mergeQueries<
  Context,
  Factories extends Readonly<Record<string, (context: Context) => object>>,
>(context: Context, factories: Factories): Intersection<ReturnType<Factories[keyof Factories]>> {
  return Object.assign({}, ...Object.values(factories).map((make) => make(context)));
}
