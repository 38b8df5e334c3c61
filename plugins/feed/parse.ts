/**
 * RSS 2.0, RSS 1.0 (RDF) and Atom 1.0 documents read into one item shape, oldest first. A
 * well-kept XML parser does the XML (entities, CDATA, namespaces as prefixes); this file only
 * knows where each format keeps an item's title, link, id and date.
 */
import { XMLParser } from 'fast-xml-parser'

export interface FeedItem {
  /** The item's id (`guid`, Atom `id`), else its link, else its title: the deduplication key. */
  id: string
  title: string | null
  link: string | null
  /** ISO 8601, when the item says when it was published (or updated). */
  published: string | null
  summary: string | null
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  textNodeName: '#text',
  processEntities: true,
  htmlEntities: true,
  isArray: (name) => ['item', 'entry', 'link'].includes(name),
})

type Node = Record<string, unknown>

const text = (value: unknown): string | null => {
  if (value === undefined || value === null) return null
  if (typeof value === 'string' || typeof value === 'number') return String(value).trim() || null
  if (typeof value === 'object' && '#text' in (value as Node)) return text((value as Node)['#text'])
  return null
}

const date = (value: unknown): string | null => {
  const raw = text(value)
  if (!raw) return null
  const at = Date.parse(raw)
  return Number.isNaN(at) ? null : new Date(at).toISOString()
}

/** Atom: the `alternate` link (or the first without a rel); RSS: the element's text. */
function linkOf(links: unknown): string | null {
  if (!Array.isArray(links)) return text(links)
  const atom = links.find(
    (l) => typeof l === 'object' && l && ['alternate', undefined].includes((l as Node)['@rel'] as string),
  )
  if (atom) return text((atom as Node)['@href'])
  return text(links[0])
}

function item(node: Node, atom: boolean): FeedItem {
  const link = linkOf(node.link)
  const title = text(node.title)
  const id = text(atom ? node.id : node.guid) ?? link ?? title
  return {
    id: id ?? '',
    title,
    link,
    published: date(atom ? (node.published ?? node.updated) : (node.pubDate ?? node['dc:date'])),
    summary: text(atom ? (node.summary ?? node.content) : node.description),
  }
}

/** The items of a feed document, oldest first; throws a message when the document is no feed. */
export function parseFeed(xml: string): FeedItem[] {
  let doc: Node
  try {
    doc = parser.parse(xml) as Node
  } catch (error) {
    throw new Error(`the document is not well-formed XML: ${error instanceof Error ? error.message : error}`)
  }
  const atom = doc.feed as Node | undefined
  const rss = (doc.rss as Node | undefined)?.channel as Node | undefined
  const rdf = doc['rdf:RDF'] as Node | undefined
  const nodes = atom ? (atom.entry as Node[]) : rss ? (rss.item as Node[]) : rdf ? (rdf.item as Node[]) : null
  if (nodes === null) throw new Error('the document is neither an RSS nor an Atom feed')
  const items = (nodes ?? []).map((n) => item(n, !!atom)).filter((i) => i.id !== '')
  return order(items)
}

/**
 * Oldest first: by date when every item has one, else the document's order reversed (feeds list
 * the newest first).
 */
function order(items: FeedItem[]): FeedItem[] {
  if (items.every((i) => i.published !== null))
    return items
      .map((i, index) => ({ i, index }))
      .sort((a, b) => a.i.published!.localeCompare(b.i.published!) || b.index - a.index)
      .map((x) => x.i)
  return [...items].reverse()
}
