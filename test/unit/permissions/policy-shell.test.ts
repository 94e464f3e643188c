import { describe, expect, it } from 'vitest'
import {
  type Decision,
  evaluate,
  type PolicyInput,
  type RuleSet,
} from '../../../source/permissions/policy.js'
import { parseRule } from '../../../source/permissions/rules.js'
import type { PermissionTarget } from '../../../source/permissions/target.js'
import type { Mode } from '../../../source/store/domain.js'
import { cleanGitConfig } from './git-facts.ts'

const workspace = '/work/proj'
const home = '/home/u'

function rules(spec: { allow?: string[]; ask?: string[]; deny?: string[] } = {}): RuleSet {
  const parse = (list: string[] = []) => list.map((text) => parseRule(text, '--flag'))
  return { allow: parse(spec.allow), ask: parse(spec.ask), deny: parse(spec.deny) }
}

/** Symlinks of the test workspace, as the gate's resolver would report them. */
const LINKS: Record<string, string> = {
  [`${workspace}/gitlink`]: `${workspace}/.git`,
  [`${workspace}/gitlink/config`]: `${workspace}/.git/config`,
  [`${workspace}/link`]: '/work/outside',
  [`${workspace}/link/f`]: '/work/outside/f',
  [`${workspace}/innocuous.txt`]: `${workspace}/.env`,
  [`${workspace}/etc-link`]: '/etc/shadow',
  // `..` after a symlink leaves from where the link leads, as the kernel walks it.
  [`${workspace}/link/../secret`]: '/work/secret',
  [`${workspace}/link/../x`]: '/work/x',
  [`${workspace}/gitlink/hooks/../config`]: `${workspace}/.git/config`,
}

function bash(command: string, cwd = workspace): PermissionTarget {
  return { kind: 'command', command, cwd, real: LINKS, gitConfig: cleanGitConfig(command, cwd, home) }
}

function decide(
  mode: Mode,
  command: string,
  spec: { allow?: string[]; ask?: string[]; deny?: string[] } = {},
  extra: Partial<PolicyInput> = {},
) {
  return evaluate({
    mode,
    tool: 'Bash',
    risk: 'exec',
    target: bash(command),
    readOnly: false,
    rules: rules(spec),
    workspace,
    home,
    ...extra,
  })
}

const ALL_MODES: Mode[] = ['safe', 'auto', 'plan', 'dangerous', 'ci']

