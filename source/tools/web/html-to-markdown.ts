import { createDocument } from '@mixmark-io/domino'
import TurndownService from 'turndown'

/**
 * HTML → Markdown for WebFetch: turndown on a domino DOM. Loaded only by a fetch that got HTML (a
 * dynamic import), so neither library is on the start-up path. The page is cut to its main content
 * (`<main>`, `role=main`, or a lone `<article>`) when it has one, and chrome, scripts, styles, forms
 * and embedded media are removed before conversion; links and images are made absolute so the model
 * can fetch them.
 */

/** The few DOM members used here (domino implements them; the project builds without the DOM lib). */
interface DomElement {
  nodeName: string
  textContent: string | null
  parentNode: DomElement | null
  firstChild: DomElement | null
  nextSibling: DomElement | null
  children: ArrayLike<DomElement>
  firstElementChild: DomElement | null
  nextElementSibling: DomElement | null
  getAttribute(name: string): string | null
  setAttribute(name: string, value: string): void
  remove(): void
  querySelector(selector: string): DomElement | null
  querySelectorAll(selector: string): ArrayLike<DomElement>
}

interface DomDocument {
  title: string
  body: DomElement | null
  documentElement: DomElement
  querySelector(selector: string): DomElement | null
  querySelectorAll(selector: string): ArrayLike<DomElement>
}

export interface Converted {
  markdown: string
  title: string
}

/** Removed wherever they are. */
const NOISE = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'IFRAME',
  'OBJECT',
  'EMBED',
  'SVG',
  'CANVAS',
  'VIDEO',
  'AUDIO',
  'FORM',
  'BUTTON',
  'SELECT',
  'INPUT',
  'TEXTAREA',
  'DIALOG',
  'LINK',
  'META',
])

/** Page chrome: removed unless it sits inside the article (an article's own header holds its title). */
const CHROME = new Set(['NAV', 'ASIDE', 'HEADER', 'FOOTER'])
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo'])

/** Substantial enough to stand for the page. */
const MIN_MAIN_TEXT = 200

export function htmlToMarkdown(html: string, baseUrl: string): Converted {
  const doc = createDocument(html) as DomDocument
  const title = (doc.title ?? '').replace(/\s+/g, ' ').trim()
  // One walk per pass with plain checks: domino's selector engine took 0.1–0.5 s for a list of
  // selectors on a 1 MB page, more than the conversion itself.
  removeWhere(doc.documentElement, isNoise)
  const root = contentRoot(doc)
  removeWhere(root, (el) => isChrome(el) && !insideArticle(el, root))
  absolutize(root, baseUrl)
  const markdown = createService()
    .turndown(root as unknown as TurndownService.Node)
    .replace(/\n{3,}/g, '\n\n')
    .trim()
  return { markdown, title }
}

function isNoise(el: DomElement): boolean {
  return (
    NOISE.has(el.nodeName.toUpperCase()) ||
    el.getAttribute('hidden') !== null ||
    el.getAttribute('aria-hidden') === 'true'
  )
}

function isChrome(el: DomElement): boolean {
  return CHROME.has(el.nodeName) || CHROME_ROLES.has(el.getAttribute('role') ?? '')
}

/** Removes every element below `root` that `drop` picks (and so its subtree), in one depth-first walk. */
function removeWhere(root: DomElement, drop: (el: DomElement) => boolean): void {
  const doomed: DomElement[] = []
  const stack: DomElement[] = []
  for (let c = root.firstElementChild; c; c = c.nextElementSibling) stack.push(c)
  while (stack.length > 0) {
    const el = stack.pop()!
    if (drop(el)) {
      doomed.push(el)
      continue
    }
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) stack.push(c)
  }
  for (const el of doomed) el.remove()
}

function contentRoot(doc: DomDocument): DomElement {
  const body = doc.body ?? doc.documentElement
  const articles = doc.querySelectorAll('article')
  const candidates = [
    doc.querySelector('main'),
    doc.querySelector('[role="main"]'),
    articles.length === 1 ? articles[0]! : null,
  ]
  for (const candidate of candidates) {
    if (candidate && (candidate.textContent ?? '').trim().length >= MIN_MAIN_TEXT) return candidate
  }
  return body
}

