import { describe, expect, it } from 'vitest'
import { type Decision, evaluate, type PolicyInput } from '../../../source/permissions/policy.js'
import { parseRule } from '../../../source/permissions/rules.js'
import type { SandboxView } from '../../../source/permissions/sandbox-fence.js'
import type { Mode } from '../../../source/store/domain.js'

const workspace = '/work/proj'
const outputs = '/home/u/.local/state/agent-tui/outputs/s1'
const SANDBOX: SandboxView = { writableRoots: [workspace, outputs], projectRoots: [workspace] }

/** A Bash call as the gate passes it: the tool's sandbox view becomes the policy's. */
function bash(
  mode: Mode,
  command: string,
  opts: { sandboxed: boolean; allow?: string[]; ask?: string[]; deny?: string[] },
): ReturnType<typeof evaluate> {
  const parse = (list: string[] = []) => list.map((text) => parseRule(text, 'settings.json'))
  const input: PolicyInput = {
    mode,
    tool: 'Bash',
    risk: 'exec',
    target: { kind: 'command', command, ...(opts.sandboxed ? { sandbox: SANDBOX } : {}) },
    readOnly: false,
    rules: { allow: parse(opts.allow), ask: parse(opts.ask), deny: parse(opts.deny) },
    workspace,
    home: '/home/u',
    ...(opts.sandboxed ? { sandbox: SANDBOX } : {}),
  }
  return evaluate(input)
}

