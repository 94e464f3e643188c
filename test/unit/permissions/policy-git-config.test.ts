import { describe, expect, it } from 'vitest'
import { commandLookups } from '../../../source/permissions/command-analysis.js'
import type { GitConfigFacts } from '../../../source/permissions/git-read-only.js'
import { type Decision, evaluate } from '../../../source/permissions/policy.js'
import type { Mode } from '../../../source/store/domain.js'

/**
 * A read-only git call is read-only only when the git config where it runs names no program: the policy
 * judges what the gate's scan found (git-config-scan.test.ts asks real git). Pure.
 */

const workspace = '/work/proj'
const home = '/home/u'

describe('the directories read-only git calls run in', () => {
  it.each<[string, string[]]>([
    ['git status', [workspace]],
    ['git -C sub log', [`${workspace}/sub`]],
    ['git -C sub -C ../other diff', [`${workspace}/sub/../other`]],
    // Every directory a `cd` may have left it in (a subshell's cd cannot be scoped), as for paths.
    ['cd vendor/lib && git diff', [workspace, `${workspace}/vendor/lib`]],
    ['(cd a; git status); git status', [`${workspace}/a`, workspace]],
    ["bash -c 'cd x && git show'", [workspace, `${workspace}/x`]],
    ['env -C y git status', [`${workspace}/y`]],
    ['git -C /abs/repo status', ['/abs/repo']],
    ['cd $D && git status', []],
    ['git commit -m x', []],
    ['ls && cat a', []],
  ])('%s', (command, dirs) => {
    expect(commandLookups(command, workspace, home).gitDirs.sort()).toEqual(dirs.sort())
  })
})

const clean: GitConfigFacts = { ok: true, runs: [], workTree: workspace }
const driver: GitConfigFacts = {
  ok: true,
  runs: [{ key: 'diff.evil.textconv', origin: `${workspace}/.git/config` }],
  workTree: workspace,
}

function decide(mode: Mode, command: string, facts: Record<string, GitConfigFacts>) {
  return evaluate({
    mode,
    tool: 'Bash',
    risk: 'exec',
    target: { kind: 'command', command, cwd: workspace, gitConfig: facts },
    readOnly: true,
    rules: { allow: [], ask: [], deny: [] },
    workspace,
    home,
  })
}

describe('evaluate: read-only git under the repository’s config', () => {
  it.each<[string, string, Record<string, GitConfigFacts>, Record<Mode, Decision>]>([
    [
      'a clean repository',
      'git diff',
      { [workspace]: clean },
      { safe: 'allow', auto: 'allow', plan: 'allow', dangerous: 'allow', ci: 'deny' },
    ],
    [
      'a textconv driver',
      'git diff',
      { [workspace]: driver },
      { safe: 'ask', auto: 'ask', plan: 'deny', dangerous: 'allow', ci: 'deny' },
    ],
    [
      'a driver in the directory a cd leads to',
      'cd sub && git log -p',
      { [workspace]: clean, [`${workspace}/sub`]: driver },
      { safe: 'ask', auto: 'ask', plan: 'deny', dangerous: 'allow', ci: 'deny' },
    ],
    [
      'a folder only known when it runs',
      'cd "$D" && git status',
      {},
      { safe: 'ask', auto: 'ask', plan: 'deny', dangerous: 'allow', ci: 'deny' },
    ],
    [
      'a config git cannot read',
      'git status',
      { [workspace]: { ok: false, reason: 'git did not answer in 3000 ms' } },
      { safe: 'ask', auto: 'ask', plan: 'deny', dangerous: 'allow', ci: 'deny' },
    ],
    [
      'no scan at all (never read-only by default)',
      'git status',
      {},
      { safe: 'ask', auto: 'ask', plan: 'deny', dangerous: 'allow', ci: 'deny' },
    ],
    [
      'a work tree outside the workspace',
      'git status',
      { [workspace]: { ok: true, runs: [], workTree: home } },
      { safe: 'ask', auto: 'ask', plan: 'deny', dangerous: 'allow', ci: 'deny' },
    ],
  ])('%s: %s', (_name, command, facts, byMode) => {
    for (const [mode, decision] of Object.entries(byMode))
      expect([mode, decide(mode as Mode, command, facts).decision]).toEqual([mode, decision])
  })

  it('says why, naming the setting and the file', () => {
    expect(decide('plan', 'git diff', { [workspace]: driver }).reason).toBe(
      'plan mode only runs read-only commands (`git diff` is not: the repository’s git config (.git/config) sets diff.evil.textconv, a program git runs)'.replace(
        '’',
        "'",
      ),
    )
    expect(decide('safe', 'git status && git diff', { [workspace]: driver }).reason).toBe(
      // Both commands ask, for the same reason: both named, the reason once.
      "safe mode asks before running commands (`git status`, `git diff`: the repository's git config (.git/config) sets diff.evil.textconv, a program git runs)",
    )
  })
})
