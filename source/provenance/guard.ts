import { createHash } from 'node:crypto'
import { relative } from 'node:path'
import { type ChangeAnswer, findChanges, MAX_ENTRIES } from './changed.js'
import { type Footprint, type FootprintInput, footprintOf } from './footprint.js'
import type { Verdicts } from './verdicts.js'
import type { UnaskedWindow } from './windows.js'

/**
 * The one question before agent-tui starts a hook command or an MCP stdio server outside the sandbox:
 * would it run something that changed while commands or edits ran unasked (footprint.ts says what it
 * runs, changed.ts whether that changed, windows.ts when things ran unasked)? A clean answer, and the
 * user's "allow", are remembered (verdicts.ts) so only a later change asks again. Within a session a
 * check is not repeated until something unasked has run since.
 */

export interface GuardSubject {
  /** `PostToolUse hook`, `MCP server "github"`: for the key and messages. */
  kind: string
  command: FootprintInput['command']
  cwd: string
  env: Readonly<Record<string, string | undefined>>
  related?: readonly string[]
}

export type GuardAnswer =
  | { ok: true }
  | {
      ok: false
      /** Why it must not run unasked, for the prompt, the notice and stderr. */
      reason: string
      /** Remember with `allow(key, at)` once the user allows it. */
      key: string
      at: number
    }

export interface ProvenanceGuard {
  check(subject: GuardSubject): GuardAnswer
  /** The user allowed it as it was at `at`: only later changes ask again. */
  allow(key: string, at: number): void
}

export interface GuardOptions {
  windows(): UnaskedWindow[]
  /** Bumped whenever something unasked starts (see WindowLedger.generation). */
  generation(): number
  verdicts: Verdicts
  home: string
  /** Shows a path in messages (relative to the workspace inside it). */
  show(path: string): string
  now?: () => number
  /** How far before a window a ctime still counts (the file system's clock lag; tests use 0). */
  marginMs?: number
}

export function createProvenanceGuard(opts: GuardOptions): ProvenanceGuard {
  const now = opts.now ?? Date.now
  // key → the generation it was found clean at, in this session.
  const clean = new Map<string, number>()
  return {
    check(subject) {
      const windows = opts.windows()
      if (windows.length === 0) return { ok: true }
      const roots = [...new Set(windows.flatMap((w) => w.roots))]
      const footprint = footprintOf({
        command: subject.command,
        cwd: subject.cwd,
        env: subject.env,
        home: opts.home,
        roots,
        ...(subject.related ? { related: subject.related } : {}),
      })
      if (footprint.paths.length === 0 && footprint.trees.length === 0) return { ok: true }
      const key = keyOf(subject, footprint)
      const at = now()
      // Nothing unasked started since it was found clean here, and no other session has a window open.
      const othersOpen = windows.filter((w) => w.end === undefined).length > 1
      if (clean.get(key) === opts.generation() && !othersOpen) return { ok: true }
      const since = opts.verdicts.since(key) ?? Number.NEGATIVE_INFINITY
      const answer = findChanges(
        footprint,
        windows,
        since,
        opts.marginMs === undefined ? {} : { marginMs: opts.marginMs },
      )
      if (!answer.changed) {
        clean.set(key, opts.generation())
        if (answer.checked > 0) opts.verdicts.record(key, at)
        return { ok: true }
      }
      return { ok: false, key, at, reason: explain(footprint, answer, opts.show) }
    },
    allow(key, at) {
      opts.verdicts.record(key, at)
      clean.delete(key)
    },
  }
}

function keyOf(subject: GuardSubject, footprint: Footprint): string {
  const command = 'script' in subject.command ? subject.command.script : subject.command.argv.join('\0')
  const hash = createHash('sha256')
  for (const part of [
    subject.kind,
    command,
    subject.cwd,
    ...footprint.paths.sort(),
    '|',
    ...footprint.trees.sort(),
  ])
    hash.update(`${part}\0`)
  return hash.digest('hex').slice(0, 32)
}

function explain(
  footprint: Footprint,
  answer: Extract<ChangeAnswer, { changed: true }>,
  show: (path: string) => string,
): string {
  const unasked = 'while commands or edits ran unasked (sandboxed commands, auto-mode edits)'
  if ('tooMany' in answer) {
    const what = footprint.unbounded ?? 'what it would run is'
    return `${what}: more than ${MAX_ENTRIES.toLocaleString('en-US')} files would have to be checked for changes made ${unasked}`
  }
  const when = new Date(answer.first.ctimeMs).toTimeString().slice(0, 8)
  const more = answer.count > 1 ? ` (and ${answer.count - 1} more)` : ''
  const path = `${show(answer.first.path)}${more}`
  return footprint.unbounded
    ? `${footprint.unbounded}, and ${path} changed at ${when} ${unasked}`
    : `it would run ${path}, changed at ${when} ${unasked}`
}

/** `node_modules/.bin/prettier` for a path in the workspace, else the path. */
export function shownRelativeTo(workspace: string): (path: string) => string {
  return (path) => {
    const rel = relative(workspace, path)
    return rel !== '' && rel !== '..' && !rel.startsWith('../') && !rel.startsWith('/') ? rel : path
  }
}
