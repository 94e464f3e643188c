import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { repoRoot } from '../../support/run-cli.ts'

/**
 * Every signal agent-tui sends goes through the ownership check (util/process-ownership.ts). This lists
 * every `kill(` in source/ and fails on one that is not known to be safe, so a new kill site cannot
 * bypass the check unnoticed.
 */
const SAFE: Record<string, { pattern: RegExp; why: string }[]> = {
  'util/process-ownership.ts': [
    { pattern: /process\.kill\(-group\.pgid, signal\)/, why: 'the checked kill itself' },
  ],
  'tasks/process-group.ts': [
    { pattern: /process\.kill\(pid, 0\)/, why: 'signal 0: only asks whether a process exists' },
    { pattern: /process\.kill\(-pgid, 0\)/, why: 'signal 0: only asks whether a group exists (pgid > 1)' },
  ],
  'ui/terminal/early-frame.ts': [
    { pattern: /process\.kill\(process\.pid, signal\)/, why: 'raises a signal again on agent-tui itself' },
  ],
  // A Node ChildProcess signals its own child only until Node has reaped it: never a reused pid.
  'tasks/task-job.ts': [{ pattern: /child\.kill\(name\)/, why: 'ChildProcess.kill of a direct child' }],
  'sandbox/bash-sandbox.ts': [{ pattern: /child\.kill\('SIGKILL'\)/, why: 'ChildProcess.kill of the probe' }],
  'tools/ripgrep.ts': [{ pattern: /child\.kill\('SIGKILL'\)/, why: 'ChildProcess.kill of rg' }],
  'checkpoints/git.ts': [{ pattern: /child\.kill\('SIGTERM'\)/, why: 'ChildProcess.kill of git' }],
  'ui/clipboard/clipboard.ts': [
    { pattern: /child\.kill\('SIGKILL'\)/, why: 'ChildProcess.kill of a clipboard program that hung' },
  ],
  'ui/clipboard/clipboard-image.ts': [
    {
      pattern: /child\.kill\('SIGKILL'\)/,
      why: 'ChildProcess.kill of a clipboard reader past its time or size',
    },
  ],
  'app/doctor/host-checks.ts': [
    { pattern: /child\.kill\('SIGKILL'\)/, why: "ChildProcess.kill of doctor's probe (rg, bwrap)" },
  ],
  'tools/bash.ts': [
    { pattern: /shell\.kill\(\)/, why: 'ShellProcess.kill: signalGroup with the recorded group' },
  ],
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* sourceFiles(path)
    else if (/\.tsx?$/.test(entry.name)) yield path
  }
}

describe('kill sites', () => {
  it('every kill( in source/ is the checked one or known to be safe', () => {
    const source = join(repoRoot, 'source')
    const unknown: string[] = []
    for (const file of sourceFiles(source)) {
      const rel = relative(source, file).split('\\').join('/')
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          // A call: `x.kill(`, not a word in a comment or a message, nor a method's own definition.
          if (!/\.kill\(/.test(line) || /^\s*(\/\/|\*|\/\*)/.test(line)) return
          const known = SAFE[rel]?.some((safe) => safe.pattern.test(line))
          if (!known) unknown.push(`${rel}:${i + 1}: ${line.trim()}`)
        })
    }
    expect(unknown).toEqual([])
  })
})
