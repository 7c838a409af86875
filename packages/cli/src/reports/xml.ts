import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { MalformedReport } from './types.js';

/** An XML element as fast-xml-parser gives it: attributes by name, children by tag. */
export type XmlNode = { [name: string]: string | XmlNode[] | undefined };

/**
 * Parses an XML report after validating it, with every child element in an array and
 * attributes as plain strings, so parsers walk one shape whatever the element counts.
 * DOCTYPE declarations (JaCoCo writes one) are read but never fetched.
 */
export function parseXml(text: string): XmlNode {
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    throw new MalformedReport(`not well-formed XML (line ${valid.err.line}: ${valid.err.msg})`);
  }
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseAttributeValue: false,
    parseTagValue: false,
    processEntities: true,
    isArray: (_name, _path, _isLeaf, isAttribute) => !isAttribute,
  });
  return parser.parse(text) as XmlNode;
}

/** The child elements named `tag` (none when absent). */
export function children(node: XmlNode | undefined, tag: string): XmlNode[] {
  const value = node?.[tag];
  return Array.isArray(value) ? value : [];
}

/** The only or first root element named `tag`, or undefined. */
export function root(document: XmlNode, tag: string): XmlNode | undefined {
  return children(document, tag)[0];
}

/** An attribute's value, or undefined. */
export function attr(node: XmlNode, name: string): string | undefined {
  const value = node[name];
  return typeof value === 'string' ? value : undefined;
}