describe('a sandboxed Bash command', () => {
  it.each<[string, Mode, string, Decision, Decision, string]>([
    // name, mode, command, decision sandboxed, decision without the sandbox, part of the sandboxed reason
    // ('' when the reason is the command's own, e.g. "`echo x` is a read-only command")
    [
      'runs in auto mode without asking',
      'auto',
      'touch inside.txt',
      'allow',
      'ask',
      'auto mode runs sandboxed commands',
    ],
    ['runs a build in auto mode', 'auto', 'npm run build && npm test', 'allow', 'ask', 'allowed'],
    // Writes the sandbox refuses need no consent: they fail inside it and the model sees the error.
    ['a write into .git/ is left to the sandbox', 'auto', 'echo x >> .git/config', 'allow', 'ask', ''],
    ['a write beside the workspace too', 'auto', 'echo x > ../outside.txt', 'allow', 'ask', ''],
    [
      'a write into .agent-tui/ too',
      'auto',
      'echo "{}" > .agent-tui/settings.local.json',
      'allow',
      'ask',
      '',
    ],
    ['a write to the private /tmp too', 'auto', 'sort data > /tmp/sorted', 'allow', 'ask', ''],
    ['a write to a name known only when it runs too', 'auto', 'echo x > "$OUT"', 'allow', 'ask', ''],
    // The top of a root is read-only (or reserved) in the sandbox; deeper ones only when they exist,
    // and a new one cannot be stopped there: a named write asks.
    [
      'a write to .claude/ at the top is left to the sandbox',
      'auto',
      'echo {} > .claude/x.json',
      'allow',
      'ask',
      '',
    ],
    // A missing instruction file is not reserved: a named write to one asks.
    ['a write to AGENTS.md asks', 'auto', 'echo hi >> AGENTS.md', 'ask', 'ask', 'instruction files'],
    ['a nested .mcp.json asks', 'auto', 'echo {} > sub/.mcp.json', 'ask', 'ask', '.mcp.json'],
    [
      'a nested .agent-tui/ asks',
      'auto',
      'cp s.json sub2/.agent-tui/settings.json',
      'ask',
      'ask',
      '.agent-tui/',
    ],
    ['a nested CLAUDE.md asks', 'auto', 'echo x > pkg/CLAUDE.md', 'ask', 'ask', 'instruction files'],
    // A glob only reaches names that exist, and the sandbox binds every existing one read-only.
    [
      'a glob over instruction files is left to the sandbox',
      'auto',
      'sed -i s/a/b/ */AGENTS.md',
      'allow',
      'ask',
      '',
    ],
    // Writes the sandbox lets through are judged as without it.
    ['a secrets file in the workspace still asks', 'auto', 'echo KEY=1 > .env', 'ask', 'ask', 'secrets'],
    [
      'a nested repository’s .git still asks',
      'auto',
      'echo x > vendor/lib/.git/config',
      'ask',
      'ask',
      '.git/',
    ],
    [
      'the session outputs (writable in the sandbox) still ask',
      'auto',
      `echo x > ${outputs}/note`,
      'ask',
      'ask',
      'outside the workspace',
    ],
    ['an unparseable command still asks', 'auto', 'echo "unterminated', 'ask', 'ask', 'cannot parse'],
    // The programs' own write targets, not only redirections.
    ['touch beside the workspace is left to the sandbox', 'auto', 'touch ../outside.txt', 'allow', 'ask', ''],
    [
      'git config (a .git/config write) is left to the sandbox',
      'auto',
      'git config core.fsmonitor evil',
      'allow',
      'ask',
      '',
    ],
    [
      'a recursive delete of a folder holding the workspace: .git/ stays read-only, so no ask',
      'auto',
      'rm -rf ../proj',
      'allow',
      'ask',
      '',
    ],
    ['a path only known when it runs is fenced', 'auto', 'rm -rf "$BUILD_DIR"', 'allow', 'ask', ''],
    // Reads are not fenced: the read boundary holds.
    ['a read outside the workspace still asks', 'auto', 'cat ~/.ssh/id_rsa', 'ask', 'ask', 'outside'],
    ['a secrets read still asks', 'auto', 'cat .env', 'ask', 'ask', 'secrets'],
    // The sandbox changes auto mode only.
    ['safe mode still asks', 'safe', 'touch inside.txt', 'ask', 'ask', 'safe mode asks'],
    [
      'safe mode asks for the command, not for the fenced .git write',
      'safe',
      'echo x >> .git/config',
      'ask',
      'ask',
      'safe mode asks',
    ],
    [
      'dangerous mode: .git/ no longer asks, the sandbox refuses it',
      'dangerous',
      'echo x >> .git/config',
      'allow',
      'ask',
      '',
    ],
    ['plan mode still denies', 'plan', 'touch inside.txt', 'deny', 'deny', 'plan mode'],
    ['ci mode still denies without a rule', 'ci', 'touch inside.txt', 'deny', 'deny', 'ci mode'],
  ])('%s', (_name, mode, command, sandboxed, plain, reason) => {
    const result = bash(mode, command, { sandboxed: true })
    expect(result.decision).toBe(sandboxed)
    expect(result.reason).toContain(reason)
    expect(bash(mode, command, { sandboxed: false }).decision).toBe(plain)
  })

  it('judges where a write really lands: a symlink into .git/ is fenced, one to a secrets file is not', () => {
    const real = {
      [`${workspace}/gitlink/config`]: `${workspace}/.git/config`,
      [`${workspace}/notes`]: `${workspace}/.env`,
    }
    const sandboxed = (command: string) =>
      evaluate({
        mode: 'auto',
        tool: 'Bash',
        risk: 'exec',
        target: { kind: 'command', command, real, sandbox: SANDBOX },
        readOnly: false,
        rules: { allow: [], ask: [], deny: [] },
        workspace,
        home: '/home/u',
        sandbox: SANDBOX,
      })
    expect(sandboxed('echo x >> gitlink/config').decision).toBe('allow')
    expect(sandboxed('echo KEY=1 > notes')).toMatchObject({
      decision: 'ask',
      reason: expect.stringContaining('.env'),
    })
  })

  it('a .git that is a symlink can be replaced inside the sandbox: auto mode asks, and so does removing it', () => {
    // The sandbox keeps the link's target read-only, but the link sits in the writable workspace:
    // `rm .git && git init` (or any program) plants a new .git whose config runs outside the sandbox.
    const view: SandboxView = { ...SANDBOX, replaceable: [`${workspace}/.git`] }
    const real = { [`${workspace}/.git`]: '/work/gitdirs/proj' }
    const sandboxed = (mode: Mode, command: string) =>
      evaluate({
        mode,
        tool: 'Bash',
        risk: 'exec',
        target: { kind: 'command', command, real, sandbox: view },
        readOnly: false,
        rules: { allow: [], ask: [], deny: [] },
        workspace,
        home: '/home/u',
        sandbox: view,
      })
    expect(sandboxed('auto', 'touch inside.txt')).toMatchObject({
      decision: 'ask',
      reason: expect.stringContaining('.git is a symlink'),
    })
    expect(sandboxed('auto', 'python3 -c "import os"').decision).toBe('ask')
    expect(sandboxed('auto', 'echo x > "$OUT"').decision).toBe('ask')
    expect(sandboxed('dangerous', 'rm .git').decision).toBe('ask')
    expect(sandboxed('auto', 'cat README.md').decision).toBe('allow')
  })

  it('a program whose name is only known when it runs: unasked only when no deny rule could have caught it', () => {
    expect(bash('auto', '$TOOL build', { sandboxed: true }).decision).toBe('allow')
    expect(bash('auto', '$TOOL build', { sandboxed: true, deny: ['Bash(rm *)'] })).toMatchObject({
      decision: 'ask',
      reason: expect.stringContaining('cannot be checked against it'),
    })
  })

  it('a link made by the command is judged as the file it leads to: the same command may use it at once', () => {
    // Judged before it runs, `k` and `e` do not exist yet; the link's target is what they will be.
    expect(bash('auto', 'ln -s ~/.ssh/id_rsa k && cat k', { sandboxed: true }).decision).toBe('ask')
    expect(bash('auto', 'ln -s .env e && echo X > e', { sandboxed: true }).decision).toBe('ask')
    expect(bash('auto', 'ln -s src/main.ts main.ts', { sandboxed: true }).decision).toBe('allow')
  })

  it('deny rules still hold', () => {
    const result = bash('auto', 'rm -rf build', { sandboxed: true, deny: ['Bash(rm *)'] })
    expect(result).toMatchObject({ decision: 'deny', rule: 'Bash(rm *)' })
  })

  it('ask rules still ask', () => {
    const result = bash('auto', 'git push origin main', { sandboxed: true, ask: ['Bash(git push *)'] })
    expect(result).toMatchObject({ decision: 'ask', rule: 'Bash(git push *)' })
  })

  it('an Edit is judged as always: only Bash commands run in the sandbox', () => {
    const result = evaluate({
      mode: 'auto',
      tool: 'Edit',
      risk: 'edit',
      target: { kind: 'path', path: '.git/config', access: 'write' },
      readOnly: false,
      rules: { allow: [], ask: [], deny: [] },
      workspace,
      home: '/home/u',
    })
    expect(result.decision).toBe('ask')
  })
})