describe('protected paths beat allow rules, for Bash too', () => {
  it.each<[string, string, Mode, Decision]>([
    ['rm -rf .git ../dir', 'Bash(rm *)', 'safe', 'ask'],
    ['rm -rf .git ../dir', 'Bash(rm *)', 'auto', 'ask'],
    ['rm -rf .git', 'Bash(rm *)', 'dangerous', 'ask'],
    ['rm -rf .git', 'Bash(rm *)', 'ci', 'deny'],
    ['touch ../outside/x', 'Bash(touch *)', 'ci', 'deny'],
    ['touch ../outside/x', 'Bash(touch *)', 'safe', 'ask'],
    ['touch ../outside/x', 'Bash(touch *)', 'dangerous', 'allow'],
    ['touch inside.txt', 'Bash(touch *)', 'ci', 'allow'],
    ['touch link/f', 'Bash(touch *)', 'ci', 'deny'],
    ['rm gitlink/config', 'Bash(rm *)', 'dangerous', 'ask'],
    ['cp a.txt /tmp/b.txt', 'Bash(cp *)', 'safe', 'ask'],
    ['cp ~/.ssh/id_rsa ./key', 'Bash(cp *)', 'safe', 'ask'],
    ['cp a.txt b.txt', 'Bash(cp *)', 'ci', 'allow'],
    ['cp -t ../out a.txt', 'Bash(cp *)', 'ci', 'deny'],
    ['mv a.txt .agent-tui/settings.json', 'Bash(mv *)', 'auto', 'ask'],
    // Configuration and instructions at any depth (a session started in sub/ reads them).
    ['cp evil.json sub/.mcp.json', 'Bash(cp *)', 'auto', 'ask'],
    ['mv s.json sub2/.agent-tui/settings.json', 'Bash(mv *)', 'safe', 'ask'],
    ['tee web/.claude/settings.json < x', 'Bash(tee *)', 'auto', 'ask'],
    ["sed -i 's/a/b/' docs/AGENTS.md", 'Bash(sed *)', 'ci', 'deny'],
    ["sed -i 's/a/b/' pkg/*/CLAUDE.md", 'Bash(sed *)', 'ci', 'deny'],
    ['rm -f */.mcp.json', 'Bash(rm *)', 'auto', 'ask'],
    ['ln -sf ../x.json sub/.mcp.json', 'Bash(ln *)', 'ci', 'deny'],
    ['git -C lib init', 'Bash(git *)', 'ci', 'allow'],
    ['mv .env old.env', 'Bash(mv *)', 'auto', 'ask'],
    ['tee -a .env < x', 'Bash(tee *)', 'auto', 'ask'],
    ['ln -s ../.git', 'Bash(ln *)', 'dangerous', 'ask'],
    // A link to a file outside is a way to write and read it (`… && echo x >> passwd`).
    ['ln -sf /etc/passwd passwd', 'Bash(ln *)', 'ci', 'deny'],
    ['ln -sf /etc/passwd passwd', 'Bash(ln *)', 'dangerous', 'allow'],
    ['mkdir -p ../sibling', 'Bash(mkdir *)', 'ci', 'deny'],
    ['chmod +x .git/hooks/pre-commit', 'Bash(chmod *)', 'dangerous', 'ask'],
    ['chmod -x .git/hooks/pre-commit', 'Bash(chmod *)', 'dangerous', 'ask'],
    ['chown bob ~/.bashrc', 'Bash(chown *)', 'safe', 'ask'],
    ['truncate -s 0 .env.local', 'Bash(truncate *)', 'safe', 'ask'],
    ['dd if=/dev/zero of=.git/index bs=1 count=1', 'Bash(dd *)', 'dangerous', 'ask'],
    ['dd if=a of=b', 'Bash(dd *)', 'ci', 'allow'],
    ["sed -i 's/a/b/' .git/config", 'Bash(sed *)', 'dangerous', 'ask'],
    ["sed -i.bak -e 's/a/b/' ../x.txt", 'Bash(sed *)', 'ci', 'deny'],
    ["sed 's/a/b/' .git/config", 'Bash(sed *)', 'ci', 'allow'],
    ['install -m 755 hook .git/hooks/pre-commit', 'Bash(install *)', 'dangerous', 'ask'],
    ['rsync -a dist/ ../release/', 'Bash(rsync *)', 'ci', 'deny'],
    ['rsync -a dist/ host:/srv/www', 'Bash(rsync *)', 'ci', 'allow'],
    ['curl -o .git/hooks/post-checkout https://x', 'Bash(curl *)', 'dangerous', 'ask'],
    ['wget -O ../x https://x', 'Bash(wget *)', 'ci', 'deny'],
    ['tar xzf a.tgz -C ..', 'Bash(tar *)', 'ci', 'deny'],
    ['tar czf ../a.tgz src', 'Bash(tar *)', 'ci', 'deny'],
    ['sort -o ../out.txt in.txt', 'Bash(sort *)', 'ci', 'deny'],
    ['timeout 5 rm -rf .git', 'Bash(timeout *)', 'dangerous', 'ask'],
    ["bash -c 'rm -rf .git'", 'Bash(bash *)', 'dangerous', 'ask'],
    ["bash -c 'echo x > .git/config'", 'Bash(bash *)', 'dangerous', 'ask'],
    ['find . -name x -exec rm {} +', 'Bash(find *)', 'ci', 'deny'],
    ['rm -rf $DIR', 'Bash(rm *)', 'ci', 'deny'],
    ['rm -rf $DIR', 'Bash(rm *)', 'safe', 'ask'],
    ['rm -rf .g*', 'Bash(rm *)', 'dangerous', 'ask'],
    ['rm -rf .??*', 'Bash(rm *)', 'dangerous', 'ask'],
    ['rm -rf *.o build/*', 'Bash(rm *)', 'ci', 'allow'],
    ['rm -f certs/*.pem', 'Bash(rm *)', 'auto', 'ask'],
    ['rm -rf ../*', 'Bash(rm *)', 'ci', 'deny'],
    ['git config core.fsmonitor "touch /tmp/X"', 'Bash(git config *)', 'dangerous', 'ask'],
    ['git config --global user.name x', 'Bash(git config *)', 'safe', 'ask'],
    ['git config --get user.name', 'Bash(git config *)', 'ci', 'allow'],
    ['git remote add evil https://x', 'Bash(git remote *)', 'dangerous', 'ask'],
    ['git -C sub remote set-url origin https://x', 'Bash(git *)', 'dangerous', 'ask'],
    ['git lfs install', 'Bash(git lfs *)', 'dangerous', 'ask'],
    ['git commit -m x', 'Bash(git commit *)', 'ci', 'allow'],
    ['git push -u origin main', 'Bash(git push *)', 'dangerous', 'allow'],
    ['git branch -u origin/main', 'Bash(git branch *)', 'ci', 'allow'],
    ['rm -rf ../proj', 'Bash(rm *)', 'dangerous', 'ask'],
    ['rm -rf .', 'Bash(rm *)', 'dangerous', 'ask'],
    ['rm -rf src', 'Bash(rm *)', 'ci', 'allow'],
    ['rm ../proj', 'Bash(rm *)', 'ci', 'allow'],
    ['chmod -R 777 .', 'Bash(chmod *)', 'dangerous', 'ask'],
    ['find . -name "*.tmp" -delete', 'Bash(find *)', 'dangerous', 'ask'],
    ['find build -name "*.tmp" -delete', 'Bash(find *)', 'ci', 'allow'],
    // In-place editors write the files they are given.
    ["perl -pi -e 's/a/b/' .git/config", 'Bash(perl *)', 'ci', 'deny'],
    ["perl -i.bak -pe 's/a/b/' src/a.js .git/hooks/pre-commit", 'Bash(perl *)', 'ci', 'deny'],
    ["perl -pi -e 's/a/b/' src/a.js", 'Bash(perl *)', 'ci', 'allow'],
    ["perl -ne 'print' .git/config", 'Bash(perl *)', 'ci', 'allow'],
    ["ruby -i -pe 'x' .git/config", 'Bash(ruby *)', 'ci', 'deny'],
    ["gawk -i inplace '{print}' .git/config", 'Bash(gawk *)', 'ci', 'deny'],
    ["awk -i inplace '{print}' .git/config", 'Bash(awk *)', 'ci', 'deny'],
    // patch writes the files its diff names: unknown until it runs.
    ['patch -p1 < fix.diff', 'Bash(patch *)', 'ci', 'deny'],
    ['patch .git/config < fix.diff', 'Bash(patch *)', 'ci', 'deny'],
    ['patch src/a.js < fix.diff', 'Bash(patch *)', 'ci', 'allow'],
    ['patch -o .git/config src/a.js fix.diff', 'Bash(patch *)', 'ci', 'deny'],
    ['git clone https://x ../elsewhere', 'Bash(git clone *)', 'ci', 'deny'],
  ])('%s with %s in %s mode → %s', (command, allow, mode, decision) => {
    expect(decide(mode, command, { allow: [allow] }).decision).toBe(decision)
  })

  it('tracks `cd`: a relative path after `cd ..` is judged from there', () => {
    expect(decide('ci', 'cd .. && touch x', { allow: ['Bash(touch *)'] }).decision).toBe('deny')
    expect(decide('ci', 'cd sub && touch x', { allow: ['Bash(touch *)', 'Bash(cd *)'] }).decision).toBe(
      'allow',
    )
    expect(decide('ci', 'cd /tmp; rm -rf x', { allow: ['Bash(rm *)'] }).decision).toBe('deny')
    expect(decide('safe', 'cd $D && rm x', { allow: ['Bash(rm *)'] }).decision).toBe('ask')
    // A subshell's `cd` may or may not apply later: both places are judged.
    expect(decide('ci', '(cd sub); touch ../x', { allow: ['Bash(touch *)'] }).decision).toBe('deny')
  })

  it('a link is a write of the file it leads to: a later write through it lands there', () => {
    const ln = (command: string, allow = 'Bash(ln *)') => decide('ci', command, { allow: [allow] }).decision
    expect(ln('ln .git/config hard.cfg')).toBe('deny')
    expect(ln('ln -s .git x')).toBe('deny')
    expect(ln('ln -sf ../outside y')).toBe('deny')
    expect(ln('ln -s ~/.ssh/id_rsa k')).toBe('deny')
    expect(ln('ln .env copy.txt')).toBe('deny')
    expect(ln('ln -t bin ../../x')).toBe('deny')
    expect(ln('cp -l .git/config x', 'Bash(cp *)')).toBe('deny')
    expect(ln('cp --symbolic-link ../../etc/passwd x', 'Bash(cp *)')).toBe('deny')
    expect(ln('link .git/config x', 'Bash(link *)')).toBe('deny')
    // A symlink's target is relative to the link's directory.
    expect(ln('ln -s ../lib/a.js src/a.js')).toBe('allow')
    expect(ln('ln -s ../../x src/x')).toBe('deny')
    expect(ln('ln -s lib/a.js a.js')).toBe('allow')
    expect(ln('ln lib/a.js b.js')).toBe('allow')
    expect(decide('ci', 'ln -s .git x', { allow: ['Bash(ln *)'] }).reason).toContain(
      '`ln` writes .git: writes to .git/ always ask',
    )
  })

  it('`..` after a symlinked directory is judged where the kernel takes it, not folded away', () => {
    expect(decide('ci', 'touch link/../x', { allow: ['Bash(touch *)'] }).decision).toBe('deny')
    expect(decide('ci', 'cd link && touch ../x', { allow: ['Bash(touch *)', 'Bash(cd *)'] }).decision).toBe(
      'deny',
    )
    const redirect = decide('auto', 'echo x > gitlink/hooks/../config')
    expect(redirect.decision).toBe('ask')
    expect(redirect.reason).toContain('(resolved to .git/config): writes to .git/ always ask')
    expect(decide('safe', 'cat link/../secret').decision).toBe('ask')
    expect(decide('safe', 'cd -P link/.. && cat secret').decision).toBe('ask')
    // `cd` without -P is logical, as bash's: `link/..` is the workspace again.
    expect(decide('safe', 'cd link/.. && cat README.md').decision).toBe('allow')
  })

  it('judges paths from the session cwd', () => {
    const inSub = (command: string) =>
      evaluate({
        mode: 'ci',
        tool: 'Bash',
        risk: 'exec',
        target: bash(command, `${workspace}/sub`),
        readOnly: false,
        rules: rules({ allow: ['Bash(touch *)'] }),
        workspace,
        home,
      }).decision
    expect(inSub('touch ../x')).toBe('allow')
    expect(inSub('touch ../../x')).toBe('deny')
  })

  it('says which program writes where, and what a symlink resolved to', () => {
    expect(decide('dangerous', 'rm -rf gitlink', { allow: ['Bash(rm *)'] })).toEqual({
      decision: 'ask',
      reason: '`rm` writes gitlink (resolved to .git): writes to .git/ always ask',
      protectedWrite: true,
    })
    expect(decide('ci', 'touch ../outside/x', { allow: ['Bash(touch *)'] }).reason).toBe(
      '`touch` writes ../outside/x: writes outside the workspace always ask; nobody can answer in ci mode, so it is denied',
    )
    expect(decide('safe', 'rm -rf $DIR', { allow: ['Bash(rm *)'] }).reason).toBe(
      '`rm` writes $DIR, a path only known when it runs',
    )
  })

  it('Edit deny rules hold for the files a command writes', () => {
    expect(decide('dangerous', 'rm package-lock.json', { deny: ['Edit(*.json)'] }).decision).toBe('deny')
  })

  it('added directories are writable like the workspace', () => {
    const extra = { additionalDirs: ['/work/shared'] }
    expect(decide('ci', 'touch /work/shared/x', { allow: ['Bash(touch *)'] }, extra).decision).toBe('allow')
    expect(decide('ci', 'touch /work/shared/.git/x', { allow: ['Bash(touch *)'] }, extra).decision).toBe(
      'deny',
    )
    expect(decide('ci', 'touch /work/other/x', { allow: ['Bash(touch *)'] }, extra).decision).toBe('deny')
  })
})

