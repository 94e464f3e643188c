import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createStore } from '../../../source/store/create-store.js'
import { initialState } from '../../../source/store/state.js'
import { runHookCommand } from '../../../source/user-hooks/run-command.js'
import {
  changeKey,
  createStatusLineRunner,
  hasVisibleText,
  statusLineInput,
  statusText,
} from '../../../source/user-hooks/status-line.js'

const ESC = '\x1b'

describe('statusText', () => {
  it.each([
    ['plain\nsecond line\n', 'plain'],
    ['\n\nafter blank lines', 'after blank lines'],
    [`${ESC}[1;34mblue${ESC}[0m text`, `${ESC}[1;34mblue${ESC}[0m text${ESC}[0m`],
    [`${ESC}[38;5;208morange`, `${ESC}[38;5;208morange${ESC}[0m`],
    // Cursor moves, screen clears, titles, the clipboard and links are taken out; their text stays.
    [`a${ESC}[2Jb${ESC}[10;1Hc`, 'abc'],
    [`${ESC}]0;pwned\x07title`, 'title'],
    [`${ESC}]52;c;ZXZpbA==\x07clip`, 'clip'],
    [`${ESC}]8;;https://evil.example\x07link${ESC}]8;;\x07`, 'link'],
    ['tab\there\rcr', 'tab herecr'],
    ['evil\u202etxt.exe', 'eviltxt.exe'],
    ['', ''],
  ])('%j → %j', (stdout, shown) => {
    expect(statusText(stdout)).toBe(shown)
  })

  it.each([
    ['x', true],
    [`${ESC}[31m${ESC}[0m`, false],
    ['   ', false],
  ])('hasVisibleText(%j) → %s', (text, visible) => {
    expect(hasVisibleText(text)).toBe(visible)
  })
})

function state() {
  const s = initialState(
    { id: 'sess-1', cwd: '/w', model: 'qwen3', baseUrl: 'x', title: 'fix it', startedAt: 1000 },
    'safe',
  )
  return {
    ...s,
    usage: {
      ...s.usage,
      session: { input: 1200, output: 300, cached: 100 },
      lastStep: { input: 800, output: 50, cached: 100 },
      contextTokens: 2500,
    },
  }
}

describe('statusLineInput', () => {
  it("has Claude Code's fields, from the session", () => {
    const input = statusLineInput(
      state(),
      { projectDir: '/w', currentDir: '/w/sub', version: '1.2.3', contextLimit: 10_000, costUsd: 0.5 },
      6000,
    )
    expect(input).toEqual({
      hook_event_name: 'Status',
      session_id: 'sess-1',
      cwd: '/w/sub',
      model: { id: 'qwen3', display_name: 'qwen3' },
      workspace: { current_dir: '/w/sub', project_dir: '/w' },
      version: '1.2.3',
      output_style: { name: 'default' },
      cost: { total_cost_usd: 0.5, total_duration_ms: 5000 },
      context_window: {
        total_input_tokens: 1200,
        total_output_tokens: 300,
        context_window_size: 10_000,
        current_usage: { input_tokens: 800, output_tokens: 50, cache_read_input_tokens: 100 },
        used_percentage: 25,
        remaining_percentage: 75,
      },
      exceeds_200k_tokens: false,
      permission_mode: 'safe',
      session_title: 'fix it',
    })
  })

  it('the clock alone is no change; a token is', () => {
    const facts = { projectDir: '/w', currentDir: '/w', version: 'v', contextLimit: 1000 }
    const a = changeKey(statusLineInput(state(), facts, 2000))
    expect(changeKey(statusLineInput(state(), facts, 90_000))).toBe(a)
    const more = state()
    more.usage.session = { ...more.usage.session, output: 301 }
    expect(changeKey(statusLineInput(more, facts, 2000))).not.toBe(a)
  })
})

let dir: string
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-statusline-')))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** A runner with a hand-driven debounce timer: `flush()` fires it. */
function runner(command: string, extra: Partial<Parameters<typeof createStatusLineRunner>[0]> = {}) {
  const lines: string[] = []
  const problems: string[] = []
  let fire: (() => void) | undefined
  const r = createStatusLineRunner({
    settings: { type: 'command', command },
    run: runHookCommand,
    cwd: () => dir,
    env: process.env,
    onLine: (t) => lines.push(t),
    onProblem: (t) => problems.push(t),
    setTimer: (fn) => {
      fire = fn
      return 1
    },
    clearTimer: () => {
      fire = undefined
    },
    ...extra,
  })
  const flush = () => {
    const f = fire
    fire = undefined
    f?.()
  }
  return { r, lines, problems, flush, pending: () => fire !== undefined }
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10))
  expect(cond()).toBe(true)
}

