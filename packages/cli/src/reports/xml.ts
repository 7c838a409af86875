import { SaxesParser } from 'saxes';
import { MalformedReport, type ParsedReport } from './types.js';
import { count } from './units.js';

/** The attributes of the element being opened; valid only during `open`. */
export interface Attributes {
  /** The value of attribute `name` (entities replaced), or undefined. */
  get(name: string): string | undefined;
}

/** What a streaming report parser does with the elements of an XML report. */
export interface XmlHandler {
  /**
   * An element starts.
   *
   * @param name - the element's name
   * @param attributes - its attributes
   * @param stack - the names of the elements around it, the root first (itself not included)
   */
  open(name: string, attributes: Attributes, stack: readonly string[]): void;
  /** An element ends (for `<x/>` right after `open`); `stack` as `open` had it. */
  close(name: string, stack: readonly string[]): void;
  /**
   * The elements whose text the handler reads through `text`; the text of any other element
   * is never built (most reports have none but whitespace).
   */
  readonly textElements?: readonly string[];
  /** Text of an element of `textElements`, possibly in several pieces. */
  text?(text: string): void;
}

/**
 * The two steps of saxes 6.0.0 (pinned) that turn the attributes it parsed into objects: one
 * object per attribute, then one per element. On a JaCoCo report, where most elements are
 * `<counter>`s and `<line>`s of three to five attributes, that is about a third of the parse
 * time and most of the garbage. {@link XmlReader} replaces them with two arrays it reads in
 * place, and checks duplicate attributes as saxes does.
 */
interface SaxesAttributeSteps {
  pushAttrib(name: string, value: string): void;
  processAttribs(): void;
}

class AttributeList implements Attributes {
  private readonly names: string[] = [];
  private readonly values: string[] = [];
  private length = 0;

  push(name: string, value: string): void {
    this.names[this.length] = name;
    this.values[this.length++] = value;
  }

  get(name: string): string | undefined {
    const { names } = this;
    for (let i = 0; i < this.length; i++) if (names[i] === name) return this.values[i];
    return undefined;
  }

  duplicate(): string | undefined {
    const { names } = this;
    for (let i = 1; i < this.length; i++) {
      for (let j = 0; j < i; j++) if (names[i] === names[j]) return names[i];
    }
    return undefined;
  }

  clear(): void {
    this.length = 0;
  }
}

/**
 * Reads an XML report piece by piece with saxes and hands each element to a handler, never
 * building a tree, so memory does not grow with the report. Only well-formed XML is read.
 * A DOCTYPE (JaCoCo writes one) is skipped: nothing it names is fetched and the entities it
 * declares are not expanded (a reference to one is an error), so a billion-laughs document
 * costs nothing.
 */
export class XmlReader {
  private readonly parser = new SaxesParser<{ xmlns: false; position: true }>({
    xmlns: false,
    position: true,
  });
  private readonly stack: string[] = [];
  private started = false;

  constructor(handler: XmlHandler) {
    const { parser, stack } = this;
    const attributes = new AttributeList();
    const steps = parser as unknown as SaxesAttributeSteps;
    steps.pushAttrib = (name, value) => attributes.push(name, value);
    steps.processAttribs = () => {
      const name = attributes.duplicate();
      if (name !== undefined) parser.fail(`duplicate attribute: ${name}.`);
    };
    const { textElements } = handler;
    const onText = (text: string) => handler.text?.(text);
    parser.on('opentag', (tag) => {
      handler.open(tag.name, attributes, stack);
      attributes.clear();
      stack.push(tag.name);
      if (textElements?.includes(tag.name)) parser.on('text', onText);
    });
    parser.on('closetag', (tag) => {
      if (textElements?.includes(tag.name)) parser.off('text');
      stack.pop();
      handler.close(tag.name, stack);
    });
    parser.on('error', (error) => {
      const [, line, problem] = /^(\d+):\d+: (.*?)\.?$/s.exec(error.message) ?? [];
      const explained =
        problem === 'undefined entity'
          ? 'undefined entity; entities declared in a DOCTYPE are not expanded'
          : (problem ?? error.message);
      throw new MalformedReport(`not well-formed XML (line ${line ?? parser.line}: ${explained})`);
    });
  }

  /** Reads the next piece of the document. */
  write(chunk: string): void {
    // saxes reports text before the root only where that text ends, which in a large file
    // given with the wrong --format is far from where it starts.
    const first = this.started ? null : /[^\s\uFEFF]/.exec(chunk);
    if (first) {
      this.started = true;
      if (first[0] !== '<') {
        const line = this.parser.line + chunk.slice(0, first.index).split('\n').length - 1;
        throw new MalformedReport(
          `not well-formed XML (line ${line}: text before the root element)`,
        );
      }
    }
    this.parser.write(chunk);
  }

  /** Ends the document: a file that ends inside an element is named as truncated. */
  end(): void {
    const open = this.stack.at(-1);
    if (open !== undefined) {
      throw new MalformedReport(
        `not well-formed XML: the file ends at line ${this.parser.line} inside <${open}> (truncated?)`,
      );
    }
    this.parser.close();
  }
}

/**
 * Reads a whole XML text with a handler, for callers that already hold the text.
 *
 * @throws MalformedReport when it is not well-formed or the handler refuses it
 */
export function readXml(text: string, handler: XmlHandler): void {
  const reader = new XmlReader(handler);
  reader.write(text);
  reader.end();
}

/** A report format's handler: the elements in, the parsed report out. */
export interface XmlReportHandler extends XmlHandler {
  /** The report read so far (call after the document ended). */
  result(): ParsedReport;
}

/**
 * An attribute holding a count (a line number, a hit count), as {@link count} reads it; plain
 * digits, by far the most common, are read without a `Number()` call.
 */
export function countAttribute(value: string | undefined, what: string): number {
  if (value !== undefined && value.length > 0 && value.length < 16) {
    let n = 0;
    for (let i = 0; i < value.length; i++) {
      const digit = value.charCodeAt(i) - 48;
      if (digit < 0 || digit > 9) return count(value, what);
      n = n * 10 + digit;
    }
    return n;
  }
  return count(value, what);
}