describe('deny rules hold through wrappers', () => {
  const wrapped = [
    'rm -rf x',
    '/bin/rm -rf x',
    './rm x',
    '/usr/bin/env rm x',
    'command rm x',
    'builtin command rm x',
    'exec rm x',
    "bash -c 'rm -rf x'",
    "sh -c 'ls; rm x'",
    'bash -lc "timeout 5 rm x"',
    'env rm x',
    'env -i FOO=1 rm x',
    'xargs rm',
    'find . | xargs -0 rm -f',
    'eval "rm -rf x"',
    'eval rm x',
    'nice rm x',
    'nice -n 10 rm x',
    'nohup rm x &',
    'timeout 5 rm x',
    'timeout -s KILL 5 rm x',
    'time rm x',
    'stdbuf -o0 rm x',
    'sudo rm x',
    'sudo -u root rm x',
    'doas rm x',
    'setsid rm x',
    "watch 'rm x'",
    'find . -exec rm {} \\;',
    'FOO=1 rm x',
    'if true; then rm x; fi',
    'RM=rm; $RM x',
    '$RM x',
    '$(echo rm) x',
    '`echo rm` x',
    'bash -c "$CMD"',
    'eval "$CMD"',
    'echo "rm x" | sh',
    'env - rm x',
    // Other programs that run a command they are given.
    'flock /tmp/lock rm x',
    'flock -w 5 /tmp/lock -c "rm x"',
    'taskset 1 rm x',
    'taskset -c 0,1 rm x',
    'chrt -f 10 rm x',
    'prlimit --nofile=100 rm x',
    'unbuffer rm x',
    'fakeroot -- rm x',
    'chroot / rm x',
    'strace -f -o /dev/null rm x',
    'ltrace -e malloc rm x',
    'unshare -r rm x',
    'script -q -c "rm x" /dev/null',
    'caffeinate -i rm x',
    // Multi-call binaries run the applet their first operand names; pkexec runs as another user.
    'busybox rm x',
    "busybox sh -c 'rm x'",
    'toybox rm x',
    'pkexec rm x',
    'pkexec --user root rm x',
    // git runs what a `-c` setting names: an alias's `!` command, a pager, a hooks folder…
    "git -c alias.zz='!rm x' zz",
    "git -c core.pager='rm x' log",
    'git -c core.hooksPath=/tmp/hooks commit -m x',
    'git --config-env=core.sshCommand=CMD fetch',
    "git -C sub -c diff.external='rm x' diff",
    // A function body or an alias runs later under another name: they are judged where they are defined.
    'function f { rm x; }; f',
    'function f () { rm -rf x; }\nf',
    "shopt -s expand_aliases\nalias r='rm -f'\nr x",
    "alias ls='rm -rf'",
    'alias r=rm',
  ]

  it.each(wrapped)('--disallowed-tools "Bash(rm *)" denies %j in dangerous mode', (command) => {
    expect(decide('dangerous', command, { deny: ['Bash(rm *)'] }).decision).toBe('deny')
  })

  it.each([
    'ls',
    'timeout 5 ls',
    "bash -c 'git status'",
    'command -v rm',
    'echo rm',
    'npm run rm',
    'taskset -p 1234',
    'chrt -p 1234',
    'flock /tmp/lock true',
    'busybox --list',
    'git -c color.ui=always log',
    "git -c user.name='rm x' commit -m x",
  ])('%j is not denied by Bash(rm *)', (command) => {
    expect(decide('dangerous', command, { deny: ['Bash(rm *)'] }).decision).toBe('allow')
  })

  it('an alias definition is not read-only: it changes what a name runs', () => {
    expect(decide('safe', "alias ll='ls -l'").decision).toBe('ask')
    expect(decide('safe', 'alias').decision).toBe('ask')
  })

  it('an unparseable command is denied in dangerous mode when deny rules cannot be checked', () => {
    expect(decide('dangerous', 'case x in *) rm y;; esac', { deny: ['Bash(rm *)'] }).decision).toBe('deny')
    expect(decide('dangerous', 'case x in *) rm y;; esac').decision).toBe('allow')
  })

  it('says which wrapper it saw through', () => {
    expect(decide('dangerous', 'timeout 5 rm x', { deny: ['Bash(rm *)'] }).reason).toBe(
      'rule Bash(rm *) in --flag denies `timeout 5 rm x` (it runs `rm` through timeout)',
    )
  })

  it('names the command inside a loop or branch without the shell keyword in front of it', () => {
    expect(decide('dangerous', 'for f in *.txt; do rm "$f"; done', { deny: ['Bash(rm *)'] }).reason).toBe(
      'rule Bash(rm *) in --flag denies `rm "$f"`',
    )
    expect(decide('safe', 'if true; then touch x; fi').reason).toBe(
      'safe mode asks before running commands (`touch x`)',
    )
  })

  it('ask rules hold through wrappers as well', () => {
    expect(decide('dangerous', 'nice git push', { ask: ['Bash(git push *)'] }).decision).toBe('ask')
  })
})

