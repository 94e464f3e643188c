import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { helpText } from '../../../source/config/help-text.js'

/**
 * The repository's documents hold together: every relative link and #anchor resolves (anchors computed from
 * the headings as GitHub computes them), every code fence is closed, and every flag and environment variable
 * `--help` prints is in the flag reference (and the reference lists no flag that does not exist).
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')

/** A document: its path relative to the repository root, and its text. */
interface Doc {
  path: string
  text: string
}

function repositoryDocs(): Doc[] {
  const docsDir = join(root, 'docs')
  const paths = [
    'README.md',
    'ARCHITECTURE.md',
    'CONTRIBUTING.md',
    ...(existsSync(join(root, 'CHANGELOG.md')) ? ['CHANGELOG.md'] : []),
    ...readdirSync(docsDir)
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `docs/${name}`),
  ]
  return paths.map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }))
}

const FENCE = /^\s*(`{3,}|~{3,})/

/**
 * The text outside fenced code blocks and code spans (each blanked, so line numbers stay), and the line of a
 * fence left open, if any.
 */
function prose(text: string): { lines: string[]; withCode: string[]; unclosedFence: number | null } {
  const lines: string[] = []
  /** The same lines with code spans kept (headings show them). */
  const withCode: string[] = []
  let open: { marker: string; line: number } | null = null
  for (const [index, line] of text.split('\n').entries()) {
    const marker = FENCE.exec(line)?.[1]
    if (open) {
      const closes =
        marker !== undefined &&
        marker[0] === open.marker[0] &&
        marker.length >= open.marker.length &&
        line.trim() === marker
      if (closes) open = null
      lines.push('')
      withCode.push('')
    } else if (marker !== undefined) {
      open = { marker, line: index + 1 }
      lines.push('')
      withCode.push('')
    } else {
      withCode.push(line)
      lines.push(line.replace(/(`+)(?:(?!\1)[\s\S])+?\1/g, (span) => ' '.repeat(span.length)))
    }
  }
  return { lines, withCode, unclosedFence: open?.line ?? null }
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, each space a hyphen. */
function slug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images show their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/`/g, '')
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-')
}

/** The anchors a document's headings define, with GitHub's `-1`, `-2` suffixes for repeated ones. */
function anchors(text: string): Set<string> {
  const found = new Set<string>()
  const seen = new Map<string, number>()
  for (const line of prose(text).withCode) {
    const heading = /^ {0,3}#{1,6}\s+(.+?)\s*#*\s*$/.exec(line)
    if (!heading?.[1]) continue
    const base = slug(heading[1])
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    found.add(count === 0 ? base : `${base}-${count}`)
  }
  return found
}

/** Relative links (`[text](target)`, images too) outside code, with their line numbers. */
function relativeLinks(text: string): Array<{ target: string; line: number }> {
  const links: Array<{ target: string; line: number }> = []
  prose(text).lines.forEach((line, index) => {
    for (const match of line.matchAll(
      /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)]*)?\)/g,
    )) {
      const target = match[1]
      if (!target || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue // http:, https:, mailto:
      links.push({ target, line: index + 1 })
    }
  })
  return links
}

/** Every link, anchor or fence that does not hold, as `file:line: why`. */
function linkProblems(docs: readonly Doc[], base: string): string[] {
  const problems: string[] = []
  const anchorsOf = new Map<string, Set<string>>()
  const anchorsFor = (path: string): Set<string> => {
    let known = anchorsOf.get(path)
    if (!known) {
      const doc = docs.find((d) => d.path === path)
      known = anchors(doc ? doc.text : readFileSync(join(base, path), 'utf8'))
      anchorsOf.set(path, known)
    }
    return known
  }
  for (const doc of docs) {
    const open = prose(doc.text).unclosedFence
    if (open !== null) problems.push(`${doc.path}:${open}: code fence never closed`)
    for (const { target, line } of relativeLinks(doc.text)) {
      const where = `${doc.path}:${line}: ${target}`
      const hash = target.indexOf('#')
      const file = hash === -1 ? target : target.slice(0, hash)
      const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1))
      if (isAbsolute(file)) {
        problems.push(`${where}: an absolute path does not resolve on GitHub; link relatively`)
        continue
      }
      const resolved = file === '' ? doc.path : relative(base, resolve(base, dirname(doc.path), file))
      if (resolved.startsWith('..') || isAbsolute(resolved)) {
        problems.push(`${where}: points outside the repository`)
        continue
      }
      if (!docs.some((d) => d.path === resolved) && !existsSync(join(base, resolved))) {
        problems.push(`${where}: no such file ${resolved}`)
        continue
      }
      if (anchor === undefined) continue
      if (!resolved.endsWith('.md')) {
        if (!/^L\d+(-L\d+)?$/.test(anchor)) problems.push(`${where}: #${anchor} is not a line anchor`)
        continue
      }
      if (!anchorsFor(resolved).has(anchor))
        problems.push(`${where}: no heading makes #${anchor} in ${resolved}`)
    }
  }
  return problems
}

/** The long and short flags and the environment variables `--help` prints. */
function helpFlags(help: string): { flags: string[]; env: string[] } {
  const flags: string[] = []
  for (const line of help.split('\n')) {
    const option = /^\s+(?:(-[a-zA-Z]), )?(--[a-z][a-z-]*)/.exec(line)
    if (!option) continue
    if (option[1]) flags.push(option[1])
    flags.push(option[2] as string)
  }
  const envLine = help.split('\n').findIndex((line) => line.trim() === 'Environment:')
  const env = envLine === -1 ? [] : (help.split('\n')[envLine + 1] ?? '').split(',').map((v) => v.trim())
  return { flags, env: env.filter(Boolean) }
}

