import hljs from 'highlight.js/lib/core'
import bash from 'highlight.js/lib/languages/bash'
import css from 'highlight.js/lib/languages/css'
import diff from 'highlight.js/lib/languages/diff'
import go from 'highlight.js/lib/languages/go'
import javascript from 'highlight.js/lib/languages/javascript'
import json from 'highlight.js/lib/languages/json'
import markdown from 'highlight.js/lib/languages/markdown'
import python from 'highlight.js/lib/languages/python'
import rust from 'highlight.js/lib/languages/rust'
import shell from 'highlight.js/lib/languages/shell'
import typescript from 'highlight.js/lib/languages/typescript'
import xml from 'highlight.js/lib/languages/xml'
import yaml from 'highlight.js/lib/languages/yaml'
import { cleanText } from '../../util/display-text.js'
import type { Style, Theme } from './theme.js'

/**
 * A private highlight.js instance configured once at load and never changed afterwards: registering on
 * the shared default instance would mutate a global other modules can see. Only a handful of languages
 * are bundled to keep start-up fast; other fences render plain.
 */
const highlighter = (() => {
  const instance = hljs.newInstance()
  const languages = {
    bash,
    css,
    diff,
    go,
    javascript,
    json,
    markdown,
    python,
    rust,
    shell,
    typescript,
    xml,
    yaml,
  }
  for (const [name, define] of Object.entries(languages)) instance.registerLanguage(name, define)
  instance.registerAliases(['html', 'htm', 'svg', 'vue'], { languageName: 'xml' })
  instance.registerAliases(['jsonc', 'json5'], { languageName: 'json' })
  instance.registerAliases(['golang'], { languageName: 'go' })
  instance.registerAliases(['patch'], { languageName: 'diff' })
  instance.configure({ ignoreUnescapedHTML: true })
  return instance
})()

const TAB = '    '

/** True when `lang` (a fence info string's first word) is one of the bundled languages. */
export function isKnownLanguage(lang: string): boolean {
  return lang !== '' && highlighter.getLanguage(lang.toLowerCase()) !== undefined
}

/**
 * Highlights `code` and returns one string per source line. Every line carries its own complete ANSI
 * sequences (styles never span a newline), so lines can be wrapped, windowed and cached independently.
 * Unknown languages and colour level 0 return the plain lines; never throws.
 */
export function highlightLines(code: string, lang: string, theme: Theme): string[] {
  const source = code.replaceAll('\t', TAB)
  const language = lang.toLowerCase()
  if (theme.chalk.level === 0 || !isKnownLanguage(language)) return source.split('\n')
  let html: string
  try {
    html = highlighter.highlight(source, { language, ignoreIllegals: true }).value
  } catch {
    return source.split('\n')
  }
  return htmlToLines(html, theme)
}

const TOKEN = /<span class="([^"]*)">|<\/span>|[^<]+|</g

/** Converts highlight.js' `<span class="hljs-…">` output into ANSI lines, innermost scope winning. */
function htmlToLines(html: string, theme: Theme): string[] {
  const lines: string[] = []
  const stack: (Style | undefined)[] = []
  let line = ''
  for (const match of html.matchAll(TOKEN)) {
    const [whole, classes] = match
    if (classes !== undefined) {
      stack.push(scopeStyle(classes, theme) ?? stack.at(-1))
      continue
    }
    if (whole === '</span>') {
      stack.pop()
      continue
    }
    const style = stack.at(-1)
    const parts = decodeEntities(whole).split('\n')
    for (let i = 0; i < parts.length; i++) {
      if (i > 0) {
        lines.push(line)
        line = ''
      }
      const part = parts[i] ?? ''
      if (part !== '') line += style ? style(part) : part
    }
  }
  lines.push(line)
  return lines
}

/** `hljs-title class_` → tries `title.class_`, then `title`. */
function scopeStyle(classes: string, theme: Theme): Style | undefined {
  const [first = '', ...rest] = classes.split(' ')
  const base = first.startsWith('hljs-') ? first.slice(5) : first
  const sub = rest.find((c) => c.endsWith('_'))
  return (sub ? theme.syntax(`${base}.${sub}`) : undefined) ?? theme.syntax(base)
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }

/**
 * Decodes the HTML entities highlight.js and Markdown text may carry. A numeric one is the one way text
 * that was cleaned can make a control character again (`&#27;]52;…` is OSC 52): what it decodes to is
 * cleaned too.
 */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const code =
        body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1))
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff
        ? cleanText(String.fromCodePoint(code))
        : whole
    }
    return ENTITIES[body.toLowerCase()] ?? whole
  })
}