describe('a program whose name is only known when it runs', () => {
  const unknown = ['$RM x', 'RM=rm; $RM x', '$(echo rm) x', 'bash -c "$CMD"', 'eval "$CMD"', 'echo x | bash']
  it.each(unknown.flatMap((c) => ALL_MODES.map((m) => [c, m] as const)))('%j in %s mode', (command, mode) => {
    const expected: Record<Mode, Decision> = {
      safe: 'ask',
      auto: 'ask',
      plan: 'deny',
      ci: 'deny',
      dangerous: 'allow',
    }
    expect(decide(mode, command).decision).toBe(expected[mode])
  })

  it('is not covered by an allow rule for some program, only by one for the whole tool', () => {
    expect(decide('ci', '$RM x', { allow: ['Bash(rm *)'] }).decision).toBe('deny')
    expect(decide('ci', '$RM x', { allow: ['Bash'] }).decision).toBe('allow')
  })

  it.each([
    ['eval "$X"', 'Bash(eval *)'],
    ['bash -c "$CMD"', 'Bash(bash *)'],
    ['timeout 5 $X', 'Bash(timeout *)'],
    ['xargs sh -c "$1"', 'Bash(xargs *)'],
    ['watch "$X"', 'Bash(watch *)'],
  ])('not even by a rule that matches its wrapper as written: %j with %s', (command, allow) => {
    expect(decide('ci', command, { allow: [allow] }).decision).toBe('deny')
    expect(decide('ci', command, { allow: ['Bash(*)'] }).decision).toBe('allow')
  })

  it('a deny rule for the whole tool still applies', () => {
    expect(decide('dangerous', '$RM x', { deny: ['Bash'] }).decision).toBe('deny')
  })
})