describe('createStatusLineRunner', () => {
  it('runs the command with the JSON on stdin, shows its first line, and runs again only on a change', async () => {
    const log = join(dir, 'runs')
    const t = runner(
      `echo run >> ${log}; jq -r '"[" + .model.display_name + "] " + (.n|tostring)' 2>/dev/null || node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);console.log("["+j.model.display_name+"] "+j.n)})'`,
    )
    t.r.update({ model: { display_name: 'qwen3' }, n: 1, cost: {} })
    expect(t.pending()).toBe(true)
    t.flush()
    await until(() => t.lines.length === 1)
    expect(t.lines).toEqual(['[qwen3] 1'])
    t.r.update({ model: { display_name: 'qwen3' }, n: 1, cost: { total_duration_ms: 99 } })
    expect(t.pending()).toBe(false)
    t.r.update({ model: { display_name: 'qwen3' }, n: 2, cost: {} })
    t.flush()
    await until(() => t.lines.length === 2)
    expect(t.lines[1]).toBe('[qwen3] 2')
    expect((await readFile(log, 'utf8')).trim().split('\n')).toHaveLength(2)
    await t.r.stop()
    t.r.update({ n: 3 })
    expect(t.pending()).toBe(false)
  })

  it('kills a command past its timeout with its process group, and says so once', async () => {
    const pidFile = join(dir, 'child')
    const t = runner(`sleep 30 & echo $! > ${pidFile}; wait`, { timeoutMs: 1500 })
    t.r.update({ n: 1 })
    t.flush()
    await until(() => t.problems.length === 1)
    expect(t.problems[0]).toMatch(/took over 1.5 s and was stopped/)
    const child = Number((await readFile(pidFile, 'utf8')).trim())
    await until(() => {
      try {
        process.kill(child, 0)
        return false
      } catch {
        return true
      }
    })
    t.r.update({ n: 2 })
    t.flush()
    await until(() => t.lines.length === 0 && !t.pending())
    await t.r.stop()
    expect(t.problems).toHaveLength(1)
  })

  it('a newer change stops the run in progress; stop() stops a running one', async () => {
    const t = runner(`read -r line; case "$line" in *'"n":1'*) sleep 30;; esac; echo "got $line"`)
    t.r.update({ n: 1 })
    t.flush()
    await new Promise((r) => setTimeout(r, 100))
    t.r.update({ n: 2 })
    t.flush()
    await until(() => t.lines.length === 1)
    expect(t.lines).toEqual(['got {"n":2}'])
    const slow = runner('sleep 30')
    slow.r.update({ n: 1 })
    slow.flush()
    await new Promise((r) => setTimeout(r, 100))
    const started = Date.now()
    await slow.r.stop()
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(slow.lines).toEqual([])
  })

  it('does not run when the provenance check refuses it, and says why once; a failing command says how', async () => {
    const ran = join(dir, 'ran')
    const refused = runner(`touch ${ran}`, {
      vet: async () => 'status.sh changed while commands ran unasked',
    })
    refused.r.update({ n: 1 })
    refused.flush()
    await until(() => refused.problems.length === 1)
    refused.r.update({ n: 2 })
    refused.flush()
    await refused.r.stop()
    expect(refused.problems).toEqual([
      'the status line command does not run: status.sh changed while commands ran unasked',
    ])
    await expect(readFile(ran)).rejects.toThrow()
    const failing = runner('echo partial; echo "no such thing" >&2; exit 3')
    failing.r.update({ n: 1 })
    failing.flush()
    await until(() => failing.lines.length === 1)
    expect(failing.problems).toEqual(['the status line command exited with 3: no such thing'])
    expect(failing.lines).toEqual(['partial'])
  })
})

describe('the store', () => {
  it('keeps the line in ui.statusLine, and the same line is no change', () => {
    const store = createStore(state())
    store.dispatch({ type: 'status/line', text: 'hello' })
    const after = store.getState()
    expect(after.ui.statusLine).toBe('hello')
    store.dispatch({ type: 'status/line', text: 'hello' })
    expect(store.getState()).toBe(after)
  })
})
