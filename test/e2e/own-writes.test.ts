/**
 * agent-tui's own writes into the session's outputs dir, which the Bash sandbox lets commands write by
 * design (issue #30, class 1): a hostile model in `--mode auto --sandbox` plants links, a FIFO and a
 * linked folder named like the next job log, subagent log and spill, then makes agent-tui write them.
 * Nothing may land in the (fake) home directory, and every log stays readable through TaskOutput.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { agentRouter, isMain, lastToolResult, messagesOf } from '../support/agent-router.ts'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { osSandbox } from '../support/os-sandbox.ts'

const env = setupE2eEnv()
const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] })

/** Run inside the sandbox: finds its writable outputs dir from its own mounts and plants in it. */
const PLANT = `
const fs = require('fs'), path = require('path'), cp = require('child_process')
const [bashrc, profile, home, phase] = process.argv.slice(2)
const mounts = fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\\n').map((l) => l.split(' ')[4])
const out = mounts.find((m) => m && /\\/agent-tui\\/outputs\\/[^/]+$/.test(m))
const run = fs.readdirSync(out).find((n) => n.startsWith('run-'))
const tasks = path.join(out, run, 'tasks')
if (phase === 'names') {
  fs.symlinkSync(bashrc, path.join(tasks, 'b2.log'))
  fs.symlinkSync(bashrc, path.join(tasks, 'a1.log'))
  cp.execFileSync('mkfifo', [path.join(tasks, 'b3.log')])
  for (const n of fs.readdirSync(out)) {
    if (!/^grep-[0-9a-f]+\\.txt$/.test(n)) continue
    fs.rmSync(path.join(out, n))
    fs.symlinkSync(profile, path.join(out, n))
  }
} else {
  fs.renameSync(tasks, tasks + '.old')
  fs.symlinkSync(home, tasks)
}
console.log('planted in', out)
`

describe.runIf(osSandbox?.kind === 'bwrap')(
  'agent-tui’s own writes where a sandboxed command planted links',
  () => {
    it('job logs, a subagent log and a spill never land in the home directory; the logs stay readable', async () => {
      const { home, workspace } = env.box
      const bashrc = join(home, '.bashrc')
      const profile = join(home, '.profile')
      writeFileSync(bashrc, 'export PS1=ok\n')
      writeFileSync(join(workspace, 'plant.cjs'), PLANT)
      // Enough matching lines that Grep's result spills to a content-addressed (predictable) file.
      writeFileSync(
        join(workspace, 'big.txt'),
        Array.from({ length: 300 }, (_, i) => `needle line ${i} ${'x'.repeat(180)}\n`).join(''),
      )
      execFileSync('git', ['init', '-q'], { cwd: workspace })
      // What is in the home directory besides agent-tui's own state and config dirs.
      const homeFiles = () =>
        readdirSync(home)
          .filter((n) => n !== '.local' && n !== '.config')
          .sort()
      const homeBefore = homeFiles()
      const node = `"${process.execPath}"`
      const grep = call('Grep', { pattern: 'needle', path: 'big.txt', output_mode: 'content' })
      const router = agentRouter()
        .main(
          call('Bash', { command: 'echo first-job', run_in_background: true }),
          call('TaskOutput', { task_id: 'b1', block: true, timeout: 20000 }),
          grep,
          call('Bash', { command: `${node} plant.cjs ${bashrc} ${profile} ${home} names` }),
          call('Bash', { command: 'echo PWNED-JOB', run_in_background: true }),
          call('TaskOutput', { task_id: 'b2', block: true, timeout: 20000 }),
          call('Bash', { command: 'echo after-fifo', run_in_background: true }),
          call('TaskOutput', { task_id: 'b3', block: true, timeout: 20000 }),
          grep,
          call('Agent', { description: 'Bg', prompt: 'TASK-BG: answer', run_in_background: true }),
          call('TaskOutput', { task_id: 'a1', block: true, timeout: 20000 }),
          call('Bash', { command: `${node} plant.cjs ${bashrc} ${profile} ${home} folder` }),
          call('Bash', { command: 'echo PWNED-FOLDER', run_in_background: true }),
          { text: 'done' },
        )
        .agent('TASK-BG', { text: 'SUBAGENT-ANSWER' })
      env.server.enqueue(...router.sources())
      const r = await env.cli(['-p', 'go', '--sandbox', '--mode', 'auto', '--output-format', 'json'])
      expect(r.code, r.stderr).toBe(0)

      // Nothing agent-tui wrote went through a link into the home directory.
      expect(readFileSync(bashrc, 'utf8')).toBe('export PS1=ok\n')
      expect(existsSync(profile)).toBe(false)
      expect(homeFiles()).toEqual(homeBefore)

      const main = env.server.requests.filter(isMain)
      const result = (i: number) => lastToolResult(main[i])
      expect(result(4)).toContain('planted in')
      // The job whose log name was a link: its output was kept, in a log of its own.
      expect(result(6)).toContain('PWNED-JOB')
      const b2Log = /\/b2\.[0-9a-f]{12}\.log/.exec(result(5) + result(6))
      expect(b2Log).not.toBeNull()
      // The FIFO at the next log's name did not stall anything.
      expect(result(8)).toContain('after-fifo')
      // The second Grep spilled again, into a file of its own in place of the planted link.
      const spilled = /full output: (\S+grep-[0-9a-f]+\.txt)/.exec(result(9))?.[1]
      expect(spilled).toBeDefined()
      expect(readFileSync(spilled as string, 'utf8')).toContain('needle line 249 ')
      // The subagent whose log name was a link: its answer is there.
      expect(result(11)).toContain('SUBAGENT-ANSWER')
      // A log folder swapped for a link: a specific error, no job, nothing written there.
      expect(result(13)).toMatch(/tasks is a symbolic link; agent-tui does not write through links/)
      expect(messagesOf(main.at(-1)).some((m) => String(m.content).includes('PWNED-FOLDER'))).toBe(false)
    })
  },
)
