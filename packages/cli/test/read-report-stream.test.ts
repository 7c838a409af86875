import { constants } from 'node:buffer';
import { once } from 'node:events';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeReports } from '../src/reports/merge.js';
import { parseReport, readReport, streamingParser } from '../src/reports/read-report.js';
import type { ParsedReport } from '../src/reports/types.js';

/** Line `l` of file `f` ran `hits(f, l)` times: a third of the lines never. */
const hits = (f: number, l: number) => ((f + l) % 3 === 0 ? 0 : (l * 7) % 13);
/** A path per file, some with characters of several UTF-8 bytes to split across reads. */
const pathOf = (f: number) => `src/mödule${f % 7}/fïle-${f}-日本.ts`;

/** The formats covgate reads as a stream, piece by piece. */
const STREAMED_FORMATS = ['lcov', 'cobertura', 'clover', 'jacoco'] as const;
type StreamedFormat = (typeof STREAMED_FORMATS)[number];

/** How each tool writes a report: its head and tail, a file's opening and closing, a line. */
const WRITERS: Record<
  StreamedFormat,
  {
    head: string;
    file: (f: number) => string;
    line: (f: number, l: number) => string;
    endFile: string;
    tail: string;
  }
> = {
  lcov: {
    head: '',
    file: (f) => `TN:\nSF:${pathOf(f)}\n`,
    line: (f, l) => `DA:${l},${hits(f, l)}\n`,
    endFile: 'end_of_record\n',
    tail: '',
  },
  cobertura: {
    head: '<?xml version="1.0" ?>\n<coverage version="7.4">\n<packages><package name="p"><classes>\n',
    file: (f) => `<class name="c${f}" filename="${pathOf(f)}"><methods/><lines>\n`,
    line: (f, l) => `<line number="${l}" hits="${hits(f, l)}"/>\n`,
    endFile: '</lines></class>\n',
    tail: '</classes></package></packages>\n</coverage>\n',
  },
  clover: {
    head: '<?xml version="1.0" encoding="UTF-8"?>\n<coverage clover="3.2.0">\n<project>\n',
    file: (f) => `<file name="f${f}" path="${pathOf(f)}">\n`,
    line: (f, l) => `<line num="${l}" count="${hits(f, l)}" type="stmt"/>\n`,
    endFile: '</file>\n',
    tail: '</project>\n</coverage>\n',
  },
  jacoco: {
    head: '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd"><report name="r">',
    file: (f) => `<package name="p${f}"><sourcefile name="${pathOf(f).slice(4)}">`,
    line: (f, l) => {
      const h = hits(f, l);
      return `<line nr="${l}" mi="${h ? 0 : 3}" ci="${h}" mb="0" cb="0"/>`;
    },
    endFile: '</sourcefile></package>',
    tail: '</report>',
  },
};

/** A report of `files` files of `lines` lines each, written the way each tool writes it. */
function generate(format: StreamedFormat, files: number, lines: number): string {
  const writer = WRITERS[format];
  const out = [writer.head];
  for (let f = 0; f < files; f++) {
    out.push(writer.file(f));
    for (let l = 1; l <= lines; l++) out.push(writer.line(f, l));
    out.push(writer.endFile);
  }
  out.push(writer.tail);
  return out.join('');
}

const FILES = 6000;
const LINES = 20;
/** What every generated report holds, counted here from the generator's rule. */
const expected = {
  coverable: FILES * LINES,
  covered: Array.from({ length: FILES * LINES }, (_, i) =>
    hits(Math.floor(i / LINES), (i % LINES) + 1),
  ).filter((h) => h > 0).length,
  files: FILES,
};

function shape(report: ParsedReport) {
  return report.files.map((f) => [f.path, f.coverable, f.covered, [...(f.units?.() ?? [])]]);
}