/** The flags named in the first cell of each row of a document's flag table (rows whose cell starts with `-`). */
function documentedFlags(text: string): string[] {
  const flags = new Set<string>()
  for (const line of text.split('\n')) {
    // The first cell, where `\|` is a pipe inside it.
    const cell = /^\|\s*((?:\\\||[^|])*)\|/.exec(line)?.[1]
    if (!cell?.startsWith('`-')) continue
    for (const code of cell.matchAll(/`([^`]+)`/g)) {
      const flag = /^(--?[a-zA-Z][a-z-]*)/.exec(code[1] as string)?.[1]
      if (flag) flags.add(flag)
    }
  }
  return [...flags]
}

describe('the link checker', () => {
  const docs = [
    { path: 'a.md', text: '# Title\n\n## Set up `npm`\n\nSee [b](b.md#the-end), [here](#set-up-npm).\n' },
    { path: 'b.md', text: '# B\n\n## The end\n\n```md\n## Not a heading\n[not a link](nowhere.md)\n```\n' },
  ]

  it('accepts links and anchors that resolve', () => {
    expect(linkProblems(docs, root)).toEqual([])
  })

  it('reports a missing file, a missing anchor, an anchor inside code and an unclosed fence', () => {
    const broken = [
      { path: 'a.md', text: '# A\n[x](missing.md) [y](b.md#nope) [z](b.md#not-a-heading) [w](#a)\n' },
      { path: 'b.md', text: '# B\n\n```ts\n## Not a heading\n' },
    ]
    expect(linkProblems(broken, root)).toEqual([
      'a.md:2: missing.md: no such file missing.md',
      'a.md:2: b.md#nope: no heading makes #nope in b.md',
      'a.md:2: b.md#not-a-heading: no heading makes #not-a-heading in b.md',
      'b.md:3: code fence never closed',
    ])
  })

  it('computes anchors as GitHub does', () => {
    expect(slug('Checkpoints and /rewind')).toBe('checkpoints-and-rewind')
    expect(slug("The main session's agent")).toBe('the-main-sessions-agent')
    expect(slug('Retries, cut streams and the output limit')).toBe('retries-cut-streams-and-the-output-limit')
    expect(slug('Streaming at 200 tokens/s')).toBe('streaming-at-200-tokenss')
    expect(slug('`--rewind-to` and [links](x.md)')).toBe('--rewind-to-and-links')
    expect([...anchors('# A\n## Limits\n## Limits\n')]).toEqual(['a', 'limits', 'limits-1'])
  })

  it('reads the flags of --help and of a flag table', () => {
    expect(
      helpFlags('Options:\n  -p, --print   x\n      --model NAME  y\n\nEnvironment:\n  A_B, C\n'),
    ).toEqual({
      flags: ['-p', '--print', '--model'],
      env: ['A_B', 'C'],
    })
    expect(documentedFlags('| `-c`, `--continue` | x |\n| `--mode a\\|b` | y |\n| `Enter` | z |\n')).toEqual([
      '-c',
      '--continue',
      '--mode',
    ])
  })
})

describe("the repository's documents", () => {
  const docs = repositoryDocs()

  it('have relative links and anchors that resolve, and closed code fences', () => {
    expect(linkProblems(docs, root)).toEqual([])
  })

  it('give the test command CI and a new user run', () => {
    expect(docs.find((d) => d.path === 'README.md')?.text).toContain('npm install && npm test')
  })

  it('reach every page of docs/ from the README or the docs index', () => {
    const linked = new Set(
      docs
        .filter((d) => d.path === 'README.md' || d.path === 'docs/README.md')
        .flatMap((d) =>
          relativeLinks(d.text).map(({ target }) =>
            relative(root, resolve(root, dirname(d.path), target.split('#')[0] as string)),
          ),
        ),
    )
    const orphans = docs.filter(
      (d) => d.path.startsWith('docs/') && d.path !== 'docs/README.md' && !linked.has(d.path),
    )
    expect(orphans.map((d) => d.path)).toEqual([])
  })

  it('cite the repository, not a spec outside it', () => {
    expect(docs.filter((d) => d.text.includes('SPEC §')).map((d) => d.path)).toEqual([])
  })

  describe('the flag reference (docs/configuration.md) matches --help', () => {
    const reference = docs.find((d) => d.path === 'docs/configuration.md')?.text ?? ''
    const help = helpFlags(helpText())
    const documented = documentedFlags(reference)

    it('lists every flag --help prints', () => {
      expect(help.flags.length).toBeGreaterThan(20)
      expect(help.flags.filter((flag) => !documented.includes(flag))).toEqual([])
    })

    it('lists no flag that --help does not know', () => {
      expect(documented.filter((flag) => !help.flags.includes(flag))).toEqual([])
    })

    it('the README names no flag that --help does not know', () => {
      const readme = docs.find((d) => d.path === 'README.md')?.text ?? ''
      expect(documentedFlags(readme).filter((flag) => !help.flags.includes(flag))).toEqual([])
    })

    it('names every environment variable --help prints', () => {
      expect(help.env.length).toBeGreaterThan(3)
      expect(help.env.filter((name) => !reference.includes(`\`${name}\``))).toEqual([])
    })
  })
})