describe('allow rules see through plain wrappers only', () => {
  it.each<[string, string, Decision]>([
    ['timeout 60 npm test', 'Bash(npm test *)', 'allow'],
    ["bash -c 'npm test'", 'Bash(npm test *)', 'allow'],
    ["bash -c 'npm test && ls'", 'Bash(npm test *)', 'allow'],
    ["bash -c 'npm test && rm x'", 'Bash(npm test *)', 'ask'],
    ['nice -n 5 npm test', 'Bash(npm test *)', 'allow'],
    ['sudo npm test', 'Bash(npm test *)', 'ask'],
    ['env PATH=. npm test', 'Bash(npm test *)', 'ask'],
    ['xargs npm test', 'Bash(npm test *)', 'ask'],
    ['/opt/npm test', 'Bash(npm test *)', 'ask'],
    ['FOO=1 npm test', 'Bash(npm test *)', 'ask'],
  ])('%j with %s in safe mode → %s', (command, allow, decision) => {
    expect(decide('safe', command, { allow: [allow] }).decision).toBe(decision)
  })
})

describe('reads have a boundary too', () => {
  const table: Array<[string, Record<Mode, Decision>]> = [
    ['cat /etc/shadow', { safe: 'ask', auto: 'ask', plan: 'ask', dangerous: 'allow', ci: 'deny' }],
    ['cat .env', { safe: 'ask', auto: 'ask', plan: 'ask', dangerous: 'allow', ci: 'deny' }],
    ['head ~/.ssh/id_rsa', { safe: 'ask', auto: 'ask', plan: 'ask', dangerous: 'allow', ci: 'deny' }],
    ['cat innocuous.txt', { safe: 'ask', auto: 'ask', plan: 'ask', dangerous: 'allow', ci: 'deny' }],
    ['cat etc-link', { safe: 'ask', auto: 'ask', plan: 'ask', dangerous: 'allow', ci: 'deny' }],
    ['cat < /etc/shadow', { safe: 'ask', auto: 'ask', plan: 'ask', dangerous: 'allow', ci: 'deny' }],
    ['grep -r token ~/.aws', { safe: 'ask', auto: 'ask', plan: 'ask', dangerous: 'allow', ci: 'deny' }],
    ['ls ..', { safe: 'ask', auto: 'ask', plan: 'ask', dangerous: 'allow', ci: 'deny' }],
    ['timeout 5 cat /etc/passwd', { safe: 'ask', auto: 'ask', plan: 'ask', dangerous: 'allow', ci: 'deny' }],
    ['git -C ../other log', { safe: 'ask', auto: 'ask', plan: 'ask', dangerous: 'allow', ci: 'deny' }],
    // git prints (or quotes) the file an option names in its `=` form as much as in the separate one.
    [
      'git config --file=/home/u/.aws/credentials --list',
      { safe: 'ask', auto: 'ask', plan: 'ask', dangerous: 'allow', ci: 'deny' },
    ],
    [
      'git blame --contents=/home/u/.env README.md',
      { safe: 'ask', auto: 'ask', plan: 'ask', dangerous: 'allow', ci: 'deny' },
    ],
    [
      'git blame --ignore-revs-file=../.env README.md',
      { safe: 'ask', auto: 'ask', plan: 'ask', dangerous: 'allow', ci: 'deny' },
    ],
    // git takes a long option's unambiguous prefix (`--conten=` is `--contents=`) and attached values.
    [
      'git blame --conten=/home/u/.env README.md',
      { safe: 'ask', auto: 'ask', plan: 'ask', dangerous: 'allow', ci: 'deny' },
    ],
    [
      'git blame --ignore-revs-fi=../notes.txt README.md',
      { safe: 'ask', auto: 'ask', plan: 'ask', dangerous: 'allow', ci: 'deny' },
    ],
    ['git blame -S../x README.md', { safe: 'ask', auto: 'ask', plan: 'ask', dangerous: 'allow', ci: 'deny' }],
    [
      'git log --format=%H --since=2.weeks',
      { safe: 'allow', auto: 'allow', plan: 'allow', dangerous: 'allow', ci: 'deny' },
    ],
    [
      'git blame --contents=notes.txt README.md',
      { safe: 'allow', auto: 'allow', plan: 'allow', dangerous: 'allow', ci: 'deny' },
    ],
    ['cat .env*', { safe: 'ask', auto: 'ask', plan: 'ask', dangerous: 'allow', ci: 'deny' }],
    ['cat $FILE', { safe: 'ask', auto: 'ask', plan: 'ask', dangerous: 'allow', ci: 'deny' }],
    ['cat README.md', { safe: 'allow', auto: 'allow', plan: 'allow', dangerous: 'allow', ci: 'deny' }],
    [
      'grep -rn /etc/passwd src',
      { safe: 'allow', auto: 'allow', plan: 'allow', dangerous: 'allow', ci: 'deny' },
    ],
    ['cat .env.example', { safe: 'allow', auto: 'allow', plan: 'allow', dangerous: 'allow', ci: 'deny' }],
    ['echo /etc/shadow', { safe: 'allow', auto: 'allow', plan: 'allow', dangerous: 'allow', ci: 'deny' }],
    // CDPATH sends `cd outside` to ../outside while the relative path is judged in the workspace.
    [
      'CDPATH=..; cd outside && cat secret',
      { safe: 'ask', auto: 'ask', plan: 'deny', dangerous: 'allow', ci: 'deny' },
    ],
    ['CDPATH=.. cd outside', { safe: 'ask', auto: 'ask', plan: 'deny', dangerous: 'allow', ci: 'deny' }],
  ]
  it.each(table.flatMap(([c, byMode]) => ALL_MODES.map((m) => [c, m, byMode[m]] as const)))(
    '%j in %s mode → %s',
    (command, mode, decision) => {
      expect(decide(mode, command).decision).toBe(decision)
    },
  )

  it('an allow rule for the command does not open the boundary; a Read rule naming the path does', () => {
    expect(decide('ci', 'cat /etc/hosts', { allow: ['Bash(cat *)'] }).decision).toBe('deny')
    expect(decide('ci', 'cat /etc/hosts', { allow: ['Bash(cat *)', 'Read(//etc/**)'] }).decision).toBe(
      'allow',
    )
    expect(decide('ci', 'cat /etc/hosts', { allow: ['Bash(cat *)', 'Read'] }).decision).toBe('deny')
  })

  it('added directories and the session outputs are inside the boundary', () => {
    const extra = { additionalDirs: ['/work/shared'], trustedReadDirs: ['/state/outputs/s1'] }
    expect(decide('safe', 'cat /work/shared/notes.md', {}, extra).decision).toBe('allow')
    expect(decide('safe', 'cat /state/outputs/s1/out.txt', {}, extra).decision).toBe('allow')
    expect(decide('safe', 'cat /work/shared/.env', {}, extra).decision).toBe('ask')
  })

  it('a Read deny rule holds for the files a command reads', () => {
    expect(decide('dangerous', 'cat secrets/a.txt', { deny: ['Read(secrets/**)'] }).decision).toBe('deny')
  })

  it('suggests a Read rule for the directory, and says what resolved where', () => {
    expect(decide('safe', 'cat /etc/hosts')).toMatchObject({
      decision: 'ask',
      reason: '`cat` reads /etc/hosts: reads outside the workspace need consent',
      suggestedRule: 'Read(//etc/**)',
    })
    expect(decide('safe', 'cat innocuous.txt').reason).toBe(
      '`cat` reads innocuous.txt (resolved to .env): reads of secrets files (.env) need consent',
    )
  })

  it('printing the environment is not read-only', () => {
    expect(decide('safe', 'printenv').decision).toBe('ask')
    expect(decide('safe', 'env').decision).toBe('ask')
    expect(decide('safe', 'printenv OPENAI_API_KEY').decision).toBe('ask')
  })

  it.each([
    'echo $OPENAI_API_KEY',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
    'echo "${GITHUB_TOKEN:-none}"',
    'printf %s "$DB_PASSWORD"',
    'cat <<< "$AWS_SECRET_ACCESS_KEY"',
    'cat <<EOF\n$ANTHROPIC_API_KEY\nEOF',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
    'n=OPENAI_API_KEY; echo ${!n}',
    'jq -n env',
    "jq -n '$ENV.NPM_TOKEN'",
  ])('nor is printing a variable that may hold a secret: %j', (command) => {
    expect(decide('safe', command).decision).toBe('ask')
    expect(decide('plan', command).decision).toBe('deny')
    expect(decide('dangerous', command).decision).toBe('allow')
  })

  it('says which variable, and other variables stay readable', () => {
    expect(decide('safe', 'echo $OPENAI_API_KEY').reason).toContain('$OPENAI_API_KEY may hold a secret')
    expect(decide('safe', 'echo "$HOME $PATH"').decision).toBe('allow')
    expect(decide('safe', 'jq .name package.json').decision).toBe('allow')
  })
})