describe('reports read as a stream', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'covgate-stream-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each(STREAMED_FORMATS)(
    'reads a %s report of several read pieces as its whole text',
    async (format) => {
      const text = generate(format, FILES, LINES);
      // More than one read piece (1 MiB).
      expect(Buffer.byteLength(text)).toBeGreaterThan(1024 * 1024);
      const file = join(dir, `report.${format}`);
      await writeFile(file, text);
      const streamed = await readReport(file);
      expect(streamed.format).toBe(format);
      const summary = mergeReports([streamed]);
      expect([summary.covered, summary.coverable, summary.files]).toEqual([
        expected.covered,
        expected.coverable,
        expected.files,
      ]);
      expect(shape(streamed)).toEqual(shape(parseReport(text)));
    },
  );

  it('reads any split of a report into pieces as the whole text', () => {
    for (const format of STREAMED_FORMATS) {
      const text = `\uFEFF${generate(format, 4, 3)}`;
      const whole = shape(parseReport(text, format));
      fc.assert(
        fc.property(fc.uniqueArray(fc.nat({ max: text.length }), { maxLength: 40 }), (cuts) => {
          const stream = streamingParser(format)!;
          let from = 0;
          for (const cut of [...cuts].sort((a, b) => a - b)) {
            stream.write(text.slice(from, cut));
            from = cut;
          }
          stream.write(text.slice(from));
          expect(shape(stream.end())).toEqual(whole);
        }),
        { numRuns: 200 },
      );
    }
  });

  it('refuses a JSON report longer than a Node.js string, saying why and what to do', async () => {
    const file = join(dir, 'coverage-final.json');
    await writeFile(file, '{"/a.js":{"path":"/a.js","statementMap":{},"s":{}}');
    // Sparse: as long as the limit plus one byte, without using the disk.
    await truncate(file, constants.MAX_STRING_LENGTH + 1);
    const mb = ((constants.MAX_STRING_LENGTH + 1) / 1e6).toFixed(1);
    await expect(readReport(file)).rejects.toThrow(
      `${file}: is ${mb} MB, too large: a JSON report is read whole and Node.js ${process.version} strings hold at most ${constants.MAX_STRING_LENGTH} characters; write lcov instead (Istanbul: the lcovonly reporter; coverage.py: coverage lcov), which covgate reads as a stream`,
    );
    await expect(readReport(file, 'coverage-py')).rejects.toThrow(
      `${file}: is ${mb} MB, too large: coverage.py JSON is read whole and Node.js`,
    );
    const profile = join(dir, 'coverage.out');
    await writeFile(profile, 'mode: set\na.go:1.1,2.2 1 1\n');
    await truncate(profile, constants.MAX_STRING_LENGTH + 1);
    await expect(readReport(profile)).rejects.toThrow(
      `${profile}: is ${mb} MB, too large: a Go cover profile is read whole and Node.js ${process.version} strings hold at most ${constants.MAX_STRING_LENGTH} characters; pass the profile of each package with its own --report`,
    );
  });

  it('stops at an lcov line longer than 16 MiB instead of holding the whole file', async () => {
    const file = join(dir, 'binary.info');
    await writeFile(file, 'TN:\nSF:a.c\n');
    await truncate(file, 2 ** 30);
    await expect(readReport(file)).rejects.toThrow(
      `${file}: line 3: longer than 16 MiB, not an lcov entry`,
    );
  });
});

describe('the DOCTYPE of an XML report', () => {
  let server: Server;
  let url: string;
  const requests: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req.url ?? '');
      res.end('<!ENTITY x "fetched">');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.close();
    await once(server, 'close');
  });

  it('is never fetched, whether it names a DTD or declares external entities', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'covgate-doctype-'));
    try {
      const body =
        '<coverage><packages><package><classes><class filename="a.py"><lines><line number="1" hits="1"/></lines></class></classes></package></packages></coverage>';
      const dtd = join(dir, 'dtd.xml');
      await writeFile(
        dtd,
        `<?xml version="1.0" ?>\n<!DOCTYPE coverage SYSTEM "${url}/coverage-04.dtd">\n${body}`,
      );
      expect(mergeReports([await readReport(dtd)]).covered).toBe(1);
      const entities = join(dir, 'entities.xml');
      await writeFile(
        entities,
        `<?xml version="1.0" ?>\n<!DOCTYPE coverage [<!ENTITY % p SYSTEM "${url}/p.dtd"> %p;]>\n${body}`,
      );
      expect(mergeReports([await readReport(entities)]).covered).toBe(1);
      expect(requests).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
