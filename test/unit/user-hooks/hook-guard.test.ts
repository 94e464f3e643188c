import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { collectHooks } from '../../../source/user-hooks/hook-settings.js'
import {
  createHookService,
  type GuardedRun,
  type HookService,
  type HookServiceOptions,
} from '../../../source/user-hooks/hook-service.js'
import type { HookEvent } from '../../../source/user-hooks/types.js'
import { findHostProgram } from '../../../source/util/host-programs.js'

let root: string
let service: HookService | undefined
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'agent-tui-hook-guard-')))
})
afterEach(async () => {
  await service?.dispose()
  service = undefined
  rmSync(root, { recursive: true, force: true })
})

function hooks(event: HookEvent, command: string, extra: Partial<HookServiceOptions> = {}) {
  const collected = collectHooks([
    {
      scope: 'project',
      label: '.agent-tui/settings.json',
      settings: { hooks: { [event]: [{ hooks: [{ type: 'command', command }] }] } },
    },
  ])
  service = createHookService({
    view: () => ({ active: collected.hooks, inactive: [], warnings: [] }),
    projectDir: root,
    common: () => ({ session_id: 's', transcript_path: '/t', cwd: root, permission_mode: 'acceptEdits' }),
    ...extra,
  })
  return service
}

const tool = { tool_name: 'Edit', tool_input: { file_path: 'src/a.ts' }, tool_use_id: 'c1' }

describe('a hook whose program changed while commands ran unasked', () => {
  it('is asked about before it starts, with the event, its folder and the file the event is about', async () => {
    const seen: GuardedRun[] = []
    const marker = join(root, 'ran')
    const s = hooks('PostToolUse', `touch ${marker}`, {
      guard: async (run) => {
        seen.push(run)
        return undefined
      },
    })
    await s.run('PostToolUse', { ...tool, tool_response: {} })
    expect(seen.map((r) => [r.event, r.cwd, r.related, r.hook.command])).toEqual([
      ['PostToolUse', root, ['src/a.ts'], `touch ${marker}`],
    ])
    expect(existsSync(marker)).toBe(true)
  })

  it('refused: it does not start, and a card says why', async () => {
    const marker = join(root, 'ran')
    const s = hooks('PostToolUse', `touch ${marker}`, {
      guard: async () => 'it would run x, changed at 10:00:00',
    })
    const verdict = await s.run('PostToolUse', { ...tool, tool_response: {} })
    expect(existsSync(marker)).toBe(false)
    expect(verdict.block).toBeNull()
    expect(verdict.cards.map((c) => [c.level, c.text])).toEqual([
      ['warn', 'PostToolUse hook not run: it would run x, changed at 10:00:00'],
    ])
  })

  it('a refused PreToolUse hook blocks the call it was to judge (a guard that cannot run cannot guard)', async () => {
    const s = hooks('PreToolUse', '$CLAUDE_PROJECT_DIR/.agent-tui/hooks/guard.sh', {
      guard: async () => 'it would run .agent-tui/hooks/guard.sh, changed at 10:00:00',
    })
    const verdict = await s.run('PreToolUse', tool)
    expect(verdict.block).toBe(
      'the PreToolUse hook `$CLAUDE_PROJECT_DIR/.agent-tui/hooks/guard.sh` was not run: it would run .agent-tui/hooks/guard.sh, changed at 10:00:00',
    )
  })
})

describe('the shell hooks run in', () => {
  it('is bash by absolute path: a `bash` first on PATH inside the workspace is not it', async () => {
    const planted = join(root, 'work', 'bin')
    mkdirSync(planted, { recursive: true })
    const marker = join(root, 'planted-bash-ran')
    writeFileSync(join(planted, 'bash'), `#!/bin/sh\ntouch ${marker}\nexec /bin/sh "$@"\n`)
    chmodSync(join(planted, 'bash'), 0o755)
    const env = { ...process.env, PATH: `${planted}:${process.env.PATH}` }
    const shell = findHostProgram('bash', { path: env.PATH, unsafe: [join(root, 'work')] })
    expect(shell).toBeDefined()
    const s = hooks('PostToolUse', 'echo hi', { env, ...(shell ? { shell } : {}) })
    const verdict = await s.run('PostToolUse', { ...tool, tool_response: {} })
    expect(verdict.ran).toBe(1)
    expect(existsSync(marker)).toBe(false)
    // Without it, PATH decides (what agent-tui did before).
    await hooks('PostToolUse', 'echo hi', { env }).run('PostToolUse', { ...tool, tool_response: {} })
    expect(existsSync(marker)).toBe(true)
  })
})

describe("a plugin's hook", () => {
  it('runs with CLAUDE_PLUGIN_ROOT set, and the guard judges it with that environment (its script is found)', async () => {
    const plugin = join(root, 'plugin')
    mkdirSync(join(plugin, 'hooks'), { recursive: true })
    const seen = join(root, 'seen')
    writeFileSync(join(plugin, 'hooks', 'h.sh'), `echo "$CLAUDE_PLUGIN_ROOT" > ${seen}\n`)
    const collected = collectHooks([
      {
        scope: 'user',
        label: 'plugin p',
        env: { CLAUDE_PLUGIN_ROOT: plugin },
        settings: {
          hooks: {
            PostToolUse: [
              // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's placeholder, expanded by bash
              { hooks: [{ type: 'command', command: 'bash "${CLAUDE_PLUGIN_ROOT}/hooks/h.sh"' }] },
            ],
          },
        },
      },
    ])
    const runs: GuardedRun[] = []
    service = createHookService({
      view: () => ({ active: collected.hooks, inactive: [], warnings: [] }),
      projectDir: root,
      common: () => ({ session_id: 's', transcript_path: '/t', cwd: root, permission_mode: 'default' }),
      guard: async (run) => {
        runs.push(run)
        return undefined
      },
    })
    await service.run('PostToolUse', { ...tool, tool_response: {} })
    expect(runs[0]?.env.CLAUDE_PLUGIN_ROOT).toBe(plugin)
    expect(runs[0]?.env.CLAUDE_PROJECT_DIR).toBe(root)
    expect(readFileSync(seen, 'utf8').trim()).toBe(plugin)
  })
})