function insideArticle(el: DomElement, root: DomElement): boolean {
  for (let p = el.parentNode; p && p !== root; p = p.parentNode) {
    if (p.nodeName === 'ARTICLE' || p.nodeName === 'MAIN') return true
  }
  return false
}

function absolutize(root: DomElement, base: string): void {
  const resolve = (value: string): string | undefined => {
    try {
      return new URL(value, base).href
    } catch {
      return undefined
    }
  }
  for (const a of Array.from(root.querySelectorAll('a[href]'))) {
    const href = a.getAttribute('href') ?? ''
    const abs = /^\s*javascript:/i.test(href) ? undefined : resolve(href)
    if (abs) a.setAttribute('href', abs)
    else a.setAttribute('href', '')
  }
  for (const img of Array.from(root.querySelectorAll('img'))) {
    const src = img.getAttribute('src') ?? ''
    const alt = (img.getAttribute('alt') ?? '').trim()
    const abs = src.startsWith('data:') ? undefined : resolve(src)
    // An image without words or a fetchable address tells the model nothing.
    if (!abs || !alt) img.remove()
    else img.setAttribute('src', abs)
  }
}

type Replacement = (content: string, node: DomElement) => string

function rule(filter: string | string[] | ((node: DomElement) => boolean), replacement: Replacement) {
  return {
    filter: filter as TurndownService.Filter,
    replacement: replacement as unknown as TurndownService.ReplacementFunction,
  }
}

function createService(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
    strongDelimiter: '**',
  })
  service.addRule(
    'linkWithoutText',
    rule(
      (node) => node.nodeName === 'A' && (node.textContent ?? '').trim() === '' && !node.querySelector('img'),
      () => '',
    ),
  )
  service.addRule(
    'linkWithoutAddress',
    rule(
      (node) => node.nodeName === 'A' && (node.getAttribute('href') ?? '') === '',
      (content) => content,
    ),
  )
  service.addRule(
    'preWithoutCode',
    rule(
      (node) => node.nodeName === 'PRE' && node.firstChild?.nodeName !== 'CODE',
      (_content, node) => `\n\n\`\`\`\n${(node.textContent ?? '').replace(/\n$/, '')}\n\`\`\`\n\n`,
    ),
  )
  service.addRule(
    'listItem',
    rule('li', (content, node) => {
      const parent = node.parentNode
      let marker = '-'
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start') ?? '1')
        const index = Array.from(parent.children).indexOf(node)
        marker = `${(Number.isFinite(start) ? start : 1) + index}.`
      }
      const indent = ' '.repeat(marker.length + 1)
      const body = content.replace(/^\n+/, '').replace(/\n+$/, '\n').replace(/\n/g, `\n${indent}`)
      return `${marker} ${body.trimEnd()}${node.nextSibling ? '\n' : ''}`
    }),
  )
  service.addRule(
    'tableCell',
    rule(
      ['th', 'td'],
      (content) =>
        `| ${content
          .replace(/\s*\n\s*/g, ' ')
          .replace(/\|/g, '\\|')
          .trim()} `,
    ),
  )
  service.addRule(
    'tableRow',
    rule('tr', (content, node) => {
      const row = `\n${content}|`
      if (!isFirstRow(node)) return row
      const cells = Array.from(node.querySelectorAll('th, td')).length
      return `${row}\n${'| --- '.repeat(Math.max(1, cells))}|`
    }),
  )
  service.addRule(
    'tableSection',
    rule(['thead', 'tbody', 'tfoot'], (content) => content),
  )
  service.addRule(
    'table',
    rule('table', (content) => `\n\n${content.replace(/\n+/g, '\n').trim()}\n\n`),
  )
  return service
}

/** The first row of its table gets the Markdown header separator. */
function isFirstRow(tr: DomElement): boolean {
  let table = tr.parentNode
  while (table && table.nodeName !== 'TABLE') table = table.parentNode
  return table?.querySelector('tr') === tr
}
