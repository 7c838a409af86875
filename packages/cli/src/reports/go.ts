import { MalformedReport, type ParsedReport } from './types.js';
import { fileFromUnits, recordHits } from './units.js';

const BLOCK = /^(.+):(\d+\.\d+,\d+\.\d+) (\d+) (\d+)$/;

/**
 * Parses a Go cover profile (`go test -coverprofile`). Go measures statements, not lines:
 * each block counts its number of statements, covered when its count is > 0, which is the
 * percentage `go test -cover` and `go tool cover -func` print ("of statements"). A block listed
 * more than once (profiles of several packages with `-coverpkg`) counts once.
 */
export function parseGoProfile(text: string): ParsedReport {
  const lines = text.split('\n');
  if (!/^mode: (set|count|atomic)\r?$/.test(lines[0] ?? '')) {
    throw new MalformedReport('line 1: not "mode: set|count|atomic"');
  }
  const files = new Map<
    string,
    { units: Map<number | string, number>; weights: Map<number | string, number> }
  >();
  for (let i = 1; i < lines.length; i++) {
    const line = (lines[i] as string).replace(/\r$/, '');
    if (line === '') continue;
    // Concatenated profiles repeat the mode line.
    if (line.startsWith('mode: ')) continue;
    const match = BLOCK.exec(line);
    if (!match) throw new MalformedReport(`line ${i + 1}: not "file:start,end statements count"`);
    const [, path, block, statements, hits] = match as unknown as [
      string,
      string,
      string,
      string,
      string,
    ];
    let file = files.get(path);
    if (!file) {
      file = { units: new Map(), weights: new Map() };
      files.set(path, file);
    }
    recordHits(file.units, block, Number(hits));
    file.weights.set(block, Number(statements));
  }
  return {
    format: 'go',
    files: [...files].map(([path, file]) => fileFromUnits(path, file.units, file.weights)),
  };
}