describe("a user command's own `!` context in ci (as Claude Code runs it in -p)", () => {
  it.each([
    ['git status', 'allow'],
    ['git diff HEAD', 'allow'],
    ['git log --oneline -10', 'allow'],
    ['git branch --show-current', 'allow'],
    ['touch stamped.txt', 'deny'],
    ['git commit -m x', 'deny'],
    ['cat .env', 'deny'],
    ['git status; rm -rf build', 'deny'],
    // Read-only, but outside the read boundary or a secret: what would ask is denied in ci, as before.
    ['cat /etc/passwd', 'deny'],
    ['cat ~/.ssh/id_rsa', 'deny'],
    ['cat link/f', 'deny'],
    ['git -c core.pager=sh log', 'deny'],
    ['curl https://example.com', 'deny'],
  ] as const)('%s → %s', (command, decision) => {
    expect(decide('ci', command, {}, { commandContext: true }).decision).toBe(decision)
  })

  it('only for the command: the same read-only call by the model is still denied in ci', () => {
    expect(decide('ci', 'git status').decision).toBe('deny')
  })

  it('a deny rule still holds', () => {
    expect(
      decide('ci', 'git status', { deny: ['Bash(git status)'] }, { commandContext: true }).decision,
    ).toBe('deny')
  })
})

describe('an ask names every command that asks, as written', () => {
  it.each<[string, string]>([
    [
      'rm -rf build && node -e "console.log(1)"',
      'safe mode asks before running commands (`rm -rf build`, `node -e "console.log(1)"`)',
    ],
    ["ls && touch 'a b'", "safe mode asks before running commands (`touch 'a b'`)"],
  ])('%s', (command, reason) => {
    expect(decide('safe', command).reason).toBe(reason)
  })
})
